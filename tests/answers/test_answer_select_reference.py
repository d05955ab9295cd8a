"""Selection as Route 53 documents it, per routing policy, compared as whole outcomes.

Each test lists every :class:`Choice` (probability within its condition, the record sets
answered, the condition) that :func:`choices` gives, or what :func:`draw` and
:func:`pick_choice` send, and names the API reference sentence it rests on. Together they kill
the mutants of ``make mutate MODULE=answers/select.py`` that are not listed as equivalent in
docs/mutation-equivalent.txt.
"""

from __future__ import annotations

import random

import pytest

from edge_origin.answers import (
    Choice,
    CidrRouting,
    Geo,
    GeoProximity,
    Record,
    RecordKey,
    Vantage,
    choices,
    draw,
    pick_choice,
    policy_of,
)

NAME = "o.example.com"
SPARE = "while every non-zero-weight set is unhealthy"


def rec(set_id: str, policy: str, *values: str, **kw) -> Record:
    return Record(RecordKey("Z1", NAME, "A", set_id), policy, values or (f"192.0.2.{len(set_id)}",), ttl=60, **kw)


def down(*set_ids: str):
    """Health as Route 53 sees it: the named sets unhealthy, every other one healthy."""
    return lambda r: r.key.set_id not in set_ids


def weighted(*weights: int | None) -> list[Record]:
    return [rec(f"w{i}", "weighted", f"192.0.2.{i}", weight=w) for i, w in enumerate(weights)]


# -- weighted ------------------------------------------------------------------------------------------
def test_all_zero_weights_are_equally_likely_and_have_no_spare_scenario() -> None:
    # Weight: "If you set Weight to 0 for all resource record sets ... traffic is routed to all
    # resources with equal probability": there is no non-zero set whose failure they wait for.
    w = weighted(0, 0)
    assert choices(w, scenarios=True) == [Choice(0.5, (w[0],)), Choice(0.5, (w[1],))]
    # A weighted set without Weight (Route 53 requires it) counts as weight 0.
    n = weighted(None, 0)
    assert choices(n, scenarios=True) == [Choice(0.5, (n[0],)), Choice(0.5, (n[1],))]


def test_zero_weight_sets_answer_only_while_every_non_zero_set_is_unhealthy() -> None:
    # "if you set Weight to 0 for a resource record set, Route 53 never responds to queries with the
    # applicable value" - unless no non-zero set is healthy (developer guide, active-passive).
    w = weighted(1, 3, 0, 0)
    assert choices(w) == [Choice(0.25, (w[0],)), Choice(0.75, (w[1],))]
    assert choices(w, scenarios=True) == [
        Choice(0.25, (w[0],)), Choice(0.75, (w[1],)), Choice(0.5, (w[2],), SPARE), Choice(0.5, (w[3],), SPARE),
    ]
    assert choices(w, down("w0", "w1")) == [Choice(0.5, (w[2],)), Choice(0.5, (w[3],))]
    one = weighted(1, 0)
    assert choices(one, scenarios=True) == [Choice(1.0, (one[0],)), Choice(1.0, (one[1],), SPARE)]


def test_draw_follows_the_weights() -> None:
    # "Route 53 then responds to queries based on the ratio of a resource's weight to the total."
    w = weighted(1, 9)
    rng = random.Random(7)
    drawn = [draw(w, rng=rng)[0] for _ in range(200)]
    assert 160 <= drawn.count("192.0.2.1") <= 200 and drawn.count("192.0.2.0") >= 1
    assert draw(w[:1]) == ["192.0.2.0"]  # no rng given: one of its own


# -- multivalue and failover -------------------------------------------------------------------------------
def test_multivalue_is_one_outcome_of_every_healthy_record() -> None:
    # MultiValueAnswer: "if you have eight or fewer healthy records, Route 53 responds to all DNS
    # queries with all the healthy records".
    m = [rec(f"m{i}", "multivalue", f"192.0.2.{i}") for i in range(1, 4)]
    assert choices(m, down("m2")) == [Choice(1.0, (m[0], m[2]))]


def test_failover_secondary_answers_alone_while_the_primary_is_unhealthy() -> None:
    # Failover: "When the primary resource record set is unhealthy and the secondary resource record
    # set is healthy, Route 53 responds to DNS queries with the applicable value from the secondary".
    p = rec("p", "failover", failover="PRIMARY")
    s = rec("s", "failover", failover="secondary")
    assert choices([p, s], down("p"), scenarios=True) == [Choice(1.0, (s,))]
    assert choices([p, s], scenarios=True) == [Choice(1.0, (p,)), Choice(1.0, (s,), "while the primary is unhealthy")]


def test_failover_sets_without_primary_or_secondary_answer_the_first() -> None:
    # Route 53 refuses failover sets without Failover; given them anyway, the first set answers.
    a, b = rec("a", "failover"), rec("b", "failover")
    assert choices([a, b]) == [Choice(1.0, (a,))]


# -- latency and geoproximity ------------------------------------------------------------------------------
def _latency() -> list[Record]:
    return [rec("use1", "latency", "192.0.2.1", region="us-east-1"), rec("euw1", "latency", "192.0.2.2", region="eu-west-1"),
            rec("aps1", "latency", "192.0.2.3", region="ap-south-1")]


def test_latency_from_a_region_answers_its_set_or_the_next_healthy_ones() -> None:
    # Region: "Route 53 selects the latency resource record set that has the lowest latency".
    use1, euw1, aps1 = _latency()
    assert choices(_latency(), vantage=Vantage(region="eu-west-1")) == [Choice(1.0, (euw1,), "resolver nearest eu-west-1")]
    there = "resolver nearest us-east-1 (no healthy set there)"
    assert choices(_latency(), down("use1"), Vantage(region="us-east-1")) == [Choice(0.5, (euw1,), there), Choice(0.5, (aps1,), there)]
    # HealthCheckId: with every set unhealthy, Route 53 considers them all healthy.
    assert choices(_latency(), down("use1", "euw1", "aps1"), Vantage(region="us-east-1")) == [
        Choice(1.0, (use1,), "resolver nearest us-east-1")]


def test_latency_from_anywhere_lists_each_region_and_the_next_nearest_for_an_unhealthy_one() -> None:
    use1, euw1, aps1 = _latency()
    nxt = "resolver nearest region us-east-1 (unhealthy: next nearest)"
    assert choices(_latency(), down("use1")) == [
        Choice(0.5, (euw1,), nxt), Choice(0.5, (aps1,), nxt),
        Choice(1.0, (euw1,), "resolver nearest region eu-west-1"), Choice(1.0, (aps1,), "resolver nearest region ap-south-1"),
    ]


def test_draw_from_a_pinned_region_sends_that_region_only() -> None:
    rng = random.Random(3)
    drawn = {tuple(draw(_latency(), rng=rng, vantage=Vantage(region="eu-west-1"))) for _ in range(20)}
    assert drawn == {("192.0.2.2",)}


def test_geoproximity_by_region_and_by_local_zone_group() -> None:
    a = rec("a", "geoproximity", "192.0.2.1", geoproximity=GeoProximity(region="us-east-1"))
    b = rec("b", "geoproximity", "192.0.2.2", geoproximity=GeoProximity(local_zone_group="us-west-2-lax-1", bias=5))
    assert choices([a, b]) == [Choice(1.0, (a,), "resolver nearest place us-east-1"),
                               Choice(1.0, (b,), "resolver nearest place us-west-2-lax-1 (bias 5)")]
    assert choices([a, b], vantage=Vantage(region="us-east-1")) == [Choice(1.0, (a,), "resolver nearest us-east-1")]


# -- geolocation and CIDR ----------------------------------------------------------------------------------
def test_geolocation_healthy_unhealthy_and_no_record() -> None:
    # GeoLocation: "priority goes to the smallest geographic region"; "If you don't create a *
    # resource record set, Route 53 returns a "no answer" response for queries from those locations."
    us = rec("us", "geolocation", "192.0.2.1", geo=Geo(country="US"))
    na = rec("na", "geolocation", "192.0.2.2", geo=Geo(continent="NA"))
    here = Vantage(location=Geo(continent="NA", country="US"))
    assert choices([us, na], vantage=here) == [Choice(1.0, (us,), "queries from NA/US")]
    assert choices([us, na], down("us", "na"), here) == [Choice(1.0, (us,), "queries from NA/US (none healthy: the most specific)")]
    assert choices([us, na], vantage=Vantage(location=Geo(continent="EU", country="DE"))) == [
        Choice(1.0, (), "queries from EU/DE (no record: no answer)")]


def test_cidr_location_default_unhealthy_and_no_record() -> None:
    # CidrRoutingConfig: "A LocationName with an asterisk "*" can be used to create a default CIDR record."
    office = rec("office", "cidr", "192.0.2.1", cidr=CidrRouting("c1", "office"))
    lab = rec("lab", "cidr", "192.0.2.2", cidr=CidrRouting("c1", "lab"))
    assert choices([office, lab], vantage=Vantage(cidr_location="office")) == [Choice(1.0, (office,), "clients in CIDR location office")]
    assert choices([office, lab], down("office"), Vantage(cidr_location="office")) == [
        Choice(1.0, (office,), "clients in CIDR location office (unhealthy)")]
    assert choices([office, lab]) == [
        Choice(1.0, (office,), "clients in CIDR location office"), Choice(1.0, (lab,), "clients in CIDR location lab"),
        Choice(1.0, (), "clients in no CIDR location (no record: no answer)"),
    ]


def test_sets_missing_their_routing_field_never_answer_for_a_place() -> None:
    # Route 53 refuses these; a template may still hold them: they are judged, never a crash.
    office = rec("office", "cidr", "192.0.2.1", cidr=CidrRouting("c1", "office"))
    bare = rec("bare", "cidr", "192.0.2.9")
    assert choices([office, bare]) == [Choice(1.0, (office,), "clients in CIDR location office"),
                                       Choice(1.0, (), "clients in no CIDR location (no record: no answer)")]
    nowhere = rec("nowhere", "geoproximity", "192.0.2.8")
    assert [c.records for c in choices([nowhere])] == [(nowhere,)]


# -- drawing one outcome -------------------------------------------------------------------------------------
class FixedRng:
    """A random source that picks the ``index``-th condition and returns ``point`` from random()."""

    def __init__(self, index: int, point: float) -> None:
        self.index, self.point = index, point

    def choice(self, seq):
        return seq[self.index]

    def random(self) -> float:
        return self.point


def test_pick_choice_weighs_conditions_equally_and_probabilities_within_one() -> None:
    a1, a2, b = Choice(0.25, ("a1",), "a"), Choice(0.75, ("a2",), "a"), Choice(1.0, ("b",), "b")
    outcomes = [a1, a2, b]
    assert pick_choice(outcomes, FixedRng(0, 0.2)) is a1
    assert pick_choice(outcomes, FixedRng(0, 0.25)) is a2  # the boundary belongs to the next outcome
    assert pick_choice(outcomes, FixedRng(0, 0.5)) is a2
    assert pick_choice(outcomes, FixedRng(1, 0.0)) is b
    # Probabilities as given, relative to their sum; a point at the very end (rounding) is the last.
    x, y, z = Choice(1.0, ("x",)), Choice(3.0, ("y",)), Choice(1.0, ("z",))
    assert pick_choice([x, y, z], FixedRng(0, 0.5)) is y
    assert pick_choice([x, y, z], FixedRng(0, 1.0)) is z


def test_policy_of_refuses_nothing_with_its_own_message() -> None:
    with pytest.raises(ValueError) as nothing:
        policy_of([])
    assert str(nothing.value) == "no records"
