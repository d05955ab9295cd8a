"""Fixtures for the write side: a strict Route 53 with one zone, record builders."""

from __future__ import annotations

from typing import Any

import pytest

from edge_origin.testing.route53 import StrictRoute53

ZONE = "example.com"
NAME = "origin.example.com"


def a_record(sid: str | None, ip: str, *, multivalue: bool = False, weight: int | None = None,
             ttl: int = 60, hc: str | None = None, name: str = NAME) -> dict[str, Any]:
    record: dict[str, Any] = {"Name": name, "Type": "A", "TTL": ttl, "ResourceRecords": [{"Value": ip}]}
    if sid is not None:
        record["SetIdentifier"] = sid
    if multivalue:
        record["MultiValueAnswer"] = True
    if weight is not None:
        record["Weight"] = weight
    if hc is not None:
        record["HealthCheckId"] = hc
    return record


def weighted_alias(sid: str, lb_dns: str, weight: int = 50, name: str = NAME) -> dict[str, Any]:
    return {
        "Name": name, "Type": "A", "SetIdentifier": sid, "Weight": weight,
        "AliasTarget": {"DNSName": lb_dns, "HostedZoneId": "Z26RNL4JYFTOTI", "EvaluateTargetHealth": True},
    }


def change(action: str, record: dict[str, Any]) -> dict[str, Any]:
    return {"Action": action, "ResourceRecordSet": record}


def tcp_check(r53: StrictRoute53, ip: str, ref: str | None = None) -> str:
    config = {"Type": "TCP", "IPAddress": ip, "Port": 443, "RequestInterval": 10, "FailureThreshold": 3}
    return r53.create_health_check(CallerReference=ref or f"hc-{ip}", HealthCheckConfig=config)["HealthCheck"]["Id"]


@pytest.fixture()
def r53() -> StrictRoute53:
    return StrictRoute53()


@pytest.fixture()
def zone_id(r53: StrictRoute53) -> str:
    return r53.create_hosted_zone(Name=ZONE, CallerReference="zone-1")["HostedZone"]["Id"].split("/")[-1]
