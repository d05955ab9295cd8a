"""EO-KA1: an NLB listener's idle timeout differs from the connection profile that governs it: its
own declared profile, or the profile of a distribution whose origin path reaches it (hop model:
NLB listener, CloudFront -> NLB)."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.profile import ConnectionProfile
from edge_origin.profile.hops import PathHop
from edge_origin.rules.base import finding, with_cdk
from edge_origin.rules.ka_profile import HopRule, declared_profile, listener_idle, origin_path_load_balancers

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
        idle = listener_idle(listener)
        if idle.seconds is None:
            continue  # not decidable from the templates
        if idle.seconds != profile.nlb_idle_timeout_s:
            note = f" ({idle.note})" if idle.note else ""
            yield finding(
                RULE.id, Severity.ERROR, listener.resource,
                PathHop.NLB.says(
                    f"{listener.resource.logical_id} ({listener.protocol} :{listener.port}) idle timeout {_num(idle.seconds)} s "
                    f"({idle.how}){note} differs from its declared connection profile's nlb_idle_timeout_s "
                    f"{_num(profile.nlb_idle_timeout_s)} s: the keepalive settings rendered for the services were "
                    "checked against the profile, not against this listener"
                ),
                FIX,
            )
    yield from _distribution_paths(model)


def _distribution_paths(model: TemplateModel) -> Iterator[Finding]:
    """A distribution's profile against every listener its origins reach that declares no profile of its own."""
    for dist in model.distributions:
        profile = declared_profile(dist.resource)
        if not isinstance(profile, ConnectionProfile):
            continue
        seen: set[tuple[str, str]] = set()
        for origin in dist.origins:
            if not origin.custom:
                continue
            for lb in origin_path_load_balancers(model, origin):
                for listener in lb.listeners:
                    if listener.resource.key in seen or declared_profile(listener.resource) is not None:
                        continue  # a listener with its own profile is judged above (or by EO-KA3)
                    seen.add(listener.resource.key)
                    idle = listener_idle(listener)
                    if idle.seconds is None or idle.seconds == profile.nlb_idle_timeout_s:
                        continue
                    yield finding(
                        RULE.id, Severity.ERROR, dist.resource,
                        PathHop.CLOUDFRONT_TO_NLB.says(
                            f"{dist.resource.logical_id} origin {origin.id} reaches {listener.resource.stack}/"
                            f"{listener.resource.logical_id} ({listener.protocol} :{listener.port}), whose idle timeout is "
                            f"{_num(idle.seconds)} s ({idle.how}), but the distribution's connection profile says "
                            f"nlb_idle_timeout_s {_num(profile.nlb_idle_timeout_s)} s: its origin timeouts and the pods' "
                            "server pings were checked against a listener this path does not reach"
                        ),
                        FIX,
                    )


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
        "a profile of its own and another idle timeout."
    ),
    incident=(
        "Client keepalive, server ping enforcement and the NLB idle timeout were each set alone and never agreed; "
        "idle flows left the NLB's flow table with no FIN or RST sent (keepalive-vs-nlb-idle-timeout)."
    ),
    fix=FIX,
    check=check,
    facts=("elbv2.nlb.idle_default", "elbv2.nlb.idle_range"),
    why=(
        "Hop: NLB listener (its declared profile) and CloudFront -> NLB (a distribution's profile against the listeners "
        "its origins reach through records or an NLB DNS name). Margin: none, the numbers must be equal. Source: the "
        "listener idle per protocol of edge_origin.profile.hops (AWS update-idle-timeout.html: TCP 60..6000, default 350; "
        "TLS fixed 350; the attribute is TCP-listener only)."
    ),
)
