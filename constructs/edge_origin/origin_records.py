"""MultivalueOriginRecords: one health-checked multivalue A record per origin address."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import aws_cdk as cdk
from aws_cdk import aws_route53 as route53
from constructs import Construct

from edge_origin.errors import (
    ConstructLabel,
    EdgeOriginPropError,
    is_token,
    require_int_range,
    require_one_of,
    require_port,
    require_seconds_range,
    seconds_of,
)

REQUEST_INTERVALS = (10, 30)
"""Route 53 health checks run every 10 s (fast) or 30 s (standard); nothing else."""
FAILURE_THRESHOLD_RANGE = (1, 10)
TTL_RANGE = (0, 2147483647)
"""Route 53 accepts TTLs of 0..2147483647 s."""
TTL_WARNING_ABOVE = 300
MAX_ANSWERS = 8
"""Route 53 answers a multivalue query with at most 8 healthy records."""
HEALTH_CHECK_TYPES = ("TCP", "HTTPS", "HTTP")
SET_IDENTIFIER_PATTERN = re.compile(r"[A-Za-z0-9._:-]{1,128}")


@dataclass(frozen=True)
class OriginAddress:
    """One value for the origin name: an IP (often an EIP's ``Ref``) and its stable set identifier."""

    ip_address: str
    set_identifier: str
    health_check_ip: str | None = None
    """Address Route 53 health-checks. Default: ``ip_address``."""


@dataclass(frozen=True)
class OriginRecord:
    """What was made for one address."""

    address: OriginAddress
    record: route53.ARecord
    health_check: route53.IHealthCheck


class MultivalueOriginRecords(Construct):
    """Multivalue-answer A records for one origin name, one record and one health check per address.

    Route 53 answers each query with up to 8 healthy records in random order, so every resolver
    (every CloudFront edge host) gets the whole fleet and spreads new connections over it. A
    weighted record set answers with one address, and a synchronized burst of long-lived
    connections then lands on one NLB (the 79.8 % error broadcast start).

    Set identifiers are given explicitly: CDK's default comes from the construct path, so moving
    code would replace live records.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        zone: route53.IHostedZone,
        record_name: str,
        addresses: Sequence[OriginAddress],
        health_check_type: str = "TCP",
        health_check_port: int = 443,
        health_check_path: str = "/",
        health_check_fqdn: str | None = None,
        request_interval: cdk.Duration = cdk.Duration.seconds(10),
        failure_threshold: int = 3,
        ttl: cdk.Duration = cdk.Duration.seconds(60),
        health_checks: Sequence[route53.IHealthCheck] | None = None,
    ) -> None:
        """
        :param zone: the hosted zone the records go in.
        :param record_name: the origin name, inside ``zone`` (``origin.example.com`` in
            ``example.com``). Required, not empty.
        :param addresses: one entry per record (1..; a warning above 8: Route 53 answers with 8).
            Set identifiers must be unique and match ``[A-Za-z0-9._:-]{1,128}``.
        :param health_check_type: ``TCP`` (default), ``HTTPS`` or ``HTTP``.
        :param health_check_port: port the health checkers connect to on each address. Default 443.
        :param health_check_path: path for HTTP(S) checks. Default ``/``.
        :param health_check_fqdn: host name sent in HTTPS checks (SNI and Host). Default: none.
        :param request_interval: 10 s (default) or 30 s.
        :param failure_threshold: consecutive failures before unhealthy (1..10). Default 3.
        :param ttl: record TTL (0..2147483647 s; a warning above 300 s). Default 60 s.
        :param health_checks: use these health checks (one per address) instead of making them,
            e.g. CloudWatch-alarm checks for private addresses. Default: TCP/HTTP(S) checks made here.
        """
        super().__init__(scope, construct_id)
        where = ConstructLabel("MultivalueOriginRecords", self)
        self.record_name = _normalize_record_name(where, record_name, zone)
        if not addresses:
            raise EdgeOriginPropError(where, "addresses", [], "at least one address")
        seen: set[str] = set()
        for address in addresses:
            sid = address.set_identifier
            if not SET_IDENTIFIER_PATTERN.fullmatch(sid):
                raise EdgeOriginPropError(where, "set_identifier", sid, "1..128 of A-Z a-z 0-9 . _ : -")
            if sid in seen:
                raise EdgeOriginPropError(where, "set_identifier", sid, "unique set identifiers (duplicate)")
            seen.add(sid)
        require_one_of(where, "health_check_type", health_check_type, HEALTH_CHECK_TYPES)
        require_port(where, "health_check_port", health_check_port)
        interval = seconds_of(where, "request_interval", request_interval)
        interval = int(require_one_of(where, "request_interval", interval, REQUEST_INTERVALS))
        require_int_range(where, "failure_threshold", failure_threshold, *FAILURE_THRESHOLD_RANGE)
        ttl_seconds = require_seconds_range(where, "ttl", ttl, *TTL_RANGE)
        if health_checks is not None and len(health_checks) != len(addresses):
            raise EdgeOriginPropError(
                where, "health_checks", f"{len(health_checks)} checks", f"one per address ({len(addresses)})"
            )
        if len(addresses) > MAX_ANSWERS:
            cdk.Annotations.of(self).add_warning_v2(
                "edge-origin:more-than-8-records",
                f"{len(addresses)} multivalue records for {self.record_name}: Route 53 answers with at most "
                f"{MAX_ANSWERS} healthy records, a random {MAX_ANSWERS} per query.",
            )
        if ttl_seconds > TTL_WARNING_ABOVE:
            cdk.Annotations.of(self).add_warning_v2(
                "edge-origin:long-ttl",
                f"TTL {ttl_seconds}s on {self.record_name}: resolvers keep unhealthy answers that long; "
                f"<= {TTL_WARNING_ABOVE}s recommended.",
            )
        self.ttl_seconds = ttl_seconds
        self.records: list[OriginRecord] = []
        interval_duration = cdk.Duration.seconds(interval)
        ttl_duration = cdk.Duration.seconds(ttl_seconds)
        check_type = route53.HealthCheckType(health_check_type)
        for i, address in enumerate(addresses):
            label = _label(address.set_identifier)
            if health_checks is not None:
                check = health_checks[i]
            else:
                check = route53.HealthCheck(
                    self,
                    f"Check{label}",
                    type=check_type,
                    ip_address=address.health_check_ip or address.ip_address,
                    port=health_check_port,
                    resource_path=health_check_path if health_check_type != "TCP" else None,
                    fqdn=health_check_fqdn if health_check_type != "TCP" else None,
                    enable_sni=True if health_check_type == "HTTPS" else None,
                    request_interval=interval_duration,
                    failure_threshold=failure_threshold,
                )
            record = route53.ARecord(
                self,
                f"Record{label}",
                zone=zone,
                record_name=self.record_name + ".",
                target=route53.RecordTarget.from_ip_addresses(address.ip_address),
                multi_value_answer=True,
                set_identifier=address.set_identifier,
                health_check=check,
                ttl=ttl_duration,
            )
            self.records.append(OriginRecord(address, record, check))


def _normalize_record_name(where: str, name: str, zone: route53.IHostedZone) -> str:
    if not isinstance(name, str) or not name.strip(" ."):
        raise EdgeOriginPropError(where, "record_name", name, "a non-empty DNS name inside the zone")
    normalized = name.strip().rstrip(".").lower()
    if len(normalized) > 253 or not all(re.fullmatch(r"[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?", p) for p in normalized.split(".")):
        raise EdgeOriginPropError(where, "record_name", name, "a DNS name of labels a-z 0-9 - (<= 63 each)")
    zone_name = zone.zone_name
    if not is_token(zone_name):
        zone_norm = zone_name.rstrip(".").lower()
        if normalized != zone_norm and not normalized.endswith("." + zone_norm):
            raise EdgeOriginPropError(where, "record_name", name, f"a name inside the zone {zone_norm}")
    return normalized


def _label(set_identifier: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[^A-Za-z0-9]+", set_identifier) if p)
