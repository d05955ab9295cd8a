"""EO-DNS5: mixed routing policies for one name and type (any name).

A record set whose zone, Name, Type or MultiValueAnswer is decided at deploy time (a parameter without Default,
an import, an undecidable Fn::If) may join a group of another policy: where it may (and neither EO-NJ1 nor EO-NJ2
names that value), it is not judged, never read as apart.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from itertools import product

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import RecordSetView, TemplateModel, display_value
from edge_origin.model.values import deploy_time
from edge_origin.model.zones import zone_undecided
from edge_origin.rules.base import Rule, finding, with_cdk
from edge_origin.rules.nj1_unread_names import grpc_path_names, names_undecided
from edge_origin.rules.nj2_unknown_routing import origin_path_names, undecided_element
from edge_origin.rules.not_judged import not_judged_value

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


#: A part of a group's key decided at deploy time matches any value in the index of ``_loose``.
ANY = ("any",)


class Undecided:
    """A zone, Name or Type decided at deploy time, as a part of a group's key: the same expression in one stack
    is the same value at deploy (a parameter, an import, a condition: each has one value a deploy)."""

    __slots__ = ("stack", "expr")

    def __init__(self, stack: str, expr: str) -> None:
        self.stack, self.expr = stack, expr

    def __eq__(self, other: object) -> bool:
        return other.__class__ is Undecided and (self.stack, self.expr) == (other.stack, other.expr)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((Undecided, self.stack, self.expr))

    def __str__(self) -> str:
        return f"{self.expr} (decided at deploy: one value for each of these sets)"


def _parts(record: RecordSetView) -> list[tuple[str, Any] | None]:
    """For the record's zone, Name and Type: (member, value as read) where decided at deploy time, else None."""
    zone = None
    if zone_undecided(record):
        zone = ("HostedZoneId" if record.hosted_zone_id is not None else "HostedZoneName", record.hosted_zone)
    raw = record.properties.get("Type") if isinstance(record.properties, dict) else None
    return [zone, ("Name", record.name) if deploy_time(record.name) else None,
            ("Type", raw) if record.type is None and deploy_time(raw) else None]


def _key(record: RecordSetView, parts: list[tuple[str, Any] | None]) -> Key:
    """The record's zone, name and type; a part decided at deploy as its expression (the same expression, the same
    value: such sets share a group)."""
    decided = (record.zone_key, record.name, record.type or "?")
    return tuple(d if u is None else Undecided(record.stack, display_value(u[1]))  # type: ignore[return-value]
                 for d, u in zip(decided, parts, strict=True))


def _policies(record: RecordSetView) -> frozenset[str]:
    """What the record's routing may be: its policy, EITHER for a MultiValueAnswer decided at deploy, else none
    (an element edge-origin does not read: EO-NJ2)."""
    if record.routing_policy != "unknown":
        return frozenset({record.routing_policy})
    return EITHER if undecided_element(record) is not None else frozenset()


def _undecided(record: RecordSetView, member: str, raw: Any, other: str) -> Finding:
    return not_judged_value(
        RULE.id, f"{record.label}: {member} of a {' or '.join(sorted(_policies(record))) or '?'} record set", raw,
        f"the set may share its name and type with {other}: whether Route 53 rejects the change is not judged",
        record.resource)




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
    if any(part.__class__ is Undecided for part in key):  # the answer model leaves such sets out: their own routing
        each = [r.routing_policy for r in records]
    else:
        each = [model.zones.policy(r) for r in records]
    policies = sorted(set(each) - {"unknown"})  # unknown: decided at deploy
    if len(policies) > 1:
        yield _mixed(records, str(name), str(rtype), policies)
        return
    if "unknown" not in each:
        return
    open_ = [r for r, policy in zip(records, each, strict=True) if policy == "unknown" and undecided_element(r) is not None]
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


def _loose(model: TemplateModel, loose: list[tuple[RecordSetView, list[tuple[str, Any] | None]]],
           groups: dict[Key, list[RecordSetView]], fired: set[Key]) -> Iterator[Finding]:
    """Record sets whose zone, Name or Type is decided at deploy: not judged where a group they may join (each
    part equal, or decided at deploy on either side) holds another policy. Indexed by the parts each decides, a
    group's undecided parts as ANY: linear in record sets (at most 8 look-ups a loose set)."""
    index: dict[tuple[tuple[bool, ...], tuple[Any, ...]], set[str]] = defaultdict(set)
    masks = {tuple(part is None for part in parts) for _, parts in loose}
    for key, records in groups.items():
        undecided = any(part.__class__ is Undecided for part in key)
        known = {r.routing_policy if undecided else model.zones.policy(r) for r in records} - {"unknown"}
        if not known:
            continue
        for mask in masks:
            partial = tuple(ANY if part.__class__ is Undecided else part for part, keep in zip(key, mask, strict=True) if keep)
            index[(mask, partial)] |= known
    names = grpc_path_names(model)
    for record, parts in loose:
        key = _key(record, parts)
        if key in fired or names_undecided(model, record, names):
            continue  # mixed already said; or EO-NJ1 names its undecided Name, Type or zone
        mask = tuple(part is None for part in parts)
        kept = [part for part, keep in zip(key, mask, strict=True) if keep]
        there: set[str] = set()
        for wild in product((False, True), repeat=len(kept)):
            there |= index.get((mask, tuple(ANY if w else v for v, w in zip(kept, wild, strict=True))), set())
        other = set().union(*(there - {policy} for policy in _policies(record)))
        if other:
            member, raw = next(part for part in parts if part is not None)
            yield _undecided(record, member, raw, f"{', '.join(sorted(other))} set(s)")


def check(model: TemplateModel) -> Iterator[Finding]:
    # Zones by identity (the zone resource or id), by name only where the name is all there is:
    # three stacks, each with its own example.com zone, hold three separate sets of records.
    groups: dict[Key, list[RecordSetView]] = defaultdict(list)
    loose: list[tuple[RecordSetView, list[tuple[str, Any] | None]]] = []
    for record in model.record_sets():
        if record.unknown:
            continue
        zone_key, name, rtype = record.zone_key, record.name, record.type
        if name.__class__ is str and rtype is not None and (zone_key[0] in ("zone", "id") or (zone_key[0] == "name" and zone_key[1] is not None)):
            groups[(zone_key, name, rtype)].append(record)  # every part decided (the common case: no more reading)
            continue
        parts = _parts(record)
        if parts[1] is None and not isinstance(name, str):
            continue  # no name at all: nothing to group by
        groups[_key(record, parts)].append(record)
        if parts != [None, None, None]:
            loose.append((record, parts))
    fired: set[Key] = set()
    for key, records in groups.items():
        for found in _group(model, key, records):
            if not _is_not_judged_here(found):
                fired.add(key)
            yield found
    if loose:
        yield from _loose(model, loose, groups, fired)


def _is_not_judged_here(found: Finding) -> bool:
    return found.message.startswith("not judged")


RULE = Rule(
    id="EO-DNS5",
    severity=Severity.ERROR,
    title="Mixed routing policies for one name and type",
    catches=(
        "Records of one name and type in one hosted zone (the same zone resource or id; by HostedZoneName only "
        "where no id is given) with different routing policies. A record set whose zone, Name, Type or "
        "MultiValueAnswer is decided at deploy time, beside sets of another policy it may join, is not judged "
        "(EO-NJ1 and EO-NJ2 name those on an origin's path); sets whose zone, Name or Type is the same expression in "
        "one stack (one parameter: one value a deploy) are one group whatever its value."
    ),
    incident="A weighted-to-multivalue migration done record by record: the deploy failed half way and rolled back (migration guide).",
    fix=FIX,
    check=check,
)
