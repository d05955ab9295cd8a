"""EO-VPC2: a VPC origin whose NLB CloudFront cannot use (TLS listener, dual-stack, no security group)."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel, display_value
from edge_origin.rules.base import Rule, finding, with_cdk
from edge_origin.rules.vpc_paths import vpc_origin_paths

SOURCE = (
    "CloudFront Developer Guide, Restrict access with VPC origins (private-content-vpc-origins.html), as aws-cdk-lib "
    "2.275's aws-cloudfront-origins README restates it"
)
FIX = with_cdk(
    "EO-VPC2",
    "Give the VPC origin an internal NLB with a security group (created with one: a security group cannot be added "
    "later), IpAddressType ipv4, and TCP listeners (TLS on the pods), as GrpcEdgeToOrigin(origin_access='vpc-origin') does.",
    'GrpcEdgeToOrigin(origin_access="vpc-origin") or OriginFleet(internet_facing=False, vpc_origin=True) with `VpcOrigin.with_network_load_balancer(...)`.',
)


def problems(lb) -> list[str]:  # noqa: ANN001 - LoadBalancerView
    out = []
    if not lb.is_network:
        return out
    # an empty SecurityGroups list is no security group too ("must have a security group attached to it");
    # a deploy-time list is one item (Unresolved), not judged as empty
    if not lb.security_groups:
        out.append("has no security group (an NLB must have one to be a VPC origin)")
    address_type = lb.resource.properties.get("IpAddressType")
    if isinstance(address_type, str) and address_type.lower() != "ipv4":
        out.append(f"has IpAddressType {address_type} (dual-stack NLBs can't be VPC origins)")
    tls = [li.resource.logical_id for li in lb.listeners if li.protocol == "TLS"]
    if tls:
        out.append(f"has TLS listener(s) {', '.join(tls)} (NLBs with TLS listeners can't be VPC origins)")
    return out


def check(model: TemplateModel) -> Iterator[Finding]:
    for path in vpc_origin_paths(model):
        lb = path.load_balancer
        if lb is None:
            continue
        found = problems(lb)
        if found:
            yield finding(
                RULE.id, RULE.severity, path.distribution.resource,
                f"{path.label}: NLB {lb.resource.logical_id} " + "; ".join(found) + f" ({SOURCE})",
                FIX,
            )
        vpc = path.origin.vpc_origin
        if vpc is not None and vpc.ip_address_type not in (None, "ipv4", "dualstack"):
            yield finding(
                RULE.id, RULE.severity, vpc.resource,
                f"VPC origin {vpc.resource.logical_id}: IpAddressType {display_value(vpc.ip_address_type)} is not ipv4 or "
                "dualstack (CloudFront API reference VpcIpAddressType: IPv6-only is not supported for VPC origins)",
                FIX,
            )


RULE = Rule(
    id="EO-VPC2",
    severity=Severity.ERROR,
    title="NLB that cannot be a VPC origin",
    catches=(
        "A VPC origin whose NLB has no security group, IpAddressType dualstack, or a TLS listener; a VPC origin whose "
        "IpAddressType is neither ipv4 nor dualstack. Source: " + SOURCE + "; CloudFront API reference VpcIpAddressType."
    ),
    incident="CloudFront refuses the VPC origin at deploy time, after the NLB and the pods are already in place.",
    fix=FIX,
    check=check,
)
