"""What a change makes worse is new (redteam): ``diff --fail-on-new-only`` (the Action's default with a base)
matched head's findings to base's by fingerprint alone, so a change that turns on gRPC for a distribution
whose origin already has weighted records (EO-DNS1 warnings in base: a long-lived, non-gRPC origin;
errors in head) passed as "no new error (2 already in base)": the pile-up went by. A head finding worse
than base's finding of the same fingerprint is new now."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from edge_origin.model import model_from_text
from edge_origin.review.checker import finding_fingerprints
from edge_origin.review.diff import diff_models
from edge_origin.rules import run_rules

CORPUS = Path(__file__).resolve().parents[1] / "assembly" / "corpus"
APPS = {s: json.loads((CORPUS / f"{s}-flat" / "App.template.json").read_text()) for s in ("weighted", "keepalive", "mapped", "fleet")}


def _grpc(body: dict[str, Any], on: bool) -> dict[str, Any]:
    body = copy.deepcopy(body)
    for res in body["Resources"].values():
        if res["Type"] == "AWS::CloudFront::Distribution":
            behavior = res["Properties"]["DistributionConfig"]["DefaultCacheBehavior"]
            behavior.pop("GrpcConfig", None)
            if on:
                behavior["GrpcConfig"] = {"Enabled": True}
    return body


@settings(max_examples=20, deadline=None, database=None)
@given(scenario=st.sampled_from(sorted(APPS)), base_on=st.booleans(), head_on=st.booleans())
@example(scenario="weighted", base_on=False, head_on=True)
def test_a_finding_worse_than_in_base_is_new(scenario: str, base_on: bool, head_on: bool) -> None:
    base = model_from_text(json.dumps(_grpc(APPS[scenario], base_on)), "App", "App.json")
    head = model_from_text(json.dumps(_grpc(APPS[scenario], head_on)), "App", "App.json")
    result = diff_models(base, head)
    base_findings = run_rules(base)
    before = {fp: f.severity.rank for f, fp in zip(base_findings, finding_fingerprints(base_findings), strict=True)}
    prints = finding_fingerprints(result.head_findings)
    for i, (f, fp) in enumerate(zip(result.head_findings, prints, strict=True)):
        assert (i in result.new) == (fp not in before or f.severity.rank > before[fp]), (scenario, base_on, head_on, f.message)
    if scenario == "weighted" and head_on and not base_on:  # the pile-up the change brings fails it
        assert [result.head_findings[i].rule for i in sorted(result.new)] == ["EO-DNS1", "EO-DNS1"]
    if base_on == head_on:
        assert not result.new


@settings(max_examples=10, deadline=None, database=None)
@given(reason=st.sampled_from(["weighted is fine: no long-lived connections here", "accepted"]), scenario=st.just("weighted"))
def test_an_acknowledged_finding_the_change_makes_worse_is_said_at_the_top(reason: str, scenario: str) -> None:
    """An acknowledgement given for EO-DNS1 warnings (a non-gRPC origin) still sets the findings aside when
    the change turns the origin gRPC and they become errors; nothing said so (the acknowledgement itself
    is unchanged). The review now states it at the top with the reason that no longer fits."""
    from edge_origin.review.diff_suppressions import diff_with_suppressions

    def acked(on: bool) -> Any:
        body = _grpc(APPS[scenario], on)
        for res in body["Resources"].values():
            if res["Type"] == "AWS::Route53::RecordSet":
                res.setdefault("Metadata", {})["edge-origin:acknowledge"] = [{"id": "EO-DNS1", "reason": reason}]
        return model_from_text(json.dumps(body), "App", "App.json")

    result = diff_models(acked(False), acked(True))
    notices = diff_with_suppressions(result, result, None).notices
    worse = [n for n in notices if n.startswith("makes an acknowledged finding worse: EO-DNS1")]
    assert len(worse) == 2 and all(n.endswith(f": {reason})") and "was warning in base, is error now" in n for n in worse)
    same = diff_models(acked(True), acked(True))
    assert not [n for n in diff_with_suppressions(same, same, None).notices if "worse" in n]
