"""EO-NLB1: TCP listener in a gRPC path without an explicit idle timeout, or a TLS listener there."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.views import attribute_known
from edge_origin.rules.base import Rule, finding, origin_label, origin_load_balancers

DEFAULT_IDLE = 350
FIX = (
    "Use a TCP listener with ListenerAttributes tcp.idle_timeout.seconds set explicitly (60..6000) above the "
    "CloudFront origin keepalive and the gRPC keepalive interval; terminate TLS in the pods, not on the NLB."
)


def check(model: TemplateModel) -> Iterator[Finding]:
    seen: set[tuple[str, str]] = set()
    for label, kind, lbs in origin_load_balancers(model):
        for lb in lbs:
            for listener in lb.listeners:
                if listener.resource.key in seen:
                    continue
                seen.add(listener.resource.key)
                where = f"{listener.resource.logical_id} ({listener.protocol} :{listener.port}) of {lb.resource.logical_id}"
                if (
                    listener.protocol == "TCP"
                    and listener.idle_timeout is None
                    and attribute_known(listener.attributes, "tcp.idle_timeout.seconds")
                ):
                    yield finding(
                        RULE.id, Severity.WARNING, listener.resource,
                        f"{where} on the path of {origin_label(label, kind)} has no tcp.idle_timeout.seconds: "
                        f"the {DEFAULT_IDLE} s default silently drops idle long-lived flows",
                        FIX,
                    )
                elif listener.protocol == "TLS":
                    yield finding(
                        RULE.id, Severity.WARNING, listener.resource,
                        f"{where} on the path of {origin_label(label, kind)} is TLS: its idle timeout is fixed at "
                        f"{DEFAULT_IDLE} s and cannot be raised",
                        FIX,
                    )


RULE = Rule(
    id="EO-NLB1",
    severity=Severity.WARNING,
    title="NLB idle timeout not explicit on a gRPC path",
    catches="A TCP listener of an NLB behind a gRPC origin without tcp.idle_timeout.seconds, or a TLS listener there (fixed 350 s).",
    incident="The NLB silently dropped idle gRPC flows after 350 s; clients waited on dead connections for 40 minutes (keepalive-vs-nlb-idle-timeout).",
    fix=FIX,
    check=check,
)
