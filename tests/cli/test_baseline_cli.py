"""Issue 51 item 3, adoption: `check --create-baseline FILE` / `--baseline FILE` (known findings pass,
new ones fail, fixed ones are reported; matched by rule + fingerprint, else rule + construct path,
never by line), `--soft-fail`, and the summary line in every format."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.cli import main
from edge_origin.core.findings import Finding, Severity
from edge_origin.review.baseline import (
    Baseline,
    BaselineEntry,
    apply_baseline,
    baseline_document,
    load_baseline,
)

ROOT = Path(__file__).resolve().parents[2]
DNS1 = ROOT / "tests" / "fixtures" / "templates" / "rules" / "eo-dns1-fire.json"
NLB3 = ROOT / "tests" / "fixtures" / "templates" / "rules" / "eo-nlb3-fire.yaml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["check", "--config", "none", *argv])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def edge(tmp_path: Path) -> Path:
    body = json.loads(DNS1.read_text())
    body["Resources"]["RecordA"]["Metadata"] = {"aws:cdk:path": "Edge/Weighted1/Resource"}
    path = tmp_path / "Edge.json"
    path.write_text(json.dumps(body, indent=1))
    return path


def test_create_then_baseline_passes_a_new_finding_fails_a_fixed_one_is_reported(capsys, tmp_path: Path, edge: Path) -> None:
    base = tmp_path / "baseline.json"
    code, out, err = run(capsys, str(edge), "--create-baseline", str(base))
    assert code == 0 and "EO-DNS1" in out and f"wrote 2 finding(s) to the baseline {base}" in err
    assert {e.resource for e in load_baseline(base).entries} == {"RecordA", "RecordB"}
    code, out, _ = run(capsys, str(edge), "--baseline", str(base), "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["findings"] == [] and doc["summary"]["baseline"] == 2 and doc["summary"]["fixed"] == 0
    assert {f["suppression"]["source"] for f in doc["acknowledged"]} == {"baseline (--baseline)"}
    # the file moved around, lines shifted, RecordA renamed (same construct path): still known; a new record fails
    body = json.loads(edge.read_text())
    body["Resources"] = {"Padding": {"Type": "AWS::SNS::Topic"}, **body["Resources"]}
    body["Resources"]["RecordRenamed"] = body["Resources"].pop("RecordA")
    third = json.loads(json.dumps(body["Resources"]["RecordB"]))
    third["Properties"]["SetIdentifier"] = "C"
    body["Resources"]["RecordC"] = third
    edge.write_text(json.dumps(body, indent=4))
    code, out, _ = run(capsys, str(edge), "--baseline", str(base), "--format", "json")
    doc = json.loads(out)
    assert code == 1 and [f["resource"] for f in doc["findings"] if f["rule"] == "EO-DNS1"] == ["RecordC"]
    assert {f["resource"] for f in doc["acknowledged"]} == {"RecordRenamed", "RecordB"}
    # a fixed one: RecordB removed
    del body["Resources"]["RecordB"], body["Resources"]["RecordC"]
    edge.write_text(json.dumps(body))
    code, out, _ = run(capsys, str(edge), "--baseline", str(base))
    assert out.endswith("fixed since the baseline: 1\nfixed   EO-DNS1 Edge/RecordB\n") and "1 fixed)" in out


def test_soft_fail_exits_0_and_still_prints(capsys, edge: Path) -> None:
    code, out, err = run(capsys, str(edge), "--soft-fail")
    assert code == 0 and out.count("error   EO-DNS1") == 2 and "exit 0 (--soft-fail)" in err
    assert "summary: " in out and " 2 failed," in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json {", "baseline"),
        ('{"findings": []}', "not an edge-origin baseline"),
        ('{"edge-origin-baseline": 1, "findings": [{"rule": 3}]}', "findings[0] must be a mapping of strings"),
        (None, "directory"),
    ],
)
def test_a_bad_baseline_is_one_line_naming_it(capsys, tmp_path: Path, edge: Path, content: str | None, message: str) -> None:
    path = tmp_path / "b.json"
    if content is None:
        path.mkdir()
    else:
        path.write_text(content)
    code, out, err = run(capsys, str(edge), "--baseline", str(path))
    assert code == 2 and message in err and str(path) in err and len(err.strip().splitlines()) == 1, err
    assert run(capsys, str(edge), "--baseline", str(path), "--create-baseline", str(path))[0] == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_baseline_does_not_hang(capsys, tmp_path: Path, edge: Path) -> None:
    fifo = tmp_path / "b.fifo"
    os.mkfifo(fifo)
    code, _, err = run(capsys, str(edge), "--baseline", str(fifo))
    assert code == 2 and "FIFO" in err


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "markdown", "github"])
def test_the_summary_line_is_in_every_format(capsys, fmt: str) -> None:
    code, out, _ = run(capsys, str(NLB3), "--format", fmt, "--fail-on", "warning", "--ignore", "EO-SEC1: verified by WAF")
    assert code == 1  # EO-NLB3 three times: termination at deregistration unset, unhealthy-target termination unset, cross-zone off
    if fmt == "json":
        summary = json.loads(out)["summary"]
        assert (summary["failed"], summary["acknowledged"], summary["not_judged"]) == (3, 0, 0) and summary["passed"] > 0
    elif fmt == "sarif":
        assert json.loads(out)["runs"][0]["properties"]["summary"]["failed"] == 3
    elif fmt == "junit":
        suite = ET.fromstring(out).find("testsuite")
        props = {p.get("name"): p.get("value") for p in suite.find("properties")}
        assert props["edge-origin.failed"] == "3" and "summary: " in suite.find("system-out").text
    else:
        (line,) = [x for x in out.splitlines() if "passed," in x]
        assert " 3 failed, 0 acknowledged, 0 not judged (0 below fail-on warning)" in line


def _f(rule: str, resource: str, path: str = "", message: str = "m") -> Finding:
    return Finding(rule, Severity.ERROR, message, "fix", "t.json", "S", resource, path)


POOL = [_f(r, res, p) for r in ("EO-DNS1", "EO-NLB3") for res, p in (("A", "S/a/Resource"), ("B", ""), ("C", "S/c/Resource"))]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(range(len(POOL))), unique=True), st.lists(st.sampled_from(range(len(POOL))), unique=True))
def test_a_baseline_splits_any_run_into_known_new_and_fixed(before: list[int], after: list[int]) -> None:
    doc = baseline_document([POOL[i] for i in sorted(before)])
    baseline = Baseline("b", tuple(BaselineEntry(**e) for e in doc["findings"]))  # type: ignore[arg-type]
    now = [POOL[i] for i in sorted(after)]
    split = apply_baseline(now, baseline)
    assert {id(f) for f in split.new} | {id(f) for f in split.known} == {id(f) for f in now}
    assert len(split.known) + len(split.fixed) == len(before)
    assert {(f.rule, f.resource) for f in split.known} == {(POOL[i].rule, POOL[i].resource) for i in set(before) & set(after)}
