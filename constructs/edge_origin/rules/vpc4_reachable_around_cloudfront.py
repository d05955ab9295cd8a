"""EO-VPC4: a VPC origin's NLB reachable by more than CloudFront (EO-SEC1's meaning on this path)."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import SecurityGroupView, TemplateModel, display_value
from edge_origin.rules.base import Rule, finding, with_cdk
from edge_origin.rules.sec1_origin_verification import _is_cloudfront_list
from edge_origin.rules.vpc_paths import vpc_origin_paths

FIX = with_cdk(
    "EO-VPC4",
    "Use an internal NLB (Scheme internal) whose security groups admit, on the listener port, only the CloudFront "
    "origin-facing prefix list (com.amazonaws.global.cloudfront.origin-facing) or the VPC origin's service security "
    "group (CloudFront-VPCOrigins-Service-SG); GrpcEdgeToOrigin(origin_access='vpc-origin') does.",
    'GrpcEdgeToOrigin(origin_access="vpc-origin") or OriginFleet(internet_facing=False, vpc_origin=True) (security group admitting the origin-facing prefix list only).',
)


def _other_sources(model: TemplateModel, lb) -> list[str]:  # noqa: ANN001 - LoadBalancerView
    ports = [li.port for li in lb.listeners if li.port is not None]
    out: list[str] = []
    for ref in lb.security_groups:
        group = model.view(ref)
        if not isinstance(group, SecurityGroupView):
            continue
        for rule in group.ingress:
            if rule.unknown or (ports and not any(rule.covers_port(p) for p in ports)):
                continue
            if rule.cidr_ip is not None or rule.cidr_ipv6 is not None:
                out.append(f"{display_value(rule.cidr_ip or rule.cidr_ipv6)} in {group.resource.logical_id}")
            elif rule.prefix_list_id is not None and not _is_cloudfront_list(rule.prefix_list_id):
                out.append(f"prefix list {display_value(rule.prefix_list_id)} in {group.resource.logical_id}")
    return out


def check(model: TemplateModel) -> Iterator[Finding]:
    seen: set[tuple[str, str]] = set()
    for path in vpc_origin_paths(model):
        lb = path.load_balancer
        if lb is None or lb.resource.key in seen:
            continue
        seen.add(lb.resource.key)
        if lb.scheme == "internet-facing":
            yield finding(
                RULE.id, RULE.severity, lb.resource,
                f"{path.label}: load balancer {lb.resource.logical_id} is internet-facing: the VPC origin does not take "
                "away its public addresses, so the origin stays reachable around CloudFront (and EO-SEC1 applies)",
                FIX,
            )
        others = _other_sources(model, lb)
        if others:
            yield finding(
                RULE.id, RULE.severity, lb.resource,
                f"{path.label}: load balancer {lb.resource.logical_id} admits {', '.join(others[:3])}"
                f"{f' and {len(others) - 3} more' if len(others) > 3 else ''} on its listener port besides CloudFront: "
                "the origin is not reachable only through the VPC origin",
                FIX,
            )


RULE = Rule(
    id="EO-VPC4",
    severity=Severity.WARNING,
    title="VPC origin NLB reachable around CloudFront",
    catches=(
        "An NLB behind a VPC origin that is internet-facing, or whose security groups admit CIDRs or prefix lists other "
        "than CloudFront's origin-facing list on a listener port. On this path EO-SEC1 does not fire for an internal NLB: "
        "only VPC origins of the account (or shared with it) reach it, not every CloudFront customer; the origin "
        "verification header still tells this distribution from the account's others."
    ),
    incident="A private origin that was not: reachable from the VPC or the internet, around the WAF and logs of the edge.",
    fix=FIX,
    check=check,
)
