"""A baseline accepts findings as they were, never worse (redteam): it matched by rule + fingerprint (or
construct path) alone, so weighted records behind a non-gRPC origin (EO-DNS1 warnings, recorded) that
became EO-DNS1 errors when the origin turned gRPC passed as "in the baseline". Entries now keep the
severity and admit only a finding no worse; the worse one is new (and its entry is not "fixed")."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.cli import main
from edge_origin.core.findings import Finding, Severity
from edge_origin.review.baseline import Baseline, BaselineEntry, baseline_document

ROOT = Path(__file__).resolve().parents[2]
WEIGHTED = json.loads((ROOT / "tests" / "assembly" / "corpus" / "weighted-flat" / "App.template.json").read_text())
LEVELS = [Severity.INFO, Severity.WARNING, Severity.ERROR]


def _finding(i: int, severity: Severity) -> Finding:
    return Finding("EO-DNS1", severity, f"record {i}", "fix", "App.json", "App", f"R{i}", f"App/R{i}/Resource")


def _baseline(findings: list[Finding]) -> Baseline:
    doc = baseline_document(findings)
    return Baseline("b.json", tuple(BaselineEntry(**e) for e in doc["findings"]))  # type: ignore[arg-type, union-attr]


@settings(max_examples=60, deadline=None, database=None)
@given(before=st.lists(st.sampled_from(LEVELS), min_size=1, max_size=6), raise_by=st.lists(st.integers(0, 2), min_size=6, max_size=6))
def test_a_finding_worse_than_recorded_is_new(before: list[Severity], raise_by: list[int]) -> None:
    now = [LEVELS[min(2, LEVELS.index(s) + r)] for s, r in zip(before, raise_by, strict=False)]
    split = _baseline([_finding(i, s) for i, s in enumerate(before)]).split([_finding(i, s) for i, s in enumerate(now)])
    worse = [i for i, (a, b) in enumerate(zip(before, now, strict=True)) if b.rank > a.rank]
    assert len(split.new) == len(worse) and len(split.known) == len(before) - len(worse)
    assert split.fixed == []  # a finding still there, worse, is not fixed


def test_an_old_baseline_without_severities_matches_as_before() -> None:
    entry = BaselineEntry(**{k: v for k, v in baseline_document([_finding(0, Severity.WARNING)])["findings"][0].items()  # type: ignore[index, union-attr]
                             if k != "severity"})
    assert Baseline("b.json", (entry,)).split([_finding(0, Severity.ERROR)]).known


def test_an_origin_turned_grpc_behind_a_baseline_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    no_grpc = json.loads(json.dumps(WEIGHTED))
    for res in no_grpc["Resources"].values():
        if res["Type"] == "AWS::CloudFront::Distribution":
            del res["Properties"]["DistributionConfig"]["DefaultCacheBehavior"]["GrpcConfig"]
    (tmp_path / "base").mkdir()
    (tmp_path / "head").mkdir()
    (tmp_path / "base" / "App.template.json").write_text(json.dumps(no_grpc))
    (tmp_path / "head" / "App.template.json").write_text(json.dumps(WEIGHTED))

    def run(*argv: str) -> tuple[int, str]:
        code = 0
        with contextlib.suppress(SystemExit):
            code = main(["check", "--config", "none", *argv])
        return code, capsys.readouterr().out

    baseline = tmp_path / "baseline.json"
    assert run(str(tmp_path / "base"), "--create-baseline", str(baseline))[0] == 0
    code, out = run(str(tmp_path / "head"), "--baseline", str(baseline), "--format", "json")
    doc = json.loads(out)
    assert code == 1 and [f["rule"] for f in doc["findings"]] == ["EO-DNS1", "EO-DNS1"]
    assert doc["summary"]["baseline"] == 0 and doc["summary"]["fixed"] == 0
