"""Issue 50 item 1: suppressions are part of the review. Every way a finding is set aside (template
Metadata, CDK's validation report, the config file's ignore/select, --ignore/--select) needs a reason
(without one: not applied, an EO-ACK1 error naming where), and every format shows what was set aside
with its reason and source; a change that sets more aside says so at the top."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from edge_origin.cli import main
from edge_origin.cli.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parents[2]
NLB3 = ROOT / "tests" / "fixtures" / "templates" / "rules" / "eo-nlb3-fire.yaml"
ACK = '    Metadata:\n      edge-origin:acknowledge: [{id: EO-NLB3, reason: %s}]\n'
REASON = "cross-zone off on purpose [see](https://x.example) {0}"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _acked_template(tmp_path: Path, reason: str | None, name: str = "acked.yaml") -> Path:
    """The EO-NLB3 fixture with its NLB acknowledged (reason None: an entry without a reason)."""
    text = NLB3.read_text(encoding="utf-8")
    entry = ACK % json.dumps(reason) if reason is not None else "    Metadata:\n      edge-origin:acknowledge: [{id: EO-NLB3}]\n"
    text = text.replace("  Nlb:\n    Type: AWS::ElasticLoadBalancingV2::LoadBalancer\n",
                        "  Nlb:\n    Type: AWS::ElasticLoadBalancingV2::LoadBalancer\n" + entry, 1)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _yaml_ignore(tmp_path: Path, body: str) -> None:
    (tmp_path / ".edge-origin.yaml").write_text(body, encoding="utf-8")


# (how the finding is set aside, the args, the source the output names, SARIF's kind)
SOURCES = {
    "metadata": ("template Metadata edge-origin:acknowledge", "inSource"),
    "config": ("ignored (", "external"),
    "flag": ("ignored (--ignore: EO-NLB3)", "external"),
}


def _setup(tmp_path: Path, how: str) -> list[str]:
    if how == "metadata":
        return [str(_acked_template(tmp_path, REASON))]
    if how == "config":
        _yaml_ignore(tmp_path, f"ignore:\n  EO-NLB3: {json.dumps(REASON)}\n")
        return [str(NLB3)]
    return [str(NLB3), "--ignore", f"EO-NLB3: {REASON}"]


@pytest.mark.parametrize("how", list(SOURCES))
@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "markdown", "github"])
def test_every_format_shows_what_is_set_aside_with_its_reason_and_source(capsys, tmp_path: Path, how: str, fmt: str) -> None:
    argv = _setup(tmp_path, how)
    code, out, _ = run(capsys, "check", "--fail-on", "warning", "--format", fmt, *argv)
    source, kind = SOURCES[how]
    # the NLB finding is set aside; the target group's EO-NLB3 is too (config/flag) or stays open (metadata on the NLB only)
    assert code == (1 if how == "metadata" else 0)
    if fmt == "json":
        doc = json.loads(out)
        acked = [f for f in doc["acknowledged"] if f["resource"] == "Nlb"]
        assert acked and acked[0]["suppression"]["reason"] == REASON and source in acked[0]["suppression"]["source"]
        assert doc["summary"]["acknowledged"] == len(doc["acknowledged"]) >= 1
        assert all(f["resource"] != "Nlb" for f in doc["findings"])
    elif fmt == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        (nlb,) = [r for r in results if r["locations"][0]["logicalLocations"][0]["name"] == "Nlb"]
        (sup,) = nlb["suppressions"]
        assert sup["kind"] == kind and sup["status"] == "accepted" and sup["justification"].startswith("cross-zone off on purpose")
        assert source in sup["properties"]["source"]
    elif fmt == "junit":
        cases = ET.fromstring(out).find("testsuite").findall("testcase")
        (nlb,) = [c for c in cases if c.get("name") == "EO-NLB3 acked/Nlb" or c.get("name").endswith("/Nlb")]
        assert nlb.find("failure") is None and nlb.find("skipped").get("message").startswith(f"acknowledged: {REASON}")
    else:
        assert "cross-zone off on purpose" in out and "acknowledged" in out.lower()


def test_a_metadata_acknowledgement_without_a_reason_is_an_error_naming_where(capsys, tmp_path: Path) -> None:
    path = _acked_template(tmp_path, None)
    code, out, _ = run(capsys, "check", "--format", "json", str(path))
    doc = json.loads(out)
    (error,) = [f for f in doc["findings"] if f["rule"] == "EO-ACK1"]
    assert code == 1 and error["severity"] == "error" and error["resource"] == "Nlb"
    assert "acked/Nlb Metadata edge-origin:acknowledge: EO-NLB3 has no reason" in error["message"]
    assert any(f["rule"] == "EO-NLB3" and f["resource"] == "Nlb" for f in doc["findings"])  # not applied
    assert doc["acknowledged"] == []
    for blank in ("", "   "):
        code, out, _ = run(capsys, "check", "--format", "json", str(_acked_template(tmp_path, blank, "blank.yaml")))
        assert code == 1 and [f["rule"] for f in json.loads(out)["findings"]].count("EO-ACK1") == 1


@pytest.mark.parametrize(
    "body",
    [
        "ignore: [EO-NLB3]\n",
        "ignore:\n  EO-NLB3:\n",
        "ignore:\n  - {id: EO-NLB3}\n",
        "ignore: ['EO-NLB3:   ']\n",
        "select: [EO-NLB]\nignore: []\n",
    ],
)
def test_a_config_entry_without_a_reason_is_not_applied_and_is_an_error(capsys, tmp_path: Path, body: str) -> None:
    _yaml_ignore(tmp_path, body)
    code, out, _ = run(capsys, "check", "--fail-on", "warning", "--format", "json", str(NLB3))
    doc = json.loads(out)
    errors = [f for f in doc["findings"] if f["rule"] == "EO-ACK1"]
    assert code == 1 and len(errors) == 1 and ".edge-origin.yaml" in errors[0]["message"] and "has no reason" in errors[0]["message"]
    assert errors[0]["template"].endswith(".edge-origin.yaml")
    assert doc["acknowledged"] == [] and sum(f["rule"] == "EO-NLB3" for f in doc["findings"]) == 3  # termination at deregistration, unhealthy, cross-zone


def test_an_ignore_flag_without_a_reason_is_an_error_too(capsys) -> None:
    code, out, _ = run(capsys, "check", "--fail-on", "warning", str(NLB3), "--ignore", "EO-NLB3")
    assert code == 1 and "EO-ACK1" in out and "--ignore EO-NLB3 has no reason" in out


@pytest.mark.parametrize(
    "body",
    [
        "ignore:\n  EO-NLB3: on purpose\n",
        "ignore:\n  - 'EO-NLB3, EO-KA1: on purpose'\n",
        "ignore:\n  - {id: EO-NLB3, reason: on purpose}\n",
        "ignore:\n  - EO-NLB3: on purpose\n",
    ],
)
def test_config_forms_with_reasons(tmp_path: Path, body: str) -> None:
    _yaml_ignore(tmp_path, body)
    config = load_config()
    (entry,) = config.entries
    assert "EO-NLB3" in config.ignore and entry.reason == "on purpose" and entry.action == "ignore"


@pytest.mark.parametrize("body", ["ignore: [[EO-NLB3]]\n", "ignore: [{id: 3}]\n", "ignore: ': reason only'\n", "ignore: 7\n"])
def test_malformed_config_entries_are_bad_input(tmp_path: Path, body: str) -> None:
    _yaml_ignore(tmp_path, body)
    with pytest.raises(ConfigError, match=r"\.edge-origin\.yaml"):
        load_config()


def test_the_review_has_an_acknowledged_section_with_counts(capsys, tmp_path: Path) -> None:
    path = _acked_template(tmp_path, REASON)
    code, out, _ = run(capsys, "report", str(path), "--ignore", "EO-SEC1: verification by WAF")
    assert code == 0
    section = out[out.index("### Acknowledged (1)"):]
    assert "1 by template Metadata edge-origin:acknowledge" in section
    assert "cross-zone off on purpose \\[see\\](https\\://x.example)" in section  # the reason escaped as Markdown text
    code, out, _ = run(capsys, "report", str(NLB3))
    assert "### Acknowledged (0)" in out


def test_a_change_that_adds_an_acknowledgement_says_so_at_the_top(capsys, tmp_path: Path) -> None:
    base, head = tmp_path / "base", tmp_path / "head"
    base.mkdir()
    head.mkdir()
    (base / "Edge.yaml").write_text(NLB3.read_text(encoding="utf-8"), encoding="utf-8")
    _acked_template(head, REASON, "Edge.yaml")
    code, out, _ = run(capsys, "diff", "--base", str(base), "--head", str(head))
    assert out.startswith("NOTE: this change adds an acknowledgement of EO-NLB3 on Edge/Nlb: cross-zone off on purpose")
    code, out, _ = run(capsys, "report", "--base", str(base), "--head", str(head))
    top = out[: out.index("### ")]
    assert "> [!WARNING]" in top and "adds an acknowledgement of EO-NLB3 on Edge/Nlb" in top
    code, out, _ = run(capsys, "diff", "--base", str(base), "--head", str(head), "--format", "sarif")
    doc = json.loads(out)["runs"][0]
    assert doc["properties"]["notices"][0].startswith("adds an acknowledgement of EO-NLB3")
    assert any(r.get("suppressions") for r in doc["results"])


def test_head_config_changes_are_shown_not_applied(capsys, tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("fail-on: error\n", encoding="utf-8")
    (tmp_path / "head.yaml").write_text("fail-on: info\nignore:\n  EO-NLB: quiet please\n", encoding="utf-8")
    code, out, _ = run(capsys, "check", str(NLB3), "--fail-on", "warning", "--config", str(tmp_path / "base.yaml"),
                       "--head-config", str(tmp_path / "head.yaml"))
    assert code == 1  # the head's ignore is not applied
    notes = [line for line in out.splitlines() if line.startswith("NOTE: this change ")]
    assert notes and all("not applied" in n for n in notes)
    assert any("sets EO-NLB3 aside" in n and "quiet please" in n for n in notes)


def test_a_cdk_acknowledgement_without_a_reason_is_an_error_naming_the_construct(capsys, tmp_path: Path) -> None:
    out = tmp_path / "cdk.out"
    out.mkdir()
    body = json.loads((ROOT / "tests" / "fixtures" / "templates" / "rules" / "eo-dns4-fire.json").read_text())
    body["Resources"]["RecordA"]["Metadata"] = {"aws:cdk:path": "Origins/RecordA/Resource"}
    (out / "Origins.template.json").write_text(json.dumps(body))
    (out / "manifest.json").write_text(json.dumps({"artifacts": {"Origins": {
        "type": "aws:cloudformation:stack", "properties": {"templateFile": "Origins.template.json"}}}}))
    (out / "validation-report.json").write_text(json.dumps({"pluginReports": [{"pluginName": "EdgeOrigin", "suppressedViolations": [{
        "ruleName": "EdgeOrigin-EO-DNS4", "reason": " ", "violatingConstructs": [{"constructPath": "Origins/RecordA/Resource"}]}]}]}))
    code, text, _ = run(capsys, "check", str(out), "--format", "json", "--fail-on", "warning")
    doc = json.loads(text)
    (error,) = [f for f in doc["findings"] if f["rule"] == "EO-ACK1"]
    assert code == 1 and "CDK acknowledgement of EO-DNS4 on Origins/RecordA/Resource has no reason" in error["message"]
    assert any(f["rule"] == "EO-DNS4" for f in doc["findings"]) and doc["acknowledged"] == []


def test_junit_names_the_config_file_and_reason_for_a_rule_left_out(capsys, tmp_path: Path) -> None:
    _yaml_ignore(tmp_path, "ignore:\n  EO-SEC1: the WAF verifies the origin\n")
    code, out, _ = run(capsys, "check", "--format", "junit", str(NLB3))
    (case,) = [c for c in ET.fromstring(out).iter("testcase") if c.get("classname") == "EO-SEC1"]
    message = case.find("skipped").get("message")
    assert ".edge-origin.yaml ignore: EO-SEC1" in message and message.endswith(": the WAF verifies the origin")
    assert "--ignore" not in message


HOSTILE_REASONS = [
    "ok\n## APPROVED\n::error file=x::all good",
    "[APPROVED](https://evil.example) ![p](https://evil.example/p.png) <img src=x> <!--",
    "\u202eevil\u202c \u200bzero\u2060width {0} `code` | a | b |",
]


@pytest.mark.parametrize("reason", HOSTILE_REASONS)
def test_a_hostile_reason_keeps_every_format_s_structure(capsys, tmp_path: Path, reason: str) -> None:
    cmarkgfm = pytest.importorskip("cmarkgfm")
    path = _acked_template(tmp_path, reason)
    code, md, _ = run(capsys, "report", str(path))
    html = cmarkgfm.github_flavored_markdown_to_html(md, options=cmarkgfm.cmark.Options.CMARK_OPT_UNSAFE)
    assert "<a " not in html and "<img" not in html and "<!--" not in html and "APPROVED</h" not in html
    section = md[md.index("### Acknowledged"):]
    assert sum(line.startswith("| EO-NLB3 |") for line in section.splitlines()) == 1  # one row, the reason inside it
    for fmt in ("text", "github", "junit"):
        code, out, _ = run(capsys, "check", "--format", fmt, str(path))
        assert not any(line.startswith(("::error file=x", "## APPROVED")) for line in out.splitlines()), fmt
        assert not set(out) & {"\u202e", "\u200b"}, fmt
    doc = json.loads(run(capsys, "check", "--format", "json", str(path))[1])
    assert doc["acknowledged"][0]["suppression"]["reason"] == reason  # JSON keeps it exact
    sarif = json.loads(run(capsys, "check", "--format", "sarif", str(path))[1])
    (sup,) = [r["suppressions"][0] for r in sarif["runs"][0]["results"] if "suppressions" in r]
    assert "\n" not in sup["justification"] and "\u202e" not in sup["justification"]
