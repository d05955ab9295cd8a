"""How ``edge-origin diff`` shows a :class:`~edge_origin.review.diff.DiffResult`: text, JSON, Markdown, SARIF,
JUnit. Presentation only: what changed and which findings are new or fixed is decided in
``edge_origin.review.diff`` (the change model); ``edge_origin.review.diff`` re-exports these names.

Layer 4. May import: core, data, answers, profile, model, rules, review.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from edge_origin.core.escape import MAX_SUMMARY_BYTES, fit_markdown, md_code, md_text, plain, shorten
from edge_origin.core.findings import Finding, Severity
from edge_origin.review.checker import finding_fingerprints, format_sarif

if TYPE_CHECKING:
    from edge_origin.review.diff import Change, DiffResult

DIFF_FORMATS = ("text", "json", "markdown", "sarif", "junit")


# --- rendering ---------------------------------------------------------------------------------------
def _summary(result: DiffResult) -> dict[str, Any]:
    tr = result.transition
    keys = tr.changed_keys
    return {
        "stacks": {"common": tr.common_stacks, "added": tr.added_stacks, "removed": tr.removed_stacks},
        "resources": {k: len(v) for k, v in keys.items()},
        "origin_names": tr.origin_names,
    }


def _finding_dict(f: Finding, source: str, new: bool, fingerprint: str) -> dict[str, Any]:
    return {**f.to_dict(), "source": source, "new": new, "fingerprint": fingerprint}


def format_json(result: DiffResult) -> str:
    items = result.findings
    prints = finding_fingerprints([f for f, _, _ in items])
    doc = {
        "summary": _summary(result),
        "changes": [c.to_dict() for c in result.changes],
        "findings": [_finding_dict(f, s, n, p) for (f, s, n), p in zip(items, prints, strict=True)],
        "fixed": [f.to_dict() for f in result.fixed],
        "quotas": [{**asdict(q), "message": q.line()} for q in result.quotas],
    }
    return json.dumps(doc, indent=2, sort_keys=True, default=str) + "\n"


def _show(value: Any) -> str:
    return "-" if value is None else str(value)


def _change_line(c: Change) -> str:
    where = f"{c.kind} {shorten(c.stack)}/{shorten(c.logical_id)}"
    if c.field == c.kind:
        what = f"added: {shorten(c.after)}" if c.before is None else f"removed: {shorten(c.before)}" if c.after is None else f"{shorten(c.after)}"
    else:
        what = f"{shorten(c.field)} {shorten(_show(c.before))} -> {shorten(_show(c.after))}"
    note = f" [{c.note}]" if c.note and c.note not in ("added", "removed") else ""
    return f"  {where}: {what}{note}"


def _counts(findings: Sequence[Finding]) -> str:
    return ", ".join(f"{sum(f.severity is s for f in findings)} {s.value}" for s in Severity)


def format_text(result: DiffResult) -> str:
    s = _summary(result)
    st = s["stacks"]
    lines = [
        f"edge-origin diff: {len(st['common'])} stack(s) in common"
        + (f", added {', '.join(st['added'])}" if st["added"] else "")
        + (f", removed {', '.join(st['removed'])}" if st["removed"] else "")
        + f"; resources: {s['resources']['added']} added, {s['resources']['removed']} removed, {s['resources']['changed']} changed"
    ]
    by_name: dict[str, list[Change]] = {}
    for c in result.changes:
        by_name.setdefault(c.name, []).append(c)
    if not by_name:
        lines.append("no change on any origin path")
    for name, changes in by_name.items():
        lines.append(f"origin {shorten(name)} ({s['origin_names'].get(name, '?')}):")
        lines += [_change_line(c) for c in changes]
    lines.append(f"transition findings: {len(result.transition_findings)} ({_counts(result.transition_findings)})")
    for f in result.transition_findings:
        lines += [f"  {f.severity.value:<7} {f.rule:<8} {f.stack}/{f.resource}: {f.message}", f"          fix: {f.fix}"]
    lines.append(f"head findings: {len(result.head_findings)} ({len(result.new)} new in this change)")
    for i, f in enumerate(result.head_findings):
        mark = "new " if i in result.new else "    "
        lines.append(f"  {mark}{f.severity.value:<7} {f.rule:<8} {f.stack}/{f.resource}: {f.message}")
    lines.append(f"fixed by this change: {len(result.fixed)} (base's findings head no longer has)")
    lines += [f"  fixed   {f.severity.value:<7} {f.rule:<8} {f.stack}/{f.resource}: {f.message}" for f in result.fixed]
    if result.quotas:
        lines.append(f"quotas: {len(result.quotas)} count(s) past an AWS default quota")
        lines += [f"  {q.line()}" for q in result.quotas]
    # every line starts with the diff's own words; the rest is one line with controls visible
    return "\n".join(plain(line, 40 * 256) for line in lines) + "\n"


def _md(text: Any) -> str:
    """Inline Markdown text (see ``edge_origin.core.escape.md_text``)."""
    return md_text(_show(text))


def changes_table(changes: Sequence[Change]) -> list[str]:
    """Markdown rows: one a change."""
    lines = ["| Resource | Field | Before | After | Note |", "|---|---|---|---|---|"]
    for c in changes:
        lines.append(f"| {c.kind} {md_code(f'{c.stack}/{c.logical_id}')} | {_md(c.field)} | {_md(c.before)} | {_md(c.after)} | {_md(c.note)} |")
    return lines


def findings_table(result: DiffResult) -> list[str]:
    items = result.findings
    if not items:
        return ["No findings."]
    lines = ["| | Severity | Rule | Resource | Message | Fix |", "|---|---|---|---|---|---|"]
    for f, source, new in items:
        mark = "transition" if source == "transition" else ("**new**" if new else "in base")
        lines.append(f"| {mark} | {f.severity.value} | {_md(f.rule)} | {md_code(f'{f.stack}/{f.resource}')} | {_md(f.message)} | {_md(f.fix)} |")
    return lines


def format_markdown(result: DiffResult) -> str:
    s = _summary(result)
    out = ["## edge-origin diff", ""]
    out.append(
        f"{len(s['stacks']['common'])} stack(s) in common; resources: {s['resources']['added']} added, "
        f"{s['resources']['removed']} removed, {s['resources']['changed']} changed."
    )
    out.append("")
    by_name: dict[str, list[Change]] = {}
    for c in result.changes:
        by_name.setdefault(c.name, []).append(c)
    if not by_name:
        out += ["No change on any origin path.", ""]
    for name, changes in by_name.items():
        out += [f"### {_md(name)}", "", *changes_table(changes), ""]
    from edge_origin.review.checker import budgeted_rows

    table = findings_table(result)
    tail_lines = ["### Findings", "", *table[:2], *budgeted_rows(table[2:], MAX_SUMMARY_BYTES // 2)]
    tail_lines += ["", *fixed_section(result, "###")]
    if result.quotas:
        tail_lines += ["", *quota_section(result, "###")]
    tail = "\n".join(tail_lines) + "\n"
    head = fit_markdown("\n".join(out), MAX_SUMMARY_BYTES - len(tail.encode("utf-8")) - 64, "change list of the diff")
    return head.rstrip("\n") + "\n\n" + tail


def fixed_section(result: DiffResult, level: str = "###") -> list[str]:
    """Markdown: base's findings this change fixes (head no longer has them)."""
    out = [f"{level} Fixed by this change ({len(result.fixed)})", ""]
    if not result.fixed:
        return [*out, "None: every finding base had is still in head (or base had none)."]
    out += ["| Severity | Rule | Resource | Message (in base) |", "|---|---|---|---|"]
    from edge_origin.review.checker import budgeted_rows

    rows = [f"| {f.severity.value} | {_md(f.rule)} | {md_code(f'{f.stack}/{f.resource}')} | {_md(f.message)} |" for f in result.fixed]
    return [*out, *budgeted_rows(rows, MAX_SUMMARY_BYTES // 8)]


def quota_section(result: DiffResult, level: str = "###") -> list[str]:
    """Markdown: counts this change takes past an AWS default quota (empty list when none)."""
    if not result.quotas:
        return []
    return [f"{level} Quotas", "", *[f"- {_md(q.line())}" for q in result.quotas]]


def format_diff_sarif(result: DiffResult) -> str:
    items = result.findings
    state = {i: ("new" if new else "unchanged") for i, (_, _, new) in enumerate(items)}
    return format_sarif([f for f, _, _ in items], baseline_state=state)


def format_diff_junit(result: DiffResult) -> str:
    """JUnit XML (suite ``edge-origin diff``): one test case per transition finding and head finding, a
    ``<failure>`` at or above error (the exit code's default ``--fail-on``)."""
    from edge_origin.review.junit import format_junit

    return format_junit([f for f, _, _ in result.findings], suite="edge-origin diff")


def format_diff(result: DiffResult, fmt: str) -> str:
    """Render in one of ``DIFF_FORMATS``; ValueError naming the allowed formats."""
    renderers = {"text": format_text, "json": format_json, "markdown": format_markdown, "sarif": format_diff_sarif,
                 "junit": format_diff_junit}
    if fmt not in renderers:
        raise ValueError(f"unknown format {fmt!r} (allowed: {', '.join(DIFF_FORMATS)})")
    return renderers[fmt](result)
