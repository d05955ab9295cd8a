"""Suppressions are part of the review: every way a finding is set aside, with its reason and source.

Four ways set a finding aside:

==============================  ===========  ===============================================
CDK ``Validations.acknowledge``  inSource     read from a cdk.out's ``validation-report.json``
Metadata ``edge-origin:acknowledge``  inSource  ``[{"id": "EO-DNS1", "reason": "..."}]``
config ``ignore`` / ``select``   external     ``.edge-origin.yaml`` / ``[tool.edge-origin]``
``--ignore`` / ``--select``      external     the command line
==============================  ===========  ===============================================

Each needs a reason. One without is not applied (its findings stay open) and is itself an
error finding, ``EO-ACK1``, naming where it is (as cdk-nag refuses an acknowledgement without a
reason). A finding that is set aside keeps its place in every format, with its
``Finding.suppression`` (kind, source, reason, where): text and JSON list it, SARIF keeps the
result with ``suppressions``, JUnit marks it skipped, the review counts it.

``split_findings(model, findings, settings)`` does the sorting; ``setting_changes`` and
``acknowledgement_changes`` say what a change adds or widens (the top of ``diff`` and the
review, ``review.diff_suppressions``).

Layer 4. May import: core, model, rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from edge_origin.core.escape import reason_text
from edge_origin.core.fast_dataclass import dataclass, replace
from edge_origin.core.findings import Finding, Severity, Suppression
from edge_origin.model import TemplateModel
from edge_origin.rules import ACKNOWLEDGE_METADATA_KEY
from edge_origin.rules.selection import RuleSelection

#: The rule id of "a suppression without a reason" (and of a malformed one).
ACK_RULE = "EO-ACK1"
ACK_TITLE = "Suppression without a reason"
ACK_CATCHES = (
    "A CDK acknowledgement, a template Metadata edge-origin:acknowledge entry, a config file's ignore/select "
    "or an --ignore without a reason (or malformed): it is not applied, and this error names where it is."
)
ACK_FIX = (
    'Give the reason: Metadata [{"id": "EO-DNS1", "reason": "..."}]; config ignore: {EO-DNS1: "reason"} '
    '(or - "EO-DNS1: reason"); --ignore "EO-DNS1: reason".'
)

METADATA_SOURCE = f"template Metadata {ACKNOWLEDGE_METADATA_KEY}"
CDK_SOURCE = "CDK Validations.acknowledge (cdk.out validation-report.json)"


@dataclass(frozen=True)
class SetAside:
    """One ``ignore`` or ``select`` entry of a config file or the command line.

    ``action``: ``ignore`` | ``select``; ``selectors``: rule ids or prefixes; ``where``: the file
    and key (``/repo/.edge-origin.yaml ignore``) or the flag (``--ignore``); ``reason``: "" when
    none was given (then the entry is not applied and is an ``EO-ACK1`` finding)."""

    action: str
    selectors: tuple[str, ...]
    reason: str
    where: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "reason", reason_text(self.reason))  # one that shows nothing is none

    @property
    def from_flag(self) -> bool:
        return self.where.startswith("--")

    def matches(self, rule_id: str) -> bool:
        return any(rule_id.upper().startswith(s) for s in self.selectors)


@dataclass(frozen=True)
class Settings(RuleSelection):
    """A RuleSelection that remembers where each selector came from and why.

    ``select`` / ``ignore`` hold only the entries that apply (those with a reason, and a bare
    ``--select``: the user narrowing their own run); ``entries`` holds every entry."""

    entries: tuple[SetAside, ...] = ()

    @classmethod
    def of(cls, entries: Iterable[SetAside]) -> Settings:
        entries = tuple(entries)
        applied = [e for e in entries if e.reason or (e.action == "select" and e.from_flag)]
        flag_select = [e for e in applied if e.action == "select" and e.from_flag]
        select_from = flag_select or [e for e in applied if e.action == "select"]  # --select replaces the file's
        select = tuple(dict.fromkeys(s for e in select_from for s in e.selectors))
        ignore = tuple(dict.fromkeys(s for e in applied if e.action == "ignore" for s in e.selectors))
        return cls(select=select, ignore=ignore, entries=entries)

    def reason(self, rule_id: str) -> str:
        """Why ``rule_id`` is left out, naming the file or flag and the reason ("" when it is not)."""
        why = self.suppression_for(rule_id)
        return f"{why.source}: {why.reason}" if why is not None else ""

    def suppression_for(self, rule_id: str) -> Suppression | None:
        """The config/flag suppression that sets ``rule_id`` aside, or None."""
        if self.select and not any(rule_id.upper().startswith(s) for s in self.select):
            chosen = [e for e in self.entries if e.action == "select" and (e.reason or e.from_flag)]
            flags = [e for e in chosen if e.from_flag]
            chosen = flags or chosen
            where = chosen[0].where if chosen else "select"
            reason = "; ".join(e.reason for e in chosen if e.reason) or "not selected on the command line"
            return Suppression("external", f"not selected ({where}: {', '.join(self.select)})", reason, where)
        for e in self.entries:
            if e.action == "ignore" and e.reason and e.matches(rule_id):
                return Suppression("external", f"ignored ({e.where}: {', '.join(e.selectors)})", e.reason, e.where)
        return None


def _ack_error(message: str, template: str = "", stack: str = "", resource: str = "", path: str = "") -> Finding:
    return Finding(ACK_RULE, Severity.ERROR, message, ACK_FIX, template, stack, resource, path)


def setting_errors(settings: RuleSelection | None) -> list[Finding]:
    """An ``EO-ACK1`` error for every config/flag ``ignore`` (and config ``select``) without a reason."""
    out = []
    for e in getattr(settings, "entries", ()):
        if not e.reason and not (e.action == "select" and e.from_flag):
            out.append(_ack_error(
                f"{e.where} {', '.join(e.selectors)} has no reason: not applied (every suppression needs one)",
                template=e.where.split(" ", 1)[0] if not e.from_flag else "",
                resource=e.where if e.from_flag else e.where.rsplit(" ", 1)[-1],
            ))
    return out


def metadata_acknowledgements(model: TemplateModel) -> tuple[dict[tuple[str, str], dict[str, Suppression]], list[Finding]]:
    """``{(stack, logical id): {rule id: Suppression}}`` from Metadata and from CDK's
    validation report, and an ``EO-ACK1`` error for each Metadata entry without a reason or malformed."""
    acks: dict[tuple[str, str], dict[str, Suppression]] = {}
    errors: list[Finding] = []
    by_path = model.acknowledged_paths  # empty unless a cdk.out's validation report acknowledged some
    for res in model.resources:
        for rule, reason in by_path.get(res.path, {}).items() if by_path and res.path else ():
            acks.setdefault(res.key, {})[rule.upper()] = Suppression("inSource", CDK_SOURCE, reason, res.path)
        entries = res.metadata.get(ACKNOWLEDGE_METADATA_KEY) if isinstance(res.metadata, dict) else None
        if entries is None:
            continue
        where = f"{res.stack}/{res.logical_id} Metadata {ACKNOWLEDGE_METADATA_KEY}"
        for entry in entries if isinstance(entries, list) else [entries]:
            rule = entry.get("id") if isinstance(entry, dict) else None
            reason = reason_text(entry.get("reason")) if isinstance(entry, dict) else ""
            if not isinstance(rule, str) or not rule.strip():
                errors.append(_ack_error(f"{where}: an entry without an \"id\" (a list of {{\"id\", \"reason\"}} is expected)",
                                         res.template, res.stack, res.logical_id, res.path))
            elif not reason:
                errors.append(_ack_error(f"{where}: {rule} has no reason: not applied (every acknowledgement needs one)",
                                         res.template, res.stack, res.logical_id, res.path))
            else:
                acks.setdefault(res.key, {})[rule.strip().upper()] = Suppression("inSource", METADATA_SOURCE, reason, res.template)
    return acks, errors


def cdk_acknowledgement_errors(model: TemplateModel) -> list[Finding]:
    """An ``EO-ACK1`` error for each finding CDK suppressed for the EdgeOrigin pack without a
    reason (a cdk.out's ``validation-report.json`` beside the templates): the loader does not
    apply those (the finding stays open); this says where they are."""
    from edge_origin.core.files import InputFileError, load_data_file

    reports = {Path(t.template).parent / "validation-report.json" for t in model.templates.values() if t.template}
    reports |= {r.parent.parent / "validation-report.json" for r in list(reports)}  # nested Stage assemblies
    errors: list[Finding] = []
    for report in sorted(r for r in reports if r.is_file()):
        try:
            doc = load_data_file(report)
        except (InputFileError, ValueError):
            continue  # the loader already listed it as unreadable
        plugins = doc.get("pluginReports") if isinstance(doc, dict) else None
        for plugin in plugins if isinstance(plugins, list) else []:  # a malformed report: the loader names it
            if not isinstance(plugin, dict) or plugin.get("pluginName") != "EdgeOrigin":
                continue
            items = plugin.get("suppressedViolations")
            for item in items if isinstance(items, list) else []:
                if not isinstance(item, dict) or reason_text(item.get("reason")):
                    continue
                rule = str(item.get("ruleName", "")).removeprefix("EdgeOrigin-")
                constructs = item.get("violatingConstructs")
                for construct in constructs if isinstance(constructs, list) else []:
                    where = construct.get("constructPath", "?") if isinstance(construct, dict) else "?"
                    errors.append(_ack_error(
                        f"{report}: CDK acknowledgement of {rule} on {where} has no reason: not applied (every acknowledgement needs one)",
                        template=str(report), path=str(where),
                    ))
    return errors


@dataclass(frozen=True)
class Split:
    """Findings sorted: ``open`` (they count; ``EO-ACK1`` errors among them), ``acknowledged``
    (each with its ``suppression``)."""

    open: list[Finding]
    acknowledged: list[Finding]


def with_paths(model: TemplateModel, findings: Iterable[Finding]) -> list[Finding]:
    """``findings`` with ``path`` (the construct path, ``aws:cdk:path``) filled from the model where a rule left it empty."""
    out = []
    for f in findings:
        if not f.path and f.resource:
            res = model.resource(f.stack, f.resource)
            if res is not None and res.path:
                f = replace(f, path=res.path)
        out.append(f)
    return out


def split_findings(model: TemplateModel, findings: Sequence[Finding], settings: RuleSelection | None = None) -> Split:
    """Sort ``findings`` (run with ``honour_acknowledgements=False``) into open and acknowledged.

    In-source acknowledgements (CDK, Metadata) come first, then the config file and the flags.
    A plain ``RuleSelection`` (no reasons known) sets aside with the reason "left out"."""
    acks, errors = metadata_acknowledgements(model)
    errors += cdk_acknowledgement_errors(model) + setting_errors(settings)
    open_, acknowledged = [], []
    for f in with_paths(model, findings):
        why = acks.get((f.stack, f.resource), {}).get(f.rule.upper())
        if why is None and settings:
            why = settings.suppression_for(f.rule) if isinstance(settings, Settings) else (
                Suppression("external", settings.reason(f.rule), "left out by the rule selection") if not settings.allows(f.rule) else None
            )
        if why is None:
            open_.append(f)
        else:
            acknowledged.append(replace(f, suppression=why))
    return Split([*errors, *open_], acknowledged)


# --- what a change adds or widens ------------------------------------------------------------------
def _ack_keys(model: TemplateModel) -> dict[tuple[str, str, str], str]:
    acks, _ = metadata_acknowledgements(model)
    return {(stack, lid, rule): s.reason for (stack, lid), rules in acks.items() for rule, s in rules.items()}


def acknowledgement_changes(base: TemplateModel, head: TemplateModel) -> list[str]:
    """One line for each acknowledgement head adds (or whose reason it changes), in words."""
    before, after = _ack_keys(base), _ack_keys(head)
    out = []
    for (stack, lid, rule), reason in sorted(after.items()):
        if (stack, lid, rule) not in before:
            out.append(f"adds an acknowledgement of {rule} on {stack}/{lid}: {reason}")
        elif before[(stack, lid, rule)] != reason:
            out.append(f"changes the reason of the acknowledgement of {rule} on {stack}/{lid}: {reason}")
    return out


def setting_changes(base: Settings, head: Settings, base_fail_on: str | None = None, head_fail_on: str | None = None) -> list[str]:
    """One line for each way ``head``'s config sets more aside than ``base``'s: an ignore added
    or widened (a shorter prefix), a select added or narrowed, fail-on raised."""
    out = []
    from edge_origin.rules import CATALOGUE

    ids = [r.id for r in CATALOGUE]
    base_off = {i for i in ids if not base.allows(i)}
    for i in ids:
        if i not in base_off and not head.allows(i):
            why = head.suppression_for(i)
            out.append(f"config sets {i} aside ({why.source if why else 'left out'}): {why.reason if why else ''}".rstrip(": "))
    for e in head.entries:
        if not e.reason and e not in base.entries:
            out.append(f"config adds {e.action} {', '.join(e.selectors)} without a reason ({e.where}): not applied")
    rank = {"info": 0, "warning": 1, "error": 2}
    if head_fail_on and rank.get(head_fail_on, 2) > rank.get(base_fail_on or "error", 2):
        out.append(f"config raises fail-on from {base_fail_on or 'error'} to {head_fail_on}")
    return out


__all__ = [
    "ACK_RULE",
    "SetAside",
    "Settings",
    "Split",
    "acknowledgement_changes",
    "metadata_acknowledgements",
    "setting_changes",
    "setting_errors",
    "split_findings",
    "with_paths",
]
