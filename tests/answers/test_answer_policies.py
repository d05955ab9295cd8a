"""The answer model per routing policy: one test that shows the behaviour the API reference
states (fire) and one that shows its absence (quiet), from the reference's own wording."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.answers import (
    MAX_CHAIN,
    PUBLIC,
    AliasTarget,
    CidrRouting,
    Geo,
    GeoProximity,
    HealthCheck,
    HealthState,
    HostedZone,
    LoadBalancer,
    Record,
    RecordKey,
    Vantage,
    ZoneSet,
    can_fail,
    check_healthy,
    choices,
    draw,
)

ZONE = HostedZone("Z1", "example.com")
NAME = "o.example.com"


def rec(set_id: str | None, policy: str, *values: str, name: str = NAME, rtype: str = "A", zone: str = "Z1", **kw) -> Record:
    return Record(RecordKey(zone, name, rtype, set_id), policy, tuple(values), ttl=60, **kw)


def zs(*records: Record, checks=(), lbs=(), zones=(ZONE,)) -> ZoneSet:
    return ZoneSet(zones, records, checks, lbs)


def sizes(zoneset: ZoneSet, **kw) -> list[tuple[float, int]]:
    return sorted((round(a.probability, 3), a.targets) for a in zoneset.resolve(NAME, **kw).answers)


# --- simple -------------------------------------------------------------------------------------
def test_simple_answers_every_value() -> None:
    r = zs(rec(None, "simple", "192.0.2.1", "192.0.2.2")).resolve(NAME)
    assert [(a.probability, a.addresses) for a in r.answers] == [(1.0, ("192.0.2.1", "192.0.2.2"))]
    assert r.policy == "simple" and r.answers[0].chain[0].key == RecordKey("Z1", NAME, "A", None)


# --- weighted -----------------------------------------------------------------------------------
def test_weighted_ratio_of_weight_to_total() -> None:
    # "Route 53 then responds to queries based on the ratio of a resource's weight to the total."
    r = zs(rec("a", "weighted", "192.0.2.1", weight=1), rec("b", "weighted", "192.0.2.2", weight=3))
    assert sizes(r) == [(0.25, 1), (0.75, 1)]


def test_weighted_zero_weight_never_answers() -> None:
    # "if you set Weight to 0 for a resource record set, Route 53 never responds ... with the applicable value"
    r = zs(rec("a", "weighted", "192.0.2.1", weight=0), rec("b", "weighted", "192.0.2.2", weight=3)).resolve(NAME)
    assert [a.addresses for a in r.answers] == [("192.0.2.2",)]


def test_weighted_all_zero_is_equal_probability() -> None:
    # "if you set Weight to 0 for all resource record sets ... traffic is routed to all resources with equal probability"
    r = zs(rec("a", "weighted", "192.0.2.1", weight=0), rec("b", "weighted", "192.0.2.2", weight=0))
    assert sizes(r) == [(0.5, 1), (0.5, 1)]


def test_weighted_zero_weight_answers_when_nonzero_unhealthy() -> None:
    checks = [HealthCheck("hc-b", ip_address="192.0.2.2")]
    r = zs(rec("a", "weighted", "192.0.2.1", weight=0), rec("b", "weighted", "192.0.2.2", weight=3, health_check_id="hc-b"), checks=checks)
    down = r.resolve(NAME, state=HealthState(down_addresses=frozenset({"192.0.2.2"})))
    assert [a.addresses for a in down.answers] == [("192.0.2.1",)]
    assert [a.addresses for a in r.resolve(NAME).answers] == [("192.0.2.2",)]


def test_weighted_all_unhealthy_fails_open() -> None:
    # HealthCheckId: "If the health check status for all resource record sets in the group is unhealthy,
    # Route 53 considers all resource record sets in the group healthy"
    checks = [HealthCheck("h1", ip_address="192.0.2.1"), HealthCheck("h2", ip_address="192.0.2.2")]
    r = zs(rec("a", "weighted", "192.0.2.1", weight=1, health_check_id="h1"), rec("b", "weighted", "192.0.2.2", weight=1, health_check_id="h2"), checks=checks)
    down = r.resolve(NAME, state=HealthState(down_addresses=frozenset({"192.0.2.1", "192.0.2.2"})))
    assert sorted(a.addresses for a in down.answers) == [("192.0.2.1",), ("192.0.2.2",)]


def test_weighted_sets_each_holding_every_address_answer_all() -> None:
    r = zs(rec("a", "weighted", "192.0.2.1", "192.0.2.2", weight=1), rec("b", "weighted", "192.0.2.2", "192.0.2.1", weight=1))
    assert {a.targets for a in r.resolve(NAME).answers} == {2}


# --- multivalue ---------------------------------------------------------------------------------
def _mv(n: int, checked: bool = True) -> list[Record]:
    return [rec(f"r{i}", "multivalue", f"192.0.2.{i}", health_check_id=f"h{i}" if checked else None) for i in range(1, n + 1)]


def _mv_checks(n: int) -> list[HealthCheck]:
    return [HealthCheck(f"h{i}", ip_address=f"192.0.2.{i}") for i in range(1, n + 1)]


def test_multivalue_eight_or_fewer_all_healthy_records() -> None:
    # "if you have eight or fewer healthy records, Route 53 responds to all DNS queries with all the healthy records"
    r = zs(*_mv(8), checks=_mv_checks(8)).resolve(NAME)
    assert [(a.pick, a.size) for a in r.answers] == [(None, 8)]


def test_multivalue_above_eight_a_different_eight_per_resolver() -> None:
    # "If you have more than eight healthy records, Route 53 responds to different DNS resolvers with different combinations"
    zoneset = zs(*_mv(12), checks=_mv_checks(12))
    r = zoneset.resolve(NAME)
    assert [(a.pick, a.size, len(a.addresses)) for a in r.answers] == [(8, 8, 12)]
    rng = random.Random(1)
    records = zoneset.record_sets("Z1", NAME, "A")
    drawn = {tuple(sorted(draw(records, rng=rng))) for _ in range(20)}
    assert len(drawn) > 1 and all(len(d) == 8 for d in drawn)


def test_multivalue_unhealthy_dropped_and_fail_open_up_to_eight() -> None:
    # "responds ... with the corresponding IP address only when the health check is healthy";
    # "When all records are unhealthy, Route 53 responds to DNS queries with up to eight unhealthy records."
    zoneset = zs(*_mv(10), checks=_mv_checks(10))
    one_down = zoneset.resolve(NAME, state=HealthState(down_addresses=frozenset({"192.0.2.1", "192.0.2.2", "192.0.2.3"})))
    assert one_down.answers[0].size == 7 and "192.0.2.1" not in one_down.answers[0].addresses
    all_down = zoneset.resolve(NAME, state=HealthState(down_addresses=frozenset(f"192.0.2.{i}" for i in range(1, 11))))
    assert all_down.answers[0].size == 8


def test_multivalue_record_without_check_is_healthy() -> None:
    # "If you don't associate a health check with a multivalue answer record, Route 53 always considers the record to be healthy."
    records = [rec("a", "multivalue", "192.0.2.1"), rec("b", "multivalue", "192.0.2.2", health_check_id="h2")]
    r = zs(*records, checks=[HealthCheck("h2", ip_address="192.0.2.2")]).resolve(NAME, state=HealthState(down_addresses=frozenset({"192.0.2.1", "192.0.2.2"})))
    assert r.answers[0].addresses == ("192.0.2.1",)


# --- failover -----------------------------------------------------------------------------------
def _failover(primary_check: str | None = "hp", secondary_check: str | None = "hs") -> ZoneSet:
    checks = [HealthCheck("hp", ip_address="192.0.2.1"), HealthCheck("hs", ip_address="192.0.2.2")]
    return zs(
        rec("p", "failover", "192.0.2.1", failover="PRIMARY", health_check_id=primary_check),
        rec("s", "failover", "192.0.2.2", failover="SECONDARY", health_check_id=secondary_check),
        checks=checks,
    )


@pytest.mark.parametrize(
    ("down", "expected"),
    [
        (set(), "192.0.2.1"),  # "When the primary ... is healthy, Route 53 responds ... from the primary"
        ({"192.0.2.1"}, "192.0.2.2"),  # "primary ... unhealthy and the secondary ... healthy: ... the secondary"
        ({"192.0.2.1", "192.0.2.2"}, "192.0.2.1"),  # "When the secondary ... is unhealthy, ... the primary"
        ({"192.0.2.2"}, "192.0.2.1"),  # primary healthy: "regardless of the health of the secondary"
    ],
)
def test_failover_rules_of_the_api_reference(down: set[str], expected: str) -> None:
    r = _failover().resolve(NAME, state=HealthState(down_addresses=frozenset(down)))
    assert [a.addresses for a in r.answers] == [(expected,)]


def test_failover_secondary_without_check_always_answers_when_primary_down() -> None:
    # "If you omit the HealthCheckId element for the secondary ... Route 53 always responds ... with the secondary"
    r = _failover(secondary_check=None).resolve(NAME, state=HealthState(down_addresses=frozenset({"192.0.2.1", "192.0.2.2"})))
    assert [a.addresses for a in r.answers] == [("192.0.2.2",)]


# --- latency ------------------------------------------------------------------------------------
def _latency() -> ZoneSet:
    checks = [HealthCheck("h1", ip_address="192.0.2.1")]
    return zs(
        rec("use1", "latency", "192.0.2.1", region="us-east-1", health_check_id="h1"),
        rec("euw1", "latency", "192.0.2.2", region="eu-west-1"),
        checks=checks,
    )


def test_latency_one_set_per_region_each_one_address() -> None:
    # "Route 53 selects the latency resource record set that has the lowest latency ... returns the value"
    r = _latency().resolve(NAME)
    assert sorted((a.condition, a.addresses) for a in r.answers) == [
        ("resolver nearest region eu-west-1", ("192.0.2.2",)),
        ("resolver nearest region us-east-1", ("192.0.2.1",)),
    ]
    pinned = _latency().resolve(NAME, vantage=Vantage(region="eu-west-1"))
    assert [a.addresses for a in pinned.answers] == [("192.0.2.2",)]


def test_latency_unhealthy_region_answers_the_next() -> None:
    r = _latency().resolve(NAME, vantage=Vantage(region="us-east-1"), state=HealthState(down_addresses=frozenset({"192.0.2.1"})))
    assert [a.addresses for a in r.answers] == [("192.0.2.2",)]


# --- geolocation --------------------------------------------------------------------------------
def _geo(default: bool = True) -> ZoneSet:
    records = [
        rec("us-ca", "geolocation", "192.0.2.1", geo=Geo(country="US", subdivision="CA")),
        rec("us", "geolocation", "192.0.2.2", geo=Geo(country="US")),
        rec("na", "geolocation", "192.0.2.3", geo=Geo(continent="NA")),
    ]
    if default:
        records.append(rec("any", "geolocation", "192.0.2.4", geo=Geo(country="*")))
    return zs(*records, checks=[HealthCheck("hca", ip_address="192.0.2.1")])


def test_geolocation_most_specific_wins() -> None:
    # "priority goes to the smallest geographic region"
    at = lambda g: [a.addresses for a in _geo().resolve(NAME, vantage=Vantage(location=g)).answers]  # noqa: E731
    assert at(Geo(continent="NA", country="US", subdivision="CA")) == [("192.0.2.1",)]
    assert at(Geo(continent="NA", country="US", subdivision="NY")) == [("192.0.2.2",)]
    assert at(Geo(continent="NA", country="CA")) == [("192.0.2.3",)]
    # "The value * in the CountryCode element matches all geographic locations that aren't specified"
    assert at(Geo(continent="EU", country="DE")) == [("192.0.2.4",)]


def test_geolocation_without_default_has_no_answer() -> None:
    # "If you don't create a * resource record set, Route 53 returns a "no answer" response for queries from those locations."
    r = _geo(default=False).resolve(NAME, vantage=Vantage(location=Geo(continent="EU", country="DE")))
    assert [a.empty for a in r.answers] == [True]
    assert not _geo().resolve(NAME, vantage=Vantage(location=Geo(continent="EU", country="DE"))).answers[0].empty


def test_geolocation_unhealthy_falls_to_larger_region() -> None:
    # "if an endpoint is unhealthy, Route 53 looks for a resource record set for the larger, associated geographic region"
    zoneset = ZoneSet([ZONE], [r if r.key.set_id != "us-ca" else Record(r.key, r.policy, r.values, 60, health_check_id="hca", geo=r.geo) for r in _geo().records], [HealthCheck("hca", ip_address="192.0.2.1")])
    r = zoneset.resolve(NAME, vantage=Vantage(location=Geo(continent="NA", country="US", subdivision="CA")), state=HealthState(down_addresses=frozenset({"192.0.2.1"})))
    assert [a.addresses for a in r.answers] == [("192.0.2.2",)]


# --- geoproximity and CIDR ----------------------------------------------------------------------
def test_geoproximity_one_set_per_place() -> None:
    r = zs(
        rec("a", "geoproximity", "192.0.2.1", geoproximity=GeoProximity(region="us-east-1")),
        rec("b", "geoproximity", "192.0.2.2", geoproximity=GeoProximity(region="eu-west-1", bias=10)),
    ).resolve(NAME)
    assert sorted(a.addresses for a in r.answers) == [("192.0.2.1",), ("192.0.2.2",)]
    assert sorted(a.condition for a in r.answers) == ["resolver nearest place eu-west-1", "resolver nearest place us-east-1"]
    assert all(a.targets == 1 for a in r.answers)


def test_cidr_location_and_default() -> None:
    # CidrRoutingConfig: "A LocationName with an asterisk "*" can be used to create a default CIDR record."
    zoneset = zs(rec("a", "cidr", "192.0.2.1", cidr=CidrRouting("c1", "office")), rec("d", "cidr", "192.0.2.9", cidr=CidrRouting("c1", "*")))
    assert [a.addresses for a in zoneset.resolve(NAME, vantage=Vantage(cidr_location="office")).answers] == [("192.0.2.1",)]
    assert [a.addresses for a in zoneset.resolve(NAME, vantage=Vantage(cidr_location="home")).answers] == [("192.0.2.9",)]
    no_default = zs(rec("a", "cidr", "192.0.2.1", cidr=CidrRouting("c1", "office")))
    assert [a.empty for a in no_default.resolve(NAME, vantage=Vantage(cidr_location="home")).answers] == [True]


# --- aliases, CNAMEs, zones --------------------------------------------------------------------
NLB = LoadBalancer("nlb-1.elb.amazonaws.com", "network", (("a", "198.51.100.1"), ("b", "198.51.100.2")), "Nlb")


def test_alias_to_load_balancer_answers_its_zonal_addresses() -> None:
    r = zs(rec(None, "simple", alias=AliasTarget(NLB.dns_name, True)), lbs=[NLB]).resolve(NAME)
    assert [(a.load_balancers, a.size, a.targets) for a in r.answers] == [((NLB,), 2, 1)]


def test_alias_with_evaluate_target_health_inherits_load_balancer_health() -> None:
    # EvaluateTargetHealth: "an alias resource record set inherits the health of the referenced ... resource"
    other = LoadBalancer("nlb-2.elb.amazonaws.com", "network", (("a", "198.51.100.3"),), "Nlb2")
    zoneset = zs(
        rec("a", "weighted", alias=AliasTarget(NLB.dns_name, True), weight=1),
        rec("b", "weighted", alias=AliasTarget(other.dns_name, True), weight=1),
        lbs=[NLB, other],
    )
    down = zoneset.resolve(NAME, state=HealthState(load_balancers_down=frozenset({NLB.dns_name})))
    assert [a.load_balancers for a in down.answers] == [(other,)]
    assert len(zoneset.resolve(NAME).answers) == 2


def test_alias_to_another_record_of_the_zone_follows_its_pool() -> None:
    zoneset = zs(
        rec(None, "simple", alias=AliasTarget("pool.example.com", True)),
        rec("a", "weighted", "192.0.2.1", name="pool.example.com", weight=1),
        rec("b", "weighted", "192.0.2.2", name="pool.example.com", weight=1),
    )
    r = zoneset.resolve(NAME)
    assert sorted((a.addresses, a.probability) for a in r.answers) == [(("192.0.2.1",), 0.5), (("192.0.2.2",), 0.5)]
    assert [h.via for h in r.answers[0].chain] == ["query", "alias"]


def test_weighted_cnames_to_load_balancer_names() -> None:
    other = LoadBalancer("nlb-2.elb.amazonaws.com", "network", (("a", "198.51.100.3"),), "Nlb2")
    zoneset = zs(
        rec("a", "weighted", NLB.dns_name, rtype="CNAME", weight=1),
        rec("b", "weighted", other.dns_name, rtype="CNAME", weight=1),
        lbs=[NLB, other],
    )
    r = zoneset.resolve(NAME, "A")
    assert sorted(a.load_balancers[0].label for a in r.answers) == ["Nlb", "Nlb2"]
    assert all(a.targets == 1 for a in r.answers)


def test_cname_chain_is_bounded_and_loops_are_problems() -> None:
    chain = [rec(None, "simple", f"n{i + 1}.example.com", name=f"n{i}.example.com", rtype="CNAME") for i in range(MAX_CHAIN + 3)]
    r = zs(*chain).resolve("n0.example.com")
    assert r.answers == () and any("longer than" in p for p in r.problems)
    loop = zs(rec(None, "simple", "b.example.com", name="a.example.com", rtype="CNAME"), rec(None, "simple", "a.example.com", name="b.example.com", rtype="CNAME"))
    assert any("loop" in p for p in loop.resolve("a.example.com").problems)
    short = zs(rec(None, "simple", "b.example.com", name="a.example.com", rtype="CNAME"), rec(None, "simple", "192.0.2.1", name="b.example.com"))
    assert [a.addresses for a in short.resolve("a.example.com").answers] == [("192.0.2.1",)]


def test_aaaa_is_its_own_type() -> None:
    zoneset = zs(rec(None, "simple", "192.0.2.1"), rec(None, "simple", "2001:db8::1", rtype="AAAA"))
    assert zoneset.resolve(NAME, "AAAA").answers[0].addresses == ("2001:db8::1",)
    assert zoneset.resolve(NAME, "A").answers[0].addresses == ("192.0.2.1",)


def test_public_resolver_never_sees_a_private_zone() -> None:
    private = HostedZone("ZP", "example.com", private=True, vpcs=("vpc-1",))
    zoneset = ZoneSet(
        [ZONE, private],
        [rec("a", "weighted", "10.0.0.1", zone="ZP", weight=1), rec("b", "weighted", "10.0.0.2", zone="ZP", weight=1), rec(None, "simple", "192.0.2.1", "192.0.2.2")],
    )
    public = zoneset.resolve(NAME, vantage=PUBLIC)
    assert public.zone == ZONE and public.answers[0].addresses == ("192.0.2.1", "192.0.2.2")
    inside = zoneset.resolve(NAME, vantage=Vantage("vpc", vpc_id="vpc-1"))
    assert inside.zone == private and {a.addresses for a in inside.answers} == {("10.0.0.1",), ("10.0.0.2",)}
    elsewhere = zoneset.resolve(NAME, vantage=Vantage("vpc", vpc_id="vpc-2"))
    assert elsewhere.zone == ZONE


def test_same_set_ids_in_two_zones_are_two_records() -> None:
    private = HostedZone("ZP", "example.com", private=True, vpcs=("vpc-1",))
    a = rec("x", "weighted", "10.0.0.1", zone="ZP", weight=1)
    b = rec("x", "weighted", "192.0.2.1", weight=1)
    zoneset = ZoneSet([ZONE, private], [a, b])
    assert a.key != b.key and len({r.key for r in zoneset.records}) == 2


def test_mixed_policies_are_a_problem_and_each_judged() -> None:
    r = zs(rec("a", "weighted", "192.0.2.1", weight=1), rec("b", "multivalue", "192.0.2.2")).resolve(NAME)
    assert r.problems and {a.condition.split(" and ")[0] for a in r.answers} == {
        "only the weighted record sets deployed", "only the multivalue record sets deployed"
    }


def test_bad_input_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="routing policy 'nope' is not one of simple"):
        rec("a", "nope", "192.0.2.1")
    with pytest.raises(ValueError, match="no hosted zone 'Z9'"):
        zs(rec("a", "simple", zone="Z9"))
    with pytest.raises(ValueError, match="vpc vantage needs vpc_id"):
        Vantage("vpc")


def test_choices_and_draw_agree_on_outcomes() -> None:
    records = [rec("a", "weighted", "192.0.2.1", weight=1), rec("b", "weighted", "192.0.2.2", weight=0)]
    assert [c.records[0].key.set_id for c in choices(records)] == ["a"]
    rng = random.Random(3)
    assert {tuple(draw(records, rng=rng)) for _ in range(50)} == {("192.0.2.1",)}


def test_dualstack_alias_names_the_same_load_balancer() -> None:
    r = zs(rec(None, "simple", alias=AliasTarget("dualstack." + NLB.dns_name, True)), lbs=[NLB]).resolve(NAME)
    assert [a.load_balancers for a in r.answers] == [(NLB,)]


@settings(database=None, max_examples=80, deadline=None)
@given(
    weights=st.lists(st.integers(0, 5), min_size=1, max_size=6),
    down=st.sets(st.integers(0, 5)),
    policy=st.sampled_from(["weighted", "multivalue", "failover"]),
    seed=st.integers(0, 2**16),
)
def test_draw_only_sends_what_choices_list(weights: list[int], down: set[int], policy: str, seed: int) -> None:
    """The DNS server's draw and the rules' listing are one implementation: every drawn answer is
    a listed outcome, and (probability > 0) every listed outcome can be drawn."""
    if policy == "failover":
        weights = weights[:2]
    records = [
        rec(f"s{i}", policy, f"192.0.2.{i}", weight=w if policy == "weighted" else None, health_check_id=f"h{i}",
            failover=("PRIMARY", "SECONDARY")[i] if policy == "failover" else None)
        for i, w in enumerate(weights)
    ]
    checks = {f"h{i}": HealthCheck(f"h{i}", ip_address=f"192.0.2.{i}") for i in range(len(weights))}
    state = HealthState(down_addresses=frozenset(f"192.0.2.{i}" for i in down))
    zoneset = ZoneSet([ZONE], records, checks.values())
    healthy = lambda r: zoneset.record_healthy(r, state)  # noqa: E731
    listed = {frozenset(v for r in c.records for v in r.values): c for c in choices(records, healthy)}
    rng = random.Random(seed)
    drawn = {frozenset(draw(records, healthy, rng)) for _ in range(200)}
    assert drawn and listed  # the loops below check something
    for answer in drawn:
        assert answer in listed or any(c.pick and answer <= {v for r in c.records for v in r.values} for c in listed.values())
    for answer, choice in listed.items():
        if choice.pick is None and choice.probability >= 0.1:
            assert answer in drawn


def test_geolocation_from_anywhere_lists_each_location_and_the_rest() -> None:
    r = _geo().resolve(NAME)
    assert sorted((a.condition, a.addresses) for a in r.answers) == [
        ("queries from NA", ("192.0.2.3",)),
        ("queries from US", ("192.0.2.2",)),
        ("queries from US/CA", ("192.0.2.1",)),
        ("queries from other locations", ("192.0.2.4",)),
    ]
    assert [a.empty for a in _geo(default=False).resolve(NAME).answers if a.condition == "queries from other locations (no record: no answer)"] == [True]


def test_cidr_from_anywhere_lists_each_location_and_the_rest() -> None:
    zoneset = zs(rec("a", "cidr", "192.0.2.1", cidr=CidrRouting("c1", "office")), rec("d", "cidr", "192.0.2.9", cidr=CidrRouting("c1", "*")))
    assert sorted((a.condition, a.addresses) for a in zoneset.resolve(NAME).answers) == [
        ("clients in CIDR location office", ("192.0.2.1",)),
        ("clients in no CIDR location", ("192.0.2.9",)),
    ]


def test_draw_spreads_over_equally_likely_outcomes_of_one_condition() -> None:
    checks = [HealthCheck("h1", ip_address="192.0.2.1")]
    records = [
        rec("use1", "latency", "192.0.2.1", region="us-east-1", health_check_id="h1"),
        rec("euw1", "latency", "192.0.2.2", region="eu-west-1"),
        rec("aps1", "latency", "192.0.2.3", region="ap-south-1"),
    ]
    zoneset = zs(*records, checks=checks)
    state = HealthState(down_addresses=frozenset({"192.0.2.1"}))
    vantage = Vantage(region="us-east-1")
    outcomes = choices(records, lambda r: zoneset.record_healthy(r, state), vantage)
    assert sorted((c.probability, c.records[0].values) for c in outcomes) == [(0.5, ("192.0.2.2",)), (0.5, ("192.0.2.3",))]
    rng = random.Random(5)
    drawn = [tuple(draw(records, lambda r: zoneset.record_healthy(r, state), rng, vantage)) for _ in range(200)]
    assert set(drawn) == {("192.0.2.2",), ("192.0.2.3",)} and 60 < drawn.count(("192.0.2.2",)) < 140


def test_draw_of_nothing_is_an_empty_answer_and_values_come_shuffled() -> None:
    assert draw([]) == [] and choices([]) == []
    rng = random.Random(2)
    records = [rec(None, "simple", "192.0.2.1", "192.0.2.2", "192.0.2.3")]
    orders = {tuple(draw(records, rng=rng)) for _ in range(30)}
    assert len(orders) > 1 and all(sorted(o) == ["192.0.2.1", "192.0.2.2", "192.0.2.3"] for o in orders)


def test_selection_refuses_mixed_policies_and_nothing() -> None:
    # "You can't create non-latency resource record sets that have the same values for the Name and
    # Type elements as latency resource record sets" (and likewise for weighted, failover, geolocation)
    with pytest.raises(ValueError, match=r"records mix routing policies: \['latency', 'weighted'\]"):
        choices([rec("a", "weighted", "192.0.2.1", weight=1), rec("b", "latency", "192.0.2.2", region="us-east-1")])
    from edge_origin.answers import policy_of

    with pytest.raises(ValueError, match="no records"):
        policy_of([])


def test_scenarios_list_the_answers_under_failure() -> None:
    listed = _failover().resolve(NAME, scenarios=True)
    assert sorted((a.condition, a.probability, a.addresses) for a in listed.answers) == [
        ("", 1.0, ("192.0.2.1",)),
        ("while the primary is unhealthy", 1.0, ("192.0.2.2",)),
    ]
    assert [a.addresses for a in _failover().resolve(NAME).answers] == [("192.0.2.1",)]
    spares = zs(rec("a", "weighted", "192.0.2.1", weight=2), rec("b", "weighted", "192.0.2.2", weight=0))
    assert sorted((a.condition, a.probability) for a in spares.resolve(NAME, scenarios=True).answers) == [
        ("", 1.0), ("while every non-zero-weight set is unhealthy", 1.0)
    ]


def test_geolocation_with_every_covering_set_unhealthy_answers_the_most_specific() -> None:
    checks = [HealthCheck(f"h{i}", ip_address=f"192.0.2.{i}") for i in (1, 2)]
    zoneset = zs(
        rec("us", "geolocation", "192.0.2.1", geo=Geo(country="US"), health_check_id="h1"),
        rec("na", "geolocation", "192.0.2.2", geo=Geo(continent="NA"), health_check_id="h2"),
        checks=checks,
    )
    state = HealthState(down_addresses=frozenset({"192.0.2.1", "192.0.2.2"}))
    r = zoneset.resolve(NAME, vantage=Vantage(location=Geo(continent="NA", country="US")), state=state)
    assert [a.addresses for a in r.answers] == [("192.0.2.1",)]


def test_names_outside_every_zone_or_without_records() -> None:
    zoneset = zs(rec(None, "simple", "192.0.2.1"))
    outside = zoneset.resolve("o.example.org")
    assert outside.zone is None and outside.answers == () and outside.problems == ("no visible hosted zone holds o.example.org",)
    assert not outside.found
    inside = zoneset.resolve("missing.example.com")
    assert inside.zone == ZONE and inside.answers == () and inside.problems == () and not inside.found
    assert zoneset.zone_for("O.Example.COM.") == ZONE
    assert [a.addresses for a in zoneset.resolve("O.Example.COM.").answers] == [("192.0.2.1",)]


def test_alias_with_evaluate_target_health_to_a_record_inherits_its_health() -> None:
    # "an alias resource record set inherits the health of the referenced ... another resource record set in the hosted zone"
    checks = [HealthCheck("h1", ip_address="192.0.2.1")]
    zoneset = zs(
        rec("a", "weighted", alias=AliasTarget("a.example.com", True), weight=1),
        rec("b", "weighted", "192.0.2.2", weight=1),
        rec(None, "simple", "192.0.2.1", name="a.example.com", health_check_id="h1"),
        checks=checks,
    )
    down = zoneset.resolve(NAME, state=HealthState(down_addresses=frozenset({"192.0.2.1"})))
    assert [a.addresses for a in down.answers] == [("192.0.2.2",)]
    assert sorted(a.addresses for a in zoneset.resolve(NAME).answers) == [("192.0.2.1",), ("192.0.2.2",)]
    without_eth = zs(
        rec("a", "weighted", alias=AliasTarget("a.example.com", False), weight=1),
        rec("b", "weighted", "192.0.2.2", weight=1),
        rec(None, "simple", "192.0.2.1", name="a.example.com", health_check_id="h1"),
        checks=checks,
    )
    assert len(without_eth.resolve(NAME, state=HealthState(down_addresses=frozenset({"192.0.2.1"}))).answers) == 2


def test_fail_open_keeps_zero_weights_out() -> None:
    checks = [HealthCheck("h1", ip_address="192.0.2.1"), HealthCheck("h2", ip_address="192.0.2.2")]
    zoneset = zs(rec("a", "weighted", "192.0.2.1", weight=1, health_check_id="h1"), rec("b", "weighted", "192.0.2.2", weight=0, health_check_id="h2"), checks=checks)
    down = zoneset.resolve(NAME, state=HealthState(down_addresses=frozenset({"192.0.2.1", "192.0.2.2"})))
    assert [(a.probability, a.addresses) for a in down.answers] == [(1.0, ("192.0.2.1",))]


def test_a_check_defined_elsewhere_is_assumed_to_work() -> None:
    assert can_fail("elsewhere", {}) is True and check_healthy("elsewhere", {}) is True


def test_alias_to_a_name_of_the_zone_without_records_is_an_empty_answer() -> None:
    r = zs(rec(None, "simple", alias=AliasTarget("gone.example.com", False))).resolve(NAME)
    assert [(a.empty, a.end) for a in r.answers] == [(True, None)]


def test_alias_loops_stop() -> None:
    loop = zs(
        rec(None, "simple", alias=AliasTarget("b.example.com", True), name="a.example.com"),
        rec(None, "simple", alias=AliasTarget("a.example.com", True), name="b.example.com"),
    )
    r = loop.resolve("a.example.com")
    assert r.answers == () and any("loop" in p for p in r.problems)
