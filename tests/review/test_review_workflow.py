"""docs/review.md's pull-request workflow, run as GitHub would run it (issue 51 item 1): the block from the
document, its steps and this repository's action.yml, with GitHub's files faked (tests/review/gh_workflow.py).

Done when: on a bad PR the documented workflow writes the summary and the SARIF, then fails; on a good PR it
passes. The fast tests synthesize with a stand-in for ``npx cdk synth`` that behaves as the plugin does (a
head with error findings fails unless report-only is on) over committed templates; one slow test runs the
real CDK CLI on a plain-L2 app whose pile-up sits inside a ``cdk.NestedStack`` (issue 49 item 4).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.review.gh_workflow import (
    ROOT,
    JobRun,
    Runner,
    copy_tree,
    fake_bin,
    machine_env,
    workflow_from_markdown,
)

DIFF = ROOT / "tests" / "fixtures" / "diff"
CLEAN = DIFF / "safe-migration" / "head"       # multivalue, health-checked: no error finding
WEIGHTED = DIFF / "naive-migration" / "base"   # weighted records of a gRPC origin: EO-DNS1 errors
OTHER_CLEAN = DIFF / "tags-only"               # base -> head: tags only

SYNTH = "Synthesize main and the PR head, report-only (findings recorded, synth passes)"
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")

#: ``npx cdk synth ... -o DIR`` over a checkout that holds templates: what the plugin would do to them
#: (fail on error findings unless report-only is on), then the templates copied as the synthesized output.
FAKE_SYNTH = f"""#!/usr/bin/env bash
[[ "$1" == "cdk" && "$2" == "synth" ]] || {{ echo "fake npx: only 'cdk synth'" >&2; exit 97; }}
out=cdk.out; args=("$@")
for ((i = 0; i < ${{#args[@]}}; i++)); do [[ "${{args[$i]}}" == "-o" ]] && out="${{args[$((i + 1))]}}"; done
if [[ "${{EDGE_ORIGIN_REPORT_ONLY:-}}" != "1" ]]; then
    {sys.executable} -m edge_origin.cli check *.template.json > /dev/null || {{ echo "Synthesis finished with errors" >&2; exit 1; }}
fi
mkdir -p "$out" && cp *.template.json "$out"/
"""


def _workflow() -> dict:
    return workflow_from_markdown((ROOT / "docs" / "review.md").read_text(encoding="utf-8"))


def _run(tmp_path: Path, base: Path, head: Path, *, npx: str) -> JobRun:
    runner_ref: list[Runner] = []

    def checkout(where: Path, ref: str | None) -> None:
        if ref is None:
            copy_tree(head, where)
        else:
            assert ref == runner_ref[0].base_sha, "the base checkout must be the PR's base commit"
            copy_tree(base, where)

    env = machine_env(fake_bin(tmp_path / "bin", sys.executable, npx=npx))
    runner = Runner(tmp_path / "work", checkout, env)
    runner_ref.append(runner)
    return runner.job(_workflow())


def _sarif_rules(run: JobRun) -> list[str]:
    (sarif,) = run.uploaded_sarif
    return [r["ruleId"] for r in json.loads(sarif.read_text())["runs"][0]["results"]]


def _explain(run: JobRun) -> str:
    return "\n".join(f"{s.name}: {s.outcome}\n{s.stdout[-1500:]}{s.stderr[-1500:]}" for s in run.steps)


def test_the_workflow_on_a_bad_pr_writes_the_review_and_sarif_then_fails(tmp_path: Path) -> None:
    run = _run(tmp_path, CLEAN, WEIGHTED, npx=FAKE_SYNTH)
    outcomes = {s.name: s.outcome for s in run.steps}
    assert run.failed, _explain(run)
    assert outcomes[SYNTH] == "success", _explain(run)
    assert outcomes["action: Run edge-origin"] == "success"  # the review is written before anything fails
    assert outcomes["action: Upload SARIF to code scanning"] == "success"
    assert outcomes["action: Fail on findings"] == "failure"  # ... and the job fails last
    assert "EO-DNS1" in _sarif_rules(run)
    assert "edge-origin" in run.summary and "EO-DNS1" in run.summary and "What this change does" in run.summary


def test_the_workflow_on_a_good_pr_passes(tmp_path: Path) -> None:
    run = _run(tmp_path, OTHER_CLEAN / "base", OTHER_CLEAN / "head", npx=FAKE_SYNTH)
    assert not run.failed, _explain(run)
    assert {s.name: s.outcome for s in run.steps}["action: Fail on findings"] == "skipped"
    assert "error" not in {json.loads(p.read_text())["runs"][0]["results"][i]["level"]
                           for p in run.uploaded_sarif for i in range(len(json.loads(p.read_text())["runs"][0]["results"]))}
    assert "What this change does" in run.summary


def test_without_report_only_the_bad_pr_gets_no_review(tmp_path: Path) -> None:
    """Why the synth step sets EDGE_ORIGIN_REPORT_ONLY: without it the head's synth fails and the
    review, the upload and the summary never run (issue 51's first complaint)."""
    workflow = _workflow()
    (job,) = workflow["jobs"].values()
    for step in job["steps"]:
        (step.get("env") or {}).pop("EDGE_ORIGIN_REPORT_ONLY", None)
    runner = Runner(tmp_path / "work", lambda where, ref: copy_tree(CLEAN if ref else WEIGHTED, where),
                    machine_env(fake_bin(tmp_path / "bin", sys.executable, npx=FAKE_SYNTH)))
    run = runner.job(workflow)
    assert run.failed and run.uploaded_sarif == [] and run.summary == ""


# --- the real CDK CLI: report-only synth of a nested pile-up, then the review ------------------------------
def _app_checkout(side: str) -> callable:
    def checkout(where: Path, ref: str | None) -> None:
        copy_tree(ROOT / "tests" / "fixtures" / "pr_app", where)
        chosen = "good" if ref else side
        (where / "cdk.json").write_text(json.dumps({"app": "python app.py", "context": {"pr:side": chosen}}))
    return checkout


@pytest.mark.slow
def test_the_documented_workflow_with_the_real_cdk_cli_on_a_nested_pile_up(cdk_cli: Path, tmp_path: Path) -> None:
    real_npx = f'#!/usr/bin/env bash\n[[ "$1" == "cdk" ]] || exit 97\nshift\nexec {cdk_cli} "$@" --no-notices\n'
    env = machine_env(fake_bin(tmp_path / "bin", sys.executable, npx=real_npx))
    env.update(CDK_DISABLE_CLI_TELEMETRY="true", CDK_VALIDATION="false", JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION="20")
    runner = Runner(tmp_path / "work", _app_checkout("bad"), env)
    run = runner.job(_workflow())
    outcomes = {s.name: s.outcome for s in run.steps}
    assert outcomes[SYNTH] == "success", _explain(run)  # report-only: the bad head synthesizes (exit 0)
    assert outcomes["action: Fail on findings"] == "failure", _explain(run)
    assert "EO-DNS1" in _sarif_rules(run) and "EO-DNS1" in run.summary
    report = json.loads((tmp_path / "work" / "cdk.out" / "validation-report.json").read_text())
    (pack,) = [r for r in report["pluginReports"] if r["pluginName"] == "EdgeOrigin"]
    recorded = {c["constructPath"] for v in pack["violations"] if v["ruleName"] == "EdgeOrigin-EO-DNS1" for c in v["violatingConstructs"]}
    assert {"Edge/Origins/Weighted0/Resource", "Legacy/Weighted0/Resource"} <= recorded, recorded
    # the same head without report-only: `cdk synth` fails, on the records inside the nested stack too
    head = tmp_path / "work"
    proc = subprocess.run([str(cdk_cli), "synth", "--quiet", "--no-notices", "-o", str(tmp_path / "plain.out")],
                          cwd=head, env=env, capture_output=True, text=True, timeout=300)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0, output[-3000:]
    assert "Edge/Origins/Weighted0/Resource" in output and "Synthesis finished with errors" in output
    assert "in Edge/Origins, Legacy;" in output, output[-3000:]
