"""`rehearse --model`: next-address tries, an origin killed, the scaling ramp and bands over seeds."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rehearsal_paths import NAME, REFERENCE

from edge_origin import cli
from edge_origin.forecast.montecarlo import ModelConfig, ModelInputError, run_model, run_model_seeds
from edge_origin.rehearsal.plan import reference_plan

BASE = ["rehearse", str(REFERENCE), "--name", NAME, "--model", "--json", "--devices", "300", "--edges", "20",
        "--resolvers", "20", "--seed", "1"]


def _on(connections: dict, part: str) -> int:
    return next(v for k, v in connections.items() if part in k)


def _run(capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    cli.main([*BASE, *extra])
    return json.loads(capsys.readouterr().out)


def test_a_dead_origin_costs_nothing_when_clients_try_the_next_address(capsys: pytest.CaptureFixture[str]) -> None:
    one = _run(capsys, "--kill", "Nlb1Eip1@0", "--connect-tries", "1")
    three = _run(capsys, "--kill", "Nlb1Eip1@0")  # default: 3, CloudFront's ConnectionAttempts
    assert one["predicted_errors"]["peak"] > 0.05
    assert three["predicted_errors"]["peak"] == 0
    assert three["details"]["connect_tries"] == 3
    assert _on(three["connections"], "Nlb1Eip1") == 0 and sum(three["connections"].values()) == 300


def test_killed_mid_burst_the_devices_move(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "--kill", "Nlb1Eip1@5", "--ramp-seconds", "10")
    assert _on(out["connections"], "Nlb1Eip1") == 0 and sum(out["connections"].values()) == 300


def test_the_band_over_seeds_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "--seeds", "4", "--origin-capacity", "60")
    band = out["details"]["band"]
    assert band["seeds"] == [1, 2, 3, 4]
    assert band["peak"]["min"] <= band["peak"]["median"] <= band["peak"]["max"]
    cli.main([*[a for a in BASE if a != "--json"], "--seeds", "3"])
    assert "over 3 seeds: peak" in capsys.readouterr().out
    single = _run(capsys)
    assert "band" not in single["details"]


def test_the_weighted_two_ip_example_has_a_band() -> None:
    """The issue's non-monotonic example: weighted 2 IPs, capacity with 1.8 % headroom; the band shows the spread."""
    plan = reference_plan(nlbs=2, zones=1, routing="weighted")
    cfg = ModelConfig(devices=100_000, edges=16, resolvers=16, origin_capacity=50_900, ramp_seconds=10, seed=0)
    result = run_model_seeds(plan, cfg, 8)
    band = result.details["band"]["peak"]
    assert band["max"] > band["min"]  # one seed's answer draws are not the prediction


def test_the_scaling_ramp_adds_errors() -> None:
    plan = reference_plan()
    cfg = ModelConfig(devices=60_000, edges=6, resolvers=6, origin_capacity=20_000, ramp_seconds=1, seed=0)
    steady = run_model(plan, cfg)
    from dataclasses import replace

    ramped = run_model(plan, replace(cfg, scale_seconds=120))
    assert steady.predicted_errors["peak"] == 0
    assert ramped.predicted_errors["peak"] > 0


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--connect-tries", "0"], "--connect-tries"),
        (["--connect-tries", "9"], "--connect-tries"),
        (["--scale-seconds", "-1"], "--scale-seconds"),
        (["--scale-seconds", "nan"], "--scale-seconds"),
        (["--seeds", "0"], "--seeds"),
        (["--kill", "NoSuchOrigin@1"], "no origin 'NoSuchOrigin'"),
    ],
)
def test_bad_model_flags_are_one_line(capsys: pytest.CaptureFixture[str], flags: list[str], message: str) -> None:
    try:
        code = cli.main([*BASE, *flags])
    except SystemExit as exc:  # argparse's range check
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_library_validation_names_the_field() -> None:
    plan = reference_plan()
    with pytest.raises(ModelInputError, match="--connect-tries"):
        run_model(plan, ModelConfig(connect_tries=0))
    with pytest.raises(ModelInputError, match="--scale-seconds"):
        run_model(plan, ModelConfig(scale_seconds=float("inf")))
    with pytest.raises(ModelInputError, match="--seeds"):
        run_model_seeds(plan, ModelConfig(), 0)


@settings(database=None, max_examples=20, deadline=None)
@given(tries=st.integers(1, 8), kill=st.sampled_from(["Nlb1Eip1", "Nlb2Eip3"]), at=st.floats(0, 30),
       devices=st.integers(1, 2000))
def test_more_tries_never_more_errors_and_nobody_lands_on_the_dead(tries: int, kill: str, at: float, devices: int) -> None:
    plan = reference_plan()
    cfg = ModelConfig(devices=devices, edges=4, resolvers=4, ramp_seconds=10, seed=3, kill=(kill, at), connect_tries=tries,
                      horizon_seconds=120)
    fewer = run_model(plan, ModelConfig(**{**cfg.__dict__, "connect_tries": 1}))
    more = run_model(plan, cfg)
    assert more.predicted_errors["mean"] <= fewer.predicted_errors["mean"] + 1e-9
    assert more.connections[kill] == 0
    assert sum(more.connections.values()) + more.details["still_retrying"] + more.details["gave_up"] == devices
