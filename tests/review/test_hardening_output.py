"""A pull request cannot forge its own review (issue 40).

The same string goes into every template-controlled field (logical ids, record names,
SetIdentifier, origin ids and domains, tags, descriptions, metadata, parameter defaults); the
report, the diff and the check output must keep the structure of the benign twin: the same
headings, table rows, code blocks and no link, image or HTML (Markdown parsed by cmark-gfm,
GitHub's own parser), the same lines and annotations in text, no line starting a workflow
command, no raw CR, ESC or other control character.
"""

from __future__ import annotations

import json
import re
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.cli import main
from edge_origin.core import escape
from edge_origin.model import load_model
from edge_origin.review.checker import check_paths, format_findings
from edge_origin.review.diff import diff_paths, format_diff
from edge_origin.review.report import render_report, report_change_paths

cmarkgfm = pytest.importorskip("cmarkgfm")

BENIGN = "b"
#: The forgeries of issue 40, and the syntax of every output format.
HOSTILE = [
    "o.example.com\n### Findings\n\nNo findings.\n<!--",
    "\r## forged\r<img src=https://evil.example/p.png>\r",
    "a\n::error title=edge-origin::all checks passed\n::add-mask::EO-DNS1",
    "<img src=https://evil.example/p.png>",
    '<a href="https://evil.example">APPROVED</a>',
    "[APPROVED](https://evil.example)",
    "![pixel](https://evil.example/p.png)",
    "<https://evil.example>",
    "https://evil.example www.evil.example a@evil.example @octocat",
    "`", "``x``", "```\n", "~~~\n", "\\", "|", "| a | b |\n|---|---|", "*x* _y_ ~~z~~", "&lt;b&gt;&#10;&amp;",
    "<!--", "-->", "<script>alert(1)</script>", "\x1b[31mRED\x1b[0m", "\x9b31m", "\x07\x08\x00\x7f",
    "\u2028\u2029\x85", "\u202eevil\u202c", "\ud800", "##[error]forged", "::warning::x",
    '"]; click n0 href "https://evil.example"', "%%{init: {'theme': 'dark'}}%%", "#quot;", "end\nflowchart",
    "- [x] done\n1. one\n> quote\n---\n===", "[^1]\n\n[^1]: note", "[x]: https://evil.example",
    "A" * 3000,
]
HOSTILE_TEXT = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(max_size=30),
    st.builds(lambda a, b: a + b, st.sampled_from(HOSTILE), st.text(max_size=10)),
)


def world(s: str, *, head: bool = False) -> dict[str, Any]:
    """One distribution, a health check and three multivalue records of one origin name, every
    name, id, tag, description and default holding ``s``; ``head``: a record removed, a TTL changed."""
    name = f"o{s}.example.com"
    origin_id = f"origin-{s}"
    records: dict[str, Any] = {}
    for i, letter in enumerate("ABC"):
        if head and letter == "C":
            continue
        props: dict[str, Any] = {
            "HostedZoneName": "example.com.", "Name": name, "Type": "A", "TTL": 120 if head and letter == "A" else 60,
            "SetIdentifier": f"{letter}{s}", "MultiValueAnswer": True, "ResourceRecords": [f"198.51.100.{i + 1}"],
        }
        if letter == "A":
            props["HealthCheckId"] = {"Ref": f"Check{s}"}
        records[f"Rec{letter}{s}"] = {"Type": "AWS::Route53::RecordSet", "Metadata": {"note": s}, "Properties": props}
    return {
        "Description": s,
        "Parameters": {"Label": {"Type": "String", "Default": s, "Description": s}},
        "Resources": {
            f"Dist{s}": {
                "Type": "AWS::CloudFront::Distribution",
                "Properties": {
                    "DistributionConfig": {
                        "Enabled": True, "HttpVersion": "http2", "Comment": s,
                        "Origins": [{"Id": origin_id, "DomainName": name,
                                     "CustomOriginConfig": {"OriginProtocolPolicy": "https-only", "OriginKeepaliveTimeout": 60}}],
                        "DefaultCacheBehavior": {
                            "TargetOriginId": origin_id, "ViewerProtocolPolicy": "https-only", "GrpcConfig": {"Enabled": True},
                            "AllowedMethods": ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"],
                        },
                    },
                    "Tags": [{"Key": s or "k", "Value": {"Ref": "Label"}}],
                },
            },
            f"Check{s}": {
                "Type": "AWS::Route53::HealthCheck",
                "Properties": {"HealthCheckConfig": {"Type": "TCP", "IPAddress": "198.51.100.1", "Port": 443},
                               "HealthCheckTags": [{"Key": "Name", "Value": s}]},
            },
            **records,
        },
    }


class _Structure(HTMLParser):
    """Every element of cmark-gfm's HTML in order, the text of each heading, each code block's text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.headings: list[str] = []
        self.blocks: list[str] = []
        self._heading: list[str] | None = None
        self._pre: list[str] | None = None
        self._in_pre = False

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.tags.append(tag)
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._heading = []
        if tag == "pre":
            self._pre = []

    def handle_endtag(self, tag: str) -> None:
        self.tags.append("/" + tag)
        if tag.startswith("h") and tag[1:].isdigit() and self._heading is not None:
            self.headings.append("".join(self._heading))
            self._heading = None
        if tag == "pre" and self._pre is not None:
            self.blocks.append("".join(self._pre))
            self._pre = None

    def handle_data(self, data: str) -> None:
        if self._heading is not None:
            self._heading.append(data)
        if self._pre is not None:
            self._pre.append(data)

    def handle_comment(self, data: str) -> None:
        self.tags.append("<!--")


def structure(markdown: str) -> _Structure:
    html = cmarkgfm.github_flavored_markdown_to_html(markdown, options=cmarkgfm.cmark.Options.CMARK_OPT_UNSAFE)
    parser = _Structure()
    parser.feed(html)
    parser.close()
    return parser


MERMAID_LINE = re.compile(r'^(flowchart LR|  n\d+\["[^"`%<>]*"\]|  more\["[^"]*"\]|  n\d+ --> n\d+|  n\d+ -- "[^"`%<>]*" --> n\d+)$')
FORBIDDEN_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def assert_same_markdown(hostile: str, benign: str) -> None:
    h, b = structure(hostile), structure(benign)
    assert h.tags == b.tags, "element structure differs"
    assert len(h.headings) == len(b.headings)
    for hh, bh in zip(h.headings, b.headings, strict=True):
        if BENIGN not in bh.replace("edge-origin", ""):  # a heading of the tool's own words
            assert hh == bh
    for block in h.blocks:
        if block.startswith("flowchart"):
            for line in block.rstrip("\n").splitlines():
                assert MERMAID_LINE.match(line), line
    assert not FORBIDDEN_RAW.search(hostile)
    assert len(hostile.encode("utf-8")) <= escape.MAX_SUMMARY_BYTES


def assert_same_lines(hostile: str, benign: str) -> None:
    hl, bl = hostile.splitlines(), benign.splitlines()
    assert len(hl) == len(bl)
    assert "\r" not in hostile and not FORBIDDEN_RAW.search(hostile)
    for h, b in zip(hl, bl, strict=True):
        assert h.split(" ", 1)[0] == b.split(" ", 1)[0]  # the same first word: nothing forged starts a line
        assert not h.lstrip().startswith("::") or h.startswith(("::error ", "::warning ", "::notice "))
        assert "##[" not in h


def assert_same_annotations(hostile: str, benign: str) -> None:
    assert_same_lines(hostile, benign)
    annotation = re.compile(r"^::(error|warning|notice) (file=[^,:]*,line=\d+,)?title=[^,:]*::[^\r\n]*$")
    for h, b in zip(hostile.splitlines(), benign.splitlines(), strict=True):
        if b.startswith("::"):
            assert annotation.match(h), h
            assert h.split(" ", 1)[0] == b.split(" ", 1)[0]


def _write(folder: Path, name: str, body: dict[str, Any]) -> Path:
    path = folder / name
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def outputs(s: str) -> dict[str, str]:
    """Every rendered output of the review for the world holding ``s``."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "base").mkdir()
        (folder / "head").mkdir()
        base = _write(folder / "base", "Edge.template.json", world(s))
        head = _write(folder / "head", "Edge.template.json", world(s, head=True))
        result = check_paths([head])
        found = result.findings
        out = {f"check {fmt}": format_findings(found, fmt) for fmt in ("text", "markdown", "github", "sarif", "json")}
        model = load_model([head])
        out["report markdown"] = render_report(model, "markdown", found)
        out["report text"] = render_report(model, "text", found)
        diff = diff_paths([base], [head])
        out["diff markdown"] = format_diff(diff, "markdown")
        out["diff text"] = format_diff(diff, "text")
        out["diff sarif"] = format_diff(diff, "sarif")
        out["report change"] = report_change_paths([base], [head])
        return out


@pytest.fixture(scope="module")
def benign() -> dict[str, str]:
    return outputs(BENIGN)


def assert_invariant(s: str, benign: dict[str, str]) -> None:
    hostile = outputs(s)
    for key in ("check markdown", "report markdown", "diff markdown", "report change"):
        assert_same_markdown(hostile[key], benign[key])
    for key in ("check text", "report text", "diff text"):
        assert_same_lines(hostile[key], benign[key])
    assert_same_annotations(hostile["check github"], benign["check github"])
    for key in ("check sarif", "diff sarif"):
        h, b = json.loads(hostile[key]), json.loads(benign[key])
        assert len(h["runs"][0]["results"]) == len(b["runs"][0]["results"])
        for result in h["runs"][0]["results"]:
            assert not FORBIDDEN_RAW.search(result["message"]["text"]) and "\n" not in result["message"]["text"]
    assert len(json.loads(hostile["check json"])["findings"]) == len(json.loads(benign["check json"])["findings"])


def test_the_benign_world_has_findings_to_forge(benign: dict[str, str]) -> None:
    assert "EO-DNS2" in benign["check text"] and "::error " in benign["check github"]
    assert "### Findings" in benign["report markdown"] and "| error | EO-DNS2 |" in benign["report markdown"]


@pytest.mark.parametrize("s", HOSTILE, ids=range(len(HOSTILE)))
def test_each_forgery_keeps_the_structure(s: str, benign: dict[str, str]) -> None:
    assert_invariant(s, benign)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(s=HOSTILE_TEXT)
def test_any_string_keeps_the_structure(s: str, benign: dict[str, str]) -> None:
    assert_invariant(s, benign)


# --- the escaping functions themselves -------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(st.text())
def test_md_text_renders_as_its_visible_text(s: str) -> None:
    html = cmarkgfm.github_flavored_markdown_to_html(f"x {escape.md_text(s)} y", options=cmarkgfm.cmark.Options.CMARK_OPT_UNSAFE)
    assert re.fullmatch(r"<p>x .* y</p>\n", html, re.S), html
    assert "<a " not in html and "<img" not in html and "<code>" not in html and "<em>" not in html and "<strong>" not in html


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_md_code_is_one_code_span_in_a_table_cell(s: str) -> None:
    html = cmarkgfm.github_flavored_markdown_to_html(
        f"| a | b |\n|---|---|\n| {escape.md_code(s)} | z |\n", options=cmarkgfm.cmark.Options.CMARK_OPT_UNSAFE
    )
    assert html.count("<td>") == 2 and html.count("<code>") == 1 and html.count("<tr>") == 2


def test_workflow_command_escapes_follow_the_toolkit() -> None:
    assert escape.gha_data("50%\r\nx") == "50%25%0D%0Ax"
    assert escape.gha_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert escape.plain("a\n::error::x ##[error]y \x1b[31m") == "a\\n::error::x ##\\x5berror]y \\x1b[31m"


def test_long_names_are_shortened_with_a_marker() -> None:
    assert escape.shorten("a" * 300, 256) == "a" * 256 + "…[+44 chars]"


def test_a_report_stays_under_the_step_summary_limit(tmp_path: Path) -> None:
    """Thousands of records with long names: cut under 1 MiB, the findings section kept."""
    body = world("N" * 200)
    for i in range(4000):
        body["Resources"][f"Extra{i}{'N' * 200}"] = {
            "Type": "AWS::Route53::RecordSet",
            "Properties": {"HostedZoneName": "example.com.", "Name": f"o{'N' * 200}.example.com", "Type": "A", "TTL": 60,
                           "SetIdentifier": f"x{i}{'N' * 200}", "MultiValueAnswer": True, "ResourceRecords": [f"10.0.{i // 256}.{i % 256}"]},
        }
    path = _write(tmp_path, "Big.template.json", body)
    text = render_report(load_model([path]), "markdown")
    assert len(text.encode("utf-8")) <= escape.MAX_SUMMARY_BYTES
    assert "### Findings" in text and "| error | EO-DNS2 |" in text
    parsed = structure(text)
    assert parsed.tags.count("pre") == parsed.tags.count("/pre")


# --- duplicate JSON keys ------------------------------------------------------------------------
def test_a_duplicate_json_key_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def rec(routing: str) -> str:
        return ('{"Type": "AWS::Route53::RecordSet", "Properties": {"HostedZoneName": "example.com.", "Name": "o.example.com", '
                f'"Type": "A", "TTL": 60, "ResourceRecords": ["198.51.100.1"], "SetIdentifier": "a", {routing}}}}}')

    first, second = rec('"Weight": 1'), rec('"MultiValueAnswer": true')
    text = f'{{\n  "Resources": {{\n    "Rec1": {first},\n    "Rec1": {second}\n  }}\n}}\n'
    path = tmp_path / "dup.template.json"
    path.write_text(text)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "duplicate key 'Rec1' at line 4 (first at line 3)" in err
    assert main(["report", str(path)]) == 2
    assert "duplicate key 'Rec1'" in capsys.readouterr().err


def test_duplicate_keys_inside_properties_and_with_escapes(tmp_path: Path) -> None:
    from edge_origin.model import ModelError

    path = tmp_path / "t.json"
    path.write_text('{"Resources": {"R": {"Type": "AWS::SNS::Topic", "Properties": {"a\\"b": 1, "x": [{"k": 1}], "a\\"b": 2}}}}')
    with pytest.raises(ModelError, match=r"duplicate key 'a\"b' at line 1"):
        load_model([path])
    ok = tmp_path / "ok.json"
    ok.write_text('{"Resources": {"R": {"Type": "AWS::SNS::Topic", "Properties": {"k": {"k": 1}, "l": [{"k": 1}, {"k": 2}]}}}}')
    load_model([ok])
