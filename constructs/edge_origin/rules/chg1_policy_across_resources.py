"""EO-CHG1: a name's routing policy changes across separate record-set resources in one deploy."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.transition import MAY_REPLACE, REPLACED, record_key, record_label, transition_of
from edge_origin.rules.base import TransitionRule, finding, with_cdk

FIX = with_cdk(
    "EO-CHG1",
    "Give the new routing policy a new record name (e.g. origin-mv.example.com) and switch the CloudFront "
    "origin to it in the same deploy, the distribution depending on the new records (DependsOn): they are created "
    "first, the distribution is updated, and the old name's records are deleted in the clean-up phase, after it. Or change the live records out of band in "
    "one Route 53 change batch (edge-origin enact) and then align the templates. Never create the new records "
    "and delete the old ones in two deploys (the migration guide's way): the name has no answer in between.",
    'a new MultivalueOriginRecords (record_name= the new name) and GrpcEdgeDistribution(origin_name=) switched in the same deploy (GrpcEdgeToOrigin makes the distribution depend on its records).',
)

WHY = (
    "CloudFormation creates and updates each AWS::Route53::RecordSet on its own and deletes removed resources "
    "only in the clean-up phase, so new record sets of a name are created while the old ones still exist; Route "
    "53 allows one routing policy per name and type and refuses the create ('cannot be created because a non "
    "multivalue answer rrset exists with the same name and type'): the deploy fails and rolls back. The same "
    "logical ids changing policy in place do not help: each record set is updated in its own change, so the "
    "first one updated meets the others still on the old policy; and a change of a record's name, type or set "
    "identifier replaces it (its primary identifier in the resource schema), creating the new one first. Not "
    "flagged: a name with exactly one record set updated in place, and a name whose records all live in one "
    "AWS::Route53::RecordSetGroup updated in place; each flips in one Route 53 change batch."
)


def check(base: TemplateModel, head: TemplateModel) -> Iterator[Finding]:
    tr = transition_of(base, head)
    for (_zone, name, rtype), before, after in tr.record_groups():
        if not before or not after:
            continue
        old = sorted({r.routing_policy for r in before})
        new = sorted({r.routing_policy for r in after})
        if old == new:
            continue
        if len(before) == 1 and len(after) == 1 and record_key(before[0]) == record_key(after[0]):
            status = tr.status(after[0].resource.key).status
            if status not in (REPLACED, MAY_REPLACE):
                continue  # one record set updated in place: one Route 53 change
        holders = {r.resource.key for r in (*before, *after)}
        one_group = len(holders) == 1 and all(r.member_index is not None for r in (*before, *after))
        if one_group and tr.status(next(iter(holders))).status not in (REPLACED, MAY_REPLACE):
            continue  # every record of the name in one RecordSetGroup: one change batch
        target = next((r for r in after if r.routing_policy not in old), after[0])
        yield finding(
            RULE.id, Severity.ERROR, target.resource,
            f"{name} {rtype}: routing policy {'/'.join(old)} -> {'/'.join(new)} across separate record sets in one "
            f"deploy (base: {', '.join(record_label(r) for r in before)}; head: {', '.join(record_label(r) for r in after)}): "
            "CloudFormation creates or updates them one at a time while the others are still on the old policy, and "
            "Route 53 refuses a name with two policies: the deploy fails and rolls back",
            _fix(before, after, old),
        )


def _fix(before: list, after: list, old: list[str]) -> str:
    """The fix for this change: records of another policy ADDED beside a name's unchanged records
    (base's all still there, same policy) are most likely an accident: remove them. Otherwise the
    policy is meant to change: migrate (FIX)."""
    kept = {record_key(r): r.routing_policy for r in after}
    added = [r for r in after if r.routing_policy not in old]
    if added and all(kept.get(record_key(r)) == r.routing_policy for r in before):
        policies = "/".join(sorted({r.routing_policy for r in added}))
        return (
            f"Remove the added {policies} record set(s) {', '.join(record_label(r) for r in added)}: the name keeps "
            f"answering with its {'/'.join(old)} records, and Route 53 allows one routing policy per name and type. "
            "If the routing policy is meant to change, migrate instead (see `edge-origin rules explain EO-CHG1`)."
        )
    return FIX


RULE = TransitionRule(
    id="EO-CHG1",
    severity=Severity.ERROR,
    title="Routing-policy change of a name across separate record sets in one deploy",
    catches=(
        "A name and type whose record sets have one routing policy in base and another in head, when more than one "
        "record-set resource is involved (or the only one is replaced)."
    ),
    incident="The weighted-to-multivalue migration: done in one deploy it fails and rolls back; done as the guide says (create, then delete) the name answers nothing in between (migration guide, DNS plan race).",
    fix=FIX,
    check=check,
    why=WHY,
)
