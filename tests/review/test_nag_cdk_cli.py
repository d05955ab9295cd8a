"""The pack under the real CDK CLI: a weighted gRPC origin fails `cdk synth`; an acknowledgement passes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "tests" / "fixtures" / "cdk_app"


def _synth(cli: Path, tmp_path: Path, *context: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    work = tmp_path / "app"
    shutil.copytree(APP, work)
    env = dict(os.environ)
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(ROOT / "constructs"),
        JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION="20",
        CDK_DISABLE_CLI_TELEMETRY="true",
        CDK_VALIDATION="false",
    )
    out = tmp_path / "cdk.out"
    args = [str(cli), "synth", "--no-notices", "--quiet", "-o", str(out)]
    for item in context:
        args += ["-c", item]
    proc = subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=240)
    return proc, out


@pytest.mark.slow
def test_weighted_grpc_origin_fails_cdk_synth(cdk_cli: Path, tmp_path: Path) -> None:
    proc, _ = _synth(cdk_cli, tmp_path, "weighted=true")
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output
    assert "EO-DNS1" in output
    assert "FixtureRecords/Origin0/Resource" in output


@pytest.mark.slow
def test_acknowledged_finding_passes_and_keeps_the_reason(cdk_cli: Path, tmp_path: Path) -> None:
    proc, out = _synth(cdk_cli, tmp_path, "weighted=true", "acknowledge=true")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads((out / "validation-report.json").read_text())
    text = json.dumps(report)
    assert "EdgeOrigin::EdgeOrigin-EO-DNS1" in text
    assert "fixture: weighted on purpose for the test" in text
    # the CLI honours what CDK recorded as acknowledged in that cdk.out
    check = subprocess.run(
        [sys.executable, "-m", "edge_origin.cli", "check", str(out), "--format", "json"],
        env={**os.environ, "PYTHONPATH": str(ROOT / "constructs")}, capture_output=True, text=True, timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    checked = json.loads(check.stdout)
    assert "EO-DNS1" not in {f["rule"] for f in checked["findings"]}
    assert "EO-DNS1" in {f["rule"] for f in checked.get("acknowledged", [])}  # set aside, and shown as such


@pytest.mark.slow
def test_clean_fixture_synthesizes_and_checks_clean(cdk_cli: Path, tmp_path: Path) -> None:
    proc, out = _synth(cdk_cli, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    check = subprocess.run(
        [sys.executable, "-m", "edge_origin.cli", "check", str(out), "--format", "json"],
        env={**os.environ, "PYTHONPATH": str(ROOT / "constructs")}, capture_output=True, text=True, timeout=120,
    )
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout)["findings"] == []
    # a clean synth is quiet: no summary entry, so no "Acknowledge with 'EdgeOrigin::EdgeOrigin-Summary'"
    assert "Acknowledge with" not in proc.stdout + proc.stderr
    report = json.loads((out / "validation-report.json").read_text())
    assert [r for r in report["pluginReports"] if r["pluginName"] == "EdgeOrigin"] == []


@pytest.mark.slow
def test_stage_app_with_weighted_origin_fails_bare_cdk_synth(cdk_cli: Path, tmp_path: Path) -> None:
    """Stacks in a Stage are not selected by a bare `cdk synth`: the summary entry fails it anyway."""
    proc, out = _synth(cdk_cli, tmp_path, "weighted=true", "stage=true")
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output
    assert "Synthesis finished with errors" in output
    assert "2 unacknowledged finding(s)" in output and "Dev/FixtureRecords" in output
    report = json.loads((out / "validation-report.json").read_text())
    (pack,) = [r for r in report["pluginReports"] if r["pluginName"] == "EdgeOrigin"]
    assert pack["conclusion"] == "failure"
    assert {v["ruleName"] for v in pack["violations"]} == {"EdgeOrigin-EO-DNS1", "EdgeOrigin-Summary"}


@pytest.mark.slow
def test_stage_app_acknowledged_passes_with_a_summary_line(cdk_cli: Path, tmp_path: Path) -> None:
    proc, out = _synth(cdk_cli, tmp_path, "weighted=true", "stage=true", "acknowledge=true")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "no unacknowledged findings at or above error" in output
    report = json.loads((out / "validation-report.json").read_text())
    (pack,) = [r for r in report["pluginReports"] if r["pluginName"] == "EdgeOrigin"]
    summary = [v for v in pack["violations"] if v["ruleName"] == "EdgeOrigin-Summary"]
    assert summary and summary[0]["severity"] == "info"
    assert "2 stack(s) (Dev/FixtureEdge, Dev/FixtureRecords)" in summary[0]["description"]
