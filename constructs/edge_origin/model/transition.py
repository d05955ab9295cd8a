"""Two models, base and head, matched by stack and logical id (CloudFormation's identity).

``Transition(base, head)`` answers what the transition rules and ``edge-origin diff`` ask:

- ``status(key)``: what deploying head does to the resource ``(stack, logical_id)``:
  ``added`` | ``removed`` | ``unchanged`` | ``updated`` (in place) | ``replaced`` |
  ``may replace``, with reasons. Replacement comes from the resource schemas cfn-lint ships
  (``diff.schemas``): a change of a ``createOnlyProperties`` pointer or of a writable part of the
  ``primaryIdentifier`` replaces the resource. A property whose value refers to a replaced
  resource changes with it (a record's ``ResourceRecords: [Ref Eip]`` gets the new EIP's
  address; a listener's create-only ``LoadBalancerArn`` of a replaced NLB replaces the
  listener). "may replace" where the schema does not decide: no schema for the type, a value
  the templates cannot resolve, a wildcard or conditional pointer.
- per name: the record sets on each side, their addresses (``Address``: an EIP, a literal IP,
  an NLB behind an alias), and whether each base address is still answered after the deploy.

Everything is computed on demand and memoized; the cost is linear in what is asked.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from edge_origin.model import RecordSetView, Resource, ResourceRef, TemplateModel, Unresolved, display_value
from edge_origin.model.replacement_schemas import DEFAULT_REGION, replacement_rules
from edge_origin.profile import PROFILE_METADATA_KEY

ADDED = "added"
REMOVED = "removed"
UNCHANGED = "unchanged"
UPDATED = "updated"
REPLACED = "replaced"
MAY_REPLACE = "may replace"
GONE = (REMOVED, REPLACED)
"""Statuses after which the deployed resource of base no longer exists."""

Key = tuple[str, str]


@dataclass(frozen=True)
class Status:
    """What the deploy does to one resource, and why (``reasons`` are short phrases)."""

    status: str
    reasons: tuple[str, ...] = ()

    def describe(self) -> str:
        return self.status + (f" ({'; '.join(self.reasons)})" if self.reasons else "")


@dataclass(frozen=True)
class Address:
    """One address a name answers with: ``kind`` is ``eip`` | ``nlb`` (alias) | ``ip`` | ``value``."""

    kind: str
    key: Any
    label: str


def record_key(record: RecordSetView) -> tuple[str, str, Any]:
    """A record set's identity across base and head: stack, logical id, and for a RecordSetGroup
    member its Route 53 identity inside the group (positions shift when members are added)."""
    if record.member_index is None:
        return (record.stack, record.logical_id, None)
    return (record.stack, record.logical_id, (record.name, record.type, display_value(record.set_identifier)))


def record_label(record: RecordSetView) -> str:
    return f"{record.stack}/{record.label}"


def route53_identity(record: RecordSetView) -> tuple[Any, ...]:
    """What Route 53 calls one record: zone, name, type, set identifier."""
    zone = record.hosted_zone_name or display_value(record.hosted_zone)
    return (zone, record.name, record.type, display_value(record.set_identifier) if record.set_identifier is not None else None)


def zone_name_type(record: RecordSetView) -> tuple[Any, ...]:
    return route53_identity(record)[:3]


def _contains_unresolved(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Unresolved):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _refs(value: Any) -> list[ResourceRef]:
    """Every ResourceRef inside a resolved value (the hot loop of a diff: kept tight)."""
    out: list[ResourceRef] = []
    stack = [value]
    pop, extend = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is dict:
            extend(item.values())
        elif kind is list:
            extend(item)
        elif kind is ResourceRef:
            out.append(item)
    return out


_MISSING = object()


def _at(props: dict[str, Any], parts: list[str]) -> Any:
    value: Any = props
    for part in parts:
        if isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return _MISSING
    return value


def _show(value: Any) -> str:
    """A short rendering of a property value for a reason: nested structures are elided."""
    if value is _MISSING:
        return "unset"
    if isinstance(value, dict):
        return "{...}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return "[...]"
    return display_value(value)


class Transition:
    """Base and head matched by (stack, logical id); see the module docstring."""

    def __init__(self, base: TemplateModel, head: TemplateModel, region: str = DEFAULT_REGION) -> None:
        self.base = base
        self.head = head
        self.region = region
        self._status: dict[Key, Status] = {}
        self._busy: set[Key] = set()
        self._addresses: dict[int, list[Address]] = {}
        self._seeding = False
        self._unchanged_names: dict[str, bool] = {}

    # --- stacks and resources ------------------------------------------------------------------
    @cached_property
    def common_stacks(self) -> list[str]:
        return [s for s in self.head.stacks if s in self.base.templates]

    @cached_property
    def added_stacks(self) -> list[str]:
        return [s for s in self.head.stacks if s not in self.base.templates]

    @cached_property
    def removed_stacks(self) -> list[str]:
        return [s for s in self.base.stacks if s not in self.head.templates]

    def status(self, key: Key) -> Status:
        """What the deploy does to resource ``key`` (memoized)."""
        found = self._status.get(key)
        if found is not None:
            return found
        if not self._seeding and "_affected" not in self.__dict__:
            _ = self._affected  # the changed resources first, exactly: then the fast path is sound
            found = self._status.get(key)
            if found is not None:
                return found
        b, h = self.base.resource(*key), self.head.resource(*key)
        if b is None and h is None:
            result = Status(UNCHANGED)
        elif b is None:
            result = Status(ADDED)
        elif h is None:
            result = Status(REMOVED)
        elif key in self._busy:
            return Status(UPDATED)  # a reference cycle (CloudFormation forbids them); do not recurse
        elif not self._seeding and key not in self._dirty and key not in self._affected:
            result = Status(UNCHANGED)  # same properties, nothing it refers to is replaced
        else:
            self._busy.add(key)
            try:
                result = self._compare(b, h)
            finally:
                self._busy.discard(key)
        self._status[key] = result
        return result

    @cached_property
    def _dirty(self) -> set[Key]:
        return set(self.changed_keys["changed"])

    @cached_property
    def _affected(self) -> set[Key]:
        """Resources whose properties are unchanged but refer (transitively) to a replaced one.

        Only changed resources can be replaced on their own; their statuses are computed first
        (exactly, recursing where they refer), then the resources referring to the replaced ones
        are found by one walk over head's references. Everything else is unchanged without a
        look: a diff of a large app costs what its changes cost, plus that one walk."""
        self._seeding = True
        try:
            seeds = [k for k in self._dirty if self.status(k).status in (REPLACED, MAY_REPLACE)]
        finally:
            self._seeding = False
        if not seeds:
            return set()
        reverse: dict[Key, list[Key]] = defaultdict(list)
        for res in self.head.resources:
            refs = _refs(res.properties)
            if refs:
                key = (res.stack, res.logical_id)
                for ref in refs:
                    reverse[(ref.stack, ref.logical_id)].append(key)
        seen, queue = set(seeds), list(seeds)
        while queue:
            for dependent in reverse.get(queue.pop(), ()):
                if dependent not in seen:
                    seen.add(dependent)
                    queue.append(dependent)
        return seen

    def gone(self, key: Key) -> bool:
        """The resource base deployed is removed or replaced (definitely)."""
        return self.status(key).status in GONE

    def _ref_change(self, value: Any) -> tuple[str, str] | None:
        """(status, label) of the first referenced resource that is replaced (or may be)."""
        maybe = None
        for ref in _refs(value):
            st = self.status((ref.stack, ref.logical_id))
            if st.status == REPLACED:
                return REPLACED, ref.logical_id
            if st.status == MAY_REPLACE and maybe is None:
                maybe = (MAY_REPLACE, ref.logical_id)
        return maybe

    def _compare(self, b: Resource, h: Resource) -> Status:
        if b.type != h.type:
            return Status(REPLACED, (f"type {b.type} -> {h.type}",))
        bp, hp = b.properties, h.properties
        if bp == hp and self._ref_change(hp) is None:
            return Status(UNCHANGED)  # the common case, decided by one comparison and one walk
        changed: dict[str, str] = {}  # top-level property -> how
        for name in dict.fromkeys([*bp, *hp]):
            before, after = bp.get(name, _MISSING), hp.get(name, _MISSING)
            if before != after:
                changed[name] = "changed"
                continue
            dep = self._ref_change(after)
            if dep is not None:
                changed[name] = f"{dep[1]} {dep[0]}"
        if not changed:
            return Status(UNCHANGED)
        rules = replacement_rules(h.type, self.region)
        if rules is None:
            return Status(MAY_REPLACE, (f"no resource schema for {h.type}: changed {', '.join(changed)}",))
        replaced: list[str] = []
        maybe: list[str] = []
        for pointer in rules.replacing + rules.conditional:
            parts = pointer.split("/")[2:] if pointer.startswith("/properties/") else []
            if not parts or parts[0] not in changed:
                continue
            path = ".".join(parts)
            if "*" in parts or pointer in rules.conditional:
                maybe.append(f"{path} changed (the schema does not say whether this one replaces)")
                continue
            before, after = _at(bp, parts), _at(hp, parts)
            if before != after:
                if _contains_unresolved(before) or _contains_unresolved(after):
                    maybe.append(f"{path} not resolvable from the templates")
                else:
                    replaced.append(f"{path} {_show(before)} -> {_show(after)}")
                continue
            dep = self._ref_change(after)
            if dep is not None:
                (replaced if dep[0] == REPLACED else maybe).append(f"{path}: {dep[1]} {dep[0]}")
        if replaced:
            return Status(REPLACED, tuple(replaced))
        if maybe:
            return Status(MAY_REPLACE, tuple(maybe))
        return Status(UPDATED, tuple(f"{k} {v}" for k, v in changed.items()))

    @cached_property
    def changed_keys(self) -> dict[str, list[Key]]:
        """``{"added": [...], "removed": [...], "changed": [...]}``: keys whose template text differs
        (a cheap comparison of resolved properties; no replacement analysis)."""
        added: list[Key] = []
        changed: list[Key] = []
        base_resource, head_resource = self.base.resource, self.head.resource
        for res in self.head.resources:
            before = base_resource(res.stack, res.logical_id)
            if before is None:
                added.append((res.stack, res.logical_id))
            elif before.properties != res.properties or before.type != res.type:
                changed.append((res.stack, res.logical_id))
        removed = [(r.stack, r.logical_id) for r in self.base.resources if head_resource(r.stack, r.logical_id) is None]
        return {"added": added, "removed": removed, "changed": changed}

    # --- names, records and addresses ----------------------------------------------------------
    @cached_property
    def origin_names(self) -> dict[str, str]:
        """Origin names of either side -> kind (head's kind wins), sorted."""
        out = dict(self.base_origin_names)
        out.update(self.head_origin_names)
        return dict(sorted(out.items()))

    @cached_property
    def _groups(self) -> dict[tuple[Any, ...], tuple[list[RecordSetView], list[RecordSetView]]]:
        """(zone, name, type) -> (base records, head records), every literal name of either side."""
        out: dict[tuple[Any, ...], tuple[list[RecordSetView], list[RecordSetView]]] = defaultdict(lambda: ([], []))
        for side, model in ((0, self.base), (1, self.head)):
            for record in model.record_sets():
                if isinstance(record.name, str):
                    out[zone_name_type(record)][side].append(record)
        return dict(out)

    def record_groups(self) -> list[tuple[tuple[Any, ...], list[RecordSetView], list[RecordSetView]]]:
        """Every (zone, name, type) with its base and head record sets, sorted by name."""
        return [(k, b, h) for k, (b, h) in sorted(self._groups.items(), key=lambda kv: tuple(display_value(x) for x in kv[0]))]

    def addresses(self, model: TemplateModel, record: RecordSetView) -> list[Address]:
        """The addresses one record answers with (memoized per record view)."""
        found = self._addresses.get(id(record))
        if found is None:
            found = self._addresses[id(record)] = self._record_addresses(model, record)
        return found

    def name_unchanged(self, name: str) -> bool:
        """True when nothing on the name's path changes: the same record sets (same keys, same
        properties, status unchanged: their health checks and EIPs too), the same NLBs and
        listeners behind them, the same distributions using it. Memoized; lets the diff and the
        rules skip the untouched majority of a large app."""
        found = self._unchanged_names.get(name)
        if found is None:
            found = self._unchanged_names[name] = self._name_unchanged(name)
        return found

    @cached_property
    def _touched(self) -> set[Key]:
        """Every key whose status is not ``unchanged``, and every key a removed resource referred to
        (an NLB whose listener goes, an EIP whose NLB goes)."""
        keys = self.changed_keys
        touched = set(keys["added"]) | set(keys["removed"]) | self._dirty | self._affected
        for key in keys["removed"]:
            res = self.base.resource(*key)
            if res is not None:
                touched.update((r.stack, r.logical_id) for r in _refs(res.properties))
        return touched

    def _name_unchanged(self, name: str) -> bool:
        touched = self._touched
        before, after = self.base.record_sets(name), self.head.record_sets(name)
        if len(before) != len(after):
            return False
        for b, h in zip(before, after, strict=True):
            key = (h.stack, h.logical_id)
            if key in touched or record_key(b) != record_key(h) or b.properties != h.properties:
                return False
            if h.health_check is not None and h.health_check.resource.key in touched:
                return False
            if any(a.key in touched for a in self.addresses(self.head, h) if a.kind in ("eip", "nlb")):
                return False
        users = [d.key for d in self._users[0].get(name, ())]
        if users != [d.key for d in self._users[1].get(name, ())] or any(k in touched for k in users):
            return False
        for lb in self.head.load_balancers_for_name(name):
            if lb.resource.key in touched or any(li.resource.key in touched for li in lb.listeners):
                return False
            for li in lb.listeners:  # Metadata is not a property: a changed declared profile counts too
                old = self.base.resource(*li.resource.key)
                if old is None or old.metadata.get(PROFILE_METADATA_KEY) != li.resource.metadata.get(PROFILE_METADATA_KEY):
                    return False
        return True

    def _record_addresses(self, model: TemplateModel, record: RecordSetView) -> list[Address]:
        out = []
        for value in record.values:
            eip = model.eip(value)
            if eip is not None:
                out.append(Address("eip", eip.resource.key, f"EIP {eip.resource.stack}/{eip.resource.logical_id}"))
            elif isinstance(value, str):
                out.append(Address("ip", value, value))
            else:
                out.append(Address("value", display_value(value), display_value(value)))
        if record.alias_target is not None:
            lbs = model.record_load_balancers(record)
            if lbs:
                for lb in lbs:
                    out.append(Address("nlb", lb.resource.key, f"NLB {lb.resource.stack}/{lb.resource.logical_id} (alias)"))
            else:
                out.append(Address("value", display_value(record.alias_target.dns_name), f"alias {display_value(record.alias_target.dns_name)}"))
        return out

    def name_addresses(self, model: TemplateModel, name: str) -> dict[Address, list[RecordSetView]]:
        out: dict[Address, list[RecordSetView]] = {}
        for record in model.record_sets(name):
            for address in self.addresses(model, record):
                out.setdefault(address, []).append(record)
        return out

    def address_fate(self, address: Address, head_addresses: dict[Address, list[RecordSetView]]) -> Status:
        """What happens to one base address of a name: ``unchanged``, ``removed`` (no head record
        answers with it), ``replaced`` / ``may replace`` (its EIP or NLB is)."""
        if address.kind in ("eip", "nlb"):
            st = self.status(address.key)
            if st.status in (REPLACED, MAY_REPLACE):
                return st
            if st.status == REMOVED:
                return Status(REMOVED, ("the resource is removed",))
        if address.kind == "eip":
            eip = self.base.eip(ResourceRef(*address.key))
            for lb in eip.load_balancers if eip is not None else []:
                st = self.status(lb.resource.key)
                if st.status in (REPLACED, MAY_REPLACE, REMOVED):
                    how = "removed" if st.status == REMOVED else st.describe()
                    return Status(MAY_REPLACE if st.status == MAY_REPLACE else REPLACED, (
                        f"its NLB {lb.resource.logical_id} {how}: a new NLB cannot take the EIP while the old one "
                        "holds it (CloudFormation creates before it deletes), so the create fails or the address "
                        "moves only after every connection on the old NLB is cut",
                    ))
        if address not in head_addresses:
            return Status(REMOVED, ("no record answers with it any more",))
        return Status(UNCHANGED)

    @cached_property
    def _users(self) -> tuple[dict[str, list[Resource]], dict[str, list[Resource]]]:
        out: tuple[dict[str, list[Resource]], dict[str, list[Resource]]] = ({}, {})
        for side, model in enumerate((self.base, self.head)):
            for dist in model.distributions:
                for name in dict.fromkeys(o.domain_name for o in dist.origins if isinstance(o.domain_name, str)):
                    out[side].setdefault(name, []).append(dist.resource)
        return out

    def distributions_using(self, model: TemplateModel, name: str) -> list[Resource]:
        """Distributions of ``model`` (base or head) with an origin named ``name``."""
        return list(self._users[0 if model is self.base else 1].get(name, ()))

    @cached_property
    def distribution_views(self) -> tuple[dict[Key, Any], dict[Key, Any]]:
        """(base, head) ``{key: DistributionView}``."""
        return ({d.resource.key: d for d in self.base.distributions}, {d.resource.key: d for d in self.head.distributions})

    @cached_property
    def base_origin_names(self) -> dict[str, str]:
        return self.base.origin_names()

    @cached_property
    def head_origin_names(self) -> dict[str, str]:
        return self.head.origin_names()

    def live_in_head(self, name: str) -> bool:
        """Is ``name`` still an origin after the deploy? Yes when head uses it as an origin; also when
        base used it and head gives no sign it was switched away (every distribution of base
        that used it is gone in head or no longer uses it: that is the safe clean-up)."""
        if name in self.head_origin_names or self._users[1].get(name):
            return True
        if name not in self.base_origin_names:
            return False
        # base's distributions that used it are gone or switched away: the safe clean-up; without
        # any (a metadata marker only), the distribution is outside these templates: still live
        return not self._users[0].get(name)


_LAST: list[tuple[TemplateModel, TemplateModel, Transition]] = []


def transition_of(base: TemplateModel, head: TemplateModel) -> Transition:
    """The Transition of this pair, shared by the rules of one diff (the last two pairs are kept)."""
    for b, h, t in _LAST:
        if b is base and h is head:
            return t
    found = Transition(base, head)
    _LAST.insert(0, (base, head, found))
    del _LAST[2:]
    return found
