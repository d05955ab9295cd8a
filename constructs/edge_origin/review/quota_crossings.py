"""Counts a change moves past an AWS default quota: Elastic IPs, NLBs, Route 53 health checks and
records per hosted zone, counted over every template given on each side (one account and region).

The defaults are AWS's (``edge_origin.cdk.quotas.QUOTAS`` holds the same numbers for synth; a test keeps
them equal; this module imports no aws-cdk-lib). Resources made elsewhere in the account come on top,
so a crossing here is certain and staying below is not proof.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from edge_origin.model import TemplateModel


@dataclass(frozen=True)
class QuotaCount:
    """One quota and what base and head make of it (``scope``: a hosted zone for records)."""

    title: str
    quota_code: str
    default: int
    base: int
    head: int
    scope: str = ""

    @property
    def crosses(self) -> bool:
        return self.head > self.default and self.head > self.base

    def line(self) -> str:
        where = f" in {self.scope}" if self.scope else ""
        verb = "moves past" if self.base <= self.default else "stays above and grows past"
        return (
            f"{self.title}{where}: {self.base} -> {self.head}, {verb} the AWS default quota of {self.default} "
            f"(Service Quotas {self.quota_code}): request an increase before deploying, or the deploy fails "
            "(resources elsewhere in the account count too)"
        )


def _count(model: TemplateModel, rtype: str, keep: Callable[[dict], bool] = lambda p: True) -> int:
    return sum(1 for r in model.resources if r.type == rtype and keep(r.properties if isinstance(r.properties, dict) else {}))


def _is_nlb(props: dict) -> bool:
    return props.get("Type") == "network"


#: (title, quota code, AWS default, resource type, filter)
QUOTA_TABLE: tuple[tuple[str, str, int, str, Callable[[dict], bool]], ...] = (
    ("EC2-VPC Elastic IPs", "L-0263D0A3", 5, "AWS::EC2::EIP", lambda p: True),
    ("Network Load Balancers per Region", "L-69A177A2", 50, "AWS::ElasticLoadBalancingV2::LoadBalancer", _is_nlb),
    ("Route 53 health checks", "L-ACB674F3", 200, "AWS::Route53::HealthCheck", lambda p: True),
)
RECORDS_PER_ZONE = ("Route 53 records per hosted zone", "L-E209CC9F", 10_000)


def _records_by_zone(model: TemplateModel) -> dict[str, int]:
    out: dict[str, int] = {}
    for res in model.resources:
        if res.type != "AWS::Route53::RecordSet" or not isinstance(res.properties, dict):
            continue
        zone = res.properties.get("HostedZoneName") or res.properties.get("HostedZoneId")
        out[str(zone) if isinstance(zone, str) else "a hosted zone"] = out.get(str(zone) if isinstance(zone, str) else "a hosted zone", 0) + 1
    return out


def quota_counts(base: TemplateModel, head: TemplateModel) -> list[QuotaCount]:
    """Every count, base and head (records: per zone)."""
    out = [QuotaCount(t, code, d, _count(base, rt, keep), _count(head, rt, keep)) for t, code, d, rt, keep in QUOTA_TABLE]
    before, after = _records_by_zone(base), _records_by_zone(head)
    title, code, default = RECORDS_PER_ZONE
    for zone in sorted(set(before) | set(after)):
        out.append(QuotaCount(title, code, default, before.get(zone, 0), after.get(zone, 0), scope=zone))
    return out


def quota_crossings(base: TemplateModel, head: TemplateModel) -> list[QuotaCount]:
    """The counts head takes above a default quota (and above base's count)."""
    return [q for q in quota_counts(base, head) if q.crosses]


__all__ = ["QUOTA_TABLE", "QuotaCount", "quota_counts", "quota_crossings"]
