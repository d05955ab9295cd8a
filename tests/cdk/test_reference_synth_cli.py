"""The reference app through the real tools: CloudFormation validation on, cdk-nag, the CDK CLI, cfn-lint."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CDK_VALIDATION"}  # validation ON
    env.update(
        JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION="20",
        CDK_DISABLE_CLI_TELEMETRY="true",
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
    )
    return env


@pytest.fixture(scope="module")
def cli_out(cdk_cli: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "cdk.out"
    result = subprocess.run(
        [str(cdk_cli), "synth", "--quiet", "--no-notices", "--output", str(out)],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out


@pytest.mark.slow
def test_python_app_synthesizes_with_validation_and_cdk_nag(tmp_path: Path) -> None:
    env = _env()
    env["CDK_OUTDIR"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, "app.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads((tmp_path / "validation-report.json").read_text())
    plugins = {p["pluginName"]: p for p in report["pluginReports"]}
    assert plugins["AwsSolutions"]["conclusion"] == "success"
    reasons = {v["ruleName"]: v["reason"] for v in plugins["AwsSolutions"]["suppressedViolations"]}
    assert "AwsSolutions-ELB2" in reasons and "TLS listeners" in reasons["AwsSolutions-ELB2"]


@pytest.mark.slow
def test_cdk_cli_synth_produces_the_path(cli_out: Path) -> None:
    manifest = json.loads((cli_out / "manifest.json").read_text())
    assert "TelemetryIngest" in manifest["artifacts"]
    template = json.loads((cli_out / "TelemetryIngest.template.json").read_text())
    types = [r["Type"] for r in template["Resources"].values()]
    assert types.count("AWS::Route53::RecordSet") == 6
    assert (cli_out / "k8s" / "TelemetryIngest" / "Bindings.yaml").exists()
    eips = [r for r in template["Resources"].values() if r["Type"] == "AWS::EC2::EIP"]
    assert len(eips) == 6  # three real zones from cdk.json context, not dummy ones
    assert not any("dummy" in k.lower() for k in template["Resources"])


@pytest.mark.slow
def test_cfn_lint_reports_no_errors(cli_out: Path) -> None:
    cfn_lint = shutil.which("cfn-lint", path=str(Path(sys.executable).parent)) or "cfn-lint"
    result = subprocess.run(
        [cfn_lint, "--format", "parseable", str(cli_out / "TelemetryIngest.template.json")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    # parseable lines: file:line:col:end_line:end_col:RULE:message; exit code bit 2 = errors
    errors = [line for line in result.stdout.splitlines() if line.split(":")[5:6] and line.split(":")[5].startswith("E")]
    assert not errors, result.stdout
    assert result.returncode & 2 == 0, result.stdout + result.stderr
