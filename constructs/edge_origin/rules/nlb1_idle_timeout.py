"""EO-NLB1: the idle timeout of an NLB listener on a gRPC path: explicit, in range, settable for its
protocol, and not above the targets' connection tracking (hop model: NLB listener, target)."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.values import Unresolved, deploy_time
from edge_origin.model.views import ListenerView, attribute_known
from edge_origin.profile import ConnectionProfile, hops
from edge_origin.profile.hops import PathHop
from edge_origin.rules.base import finding, origin_label, origin_load_balancers, with_cdk
from edge_origin.rules.ka_profile import (
    HopRule,
    declared_profile,
    idle_attribute_written,
    listener_idle,
    names,
    over_protocols,
    port_text,
    protocol_text,
    tracked_target_groups,
    undecided_load_balancer,
    verdict,
)
from edge_origin.rules.not_judged import not_judged, undecided_needs, undecided_reason

DEFAULT_IDLE = hops.NLB_DEFAULT_IDLE_S
FIX = with_cdk(
    "EO-NLB1",
    "Use a TCP listener with ListenerAttributes tcp.idle_timeout.seconds set explicitly (60..6000) above the "
    "CloudFront origin keepalive and the gRPC keepalive interval; terminate TLS in the pods, not on the NLB. "
    "Above 350 s, the targets' ENI connection tracking TcpEstablishedTimeout must be at least the idle timeout "
    "(its default: 350 s on Nitro v6 instance types, 432,000 s on the others).",
    '`nlb.add_listener(..., protocol=elbv2.Protocol.TCP, tcp_idle_timeout=Duration.seconds(N))`; OriginFleet(idle_timeout=N); GrpcEdgeToOrigin / InternalGrpcOrigin take it from connection_profile.nlb_idle_timeout_s.',
)
TRACKING_FIX = (
    "State the targets' TcpEstablishedTimeout in the listener's connection profile (target_tcp_established_timeout_s: "
    "432000 for instance types other than Nitro v6, or the value set in the nodes' EC2 ConnectionTrackingSpecification, "
    "at least the idle timeout), or keep tcp.idle_timeout.seconds at or below 350 s and keepalive below it. "
    ""
)


def _declared_tracking(listener: ListenerView) -> float | None:
    """The targets' TcpEstablishedTimeout the listener's connection profile declares, else None (it depends on
    the instance type)."""
    profile = declared_profile(listener.resource)
    if isinstance(profile, ConnectionProfile) and profile.target_tcp_established_timeout_s is not None:
        return profile.target_tcp_established_timeout_s
    return None


def _tracking_says(where: str, idle: float, tracking: float | None, tg) -> str:  # noqa: ANN001
    targets = f"target group {tg.resource.logical_id} ({tg.target_type or 'instance'} targets) sits behind EC2 connection tracking"
    if tracking is None:
        return (
            f"{where}: idle timeout {idle} s is above {hops.TARGET_TCP_ESTABLISHED_NITRO_V6_S} s and {targets} whose "
            f"timeout no connection profile states: {hops.TRACKING_DEPENDS}. On Nitro v6 targets {hops.TARGET_EXPIRY}; "
            "on the others this idle timeout is fine"
        )
    return (
        f"{where}: idle timeout {idle} s is above {tracking} s, the targets' TcpEstablishedTimeout the listener's "
        f"connection profile states, and {targets}: AWS says it must be equal or greater than the NLB idle timeout, "
        f"or {hops.TARGET_EXPIRY}"
    )


def check(model: TemplateModel) -> Iterator[Finding]:
    seen: set[tuple[str, str]] = set()
    paths = origin_load_balancers(model)
    for label, kind, lbs in paths:
        for lb in lbs:
            for listener in lb.listeners:
                if listener.resource.key in seen:
                    continue
                seen.add(listener.resource.key)
                where = (f"{listener.resource.logical_id} ({protocol_text(listener)} :{port_text(listener)}) of "
                         f"{lb.resource.logical_id} on the path of {origin_label(label, kind)}")
                yield from over_protocols(listener, lambda li, where=where: list(_listener_findings(li, where)),
                                          rule_id=RULE.id, subject=where, at=listener.resource)
    if paths:
        yield from _unattached(model, sorted({lb.resource.logical_id for _, _, lbs in paths for lb in lbs}))


def _unattached(model: TemplateModel, on_paths: list[str]) -> Iterator[Finding]:
    """A listener whose LoadBalancerArn is decided at deploy time may be a listener of a load balancer on an origin's
    path: judged as one; anything found is one not-judged finding for it (nothing found: fine either way)."""
    for listener in model.listeners:
        arn = undecided_load_balancer(listener)
        if arn is None:
            continue
        where = f"{listener.resource.logical_id} ({protocol_text(listener)} :{port_text(listener)})"
        found = over_protocols(listener, lambda li, where=where: list(_listener_findings(li, where)),
                               rule_id=RULE.id, subject=where, at=listener.resource)
        if found:
            yield not_judged(
                RULE.id, Severity.WARNING, subject=f"{where}: LoadBalancerArn", element=arn,
                reason=(f"{undecided_reason(arn)}; it may be a load balancer on an origin's path ({names(on_paths)}), "
                        f"where this listener would get an EO-NLB1 {verdict(found)}"),
                needs=undecided_needs(arn), at=listener.resource,
            )


def _listener_findings(listener: ListenerView, where: str) -> Iterator[Finding]:
    idle = listener_idle(listener)
    res = listener.resource
    present = hops.IDLE_ATTRIBUTE in listener.attributes
    if listener.protocol == "TLS":
        yield finding(
            RULE.id, Severity.WARNING, res,
            PathHop.NLB.says(f"{where} is TLS: its idle timeout is fixed at {hops.NLB_TLS_IDLE_S} s and cannot be raised"),
            FIX,
        )
    elif idle.note:
        yield finding(RULE.id, Severity.WARNING, res, PathHop.NLB.says(f"{where}: {idle.note}"), FIX)
    if present and not idle.settable and attribute_known(listener.attributes, hops.IDLE_ATTRIBUTE):
        yield finding(
            RULE.id, Severity.WARNING, res,
            PathHop.NLB.says(
                f"{where} sets {hops.IDLE_ATTRIBUTE}, which AWS documents for TCP listeners only: it does not change "
                f"this listener's idle timeout ({idle.how})"
            ),
            "Remove the attribute, or use a TCP listener.",
        )
        return
    if listener.protocol != "TCP":
        return
    raw = listener.attributes.get(hops.IDLE_ATTRIBUTE)
    if listener.idle_timeout is None and present and attribute_known(listener.attributes, hops.IDLE_ATTRIBUTE):
        yield finding(
            RULE.id, Severity.ERROR, res,
            PathHop.NLB.says(
                f"{where}: {hops.IDLE_ATTRIBUTE} {str(raw)[:40]!r} is not a whole number of seconds in "
                f"{hops.NLB_IDLE_RANGE[0]}..{hops.NLB_IDLE_RANGE[1]}: the API refuses it"
            ),
            f"Use a whole number of seconds in {hops.NLB_IDLE_RANGE[0]}..{hops.NLB_IDLE_RANGE[1]}.",
        )
        return
    if idle.seconds is None:  # the attribute (or the list holding it) is decided at deploy time
        written = idle_attribute_written(listener)
        yield not_judged(
            RULE.id, Severity.WARNING, subject=f"{where}: {hops.IDLE_ATTRIBUTE}", element=written,
            reason=(f"{undecided_reason(written)}; the listener's idle timeout ({DEFAULT_IDLE} s without the attribute), "
                    f"whether the API takes it ({hops.NLB_IDLE_RANGE[0]}..{hops.NLB_IDLE_RANGE[1]}) and whether the "
                    "targets' connection tracking outlasts it are not known"),
            needs=undecided_needs(written), at=res,
        )
        return
    if listener.idle_timeout is not None:
        problem = hops.idle_range_problem(listener.idle_timeout)
        if problem:
            yield finding(
                RULE.id, Severity.ERROR, res,
                PathHop.NLB.says(f"{where}: {hops.IDLE_ATTRIBUTE} {problem}: the deploy is refused"),
                f"Use a whole number of seconds in {hops.NLB_IDLE_RANGE[0]}..{hops.NLB_IDLE_RANGE[1]}.",
            )
            return
    elif idle.seconds is not None:
        yield finding(
            RULE.id, Severity.WARNING, res,
            PathHop.NLB.says(f"{where} has no {hops.IDLE_ATTRIBUTE}: the {DEFAULT_IDLE} s default applies; {hops.NLB_EXPIRY}"),
            FIX,
        )
    tracking = _declared_tracking(listener)
    limit = hops.TARGET_TCP_ESTABLISHED_NITRO_V6_S if tracking is None else tracking
    if idle.seconds is not None and idle.seconds > limit:
        for tg in tracked_target_groups(listener):
            if not deploy_time(tg.resource.properties.get("TargetType")):
                yield finding(RULE.id, Severity.WARNING, res, PathHop.TARGET.says(_tracking_says(where, idle.seconds, tracking, tg)), TRACKING_FIX)
        yield from _undecided_targets(listener, where, idle.seconds)


def _undecided_targets(listener: ListenerView, where: str, idle: float) -> Iterator[Finding]:
    """Target groups the listener forwards to whose targets may sit behind EC2 connection tracking, but the templates
    do not say: a TargetType (read as the ``instance`` default) or a TargetGroupArn decided at deploy time."""
    tail = (f"; ip or instance targets sit behind EC2 connection tracking, whose timeout may be below the idle timeout "
            f"{idle} s")
    for tg in listener.target_groups:
        written = tg.resource.properties.get("TargetType")
        if deploy_time(written):
            yield not_judged(
                RULE.id, Severity.WARNING, subject=f"{where}: target group {tg.resource.logical_id} TargetType",
                element=written, reason=undecided_reason(written) + tail, needs=undecided_needs(written),
                at=listener.resource,
            )
    refs = [ref for ref in listener.target_group_refs if isinstance(ref, Unresolved)]
    if refs:
        yield not_judged(
            RULE.id, Severity.WARNING, subject=f"{where}: target group", element=refs[0],
            reason=undecided_reason(refs[0]) + tail,
            needs=undecided_needs(refs[0]), at=listener.resource,
        )


RULE = HopRule(
    id="EO-NLB1",
    lower="warning for an unset idle timeout (the 350 s default) or one above the targets' connection tracking",
    severity=Severity.ERROR,
    title="NLB idle timeout not explicit, out of range or ineffective on a gRPC path",
    catches=(
        "On an NLB behind a gRPC origin: a TCP listener without tcp.idle_timeout.seconds (350 s default); a TLS "
        "listener (fixed 350 s); a TCP_UDP or UDP listener (the attribute is TCP-listener only; TCP flows keep 350 s, "
        "UDP 120 s), or one that sets the attribute anyway; the attribute outside 60..6000 (error: the API refuses it); an idle "
        "timeout above 350 s with ip/instance targets whose ENI connection tracking (TcpEstablishedTimeout) the "
        "connection profile does not state at or above it (its default depends on the instance type: 350 s on Nitro "
        "v6, 432,000 s on the others). Not judged (a warning naming the value): tcp.idle_timeout.seconds decided at "
        "deploy time on a TCP listener, or a Protocol decided at deploy time when the protocols the listener may have "
        "give different verdicts; a listener whose LoadBalancerArn is decided at deploy time, judged as one on an "
        "origin's path, when that finds anything; above 350 s, a target group (TargetGroupArn) or TargetType "
        "decided at deploy time; and an entry of ListenerAttributes whose Key is decided at deploy time beside a literal tcp.idle_timeout.seconds, when its Value gives another verdict (it may be that Key again: which of two entries of one Key ELB keeps, the templates do not say)."
    ),
    incident=(
        "Idle gRPC flows left the NLB's flow table after 350 s with no FIN or RST to either side (AWS: the next packet "
        "on such a flow gets a TCP RST; a target's connection tracking drops it silently); clients waited on dead "
        "connections for 40 minutes (keepalive-vs-nlb-idle-timeout)."
    ),
    fix=FIX,
    check=check,
    why=(
        "Hops: NLB listener (protocol, attribute, range) and target connection tracking (idle above 350 s with ip or "
        "instance targets). Margin: none; ranges are AWS's. Source: " + hops.SRC_NLB + "; AWS blog 'Best Practices for "
        "TCP Connection Management on EC2'."
    ),
    facts=(
        "elbv2.nlb.idle_default", "elbv2.nlb.idle_tls", "elbv2.nlb.idle_range", "ec2.conntrack.tcp_established.nitro_v6",
        "ec2.conntrack.tcp_established.other", "elbv2.listener.protocols",
    ),
)
