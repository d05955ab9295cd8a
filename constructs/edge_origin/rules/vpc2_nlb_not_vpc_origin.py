"""EO-VPC2: a VPC origin whose NLB CloudFront cannot use (TLS listener, dual-stack, no security group)."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel, display_value
from edge_origin.rules.base import Rule, finding, with_cdk
from edge_origin.rules.ka_profile import names, protocol_choices, undecided_load_balancer
from edge_origin.rules.lb_type import undecided_type
from edge_origin.rules.not_judged import not_judged, undecided, undecided_needs, undecided_reason
from edge_origin.rules.vpc_paths import VpcOriginPath, vpc_origin_paths

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

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


def problems(lb, *, network: bool = False) -> list[str]:  # noqa: ANN001 - LoadBalancerView
    """Why CloudFront refuses ``lb`` as a VPC origin (a network load balancer; ``network``: judge it as one)."""
    out = []
    if not (network or lb.is_network):
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


def undecided_problems(lb) -> list[tuple[str, Any, str]]:  # noqa: ANN001 - LoadBalancerView
    """``(what, value as resolved, what it may be)`` for each value CloudFront's refusal rests on that is decided at
    deploy time: the NLB's IpAddressType (dualstack), a listener's Protocol (TLS: an NLB listener may be TLS)."""
    out = []
    address_type = undecided(lb.resource.properties.get("IpAddressType"))
    if address_type is not None:
        out.append(("IpAddressType", address_type, "dualstack (dual-stack NLBs can't be VPC origins)"))
    for li in lb.listeners:
        if li.protocol_undecided is not None and "TLS" in protocol_choices(li):
            out.append((f"listener {li.resource.logical_id} Protocol", li.protocol_undecided,
                        "TLS (NLBs with TLS listeners can't be VPC origins)"))
    return out


def _not_judged(path: VpcOriginPath, subject: str, element: Any, may_be: str) -> Finding:
    return not_judged(
        RULE.id, Severity.WARNING, subject=f"{path.label}: {subject}", element=element,
        reason=f"{undecided_reason(element)}; it may be {may_be}", needs=undecided_needs(element),
        at=path.distribution.resource,
    )


def _load_balancer(path: VpcOriginPath, lb) -> Iterator[Finding]:  # noqa: ANN001 - LoadBalancerView
    if lb.type_undecided:  # a network load balancer or not: judged as one, what it would refuse is not judged
        refused = problems(lb, network=True) + [f"may have {what} {may_be}" for what, _, may_be in undecided_problems(lb)]
        if refused:
            yield undecided_type(RULE.id, lb, f"CloudFront refuses it as the VPC origin of {path.label}: it "
                                 + "; ".join(refused))
        return
    found = problems(lb)
    if found:
        yield finding(
            RULE.id, RULE.severity, path.distribution.resource,
            f"{path.label}: NLB {lb.resource.logical_id} " + "; ".join(found) + f" ({SOURCE})",
            FIX,
        )
    if lb.is_network:
        for what, value, may_be in undecided_problems(lb):
            yield _not_judged(path, f"NLB {lb.resource.logical_id} {what}", value, may_be)


def _vpc_origin_address_type(vpc) -> Iterator[Finding]:  # noqa: ANN001 - VpcOriginView
    config = vpc.resource.properties.get("VpcOriginEndpointConfig")
    written = undecided(config.get("IpAddressType") if isinstance(config, dict) else config)
    if written is not None:
        yield not_judged(
            RULE.id, Severity.WARNING, subject=f"VPC origin {vpc.resource.logical_id}: IpAddressType", element=written,
            reason=f"{undecided_reason(written)}; it may be neither ipv4 nor dualstack (IPv6-only is not supported for "
                   "VPC origins)",
            needs=undecided_needs(written), at=vpc.resource,
        )
    elif vpc.ip_address_type not in (None, "ipv4", "dualstack"):
        yield finding(
            RULE.id, RULE.severity, vpc.resource,
            f"VPC origin {vpc.resource.logical_id}: IpAddressType {display_value(vpc.ip_address_type)} is not ipv4 or "
            "dualstack (CloudFront API reference VpcIpAddressType: IPv6-only is not supported for VPC origins)",
            FIX,
        )


def check(model: TemplateModel) -> Iterator[Finding]:
    nlbs: set[str] = set()
    for path in vpc_origin_paths(model):
        lb = path.load_balancer
        if lb is None:
            continue
        if lb.may_be_network:
            nlbs.add(lb.resource.logical_id)
        yield from _load_balancer(path, lb)
        vpc = path.origin.vpc_origin
        if vpc is not None:
            yield from _vpc_origin_address_type(vpc)
    if nlbs:
        yield from _unattached(model, sorted(nlbs))


def _unattached(model: TemplateModel, nlbs: list[str]) -> Iterator[Finding]:
    """A listener whose LoadBalancerArn is decided at deploy time and that is (or may be) TLS may be a listener of a
    VPC origin's NLB: not judged."""
    for li in model.listeners:
        arn = undecided_load_balancer(li)
        if arn is None or not (li.protocol == "TLS" or (li.protocol_undecided is not None and "TLS" in protocol_choices(li))):
            continue
        yield not_judged(
            RULE.id, Severity.WARNING, subject=f"listener {li.resource.logical_id} LoadBalancerArn", element=arn,
            reason=(f"{undecided_reason(arn)}; it may be the NLB of a VPC origin ({names(nlbs)}), and the listener "
                    f"{'is' if li.protocol == 'TLS' else 'may be'} TLS (NLBs with TLS listeners can't be VPC origins)"),
            needs=undecided_needs(arn), at=li.resource,
        )


RULE = Rule(
    id="EO-VPC2",
    severity=Severity.ERROR,
    title="NLB that cannot be a VPC origin",
    catches=(
        "A VPC origin whose NLB has no security group, IpAddressType dualstack, or a TLS listener; a VPC origin whose "
        "IpAddressType is neither ipv4 nor dualstack. Not judged (a warning naming the value): the NLB's Type, "
        "IpAddressType or a listener's Protocol decided at deploy time where it may lead to a refusal, a VPC origin's "
        "IpAddressType decided at deploy time; a TLS listener (or one that may be) whose LoadBalancerArn is decided at "
        "deploy time beside a VPC origin's NLB. Source: " + SOURCE + "; CloudFront API reference VpcIpAddressType."
    ),
    incident="CloudFront refuses the VPC origin at deploy time, after the NLB and the pods are already in place.",
    fix=FIX,
    check=check,
)
