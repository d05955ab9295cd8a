"""Running the rules over templates, and rendering findings as text, JSON, Markdown or SARIF."""

from __future__ import annotations

import gc
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from edge_origin.core.escape import (
    MAX_SUMMARY_BYTES,
    budget_lines,
    gha_data,
    gha_property,
    md_code,
    md_text,
    plain,
)
from edge_origin.core.fast_dataclass import asdict, dataclass, field
from edge_origin.core.findings import Finding, Severity
from edge_origin.core.lazy_re import lazy
from edge_origin.model import TemplateModel, load_model
from edge_origin.review.sarif import FINGERPRINT_KEY  # re-exported: the key's old home
from edge_origin.rules import ADVISORY_RULES, RULES, RULES_BY_ID, at_or_above, run_rules

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

FORMATS = ("text", "json", "markdown", "sarif", "github", "junit")
SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note", Severity.NOT_CHECKED: "none"}
#: GitHub workflow command per severity (``--format github``: annotations in the Actions log).
GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice", Severity.NOT_CHECKED: "warning"}
#: Bytes of the findings table in ``--format markdown`` (the rest is counted, not shown).
MARKDOWN_FINDINGS_BYTES = MAX_SUMMARY_BYTES - 50_000


@dataclass(frozen=True)
class CheckResult:
    """Findings over every template that could be read; ``unreadable`` lists ``(file, message)``
    of those that could not (bad input), which were left out. ``findings`` are the open ones
    (an ``EO-ACK1`` error for each suppression without a reason among them); ``acknowledged``
    those set aside, each with its ``suppression`` (``edge_origin.review.suppressions``)."""

    model: TemplateModel
    findings: list[Finding]
    acknowledged: list[Finding] = field(default_factory=list)

    @property
    def unreadable(self) -> list[tuple[str, str]]:
        return list(self.model.unreadable)

    def failing(self, fail_on: Severity) -> list[Finding]:
        return at_or_above(self.findings, fail_on)


def check_paths(paths: Sequence[str | Path], *, advisory: bool = False, settings: object = None) -> CheckResult:
    """Load the templates and run every rule (``advisory``: also the advisory rules, e.g. EO-WATCH1,
    a long-lived origin without an imbalance alarm). A file that is bad input is listed in
    ``result.unreadable`` and the rest is checked; ModelError only when no file could be read.
    ``settings`` (a RuleSelection, or ``suppressions.Settings`` with reasons): which rules' findings
    are set aside; acknowledged findings land in ``result.acknowledged``.

    The cyclic garbage collector is paused meanwhile: the model is acyclic and bounded by the
    input size limit, and full collections over a growing heap made 10k-resource checks
    superlinear.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        from edge_origin.review.suppressions import split_findings
        from edge_origin.review.unreadable import unreadable_findings

        model = load_model(paths, strict=False)
        found = run_rules(model, (*RULES, *ADVISORY_RULES) if advisory else RULES, honour_acknowledgements=False)
        split = split_findings(model, found, settings)  # type: ignore[arg-type]
        # a file that could not be read is a finding (EO-READ1) in every format, never only a stderr line
        return CheckResult(model, [*split.open, *unreadable_findings(model.unreadable)], split.acknowledged)
    finally:
        if paused:
            gc.enable()


def parse_severity(value: str) -> Severity:
    """``error`` | ``warning`` | ``info`` -> Severity; ValueError naming the allowed values."""
    try:
        return Severity(value.lower())
    except ValueError:
        raise ValueError(f"unknown severity {value!r} (allowed: error, warning, info)") from None


def _counts(findings: Sequence[Finding]) -> str:
    parts = [f"{sum(f.severity is s for f in findings)} {s.value}(s)" for s in Severity if s is not Severity.NOT_CHECKED]
    unchecked = sum(f.severity is Severity.NOT_CHECKED for f in findings)
    if unchecked:
        parts.append(f"{unchecked} rule(s) could not be checked")
    return ", ".join(parts)


def _is_not_judged(f: Finding) -> bool:
    return f.severity is Severity.NOT_CHECKED or f.message.startswith("not judged")


@dataclass(frozen=True)
class Summary:
    """The one summary line of a run, the same counts in every format.

    ``passed``: rules that ran and left no open finding; ``failed``: open findings at or above
    ``fail_on`` (what exits 1); ``below``: open findings under it; ``acknowledged``: findings set
    aside with a reason; ``not_judged``: findings that say what could not be judged;
    ``baseline``: findings in a ``--baseline`` (they pass); ``fixed``: baseline entries no longer found."""

    passed: int
    failed: int
    below: int
    acknowledged: int
    not_judged: int
    fail_on: str = "error"
    baseline: int = 0
    fixed: int = 0

    def line(self) -> str:
        text = (
            f"{self.passed} passed, {self.failed} failed, {self.acknowledged} acknowledged, {self.not_judged} not judged"
            f" ({self.below} below fail-on {self.fail_on}"
        )
        if self.baseline or self.fixed:
            text += f"; {self.baseline} in the baseline, {self.fixed} fixed"
        return text + ")"

    def to_dict(self) -> dict[str, object]:
        return {
            "passed": self.passed, "failed": self.failed, "below_fail_on": self.below, "acknowledged": self.acknowledged,
            "not_judged": self.not_judged, "fail_on": self.fail_on, "baseline": self.baseline, "fixed": self.fixed,
        }


def summarize(
    findings: Sequence[Finding],
    acknowledged: Sequence[Finding] = (),
    *,
    rules: Sequence[object] = (),
    fail_on: Severity = Severity.ERROR,
    baseline: Sequence[Finding] = (),
    fixed: int = 0,
) -> Summary:
    """Count a run: ``findings`` open (``baseline``: those a baseline lets pass, not in ``findings``)."""
    judged = [f for f in findings if not _is_not_judged(f)]
    found_rules = {f.rule for f in findings}
    return Summary(
        passed=sum(getattr(r, "id", "") not in found_rules for r in rules),
        failed=sum(f.severity.at_least(fail_on) for f in judged),
        below=sum(not f.severity.at_least(fail_on) for f in judged),
        acknowledged=len(acknowledged),
        not_judged=len(findings) - len(judged),
        fail_on=fail_on.value,
        baseline=len(baseline),
        fixed=fixed,
    )


def _where(f: Finding) -> str:
    s = f.suppression
    return f"{s.source}; {s.where}" if s is not None and s.where else (s.source if s is not None else "")


def format_text(findings: Sequence[Finding], acknowledged: Sequence[Finding] = (), summary: Summary | None = None) -> str:
    """Two lines a finding; every template-controlled part through ``escape.plain`` (one line,
    controls visible, never at the start of a line). Then the acknowledged findings (two lines
    each: the finding, its reason and source) and the summary line."""
    lines = []
    for f in findings:
        lines.append(f"{f.severity.value:<7} {plain(f.rule):<8} {plain(f.template)} {plain(f.stack)}/{plain(f.resource)}: {plain(f.message)}")
        lines.append(f"        fix: {plain(f.fix)}")
    lines.append(f"{len(findings)} finding(s): {_counts(findings)}" if findings else "no findings")
    if acknowledged:
        lines.append(f"acknowledged: {len(acknowledged)} finding(s) set aside, each with its reason")
        for f in acknowledged:
            lines.append(f"ack     {plain(f.rule):<8} {plain(f.template)} {plain(f.stack)}/{plain(f.resource)}: {plain(f.message)}")
            lines.append(f"        reason: {plain(f.suppression.reason if f.suppression else '')} ({plain(_where(f))})")
    if summary is not None:
        lines.append(f"summary: {summary.line()}")
    return "\n".join(lines) + "\n"


def format_github(findings: Sequence[Finding], acknowledged: Sequence[Finding] = (), summary: Summary | None = None) -> str:
    """One GitHub Actions annotation a finding (``::error file=...,line=...,title=...::message``),
    properties and data escaped as GitHub's toolkit does (``escape.gha_property`` / ``gha_data``),
    a ``::notice`` for each acknowledged finding (with its reason), then a plain summary line.
    ``file``/``line`` are the source line that made the construct where it can be found
    (``review.placement``), else the template's line; the title names the construct path."""
    from edge_origin.review.placement import Placer

    cache: dict[str, dict[str, int]] = {}
    placer = Placer()
    lines = []
    for f in findings:
        lines.append(_annotation(f, GITHUB_LEVEL[f.severity], f"{f.stack}/{f.resource}: {f.message}. Fix: {f.fix}", cache, placer))
    for f in acknowledged:
        why = f"acknowledged ({_where(f)}): {f.suppression.reason if f.suppression else ''}"
        lines.append(_annotation(f, "notice", f"{f.stack}/{f.resource}: {f.message}. {why}", cache, placer))
    lines.append(f"edge-origin: {len(findings)} finding(s): {_counts(findings)}" if findings else "edge-origin: no findings")
    if summary is not None:
        lines.append(f"edge-origin: {summary.line()}")
    return "\n".join(lines) + "\n"


def _annotation(f: Finding, level: str, data: str, cache: dict[str, dict[str, int]], placer: object = None) -> str:
    from urllib.parse import unquote

    place = placer.source(f.template, f.path) if placer is not None and f.template and f.path else None  # type: ignore[attr-defined]
    props = []
    if place is not None and place.base:
        props += [f"file={gha_property(unquote(place.uri))}", f"line={place.line}"]
    elif f.template:
        props += [f"file={gha_property(Path(f.template).as_posix())}", f"line={_line_of(f.template, f.resource, cache)}"]
    construct = f.path or f"{f.stack}/{f.resource}"
    props.append(f"title={gha_property(f'{f.rule} {construct}')}")
    return f"::{level} {','.join(props)}::{gha_data(data)}"


def format_json(
    findings: Sequence[Finding],
    unreadable: Sequence[tuple[str, str]] = (),
    acknowledged: Sequence[Finding] = (),
    summary: Summary | None = None,
    notices: Sequence[str] = (),
    fixed: Sequence[Any] = (),
) -> str:
    """``{"findings": [...], "acknowledged": [...]}`` (each acknowledged finding with its
    ``suppression``: kind, source, reason, where), ``unreadable`` and ``summary`` when known.
    Strings are data: kept exact (JSON escapes what it must)."""
    doc: dict[str, object] = {"findings": [f.to_dict() for f in findings], "acknowledged": [f.to_dict() for f in acknowledged]}
    if unreadable:
        doc["unreadable"] = [{"file": path, "error": message} for path, message in unreadable]
    if summary is not None:
        doc["summary"] = summary.to_dict()
    if notices:
        doc["notices"] = list(notices)
    if fixed:
        doc["fixed"] = [asdict(e) for e in fixed]
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def markdown_rows(findings: Sequence[Finding], *, template: bool = True) -> list[str]:
    """The findings table rows (``| Severity | Rule | Resource | Message | Fix |``), every
    template-controlled string escaped (``escape.md_code`` / ``md_text``)."""
    rows = []
    for f in findings:
        where = f" ({md_text(Path(f.template).name)})" if template and f.template else ""
        rows.append(f"| {f.severity.value} | {md_text(f.rule)} | {md_code(f'{f.stack}/{f.resource}')}{where} | {md_text(f.message)} | {md_text(f.fix)} |")
    return rows


def budgeted_rows(rows: list[str], budget: int, what: str = "findings") -> list[str]:
    """``rows`` within ``budget`` bytes; when some are left out, a note after the table says how many."""
    kept, left = budget_lines(rows, budget)
    if left:
        return [*kept, "", f"_{left} more {what} not shown (size limit): `edge-origin check --format sarif` lists all._"]
    return kept


def acknowledged_rows(findings: Sequence[Finding]) -> list[str]:
    """The acknowledged-findings table rows (``| Rule | Resource | Reason | Source |``), escaped."""
    rows = []
    for f in findings:
        s = f.suppression
        rows.append(
            f"| {md_text(f.rule)} | {md_code(f'{f.stack}/{f.resource}')} | {md_text(s.reason if s else '')} | "
            f"{md_text(_where(f))} |"
        )
    return rows


ACKNOWLEDGED_HEADER = ["| Rule | Resource | Reason | Source |", "|---|---|---|---|"]


def format_markdown(findings: Sequence[Finding], acknowledged: Sequence[Finding] = (), summary: Summary | None = None) -> str:
    lines = ["No findings."] if not findings else ["| Severity | Rule | Resource | Message | Fix |", "|---|---|---|---|---|"]
    if findings:
        lines += budgeted_rows(markdown_rows(findings), MARKDOWN_FINDINGS_BYTES // 2)
        lines += ["", f"{len(findings)} finding(s): {_counts(findings)}"]
    if acknowledged:
        lines += ["", f"Acknowledged ({len(acknowledged)}):", "", *ACKNOWLEDGED_HEADER]
        lines += budgeted_rows(acknowledged_rows(acknowledged), MARKDOWN_FINDINGS_BYTES // 2, "acknowledged findings")
    if summary is not None:
        lines += ["", f"Summary: {summary.line()}"]
    return "\n".join(lines) + "\n"




def _key_of(line: str) -> str | None:
    """The mapping key a JSON or YAML line starts with (``"Key":`` or ``Key:``), else None: plain
    string scans, linear in the line (a regex with a lazy run before ``\\s*:`` was quadratic on a
    line of 300,000 spaces)."""
    text = line.lstrip()
    if not text:
        return None
    if text[0] == '"':
        end = text.find('"', 1)
        return text[1:end] if end > 0 and text[end + 1 :].lstrip().startswith(":") else None
    if text[0] in "#:":
        return None
    colon = text.find(":")
    return text[:colon].rstrip() if colon > 0 else None


def _line_of(template: str, logical_id: str, cache: dict[str, dict[str, int]]) -> int:
    """The first line where ``logical_id`` is a mapping key (JSON or YAML), else 1: each file
    read (through the safe reader: a regular file within ``--max-file-mib``) and indexed once, so
    many findings cost one pass (linear, not lines x findings)."""
    if template not in cache:
        from edge_origin.core.files import InputFileError, read_bytes_file
        from edge_origin.core.limits import current

        index: dict[str, int] = {}
        try:
            text = read_bytes_file(template, current().file_bytes).decode("utf-8", "replace")
        except InputFileError:
            text = ""
        for number, line in enumerate(text.splitlines(), start=1):
            key = _key_of(line)
            if key is not None:
                index.setdefault(key, number)
        cache[template] = index
    return cache[template].get(logical_id, 1)


_NUMBER = lazy(r"\b\d+(?:\.\d+)*\b")


def finding_fingerprints(findings: Sequence[Finding]) -> list[str]:
    """A stable fingerprint per finding (same order): rule id + stack + logical id + the finding's
    ordinal among those of the same rule and resource. Independent of the message (numbers and
    wording change between commits) and of the template path (main's cdk.out vs the PR's), so
    code scanning tracks a finding across commits. Ordinals follow the messages with numbers
    blanked, so a changed number does not reorder them."""
    import hashlib  # SARIF, baselines and diff only: a plain check does not load it

    groups: dict[tuple[str, str, str], list[int]] = {}
    for i, f in enumerate(findings):
        groups.setdefault((f.rule, f.stack, f.resource), []).append(i)
    out = [""] * len(findings)
    for (rule, stack, resource), members in groups.items():
        members.sort(key=lambda i: (_NUMBER.sub("#", findings[i].message), findings[i].message))
        for ordinal, i in enumerate(members):
            out[i] = hashlib.sha256(f"{rule}\0{stack}\0{resource}\0{ordinal}".encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return out


def format_sarif(
    findings: Sequence[Finding],
    *,
    baseline_state: Mapping[int, str] | None = None,
    acknowledged: Sequence[Finding] = (),
    summary: Summary | None = None,
    notices: Sequence[str] = (),
    fixed: Sequence[Any] = (),
) -> str:
    """SARIF 2.1.0 (``edge_origin.review.sarif``): one run, the rule catalogue as the driver's rules,
    each result with ``partialFingerprints`` (see ``finding_fingerprints``), its construct path,
    its place in the user's source where it can be found; ``baseline_state`` maps an index of
    ``findings + acknowledged`` to its ``baselineState``; ``acknowledged`` findings carry ``suppressions``."""
    from edge_origin.review.sarif import format_sarif as _format

    everything = [*findings, *acknowledged]
    cache: dict[str, dict[str, int]] = {}
    return _format(
        findings, fingerprints=finding_fingerprints(everything), line_of=lambda t, r: _line_of(t, r, cache),
        baseline_state=baseline_state, acknowledged=acknowledged, summary=summary, notices=notices, fixed=fixed,
    )


def format_findings(
    findings: Sequence[Finding],
    fmt: str,
    unreadable: Sequence[tuple[str, str]] = (),
    *,
    acknowledged: Sequence[Finding] = (),
    summary: Summary | None = None,
    notices: Sequence[str] = (),
    fixed: Sequence[Any] = (),
) -> str:
    """Render findings in one of ``FORMATS``; ValueError naming the allowed formats.

    ``unreadable`` files are listed in the JSON (``"unreadable": [{"file", "error"}]``); the
    other formats leave them to the caller (the CLI prints one line each on stderr).
    ``acknowledged`` findings (with their suppression) and the ``summary`` are shown in every format;
    ``notices`` (what a change sets aside beyond the settings in use) come first; ``fixed``
    (``review.baseline.BaselineEntry``: baseline entries no finding matched) are listed as fixed.
    """
    if fmt == "junit":  # edge_origin.review.junit.format_junit takes the rules run and --fail-on too
        from edge_origin.review.junit import format_junit

        return format_junit(findings, rules=RULES, unreadable=unreadable, acknowledged=acknowledged, summary=summary, notices=notices)
    if fmt == "json":
        return format_json(findings, unreadable, acknowledged, summary, notices, fixed)
    if fmt == "sarif":
        return format_sarif(findings, acknowledged=acknowledged, summary=summary, notices=notices, fixed=fixed)
    renderers = {"text": format_text, "markdown": format_markdown, "github": format_github}
    if fmt not in renderers:
        raise ValueError(f"unknown format {fmt!r} (allowed: {', '.join(FORMATS)})")
    return notice_lines(notices, fmt) + renderers[fmt](findings, acknowledged, summary) + fixed_lines(fixed, fmt)


def fixed_lines(fixed: Sequence[Any], fmt: str) -> str:
    """The baseline entries no finding matched any more: what was fixed since the baseline."""
    if not fixed:
        return ""
    items = [f"{e.rule} {e.stack}/{e.resource}" + (f" ({e.path})" if e.path else "") for e in fixed]
    if fmt == "markdown":
        return "\n".join(["", f"Fixed since the baseline ({len(fixed)}):", "", *(f"- {md_text(i)}" for i in items)]) + "\n"
    if fmt == "github":
        return "".join(f"::notice title=edge-origin fixed::{gha_data(i)} is fixed since the baseline\n" for i in items)
    return f"fixed since the baseline: {len(fixed)}\n" + "".join(f"fixed   {plain(i)}\n" for i in items)


def notice_lines(notices: Sequence[str], fmt: str) -> str:
    """The top of a text, Markdown or GitHub-annotation output when a change sets more aside."""
    if not notices:
        return ""
    if fmt == "markdown":
        return "\n".join(["> [!WARNING]", *(f"> {md_text(n)}" for n in notices)]) + "\n\n"
    if fmt == "github":
        return "".join(f"::warning title=edge-origin suppression change::{gha_data(n)}\n" for n in notices)
    return "".join(f"NOTE: this change {plain(n)}\n" for n in notices)


__all__ = [
    "FINGERPRINT_KEY",
    "FORMATS",
    "RULES_BY_ID",
    "CheckResult",
    "Summary",
    "summarize",
    "check_paths",
    "finding_fingerprints",
    "format_findings",
    "format_github",
    "format_sarif",
    "parse_severity",
]
