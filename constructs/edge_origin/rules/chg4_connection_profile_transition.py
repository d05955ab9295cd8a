"""EO-CHG4: the way from base to head breaks the connection profile, or raises a gRPC origin's TTL."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import ListenerView, TemplateModel
from edge_origin.model.transition import GONE, MAY_REPLACE, transition_of
from edge_origin.profile import PROFILE_METADATA_KEY, ConnectionProfile, ProfileError
from edge_origin.rules.base import TransitionRule, finding, with_cdk
from edge_origin.rules.ka_profile import CF_DEFAULT_KEEPALIVE, NLB_DEFAULT_IDLE, declared_profile

FIX = with_cdk(
    "EO-CHG4",
    "Change in steps that are each safe with both sides: to raise the client keepalive time, raise the NLB idle "
    "timeout first (one deploy), then roll out the clients; to lower the idle timeout, lower the client keepalive "
    "(and the CloudFront origin keepalive) first. Lower a gRPC origin's TTL before an address change, not after; "
    "raise it only when no address change is planned.",
    'change connection_profile= of GrpcEdgeToOrigin / InternalGrpcOrigin one field per deploy, in the order above.',
)

# The fix each kind of finding gets: one that speaks of the change the finding is about.
FIX_IDLE_RAISED = (
    "Split the change: raise the NLB idle timeout first (one deploy, clients unchanged), then roll out the clients "
    "with the new keepalive time once every listener has it."
)
FIX_IDLE_LOWERED = (
    "Split the change: lower the client keepalive time first (roll out the clients, and the CloudFront origin "
    "keepalive), then lower the NLB idle timeout in a later deploy."
)
FIX_CLOUDFRONT = (
    "Change the CloudFront origin keepalive and the NLB idle timeout in separate deploys: when raising both, raise "
    "the idle timeout first; when lowering the idle timeout, lower the origin keepalive first. Each step then keeps "
    "the origin keepalive below the idle timeout."
)
FIX_TTL = (
    "Keep the gRPC origin's TTL at its base value (60 s or less), or raise it only when no address change (an EIP or "
    "NLB replaced, records moved) is planned, and lower it again, one old TTL before the next address change."
)

WHY = (
    "Clients (pods, devices) take new keepalive settings on their own schedule while CloudFormation updates "
    "listeners and the distribution: for a while old listeners serve new clients and new listeners serve old "
    "clients. Each mixed pair is checked with the profile's own checks; a failure that neither base nor head "
    "has alone is a transition failure (flows dropped silently by the NLB, GOAWAY too_many_pings). A raised TTL "
    "on a gRPC origin makes every later address change reach edges that much later."
)


def _idle(listener: ListenerView) -> int | None:
    if listener.protocol == "TLS":
        return NLB_DEFAULT_IDLE
    if listener.idle_timeout is None:
        return None if "tcp.idle_timeout.seconds" in listener.attributes else NLB_DEFAULT_IDLE
    return listener.idle_timeout


def _errors(profile: ConnectionProfile, idle: int) -> set[str]:
    try:
        return {f.rule for f in profile.replace(nlb_idle_timeout_s=idle).errors(ranges=False, cloudfront=False)}
    except ProfileError:
        return set()


def _listener_findings(base: TemplateModel, head: TemplateModel) -> Iterator[Finding]:
    tr = transition_of(base, head)
    old_listeners = {li.resource.key: li for li in base.listeners}
    for new in head.listeners:
        old = old_listeners.get(new.resource.key)
        if old is None:
            continue
        old_idle, new_idle = _idle(old), _idle(new)
        if old_idle is None or new_idle is None:
            continue
        if old_idle == new_idle and old.resource.metadata.get(PROFILE_METADATA_KEY) == new.resource.metadata.get(PROFILE_METADATA_KEY):
            continue  # nothing about the connection changes
        if tr.status(new.resource.key).status in (*GONE, MAY_REPLACE):
            continue  # a new listener: old connections end with the old one
        old_profile, new_profile = declared_profile(old.resource), declared_profile(new.resource)
        settled: set[str] = set()
        for profile, idle in ((old_profile, old_idle), (new_profile, new_idle)):
            if isinstance(profile, ConnectionProfile):
                settled |= _errors(profile, idle)
        mixes = (
            ("the new clients (head's profile)", new_profile, "the old listener", old_idle),
            ("the old clients (base's profile)", old_profile, "the new listener", new_idle),
        )
        for who, profile, what, idle in mixes:
            if not isinstance(profile, ConnectionProfile):
                continue
            broken = sorted(_errors(profile, idle) - settled)
            if broken:
                yield finding(
                    RULE.id, Severity.WARNING, new.resource,
                    f"{new.resource.logical_id}: idle timeout {old_idle} s -> {new_idle} s, client keepalive "
                    f"{_n(old_profile)} s -> {_n(new_profile)} s: {who} on {what} ({idle} s idle) fail {', '.join(broken)} "
                    "while the change rolls out",
                    FIX_IDLE_LOWERED if new_idle < old_idle else FIX_IDLE_RAISED,
                )


def _n(profile: object) -> str:
    if isinstance(profile, ConnectionProfile):
        value = profile.client_keepalive_time_s
        return str(int(value)) if float(value).is_integer() else str(value)
    return "?"


def _cloudfront_findings(base: TemplateModel, head: TemplateModel) -> Iterator[Finding]:
    old_origins = {(d.resource.key, o.id): o for d in base.distributions for o in d.origins if o.custom}
    old_listeners = {li.resource.key: li for li in base.listeners}
    for dist in head.distributions:
        for origin in dist.origins:
            old = old_origins.get((dist.resource.key, origin.id))
            if old is None or not origin.custom:
                continue
            ka_old = old.keepalive_timeout if old.keepalive_timeout is not None else CF_DEFAULT_KEEPALIVE
            ka_new = origin.keepalive_timeout if origin.keepalive_timeout is not None else CF_DEFAULT_KEEPALIVE
            for lb in head.load_balancers_for_origin(origin):
                for new in lb.listeners:
                    old_li = old_listeners.get(new.resource.key)
                    if old_li is None:
                        continue
                    idle_old, idle_new = _idle(old_li), _idle(new)
                    if idle_old is None or idle_new is None:
                        continue
                    if ka_old >= idle_old or ka_new >= idle_new:
                        continue  # broken before or after alone: EO-CF2's business
                    for ka, idle, how in ((ka_new, idle_old, "the new origin keepalive on the old listener"),
                                          (ka_old, idle_new, "the old origin keepalive on the new listener")):
                        if ka >= idle:
                            yield finding(
                                RULE.id, Severity.WARNING, dist.resource,
                                f"{dist.resource.logical_id} origin {origin.id}: keepalive {ka_old} s -> {ka_new} s, "
                                f"{new.resource.stack}/{new.resource.logical_id} idle {idle_old} s -> {idle_new} s: {how} "
                                f"({ka} s >= {idle} s) makes CloudFront reuse connections the NLB dropped during the deploy",
                                FIX_CLOUDFRONT,
                            )


def _ttl_findings(base: TemplateModel, head: TemplateModel) -> Iterator[Finding]:
    for name, kind in head.origin_names().items():
        if kind != "grpc":
            continue
        old = [r.ttl for r in base.record_sets(name) if r.ttl is not None]
        new = [(r.ttl, r) for r in head.record_sets(name) if r.ttl is not None]
        if not old or not new:
            continue
        top_ttl, top = max(new, key=lambda pair: pair[0])
        if top_ttl > max(old):
            yield finding(
                RULE.id, Severity.WARNING, top.resource,
                f"{name}: TTL raised {max(old)} s -> {top_ttl} s on a gRPC origin: edges keep a dead or replaced address "
                "that much longer, and long-lived connections pile onto what one answer held",
                FIX_TTL,
            )


def check(base: TemplateModel, head: TemplateModel) -> Iterator[Finding]:
    yield from _listener_findings(base, head)
    yield from _cloudfront_findings(base, head)
    yield from _ttl_findings(base, head)


RULE = TransitionRule(
    id="EO-CHG4",
    severity=Severity.WARNING,
    title="Idle timeout or keepalive change that breaks the profile on the way; TTL raise on a gRPC origin",
    catches="A listener idle timeout or declared client keepalive change where old listeners with new clients (or new listeners with old clients) fail the connection profile checks that base and head each pass; the same for CloudFront origin keepalive vs idle; a raised TTL on a gRPC origin.",
    incident="Client keepalive vs NLB idle timeout: flows died silently when the two disagreed (keepalive-vs-nlb-idle-timeout).",
    fix=FIX,
    check=check,
    why=WHY,
)
