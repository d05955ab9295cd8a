"""Pairs of synthesized reference apps (stacks.app_builder with modified cdk.json context)."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_origin.core.findings import Severity
from edge_origin.model import load_model
from edge_origin.review.diff import diff_models


def synth(tmp_path_factory: pytest.TempPathFactory, **context: object) -> Path:
    from stacks.app_builder import build_reference_app, cdk_json_context

    merged = cdk_json_context()
    merged.update({f"edge-origin:{k}": v for k, v in context.items()})
    outdir = tmp_path_factory.mktemp("synth")
    app, _ = build_reference_app(merged, outdir=str(outdir), checks=False)
    return Path(app.synth().directory)


@pytest.fixture(scope="module")
def two_nlbs(reference_app) -> Path:
    return reference_app[2]


@pytest.fixture(scope="module")
def three_nlbs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return synth(tmp_path_factory, nlbCount=3)


def test_nlb_count_3_to_2_is_a_warning_while_healthy_records_remain(three_nlbs: Path, two_nlbs: Path) -> None:
    result = diff_models(load_model([three_nlbs]), load_model([two_nlbs]))
    (finding,) = result.transition_findings
    assert (finding.rule, finding.severity) == ("EO-CHG2", Severity.WARNING)
    assert "3 of its 9 addresses are removed or replaced (6 stay)" in finding.message
    removed = [c for c in result.changes if c.kind == "record" and c.after is None]
    assert len(removed) == 3 and all("Nlb3" in c.logical_id for c in removed)
    assert not [f for f in result.failing(Severity.ERROR)]


def test_nlb_count_2_to_3_only_adds(three_nlbs: Path, two_nlbs: Path) -> None:
    result = diff_models(load_model([two_nlbs]), load_model([three_nlbs]))
    assert result.transition_findings == []
    assert {c.field for c in result.changes} == {"record", "eip", "nlb", "listener"}
    assert all(c.before is None for c in result.changes)


@pytest.mark.slow
def test_new_origin_name_through_the_constructs_is_the_safe_path(tmp_path_factory: pytest.TempPathFactory, two_nlbs: Path) -> None:
    renamed = synth(tmp_path_factory, originName="origin2.telemetry.example.com")
    result = diff_models(load_model([two_nlbs]), load_model([renamed]))
    # quiet: the pattern makes the distribution depend on its records, so CloudFront is switched to
    # the new name only after its records exist (EO-CHG3's ordering warning has nothing to say)
    assert [(f.rule, f.severity) for f in result.transition_findings] == []
    assert not result.failing(Severity.ERROR)
    gone = [c for c in result.changes if c.kind == "record" and c.after is None and c.name == "origin.telemetry.example.com"]
    assert len(gone) == 6  # the old name's records go in clean-up (the same resources renamed, or new ones)
