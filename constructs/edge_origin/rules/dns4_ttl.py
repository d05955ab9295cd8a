"""EO-DNS4: an origin record's TTL above what its failover needs: above 60 s on a health-checked
record (the API's advice), above 300 s on any other."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.facts import value
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.values import deploy_time
from edge_origin.rules.base import Rule, finding, origin_label, with_cdk
from edge_origin.rules.not_judged import not_judged_value

CHECKED_MAX_TTL = value("route53.ttl.health_checked")
"""Route 53 API (ResourceRecordSet.TTL): with a health check "we recommend that you specify a TTL of 60 seconds or less"."""
MAX_TTL = value("route53.ttl.origin_max")
"""Without a health check: edge-origin's ceiling (a failed NLB's address is kept for the whole TTL)."""
FIX = with_cdk(
    "EO-DNS4",
    f"Set the record's TTL to {CHECKED_MAX_TTL} s or less when it has a health check (AWS's advice), at most {MAX_TTL} s "
    "otherwise.",
    '`ttl=Duration.seconds(60)` on the ARecord; `record_ttl=` on GrpcEdgeToOrigin / InternalGrpcOrigin, `ttl=` on MultivalueOriginRecords (default 60 s).',
)


def _limit(record) -> tuple[int, str]:  # noqa: ANN001
    if record.health_check_id is not None:
        return CHECKED_MAX_TTL, (
            f"above {CHECKED_MAX_TTL} s on a health-checked record (Route 53 API, ResourceRecordSet.TTL: with a health "
            f"check 'we recommend that you specify a TTL of 60 seconds or less so clients respond quickly to changes in "
            f"health status'): resolvers keep a failed address that long after its check fails"
        )
    return MAX_TTL, f"above {MAX_TTL} s: failover is slow and new connections pile onto stale answers"


def _undecided(record, label: str) -> Finding | None:  # noqa: ANN001
    """Not judged: the origin record's TTL is decided at deploy time (any value up to Route 53's 2,147,483,647 s)."""
    raw = record.properties.get("TTL") if isinstance(record.properties, dict) else None
    if not deploy_time(raw):
        return None
    return not_judged_value(RULE.id, f"{record.label}: TTL of {label}", raw,
                            f"whether it is above {_limit(record)[0]} s is not judged", record.resource)


def check(model: TemplateModel) -> Iterator[Finding]:
    for name, kind in model.origin_names().items():
        for record in model.record_sets(name):
            if record.ttl is None:
                found = _undecided(record, origin_label(name, kind))
                if found is not None:
                    yield found
                continue
            limit, why = _limit(record)
            if record.ttl > limit:
                zone = model.zones.zone(record)
                where = f" in {zone.label}" if zone is not None else ""
                yield finding(
                    RULE.id, Severity.WARNING, record.resource,
                    f"{record.label}: TTL {record.ttl} s{where} for {origin_label(name, kind)} is {why}",
                    FIX,
                )


RULE = Rule(
    id="EO-DNS4",
    severity=Severity.WARNING,
    title="Origin record TTL above 60 s with a health check, above 300 s without",
    catches=(
        "A TTL above 60 s on a health-checked origin record (the Route 53 API recommends 60 s or less there), or above "
        "300 s on an origin record without a health check. A TTL decided at deploy time (a parameter without Default, an "
        "import, an undecidable Fn::If) is not judged, never read as absent."
    ),
    incident="Resolvers kept a failed NLB's IP for the whole TTL; reconnects went to it again.",
    fix=FIX,
    check=check,
    facts=("route53.ttl.health_checked", "route53.ttl.origin_max"),
)
