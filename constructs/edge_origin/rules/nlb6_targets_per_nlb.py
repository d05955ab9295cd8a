"""EO-NLB6: more targets on an NLB than its quota takes.

ELB quotas for Network Load Balancers (load-balancer-limits.html, the facts table's
``elbv2.nlb.targets_per_zone`` / ``elbv2.nlb.targets_max``): "Targets per Availability Zone per Network Load
Balancer: 500" and "Targets per Network Load Balancer: 3,000", both adjustable; "If cross-zone load
balancing is enabled, the maximum is 500 targets per load balancer, regardless of the number of
Availability Zones"; "If a target is registered with N target groups, it counts as N targets toward this
limit"; an Application Load Balancer target counts as 50 targets (cross-zone off) or 100 (on). Quotas, so a
warning naming the quota, never an error (issue 52).

The count is the sum of the literal ``Targets`` lists of the target groups the NLB's listeners forward to
(an account read writes DescribeTargetHealth's targets there). A target group without ``Targets`` is
registered at runtime (a TargetGroupBinding's pods, an Auto Scaling group): its count is not in the
templates and adds nothing; a ``Targets`` list decided at deploy time, a cross-zone setting decided at deploy
time, or a zone split the templates do not give (cross-zone off) is not judged.
"""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.facts import value as fact_value
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.values import deploy_time
from edge_origin.model.views import LoadBalancerView, TargetGroupView, attribute_known, props_of
from edge_origin.profile import ConnectionProfile
from edge_origin.rules.base import Rule, finding, with_cdk
from edge_origin.rules.ka_profile import declared_profile
from edge_origin.rules.lb_type import NEEDS_DEFAULT, as_if_network
from edge_origin.rules.not_judged import not_judged

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

CROSS_ZONE = "load_balancing.cross_zone.enabled"
ALB_TARGET_WEIGHT = (50, 100)
"""Targets one Application Load Balancer target counts for, cross-zone off / on (quotas page, note 2)."""
QUOTA = "ELB quota 'Targets per Availability Zone per Network Load Balancer'"
FIX = with_cdk(
    "EO-NLB6",
    "Request a higher 'Targets per Availability Zone per Network Load Balancer' quota (Service Quotas, Elastic "
    "Load Balancing), or spread the targets over more NLBs.",
    "`OriginFleet(nlb_count=..., expected_targets=...)` (one Service/TargetGroupBinding per NLB's target group).",
)


def _target_groups(lb: LoadBalancerView) -> list[TargetGroupView]:
    seen: dict[int, TargetGroupView] = {}
    for listener in lb.listeners:
        for tg in listener.target_groups:
            seen.setdefault(id(tg), tg)
    return list(seen.values())


def _targets(tg: TargetGroupView) -> tuple[list[Any] | None, Any]:
    """(the literal target list, or None when absent or decided at deploy time; the raw value when deploy-time)."""
    if tg.resource.properties.get("Targets") is None:  # p.has("Targets"), without the Props (nearly every group)
        return None, None
    p = props_of(tg.resource)
    raw = p.raw("Targets")
    if p.list_unknown("Targets") or not isinstance(raw, list):
        return None, raw
    return raw, None


def _stated(lb: LoadBalancerView) -> tuple[int, str] | None:
    """The most targets a connection profile on one of the NLB's listeners states (expected_targets_per_nlb)."""
    stated = [(p.expected_targets_per_nlb, listener.resource.logical_id) for listener in lb.listeners
              if isinstance(p := declared_profile(listener.resource), ConnectionProfile) and p.expected_targets_per_nlb]
    if not stated:
        return None
    most, where = max(stated)
    return most, f"its pods (listener {where}'s connection profile states expected_targets_per_nlb {most})"


def _zone_counts(targets: list[Any]) -> dict[str, int] | None:
    """Targets a zone, when every target names a literal zone (not ``all``); else None."""
    counts: dict[str, int] = {}
    for target in targets:
        zone = target.get("AvailabilityZone") if isinstance(target, dict) else None
        if not isinstance(zone, str) or zone == "all":
            return None
        counts[zone] = counts.get(zone, 0) + 1
    return counts


def _target_type_findings(lb: LoadBalancerView) -> Iterator[Finding]:
    """``_lb_findings``; a target group with literal Targets whose TargetType is decided at deploy time is counted as
    written and as ``alb`` (each target 50 or 100): over the quota only as ``alb`` is not judged, once a group."""
    found = list(_lb_findings(lb))
    undecided = [tg for tg in _target_groups(lb)  # (Props.raw of a settled resource: its properties' entry)
                 if deploy_time(tg.resource.properties.get("TargetType")) and _targets(tg)[0] is not None]
    if not undecided or any(not f.message.startswith("not judged") for f in found):
        yield from found
        return
    if all(f.message.startswith("not judged") for f in _lb_findings(lb, frozenset(id(tg) for tg in undecided))):
        yield from found
        return
    yield from (f for f in found if f.message.startswith("not judged"))
    for tg in undecided:
        yield _not_judged(lb, f"NLB {lb.resource.logical_id} target group {tg.resource.logical_id} TargetType",
                          props_of(tg.resource).raw("TargetType"),
                          "decided at deploy time: as alb each target counts 50 (100 with cross-zone on), over the quota",
                          f"a literal TargetType ({NEEDS_DEFAULT})")


def _lb_findings(lb: LoadBalancerView, alb: frozenset[int] = frozenset()) -> Iterator[Finding]:
    """``alb``: ids of target groups counted as ``alb`` targets whatever their TargetType says."""
    per_zone, per_lb = fact_value("elbv2.nlb.targets_per_zone"), fact_value("elbv2.nlb.targets_max")
    where = f"NLB {lb.resource.logical_id}"
    listed: list[Any] = []
    counted: list[str] = []
    unknown: list[tuple[TargetGroupView, Any]] = []
    alb_weight = ALB_TARGET_WEIGHT[1 if lb.cross_zone else 0]
    for tg in _target_groups(lb):
        targets, raw = _targets(tg)
        if targets is not None:
            # an ALB target counts 50 targets (cross-zone off) or 100 (on); its zone split is not the template's
            as_alb = (tg.target_type or "").lower() == "alb" or id(tg) in alb
            listed += [None] * (len(targets) * alb_weight) if as_alb else targets
            counted.append(tg.resource.logical_id)
        elif raw is not None:
            unknown.append((tg, raw))
    count = len(listed)
    if not counted and not unknown:
        stated = _stated(lb)
        if stated is None:
            return  # every target registered at runtime, none stated: nothing to count (audit counts them)
        listed, (count, groups) = [None] * stated[0], stated
    elif not counted:
        groups = "no literal target list"
    else:
        groups = f"target group{'s' if len(counted) != 1 else ''} {', '.join(counted)}"
    cross_known = attribute_known(lb.attributes, CROSS_ZONE)
    zones = lb.zone_count or 1
    off_cap = min(per_zone * zones, per_lb)  # cross-zone off: some zone holds more than 500 above this
    on = cross_known and lb.cross_zone
    if count > (per_zone if on else off_cap):
        how = (f"with cross-zone load balancing on it takes at most {per_zone}, whatever its zones" if on
               else f"with cross-zone load balancing {'off' if cross_known else 'off or on (decided at deploy time)'}, "
                    f"at most {per_zone} a zone over its {zones} zone(s) "
                    f"and {per_lb:,} in all")
        yield finding(
            RULE.id, Severity.WARNING, lb.resource,
            f"{where}: {count} targets in {groups} (a target in N target groups counts N times); {how} ({QUOTA}, "
            f"default {per_zone}; 'Targets per Network Load Balancer', default {per_lb:,}): the rest cannot be registered",
            FIX,
        )
        return
    for tg, raw in unknown:
        yield _not_judged(lb, f"{where} target group {tg.resource.logical_id} Targets", raw, "decided at deploy time",
                          "a literal Targets list")
    if count <= per_zone or on:
        return
    if not cross_known:
        yield _not_judged(lb, f"{where} {CROSS_ZONE} ({count} targets)", lb.attributes.get(CROSS_ZONE),
                          f"decided at deploy time: with it on, {per_zone} targets is the most", f"a literal {CROSS_ZONE}")
        return
    yield from _per_zone(lb, listed, groups)


def _per_zone(lb: LoadBalancerView, listed: list[Any], groups: str) -> Iterator[Finding]:
    """Cross-zone off, more than one zone's quota in all: judged a zone when every target names its zone."""
    per_zone = fact_value("elbv2.nlb.targets_per_zone")
    where = f"NLB {lb.resource.logical_id}"
    split = _zone_counts(listed)
    if split is None:
        yield _not_judged(lb, f"{where} targets a zone ({len(listed)} targets, cross-zone off)", f"{len(listed)} targets",
                          f"the templates do not give each target's zone: more than {per_zone} in one zone is over "
                          "the quota", "each target's AvailabilityZone, or cross-zone load balancing on")
        return
    over = {z: n for z, n in sorted(split.items()) if n > per_zone}
    if over:
        yield finding(
            RULE.id, Severity.WARNING, lb.resource,
            f"{where}: {', '.join(f'{n} targets in {z}' for z, n in over.items())} ({groups}; cross-zone off: at most "
            f"{per_zone} a zone, {QUOTA}): the rest cannot be registered",
            FIX,
        )


def _not_judged(lb: LoadBalancerView, subject: str, element: object, reason: str, needs: str) -> Finding:
    return not_judged(RULE.id, Severity.WARNING, subject=subject, element=element, reason=reason, needs=needs,
                      at=lb.resource)


def check(model: TemplateModel) -> Iterator[Finding]:
    for lb in model.load_balancers:
        if lb.may_be_network:  # a Type decided at deploy time: not judged, when it would count too many
            yield from as_if_network(RULE.id, lb, _target_type_findings(lb), "its targets against ELB's quota")


RULE = Rule(
    id="EO-NLB6",
    severity=Severity.WARNING,
    title="More targets than an NLB takes (quota)",
    catches=(
        "An NLB whose target groups' Targets lists (or, in an account, DescribeTargetHealth) hold more targets than "
        "ELB's quota: 500 with cross-zone load balancing on, whatever its zones; 500 a zone and 3,000 in all with "
        "it off (a target in N target groups counts N times; an ALB target 50, or 100 with cross-zone on). A quota, so a warning. Targets registered at "
        "runtime (TargetGroupBinding pods, Auto Scaling) are not in a template: `edge-origin audit` counts them, "
        "a listener's connection profile (expected_targets_per_nlb) or `OriginFleet(expected_targets=)` states "
        "them; a Targets list, a cross-zone setting, the load balancer's Type or a TargetType (over the quota only as "
        "alb) decided at deploy time, or a zone split the template does not give, is not judged."
    ),
    incident="A fleet scaled past 500 pods behind one cross-zone NLB: the controller could not register the rest.",
    fix=FIX,
    check=check,
    facts=("elbv2.nlb.targets_per_zone", "elbv2.nlb.targets_max"),
)
