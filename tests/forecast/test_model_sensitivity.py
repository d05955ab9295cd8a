"""How the prediction moves with the two inputs nobody publishes: shared resolvers and the audience's spread.

The incident's crowd (14 M devices over 10 s, TTL 60, see test_model_incident.py for the sources)
at a capacity of 7.2 M connections per origin address (about what reproduces the published 79.8 %
peak for the 4-IP weighted plan with R = 1). Each point is the mean over a few seeds: with R > 1
which origins the resolvers draw is random.
"""

from __future__ import annotations

from dataclasses import replace
from statistics import mean

import pytest

from edge_origin.forecast.montecarlo import ModelConfig, run_model
from edge_origin.rehearsal.plan import DnsPlan, reference_plan

CAPACITY = 7_200_000
SEEDS = range(4)
NEAR_ZERO = 0.001
BASE = ModelConfig(devices=14_000_000, edges=600, ramp_seconds=10, ttl=60, origin_capacity=CAPACITY)
WEIGHTED = reference_plan(nlbs=2, zones=2, routing="weighted")
MULTIVALUE = reference_plan(nlbs=2, zones=3)


def _peak(plan: DnsPlan, **changes: object) -> float:
    return mean(run_model(plan, replace(BASE, seed=s, **changes)).predicted_errors["peak"] for s in SEEDS)


def _falls(values: list[float]) -> bool:
    return all(b <= a + 1e-9 for a, b in zip(values, values[1:], strict=False))


def test_weighted_errors_fall_as_resolvers_grow() -> None:
    peaks = [_peak(WEIGHTED, resolvers=r) for r in (1, 2, 8, 600)]
    assert _falls(peaks), peaks
    assert peaks[0] > 0.7 and peaks[-1] <= NEAR_ZERO, peaks


def test_weighted_errors_fall_as_traffic_spreads_over_more_edges() -> None:
    # independent edges (R = E): more edges with the same crowd
    by_edges = [_peak(WEIGHTED, edges=e, resolvers=e) for e in (1, 2, 8, 600)]
    assert _falls(by_edges), by_edges
    assert by_edges[0] > 0.7 and by_edges[-1] <= NEAR_ZERO, by_edges
    # 600 independent edges, the audience concentrated (zipf:2: the top edge has 61 %) -> uniform
    by_spread = [_peak(WEIGHTED, resolvers=600, edge_traffic=t) for t in ("zipf:2", "zipf:1.5", "zipf:1", "uniform")]
    assert _falls(by_spread), by_spread
    assert by_spread[0] > 0.3 and by_spread[-1] <= NEAR_ZERO, by_spread


@pytest.mark.parametrize(
    "changes",
    [{"resolvers": 1}, {"resolvers": 8}, {"edges": 1, "resolvers": 1}, {"resolvers": 600, "edge_traffic": "zipf:2"}],
)
def test_multivalue_stays_near_zero(changes: dict[str, object]) -> None:
    assert _peak(MULTIVALUE, **changes) <= NEAR_ZERO
