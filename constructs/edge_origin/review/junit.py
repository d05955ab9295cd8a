"""Findings as JUnit XML (``--format junit``), the shape CI systems read (Jenkins' and GitLab's
JUnit reports, GitHub test-report actions): ``<testsuites><testsuite><testcase>``.

One ``<testsuite>`` a run. Each rule that ran and found nothing is one passing ``<testcase>``
(``classname`` = the rule id, ``name`` = its title); each finding is one ``<testcase>`` named
``<rule> <stack>/<resource>`` holding a ``<failure>`` when its severity is at or above
``fail_on`` (so the report's failures are exactly what makes the exit code 1), else passing
with the finding in ``<system-out>``. A finding a rule could not check, and a rule left out by
``--select``/``--ignore``, is ``<skipped>``; a file that could not be read is an ``<error>``.

Every string that comes from a template passes through ``_text`` (XML 1.0 cannot hold most
control characters, even escaped: they are written as ``\\xNN``); ``xml.etree`` escapes ``<``,
``&`` and quotes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from edge_origin.core.findings import Finding, Severity

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def _text(value: object) -> str:
    """The one helper for template-controlled strings in JUnit XML."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))


def format_junit(
    findings: Sequence[Finding],
    *,
    rules: Sequence[Any] = (),
    left_out: dict[str, str] | None = None,
    fail_on: Severity = Severity.ERROR,
    unreadable: Sequence[tuple[str, str]] = (),
    suite: str = "edge-origin check",
) -> str:
    """JUnit XML for ``findings``; ``rules`` (objects with ``id`` and ``title``) that ran and
    found nothing become passing test cases; ``left_out`` maps a rule id to why it did not run."""
    cases: list[ET.Element] = []
    found_rules = {f.rule for f in findings}
    left_out = left_out or {}
    for rule in rules:
        rule_id, title = rule.id, rule.title
        if rule_id in found_rules:
            continue
        case = ET.Element("testcase", classname=_text(rule_id), name=_text(f"{rule_id} {title}"), time="0")
        if rule_id in left_out:
            ET.SubElement(case, "skipped", message=_text(left_out[rule_id]))
        cases.append(case)
    for f in findings:
        case = ET.Element(
            "testcase", classname=_text(f.rule), name=_text(f"{f.rule} {f.stack}/{f.resource}"), file=_text(f.template), time="0"
        )
        detail = _text(f"{f.severity.value} {f.rule} {f.template} {f.stack}/{f.resource}: {f.message}\nfix: {f.fix}")
        if f.severity is Severity.NOT_CHECKED:
            ET.SubElement(case, "skipped", message=_text(f.message))
        elif f.severity.at_least(fail_on):
            failure = ET.SubElement(case, "failure", type=f.severity.value, message=_text(f.message))
            failure.text = detail
        else:
            ET.SubElement(case, "system-out").text = detail
        cases.append(case)
    for path, message in unreadable:
        case = ET.Element("testcase", classname="edge-origin", name=_text(f"read {path}"), file=_text(path), time="0")
        ET.SubElement(case, "error", type="unreadable", message=_text(message))
        cases.append(case)
    counts = {
        "tests": len(cases),
        "failures": sum(c.find("failure") is not None for c in cases),
        "errors": sum(c.find("error") is not None for c in cases),
        "skipped": sum(c.find("skipped") is not None for c in cases),
    }
    root = ET.Element("testsuites", name="edge-origin", **{k: str(v) for k, v in counts.items()}, time="0")
    testsuite = ET.SubElement(root, "testsuite", name=_text(suite), **{k: str(v) for k, v in counts.items()}, time="0")
    testsuite.extend(cases)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


__all__ = ["format_junit"]
