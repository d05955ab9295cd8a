"""A small stand-in for the GitHub Actions runner: it runs the workflow block of docs/review.md step by
step, and this repository's composite action (action.yml) inside it, as GitHub would on a pull request.

What it fakes, and only that: the checkouts (folders the caller gives), `setup-node` / `setup-python`
(skipped: the machine's own), the SARIF upload (the file is recorded), GitHub's files
(`GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT`, `GITHUB_ENV`) and `${{ }}` expressions (the few forms the two
files use: `inputs.X`, `steps.ID.outputs.X`, `github.action_path`, `github.event.pull_request.base.sha`,
`always()`, `==`, `!=`, `&&`, `||`). `run:` steps run with bash as GitHub does
(`bash --noprofile --norc -eo pipefail`); a step that fails fails the job and skips the steps after it
whose `if:` does not hold.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def workflow_from_markdown(markdown: str) -> dict[str, Any]:
    """The first ```yaml block of ``markdown`` that is a pull-request workflow."""
    for block in re.findall(r"```yaml\n(.*?)```", markdown, flags=re.S):
        doc = yaml.safe_load(block)
        if isinstance(doc, dict) and "jobs" in doc:
            return doc
    raise AssertionError("no workflow (a ```yaml block with jobs:) in the document")


@dataclass
class StepResult:
    name: str
    outcome: str  # success | failure | skipped
    stdout: str = ""
    stderr: str = ""


@dataclass
class JobRun:
    steps: list[StepResult] = field(default_factory=list)
    summary: str = ""
    uploaded_sarif: list[Path] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(s.outcome == "failure" for s in self.steps)

    def step(self, prefix: str) -> StepResult:
        return next(s for s in self.steps if s.name.startswith(prefix))


@dataclass
class Runner:
    """Runs one job. ``checkout(path_in_workspace, ref)`` fills a checkout; ``env`` is the machine's."""

    workspace: Path
    checkout: Callable[[Path, str | None], None]
    env: dict[str, str]
    base_sha: str = "b" * 40
    run: JobRun = field(default_factory=JobRun)

    def __post_init__(self) -> None:
        self.gh = self.workspace.parent / "_github"
        self.gh.mkdir(parents=True, exist_ok=True)
        self.summary = self.gh / "step_summary.md"
        self.summary.write_text("")

    # --- expressions ---------------------------------------------------------------------------
    def _value(self, ref: str, inputs: dict[str, str], outputs: dict[str, dict[str, str]], action_path: str) -> str:
        if ref.startswith("inputs."):
            return inputs.get(ref[7:], "")
        if ref.startswith("steps."):
            _, sid, _, key = ref.split(".", 3)
            return outputs.get(sid, {}).get(key, "")
        known = {"github.action_path": action_path, "github.event.pull_request.base.sha": self.base_sha}
        if ref in known:
            return known[ref]
        raise AssertionError(f"expression the stand-in does not know: {ref}")

    def expand(self, text: str, inputs: dict[str, str], outputs: dict[str, dict[str, str]], action_path: str = "") -> str:
        return EXPR.sub(lambda m: self._value(m.group(1), inputs, outputs, action_path), str(text))

    def condition(self, cond: str | None, inputs: dict[str, str], outputs: dict[str, dict[str, str]], failed: bool) -> bool:
        if cond is None:
            return not failed
        body = EXPR.fullmatch(cond.strip())
        text = body.group(1) if body else cond
        uses_always = "always()" in text
        refs = re.sub(r"(inputs|steps)\.[A-Za-z0-9_.-]+", lambda m: repr(self._value(m.group(0), inputs, outputs, "")), text)
        py = refs.replace("always()", "True").replace("&&", " and ").replace("||", " or ").replace("'", '"')
        if not re.fullmatch(r'[\sA-Za-z"=!0-9._/-]*', py.replace("and", "").replace("or", "").replace("True", "")):
            raise AssertionError(f"condition the stand-in does not evaluate: {cond}")
        holds = bool(eval(py, {"__builtins__": {}}))  # noqa: S307 - our own two files, checked to plain comparisons above
        return holds and (uses_always or not failed)

    # --- steps -----------------------------------------------------------------------------------
    def _bash(self, script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
        output = self.gh / "output.txt"
        output.write_text("")
        full = {**self.env, **env, "GITHUB_STEP_SUMMARY": str(self.summary), "GITHUB_OUTPUT": str(output),
                "GITHUB_WORKSPACE": str(self.workspace)}
        full.pop("GITHUB_ACTIONS", None)
        return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=cwd, env=full,
                              capture_output=True, text=True, timeout=900)

    def _outputs(self) -> dict[str, str]:
        lines = (self.gh / "output.txt").read_text(encoding="utf-8").splitlines()
        return dict(line.split("=", 1) for line in lines if "=" in line)

    def _uses(self, uses: str, with_: dict[str, str], failed: bool) -> tuple[str, dict[str, str]]:
        name = uses.split("@", 1)[0]
        if name == "actions/checkout":
            ref = with_.get("ref")
            self.checkout(self.workspace / with_.get("path", "."), ref)
            return "success", {}
        if name in ("actions/setup-node", "actions/setup-python"):
            return "success", {}
        if name == "github/codeql-action/upload-sarif":
            sarif = self.workspace / with_["sarif_file"]
            assert sarif.is_file(), f"upload-sarif: {sarif} does not exist"
            self.run.uploaded_sarif.append(sarif)
            return "success", {}
        if name.endswith("/edge-origin"):
            return self.action(with_)
        raise AssertionError(f"an action the stand-in does not know: {uses}")

    def action(self, with_: dict[str, str]) -> tuple[str, dict[str, str]]:
        """This repository's action.yml, its composite steps in order (outputs mapped back)."""
        spec = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
        unknown = set(with_) - set(spec["inputs"])
        assert not unknown, f"inputs action.yml does not declare: {unknown}"
        inputs = {k: str(v.get("default", "")) for k, v in spec["inputs"].items()}
        inputs.update({k: str(v) for k, v in with_.items()})
        outputs: dict[str, dict[str, str]] = {}
        failed = False
        for step in spec["runs"]["steps"]:
            name = f"action: {step.get('name', step.get('uses', ''))}"
            if not self.condition(step.get("if"), inputs, outputs, failed):
                self.run.steps.append(StepResult(name, "skipped"))
                continue
            if "uses" in step:
                w = {k: self.expand(v, inputs, outputs, str(ROOT)) for k, v in (step.get("with") or {}).items()}
                outcome, _ = self._uses(step["uses"], w, failed)
                self.run.steps.append(StepResult(name, outcome))
                continue
            env = {k: self.expand(v, inputs, outputs, str(ROOT)) for k, v in (step.get("env") or {}).items()}
            proc = self._bash(self.expand(step["run"], inputs, outputs, str(ROOT)), env, self.workspace)
            outputs[step.get("id", "")] = self._outputs()
            outcome = "success" if proc.returncode == 0 else "failure"
            failed = failed or outcome == "failure"
            self.run.steps.append(StepResult(name, outcome, proc.stdout, proc.stderr))
        action_outputs = {k: self.expand(v["value"], inputs, outputs) for k, v in spec.get("outputs", {}).items()}
        return ("failure" if failed else "success"), action_outputs

    def job(self, workflow: dict[str, Any]) -> JobRun:
        (job,) = workflow["jobs"].values()
        self.workspace.mkdir(parents=True, exist_ok=True)
        failed = False
        for step in job["steps"]:
            name = step.get("name", step.get("uses", "run"))
            if not self.condition(step.get("if"), {}, {}, failed):
                self.run.steps.append(StepResult(name, "skipped"))
                continue
            if "uses" in step:
                with_ = {k: self.expand(v, {}, {}) for k, v in (step.get("with") or {}).items()}
                outcome, _ = self._uses(step["uses"], with_, failed)
                self.run.steps.append(StepResult(name, outcome))
            else:
                env = {k: str(v) for k, v in (step.get("env") or {}).items()}
                proc = self._bash(step["run"], env, self.workspace)
                outcome = "success" if proc.returncode == 0 else "failure"
                self.run.steps.append(StepResult(name, outcome, proc.stdout, proc.stderr))
            failed = failed or outcome == "failure"
        self.run.summary = self.summary.read_text(encoding="utf-8")
        return self.run


def fake_bin(folder: Path, python: str, *, npx: str | None = None) -> Path:
    """``npm`` (does nothing), ``python`` (``-m pip ...`` does nothing, the rest is ``python``),
    ``edge-origin`` (this checkout's CLI) and, when ``npx`` is given, an ``npx`` running that script."""
    folder.mkdir(parents=True, exist_ok=True)
    scripts = {
        "npm": "#!/usr/bin/env bash\nexit 0\n",
        "python": f'#!/usr/bin/env bash\nif [[ "$1" == "-m" && "$2" == "pip" ]]; then exit 0; fi\nexec {python} "$@"\n',
        "edge-origin": f"#!/usr/bin/env bash\nexec {python} -m edge_origin.cli \"$@\"\n",
    }
    scripts["python3"] = scripts["python"]
    if npx is not None:
        scripts["npx"] = npx
    for name, text in scripts.items():
        (folder / name).write_text(text)
        (folder / name).chmod(0o755)
    return folder


def copy_tree(src: Path, dst: Path) -> None:
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copytree(src, dst, dirs_exist_ok=True)


def machine_env(bin_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT / "constructs")
    env["EO_PIP"] = "true"  # the action's install step: nothing to install, this checkout is on PYTHONPATH
    return env
