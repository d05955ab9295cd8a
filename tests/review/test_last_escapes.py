"""Issue 50 item 5, the last escapes: JUnit through the escaping layer and the review's 1 MiB budget;
invisible and format characters made visible in every human format (kept exact in JSON); SARIF
message text escaped per SARIF 2.1.0 §3.11.5-6 (literal brackets backslash-escaped, braces doubled)."""

from __future__ import annotations

import json
import re
import sys
import unicodedata
import xml.etree.ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core import escape
from edge_origin.core.findings import Finding, Severity
from edge_origin.review.checker import format_findings
from edge_origin.review.junit import MAX_JUNIT_BYTES, format_junit


def _invisible_chars() -> list[str]:
    """Every format character (Cf), every space but U+0020 (Zs), and the named blank ones."""
    out = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) in ("Cf", "Zs", "Cc", "Zl", "Zp")]
    named = "\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0\ufe0f\U000e0100"
    return [c for c in out if c != " "] + list(named)


INVISIBLE = _invisible_chars()
HUMAN = {
    "plain": escape.plain, "md_text": escape.md_text, "md_code": escape.md_code, "mermaid_label": escape.mermaid_label,
    "gha_data": escape.gha_data, "gha_property": escape.gha_property, "sarif_text": escape.sarif_text,
    "sarif_plain": escape.sarif_plain,
}
#: What a writer adds itself: md_text breaks autolinks with a word joiner before "@".
OWN = {"md_text": {"\u2060"}}


def test_every_invisible_or_format_character_is_written_visibly_by_every_human_writer() -> None:
    text = "a" + "a".join(INVISIBLE) + "a"
    for name, write in HUMAN.items():
        out = write(text, limit=10**7)
        raw = {c for c in out if c in set(INVISIBLE)} - OWN.get(name, set())
        assert not raw, (name, sorted(f"U+{ord(c):04X}" for c in raw)[:10])
    assert escape.visible("\u200b\u200c\u200d\u2060\u00ad\u180e\U000e0041\u202e") == (
        "\\u200b\\u200c\\u200d\\u2060\\xad\\u180e\\U000e0041\\u202e"
    )


def _finding(name: str, message: str = "m") -> Finding:
    return Finding("EO-DNS1", Severity.ERROR, message, "fix", "t.json", "Stack", name)


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", ".", "\n", "\r", *INVISIBLE[:200:7], "\u202e", "\U000e0041"]), max_size=20))
def test_two_names_that_read_the_same_are_told_apart_and_json_keeps_them_exact(suffix: str) -> None:
    a, b = _finding("o.example.com"), _finding("o.example.com" + suffix)
    for fmt in ("text", "markdown", "github", "sarif", "junit"):
        one, two = format_findings([a], fmt), format_findings([b], fmt)
        assert (one == two) == (suffix == ""), fmt
    doc = json.loads(format_findings([b], "json"))
    assert doc["findings"][0]["resource"] == "o.example.com" + suffix


HOSTILE_SET_ID = "A\n::error file=x.json,line=1::all good\n## APPROVED\r\n\u202eevil\u202c\x1b[31m"


def test_junit_failure_text_holds_no_forged_line_and_no_raw_control() -> None:
    out = format_junit([_finding(HOSTILE_SET_ID, f"set {HOSTILE_SET_ID}")])
    root = ET.fromstring(out)
    (failure,) = root.iter("failure")
    lines = failure.text.splitlines()
    assert len(lines) == 2 and lines[1].startswith("fix: ")  # only the report's own line break
    for text in (failure.text, failure.get("message"), *(c.get("name") for c in root.iter("testcase"))):
        assert not any(line.lstrip().startswith(("::", "##")) for line in text.splitlines()), text
        assert not re.search("[\u202e\u202c\x1b\r]", text)
    assert "\\u202eevil" in failure.text and "\\n::error" in failure.text


def test_junit_stays_within_the_review_budget_and_counts_what_it_leaves_out() -> None:
    findings = [_finding(f"R{i:06d}" + "x" * 200, "m" * 1500) for i in range(2000)]  # ~7 MB written whole
    out = format_junit(findings)
    assert len(out.encode("utf-8")) <= MAX_JUNIT_BYTES
    suite = ET.fromstring(out).find("testsuite")
    cases = suite.findall("testcase")
    rest = cases[-1]
    shown = len(cases) - 1
    assert rest.get("name") == f"{2000 - shown} more finding(s) not shown (size limit)"
    assert rest.find("failure") is not None and int(suite.get("failures")) == len(cases)  # the exit code's failures stay visible
    assert len(format_junit(findings[:3]).encode()) < 20_000  # small inputs: every finding, no note
    assert "not shown" not in format_junit(findings[:3])


def test_sarif_message_text_escapes_links_and_placeholders() -> None:
    f = _finding("R", "see [ok](https://evil.example/phish) and {0} or \\[x\\]")
    result = json.loads(format_findings([f], "sarif"))["runs"][0]["results"][0]
    text = result["message"]["text"]
    # placed at the template (no app found): the message starts with the construct, then the finding
    assert text.startswith("Stack/R: see \\[ok\\](https://evil.example/phish) and {{0}} or \\\\\\[x\\\\\\]")
    assert not re.search(r"(?<!\\)\[", text) and not re.search(r"(?<!\{)\{(?!\{)", text)
    assert result["locations"][0]["logicalLocations"][0]["name"] == "R"  # not a message: shown as is


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 120), st.integers(0, 600), st.integers(3_000, 40_000))
def test_junit_never_passes_its_budget_whatever_the_shapes(count: int, length: int, limit: int) -> None:
    findings = [_finding(f"R{i}" + "n" * (length // 3), "m" * length) for i in range(count)]
    out = format_junit(findings, limit=limit)
    root = ET.fromstring(out)
    assert len(out.encode("utf-8")) <= max(limit, len(format_junit([], limit=limit).encode()) + 600)
    cases = root.find("testsuite").findall("testcase")
    rest = [c for c in cases if c.get("name", "").endswith("not shown (size limit)")]
    shown = len(cases) - len(rest)
    assert shown + (int(rest[0].get("name").split()[0]) if rest else 0) == count  # every finding shown or counted
