"""EO-VPC3: a VPC origin's NLB with zonal DNS affinity: the NLB's DNS attributes seen from CloudFront."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel, display_value
from edge_origin.model.views import LoadBalancerView, attribute_known
from edge_origin.rules.base import Rule, finding, with_cdk
from edge_origin.rules.lb_type import as_if_network, attribute_element
from edge_origin.rules.not_judged import not_judged
from edge_origin.rules.vpc_paths import VpcOriginPath, vpc_origin_paths

ATTRIBUTE = "dns_record.client_routing_policy"
AFFINITY = ("availability_zone_affinity", "partial_availability_zone_affinity")
FIX = with_cdk(
    "EO-VPC3",
    f"Leave {ATTRIBUTE} at any_availability_zone (the default) on an NLB behind a VPC origin, and keep cross-zone load "
    "balancing on, so every zonal node's answer reaches every zone's pods whatever CloudFront resolves.",
    "`NetworkLoadBalancer(client_routing_policy=ClientRoutingPolicy.ANY_AVAILABILITY_ZONE, cross_zone_enabled=True)`; OriginFleet's defaults.",
)


PUBLIC_RESOLVER_NO_ZONE = (
    "Zonal affinity is applied to clients that resolve through Route 53 Resolver in the VPC from a zone; a public "
    "resolver has no zone"
)
"""Why zonal DNS affinity is judged from CloudFront's vantage (shared with EO-NLB4)."""


def affinity_policy(lb: LoadBalancerView) -> str | None:
    """The NLB's ``dns_record.client_routing_policy`` when it is a (partial) zonal affinity, decided in the templates."""
    policy = lb.attributes.get(ATTRIBUTE)
    if not isinstance(policy, str) or policy.lower() not in AFFINITY:  # a literal string: decided in the templates
        return None
    return policy


def check(model: TemplateModel) -> Iterator[Finding]:
    seen: set[tuple[str, str]] = set()
    for path in vpc_origin_paths(model):
        lb = path.load_balancer
        if lb is None or not lb.may_be_network or lb.resource.key in seen:
            continue
        seen.add(lb.resource.key)
        # a Type decided at deploy time: not judged once for the balancer, when it would be judged as an NLB
        yield from as_if_network(RULE.id, lb, _lb_findings(path, lb), f"its {ATTRIBUTE} behind a VPC origin")


def _lb_findings(path: VpcOriginPath, lb: LoadBalancerView) -> Iterator[Finding]:
    if not attribute_known(lb.attributes, ATTRIBUTE):
        yield not_judged(
            RULE.id, Severity.WARNING, subject=f"{path.label}: NLB {lb.resource.logical_id} {ATTRIBUTE}",
            element=attribute_element(lb.resource, "LoadBalancerAttributes", lb.attributes, ATTRIBUTE),
            reason=f"decided at deploy time: {' or '.join(AFFINITY)} favours the zone of wherever CloudFront resolves",
            needs=f"a literal {ATTRIBUTE} (give the parameter a Default, or check the stacks together)",
            at=lb.resource,
        )
        return
    policy = affinity_policy(lb)
    if policy is None:
        return
    cross_zone_off = not lb.cross_zone and attribute_known(lb.attributes, "load_balancing.cross_zone.enabled")
    worse = (
        "; with cross-zone load balancing off, the favoured zone's pods take every CloudFront connection"
        if cross_zone_off else ""
    )
    if not attribute_known(lb.attributes, "load_balancing.cross_zone.enabled"):  # judged as on: the warning, said
        worse = ("; cross-zone load balancing is decided at deploy time: off, the favoured zone's pods take every "
                 "CloudFront connection (an error)")
    yield finding(
        RULE.id, Severity.ERROR if cross_zone_off else Severity.WARNING, lb.resource,
        f"{path.label}: NLB {lb.resource.logical_id} sets {ATTRIBUTE} {display_value(policy)}. "
        f"{PUBLIC_RESOLVER_NO_ZONE}. How CloudFront's VPC origin resolves the NLB's name and spreads connections over its zonal nodes is not "
        "documented, so this setting either does nothing for CloudFront or favours the zone of wherever CloudFront "
        f"resolves{worse}",
        FIX,
    )


RULE = Rule(
    id="EO-VPC3",
    lower="warning while cross-zone load balancing is on",
    severity=Severity.ERROR,
    title="VPC origin NLB with zonal DNS affinity",
    catches=(
        f"An NLB behind a VPC origin whose {ATTRIBUTE} is availability_zone_affinity or "
        "partial_availability_zone_affinity (warning; error when cross-zone load balancing is off too). That "
        "attribute, its LoadBalancerAttributes list or the load balancer's Type decided at deploy time is not judged."
    ),
    incident=(
        "The pile-up question moves from multivalue records to the NLB's DNS: a resolver that favours one zone's "
        "node sends one zone's pods every new connection (l4-load-balancer-pins-grpc)."
    ),
    fix=FIX,
    check=check,
)
