"""EO-CHG5: a Route 53 record moves to another resource (new logical id, or another stack)."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.transition import record_key, record_label, route53_identity, transition_of
from edge_origin.rules.base import TransitionRule, finding, with_cdk

FIX = with_cdk(
    "EO-CHG5",
    "Keep the record's logical id and stack (in CDK: the construct id and path; cdk's overrideLogicalId if code "
    "moves). To move a record to another stack, give the new one a new set identifier, deploy the new stack, then "
    "remove the old record in a later deploy; never the same set identifier in two resources.",
    'keep the construct id and path of MultivalueOriginRecords / the ARecord (`node.default_child.override_logical_id(...)` when code moves) and its set_identifier.',
)

WHY = (
    "Route 53 knows a record by zone, name, type and set identifier; CloudFormation knows it by stack and "
    "logical id. Under a new logical id in the same stack, CloudFormation creates the 'new' record while the old "
    "resource still holds the same identity, and Route 53 refuses it ('Tried to create resource record set ... "
    "but it already exists'): the deploy fails. Moved to another stack, it is a removal in one stack and an "
    "addition in another, deployed separately: adding first fails the same way, removing first leaves the "
    "record missing until the other stack deploys."
)


def check(base: TemplateModel, head: TemplateModel) -> Iterator[Finding]:
    tr = transition_of(base, head)
    for _group, before, after in tr.record_groups():
        if not before or not after or {r.routing_policy for r in before} != {r.routing_policy for r in after}:
            continue  # (a policy change across resources is EO-CHG1's)
        old = {route53_identity(r): r for r in before}
        kept = {record_key(r) for r in after}
        for record in after:
            was = old.get(route53_identity(record))
            if was is None or record_key(was) == record_key(record):
                continue
            if record_key(was) in kept:
                continue  # the old resource still holds it in head: a duplicate within head, not a move
            moved = "another stack" if was.stack != record.stack else "a new logical id"
            yield finding(
                RULE.id, Severity.ERROR, record.resource,
                f"{record.name} {record.type} set {record.set_identifier!s}: moves from {record_label(was)} to "
                f"{record_label(record)} ({moved}): a removal and an addition of the same Route 53 record; "
                + ("the stacks deploy separately: adding first fails ('already exists'), removing first leaves it missing"
                   if was.stack != record.stack else
                   "CloudFormation creates the new resource while the old one still holds the record: 'already exists', the deploy fails"),
                FIX,
            )


RULE = TransitionRule(
    id="EO-CHG5",
    severity=Severity.ERROR,
    title="Record moved to another resource (logical id or stack)",
    catches="A record (same zone, name, type and set identifier) that base has in one resource and head in another: a new logical id or another stack.",
    incident="Construct refactors that renamed records (CDK's path-derived ids), and records moved between stacks: deploys that failed with 'already exists' or left the name short of records (dns-plan-race-postmortem).",
    fix=FIX,
    check=check,
    why=WHY,
)
