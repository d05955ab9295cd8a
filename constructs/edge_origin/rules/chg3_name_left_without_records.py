"""EO-CHG3: a live origin name is left with no records, or with no health-checked record."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.diff.transition import record_label, transition_of
from edge_origin.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.rules.base import TransitionRule, finding

FIX = (
    "Keep at least one health-checked record of every name CloudFront still uses. To retire a name, switch "
    "the CloudFront origin to another name in the same deploy (then its records may go); to move records to "
    "another stack, add them there first (with new set identifiers) and remove the old ones in a later deploy."
)

WHY = (
    "A name CloudFront still connects to (an origin of a distribution in head, or marked as a gRPC origin) "
    "that had records in base and has none in head resolves to nothing once the clean-up phase deletes them: "
    "the DNS plan race's end state. A name whose records all lose their health check answers with dead "
    "addresses too: Route 53 can no longer drop them. A name whose distributions switched to another origin "
    "in the same change is being retired, and is not flagged."
)


def check(base: TemplateModel, head: TemplateModel) -> Iterator[Finding]:
    tr = transition_of(base, head)
    for name in base.record_names():
        if not isinstance(name, str):
            continue
        before = base.record_sets(name)
        if not before or not tr.live_in_head(name):
            continue
        after = head.record_sets(name)
        users = tr.distributions_using(head, name)
        if not after:
            where = users[0] if users else before[0].resource
            yield finding(
                RULE.id, Severity.ERROR, where,
                f"{name}: every record is removed ({', '.join(record_label(r) for r in before)}) while the name is "
                f"still an origin{' of ' + ', '.join(u.stack + '/' + u.logical_id for u in users) if users else ''}: "
                "after the deploy it resolves to nothing",
                FIX,
            )
            continue
        checked_before = [r for r in before if r.health_check_id is not None]
        checked_after = [r for r in after if r.health_check_id is not None]
        if checked_before and not checked_after:
            yield finding(
                RULE.id, Severity.ERROR, after[0].resource,
                f"{name}: {len(checked_before)} health-checked record(s) in base, none in head "
                f"({', '.join(record_label(r) for r in after)}): Route 53 keeps answering with dead addresses",
                FIX,
            )


RULE = TransitionRule(
    id="EO-CHG3",
    severity=Severity.ERROR,
    title="Live origin name left with no records or no health-checked record",
    catches="A name that had records in base and is still an origin in head, with no record in head, or with no health-checked record where base had one.",
    incident="The DNS plan race: clean-up deleted the active plan and the name resolved to nothing (dns-plan-race-postmortem).",
    fix=FIX,
    check=check,
    why=WHY,
)
