"""The rehearsal's verdict with its odds (rehearsal/odds.py): no servers, the two distributions only."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.rehearsal import odds
from edge_origin.rehearsal.plan import DnsPlan, Origin, PlanRecord, reference_plan

WRONG, RIGHT = {odds.PILE_UP: 1, odds.SPREAD: -1}, {odds.PILE_UP: -1, odds.SPREAD: 1}


def _plan(routing: str, weights: list[int]) -> DnsPlan:
    keys = [f"Eip{i}" for i in range(len(weights))]
    records = tuple(
        PlanRecord(set_identifier=k, routing=routing, values=(k,), weight=w if routing == "weighted" else None)
        for k, w in zip(keys, weights, strict=True)
    )
    return DnsPlan("origin.example.com", records, tuple(Origin(k) for k in keys))


def _runs(shape: odds.Shape, truth: str, draws: int, seed: int) -> dict[str, np.ndarray]:
    """``draws`` runs of a plan whose truth is ``truth``, from a generator the verdict never saw."""
    samples = odds.figure_samples(shape, draws, np.random.default_rng(seed))
    return {name: dist[truth] for name, dist in samples.items()}


def _reference(shape: odds.Shape) -> dict[str, dict[str, np.ndarray]]:
    return odds.figure_samples(shape, odds._trials(shape, odds.TRIALS), np.random.default_rng(odds.SEED))


shapes = st.builds(
    lambda routing, weights, edges, per_edge, extra, policy: (routing, weights, edges, edges * per_edge + extra % edges, policy),
    st.sampled_from(["weighted", "multivalue"]),
    st.lists(st.integers(1, 3), min_size=2, max_size=12),  # above 8 a multivalue answer is a subset per resolver
    st.integers(1, 40),
    st.integers(2, 12),
    st.integers(0, 40),
    st.sampled_from(["shuffle", "pick_first", "round_robin"]),
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes, st.integers(0, 2**32 - 1))
def test_a_wrong_call_is_as_rare_as_the_verdict_says(shape_args, seed: int) -> None:
    """Any plan shape, runs drawn from either truth: a wrong call (spread for a plan whose answers pile up
    per resolver, pile-up for one whose clients spread) at most ALPHA of the time, plus sampling slack."""
    routing, weights, edges, clients, policy = shape_args
    shape = odds.plan_shape(_plan(routing, weights), odds.clients_per_resolver(clients, edges), policy)
    ref = _reference(shape)
    draws = 150
    for truth in (odds.PILE_UP, odds.SPREAD):
        calls = odds.classify_many(ref, _runs(shape, truth, draws, seed))
        wrong = float((calls == WRONG[truth]).mean())
        assert wrong <= odds.ALPHA + 3 * (odds.ALPHA / draws) ** 0.5 + 2 / draws, (truth, wrong, shape_args)


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 8), st.integers(100, 1000), st.integers(0, 2**32 - 1))
def test_a_weighted_plan_at_4_edges_is_never_called_spread(k: int, clients: int, seed: int) -> None:
    """Issue 54: four edges each caching one weighted answer. From the overall max/mean alone (what the
    model and watch see) an even split is no evidence of spread; with the clients' resolvers, a pile-up."""
    shape = odds.plan_shape(_plan("weighted", [1] * k), odds.clients_per_resolver(clients, 4), "shuffle")
    ref = _reference(shape)
    runs = _runs(shape, odds.PILE_UP, 300, seed)
    assert not (odds.classify_many(ref, {"overall": runs["overall"]}) == 1).any()
    assert (odds.classify_many(ref, runs) == -1).all()


@settings(max_examples=5, deadline=None)
@given(st.sampled_from([4, 50]), st.integers(200, 600), st.integers(0, 2**32 - 1))
def test_a_multivalue_plan_is_never_called_pile_up_and_at_50_edges_both_are_called_right(
        edges: int, clients: int, seed: int) -> None:
    for routing, truth in (("multivalue", odds.SPREAD), ("weighted", odds.PILE_UP)):
        shape = odds.plan_shape(reference_plan(routing=routing), odds.clients_per_resolver(clients, edges), "shuffle")
        calls = odds.classify_many(_reference(shape), _runs(shape, truth, 200, seed))
        assert not (calls == WRONG[truth]).any(), (routing, edges)
        if edges == 50:
            assert (calls == RIGHT[truth]).mean() >= 0.99, (routing, edges)


def test_the_two_nlb_coin_toss_of_the_issue() -> None:
    """Two addresses, four edges, 500 clients, overall max/mean only: 2-2 (1.0) is what a pile-up plan
    gives 6 times in 16, so it is inconclusive, with the advice; 3-1 and 4-0 are pile-ups."""
    shape = odds.plan_shape(_plan("weighted", [1, 1]), odds.clients_per_resolver(500, 4), "shuffle")
    even = odds.judge(shape, {"overall": 1.0}, policy="shuffle", edges=4)
    assert even.verdict == odds.INCONCLUSIVE
    assert even.figures[0].pile_tail == pytest.approx(6 / 16, abs=0.03)
    assert even.reason.startswith("4 edge(s) cannot tell these plans apart; use --edges ")
    assert even.edges_advice is not None and even.reason.endswith(f"use --edges {even.edges_advice} or --model")
    assert odds.separates(odds.Shape(shape.keys, shape.answers, odds.clients_per_resolver(500, even.edges_advice)))
    for ratio in (1.5, 2.0):
        call = odds.judge(shape, {"overall": ratio}, policy="shuffle", edges=4)
        assert call.verdict == odds.PILE_UP and call.p_wrong is not None and call.p_wrong < odds.ALPHA
        assert "probability of a wrong call" in call.text()


def test_one_client_per_edge_cannot_tell_the_plans_apart_and_says_which_edges_would() -> None:
    """Every client its own resolver: both hypotheses are the same distribution."""
    shape = odds.plan_shape(reference_plan(routing="weighted"), odds.clients_per_resolver(40, 40), "shuffle")
    verdict = odds.judge(shape, {"overall": 1.5, "per_resolver": None}, policy="shuffle", edges=40)
    assert verdict.verdict == odds.INCONCLUSIVE and verdict.edges_advice is not None and verdict.edges_advice < 40


def test_no_connections_are_nothing_to_judge() -> None:
    shape = odds.plan_shape(reference_plan(routing="weighted"), odds.clients_per_resolver(60, 1), "shuffle")
    verdict = odds.judge(shape, {"overall": 0.0}, policy="shuffle", edges=1)
    assert verdict.verdict == odds.INCONCLUSIVE and verdict.reason == "no connections to judge"


def test_one_shared_resolver_advises_the_model_not_more_edges() -> None:
    shape = odds.plan_shape(reference_plan(routing="weighted"), odds.clients_per_resolver(1, 1, shared=True), "shuffle")
    verdict = odds.judge(shape, {"overall": 6.0}, policy="shuffle", edges=10, shared=True)
    assert verdict.verdict == odds.INCONCLUSIVE and verdict.reason == "10 edge(s) cannot tell these plans apart; use --model"


def test_the_per_resolver_figure_decides_and_the_overall_one_is_noted() -> None:
    shape = odds.plan_shape(reference_plan(routing="multivalue"), odds.clients_per_resolver(500, 4), "shuffle")
    verdict = odds.judge(shape, {"overall": 6.0, "per_resolver": 1.2}, policy="shuffle", edges=4)
    assert verdict.verdict == odds.SPREAD
    assert verdict.notes and "the overall max/mean alone would say pile-up" in verdict.notes[0]


def test_judge_and_classify_many_agree() -> None:
    shape = odds.plan_shape(reference_plan(routing="multivalue"), odds.clients_per_resolver(300, 24), "pick_first")
    ref = _reference(shape)
    code = {1: odds.SPREAD, -1: odds.PILE_UP, 0: odds.INCONCLUSIVE}
    for overall, per in ((1.1, 1.6), (2.0, 6.0), (1.5, 3.0), (1.25, 6.0)):
        one = odds.judge(shape, {"overall": overall, "per_resolver": per}, policy="pick_first", advise=False)
        many = odds.classify_many(ref, {"overall": np.array([overall]), "per_resolver": np.array([per])})
        assert one.verdict == code[int(many[0])], (overall, per)


@pytest.mark.parametrize(("policy", "rotation", "routing", "expected"), [
    ("shuffle", False, "weighted", odds.PILE_UP), ("shuffle", False, "multivalue", odds.SPREAD),
    ("pick_first", False, "multivalue", odds.PILE_UP), ("pick_first", True, "multivalue", odds.SPREAD),
    ("round_robin", False, "multivalue", odds.SPREAD), ("round_robin", False, "weighted", odds.PILE_UP),
])
def test_the_plans_own_semantics(policy: str, rotation: bool, routing: str, expected: str) -> None:
    shape = odds.plan_shape(reference_plan(routing=routing), (10, 10), policy)
    assert odds.expected_verdict(shape, policy, rotation) == expected


def test_measured_per_resolver_groups_clients_by_edge_or_as_one_shared_resolver() -> None:
    keys = ["a", "b"]
    clients = [{"edge": "e1", "origins": [(0.1, "a")]}, {"edge": "e1", "origins": [(0.1, "a")]},
               {"edge": "e2", "origins": [(0.1, "a")]}, {"edge": "e2", "origins": [(0.1, "b")]},
               {"edge": "e3", "origins": []}]
    assert odds.measured_per_resolver(clients, keys) == pytest.approx((2.0 + 1.0) / 2)
    assert odds.measured_per_resolver(clients, keys, shared=True) == pytest.approx(3 / 2)
    assert odds.measured_per_resolver(clients[:1], keys) is None


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 12), st.integers(20, 3000), st.floats(1.0, 3.0))
def test_balanced_tail_bounds_the_chance_of_a_balanced_spread(nodes: int, total: int, ratio: float) -> None:
    """watch's pure-Python side: never below the true chance (checked by simulation), 1 at or below the mean."""
    tail = odds.balanced_tail(ratio, total, nodes)
    rng = np.random.default_rng(1)
    counts = rng.multinomial(total, [1 / nodes] * nodes, size=4000)
    simulated = float((counts.max(axis=1) / (total / nodes) >= ratio - 1e-9).mean())
    assert 0.0 <= tail <= 1.0
    assert tail >= simulated - 0.02, (tail, simulated)
    assert odds.balanced_tail(1.0, total, nodes) == 1.0
    assert odds.balanced_tail(ratio + 0.5, total, nodes) <= tail


def test_balanced_tail_is_small_only_when_the_flows_are_many() -> None:
    assert odds.balanced_tail(1.6, 500, 6) < 1e-4  # 500 flows over 6 nodes: 1.6 is no accident
    assert odds.balanced_tail(1.6, 40, 6) > 0.05  # 40 flows: it often is
    assert odds.balanced_tail(1.2, 10**8, 6) == 0.0


def test_the_seeded_answers_do_not_depend_on_the_order_the_edges_ask_in() -> None:
    from edge_origin.rehearsal.dns_server import AuthoritativeServer

    plan = reference_plan(routing="weighted")

    def asked(order: list[str]) -> dict[str, list[list[str]]]:
        server = AuthoritativeServer(plan, {k: "127.0.10.1" for k in plan.origin_keys}, lambda _c: True, seed=11)
        out: dict[str, list[list[str]]] = {}
        for source in order:
            out.setdefault(source, []).append(server.answer_keys(source))
        return out

    edges = [f"127.0.20.{i}" for i in range(1, 6)] * 3
    shuffled = list(edges)
    random.Random(3).shuffle(shuffled)
    assert asked(edges) == asked(shuffled)
    other = AuthoritativeServer(plan, {k: "127.0.10.1" for k in plan.origin_keys}, lambda _c: True, seed=12)
    assert [other.answer_keys(e) for e in edges] != [a for e in edges for a in [asked(edges)[e][0]]]


def test_the_release_order_is_a_permutation_drawn_from_the_seed() -> None:
    from edge_origin.rehearsal.clients import ClientRecord, release_order

    records = [ClientRecord(edge="e", index=i) for i in range(50)]
    one = [r.index for r in release_order(records, 5)]
    assert one == [r.index for r in release_order(records, 5)]
    assert sorted(one) == list(range(50)) and one != list(range(50))
    assert one != [r.index for r in release_order(records, 6)]
    assert [r.index for r in release_order(records, None)] == list(range(50))
