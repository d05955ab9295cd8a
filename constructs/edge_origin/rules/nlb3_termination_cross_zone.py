"""EO-NLB3: NLB target group without connection termination at deregistration, or with connection termination of
unhealthy targets (the API default); NLB with cross-zone off.

botocore elbv2 ``TargetGroupAttribute.Key``: ``target_health_state.unhealthy.connection_termination.enabled`` -
"Indicates whether the load balancer terminates connections to unhealthy targets ... The default is true. This
attribute can't be enabled for UDP and TCP_UDP target groups": one failed pod health check resets every gRPC
stream pinned to that pod. A TCP or TLS target group that leaves it unset gets the default, so unset is judged
as true; a value decided at deploy time is not judged (never fine). An account read whose
DescribeTargetGroupAttributes did not return it (moto omits attributes never set; AWS returns them all) is
judged as the default too, and says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from edge_origin.core.facts import value as fact_value
from edge_origin.core.fast_dataclass import replace
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.values import deploy_time
from edge_origin.model.views import (
    ATTRIBUTES_NOT_RETURNED_KEY,
    UNKNOWN_ATTRIBUTES,
    LoadBalancerView,
    Resource,
    TargetGroupView,
    as_bool,
    as_int,
    attribute_known,
    props_of,
)
from edge_origin.profile import ConnectionProfile
from edge_origin.profile.rollout import DRAINING_WINDOW_S, MARGIN_S, RolloutPlan, rollout_plan
from edge_origin.rules.base import Rule, finding, with_cdk
from edge_origin.rules.ka_profile import declared_profile
from edge_origin.rules.lb_type import NEEDS_DEFAULT, as_if_network, attribute_element
from edge_origin.rules.not_judged import not_judged, undecided_needs, undecided_reason

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

NLB_PROTOCOLS = frozenset({"TCP", "TLS", "UDP", "TCP_UDP"})
FIX_TG = with_cdk(
    "EO-NLB3", "Set TargetGroupAttributes deregistration_delay.connection_termination.enabled: true.",
    "`elbv2.NetworkTargetGroup(connection_termination=True)`; OriginFleet's target groups set it.",
)
UNHEALTHY = "target_health_state.unhealthy.connection_termination.enabled"
UNHEALTHY_PROTOCOLS = frozenset({"TCP", "TLS"})
"""The attribute cannot be enabled on UDP and TCP_UDP target groups."""
UNDOCUMENTED_PROTOCOLS = frozenset({"QUIC", "TCP_QUIC"})
"""NLB protocols of botocore's ProtocolEnum whose unhealthy-target termination the attribute's reference does not
describe (it names TCP/TLS, where it defaults to true, and UDP/TCP_UDP, where it cannot be enabled): not judged."""
FIX_UNHEALTHY = with_cdk(
    "EO-NLB3", f"Set TargetGroupAttributes {UNHEALTHY}: false (the pods' own draining ends their streams).",
    f"`target_group.set_attribute(\"{UNHEALTHY}\", \"false\")`; OriginFleet's target groups set it.",
)
FIX_LB = with_cdk(
    "EO-NLB3", "Set LoadBalancerAttributes load_balancing.cross_zone.enabled: true.",
    "`elbv2.NetworkLoadBalancer(cross_zone_enabled=True)`; OriginFleet(cross_zone_enabled=True) is the default.",
)


FIX_ROLLOUT = with_cdk(
    "EO-NLB3",
    "Set deregistration_delay.timeout_seconds to at least the draining window (about 120 s) plus the pods' preStop "
    "margin and the gRPC server's grace, and give the pods a preStop sleep of the window and a "
    "terminationGracePeriodSeconds of preStop + grace.",
    "OriginFleet derives the delay from the connection profile and writes the preStop and grace settings in the "
    "`<service>-rollout` ConfigMap beside the TargetGroupBinding; by hand `NetworkTargetGroup(deregistration_delay=...)`.",
)
DEFAULT_DELAY_S: int = fact_value("elbv2.tg.deregistration_delay")[0]
DELAY_RANGE: tuple[int, int] = fact_value("elbv2.tg.deregistration_delay")[1:]


def check(model: TemplateModel) -> Iterator[Finding]:
    terminates: dict[int, bool | None] = {}  # each target group's connection_termination, read once (two checks ask)
    for tg in model.target_groups:
        terminates[id(tg)] = tg.connection_termination
        if tg.protocol_undecided:  # judged as TCP (what TLS, UDP, TCP_UDP find, TCP finds too): not judged, or fine
            if next(iter(_protocol_findings(replace(tg, protocol="TCP", protocol_undecided=False))), None) is not None:
                yield _undecided(tg.resource, "Protocol", "as a TCP or TLS target group: its connection termination",
                                 "an NLB protocol (TCP, TLS, UDP, TCP_UDP) or not")
            continue
        yield from _protocol_findings(tg)
    profiles = _listener_profiles(model)
    plans: dict[tuple[int, int], RolloutPlan] = {}  # rollout_plan by (id of the profile, delay): a fleet's are alike
    for tg in model.target_groups:
        if deploy_time(tg.resource.properties.get("TargetType")):  # judged as ip (the only type _rollout judges)
            as_ip = replace(tg, target_type="ip")
            if next(iter(_rollout(as_ip, profiles.get(id(tg)), terminates[id(tg)], plans)), None) is not None:
                yield _undecided(tg.resource, "TargetType", "as an ip target group: whether a pod rollout is hitless",
                                 "ip or not")
            continue
        yield from _rollout(tg, profiles.get(id(tg)), terminates[id(tg)], plans)
    for lb in model.load_balancers:
        if lb.may_be_network:  # a Type decided at deploy time: not judged once, when cross-zone would be judged
            yield from as_if_network(RULE.id, lb, _cross_zone(lb), "its cross-zone load balancing")


def _protocol_findings(tg: TargetGroupView) -> Iterator[Finding]:
    """What the target group's ``Protocol`` decides: connection termination at deregistration and for unhealthy
    targets."""
    key = "deregistration_delay.connection_termination.enabled"
    terminated = tg.connection_termination
    if (tg.protocol or "").upper() in NLB_PROTOCOLS and terminated is not True:
        if not attribute_known(tg.attributes, key):
            yield not_judged(
                RULE.id, Severity.WARNING, subject=f"target group {tg.resource.logical_id} ({tg.protocol}) {key}",
                element=attribute_element(tg.resource, "TargetGroupAttributes", tg.attributes, key),
                reason="decided at deploy time: unless it is true, long-lived connections outlive deregistered pods",
                needs=f"a literal TargetGroupAttributes entry {key}: true", at=tg.resource,
            )
        else:
            yield finding(
                RULE.id, Severity.WARNING, tg.resource,
                f"target group {tg.resource.logical_id} ({tg.protocol}) does not set "
                f"{key}: long-lived connections outlive deregistered pods",
                FIX_TG,
            )
    # (_may_override is None without an undecided entry, nearly always: asked, and its subject made, only with one)
    elif (tg.protocol or "").upper() in NLB_PROTOCOLS and UNKNOWN_ATTRIBUTES in tg.attributes and (said := _may_override(
            tg.resource, "TargetGroupAttributes", tg.attributes, f"target group {tg.resource.logical_id} "
            f"({tg.protocol}) {key}", key, "true", "long-lived connections outlive deregistered pods", _true)):
        yield said
    yield from _unhealthy_termination(tg)


def _cross_zone(lb: LoadBalancerView) -> Iterator[Finding]:
    key = "load_balancing.cross_zone.enabled"
    if not attribute_known(lb.attributes, key):
        yield not_judged(
            RULE.id, Severity.WARNING, subject=f"NLB {lb.resource.logical_id} {key}",
            element=attribute_element(lb.resource, "LoadBalancerAttributes", lb.attributes, key),
            reason="decided at deploy time: off (the NLB default), a zone's EIP only reaches that zone's pods",
            needs=f"a literal LoadBalancerAttributes entry {key}: true", at=lb.resource,
        )
        return
    on = lb.cross_zone  # read once (an as_bool of the attribute)
    if on and UNKNOWN_ATTRIBUTES in lb.attributes and (said := _may_override(
            lb.resource, "LoadBalancerAttributes", lb.attributes, f"NLB {lb.resource.logical_id} {key}", key, "true",
            "off, a zone's EIP only reaches that zone's pods", _true)) is not None:
        yield said
    elif not on:
        yield finding(
            RULE.id, Severity.WARNING, lb.resource,
            f"NLB {lb.resource.logical_id} has cross-zone load balancing off: a zone's EIP only reaches that zone's pods",
            FIX_LB,
        )


def _true(value: Any) -> bool:
    return as_bool(value) is True


def _false(value: Any) -> bool:
    return as_bool(value) is False


def _may_override(res: Resource, prop: str, attributes: dict[str, Any], subject: str, key: str, literal: str,
                  consequence: str, quiet: Callable[[Any], bool]) -> Finding | None:
    """``key`` is set by a literal entry to a value that keeps the rule quiet (``literal``), beside an entry of
    ``prop`` whose Key (or the whole entry) is decided at deploy time and whose Value ``quiet`` does not accept:
    that entry may be ``key`` again (which of two entries of one Key ELB keeps, the templates do not say: either
    way), so one not-judged finding naming it; else None. Read only when the view saw such an entry (the
    ``UNKNOWN_ATTRIBUTES`` mark): no walk for the others."""
    if UNKNOWN_ATTRIBUTES not in attributes:
        return None
    raw = res.properties.get(prop)
    for i, entry in enumerate(raw if isinstance(raw, list) else ()):
        if deploy_time(entry) or (isinstance(entry, dict) and deploy_time(entry.get("Key"))
                                  and not quiet(entry.get("Value"))):
            where = f"{prop}[{i}]"
            return not_judged(
                RULE.id, Severity.WARNING, subject=f"{subject} ({where})", element=entry,
                reason=f"{undecided_reason(entry)}; {where} may be {key} again, not {literal}: {consequence}",
                needs=f"a literal Key in {where}: {undecided_needs(entry)}", at=res,
            )
    return None


def _undecided(res: Resource, prop: str, judges: str, may_be: str) -> Finding:
    """The one not-judged finding for a target group whose ``prop`` is decided at deploy time."""
    return not_judged(
        RULE.id, Severity.WARNING, subject=f"target group {res.logical_id} {prop} ({judges})",
        element=props_of(res).raw(prop) or res.unknown_properties or prop,
        reason=f"decided at deploy time: {may_be}", needs=f"a literal {prop} ({NEEDS_DEFAULT})", at=res,
    )


def _listener_profiles(model: TemplateModel) -> dict[int, tuple[str, ConnectionProfile]]:
    """``{id(target group): (listener, the connection profile its Metadata declares)}`` (the first that parses)."""
    out: dict[int, tuple[str, ConnectionProfile]] = {}
    for lb in model.load_balancers:
        for listener in lb.listeners:
            profile = declared_profile(listener.resource)
            if isinstance(profile, ConnectionProfile):
                for tg in listener.target_groups:
                    out.setdefault(id(tg), (listener.resource.logical_id, profile))
    return out


def _rollout(tg: TargetGroupView, declared: tuple[str, ConnectionProfile] | None, terminates: bool | None,
             plans: dict[tuple[int, int], RolloutPlan]) -> Iterator[Finding]:
    """An ip target group that resets connections at the end of its deregistration delay
    (``deregistration_delay.connection_termination.enabled`` true) while a draining pod still gets new connections
    for about two minutes (``elbv2.nlb.draining_window_s``) plus the server's grace: no hitless rollout."""
    if (tg.target_type or "").lower() != "ip" or terminates is not True:  # terminates: tg.connection_termination
        return
    key = "deregistration_delay.timeout_seconds"
    raw = tg.attributes.get(key, DEFAULT_DELAY_S)
    lo, hi = DELAY_RANGE
    try:
        delay = int(str(raw).strip()) if attribute_known(tg.attributes, key) and isinstance(raw, (str, int)) else None
    except ValueError:
        delay = None
    if delay is None or not lo <= delay <= hi:
        res = tg.resource
        yield not_judged(
            RULE.id, Severity.WARNING, subject=f"target group {res.logical_id} {key} (whether a pod rollout is hitless)",
            element=raw,
            reason="decided at deploy time" if not isinstance(raw, (str, int)) or not attribute_known(tg.attributes, key)
            else f"not a value the API takes (whole seconds {lo}..{hi})",
            needs=f"a literal {key} in {lo}..{hi}", template=res.template, stack=res.stack,
            resource=res.logical_id, path=res.path,
        )
        return
    plan = None
    if declared is not None:
        plan = plans.get((id(declared[1]), delay))  # the profile lives on its listener's resource meanwhile
        if plan is None:
            plan = plans[(id(declared[1]), delay)] = rollout_plan(declared[1], delay)
        needed = plan.deregistration_delay_s  # the same whatever the delay
    else:
        needed = DRAINING_WINDOW_S + MARGIN_S
    if delay >= needed:  # fine, unless an entry whose Key is decided at deploy time may set a shorter one
        said = None if UNKNOWN_ATTRIBUTES not in tg.attributes else _may_override(tg.resource, "TargetGroupAttributes", tg.attributes,
                             f"target group {tg.resource.logical_id} {key} (whether a pod rollout is hitless)", key,
                             f"{delay} s", f"below {needed} s a pod rollout cannot be hitless",
                             lambda v: as_int(v) is not None and needed <= as_int(v) <= hi)
        if said is not None:
            yield said
        return
    if declared is not None and plan is not None:  # plan: the declared profile's
        whose = (f"listener {declared[0]}'s connection profile: preStop {plan.pre_stop_s} s + the server's grace "
                 f"{plan.grace_s} s + {MARGIN_S} s")
    else:
        whose = "the draining window alone, before any grace for in-flight RPCs"
    yield finding(
        RULE.id, Severity.WARNING, tg.resource,
        f"target group {tg.resource.logical_id} (ip targets) resets every connection at the end of its "
        f"{key} {delay} s{'' if key in tg.attributes else ' (the default)'}, but a draining IP target keeps getting new "
        f"connections for about {DRAINING_WINDOW_S} s whatever the delay says (AWS Load Balancer Controller issues "
        f"2366, 3270): a pod rollout cannot be hitless below {needed} s ({whose})",
        FIX_ROLLOUT,
    )


def _unhealthy_termination(tg: TargetGroupView) -> Iterator[Finding]:
    """A TCP or TLS target group whose unhealthy-target connection termination is on: set true, or unset (AWS's
    default, the facts table's ``elbv2.tg.unhealthy_connection_termination``); not judged when deploy-time."""
    protocol = (tg.protocol or "").upper()
    res = tg.resource
    where = f"target group {res.logical_id} ({tg.protocol})"
    if protocol in UNDOCUMENTED_PROTOCOLS and as_bool(tg.attributes.get(UNHEALTHY)) is not False:
        yield not_judged(
            RULE.id, Severity.WARNING, subject=f"{where} {UNHEALTHY}", element=tg.attributes.get(UNHEALTHY, "unset"),
            reason=f"ELB's reference describes the attribute for TCP/TLS (default true) and UDP/TCP_UDP, not {protocol}",
            needs=f"{UNHEALTHY}: false, if the NLB accepts it for {protocol}",
            at=res,
        )
        return
    if protocol not in UNHEALTHY_PROTOCOLS:
        return
    if not attribute_known(tg.attributes, UNHEALTHY):
        yield not_judged(
            RULE.id, Severity.WARNING, subject=f"{where} {UNHEALTHY}",
            element=attribute_element(res, "TargetGroupAttributes", tg.attributes, UNHEALTHY),
            reason="decided at deploy time: unset or true, the NLB resets every connection to a target that turns "
                   "unhealthy",
            needs=f"a literal TargetGroupAttributes entry {UNHEALTHY}: false",
            at=res,
        )
        return
    default = "true" if fact_value("elbv2.tg.unhealthy_connection_termination") else "false"
    if UNHEALTHY not in tg.attributes:
        if default != "true":
            return
        returned = UNHEALTHY in (res.metadata or {}).get(ATTRIBUTES_NOT_RETURNED_KEY, ())
        how = ("is not returned by DescribeTargetGroupAttributes (AWS returns every attribute; moto omits those "
               f"never set), so it holds AWS's default: {default}") if returned else f"unset: AWS's default is {default}"
    else:
        raw = tg.attributes[UNHEALTHY]
        state = as_bool(raw)
        if state is False:
            said = None if UNKNOWN_ATTRIBUTES not in tg.attributes else _may_override(res, "TargetGroupAttributes", tg.attributes, f"{where} {UNHEALTHY}", UNHEALTHY,
                                 "false", "the NLB resets every connection to a target that turns unhealthy", _false)
            if said is not None:
                yield said
            return
        if state is None:
            yield not_judged(
                RULE.id, Severity.WARNING, subject=f"{where} {UNHEALTHY}", element=raw,
                reason="neither true nor false (the values ELB accepts)", needs=f"{UNHEALTHY}: false",
                at=res,
            )
            return
        how = f"sets it {raw}"
    yield finding(
        RULE.id, Severity.WARNING, res,
        f"{where} {UNHEALTHY} {how}: the NLB resets every connection to a target that turns unhealthy, so one "
        "failed pod health check ends every gRPC stream pinned to that pod",
        FIX_UNHEALTHY,
    )


RULE = Rule(
    id="EO-NLB3",
    severity=Severity.WARNING,
    title="Connection termination off at deregistration, on for unhealthy targets; cross-zone off",
    catches=(
        "An NLB target group without deregistration_delay.connection_termination.enabled; a TCP or TLS target group "
        f"that sets {UNHEALTHY} true or leaves it unset (AWS's default is true: every connection to a target "
        "that turns unhealthy is reset; OriginFleet sets it false, and EO-NLB4 requires false where zonal shift is "
        "on; a value decided at deploy time, or a QUIC/TCP_QUIC target group the reference does not describe it "
        "for, is not judged); an ip target group that resets connections at deregistration with a "
        "deregistration_delay.timeout_seconds (default 300) below the ~120 s in which a draining IP target still gets "
        "new connections plus 5 s (with a connection profile declared on its listener: plus the server's grace, as "
        "OriginFleet's rollout plan): a pod rollout cannot be hitless (a delay decided at deploy time or outside the "
        "API's 0..3600 is not judged); an NLB with cross-zone load balancing off. A target group's Protocol or TargetType, "
        "an attribute, or a load balancer's Type decided at deploy time is not judged where the rule would judge it "
        "(as TCP, as ip, as an NLB); so is an attribute a literal entry keeps fine (cross-zone or connection "
        "termination true, unhealthy termination false, a long enough delay) beside an entry whose Key is decided at "
        "deploy time and whose Value would not (it may be the same Key)."
    ),
    incident="Pods drained for minutes with pinned gRPC connections (l4-load-balancer-pins-grpc); one zone's pods took its EIP's whole share.",
    fix=with_cdk(
        "EO-NLB3",
        "Set TargetGroupAttributes deregistration_delay.connection_termination.enabled: true and "
        f"{UNHEALTHY}: false, and LoadBalancerAttributes load_balancing.cross_zone.enabled: true.",
        "`elbv2.NetworkTargetGroup(connection_termination=True)`, `elbv2.NetworkLoadBalancer(cross_zone_enabled=True)`; "
        f"`target_group.set_attribute(\"{UNHEALTHY}\", \"false\")`; OriginFleet sets all three.",
    ),
    check=check,
    facts=("elbv2.tg.unhealthy_connection_termination", "elbv2.lb.cross_zone_default", "elbv2.nlb.draining_window_s",
           "elbv2.tg.deregistration_delay"),
)
