"""One rule for a tool the suite needs and does not find (tests/conftest.py: missing_tool):
a failure under CI=true, a skip that names the tool elsewhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = '''
from conftest import missing_tool

def test_needs_it():
    missing_tool("frobnicator not installed: run `npm ci`")
'''


def _run(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_probe.py").write_text(PROBE)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "tests")}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-p", "no:randomly", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )


@pytest.mark.parametrize("ci", [None, "false", ""])
def test_outside_ci_a_missing_tool_skips_with_the_reason(tmp_path: Path, ci: str | None) -> None:
    proc = _run(tmp_path, ci)
    assert proc.returncode == 0, proc.stdout
    assert "1 skipped" in proc.stdout and "frobnicator not installed: run `npm ci`" in proc.stdout


@pytest.mark.parametrize("ci", ["true", "TRUE"])
def test_under_ci_a_missing_tool_fails(tmp_path: Path, ci: str) -> None:
    proc = _run(tmp_path, ci)
    assert proc.returncode == 1, proc.stdout
    assert "1 failed" in proc.stdout and "frobnicator not installed" in proc.stdout and "CI=true" in proc.stdout


def test_the_cdk_cli_fixture_finds_the_projects_cli(cdk_cli: Path) -> None:
    assert cdk_cli.name == "cdk" and cdk_cli.exists()
