"""The model against the loopback rehearsal on the same small plans, an origin killed mid-burst."""

from __future__ import annotations

import json

import pytest

from edge_origin import cli
from edge_origin.forecast import agreement as model_agreement
from edge_origin.forecast.agreement import Agreement


def test_agreement_bands_fire_and_stay_quiet() -> None:
    inside = Agreement("multivalue", 20, 60, (1.4, 1.7), 1.5, (0.0, 0.0), 0)
    spread_off = Agreement("multivalue", 20, 60, (1.4, 1.7), 3.0, (0.0, 0.0), 0)
    failed_off = Agreement("multivalue", 20, 60, (1.4, 1.7), 1.5, (0.0, 0.0), 30)
    assert inside.agrees() is True and spread_off.agrees() is False and failed_off.agrees() is False
    assert Agreement("weighted", 1, 60, (6, 6), None, (0, 0), None).agrees() is None


@pytest.mark.parametrize("edges", [1, 20, 50])
def test_model_side_multivalue_loses_nobody_when_an_origin_dies(edges: int) -> None:
    spread, failed = model_agreement.model_side("multivalue", edges, 60, seed=3)
    assert failed == pytest.approx(0, abs=1e-6)
    assert spread < 2.0


def test_model_side_weighted_one_edge_piles_up() -> None:
    spreads = {model_agreement.model_side("weighted", 1, 60, seed=s)[0] for s in range(4)}
    assert spreads == {6.0}


def test_compare_flags_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["model", "compare", "--no-loopback", "--edges", "0"]) == 2
    assert "--edges" in capsys.readouterr().err
    assert cli.main(["model", "compare", "--no-loopback", "--routing", "latency"]) == 2
    assert cli.main(["model", "compare", "--no-loopback", "--edges", "1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["routing"] for r in rows} == {"weighted", "multivalue"} and all(r["agrees"] is None for r in rows)


@pytest.mark.slow
@pytest.mark.parametrize("routing", ["weighted", "multivalue"])
@pytest.mark.parametrize("edges", [1, 20, 50])
def test_model_and_loopback_agree_within_the_bands(routing: str, edges: int) -> None:
    """One loopback run (60 clients, bounded by max_seconds 60) inside the model's band over seeds."""
    row = model_agreement.compare(routing, edges, 60, seed=1)
    assert row.agrees() is True, model_agreement.table_text([row])


def test_samples_are_judged_as_the_rehearsal_judges_a_run() -> None:
    """With calls, the spread agrees unless the two sides make opposite calls (inconclusive contradicts nothing)."""
    row = Agreement("weighted", 4, 200, (1.5, 3.0), 1.5, (0.0, 0.0), 0, ("pile-up", "pile-up"), "pile-up")
    assert row.agrees() is True
    assert Agreement("weighted", 4, 200, (1.5, 3.0), 1.2, (0.0, 0.0), 0, ("pile-up",), "spread").agrees() is False
    assert Agreement("weighted", 4, 200, (1.5, 3.0), 9.0, (0.0, 0.0), 0, ("pile-up",), "inconclusive").agrees() is True
    # the loopback's figures judged: one weighted answer per edge over the 5 surviving origins, 4 edges
    assert model_agreement.judge_sample("weighted", 4, 200, {"Nlb1Eip2": 100, "Nlb2Eip1": 100}) == "pile-up"
    even = {k: 40 for k in ("Nlb1Eip2", "Nlb1Eip3", "Nlb2Eip1", "Nlb2Eip2", "Nlb2Eip3")}
    assert model_agreement.judge_sample("multivalue", 4, 200, even) == "spread"
