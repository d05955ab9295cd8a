"""Running the rules over templates, and rendering findings as text, JSON, Markdown or SARIF."""

from __future__ import annotations

import gc
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from edge_origin.core.escape import (
    MAX_SUMMARY_BYTES,
    budget_lines,
    gha_data,
    gha_property,
    md_code,
    md_text,
    plain,
    sarif_text,
)
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel, load_model
from edge_origin.rules import ADVISORY_RULES, CATALOGUE, RULES, RULES_BY_ID, at_or_above, run_rules

FORMATS = ("text", "json", "markdown", "sarif", "github", "junit")
SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note", Severity.NOT_CHECKED: "none"}
#: GitHub workflow command per severity (``--format github``: annotations in the Actions log).
GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice", Severity.NOT_CHECKED: "warning"}
#: Bytes of the findings table in ``--format markdown`` (the rest is counted, not shown).
MARKDOWN_FINDINGS_BYTES = MAX_SUMMARY_BYTES - 50_000


@dataclass(frozen=True)
class CheckResult:
    """Findings over every template that could be read; ``unreadable`` lists ``(file, message)``
    of those that could not (bad input), which were left out."""

    model: TemplateModel
    findings: list[Finding]

    @property
    def unreadable(self) -> list[tuple[str, str]]:
        return list(self.model.unreadable)

    def failing(self, fail_on: Severity) -> list[Finding]:
        return at_or_above(self.findings, fail_on)


def check_paths(paths: Sequence[str | Path], *, advisory: bool = False) -> CheckResult:
    """Load the templates and run every rule (``advisory``: also the advisory rules, e.g. EO-WATCH1,
    a long-lived origin without an imbalance alarm). A file that is bad input is listed in
    ``result.unreadable`` and the rest is checked; ModelError only when no file could be read.

    The cyclic garbage collector is paused meanwhile: the model is acyclic and bounded by the
    input size limit, and full collections over a growing heap made 10k-resource checks
    superlinear.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        model = load_model(paths, strict=False)
        return CheckResult(model, run_rules(model, (*RULES, *ADVISORY_RULES)) if advisory else run_rules(model))
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


def format_text(findings: Sequence[Finding]) -> str:
    """Two lines a finding; every template-controlled part through ``escape.plain`` (one line,
    controls visible, never at the start of a line)."""
    lines = []
    for f in findings:
        lines.append(f"{f.severity.value:<7} {plain(f.rule):<8} {plain(f.template)} {plain(f.stack)}/{plain(f.resource)}: {plain(f.message)}")
        lines.append(f"        fix: {plain(f.fix)}")
    lines.append(f"{len(findings)} finding(s): {_counts(findings)}" if findings else "no findings")
    return "\n".join(lines) + "\n"


def format_github(findings: Sequence[Finding]) -> str:
    """One GitHub Actions annotation a finding (``::error file=...,line=...,title=...::message``),
    properties and data escaped as GitHub's toolkit does (``escape.gha_property`` / ``gha_data``),
    then a plain summary line."""
    cache: dict[str, dict[str, int]] = {}
    lines = []
    for f in findings:
        props = [f"file={gha_property(Path(f.template).as_posix())}"] if f.template else []
        if f.template:
            props.append(f"line={_line_of(f.template, f.resource, cache)}")
        props.append(f"title={gha_property(f'{f.rule} {f.stack}/{f.resource}')}")
        lines.append(f"::{GITHUB_LEVEL[f.severity]} {','.join(props)}::{gha_data(f'{f.stack}/{f.resource}: {f.message}. Fix: {f.fix}')}")
    lines.append(f"edge-origin: {len(findings)} finding(s): {_counts(findings)}" if findings else "edge-origin: no findings")
    return "\n".join(lines) + "\n"


def format_json(findings: Sequence[Finding], unreadable: Sequence[tuple[str, str]] = ()) -> str:
    doc: dict[str, object] = {"findings": [f.to_dict() for f in findings]}
    if unreadable:
        doc["unreadable"] = [{"file": path, "error": message} for path, message in unreadable]
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


def format_markdown(findings: Sequence[Finding]) -> str:
    if not findings:
        return "No findings.\n"
    lines = ["| Severity | Rule | Resource | Message | Fix |", "|---|---|---|---|---|"]
    lines += budgeted_rows(markdown_rows(findings), MARKDOWN_FINDINGS_BYTES)
    return "\n".join(lines) + f"\n\n{len(findings)} finding(s): {_counts(findings)}\n"


_KEY_LINE = re.compile(r'^\s*(?:"([^"]*)"|([^\s"#:][^:]*?))\s*:')


def _line_of(template: str, logical_id: str, cache: dict[str, dict[str, int]]) -> int:
    """The first line where ``logical_id`` is a mapping key (JSON or YAML), else 1: each file
    read and indexed once, so many findings cost one pass (linear, not lines x findings)."""
    if template not in cache:
        index: dict[str, int] = {}
        try:
            text = Path(template).read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        for number, line in enumerate(text.splitlines(), start=1):
            m = _KEY_LINE.match(line)
            if m:
                index.setdefault(m.group(1) if m.group(1) is not None else m.group(2), number)
        cache[template] = index
    return cache[template].get(logical_id, 1)


FINGERPRINT_KEY = "edgeOriginFinding/v1"
_NUMBER = re.compile(r"\b\d+(?:\.\d+)*\b")


def finding_fingerprints(findings: Sequence[Finding]) -> list[str]:
    """A stable fingerprint per finding (same order): rule id + stack + logical id + the finding's
    ordinal among those of the same rule and resource. Independent of the message (numbers and
    wording change between commits) and of the template path (main's cdk.out vs the PR's), so
    code scanning tracks a finding across commits. Ordinals follow the messages with numbers
    blanked, so a changed number does not reorder them."""
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
    findings: Sequence[Finding], *, baseline_state: Mapping[int, str] | None = None
) -> str:
    """SARIF 2.1.0, one run, the rule catalogue as the driver's rules; each result carries
    ``partialFingerprints`` (see ``finding_fingerprints``) and, when ``baseline_state`` maps a
    finding's index to ``new`` / ``unchanged``, its ``baselineState``."""
    rules = [
        {
            "id": r.id,
            "name": r.title.replace(" ", ""),
            "shortDescription": {"text": r.title},
            "fullDescription": {"text": r.catches},
            "help": {"text": f"{r.fix} Acknowledge: {r.acknowledge}"},
            "defaultConfiguration": {"level": SARIF_LEVEL[r.severity]},
        }
        for r in CATALOGUE
    ]
    index = {r.id: i for i, r in enumerate(CATALOGUE)}
    cache: dict[str, dict[str, int]] = {}
    results = []
    prints = finding_fingerprints(findings)
    for number, f in enumerate(findings):
        result: dict = {
            "ruleId": f.rule,
            "level": SARIF_LEVEL[f.severity],
            "message": {"text": sarif_text(f"{f.message}. Fix: {f.fix}")},
            "locations": [
                {
                    "physicalLocation": {
                        # a URI reference (SARIF 2.1.0 3.10.2): spaces, '#', '%' ... percent-encoded
                        "artifactLocation": {"uri": quote(Path(f.template).as_posix(), safe="/:")},
                        "region": {"startLine": _line_of(f.template, f.resource, cache)},
                    },
                    "logicalLocations": [
                        {"name": sarif_text(f.resource), "fullyQualifiedName": sarif_text(f"{f.stack}/{f.resource}"), "kind": "resource"}
                    ],
                }
            ],
        }
        if f.rule in index:
            result["ruleIndex"] = index[f.rule]
        if f.severity is Severity.NOT_CHECKED:
            result["kind"] = "open"  # SARIF: the tool could not tell whether the rule holds
        result["partialFingerprints"] = {FINGERPRINT_KEY: prints[number]}
        if baseline_state is not None and number in baseline_state:
            result["baselineState"] = baseline_state[number]
        results.append(result)
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "edge-origin", "rules": rules}}, "results": results}],
    }
    return json.dumps(doc, indent=2) + "\n"


def format_findings(findings: Sequence[Finding], fmt: str, unreadable: Sequence[tuple[str, str]] = ()) -> str:
    """Render findings in one of ``FORMATS``; ValueError naming the allowed formats.

    ``unreadable`` files are listed in the JSON (``"unreadable": [{"file", "error"}]``); the
    other formats leave them to the caller (the CLI prints one line each on stderr).
    """
    renderers = {"text": format_text, "json": format_json, "markdown": format_markdown, "sarif": format_sarif, "github": format_github}
    if fmt == "junit":  # edge_origin.review.junit.format_junit takes the rules run and --fail-on too
        from edge_origin.review.junit import format_junit

        return format_junit(findings, rules=RULES, unreadable=unreadable)
    if fmt not in renderers:
        raise ValueError(f"unknown format {fmt!r} (allowed: {', '.join(FORMATS)})")
    if fmt == "json":
        return format_json(findings, unreadable)
    return renderers[fmt](findings)


__all__ = [
    "FINGERPRINT_KEY",
    "FORMATS",
    "RULES_BY_ID",
    "CheckResult",
    "check_paths",
    "finding_fingerprints",
    "format_findings",
    "format_github",
    "format_sarif",
    "parse_severity",
]
