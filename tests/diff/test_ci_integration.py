"""The GitHub Action (action.yml + scripts/edge_origin_action.sh) and the pre-commit hooks.

The metadata checks follow GitHub's "Metadata syntax for GitHub Actions" (name, description, runs;
inputs need a description; composite outputs need a description and a value; composite steps that
`run` need a `shell`) and pre-commit's hook schema (id, name, entry, language required; the rest
from the known keys). The script runs locally on the diff fixtures, as the action runs it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "tests" / "fixtures" / "diff"
SCRIPT = ROOT / "scripts" / "edge_origin_action.sh"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")

PRE_COMMIT_KEYS = {
    "id", "name", "entry", "language", "alias", "files", "exclude", "types", "types_or", "exclude_types",
    "additional_dependencies", "args", "always_run", "fail_fast", "pass_filenames", "description",
    "language_version", "log_file", "minimum_pre_commit_version", "require_serial", "stages", "verbose",
}
PRE_COMMIT_LANGUAGES = {
    "conda", "coursier", "dart", "docker", "docker_image", "dotnet", "fail", "golang", "haskell", "julia",
    "lua", "node", "perl", "pygrep", "python", "r", "ruby", "rust", "swift", "script", "system", "unsupported",
    "unsupported_script",
}


def test_action_metadata_follows_the_action_syntax() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert {"name", "description", "runs"} <= set(action)
    assert set(action) <= {"name", "author", "description", "inputs", "outputs", "runs", "branding"}
    for key, spec in action["inputs"].items():
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key)
        assert isinstance(spec.get("description"), str) and spec["description"], key
        assert set(spec) <= {"description", "required", "default", "deprecationMessage"}, key
    for key, spec in action["outputs"].items():
        assert {"description", "value"} <= set(spec), key
    runs = action["runs"]
    assert runs["using"] == "composite" and runs["steps"]
    ids = set()
    for step in runs["steps"]:
        assert ("run" in step) != ("uses" in step), step
        if "run" in step:
            assert step.get("shell") in ("bash", "pwsh", "python", "sh", "cmd", "powershell"), step
        if "uses" in step:
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[\w.-]+", step["uses"]), step["uses"]
        ids.add(step.get("id"))
    # every steps.<id> referenced exists, every inputs.<name> referenced is declared
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    for expr in EXPRESSION.findall(text):
        for step_id in re.findall(r"steps\.([\w-]+)\.", expr):
            assert step_id in ids, expr
        for name in re.findall(r"inputs\.([\w-]+)", expr):
            assert name in action["inputs"], expr
    # untrusted inputs reach the shell through env, never spliced into a script
    for step in runs["steps"]:
        assert "inputs." not in "".join(EXPRESSION.findall(step.get("run", ""))), step["name"]
    assert action["branding"]["icon"] and action["branding"]["color"]


def test_pre_commit_hooks_follow_the_hook_schema() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(hooks, list) and hooks
    for hook in hooks:
        assert {"id", "name", "entry", "language"} <= set(hook), hook
        assert set(hook) <= PRE_COMMIT_KEYS, set(hook) - PRE_COMMIT_KEYS
        assert hook["language"] in PRE_COMMIT_LANGUAGES
        assert hook["entry"].split()[0] == "edge-origin"
        if "files" in hook:
            re.compile(hook["files"])
        for key in ("args", "types_or", "types"):
            assert isinstance(hook.get(key, []), list)
    ids = [h["id"] for h in hooks]
    assert len(ids) == len(set(ids)) and "edge-origin-check" in ids
    pattern = re.compile(next(h for h in hooks if h["id"] == "edge-origin-check")["files"])
    assert pattern.search("infra/Edge.template.json") and pattern.search("Edge.template.yaml")
    assert not pattern.search("package.json")


def test_console_script_matches_the_hook_entry() -> None:
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["edge-origin"] == "edge_origin.cli:entry"  # main, then a flushed exit (issue 53)


def run_action(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    full = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "constructs"),
        "EO_CLI": f"{sys.executable} -m edge_origin.cli",
        "EO_SARIF": str(tmp_path / "out.sarif"),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(output),
        **env,
    }
    proc = subprocess.run(["bash", str(SCRIPT)], env=full, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    return proc, summary, output


def outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines())


needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")


@needs_bash
def test_action_script_diff_fails_on_a_naive_migration(tmp_path: Path) -> None:
    case = PAIRS / "naive-migration"
    proc, summary, output = run_action(tmp_path, EO_BASE=str(case / "base" / "Edge.template.json"),
                                       EO_HEAD=str(case / "head" / "Edge.template.json"))
    assert proc.returncode == 1, proc.stderr
    assert "### What this change does" in summary.read_text(encoding="utf-8")
    out = outputs(output)
    assert out["exit-code"] == "1"
    sarif = json.loads(Path(out["sarif-file"]).read_text(encoding="utf-8"))
    results = sarif["runs"][0]["results"]
    assert "EO-CHG1" in {r["ruleId"] for r in results}
    assert all("partialFingerprints" in r and r["baselineState"] in ("new", "unchanged") for r in results)


@needs_bash
def test_action_script_defers_the_exit_and_checks_without_base(tmp_path: Path) -> None:
    head = PAIRS / "naive-migration" / "base" / "Edge.template.json"  # weighted gRPC records, one address each: EO-DNS1
    proc, summary, output = run_action(tmp_path, EO_HEAD=f"{head}\n", EO_DEFER_EXIT="1")
    assert proc.returncode == 0, proc.stderr
    assert outputs(output)["exit-code"] == "1"
    assert "## edge-origin review" in summary.read_text(encoding="utf-8")


@needs_bash
def test_action_script_quiet_change_and_bad_input(tmp_path: Path) -> None:
    case = PAIRS / "ttl-lowered"
    proc, _, output = run_action(tmp_path, EO_BASE=str(case / "base" / "Edge.template.json"),
                                 EO_HEAD=str(case / "head" / "Edge.template.json"))
    assert proc.returncode == 0 and outputs(output)["exit-code"] == "0"
    bad = tmp_path / "bad"
    bad.mkdir()
    proc, summary, output = run_action(bad, EO_BASE=str(tmp_path / "missing.json"), EO_HEAD=str(case / "head" / "Edge.template.json"))
    assert proc.returncode == 2
    assert outputs(output)["sarif-file"] == ""
    assert "bad input" in summary.read_text(encoding="utf-8") and "missing.json" in summary.read_text(encoding="utf-8")
    proc, _, _ = run_action(bad, EO_HEAD="  ")
    assert proc.returncode == 2 and "EO_HEAD" in proc.stderr
