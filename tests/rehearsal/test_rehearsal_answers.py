"""Route 53 answer selection semantics (fast, no sockets)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from edge_origin.rehearsal.answers import MULTIVALUE_MAX, AnswerRecord, select_answer


def _multivalue(n: int) -> list[AnswerRecord]:
    return [AnswerRecord(f"r{i}", "multivalue", (f"o{i}",), health_key=f"hc{i}") for i in range(n)]


def _weighted(weights: list[int]) -> list[AnswerRecord]:
    return [
        AnswerRecord(f"r{i}", "weighted", (f"o{i}",), weight=w, health_key=f"hc{i}") for i, w in enumerate(weights)
    ]


def test_weights_are_honoured_statistically() -> None:
    records = _weighted([1, 3, 6])
    rng = random.Random(7)
    draws = 20_000
    seen = Counter(select_answer(records, rng=rng)[0] for _ in range(draws))
    for key, weight in (("o0", 1), ("o1", 3), ("o2", 6)):
        assert seen[key] / draws == pytest.approx(weight / 10, abs=0.015)


def test_weighted_answers_hold_one_record() -> None:
    rng = random.Random(1)
    assert all(len(select_answer(_weighted([1] * 6), rng=rng)) == 1 for _ in range(200))


def test_zero_weight_records_serve_only_when_no_nonzero_record_is_healthy() -> None:
    records = _weighted([0, 5])
    rng = random.Random(3)
    assert {select_answer(records, rng=rng)[0] for _ in range(300)} == {"o1"}
    only_zero = {select_answer(records, lambda k: k != "hc1", rng)[0] for _ in range(300)}
    assert only_zero == {"o0"}


def test_all_zero_weights_mean_equal_probability() -> None:
    rng = random.Random(5)
    seen = Counter(select_answer(_weighted([0, 0]), rng=rng)[0] for _ in range(4000))
    assert seen["o0"] / 4000 == pytest.approx(0.5, abs=0.04)


def test_multivalue_returns_at_most_eight_distinct_records_and_all_when_fewer() -> None:
    rng = random.Random(11)
    twelve = _multivalue(12)
    union: set[str] = set()
    for _ in range(300):
        answer = select_answer(twelve, rng=rng)
        assert len(answer) == MULTIVALUE_MAX == len(set(answer))
        union.update(answer)
    assert union == {f"o{i}" for i in range(12)}  # a random 8, not always the same 8
    assert sorted(select_answer(_multivalue(6), rng=rng)) == [f"o{i}" for i in range(6)]


def test_multivalue_order_is_random() -> None:
    rng = random.Random(13)
    firsts = Counter(select_answer(_multivalue(6), rng=rng)[0] for _ in range(6000))
    assert set(firsts) == {f"o{i}" for i in range(6)}
    assert max(firsts.values()) / min(firsts.values()) < 1.25


def test_unhealthy_records_are_dropped() -> None:
    rng = random.Random(17)

    def healthy(key: str) -> bool:
        return key != "hc2"

    for _ in range(300):
        assert "o2" not in select_answer(_multivalue(6), healthy, rng)
        assert select_answer(_weighted([1] * 6), healthy, rng) != ["o2"]


def test_fail_open_when_no_record_is_healthy() -> None:
    rng = random.Random(19)
    assert sorted(select_answer(_multivalue(6), lambda _k: False, rng)) == [f"o{i}" for i in range(6)]
    assert len(select_answer(_multivalue(10), lambda _k: False, rng)) == MULTIVALUE_MAX
    seen = {select_answer(_weighted([1, 1, 1]), lambda _k: False, rng)[0] for _ in range(300)}
    assert seen == {"o0", "o1", "o2"}


def test_records_without_health_checks_are_healthy() -> None:
    records = [AnswerRecord("a", "multivalue", ("x",)), AnswerRecord("b", "multivalue", ("y",), health_key="hb")]
    assert select_answer(records, lambda _k: False, random.Random(1)) == ["x"]


def test_simple_returns_every_value() -> None:
    record = AnswerRecord("", "simple", ("a", "b", "c"))
    assert sorted(select_answer([record], rng=random.Random(2))) == ["a", "b", "c"]


def test_mixed_policies_are_rejected() -> None:
    with pytest.raises(ValueError, match="mix routing policies"):
        select_answer([*_weighted([1]), *_multivalue(1)])


def test_same_seed_same_answers() -> None:
    first = [select_answer(_multivalue(9), rng=r) for r in [random.Random(4)] for _ in range(20)]
    second = [select_answer(_multivalue(9), rng=r) for r in [random.Random(4)] for _ in range(20)]
    assert first == second
