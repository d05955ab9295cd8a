"""A file the review could not read is in what a reviewer reads (redteam): a pile-up inside a file
that is bad input (a nested stack past the budget or in a cycle, a template that does not parse, a
nested template outside the folder) left SARIF with no result, the Markdown review empty (``report``
exited 2, the Action's step summary was blank) and the text "no findings ... 0 not judged". Now each
such file is an ``EO-READ1`` error in every format and in the review, counted as not judged, and no
selection, suppression or baseline sets it aside."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.cli import main

ROOT = Path(__file__).resolve().parents[2]
WEIGHTED = json.loads((ROOT / "tests" / "assembly" / "corpus" / "weighted-flat" / "App.template.json").read_text())
SARIF_SCHEMA = json.loads((ROOT / "tests" / "fixtures" / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
FORMATS = ("text", "json", "sarif", "github", "junit", "markdown")


def _nested(body: dict, url: str) -> dict:
    return {**body, "Resources": {**body["Resources"], "Kid": {"Type": "AWS::CloudFormation::Stack", "Properties": {"TemplateURL": url}}}}


def _write(folder: Path, how: str) -> Path:
    """The weighted pile-up in a file the loader cannot read, ``how`` it is bad; a good file beside it."""
    (folder / "good.template.json").write_text(json.dumps({"Resources": {"T": {"Type": "AWS::SNS::Topic"}}}))
    bad = folder / "App.template.json"
    if how == "syntax":
        bad.write_text(json.dumps(WEIGHTED)[:-1])
    elif how == "resources-not-a-mapping":
        bad.write_text(json.dumps({**WEIGHTED, "Conditions": 7}))
    elif how == "nested-cycle":
        bad.write_text(json.dumps(_nested(WEIGHTED, "App.template.json")))
    elif how == "nested-outside":
        bad.write_text(json.dumps(_nested(WEIGHTED, "../elsewhere.json")))
        (folder.parent / "elsewhere.json").write_text('{"Resources": {"T": {"Type": "AWS::SNS::Topic"}}}')
    elif how == "nested-over-budget":
        kid = {"Resources": {f"G{i}": {"Type": "AWS::CloudFormation::Stack", "Properties": {"TemplateURL": "grand.json"}} for i in range(8)}}
        body = {**WEIGHTED, "Resources": {**WEIGHTED["Resources"], **{f"K{i}": {"Type": "AWS::CloudFormation::Stack", "Properties": {"TemplateURL": "kid.json"}} for i in range(8)}}}
        bad.write_text(json.dumps(body))
        (folder / "kid.json").write_text(json.dumps(kid))
        (folder / "grand.json").write_text('{"Resources": {"T": {"Type": "AWS::SNS::Topic"}}}')
    return bad


@pytest.fixture(autouse=True)
def _small_nesting_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """The nested-stack budget at 40 (5000 in use): 8 x 8 nested stacks pass it, cheaply."""
    monkeypatch.setattr("edge_origin.model.assembly.MAX_NESTED_STACKS", 40)


HOW = ("syntax", "resources-not-a-mapping", "nested-cycle", "nested-outside", "nested-over-budget")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = 0
    with contextlib.suppress(SystemExit):
        code = main(list(argv))
    return code, capsys.readouterr().out


@pytest.mark.parametrize("how", HOW)
def test_a_file_not_read_is_in_every_format_and_the_review(capsys, tmp_path: Path, how: str) -> None:
    folder = tmp_path / "app"
    folder.mkdir()
    _write(folder, how)
    for fmt in FORMATS:
        code, out = _run(capsys, "check", str(folder), "--config", "none", "--format", fmt)
        assert code == 1 and "EO-READ1" in out and "App.template.json" in out, (how, fmt)
        if fmt == "json":
            doc = json.loads(out)
            assert doc["summary"]["not_judged"] >= 1 and doc["unreadable"]
        if fmt == "sarif":
            jsonschema = pytest.importorskip("jsonschema")
            jsonschema.validators.validator_for(SARIF_SCHEMA)(SARIF_SCHEMA).validate(json.loads(out))
            results = [r for r in json.loads(out)["runs"][0]["results"] if r["ruleId"] == "EO-READ1"]
            assert any("App.template.json" in r["message"]["text"] for r in results)
            assert all(r["level"] == "error" and r["message"]["text"].startswith("not judged: ") for r in results)
        if fmt == "text":
            assert "no findings" not in out and "0 not judged" not in out
    code, review = _run(capsys, "report", str(folder), "--config", "none")
    assert code == 0 and review.startswith("## edge-origin review: fails") and "| EO-READ1 |" in review


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(how=st.sampled_from(HOW), setting=st.sampled_from([
    ("--ignore", "EO: everything is fine"), ("--ignore", "EO-READ: cannot read it, fine"), ("--select", "EO-DNS1"),
]))
def test_no_selection_suppression_or_baseline_sets_it_aside(capsys, tmp_path_factory: pytest.TempPathFactory,
                                                             how: str, setting: tuple[str, str]) -> None:
    folder = tmp_path_factory.mktemp("app")
    _write(folder, how)
    code, out = _run(capsys, "check", str(folder), "--config", "none", "--format", "json", *setting)
    doc = json.loads(out) if out.startswith("{") else {"findings": []}
    if setting[1].startswith("EO-READ"):  # not a rule id of the catalogue: bad input, nothing set aside
        assert code == 2
        return
    assert code == 1 and any(f["rule"] == "EO-READ1" for f in doc["findings"])
    assert not any(f["rule"] == "EO-READ1" for f in doc["acknowledged"])
    baseline = folder / "baseline.json"
    _run(capsys, "check", str(folder), "--config", "none", "--create-baseline", str(baseline))
    assert not any(e["rule"] == "EO-READ1" for e in json.loads(baseline.read_text())["findings"])
    code, out = _run(capsys, "check", str(folder), "--config", "none", "--format", "json", "--baseline", str(baseline))
    assert code == 1 and any(f["rule"] == "EO-READ1" for f in json.loads(out)["findings"])
