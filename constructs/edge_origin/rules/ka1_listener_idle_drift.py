"""EO-KA1: an NLB listener's idle timeout differs from the connection profile that governs it: its
own declared profile, or the profile of a distribution whose origin path reaches it (hop model:
NLB listener, CloudFront -> NLB)."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import Resource, TemplateModel
from edge_origin.model.values import Unresolved
from edge_origin.model.views import ListenerView, attribute_known
from edge_origin.profile import ConnectionProfile, hops
from edge_origin.profile.hops import PathHop
from edge_origin.rules.base import finding, with_cdk
from edge_origin.rules.ka_profile import (
    HopRule,
    declared_profile,
    idle_attribute_written,
    listener_idle,
    names,
    origin_path_load_balancers,
    over_protocols,
    port_text,
    protocol_text,
    undecided_load_balancer,
    verdict,
)
from edge_origin.rules.not_judged import not_judged, undecided_needs, undecided_reason

FIX = with_cdk(
    "EO-KA1",
    "Set the listener's tcp.idle_timeout.seconds from the profile (the edge-origin constructs do: "
    "tcp_idle_timeout=Duration.seconds(profile.nlb_idle_timeout_s)), or change the profile and re-render "
    "the service settings.",
    'OriginFleet(idle_timeout=profile.nlb_idle_timeout_s) or GrpcEdgeToOrigin / InternalGrpcOrigin(connection_profile=profile), which set it.',
)


def check(model: TemplateModel) -> Iterator[Finding]:
    for listener in model.listeners:
        profile = declared_profile(listener.resource)
        if not isinstance(profile, ConnectionProfile):
            continue  # absent, or EO-KA3's business
        subject = f"{listener.resource.logical_id} ({protocol_text(listener)} :{port_text(listener)})"
        yield from over_protocols(listener, lambda li, p=profile, s=subject: _against_own(li, p, s),
                                  rule_id=RULE.id, subject=subject, at=listener.resource)
    yield from _distribution_paths(model)


def _undecided_idle(listener: ListenerView, subject: str, profile: ConnectionProfile, at: Resource) -> list[Finding]:
    """One not-judged finding when the listener's tcp.idle_timeout.seconds is decided at deploy time (else [])."""
    if attribute_known(listener.attributes, hops.IDLE_ATTRIBUTE):
        return []  # decided: a value that is not a number is EO-NLB1's error
    written = idle_attribute_written(listener)
    return [not_judged(
        RULE.id, Severity.WARNING, subject=f"{subject}: {hops.IDLE_ATTRIBUTE}", element=written,
        reason=(f"{undecided_reason(written)}; whether the idle timeout is the connection profile's nlb_idle_timeout_s "
                f"{_num(profile.nlb_idle_timeout_s)} s is not known"),
        needs=undecided_needs(written), at=at,
    )]


def _against_own(listener: ListenerView, profile: ConnectionProfile, subject: str) -> list[Finding]:
    """The listener's idle timeout against the profile it declares."""
    idle = listener_idle(listener)
    if idle.seconds is None:
        return _undecided_idle(listener, subject, profile, listener.resource) if idle.settable else []
    if idle.seconds == profile.nlb_idle_timeout_s:
        return []
    note = f" ({idle.note})" if idle.note else ""
    return [finding(
        RULE.id, Severity.ERROR, listener.resource,
        PathHop.NLB.says(
            f"{subject} idle timeout {_num(idle.seconds)} s ({idle.how}){note} differs from its declared connection "
            f"profile's nlb_idle_timeout_s {_num(profile.nlb_idle_timeout_s)} s: the keepalive settings rendered for "
            "the services were checked against the profile, not against this listener"
        ),
        FIX,
    )]


def _distribution_paths(model: TemplateModel) -> Iterator[Finding]:
    """A distribution's profile against every listener its origins reach that declares no profile of its own."""
    unattached: list[tuple[ListenerView, Unresolved]] | None = None
    for dist in model.distributions:
        profile = declared_profile(dist.resource)
        if not isinstance(profile, ConnectionProfile):
            continue
        seen: set[tuple[str, str]] = set()
        reached: list[str] = []
        for origin in dist.origins:
            if not origin.custom:
                continue
            for lb in origin_path_load_balancers(model, origin):
                reached.append(lb.resource.logical_id)
                for listener in lb.listeners:
                    if listener.resource.key in seen or declared_profile(listener.resource) is not None:
                        continue  # a listener with its own profile is judged above (or by EO-KA3)
                    seen.add(listener.resource.key)
                    subject = (f"{dist.resource.logical_id} origin {origin.id} reaches {listener.resource.stack}/"
                               f"{listener.resource.logical_id} ({protocol_text(listener)} :{port_text(listener)})")
                    yield from over_protocols(
                        listener, lambda li, s=subject, d=dist.resource, p=profile: _against_distribution(li, d, p, s),
                        rule_id=RULE.id, subject=subject, at=dist.resource)
        if reached:
            if unattached is None:  # listeners of no load balancer of the model, read once
                unattached = [(li, arn) for li in model.listeners if (arn := undecided_load_balancer(li)) is not None
                              and declared_profile(li.resource) is None]
            yield from _unattached(unattached, dist.resource, profile, sorted(set(reached)))


def _unattached(unattached: list[tuple[ListenerView, Unresolved]], dist: Resource, profile: ConnectionProfile,
                reached: list[str]) -> Iterator[Finding]:
    """A listener without a profile whose LoadBalancerArn is decided at deploy time may be a listener of a load
    balancer the distribution reaches: judged as one; anything found is one not-judged finding (else fine)."""
    for listener, arn in unattached:
        subject = (f"{dist.logical_id} may reach {listener.resource.stack}/{listener.resource.logical_id} "
                   f"({protocol_text(listener)} :{port_text(listener)})")
        found = over_protocols(listener, lambda li, s=subject: _against_distribution(li, dist, profile, s),
                               rule_id=RULE.id, subject=subject, at=dist)
        if found:
            yield not_judged(
                RULE.id, Severity.WARNING, subject=f"{subject}: LoadBalancerArn", element=arn,
                reason=(f"{undecided_reason(arn)}; it may be a load balancer the distribution's origins reach "
                        f"({names(reached)}), where this listener would get an EO-KA1 {verdict(found)}"),
                needs=undecided_needs(arn), at=dist,
            )


def _against_distribution(listener: ListenerView, dist: Resource, profile: ConnectionProfile, subject: str) -> list[Finding]:
    """A listener the distribution's origin reaches against the distribution's profile."""
    idle = listener_idle(listener)
    if idle.seconds is None:
        return _undecided_idle(listener, subject, profile, dist) if idle.settable else []
    if idle.seconds == profile.nlb_idle_timeout_s:
        return []
    return [finding(
        RULE.id, Severity.ERROR, dist,
        PathHop.CLOUDFRONT_TO_NLB.says(
            f"{subject}, whose idle timeout is {_num(idle.seconds)} s ({idle.how}), but the distribution's connection "
            f"profile says nlb_idle_timeout_s {_num(profile.nlb_idle_timeout_s)} s: its origin timeouts and the pods' "
            "server pings were checked against a listener this path does not reach"
        ),
        FIX,
    )]


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


RULE = HopRule(
    id="EO-KA1",
    severity=Severity.ERROR,
    title="NLB idle timeout drifted from the governing connection profile",
    catches=(
        "A listener whose Metadata edge-origin:connection-profile declares nlb_idle_timeout_s, while its idle timeout "
        "(tcp.idle_timeout.seconds; 350 s when unset, and always for TLS and TCP_UDP) says otherwise; and a "
        "distribution declaring a profile whose origins reach (by records, or an NLB's DNS name) a listener without "
        "a profile of its own and another idle timeout. Not judged (a warning naming the value): the listener's "
        "tcp.idle_timeout.seconds decided at deploy time, or its Protocol when the protocols it may have give "
        "different verdicts; a listener whose LoadBalancerArn is decided at deploy time, judged against a "
        "distribution's profile as one it reaches, when that finds anything; and an entry of ListenerAttributes whose Key is decided at deploy time beside a literal tcp.idle_timeout.seconds, when its Value gives another verdict (it may be that Key again: which of two entries of one Key ELB keeps, the templates do not say)."
    ),
    incident=(
        "Client keepalive, server ping enforcement and the NLB idle timeout were each set alone and never agreed; "
        "idle flows left the NLB's flow table with no FIN or RST sent (keepalive-vs-nlb-idle-timeout)."
    ),
    fix=FIX,
    check=check,
    facts=("elbv2.nlb.idle_default", "elbv2.nlb.idle_range", "elbv2.listener.protocols"),
    why=(
        "Hop: NLB listener (its declared profile) and CloudFront -> NLB (a distribution's profile against the listeners "
        "its origins reach through records or an NLB DNS name). Margin: none, the numbers must be equal. Source: the "
        "listener idle per protocol of edge_origin.profile.hops (AWS update-idle-timeout.html: TCP 60..6000, default 350; "
        "TLS fixed 350; the attribute is TCP-listener only)."
    ),
)
