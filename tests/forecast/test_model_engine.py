"""The model's mechanics: capacity, reconnects, health checks under load, fail-open, steps, outputs."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.forecast.inputs import Capacity, RetryPolicy
from edge_origin.forecast.montecarlo import ModelConfig, run_model
from edge_origin.rehearsal.chart import write_chart
from edge_origin.rehearsal.plan import DnsPlan, HealthCheckSpec, PlanRecord, reference_plan


def _one_origin(ttl: int = 60) -> DnsPlan:
    return DnsPlan(name="o.example.com", records=(PlanRecord("", "simple", ("10.0.0.1",), ttl=ttl),))


def test_refused_devices_retry_then_give_up_exactly() -> None:
    # one origin holding 600 of 1000 devices; each refused device tries 1 + 2 more times
    result = run_model(
        _one_origin(), ModelConfig(devices=1000, origin_capacity=600, retry="2:1", horizon_seconds=60, seed=1)
    )
    assert result.connections == {"10.0.0.1": 600}
    assert result.details["gave_up"] == 400
    assert result.errors["refused_attempts"] == 3 * 400
    assert result.predicted_errors["peak"] == pytest.approx(1200 / 1800)
    assert result.steady_state_seconds is not None  # nobody is left retrying


def test_no_retries_means_one_attempt_each() -> None:
    result = run_model(_one_origin(), ModelConfig(devices=1000, origin_capacity=250, retry="0", seed=1))
    assert result.errors["refused_attempts"] == 750 and result.details["gave_up"] == 750


def test_retrying_forever_never_reaches_steady_state_when_capacity_is_short() -> None:
    result = run_model(_one_origin(), ModelConfig(devices=1000, origin_capacity=900, horizon_seconds=300, seed=1))
    assert result.details["still_retrying"] == 100
    assert result.steady_state_seconds is None
    assert result.verdict == "overload"
    # backoff grows to the 120 s cap: in 300 s a device tries about a dozen times, not 300
    assert 8 * 100 <= result.errors["refused_attempts"] <= 14 * 100


def test_rate_capacity_admits_n_a_second() -> None:
    result = run_model(_one_origin(), ModelConfig(devices=10_000, origin_capacity="1000/s", horizon_seconds=120, seed=1))
    accepted = result.timeline["accepted"]
    assert max(accepted) <= 1000
    assert result.connections["10.0.0.1"] == 10_000  # all in eventually
    assert result.origin_load["10.0.0.1"]["capacity"] == "1000/s"
    assert result.origin_load["10.0.0.1"]["peak_load_over_capacity"] >= 10.0  # 10k offered in the first second


def test_health_check_takes_a_full_origin_out_after_threshold_times_interval() -> None:
    plan = reference_plan(nlbs=1, zones=2, routing="weighted", request_interval=10, failure_threshold=3)
    cfg = ModelConfig(devices=10_000, origin_capacity=6000, ramp_seconds=0, ttl=60, seed=3)
    result = run_model(plan, cfg)
    events = result.details["health_events"]
    assert events and not events[0]["healthy"] and events[0]["t"] == pytest.approx(30.0)
    # the next answer (at 60 s) names the other origin: everyone is in, 6000 + 4000
    assert sorted(result.connections.values()) == [4000, 6000]
    assert result.steady_state_seconds is not None and 60 < result.steady_state_seconds < 120
    blind = run_model(plan, ModelConfig(**{**cfg.__dict__, "health_checks": False}))
    assert blind.details["health_events"] == [] and blind.details["health_checks"] is False


def test_fail_open_when_every_origin_is_full() -> None:
    plan = reference_plan(nlbs=1, zones=2, routing="weighted")
    result = run_model(plan, ModelConfig(devices=10_000, origin_capacity=3000, horizon_seconds=400, seed=2))
    assert sorted(result.connections.values()) == [3000, 3000]
    unhealthy = {e["check"] for e in result.details["health_events"] if not e["healthy"]}
    assert len(unhealthy) == 2  # both out, Route 53 answers with them anyway
    assert result.details["answers_drawn"] >= 5  # still resolving every TTL
    assert result.predicted_errors["peak"] == pytest.approx(1.0)  # later windows see only refusals


def test_per_origin_capacity_overrides() -> None:
    plan = reference_plan(nlbs=1, zones=2)
    result = run_model(
        plan,
        ModelConfig(devices=10_000, origin_capacity=100, capacity_overrides={"Nlb1Eip2": "1e6"}, seed=1),
    )
    assert result.connections["Nlb1Eip1"] == 100
    assert result.connections["Nlb1Eip2"] == 9900
    assert result.origin_load["Nlb1Eip2"]["capacity"] == "1000000"


def test_step_is_shortened_to_the_health_check_interval() -> None:
    plan = reference_plan(request_interval=10)
    result = run_model(plan, ModelConfig(devices=100, step_seconds=30, seed=1))
    assert result.details["step_seconds"] == 10
    assert any("health-check interval" in n for n in result.details["notes"])
    assert len(result.timeline["accepted"]) == 60  # 600 s in 10 s steps
    fast = run_model(plan, ModelConfig(devices=100, step_seconds=30, health_checks=False, seed=1))
    assert fast.details["step_seconds"] == 30


def test_json_shape_and_chart(tmp_path) -> None:  # noqa: ANN001 - pytest's path
    result = run_model(
        reference_plan(routing="weighted"),
        ModelConfig(devices=50_000, origin_capacity=Capacity(20_000), ramp_seconds=5, retry=RetryPolicy(), seed=1),
    )
    data = json.loads(json.dumps(result.to_dict()))
    assert set(data["predicted_errors"]) == {"peak", "mean"}
    assert all(0.0 <= v <= 1.0 for v in data["predicted_errors"].values())
    steps = len(data["timeline"]["accepted"])
    assert steps == len(data["timeline"]["refused"]) == 600
    assert all(len(v) == steps for v in data["timeline"]["connections"].values())
    for load in data["origin_load"].values():
        assert {"peak_connections", "capacity", "peak_load_over_capacity"} <= set(load)
    text = result.text()
    assert "predicted errors: peak" in text and "steady state" in text and "verdict: overload" in text
    png = write_chart(result, tmp_path / "load.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_capacity_nothing_is_refused_and_the_verdict_is_max_over_mean() -> None:
    result = run_model(reference_plan(routing="weighted"), ModelConfig(devices=1000, seed=1))
    assert result.predicted_errors == {"peak": 0.0, "mean": 0.0}
    assert result.verdict == "pile-up"
    assert any("no --origin-capacity" in n for n in result.details["notes"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    devices=st.integers(1, 200_000),
    capacity=st.one_of(st.none(), st.integers(1, 100_000)),
    edges=st.integers(1, 40),
    resolvers_frac=st.floats(0.0, 1.0),
    policy=st.sampled_from(["shuffle", "pick_first", "round_robin"]),
    routing=st.sampled_from(["weighted", "multivalue"]),
    retry=st.sampled_from(["0", "3:0.5", "inf:1:30"]),
    ramp=st.sampled_from([0.0, 7.0, 90.0]),
)
def test_conservation(devices, capacity, edges, resolvers_frac, policy, routing, retry, ramp) -> None:  # noqa: ANN001
    resolvers = max(1, min(edges, math.ceil(resolvers_frac * edges)))
    plan = reference_plan(nlbs=1, zones=3, routing=routing)
    result = run_model(
        plan,
        ModelConfig(devices=devices, edges=edges, resolvers=resolvers, origin_capacity=capacity, policy=policy,
                    retry=retry, ramp_seconds=ramp, horizon_seconds=240, seed=7),
    )
    held = sum(result.connections.values())
    accepted = result.details["attempts"]["accepted"]
    assert abs(accepted - held) <= len(plan.origin_keys) + 1
    assert abs(sum(result.timeline["accepted"]) - accepted) <= len(result.timeline["accepted"]) / 2 + 1
    if capacity is not None:
        assert all(v <= capacity + 1 for v in result.connections.values())
    assert all(0.0 <= v <= 1.0 for v in result.predicted_errors.values())
    if policy != "round_robin":  # a round_robin device holds one connection per address it got
        settled = held + result.details["gave_up"] + result.details["still_retrying"]
        assert abs(settled - devices) <= len(plan.origin_keys) + 2
    if capacity is None:
        assert result.predicted_errors["peak"] == 0.0 and result.verdict in ("spread", "pile-up")


def test_health_check_windows_come_from_the_plan() -> None:
    slow = DnsPlan(
        name="o.example.com",
        records=(
            PlanRecord("a", "weighted", ("10.0.0.1",), weight=1, health_check=HealthCheckSpec("a", request_interval=30, failure_threshold=2)),
            PlanRecord("b", "weighted", ("10.0.0.2",), weight=1, health_check=HealthCheckSpec("b", request_interval=30, failure_threshold=2)),
        ),
    )
    result = run_model(slow, ModelConfig(devices=1000, origin_capacity=600, seed=1))
    first = result.details["health_events"][0]
    assert not first["healthy"] and first["t"] == pytest.approx(60.0)  # 30 s x 2
