"""For any timeline, the imbalance, healthy-records and reset alarms' metric math (the construct's
expression strings, evaluated by ``metric_math``) and ``watch``'s per-period figures agree."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st
from metric_math import evaluate

from edge_origin.core import watch_math as wm
from edge_origin.live.watch import Node, Thresholds, WatchPath, judge

T0 = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
VALUE = st.one_of(st.none(), st.floats(min_value=0, max_value=1e6, allow_nan=False), st.integers(0, 3000).map(float))


@st.composite
def timelines(draw: st.DrawFn) -> tuple[list[list[float | None]], list[list[float | None]], list[list[float | None]], int]:
    nodes = draw(st.integers(1, wm.ALARM_MAX_METRICS))
    checks = draw(st.integers(1, wm.ALARM_MAX_METRICS))
    periods = draw(st.integers(1, 12))
    active = [[draw(VALUE) for _ in range(periods)] for _ in range(nodes)]
    resets = [[draw(VALUE) for _ in range(periods)] for _ in range(nodes)]
    health = [[draw(st.sampled_from([None, 0.0, 1.0])) for _ in range(periods)] for _ in range(checks)]
    return active, resets, health, draw(st.integers(0, 5000))


def _series(values: list[float | None]) -> dict[dt.datetime, float]:
    return {T0 + dt.timedelta(minutes=i): v for i, v in enumerate(values) if v is not None}


@settings(database=None, max_examples=150, deadline=None)
@given(timelines())
def test_alarm_math_and_watch_agree(case: tuple) -> None:
    active, resets, health, floor = case
    periods = len(active[0])
    path = WatchPath("o.example.com", health_checks={f"c{i}": f"hc{i}" for i in range(len(health))})
    path.nodes = [Node(f"nlb{i}", f"net/nlb{i}/1", "zone-a") for i in range(len(active))]
    series = {f"a{i}": _series(v) for i, v in enumerate(active)} | {f"r{i}": _series(v) for i, v in enumerate(resets)}
    series |= {f"h{i}": _series(v) for i, v in enumerate(health)}
    verdict = judge(path, series, 60, Thresholds(flow_floor=floor))
    by_time = {p.start: p for p in verdict.periods}
    stamps = [T0 + dt.timedelta(minutes=i) for i in range(periods)]
    a_ids = [f"m{i}" for i in range(len(active))]
    imbalance = evaluate(wm.imbalance_expression(a_ids, floor), dict(zip(a_ids, active, strict=True)), 60)
    r_ids = [f"r{i}" for i in range(len(resets))]
    rate = evaluate(wm.reset_rate_expression(r_ids), dict(zip(r_ids, resets, strict=True)), 60)
    h_ids = [f"h{i}" for i in range(len(health))]
    healthy = evaluate(wm.healthy_expression(h_ids), dict(zip(h_ids, health, strict=True)), 60)
    for ts, alarm_ratio, alarm_rate, alarm_healthy in zip(stamps, imbalance, rate, healthy, strict=True):
        period = by_time.get(ts)
        watched_ratio = period.max_over_mean if period is not None else None
        # no datapoint (None) and 0 both leave the alarm below its threshold
        assert (alarm_ratio or 0.0) == (watched_ratio or 0.0) or abs((alarm_ratio or 0) - (watched_ratio or 0)) < 1e-9
        # no series has a point here: watch has no period, the evaluator's FILL gives 0 (CloudWatch: no
        # value, or the fill value; the healthy-records alarm treats missing data as breaching either way)
        assert period is not None or (not alarm_rate and not alarm_healthy and not alarm_ratio)
        if period is not None:
            assert (alarm_healthy or 0.0) == (period.healthy or 0.0)
            assert (alarm_rate or 0.0) == (period.resets_per_s or 0.0)


def _judge_active(counts: list[list[float]], floor: int = 500):  # noqa: ANN202 - a PathVerdict
    path = WatchPath("o.example.com")
    path.nodes = [Node(f"nlb{i}", f"net/nlb{i}/1", "zone-a") for i in range(len(counts))]
    return judge(path, {f"a{i}": _series(v) for i, v in enumerate(counts)}, 60, Thresholds(flow_floor=floor))


def test_an_imbalance_is_a_pile_up_only_when_a_balanced_spread_would_not_give_it_by_chance() -> None:
    """Six nodes, 600 flows, one holding half: a pile-up. Fifty nodes, 500 flows drawn at random: a
    max/mean above 1.5 comes by chance, so it is noted, never a pile-up (the rehearsal's odds)."""
    piled = _judge_active([[300.0] * 5] + [[60.0] * 5] * 5)
    assert piled.verdict == "pile-up"
    import numpy as np

    rng = np.random.default_rng(4)
    draws = rng.multinomial(500, [1 / 50] * 50, size=5).T.astype(float).tolist()
    assert all(max(col) / (500 / 50) > 1.5 for col in zip(*draws, strict=True))  # above the threshold every period
    chance = _judge_active(draws)
    assert chance.verdict == "spread", chance.problems
    assert any("by chance" in n for n in chance.notes)
