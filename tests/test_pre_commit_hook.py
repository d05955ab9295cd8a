"""The pre-commit hooks as users run them: `pre-commit run` of a committed copy of this repository (what
`pre-commit try-repo` does) on a git repo
with a two-template origin (distribution in one file, records in the other). Changing only the
records file to weighted must fail the hook: it checks the world, not the files pre-commit passes.
The hook's environment is the checker only (no aws-cdk-lib). Slow: pre-commit builds a virtualenv
and installs PyYAML from the package index."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PRE_COMMIT = shutil.which("pre-commit") or str(Path(sys.executable).parent / "pre-commit")
CACHE_POLICY_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None or not Path(PRE_COMMIT).exists(), reason="needs git and pre-commit"),
]


def _edge() -> dict:
    return {"Resources": {"Dist": {"Type": "AWS::CloudFront::Distribution", "Properties": {"DistributionConfig": {
        "Enabled": True, "HttpVersion": "http2",
        "Origins": [{"Id": "o", "DomainName": "origin.example.com",
                     "CustomOriginConfig": {"OriginProtocolPolicy": "https-only"}}],
        "DefaultCacheBehavior": {
            "TargetOriginId": "o", "ViewerProtocolPolicy": "https-only", "GrpcConfig": {"Enabled": True},
            "AllowedMethods": ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"],
            "CachePolicyId": CACHE_POLICY_DISABLED}}}}}}


def _records(weighted: bool) -> dict:
    resources: dict = {}
    for i, ip in enumerate(["192.0.2.1", "192.0.2.2"]):
        record = {"HostedZoneName": "example.com.", "Name": "origin.example.com.", "Type": "A", "TTL": "60",
                  "ResourceRecords": [ip], "SetIdentifier": f"z{i}"}
        if weighted:
            record["Weight"] = 10
        else:
            resources[f"Check{i}"] = {"Type": "AWS::Route53::HealthCheck",
                                      "Properties": {"HealthCheckConfig": {"Type": "TCP", "IPAddress": ip, "Port": 443}}}
            record.update(MultiValueAnswer=True, HealthCheckId={"Ref": f"Check{i}"})
        resources[f"Rec{i}"] = {"Type": "AWS::Route53::RecordSet", "Properties": record}
    return {"Resources": resources}


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True, timeout=60).stdout


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PRE_COMMIT_HOME"] = str(home)
    env.setdefault("PIP_COMPILE", "0")  # the hook env's pip install: no byte-compiling (same files installed)
    return env


@pytest.fixture(scope="module")
def user_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's repository: infra/Edge.template.json + infra/Records.template.json, committed clean;
    then only Records changed to weighted and staged."""
    repo = tmp_path_factory.mktemp("user-repo")
    (repo / "infra").mkdir()
    (repo / "infra" / "Edge.template.json").write_text(json.dumps(_edge(), indent=1))
    (repo / "infra" / "Records.template.json").write_text(json.dumps(_records(False), indent=1))
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "clean origin")
    (repo / "infra" / "Records.template.json").write_text(json.dumps(_records(True), indent=1))
    _git(repo, "add", "-A")
    return repo


def test_the_changed_file_alone_passes_but_the_world_fails(user_repo: Path) -> None:
    """The bug the hook had: checked alone, the changed file has no gRPC distribution in sight."""
    cli = [sys.executable, "-m", "edge_origin.cli", "check"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "constructs")}
    alone = subprocess.run([*cli, "infra/Records.template.json"], cwd=user_repo, env=env, capture_output=True, timeout=60)
    world = subprocess.run([*cli, "infra"], cwd=user_repo, env=env, capture_output=True, text=True, timeout=60)
    assert alone.returncode == 0 and world.returncode == 1
    assert "2 error(s)" in world.stdout


def test_the_hook_fails_the_commit_that_changes_one_file_from_a_checker_only_env(user_repo: Path, tmp_path: Path) -> None:
    """`pre-commit run` with this repository at its current state (committed to a copy, as
    `pre-commit try-repo` does; one hook environment built, not two) in a known PRE_COMMIT_HOME: the
    commit that changes only the records file fails with both findings, and the hook's env has
    edge-origin and PyYAML, no aws-cdk-lib. (Also proves what test_try_repo_fails_the_commit_that_changes_one_file did.)"""
    source = tmp_path / "hook-source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "node_modules", "cdk.out", "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis"))
    _git(source, "init", "-q")
    _git(source, "add", "-A")
    _git(source, "commit", "-qm", "hook source")
    rev = _git(source, "rev-parse", "HEAD").strip()
    config = {"repos": [{"repo": str(source), "rev": rev, "hooks": [{"id": "edge-origin-check"}]}]}
    repo = tmp_path / "user"
    shutil.copytree(user_repo, repo)
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    home = tmp_path / "home"
    proc = subprocess.run([PRE_COMMIT, "run", "--all-files"], cwd=repo, env=_env(home),
                          capture_output=True, text=True, timeout=600)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "2 finding(s): 2 error(s)" in proc.stdout, output[-3000:]
    assert "edge-origin check" in output and "Failed" in output and output.count("EO-DNS1") == 2, output[-3000:]
    (site,) = home.glob("repo*/py_env-*/lib/python*/site-packages")
    installed = {p.name.split("-")[0].lower() for p in site.glob("*.dist-info")}
    assert "edge_origin" in installed and "pyyaml" in installed
    assert not installed & {"aws_cdk_lib", "constructs", "cdk_nag", "boto3", "jsii", "cfn_lint"}, installed
