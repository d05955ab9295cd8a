"""EO-CHG3: a live origin name is left with no records, or with no health-checked record."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.facts import value
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import Resource, TemplateModel
from edge_origin.model.transition import record_label, transition_of
from edge_origin.rules.base import TransitionRule, finding, with_cdk

FIX = with_cdk(
    "EO-CHG3",
    "Keep at least one health-checked record of every name CloudFront still uses. To retire a name, switch "
    "the CloudFront origin to another name in the same deploy (then its records may go); to move records to "
    "another stack, add them there first (with new set identifiers) and remove the old ones in a later deploy.",
    'change GrpcEdgeToOrigin(origin_name=) together with its records (it makes the distribution depend on them); keep MultivalueOriginRecords of a name CloudFront still uses.',
)

WHY = (
    "A name CloudFront still connects to (an origin of a distribution in head, or marked as a gRPC origin) "
    "that had records in base and has none in head resolves to nothing once the clean-up phase deletes them: "
    "the DNS plan race's end state. A name whose records all lose their health check answers with dead "
    "addresses too: Route 53 can no longer drop them. A name whose distributions switched to another origin "
    "in the same change is being retired, and is not flagged."
)


ORDER_FIX = (
    "Make the distribution depend on the new name's records (CloudFormation DependsOn; in CDK "
    "distribution.node.add_dependency(record) for each record), so they exist before CloudFront switches."
)


NEGATIVE_CACHE_S: int = value("route53.negative_cache_s")
"""Route 53's default SOA lets a resolver cache "no such record" for up to 900 s (the facts table)."""

def _depends_on(model: TemplateModel, resource: Resource) -> set[str]:
    """Logical ids in the resource's DependsOn (read from the template as given)."""
    templates = getattr(model, "templates", {})
    loaded = templates.get(resource.stack)
    body = (loaded.body.get("Resources") or {}).get(resource.logical_id) if loaded is not None else None
    value = body.get("DependsOn") if isinstance(body, dict) else None
    if isinstance(value, str):
        return {value}
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def _switch_order(base: TemplateModel, head: TemplateModel) -> Iterator[Finding]:
    """A distribution switched to a name whose records this deploy creates, with nothing ordering them."""
    tr = transition_of(base, head)
    for name in tr.head_origin_names:
        if base.record_sets(name):
            continue
        records = head.record_sets(name)
        for dist in tr.distributions_using(head, name):
            if base.resource(*dist.key) is None or dist.key in {d.key for d in tr.distributions_using(base, name)}:
                continue  # a new distribution, or one that already used the name
            same_stack = [r for r in records if r.stack == dist.stack]
            if not same_stack or {r.logical_id for r in same_stack} & _depends_on(head, dist):
                continue  # records in another stack (stack order decides), or ordered by DependsOn
            yield finding(
                RULE.id, Severity.WARNING, dist,
                f"{dist.logical_id} switches to {name}, whose records this deploy creates "
                f"({', '.join(record_label(r) for r in same_stack)}), and nothing orders them: CloudFormation may "
                "update the distribution first, and edges that resolve the name meanwhile get no answer and may cache "
                f"that for up to {NEGATIVE_CACHE_S} s (Route 53's default SOA), whatever the records' TTL",
                ORDER_FIX,
            )


def check(base: TemplateModel, head: TemplateModel) -> Iterator[Finding]:
    yield from _switch_order(base, head)
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
                "after the deploy it resolves to nothing, and resolvers may cache that 'no such record' for up to "
                f"{NEGATIVE_CACHE_S} s (Route 53's default SOA negative TTL), not a record TTL, after the records return",
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
    lower="warning when a distribution switches to a name whose records the same deploy creates with nothing ordering them",
    severity=Severity.ERROR,
    title="Live origin name left with no records or no health-checked record",
    catches=(
        "A name that had records in base and is still an origin in head, with no record in head, or with no "
        "health-checked record where base had one (error); a distribution switched to a new name whose records the "
        "same deploy creates in its stack, with no DependsOn ordering them (warning)."
    ),
    incident="The DNS plan race: clean-up deleted the active plan and the name resolved to nothing (dns-plan-race-postmortem).",
    fix=FIX,
    check=check,
    facts=("route53.negative_cache_s",),
    why=WHY,
)
