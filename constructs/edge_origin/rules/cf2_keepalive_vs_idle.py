"""EO-CF2: CloudFront origin keepalive not shorter than the NLB idle timeout of that origin."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.rules.base import Rule, finding

DEFAULT_KEEPALIVE = 5
DEFAULT_IDLE = 350
FIX = "Keep OriginKeepaliveTimeout below the NLB listener's tcp.idle_timeout.seconds (e.g. keepalive 60 s, idle 600 s)."


def check(model: TemplateModel) -> Iterator[Finding]:
    for dist in model.distributions:
        for origin in dist.origins:
            if not origin.custom:
                continue
            keepalive = origin.keepalive_timeout if origin.keepalive_timeout is not None else DEFAULT_KEEPALIVE
            for lb in model.load_balancers_for_origin(origin):
                for listener in lb.listeners:
                    if listener.protocol not in ("TCP", "TLS"):
                        continue
                    idle = DEFAULT_IDLE if listener.protocol == "TLS" or listener.idle_timeout is None else listener.idle_timeout
                    if keepalive >= idle:
                        yield finding(
                            RULE.id, Severity.WARNING, dist.resource,
                            f"{dist.resource.logical_id} origin {origin.id}: keepalive {keepalive} s is not shorter than the idle "
                            f"timeout {idle} s of {listener.resource.stack}/{listener.resource.logical_id}: the NLB drops pooled connections CloudFront still reuses",
                            FIX,
                        )


RULE = Rule(
    id="EO-CF2",
    severity=Severity.WARNING,
    title="Origin keepalive not shorter than the NLB idle timeout",
    catches="A CloudFront custom origin whose OriginKeepaliveTimeout (default 5 s) is not shorter than the idle timeout of a listener of its NLBs.",
    incident="Idle connections reused by CloudFront after the NLB had dropped them: resets and 502s (keepalive-vs-nlb-idle-timeout).",
    fix=FIX,
    check=check,
)
