"""`edge-origin check` / `report`: exit codes, formats, and bad input (exit 2, one line, no traceback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from edge_origin import cli

ROOT = Path(__file__).resolve().parents[2]
RULES_DIR = ROOT / "tests" / "fixtures" / "templates" / "rules"
WORLD = ROOT / "tests" / "fixtures" / "templates" / "world"
WORLD_PATHS = [str(WORLD / "Origins.yaml"), str(WORLD / "Edge.json")]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_world_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "check", *WORLD_PATHS)
    from edge_origin.rules import RULES

    # issue 51: the summary line (passed / failed / acknowledged / not judged) in every format
    summary = f"summary: {len(RULES)} passed, 0 failed, 0 acknowledged, 0 not judged (0 below fail-on error)\n"
    assert (code, out) == (0, "no findings\n" + summary)


def test_error_findings_exit_1_with_json_fields(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "check", str(RULES_DIR / "eo-dns1-fire.json"), "--format", "json")
    assert code == 1
    findings = json.loads(out)["findings"]
    assert {f["rule"] for f in findings} == {"EO-DNS1"}
    for f in findings:
        assert {"rule", "severity", "template", "stack", "resource", "message", "fix"} <= set(f)
        assert f["severity"] == "error" and f["template"].endswith("eo-dns1-fire.json")


def test_fail_on_threshold(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(RULES_DIR / "eo-nlb3-fire.yaml")
    assert _run(capsys, "check", path)[0] == 0
    assert _run(capsys, "check", path, "--fail-on", "warning")[0] == 1
    assert _run(capsys, "check", path, "--fail-on", "info")[0] == 1


def test_markdown_and_sarif(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(RULES_DIR / "eo-cf1-fire.yaml")
    code, out, _ = _run(capsys, "check", path, "--format", "markdown")
    assert code == 1 and out.startswith("| Severity | Rule |") and "EO-CF1" in out
    code, out, _ = _run(capsys, "check", path, "--format", "sarif")
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} >= {"EO-CF1", "EO-DNS1"}
    result = run["results"][0]
    assert result["ruleId"] == "EO-CF1" and result["level"] == "error"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("eo-cf1-fire.yaml")
    assert location["region"]["startLine"] == 3  # the line of `Dist:`


def _nested_json(depth: int) -> str:
    return '{"Resources": {"R": {"Type": "X", "Properties": {"A": ' + "[" * depth + "]" * depth + "}}}}"


def _nested_yaml(depth: int) -> str:
    lines = ["Resources:", "  R:", "    Type: X", "    Properties:"]
    lines += [" " * (6 + 2 * i) + f"k{i}:" for i in range(depth)]
    return "\n".join(lines) + " 1\n"


BAD = {
    "not-json-or-yaml": ("bad.json", "{not: [valid", "neither JSON nor YAML"),
    "yaml-not-a-template": ("list.yaml", "- a\n- b\n", "top level is not a mapping"),
    "yaml-without-resources": ("nores.yaml", "Description: nothing here\n", "no Resources mapping"),
    "empty-file": ("empty.yaml", "", "empty file"),
    "malformed-intrinsic": ("foo.yaml", "Resources:\n  R:\n    Type: X\n    Properties:\n      A: {Fn::GetAtt: 7}\n", "R: Fn::GetAtt needs [LogicalId, Attribute]"),
    "ref-to-missing": ("ref.yaml", "Resources:\n  R:\n    Type: X\n    Properties:\n      A: !Ref Nope\n", "R: Ref to 'Nope'"),
    "resource-without-type": ("notype.json", '{"Resources": {"R": {"Properties": {}}}}', "R: no Type"),
    "deep-json": ("deep.json", _nested_json(100_000), "nested"),
    "deep-yaml": ("deep.yaml", _nested_yaml(150), "nested deeper than 100"),
    "binary": ("bin.template", "\udcff", "not UTF-8"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_with_one_line(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name, text, expected = BAD[case]
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    code, out, err = _run(capsys, "check", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert str(path) in err and expected in err


def test_missing_file_and_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "check", str(tmp_path / "missing.yaml"))
    assert code == 2 and "missing.yaml: no such file or directory" in err
    locked = tmp_path / "locked.yaml"
    locked.write_text("Resources: {R: {Type: X}}\n")
    locked.chmod(0)
    try:
        code, _, err = _run(capsys, "check", str(locked))
        if os.geteuid() != 0:
            assert code == 2 and "locked.yaml: cannot read" in err
    finally:
        locked.chmod(0o600)


def test_empty_dir_and_dir_without_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = _run(capsys, "check", str(empty))
    assert code == 2 and "empty directory" in err
    noman = tmp_path / "cdk.out"
    noman.mkdir()
    (noman / "Stack.template.json").write_text('{"Resources": {"R": {"Type": "X"}}}')
    code, out, err = _run(capsys, "check", str(noman))
    assert code == 0 and err == "" and "no findings" in out  # a folder of plain templates is checked


def test_file_over_the_size_limit_is_rejected_before_parsing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # sparse: 50 MB without writing them
    code, _, err = _run(capsys, "check", str(big))
    assert code == 2 and "50 MiB, larger than the 16 MiB limit" in err


def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "check", *WORLD_PATHS, "--fail-on", "fatal")
    assert code == 2 and "allowed: error, warning, info" in err
    code, _, err = _run(capsys, "report", *WORLD_PATHS, "--format", "html")
    assert code == 2 and "allowed markdown, text" in err


def test_cdk_out_with_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cdk.out"
    out.mkdir()
    (out / "Origins.template.json").write_text(json.dumps(json.loads((RULES_DIR / "eo-dns1-fire.json").read_text())))
    manifest = {"version": "48.0.0", "artifacts": {"Origins": {"type": "aws:cloudformation:stack", "properties": {"templateFile": "Origins.template.json"}}}}
    (out / "manifest.json").write_text(json.dumps(manifest))
    code, out_text, _ = _run(capsys, "check", str(out), "--format", "json")
    assert code == 1
    assert {(f["stack"], f["rule"]) for f in json.loads(out_text)["findings"]} == {("Origins", "EO-DNS1")}


@pytest.mark.slow
def test_installed_entry_point_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("Resources: [")
    proc = subprocess.run(
        [sys.executable, "-m", "edge_origin.cli", "check", str(bad)],
        env={**os.environ, "PYTHONPATH": str(ROOT / "constructs")}, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_cdk_out_acknowledgements_from_validation_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cdk.out"
    (out / "assembly-Stage").mkdir(parents=True)
    body = json.loads((RULES_DIR / "eo-dns4-fire.json").read_text())
    body["Resources"]["RecordA"]["Metadata"] = {"aws:cdk:path": "Stage/Origins/RecordA/Resource"}
    (out / "assembly-Stage" / "StageOrigins.template.json").write_text(json.dumps(body))
    (out / "assembly-Stage" / "manifest.json").write_text(json.dumps({"artifacts": {"StageOrigins": {
        "type": "aws:cloudformation:stack", "properties": {"templateFile": "StageOrigins.template.json", "stackName": "Stage-Origins"}}}}))
    (out / "manifest.json").write_text(json.dumps({"artifacts": {"assembly-Stage": {
        "type": "cdk:cloud-assembly", "properties": {"directoryName": "assembly-Stage"}}}}))
    code, text, _ = _run(capsys, "check", str(out), "--format", "json", "--fail-on", "warning")
    assert code == 1 and [(f["stack"], f["rule"]) for f in json.loads(text)["findings"]] == [("Stage-Origins", "EO-DNS4")]
    report = {"pluginReports": [{"pluginName": "EdgeOrigin", "suppressedViolations": [{
        "ruleName": "EdgeOrigin-EO-DNS4", "reason": "resolver pinning", "acknowledgedId": "EdgeOrigin::EdgeOrigin-EO-DNS4",
        "violatingConstructs": [{"constructPath": "Stage/Origins/RecordA/Resource"}]}]}]}
    (out / "validation-report.json").write_text(json.dumps(report))
    code, text, _ = _run(capsys, "check", str(out), "--format", "json", "--fail-on", "warning")
    doc = json.loads(text)
    # issue 50: the acknowledged finding stays in the output, with its reason and where CDK recorded it
    assert (code, doc["findings"], doc["summary"]["acknowledged"]) == (0, [], 1)
    (acked,) = doc["acknowledged"]
    assert (acked["rule"], acked["path"]) == ("EO-DNS4", "Stage/Origins/RecordA/Resource")
    assert acked["suppression"] == {"kind": "inSource", "reason": "resolver pinning",
                                    "source": "CDK Validations.acknowledge (cdk.out validation-report.json)",
                                    "where": "Stage/Origins/RecordA/Resource"}
