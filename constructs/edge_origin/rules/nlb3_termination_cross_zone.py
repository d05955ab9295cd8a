"""EO-NLB3: NLB target group without connection termination; NLB with cross-zone off."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.views import attribute_known
from edge_origin.rules.base import Rule, finding, with_cdk

NLB_PROTOCOLS = frozenset({"TCP", "TLS", "UDP", "TCP_UDP"})
FIX_TG = with_cdk(
    "EO-NLB3", "Set TargetGroupAttributes deregistration_delay.connection_termination.enabled: true.",
    "`elbv2.NetworkTargetGroup(connection_termination=True)`; OriginFleet's target groups set it.",
)
FIX_LB = with_cdk(
    "EO-NLB3", "Set LoadBalancerAttributes load_balancing.cross_zone.enabled: true.",
    "`elbv2.NetworkLoadBalancer(cross_zone_enabled=True)`; OriginFleet(cross_zone_enabled=True) is the default.",
)


def check(model: TemplateModel) -> Iterator[Finding]:
    for tg in model.target_groups:
        known = attribute_known(tg.attributes, "deregistration_delay.connection_termination.enabled")
        if (tg.protocol or "").upper() in NLB_PROTOCOLS and tg.connection_termination is not True and known:
            yield finding(
                RULE.id, Severity.WARNING, tg.resource,
                f"target group {tg.resource.logical_id} ({tg.protocol}) does not set "
                "deregistration_delay.connection_termination.enabled: long-lived connections outlive deregistered pods",
                FIX_TG,
            )
    for lb in model.load_balancers:
        if lb.is_network and not lb.cross_zone and attribute_known(lb.attributes, "load_balancing.cross_zone.enabled"):
            yield finding(
                RULE.id, Severity.WARNING, lb.resource,
                f"NLB {lb.resource.logical_id} has cross-zone load balancing off: a zone's EIP only reaches that zone's pods",
                FIX_LB,
            )


RULE = Rule(
    id="EO-NLB3",
    severity=Severity.WARNING,
    title="Connection termination off; cross-zone off",
    catches="An NLB target group without deregistration_delay.connection_termination.enabled; an NLB with cross-zone load balancing off.",
    incident="Pods drained for minutes with pinned gRPC connections (l4-load-balancer-pins-grpc); one zone's pods took its EIP's whole share.",
    fix=with_cdk(
        "EO-NLB3",
        "Set TargetGroupAttributes deregistration_delay.connection_termination.enabled: true and LoadBalancerAttributes "
        "load_balancing.cross_zone.enabled: true.",
        "`elbv2.NetworkTargetGroup(connection_termination=True)`, `elbv2.NetworkLoadBalancer(cross_zone_enabled=True)`; "
        "OriginFleet sets both.",
    ),
    check=check,
)
