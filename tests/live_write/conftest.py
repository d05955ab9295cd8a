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



def strict_zone(**options: Any) -> tuple[StrictRoute53, str]:
    """A strict Route 53 built with ``options`` and its one zone, example.com: (client, zone id)."""
    r53 = StrictRoute53(**options)
    return r53, create_zone(r53)


def create_zone(r53: Any) -> str:
    """Create example.com (caller reference "z") on ``r53``; its zone id."""
    return r53.create_hosted_zone(Name=ZONE, CallerReference="z")["HostedZone"]["Id"].split("/")[-1]


class FakeClock:
    """enact's ``sleep``/``clock`` pair without real time: sleeping moves ``now`` on."""

    def __init__(self) -> None:
        self.now = 0.0

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def clock(self) -> float:
        return self.now

@pytest.fixture()
def r53() -> StrictRoute53:
    return StrictRoute53()


@pytest.fixture()
def zone_id(r53: StrictRoute53) -> str:
    return create_zone(r53)


INCIDENT_IPS = [f"203.0.113.{10 + n}" for n in range(6)]
INCIDENT_ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"]


def incident_setup(r53: StrictRoute53, zone_id: str) -> None:
    """The incident's live state: two weighted alias records, 50/50, onto two NLBs."""
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [
        change("CREATE", weighted_alias("nlb-1", "nlb-1-abcdef.elb.us-east-1.amazonaws.com")),
        change("CREATE", weighted_alias("nlb-2", "nlb-2-ghijkl.elb.us-east-1.amazonaws.com")),
    ]})


def make_plan(zone_id: str, generation: int, ips: list[str] | None = None, *, ttl: int = 60,
              health_check_ids: dict[str, str] | None = None, port: int = 443) -> Any:
    """A plan of multivalue records (one per IP), health checks created unless ids are given."""
    from edge_origin.live.plans import LiveHealthCheckSpec, LivePlanRecord, Plan

    records = []
    for n, ip in enumerate(ips if ips is not None else INCIDENT_IPS):
        sid = "nlb-" + ip.replace(".", "-")
        hc_id = (health_check_ids or {}).get(ip)
        records.append(LivePlanRecord(sid, ip, INCIDENT_ZONES[n % 3], hc_id, None if hc_id else LiveHealthCheckSpec("TCP", port)))
    return Plan(NAME, zone_id, generation, ttl, tuple(records))
