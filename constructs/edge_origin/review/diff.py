"""The change model of ``edge-origin diff``: loading both sides, the change list per origin name, which
findings are new, fixed or about the transition. How a result is shown: ``edge_origin.review.diff_render``."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import (
    ListenerView,
    ModelError,
    RecordSetView,
    TemplateModel,
    display_value,
    load_model,
)
from edge_origin.model.transition import (
    ADDED,
    MAY_REPLACE,
    REMOVED,
    REPLACED,
    UNCHANGED,
    UPDATED,
    Status,
    Transition,
    record_key,
    record_label,
    route53_identity,
    transition_of,
)
from edge_origin.profile import PROFILE_METADATA_KEY
from edge_origin.review.checker import finding_fingerprints
from edge_origin.review.quota_crossings import QuotaCount, quota_crossings
from edge_origin.rules import acknowledgements, run_rules, run_transition_rules
from edge_origin.rules.ka_profile import CF_DEFAULT_KEEPALIVE, CF_DEFAULT_READ, NLB_DEFAULT_IDLE


class DiffInputError(ModelError):
    """Bad input to a diff: one line naming the side (--base / --head), the path and the problem."""


@dataclass(frozen=True)
class Change:
    """One change on an origin path. ``kind``: record | eip | nlb | listener | distribution;
    ``field``: what changed (``record`` / ``eip`` / ``nlb`` / ``listener`` for the resource
    itself, else ``routing_policy``, ``ttl``, ``values``, ``health_check``, ``set_identifier``,
    ``replaced``, ``idle_timeout``, ``origin <id> keepalive_timeout``...); ``before`` / ``after``
    are None when absent on that side; ``note`` says what it means."""

    name: str
    stack: str
    logical_id: str
    kind: str
    field: str
    before: Any
    after: Any
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class DiffResult:
    base: TemplateModel
    head: TemplateModel
    transition: Transition
    changes: list[Change]
    transition_findings: list[Finding]
    head_findings: list[Finding]
    new: set[int] = field(default_factory=set)
    """Indexes into ``head_findings`` of the findings base does not have (by fingerprint), or has at a
    lower severity (a warning in base that is an error in head)."""
    fixed: list[Finding] = field(default_factory=list)
    """Base's findings that head no longer has: what the change fixes."""
    quotas: list[QuotaCount] = field(default_factory=list)
    """Counts head takes past an AWS default quota (EIPs, NLBs, health checks, records per zone)."""

    def selected(self, selection: Any) -> DiffResult:
        """This result with only the findings of the rules ``selection`` (a RuleSelection) allows."""
        if not selection:
            return self
        keep = [i for i, f in enumerate(self.head_findings) if selection.allows(f.rule)]
        return replace(
            self,
            transition_findings=selection.filter(self.transition_findings),
            head_findings=[self.head_findings[i] for i in keep],
            new={j for j, i in enumerate(keep) if i in self.new},
            fixed=selection.filter(self.fixed),
        )

    @property
    def findings(self) -> list[tuple[Finding, str, bool]]:
        """Every finding as (finding, source ``transition`` | ``head``, new)."""
        out = [(f, "transition", True) for f in self.transition_findings]
        out += [(f, "head", i in self.new) for i, f in enumerate(self.head_findings)]
        return out

    def failing(self, fail_on: Severity, new_only: bool = False) -> list[Finding]:
        """Findings that fail the run: transition findings, and head findings (only the new ones
        with ``new_only``), at or above ``fail_on``."""
        return [f for f, _, new in self.findings if f.severity.at_least(fail_on) and (new or not new_only)]

    @property
    def changed_names(self) -> list[str]:
        return list(dict.fromkeys(c.name for c in self.changes))


# --- loading ------------------------------------------------------------------------------------
def _kind(paths: Sequence[str | Path]) -> str:
    kinds = {
        ("a cloud assembly (cdk.out)" if (Path(p) / "manifest.json").is_file() else "a folder of templates")
        if Path(p).is_dir() else "template files"
        for p in paths
    }
    return kinds.pop() if len(kinds) == 1 else "a mix of kinds"


def _load(side: str, paths: Sequence[str | Path]) -> TemplateModel:
    try:  # paths is never empty here: diff_paths refuses a side without paths first
        return load_model(paths)
    except RecursionError:
        raise DiffInputError(f"{side}: cannot read templates (nested too deeply)") from None
    except ModelError as exc:
        raise DiffInputError(f"{side}: {exc}") from None


def _resolved(flag: str, path: str | Path) -> Path:
    """The absolute path, or one line naming the flag (a NUL byte, a symlink loop)."""
    try:
        return Path(path).resolve()
    except (OSError, ValueError, RuntimeError) as exc:
        raise DiffInputError(f"{flag} {str(path)!r}: not a usable path ({exc})") from None


def diff_paths(base_paths: Sequence[str | Path], head_paths: Sequence[str | Path]) -> DiffResult:
    """Load both sides and diff them; ``DiffInputError`` (one line) on bad input."""
    if not base_paths or not head_paths:
        raise DiffInputError(f"{'--base' if not base_paths else '--head'}: no paths given (template files or a cdk.out directory)")
    resolved = {_resolved("--base", p): p for p in base_paths}
    for p in head_paths:
        if _resolved("--head", p) in resolved:
            raise DiffInputError(
                f"{p}: the same path is given for --base and --head; compare two versions (e.g. main's cdk.out and the PR's)"
            )
    paused = gc.isenabled()
    gc.disable()
    try:
        base = _load("--base", base_paths)
        head = _load("--head", head_paths)
        common = [s for s in head.stacks if s in base.templates]
        if not common:
            kinds = (_kind(base_paths), _kind(head_paths))
            hint = (
                f"; --base is {kinds[0]} and --head is {kinds[1]}: give both sides the same kind"
                if kinds[0] != kinds[1] else
                "; stack names come from the file names (without .template.json...) or a cdk.out's stack names"
            )
            raise DiffInputError(
                f"no stack in common (base: {', '.join(base.stacks)}; head: {', '.join(head.stacks)}): everything would "
                f"count as removed and added{hint}"
            )
        return diff_models(base, head)
    finally:
        if paused:
            gc.enable()


def diff_models(base: TemplateModel, head: TemplateModel) -> DiffResult:
    """The change list and every finding of deploying ``head`` over ``base``."""
    tr = transition_of(base, head)
    head_acks = acknowledgements(head)
    head_all = run_rules(head, honour_acknowledgements=False)
    head_findings = [f for f in head_all if f.rule not in head_acks.get((f.stack, f.resource), {})]
    # Fingerprints are per (rule, stack, resource): base's full run tells which head findings are
    # new and which of base's findings head no longer has (fixed; acknowledged in head is not fixed).
    base_findings = run_rules(base)
    # a finding base has too, but worse in head (weighted records behind an origin head turns gRPC: base's
    # warnings, head's errors) is new: "already in base" would let the change bring a pile-up
    base_rank = {fp: f.severity.rank for f, fp in zip(base_findings, finding_fingerprints(base_findings), strict=True)}
    new = {i for i, (f, fp) in enumerate(zip(head_findings, finding_fingerprints(head_findings), strict=True))
           if fp not in base_rank or f.severity.rank > base_rank[fp]}
    head_prints = set(finding_fingerprints(head_all))
    fixed = [f for f, fp in zip(base_findings, finding_fingerprints(base_findings), strict=True) if fp not in head_prints]
    transition = run_transition_rules(base, head, head_acknowledgements=head_acks)
    return DiffResult(base, head, tr, _one_line_per_fact(_changes(tr)), transition, head_findings, new, fixed,
                      quota_crossings(base, head))


def _one_line_per_fact(changes: Iterable[Change]) -> list[Change]:
    """The change list without repeats: a fact reached from two origin names (or twice from one,
    e.g. a listener of an NLB two records alias) is listed once, under the first name."""
    seen: set[tuple[str, str, str, str, str, str]] = set()
    out = []
    for c in changes:
        fact = (c.stack, c.logical_id, c.kind, c.field, repr(c.before), repr(c.after))
        if fact not in seen:
            seen.add(fact)
            out.append(c)
    return out


# --- the change list ------------------------------------------------------------------------------
def _policy(record: RecordSetView) -> str:
    return f"weighted {record.weight}" if record.routing_policy == "weighted" and record.weight is not None else record.routing_policy


def _describe(tr: Transition, model: TemplateModel, record: RecordSetView) -> str:
    values = ", ".join(a.label for a in tr.addresses(model, record)) or "-"
    set_id = f" set {display_value(record.set_identifier)}" if record.set_identifier is not None else ""
    ttl = f" TTL {record.ttl}" if record.ttl is not None else ""
    hc = f" health check {record.health_check.resource.logical_id}" if record.health_check else (
        f" health check {display_value(record.health_check_id)}" if record.health_check_id is not None else " no health check"
    )
    return f"{record.type or '?'} {_policy(record)}{set_id}{ttl} -> {values};{hc}"


TAG_PROPERTIES = ("Tags", "HealthCheckTags")


def _shown(st: Status) -> bool:
    """Worth a line: anything but unchanged and tag-only updates."""
    if st.status == UNCHANGED:
        return False
    return not (st.status == UPDATED and all(r.split(" ", 1)[0] in TAG_PROPERTIES for r in st.reasons))


def _hc_text(tr: Transition, record: RecordSetView, after: bool) -> str | None:
    if record.health_check is None:
        return display_value(record.health_check_id) if record.health_check_id is not None else None
    hc = record.health_check
    text = f"{hc.resource.logical_id} {hc.type or '?'}:{hc.port if hc.port is not None else '-'}"
    if after:
        st = tr.status(hc.resource.key)
        if st.status != ADDED and _shown(st):
            text += f" ({st.describe()})"
    return text


def _values_text(tr: Transition, model: TemplateModel, record: RecordSetView, after: bool) -> str:
    parts = []
    for address in tr.addresses(model, record):
        label = address.label
        if after and address.kind in ("eip", "nlb"):
            st = tr.status(address.key)
            if st.status in (REPLACED, MAY_REPLACE):
                label += f" ({st.status})"
        parts.append(label)
    return ", ".join(parts) or "-"


def _same_resource(model: TemplateModel, record: RecordSetView) -> RecordSetView | None:
    """The plain record set with the same stack and logical id in ``model`` under another name."""
    if record.member_index is not None:
        return None
    res = model.resource(*record.resource.key)
    if res is None or res.type != record.resource.type:
        return None
    for other in model.record_sets(res.properties.get("Name")) if isinstance(res.properties.get("Name"), str) else []:
        if other.resource is res and other.name != record.name:
            return other
    return None


def _record_changes(tr: Transition, name: str) -> Iterable[Change]:
    base, head = tr.base, tr.head
    before = {record_key(r): r for r in base.record_sets(name)}
    after = {record_key(r): r for r in head.record_sets(name)}
    base_ids = {route53_identity(r): r for r in before.values()}
    head_ids = {route53_identity(r): r for r in after.values()}
    for key in dict.fromkeys([*before, *after]):
        b, h = before.get(key), after.get(key)
        if h is None and b is not None:
            other = head_ids.get(route53_identity(b))
            note = ""
            same = _same_resource(head, b)
            if same is not None:
                # describe() already reads "replaced (Name ...)": no second "replaced (" around it
                note = (f"the same resource now names {display_value(same.name)}: {tr.status(b.resource.key).describe()}; "
                        "CloudFormation creates the new record first and deletes this one in clean-up")
            elif other is not None and record_key(other) != key:
                where = "another stack" if other.stack != b.stack else "another logical id"
                note = f"moves to {record_label(other)} ({where}): a removal here and an addition there"
            yield Change(name, b.stack, b.label, "record", "record", _describe(tr, base, b), None, note or "removed (deleted in the clean-up phase)")
            continue
        if b is None and h is not None:
            other = base_ids.get(route53_identity(h))
            note = ""
            same = _same_resource(base, h)
            if same is not None:
                note = f"the same resource named {display_value(same.name)} in base: replaced, created before the old record is deleted"
            elif other is not None and record_key(other) != key:
                where = "another stack" if other.stack != h.stack else "another logical id"
                note = f"moved from {record_label(other)} ({where}): an addition here and a removal there"
            yield Change(name, h.stack, h.label, "record", "record", None, _describe(tr, head, h), note or "added")
            continue
        assert b is not None and h is not None
        fields = (
            ("routing_policy", _policy(b), _policy(h)),
            ("set_identifier", display_value(b.set_identifier) if b.set_identifier is not None else None,
             display_value(h.set_identifier) if h.set_identifier is not None else None),
            ("ttl", b.ttl, h.ttl),
            ("values", _values_text(tr, base, b, False), _values_text(tr, head, h, True)),
            ("health_check", _hc_text(tr, b, False), _hc_text(tr, h, True)),
        )
        for fname, old, new in fields:
            if old != new:
                yield Change(name, h.stack, h.label, "record", fname, old, new)
        st = tr.status(h.resource.key)
        if h.member_index is None and st.status in (REPLACED, MAY_REPLACE):
            yield Change(name, h.stack, h.label, "record", "replaced", None, st.describe(),
                         "Route 53 identity changes: CloudFormation creates the new record before deleting the old")


def _resource_change(tr: Transition, name: str, kind: str, key: tuple[str, str], label: str) -> Change | None:
    st = tr.status(key)
    if not _shown(st):
        return None
    before = None if st.status == ADDED else label
    after = None if st.status == REMOVED else label if st.status == ADDED else st.describe()
    note = {REPLACED: "replaced: a new resource, new addresses", MAY_REPLACE: "may be replaced: the schema does not decide"}.get(st.status, st.status)
    return Change(name, key[0], key[1], kind, kind, before, after, note)


def _idle_text(listener: ListenerView) -> str:
    if listener.protocol == "TLS":
        return f"{NLB_DEFAULT_IDLE} (fixed, TLS)"
    return str(listener.idle_timeout) if listener.idle_timeout is not None else f"{NLB_DEFAULT_IDLE} (default)"


def _profile_changes(name: str, key: tuple[str, str], old: ListenerView, new: ListenerView) -> Iterable[Change]:
    """The declared connection profile's fields that differ (Metadata edge-origin:connection-profile)."""
    before = old.resource.metadata.get(PROFILE_METADATA_KEY)
    after = new.resource.metadata.get(PROFILE_METADATA_KEY)
    if before == after:
        return
    b = before if isinstance(before, dict) else {}
    a = after if isinstance(after, dict) else {}
    for field_name in sorted(set(b) | set(a)):
        if field_name != "version" and b.get(field_name) != a.get(field_name):
            yield Change(name, key[0], key[1], "listener", f"profile {field_name}", b.get(field_name), a.get(field_name),
                         "declared connection profile (what the clients and servers are rendered from)")


def _path_changes(tr: Transition, name: str) -> Iterable[Change]:
    base, head = tr.base, tr.head
    eips: dict[tuple[str, str], str] = {}
    for model in (base, head):
        for record in model.record_sets(name):
            for address in tr.addresses(model, record):
                if address.kind == "eip":
                    eips.setdefault(address.key, address.label)
    for key, label in eips.items():
        change = _resource_change(tr, name, "eip", key, label)
        if change is not None:
            yield change
    lbs = {lb.resource.key: lb for model in (base, head) for lb in model.load_balancers_for_name(name)}
    for key, lb in lbs.items():
        change = _resource_change(tr, name, "nlb", key, f"NLB {key[0]}/{key[1]}")
        if change is not None:
            yield change
        old_lb, new_lb = base.load_balancer(lb.resource.ref), head.load_balancer(lb.resource.ref)
        old = {li.resource.key: li for li in (old_lb.listeners if old_lb else [])}
        new = {li.resource.key: li for li in (new_lb.listeners if new_lb else [])}
        for lkey in dict.fromkeys([*old, *new]):
            o, n = old.get(lkey), new.get(lkey)
            if o is not None and n is not None:
                profile = list(_profile_changes(name, lkey, o, n))
                if _idle_text(o) != _idle_text(n):
                    # the declared profile's nlb_idle_timeout_s saying the same is the same fact: one line
                    same = [c for c in profile if c.field == "profile nlb_idle_timeout_s"
                            and str(c.before) == str(o.idle_timeout) and str(c.after) == str(n.idle_timeout)]
                    note = "the declared connection profile's nlb_idle_timeout_s too" if same else ""
                    profile = [c for c in profile if c not in same]
                    yield Change(name, lkey[0], lkey[1], "listener", "idle_timeout", _idle_text(o), _idle_text(n), note)
                yield from profile
                st = tr.status(lkey)
                if st.status in (REPLACED, MAY_REPLACE):
                    yield Change(name, lkey[0], lkey[1], "listener", "listener", lkey[1], st.describe(), st.status)
            elif o is not None:
                yield Change(name, lkey[0], lkey[1], "listener", "listener", f"{o.protocol}:{o.port} idle {_idle_text(o)}", None, "removed")
            elif n is not None:
                yield Change(name, lkey[0], lkey[1], "listener", "listener", None, f"{n.protocol}:{n.port} idle {_idle_text(n)}", "added")
    old_dists, new_dists = tr.distribution_views
    using = [d.key for d in (*tr.distributions_using(base, name), *tr.distributions_using(head, name))]
    for key in dict.fromkeys(using):
        old_d, new_d = old_dists.get(key), new_dists.get(key)
        if old_d is None or new_d is None:
            yield Change(name, key[0], key[1], "distribution", "distribution", key[1] if old_d else None, key[1] if new_d else None,
                         "removed" if new_d is None else "added")
            continue
        old_o = {o.id: o for o in old_d.origins}
        for origin in new_d.origins:
            o = old_o.get(origin.id)
            if o is None or name not in (o.domain_name, origin.domain_name):
                continue
            if o.domain_name != origin.domain_name:
                yield Change(name, key[0], key[1], "distribution", f"origin {origin.id} domain_name",
                             display_value(o.domain_name), display_value(origin.domain_name), "the distribution switches origin name")
            for attr, default in (("keepalive_timeout", CF_DEFAULT_KEEPALIVE), ("read_timeout", CF_DEFAULT_READ)):
                ov, nv = getattr(o, attr), getattr(origin, attr)
                if ov != nv:
                    yield Change(name, key[0], key[1], "distribution", f"origin {origin.id} {attr}",
                                 ov if ov is not None else f"{default} (default)", nv if nv is not None else f"{default} (default)")


def _changes(tr: Transition) -> Iterable[Change]:
    for name in tr.origin_names:
        if tr.name_unchanged(name):
            continue
        yield from _record_changes(tr, name)
        yield from _path_changes(tr, name)


# How a DiffResult is shown lives in review/diff_render.py (presentation, not the change model); the names stay
# importable from here.
from edge_origin.review.diff_render import (  # noqa: E402
    DIFF_FORMATS,
    changes_table,
    findings_table,
    fixed_section,
    format_diff,
    format_diff_junit,
    format_diff_sarif,
    format_json,
    format_markdown,
    format_text,
    quota_section,
)

__all__ = [
    "DIFF_FORMATS", "Change", "DiffInputError", "DiffResult", "changes_table", "diff_models", "diff_paths",
    "findings_table", "fixed_section", "format_diff", "format_diff_junit", "format_diff_sarif", "format_json",
    "format_markdown", "format_text", "quota_section",
]
