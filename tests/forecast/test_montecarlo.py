"""The Monte Carlo model (fast, no sockets)."""

from __future__ import annotations

import pytest

from edge_origin.forecast.montecarlo import ModelConfig, ModelInputError, run_model
from edge_origin.rehearsal.plan import reference_plan

K = 6


def test_weighted_through_one_edge_piles_everything_on_one_origin() -> None:
    result = run_model(reference_plan(routing="weighted"), ModelConfig(devices=5000, edges=1, seed=1))
    assert result.max_over_mean == pytest.approx(K)
    assert sorted(result.connections.values())[-2] == 0
    assert result.verdict == "pile-up"


def test_weighted_pile_up_falls_as_independent_edges_grow() -> None:
    plan = reference_plan(routing="weighted")
    ratios = [
        sum(run_model(plan, ModelConfig(devices=60_000, edges=e, resolvers=e, seed=s)).max_over_mean for s in range(5))
        / 5
        for e in (1, 4, 32, 512)
    ]
    assert ratios[0] == pytest.approx(K)
    assert ratios == sorted(ratios, reverse=True), ratios
    assert ratios[-1] < 1.35


def test_edges_sharing_one_resolver_keep_the_weighted_pile_up() -> None:
    result = run_model(reference_plan(routing="weighted"), ModelConfig(devices=60_000, edges=512, seed=1))
    assert result.details["resolvers"] == 1
    assert result.max_over_mean == pytest.approx(K)


@pytest.mark.parametrize("policy,rotation", [("shuffle", False), ("pick_first", True), ("round_robin", False)])
def test_multivalue_spreads_through_one_edge(policy: str, rotation: bool) -> None:
    result = run_model(
        reference_plan(), ModelConfig(devices=20_000, edges=1, policy=policy, edge_rotation=rotation, seed=2)
    )
    assert result.max_over_mean <= 1.05
    assert result.verdict == "spread"


def test_multivalue_pick_first_without_rotation_follows_the_edge_order() -> None:
    result = run_model(reference_plan(), ModelConfig(devices=3000, edges=1, policy="pick_first", seed=3))
    assert result.max_over_mean == pytest.approx(K)


def test_unhealthy_origins_get_nothing() -> None:
    plan = reference_plan()
    result = run_model(plan, ModelConfig(devices=6000, edges=50, seed=4, unhealthy=frozenset({"Nlb1Eip1HealthCheck"})))
    assert result.connections["Nlb1Eip1"] == 0
    assert sum(result.connections.values()) == 6000


def test_ramp_longer_than_ttl_draws_new_answers() -> None:
    plan = reference_plan(routing="weighted")
    held = run_model(plan, ModelConfig(devices=1000, edges=1, ttl=60, ramp_seconds=0, seed=5))
    ramped = run_model(plan, ModelConfig(devices=1000, edges=1, ttl=60, ramp_seconds=600, seed=5))
    assert held.details["answers_drawn"] == 1
    assert 9 <= ramped.details["answers_drawn"] <= 11
    assert ramped.max_over_mean < held.max_over_mean


@pytest.mark.timeout(120)  # "cheap" is bounded by this timeout; the figure: benchmarks/bench_rehearsal.py --model-only
def test_internet_scale_is_cheap() -> None:
    result = run_model(
        reference_plan(), ModelConfig(devices=121_000_000, edges=600, ttl=60, ramp_seconds=30, seed=6)
    )
    assert sum(result.connections.values()) == 121_000_000
    assert result.connections_per_second == pytest.approx(121_000_000 / 30, rel=1e-3)


def test_bad_model_input() -> None:
    with pytest.raises(ModelInputError, match="--devices"):
        run_model(reference_plan(), ModelConfig(devices=0))
    with pytest.raises(ModelInputError, match="--lb-policy"):
        run_model(reference_plan(), ModelConfig(policy="random"))


def test_cli_model_json(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from rehearsal_paths import NAME, REFERENCE_WEIGHTED

    from edge_origin import cli

    code = cli.main(
        ["rehearse", str(REFERENCE_WEIGHTED), "--name", NAME, "--model", "--devices", "121000000",
         "--edges", "1", "--ttl", "60", "--ramp-seconds", "30", "--json", "--seed", "1"]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == cli.EXIT_FINDINGS  # a pile-up
    assert data["mode"] == "model" and data["verdict"] == "pile-up"
    assert data["max_over_mean"] == pytest.approx(K)
    for key in ("policy", "origins", "connections", "rpcs", "errors", "burst_seconds", "connections_per_second"):
        assert key in data


def test_max_over_mean_and_verdict() -> None:
    from edge_origin.rehearsal.metrics import SPREAD_LIMIT, max_over_mean, verdict

    assert max_over_mean({"a": 6}, ["a", "b", "c"]) == pytest.approx(3.0)  # missing origins count as zero
    assert max_over_mean({}, ["a", "b"]) == 0.0
    assert verdict(SPREAD_LIMIT) == "spread"
    assert verdict(SPREAD_LIMIT + 0.01) == "pile-up"


@pytest.mark.parametrize("routing", ["weighted", "multivalue"])
def test_a_capacity_ramp_without_a_capacity_changes_nothing(routing: str) -> None:
    """--scale-seconds ramps --origin-capacity; without one every address is unlimited, so the ramp has
    nothing to ramp (was: inf x 0 = NaN and a traceback in `rehearse --model --scale-seconds 30`)."""
    plan = reference_plan(routing=routing)
    base = ModelConfig(devices=20_000, edges=20, resolvers=3, ramp_seconds=10, seed=3)
    flat = run_model(plan, base).to_dict()
    ramped = run_model(plan, ModelConfig(**{**base.__dict__, "scale_seconds": 30.0})).to_dict()
    assert ramped["details"].pop("scale_seconds") == 30.0 and flat["details"].pop("scale_seconds") == 0.0
    assert ramped == flat


def test_cli_rehearse_model_with_scale_seconds_and_no_capacity(capsys: pytest.CaptureFixture[str]) -> None:
    from rehearsal_paths import NAME, REFERENCE

    from edge_origin import cli

    code = cli.main(["rehearse", str(REFERENCE), "--name", NAME, "--model", "--devices", "5000", "--scale-seconds", "30",
                     "--json"])
    captured = capsys.readouterr()
    assert code in (0, 1) and "Traceback" not in captured.err, captured.err
