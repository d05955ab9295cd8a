"""EO-SG1: the NLB's security group does not admit the Route 53 health checkers on the checked port."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from functools import cache

from edge_origin.data import cloudfront_origin_facing_prefix_lists, route53_health_checker_cidrs
from edge_origin.findings import Finding, Severity
from edge_origin.model import HealthCheckView, SecurityGroupView, TemplateModel
from edge_origin.rules.base import Rule, finding

DEFAULT_PORTS = {"HTTP": 80, "HTTP_STR_MATCH": 80, "HTTPS": 443, "HTTPS_STR_MATCH": 443}
FIX = (
    "Add ingress on the health-checked port from the Route 53 health-checker CIDRs "
    "(edge_origin/data/route53_health_checkers.json, ip-ranges.json service ROUTE53_HEALTHCHECKS; all of them: checkers of every region probe) to the NLB's security group."
)


def _port(hc: HealthCheckView) -> int | None:
    return hc.port if hc.port is not None else DEFAULT_PORTS.get((hc.type or "").upper())


@cache
def _required() -> tuple[ipaddress.IPv4Network, ...]:
    return tuple(ipaddress.IPv4Network(c) for c in route53_health_checker_cidrs())


@cache
def _cloudfront_lists() -> frozenset[str]:
    return frozenset(entry["id"] for entry in cloudfront_origin_facing_prefix_lists().values())


def _admitted(groups: list[SecurityGroupView], port: int) -> list[ipaddress.IPv4Network] | None:
    """Networks admitted on ``port``; None when a source cannot be decided (parameter, unknown prefix list)."""
    cloudfront = _cloudfront_lists()
    nets: list[ipaddress.IPv4Network] = []
    for group in groups:
        if group.ingress_unknown:
            return None  # the inline rules are decided at deploy time
        for rule in group.ingress:
            if rule.unknown:
                return None
            if not rule.covers_port(port):
                continue
            if rule.cidr_ip is not None:
                if not isinstance(rule.cidr_ip, str):
                    return None
                try:
                    nets.append(ipaddress.IPv4Network(rule.cidr_ip, strict=False))
                except ValueError:
                    continue
            elif rule.prefix_list_id is not None and rule.prefix_list_id not in cloudfront:
                return None  # a prefix list we cannot see into (a customer or Route 53 list)
    return nets


def check(model: TemplateModel) -> Iterator[Finding]:
    seen: set[tuple[tuple[str, str], int]] = set()
    for hc in model.health_checks:
        port = _port(hc)
        eip = model.eip(hc.ip_address)
        if port is None or eip is None:
            continue
        required = _required()
        for lb in eip.load_balancers:
            if not lb.security_groups or (lb.resource.key, port) in seen:
                continue
            seen.add((lb.resource.key, port))
            groups = [model.view(ref) for ref in lb.security_groups]
            if not all(isinstance(g, SecurityGroupView) for g in groups):
                continue  # a security group outside the given templates
            admitted = _admitted(groups, port)
            if admitted is None:
                continue
            if any(n.prefixlen == 0 for n in admitted):
                continue  # 0.0.0.0/0
            missing = [c for c in required if not any(c.subnet_of(n) for n in admitted)]
            if missing:
                yield finding(
                    RULE.id, Severity.ERROR, lb.resource,
                    f"NLB {lb.resource.logical_id}: security group(s) {', '.join(g.resource.logical_id for g in groups)} "
                    f"do not admit {len(missing)} of {len(required)} Route 53 health-checker ranges on port {port} "
                    f"(health check {hc.resource.logical_id}; e.g. {missing[0]}): every check fails, Route 53 fails open",
                    FIX,
                )


RULE = Rule(
    id="EO-SG1",
    severity=Severity.ERROR,
    title="Health checkers blocked by the NLB security group",
    catches="An NLB whose security groups do not admit every Route 53 health-checker CIDR (or 0.0.0.0/0) on the health-checked port.",
    incident="The NLB security group (CDK's feature flag gives it no inbound rules) blocked health checks: all unhealthy, Route 53 failed open and answered with dead IPs too.",
    fix=FIX,
    check=check,
)
