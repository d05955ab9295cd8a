"""Findings as JUnit XML (``--format junit``), the shape CI systems read (Jenkins' and GitLab's
JUnit reports, GitHub test-report actions): ``<testsuites><testsuite><testcase>``.

One ``<testsuite>`` a run. Each rule that ran and found nothing is one passing ``<testcase>``
(``classname`` = the rule id, ``name`` = its title); each finding is one ``<testcase>`` named
``<rule> <stack>/<resource>`` holding a ``<failure>`` when its severity is at or above
``fail_on`` (so the report's failures are exactly what makes the exit code 1), else passing
with the finding in ``<system-out>``. A finding a rule could not check, and a rule left out by
``--select``/``--ignore``, is ``<skipped>``; a file that could not be read is an ``<error>``.

An acknowledged finding is a ``<testcase>`` with ``<skipped message="acknowledged: REASON (SOURCE)">``.
The run's summary (passed / failed / acknowledged / not judged) is in the suite's ``<properties>``
and its ``<system-out>``.

Every string that comes from a template passes through ``escape.plain`` (one line: line breaks,
controls, bidirectional and invisible characters written visibly, ``##[`` defused; only the
report's own structure has line breaks) and then ``_xml`` (XML 1.0 cannot hold the rest of the
control characters, even escaped); ``xml.etree`` escapes ``<``, ``&`` and quotes. The whole file
stays under ``MAX_JUNIT_BYTES`` (the review's 1 MiB): findings past it are counted in one last
test case (a ``<failure>`` when any of them fails), never dropped silently.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from edge_origin.core.escape import MAX_SUMMARY_BYTES, plain
from edge_origin.core.findings import Finding, Severity

#: Bytes of JUnit XML written at most (the same budget as the review report).
MAX_JUNIT_BYTES = MAX_SUMMARY_BYTES
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def _xml(value: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", value)


def _text(value: object) -> str:
    """The one helper for template-controlled strings in JUnit XML: one line, visible, XML-safe."""
    return _xml(plain(value))


def _case(f: Finding, fail_on: Severity) -> ET.Element:
    case = ET.Element("testcase", classname=_text(f.rule), name=_text(f"{f.rule} {f.stack}/{f.resource}"), file=_text(f.template), time="0")
    detail = (
        f"{f.severity.value} {_text(f.rule)} {_text(f.template)} {_text(f.stack)}/{_text(f.resource)}: {_text(f.message)}\n"
        f"fix: {_text(f.fix)}"
    )
    if f.suppression is not None:
        s = f.suppression
        ET.SubElement(case, "skipped", message=_text(f"acknowledged: {s.reason} ({s.source}{'; ' + s.where if s.where else ''})"))
        ET.SubElement(case, "system-out").text = detail
    elif f.severity is Severity.NOT_CHECKED:
        ET.SubElement(case, "skipped", message=_text(f.message))
    elif f.severity.at_least(fail_on):
        failure = ET.SubElement(case, "failure", type=f.severity.value, message=_text(f.message))
        failure.text = detail
    else:
        ET.SubElement(case, "system-out").text = detail
    return case


def _size(case: ET.Element) -> int:
    """Bytes of a test case as written, with about what ``ET.indent`` adds (a line per element)."""
    return len(ET.tostring(case, encoding="unicode").encode("utf-8")) + 8 * (1 + len(case))


def format_junit(
    findings: Sequence[Finding],
    *,
    rules: Sequence[Any] = (),
    left_out: dict[str, str] | None = None,
    fail_on: Severity = Severity.ERROR,
    unreadable: Sequence[tuple[str, str]] = (),
    suite: str = "edge-origin check",
    acknowledged: Sequence[Finding] = (),
    summary: Any = None,
    limit: int = MAX_JUNIT_BYTES,
    notices: Sequence[str] = (),
) -> str:
    """JUnit XML for ``findings``; ``rules`` (objects with ``id`` and ``title``) that ran and
    found nothing become passing test cases; ``left_out`` maps a rule id to why it did not run;
    ``acknowledged`` findings are skipped test cases with their reason."""
    cases: list[ET.Element] = []
    found_rules = {f.rule for f in findings} | {f.rule for f in acknowledged}
    left_out = left_out or {}
    for rule in rules:
        rule_id, title = rule.id, rule.title
        if rule_id in found_rules:
            continue
        case = ET.Element("testcase", classname=_text(rule_id), name=_text(f"{rule_id} {title}"), time="0")
        if rule_id in left_out:
            ET.SubElement(case, "skipped", message=_text(left_out[rule_id]))
        cases.append(case)
    for path, message in unreadable:
        case = ET.Element("testcase", classname="edge-origin", name=_text(f"read {path}"), file=_text(path), time="0")
        ET.SubElement(case, "error", type="unreadable", message=_text(message))
        cases.append(case)
    fixed = len(cases)
    used = sum(_size(c) for c in cases) + 4096
    everything = [*findings, *acknowledged]
    shown = 0
    for f in everything:
        case = _case(f, fail_on)
        used += _size(case)
        if used > limit:
            break
        cases.append(case)
        shown += 1
    while True:  # the estimate leaves out ET.indent's whitespace: drop cases until the written file fits
        rest = everything[shown:]
        text = _document([*cases, _rest(rest, fail_on)] if rest else cases, suite, summary, notices)
        if len(text.encode("utf-8")) <= limit or shown == 0:
            return text
        drop = max(1, (shown * (len(text.encode("utf-8")) - limit)) // max(len(text.encode("utf-8")), 1) + 1)
        shown = max(0, shown - drop)
        del cases[fixed + shown:]


def _rest(left: Sequence[Finding], fail_on: Severity) -> ET.Element:
    """One test case counting the findings past the size budget (a failure when any fails)."""
    failing = sum(f.suppression is None and f.severity is not Severity.NOT_CHECKED and f.severity.at_least(fail_on) for f in left)
    case = ET.Element("testcase", classname="edge-origin", name=f"{len(left)} more finding(s) not shown (size limit)", time="0")
    text = f"{len(left)} more finding(s), {failing} at or above {fail_on.value}: `edge-origin check --format sarif` lists all"
    if failing:
        ET.SubElement(case, "failure", type=fail_on.value, message=text)
    else:
        ET.SubElement(case, "system-out").text = text
    return case


def _document(cases: list[ET.Element], suite: str, summary: Any, notices: Sequence[str] = ()) -> str:
    counts = {
        "tests": len(cases),
        "failures": sum(c.find("failure") is not None for c in cases),
        "errors": sum(c.find("error") is not None for c in cases),
        "skipped": sum(c.find("skipped") is not None for c in cases),
    }
    root = ET.Element("testsuites", name="edge-origin", **{k: str(v) for k, v in counts.items()}, time="0")
    testsuite = ET.SubElement(root, "testsuite", name=_text(suite), **{k: str(v) for k, v in counts.items()}, time="0")
    if summary is not None:
        props = ET.SubElement(testsuite, "properties")
        for key, value in summary.to_dict().items():
            ET.SubElement(props, "property", name=f"edge-origin.{key}", value=str(value))
    testsuite.extend(cases)
    out = [f"NOTE: this change {_text(n)}" for n in notices] + ([f"summary: {summary.line()}"] if summary is not None else [])
    if out:
        ET.SubElement(testsuite, "system-out").text = "\n".join(out)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


__all__ = ["MAX_JUNIT_BYTES", "format_junit"]
