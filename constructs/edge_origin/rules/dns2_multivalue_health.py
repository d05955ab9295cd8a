"""EO-DNS2: a multivalue origin record without a health check."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.rules.base import Rule, finding, origin_label, origin_severity

FIX = "Give every multivalue origin record a HealthCheckId (a TCP or HTTPS Route 53 health check on that record's IP and port)."


def check(model: TemplateModel) -> Iterator[Finding]:
    for name, kind in model.origin_names().items():
        for record in model.record_sets(name):
            if record.routing_policy == "multivalue" and record.health_check_id is None:
                yield finding(
                    RULE.id, origin_severity(Severity.ERROR, kind), record.resource,
                    f"{record.label}: multivalue record for {origin_label(name, kind)} has no HealthCheckId: "
                    "Route 53 keeps answering with a dead NLB's IP",
                    FIX,
                )


RULE = Rule(
    id="EO-DNS2",
    severity=Severity.ERROR,
    title="Multivalue origin record without a health check",
    catches="A MultiValueAnswer record for an origin name without HealthCheckId.",
    incident="Multivalue answers without health checks keep handing out a failed zone's IP; new connections keep failing there.",
    fix=FIX,
    check=check,
)
