"""EO-CF2: CloudFront origin keepalive not well below the idle timeout of that origin's NLB listeners
(hop model: CloudFront -> NLB).

One severity per fact (issue 37): the same :func:`edge_origin.profile.hops.idle_severity` as the
profile's EO-PROFILE-CF-KEEPALIVE. A keepalive at or above the idle limit (less the guard) is an
ERROR: CloudFront then reuses pooled connections whose NLB flow is gone, the request meets a TCP RST
and the viewer a 502 - a failure, not a risk. Above 90 % of the limit it is a WARNING (it works, with
no room for timer slack)."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import DistributionView, ListenerView, TemplateModel
from edge_origin.model.views import UNKNOWN_ATTRIBUTES
from edge_origin.profile import hops
from edge_origin.profile.hops import PathHop
from edge_origin.rules.base import finding, with_cdk
from edge_origin.rules.cf_undecided import timeout_undecided, undecided
from edge_origin.rules.ka_profile import (
    HopRule,
    listener_idle,
    origin_path_load_balancers,
    over_idle_overrides,
)
from edge_origin.rules.not_judged import not_judged

DEFAULT_KEEPALIVE = hops.CF_DEFAULT_KEEPALIVE_S
DEFAULT_IDLE = hops.NLB_DEFAULT_IDLE_S
KEEPALIVE_QUOTA = hops.CF_ORIGIN_TIMEOUTS["keepalive"].default_quota_s
FIX = with_cdk(
    "EO-CF2",
    "Keep OriginKeepaliveTimeout well below the NLB listener's idle timeout (e.g. keepalive 60 s, idle 350 s). "
    "An idle timeout above 350 s only helps when the targets' ENI connection tracking (TcpEstablishedTimeout: by "
    "default 350 s on Nitro v6 instance types, 432,000 s on the others) is at least the same value; otherwise the "
    "target drops the flow first.",
    "`HttpOrigin(keepalive_timeout=Duration.seconds(60))` and the listener's `tcp_idle_timeout=`; GrpcEdgeToOrigin takes both from connection_profile (cloudfront_keepalive_timeout_s, nlb_idle_timeout_s).",
)


def check(model: TemplateModel) -> Iterator[Finding]:
    for dist in model.distributions:
        for origin in dist.origins:
            if not origin.custom:
                continue
            keepalive = origin.keepalive_timeout if origin.keepalive_timeout is not None else DEFAULT_KEEPALIVE
            undecided_keepalive = timeout_undecided(origin, "OriginKeepaliveTimeout")
            if undecided_keepalive is not None:
                said = (_keepalive_not_judged(dist, origin.id, undecided_keepalive, listener)
                        for lb in origin_path_load_balancers(model, origin) for listener in lb.listeners)
                first = next((f for f in said if f is not None), None)  # one for the origin
                if first is not None:
                    yield first
                continue
            for lb in origin_path_load_balancers(model, origin):
                for listener in lb.listeners:
                    if UNKNOWN_ATTRIBUTES not in listener.attributes:  # the common listener: no entry may override
                        yield from _against_listener(dist, origin.id, keepalive, listener)
                        continue
                    res = listener.resource
                    yield from over_idle_overrides(
                        listener, lambda li, d=dist, o=origin.id, k=keepalive: _against_listener(d, o, k, li), rule_id=RULE.id,
                        subject=f"{dist.resource.logical_id} origin {origin.id} -> {res.stack}/{res.logical_id}",
                        at=dist.resource)


def _against_listener(dist: DistributionView, origin_id: str, keepalive: float, listener: ListenerView) -> list[Finding]:
    """The origin's keepalive against one listener's idle timeout on its path."""
    idle = listener_idle(listener).seconds
    if idle is None:
        if listener.protocol != "UDP" and hops.idle_severity(keepalive, hops.NLB_IDLE_RANGE[0]) is not None:
            return [_not_judged(dist, origin_id, keepalive, listener)]
        return []  # UDP only, or decided at deploy time and fine against every idle timeout AWS allows
    severity = hops.idle_severity(keepalive, idle)
    if severity is None:
        return []
    return [finding(
        RULE.id, severity, dist.resource,
        PathHop.CLOUDFRONT_TO_NLB.says(
            f"{dist.resource.logical_id} origin {origin_id}: keepalive {keepalive} s is not well "
            f"below the idle timeout {idle} s of {listener.resource.stack}/{listener.resource.logical_id} "
            f"{hops.margin_words(idle)}: CloudFront may reuse a pooled connection whose flow is gone; "
            f"{hops.NLB_EXPIRY}"
        ),
        FIX,
    )]


def _keepalive_not_judged(dist: DistributionView, origin_id: str, value: object, listener: ListenerView) -> Finding | None:
    """A keepalive decided at deploy time: judged both ways against the listener's idle timeout. Quiet when every
    keepalive the default quota allows (up to ``KEEPALIVE_QUOTA`` s; above it CloudFront refuses the distribution
    until the quota is raised, EO-CF4) is well below it; else not judged (a warning)."""
    idle = listener_idle(listener).seconds
    if listener.protocol == "UDP" or (idle is not None and hops.idle_severity(KEEPALIVE_QUOTA, idle) is None):
        return None
    res = listener.resource
    against = f"the idle timeout {idle} s" if idle is not None else "an idle timeout decided at deploy time"
    return undecided(
        RULE.id, dist, f"origin {origin_id} CustomOriginConfig.OriginKeepaliveTimeout", value,
        f"keepalive values up to {KEEPALIVE_QUOTA} s (the default quota) are not all well below {against} of "
        f"{res.stack}/{res.logical_id}",
    )


def _not_judged(dist: DistributionView, origin_id: str, keepalive: float, listener: ListenerView) -> Finding:
    """An idle timeout decided at deploy time (a parameter, a mapping by an unknown Region) that some
    allowed value would make an error for this keepalive: judged both ways, so not judged."""
    res = listener.resource
    raw = listener.attributes.get(hops.IDLE_ATTRIBUTE, "ListenerAttributes")
    lo, hi = hops.NLB_IDLE_RANGE
    if isinstance(raw, (str, int, float)) and not isinstance(raw, bool) and raw != "ListenerAttributes":
        # A literal the API refuses (EO-NLB1's error), not a value decided at deploy time.
        why, needs = f"not a tcp.idle_timeout.seconds the API takes ({lo}..{hi} whole seconds; EO-NLB1)", \
            f"a whole number of seconds in {lo}..{hi}"
    else:
        why = "decided at deploy time"
        needs = "a literal tcp.idle_timeout.seconds (or the stack's Region in the cloud assembly, for a mapping by Region)"
    return not_judged(
        RULE.id, Severity.WARNING,
        subject=f"{dist.resource.logical_id} origin {origin_id} -> {res.stack}/{res.logical_id} tcp.idle_timeout.seconds",
        element=raw,
        reason=f"{why}; keepalive {keepalive} s is not well below every idle timeout AWS allows ({lo}..{hi} s)",
        needs=needs,
        template=dist.resource.template, stack=dist.resource.stack,
        resource=dist.resource.logical_id, path=dist.resource.path,
    )


RULE = HopRule(
    id="EO-CF2",
    severity=Severity.ERROR,
    title="Origin keepalive not well below the NLB idle timeout",
    catches=(
        "A CloudFront custom origin whose OriginKeepaliveTimeout (default 5 s) comes within 5 s of the idle timeout "
        "of a listener of its NLBs, or reaches it (error), or is above 90 % of it (warning) (TCP: "
        "tcp.idle_timeout.seconds or 350 s; TLS and TCP_UDP: 350 s). An idle timeout decided at deploy time (a "
        "parameter, a mapping by an unknown Region) is judged both ways: quiet when the keepalive is fine against "
        "every idle timeout AWS allows (60..6000 s), else not judged (warning). A keepalive decided at deploy time is "
        "judged the same way: quiet when every keepalive up to the default quota (120 s) is well below the idle "
        "timeout, else not judged (warning). An entry of ListenerAttributes whose Key is decided at deploy time beside a "
        "literal tcp.idle_timeout.seconds is judged with either Value: not judged (warning) when the verdicts differ (it "
        "may be that Key again: which of two entries of one Key ELB keeps, the templates do not say)."
    ),
    incident="Idle connections reused by CloudFront after the NLB had dropped them: resets and 502s (keepalive-vs-nlb-idle-timeout).",
    fix=FIX,
    check=check,
    facts=("cloudfront.origin_keepalive_timeout", "elbv2.nlb.idle_default", "elbv2.nlb.idle_tls"),
    why=(
        "Hop: CloudFront -> NLB. Margin: " + hops.MARGIN_IDLE + ". Source: " + hops.SRC_NLB + "; CloudFront origin "
        "keepalive timeout (default 5 s)."
    ),
)
