"""EO-NLB5: an NLB capacity reservation (``MinimumLoadBalancerCapacity``) the deploy cannot keep.

* With a TLS listener on the same NLB: an ERROR. ELB guide, "Request Load balancer Capacity Unit
  reservation for your Network Load Balancer" (:data:`~edge_origin.model.nlb_capacity.CAPACITY_SOURCE`):
  "LCU reservation is not supported on Network Load Balancers using TLS listeners."
* Each zone's share (the reservation "is evenly distributed across availability zones", same page)
  outside :data:`~edge_origin.model.nlb_capacity.CAPACITY_UNITS_PER_ZONE_RANGE`: a WARNING. That
  range is aws-cdk-lib's (its elbv2 README and its NetworkLoadBalancer refuse other values, as
  ``OriginFleet(capacity_units=)`` does); the ELB guide, botocore's elbv2 model and CloudFormation's
  schema state none, so whether the API refuses a raw template's value is not known.

Every NLB of the templates is judged, on the gRPC path or not: the refusal is the deploy's. What the
model cannot read is said as not judged: a reservation, a listener protocol or the NLB's zone list
decided at deploy time.
"""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel, props_of
from edge_origin.model.nlb_capacity import CAPACITY_SOURCE, CAPACITY_TLS_REASON, CAPACITY_UNITS_PER_ZONE_RANGE
from edge_origin.model.views import LoadBalancerView
from edge_origin.rules.base import Rule, finding, with_cdk
from edge_origin.rules.lb_type import as_if_network
from edge_origin.rules.not_judged import not_judged

RESERVATION = "MinimumLoadBalancerCapacity"
TLS_FIX = with_cdk(
    "EO-NLB5",
    "Use TCP listeners on an NLB with a capacity reservation (terminate TLS in the pods, as the gRPC path wants "
    "anyway), or drop MinimumLoadBalancerCapacity from this NLB.",
    'OriginFleet(listener_protocol="TCP", capacity_units=N) or GrpcEdgeToOrigin(capacity_units=N), TCP listeners only; `NetworkLoadBalancer(minimum_capacity_unit=)` by hand.',
)


def _range_fix(zones: int) -> str:
    low, high = CAPACITY_UNITS_PER_ZONE_RANGE
    return (
        f"Reserve {low * zones}..{high * zones} capacity units on this NLB ({zones} zones, {low}..{high} a zone), "
        f"preferably a multiple of {zones} so each zone's share is whole."
    )


def _zone_count(lb: LoadBalancerView) -> int | None:
    """Zones from ``SubnetMappings`` or ``Subnets`` when the list itself is written out; else None."""
    p = props_of(lb.resource)
    for key in ("SubnetMappings", "Subnets"):
        raw = p.raw(key)
        if isinstance(raw, list):
            return len(raw) or None
        if raw is not None:
            return None  # a deploy-time list (Ref of a List parameter, Fn::Split, ...)
    return None


def _not_judged(lb: LoadBalancerView, subject: str, element: object, reason: str, needs: str) -> Finding:
    return not_judged(RULE.id, Severity.WARNING, subject=subject, element=element, reason=reason, needs=needs,
                      at=lb.resource)


def check(model: TemplateModel) -> Iterator[Finding]:
    for lb in model.load_balancers:
        if lb.may_be_network and props_of(lb.resource).has(RESERVATION):  # a Type decided at deploy time: not judged
            yield from as_if_network(RULE.id, lb, _lb_findings(lb), f"its {RESERVATION} beside a TLS listener or "
                                     "spread over its zones")


def _lb_findings(lb: LoadBalancerView) -> Iterator[Finding]:
    where = f"NLB {lb.resource.logical_id}"
    units = "capacity units decided at deploy time" if lb.capacity_unknown else f"{lb.capacity_units} capacity units"
    for listener in lb.listeners:
        if listener.protocol == "TLS":
            yield finding(
                RULE.id, Severity.ERROR, listener.resource,
                f"{where} reserves {units} ({RESERVATION}) and has TLS listener {listener.resource.logical_id} "
                f"(:{listener.port}): {CAPACITY_TLS_REASON} (ELB guide, {CAPACITY_SOURCE})",
                TLS_FIX,
            )
        elif listener.protocol is None and props_of(listener.resource).has("Protocol"):
            yield _not_judged(
                lb, f"{where} reserves {units}: listener {listener.resource.logical_id}'s Protocol",
                props_of(listener.resource).raw("Protocol"), "decided at deploy time",
                f"a literal Protocol (a TLS listener cannot sit on an NLB with {RESERVATION})",
            )
    if lb.capacity_unknown:
        yield _not_judged(
            lb, f"{where} {RESERVATION}", props_of(lb.resource).raw(RESERVATION),
            "its CapacityUnits are decided at deploy time", "a literal whole number of CapacityUnits",
        )
        return
    zones = _zone_count(lb)
    if zones is None:
        yield _not_judged(
            lb, f"{where} reserves {units}: its zones (each zone's share)",
            props_of(lb.resource).raw("SubnetMappings") or props_of(lb.resource).raw("Subnets"),
            "the subnet list is decided at deploy time", "a literal list of SubnetMappings or Subnets",
        )
        return
    low, high = CAPACITY_UNITS_PER_ZONE_RANGE
    share = (lb.capacity_units or 0) / zones
    if not low <= share <= high:
        yield finding(
            RULE.id, Severity.WARNING, lb.resource,
            f"{where} reserves {units} over {zones} zone(s): {share:g} a zone, outside {low}..{high}. ELB spreads a "
            f"reservation evenly over the zones; aws-cdk-lib documents and enforces {low}..{high} a zone (its "
            f"NetworkLoadBalancer and OriginFleet(capacity_units=) refuse this value); the ELB guide and the API "
            f"model state no range, so whether a raw template deploys is not known",
            _range_fix(zones),
        )


RULE = Rule(
    id="EO-NLB5",
    lower="warning when a zone's share of the reservation is outside 2,750..45,000 LCUs",
    severity=Severity.ERROR,
    title="NLB capacity reservation with a TLS listener, or a zone's share outside the documented range",
    catches=(
        "An NLB with MinimumLoadBalancerCapacity and a TLS listener (error: AWS does not support LCU reservation "
        "on NLBs using TLS listeners); a reservation whose even share per zone is outside "
        f"{CAPACITY_UNITS_PER_ZONE_RANGE[0]}..{CAPACITY_UNITS_PER_ZONE_RANGE[1]} capacity units (warning: "
        "aws-cdk-lib's documented range). A reservation, listener protocol or subnet list decided at deploy time, "
        "or a load balancer Type decided at deploy time on a balancer with a reservation, is reported as not judged."
    ),
    incident=(
        "The incident was a burst of new connections at a broadcast start; teams reserve NLB capacity ahead of such "
        "events (issue 33). A reservation on an NLB with a TLS listener is not supported: the capacity planned for "
        "the broadcast is not there."
    ),
    fix=TLS_FIX,
    check=check,
    facts=("elbv2.nlb.capacity_units_per_zone",),
)
