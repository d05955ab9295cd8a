"""EO-DNS4: origin record TTL above 300 s."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.rules.base import Rule, finding, origin_label

MAX_TTL = 300
FIX = f"Set TTL to 60 s (at most {MAX_TTL} s) on origin records."


def check(model: TemplateModel) -> Iterator[Finding]:
    for name, kind in model.origin_names().items():
        for record in model.record_sets(name):
            if record.ttl is not None and record.ttl > MAX_TTL:
                zone = model.zones.zone(record)
                where = f" in {zone.label}" if zone is not None else ""
                yield finding(
                    RULE.id, Severity.WARNING, record.resource,
                    f"{record.label}: TTL {record.ttl} s{where} for {origin_label(name, kind)} is above {MAX_TTL} s: "
                    "failover is slow and new connections pile onto stale answers",
                    FIX,
                )


RULE = Rule(
    id="EO-DNS4",
    severity=Severity.WARNING,
    title="Origin record TTL above 300 s",
    catches="A TTL above 300 s on an origin record.",
    incident="Resolvers kept a failed NLB's IP for the whole TTL; reconnects went to it again.",
    fix=FIX,
    check=check,
)
