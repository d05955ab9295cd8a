"""The GitHub Action's scripts as the runner calls them: a SARIF path in a missing folder (made),
one that cannot be made or written (one line, exit 2, no sarif-file for the upload step), and an
install of several requirements (a fake pip records what it was given)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "scripts" / "edge_origin_action.sh"
INSTALL = ROOT / "scripts" / "edge_origin_install.sh"
WEIGHTED = ROOT / "tests" / "fixtures" / "diff" / "naive-migration" / "base" / "Edge.template.json"  # weighted, errors

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")


def _action(tmp_path: Path, sarif: str, **env: str) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    output = tmp_path / "github_output.txt"
    output.write_text("")
    full = {
        **os.environ, "PYTHONPATH": str(ROOT / "constructs"), "EO_CLI": f"{sys.executable} -m edge_origin.cli",
        "EO_HEAD": str(WEIGHTED), "EO_SARIF": sarif, "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), **env,
    }
    proc = subprocess.run(["bash", str(ACTION)], env=full, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    lines = output.read_text(encoding="utf-8").splitlines()
    return proc, dict(line.split("=", 1) for line in lines)


def test_sarif_in_a_missing_folder_is_created(tmp_path: Path) -> None:
    sarif = tmp_path / "reports" / "nested" / "edge-origin.sarif"
    proc, out = _action(tmp_path, str(sarif))
    assert proc.returncode == 1, proc.stderr  # EO-DNS1 in the weighted template
    assert out["exit-code"] == "1" and out["sarif-file"] == str(sarif)
    assert "EO-DNS1" in {r["ruleId"] for r in json.loads(sarif.read_text())["runs"][0]["results"]}
    assert Path(out["report-file"]).read_text().startswith("## edge-origin review")


def test_relative_sarif_folder_is_created_in_the_workspace(tmp_path: Path) -> None:
    proc, out = _action(tmp_path, "out/edge-origin.sarif")
    assert proc.returncode == 1, proc.stderr
    assert (tmp_path / "out" / "edge-origin.sarif").stat().st_size > 0


@pytest.mark.parametrize("defer", ["", "1"])
def test_sarif_folder_that_cannot_be_made_is_one_line(tmp_path: Path, defer: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    proc, out = _action(tmp_path, str(blocker / "edge-origin.sarif"), EO_DEFER_EXIT=defer)
    assert proc.returncode == (0 if defer else 2)
    errors = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and "sarif-file" in errors[0] and "cannot create its folder" in errors[0], proc.stderr
    assert out == {"exit-code": "2", "sarif-file": "", "report-file": ""}  # the upload step is skipped
    assert "cannot create its folder" in (tmp_path / "summary.md").read_text()  # the job summary says why


def test_sarif_path_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dir.sarif").mkdir()
    proc, out = _action(tmp_path, str(tmp_path / "dir.sarif"))
    assert proc.returncode == 2 and "is a directory" in proc.stderr
    assert out["sarif-file"] == ""


def _install(tmp_path: Path, install: str, default: str = "/action") -> tuple[subprocess.CompletedProcess[str], list[str]]:
    record = tmp_path / "pip-args.json"
    fake = tmp_path / "fake_pip.py"
    fake.write_text(f"import json, sys\nopen({str(record)!r}, 'w').write(json.dumps(sys.argv[1:]))\n")
    env = {**os.environ, "EO_INSTALL": install, "EO_DEFAULT": default, "EO_PIP": f"{sys.executable} {fake}"}
    proc = subprocess.run(["bash", str(INSTALL)], env=env, capture_output=True, text=True, timeout=60)
    return proc, json.loads(record.read_text()) if record.exists() else []


def test_install_takes_several_requirements(tmp_path: Path) -> None:
    proc, args = _install(tmp_path, "edge-origin==0.2.0 cfn-lint>=1.58\n  -r requirements-ci.txt\n")
    assert proc.returncode == 0, proc.stderr
    assert args == ["install", "--quiet", "edge-origin==0.2.0", "cfn-lint>=1.58", "-r", "requirements-ci.txt"]


def test_install_defaults_to_the_action_checkout(tmp_path: Path) -> None:
    proc, args = _install(tmp_path, "  \n", default="/home/runner/work/_actions/edge-origin/v1")
    assert proc.returncode == 0, proc.stderr
    assert args == ["install", "--quiet", "/home/runner/work/_actions/edge-origin/v1"]


def test_install_of_nothing_is_one_line(tmp_path: Path) -> None:
    proc, args = _install(tmp_path, "", default="")
    assert proc.returncode == 2 and args == []
    assert proc.stderr.strip().count("\n") == 0 and "nothing to install" in proc.stderr


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_the_config_comes_from_the_pull_requests_base_and_the_heads_is_shown(tmp_path: Path) -> None:
    """Issue 50: a pull request that adds `.edge-origin.yaml` with `ignore` cannot silence its own review."""
    _git(tmp_path, "init", "-q")
    (tmp_path / "README").write_text("base\n")
    _git(tmp_path, "add", "README")
    _git(tmp_path, "commit", "-qm", "base")
    base_sha = _git(tmp_path, "rev-parse", "HEAD")
    (tmp_path / ".edge-origin.yaml").write_text("ignore:\n  EO-: nothing to see here\n")
    _git(tmp_path, "add", ".edge-origin.yaml")
    _git(tmp_path, "commit", "-qm", "head silences everything")
    proc, out = _action(tmp_path, "edge-origin.sarif", EO_BASE_REF=base_sha)
    assert proc.returncode == 1 and out["exit-code"] == "1", proc.stderr  # the base has no config: nothing set aside
    summary = (tmp_path / "summary.md").read_text()
    top = summary[: summary.index("### ")]
    assert "> [!WARNING]" in top and "sets EO-DNS1 aside" in top and "nothing to see here" in top and "not applied" in top
    proc, out = _action(tmp_path, "edge-origin.sarif", EO_BASE_REF=base_sha, EO_CONFIG_FROM="head")
    assert proc.returncode == 0, proc.stderr  # the workflow's author trusts the head: its config applies
    results = json.loads((tmp_path / "edge-origin.sarif").read_text())["runs"][0]["results"]
    assert results and all(r["suppressions"][0]["justification"] == "nothing to see here" for r in results)
    proc, out = _action(tmp_path, "edge-origin.sarif", EO_BASE_REF="0" * 40)  # fails closed: no settings applied
    assert proc.returncode == 1 and "cannot read the base commit" in proc.stderr
    assert "sets EO-DNS1 aside" in (tmp_path / out["report-file"]).read_text()
    proc, out = _action(tmp_path, "edge-origin.sarif", EO_CONFIG_FROM="pr")
    assert proc.returncode == 2 and "config-from 'pr': allowed base, head" in proc.stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_a_heads_pyproject_table_in_any_toml_spelling_is_shown(tmp_path: Path) -> None:
    """``[tool."edge-origin"]`` is the same TOML table as ``[tool.edge-origin]`` (the CLI reads both); the
    script looked for the bare spelling only, so a pull request that adds the quoted one had its ignore
    neither applied nor shown at the top of the review (redteam)."""
    _git(tmp_path, "init", "-q")
    (tmp_path / "README").write_text("base\n")
    _git(tmp_path, "add", "README")
    _git(tmp_path, "commit", "-qm", "base")
    base_sha = _git(tmp_path, "rev-parse", "HEAD")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\n\n[ tool."edge-origin" ]\nignore = {"EO-" = "quiet please"}\n')
    _git(tmp_path, "add", "pyproject.toml")
    _git(tmp_path, "commit", "-qm", "head silences everything")
    proc, out = _action(tmp_path, "edge-origin.sarif", EO_BASE_REF=base_sha)
    assert proc.returncode == 1 and out["exit-code"] == "1", proc.stderr  # not applied
    top = (tmp_path / "summary.md").read_text().split("### ", 1)[0]
    assert "sets EO-DNS1 aside" in top and "quiet please" in top and "not applied" in top
