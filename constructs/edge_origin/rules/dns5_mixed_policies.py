"""EO-DNS5: mixed routing policies for one name and type (any name).

A record set whose zone, Name, Type or MultiValueAnswer is decided at deploy time (a parameter without Default,
an import, an undecidable Fn::If) may join a group of another policy: where it may (and neither EO-NJ1 nor EO-NJ2
names that value), it is not judged, never read as apart.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import RecordSetView, TemplateModel, display_value
from edge_origin.model.values import deploy_time
from edge_origin.rules.base import Rule, finding, with_cdk
from edge_origin.rules.nj1_unread_names import grpc_path_names, names_undecided
from edge_origin.rules.nj2_unknown_routing import deploy_time_words, origin_path_names, undecided_element
from edge_origin.rules.not_judged import not_judged

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

FIX = with_cdk(
    "EO-DNS5",
    "Use one routing policy for all records of a name and type (multivalue for origins); delete the others in the same change.",
    'remove the other ARecord/AaaaRecord constructs of the name in the same change; MultivalueOriginRecords owns every record of its name.',
)
#: What a MultiValueAnswer decided at deploy time may make of a set: multivalue, or (false) simple; with a
#: SetIdentifier and false, Route 53 refuses the set ("Expected exactly one of [Weight, ... MultiValueAnswer ...]").
EITHER = frozenset({"multivalue", "simple"})

Key = tuple[object, object, object]


def _undecided_key(record: RecordSetView) -> tuple[str, Any] | None:
    """(member, value as read) of the first of the record's zone, Name and Type decided at deploy time, else None."""
    kind = record.zone_key[0]
    if kind == "unknown" or (kind == "name" and deploy_time(record.hosted_zone)):
        member = "HostedZoneId" if record.hosted_zone_id is not None else "HostedZoneName"
        return member, record.hosted_zone
    if not isinstance(record.name, str):
        return ("Name", record.name) if deploy_time(record.name) else None
    raw = record.properties.get("Type") if isinstance(record.properties, dict) else None
    if record.type is None and deploy_time(raw):
        return "Type", raw
    return None


def _policies(record: RecordSetView) -> frozenset[str]:
    """What the record's routing may be: its policy, EITHER for a MultiValueAnswer decided at deploy, else none
    (an element edge-origin does not read: EO-NJ2)."""
    if record.routing_policy != "unknown":
        return frozenset({record.routing_policy})
    return EITHER if undecided_element(record) is not None else frozenset()


def _undecided(record: RecordSetView, member: str, raw: Any, other: str) -> Finding:
    words, needs = deploy_time_words(raw)
    return not_judged(
        RULE.id, Severity.WARNING, subject=f"{record.label}: {member} of a {' or '.join(sorted(_policies(record))) or '?'} record set",
        element=display_value(raw),
        reason=f"{words}; the set may share its name and type with {other}: whether Route 53 "
               "rejects the change is not judged",
        needs=needs, at=record.resource,
    )


def _mixed(records: list[RecordSetView], name: str, rtype: str, policies: list[str]) -> Finding:
    return finding(
        RULE.id, Severity.ERROR, records[0].resource,
        f"{name} {rtype}: mixed routing policies ({', '.join(policies)}) in "
        f"{', '.join(sorted({r.stack + '/' + r.label for r in records}))}: Route 53 rejects the change at deploy",
        FIX,
    )


def _group(model: TemplateModel, key: Key, records: list[RecordSetView]) -> Iterator[Finding]:
    """The verdict on one zone, name and type: mixed, or not judged on each set whose MultiValueAnswer is decided
    at deploy and may mix policies (unless EO-NJ2 names it)."""
    _, name, rtype = key
    policies = sorted({model.zones.policy(r) for r in records} - {"unknown"})  # unknown: decided at deploy
    if len(policies) > 1:
        yield _mixed(records, str(name), str(rtype), policies)
        return
    open_ = [r for r in records if model.zones.policy(r) == "unknown" and undecided_element(r) is not None]
    if not open_:
        return
    # Beside a weighted (failover, latency...) set even true or false is refused, but false with a SetIdentifier is
    # refused for another reason (no routing element), so "mixed policies" is not what Route 53 would say: not judged.
    values = {display_value(undecided_element(r)[1]) for r in open_}  # type: ignore[index]
    if not policies and len(values) < 2:
        return  # every set's MultiValueAnswer is the one same value: one policy whatever it is
    other = f"{policies[0]} set(s)" if policies else "the other sets of undecided MultiValueAnswer"
    named = origin_path_names(model)
    for record in open_:
        if record.name in named:
            continue  # EO-NJ2 names the set's MultiValueAnswer (one finding a set and element)
        member, raw = undecided_element(record)  # type: ignore[misc]
        yield _undecided(record, member, raw, other)


def _partial(record: RecordSetView) -> tuple[Any, ...]:
    """The record's zone, name and type, each None where decided at deploy (matches any)."""
    kind = record.zone_key[0]
    zone = None if kind == "unknown" or (kind == "name" and deploy_time(record.hosted_zone)) else record.zone_key
    return zone, record.name if isinstance(record.name, str) else None, record.type


def _loose(model: TemplateModel, loose: list[tuple[RecordSetView, str, Any]],
           groups: dict[Key, list[RecordSetView]]) -> Iterator[Finding]:
    """Record sets whose zone, Name or Type is decided at deploy: not judged where a group they may join holds
    another policy (indexed by the parts they decide: linear in record sets)."""
    index: dict[tuple[tuple[bool, ...], tuple[Any, ...]], set[str]] = defaultdict(set)
    masks = {tuple(part is not None for part in _partial(r)) for r, _, _ in loose}
    for key, records in groups.items():
        known = {model.zones.policy(r) for r in records} - {"unknown"}
        for mask in masks:
            index[(mask, tuple(p for p, keep in zip(key, mask, strict=True) if keep))] |= known
    names = grpc_path_names(model)
    for record, member, raw in loose:
        if names_undecided(record, names):
            continue  # EO-NJ1 names its undecided Name or Type
        partial = _partial(record)
        mask = tuple(part is not None for part in partial)
        there = index.get((mask, tuple(p for p in partial if p is not None)), set())
        mine = _policies(record)
        if any(there - {policy} for policy in mine):
            yield _undecided(record, member, raw, f"{', '.join(sorted(there))} set(s)")


def check(model: TemplateModel) -> Iterator[Finding]:
    # Zones by identity (the zone resource or id), by name only where the name is all there is:
    # three stacks, each with its own example.com zone, hold three separate sets of records.
    groups: dict[Key, list[RecordSetView]] = defaultdict(list)
    loose: list[tuple[RecordSetView, str, Any]] = []
    for record in model.record_sets():
        if record.unknown:
            continue
        undecided = _undecided_key(record)
        if undecided is not None:
            loose.append((record, *undecided))
            continue
        if not isinstance(record.name, str):
            continue
        groups[(record.zone_key, record.name, record.type or "?")].append(record)
    for key, records in groups.items():
        yield from _group(model, key, records)
    if loose:
        yield from _loose(model, loose, groups)


RULE = Rule(
    id="EO-DNS5",
    severity=Severity.ERROR,
    title="Mixed routing policies for one name and type",
    catches=(
        "Records of one name and type in one hosted zone (the same zone resource or id; by HostedZoneName only "
        "where no id is given) with different routing policies. A record set whose zone, Name, Type or "
        "MultiValueAnswer is decided at deploy time, beside sets of another policy it may join, is not judged "
        "(EO-NJ1 and EO-NJ2 name those on an origin's path)."
    ),
    incident="A weighted-to-multivalue migration done record by record: the deploy failed half way and rolled back (migration guide).",
    fix=FIX,
    check=check,
)
