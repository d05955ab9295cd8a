"""Issue 52: a resolver that gets no answer caches that for Route 53's SOA negative TTL (up to 900 s), not the
records' TTL; the forecast's outage estimates follow it."""

from __future__ import annotations

import numpy as np

from edge_origin.answers.rehearsal_records import AnswerRecord
from edge_origin.core.facts import value
from edge_origin.forecast.sim import NEGATIVE_CACHE_S, SimInputs, _Answers


def _inputs(records: list[AnswerRecord]) -> SimInputs:
    return SimInputs(
        records=records, keys=["192.0.2.1"], group_devices=np.array([10, 10]), ramp_seconds=0.0, ttl=60.0,
        step_seconds=1.0, steps=10, policy="first", edge_rotation=False, concurrent_capacity=np.array([np.inf]),
        rate_capacity=np.array([np.inf]), checks=[], retry=None, seed=1,
    )


def test_an_empty_answer_is_cached_for_the_negative_ttl_a_full_one_for_the_ttl() -> None:
    assert NEGATIVE_CACHE_S == value("route53.negative_cache_s") == 900
    empty = _Answers.start(_inputs([]), 2)
    empty.refresh(np.array([1, 1]), now=5.0, healthy=lambda _key: True)
    assert empty.expires.tolist() == [905.0, 905.0]
    full = _Answers.start(_inputs([AnswerRecord("a", "simple", ("192.0.2.1",))]), 2)
    full.refresh(np.array([1, 0]), now=5.0, healthy=lambda _key: True)
    assert full.expires[0] == 65.0 and full.expires[1] == -np.inf  # a resolver without attempts does not ask
