"""Resolution as Route 53 and a resolver do it: aliases, CNAME chains, zones, whole answers.

Each test compares whole :class:`Answer` and :class:`Resolution` values (probability, addresses,
load balancers, TTL, chain, record sets, condition, where the chain ends), the answer a resolver
receives, and names the reference sentence it rests on (AliasTarget, CNAME, private hosted
zones). Together they kill the mutants of ``make mutate MODULE=answers/resolve.py`` that are not
listed as equivalent in docs/mutation-equivalent.txt.
"""

from __future__ import annotations

from edge_origin.answers import (
    ALL_HEALTHY,
    MAX_CHAIN,
    PUBLIC,
    AliasTarget,
    Answer,
    Geo,
    HealthCheck,
    HealthState,
    Hop,
    HostedZone,
    LoadBalancer,
    Record,
    RecordKey,
    Resolution,
    Vantage,
    ZoneSet,
    resolve,
)

ZONE = HostedZone("Z1", "example.com")
NAME = "o.example.com"
US = Vantage(region="us-east-1")
NLB = LoadBalancer("nlb-1.elb.us-east-1.amazonaws.com", "network", (("a", "198.51.100.1"), ("b", "198.51.100.2")), "Nlb")
NLB2 = LoadBalancer("nlb-2.elb.us-east-1.amazonaws.com", "network", (("a", "198.51.100.3"),), "Nlb2")
API = "d-abc123.execute-api.us-east-1.amazonaws.com"  # an alias target the model knows nothing about


def rec(set_id: str | None, policy: str, *values: str, name: str = NAME, rtype: str = "A", zone: str = "Z1",
        ttl: int | None = 60, **kw) -> Record:
    return Record(RecordKey(zone, name, rtype, set_id), policy, tuple(values), ttl=ttl, **kw)


def zs(*records: Record, checks=(), lbs=(NLB, NLB2), zones=(ZONE,)) -> ZoneSet:
    return ZoneSet(zones, records, checks, lbs)


def hop(record: Record, via: str = "query") -> Hop:
    return Hop(record.key, record.policy, via, record.routing_detail)


# -- AliasTarget ----------------------------------------------------------------------------------------
def test_alias_to_a_cloudfront_distribution_answers_the_distribution() -> None:
    # AliasTarget DNSName, CloudFront distribution: "Specify the domain name that CloudFront assigned
    # when you created your distribution": the answer is the distribution, not a record of the zone.
    front = rec("use1", "latency", "edge.example.com", rtype="CNAME", region="us-east-1", ttl=30)
    a = rec("a", "weighted", name="edge.example.com", alias=AliasTarget("D111.CloudFront.net.", False), weight=1, ttl=None)
    b = rec("b", "weighted", "192.0.2.2", name="edge.example.com", weight=3, ttl=300)
    r = zs(front, a, b).resolve(NAME, vantage=US)
    dist = LoadBalancer("d111.cloudfront.net", "cloudfront", label="d111.cloudfront.net")
    assert r.answers == (
        Answer(0.25, (), (dist,), None, 30, (hop(front), hop(a, "cname")), (a.key,), "resolver nearest us-east-1"),
        Answer(0.75, ("192.0.2.2",), (), None, 30, (hop(front), hop(b, "cname")), (b.key,), "resolver nearest us-east-1"),
    )
    assert str(r.answers[0].load_balancers[0]) == "CloudFront distribution d111.cloudfront.net"


def test_alias_to_a_load_balancer_or_an_unknown_target_per_latency_region() -> None:
    # An alias to an ELB load balancer answers with its addresses; an alias to a target the model
    # does not know (API Gateway here) ends the chain at that name. EvaluateTargetHealth on a target
    # nothing is known about leaves the record healthy (each region answers its own set).
    use1 = rec("use1", "latency", region="us-east-1", alias=AliasTarget(NLB.dns_name, False))
    euw1 = rec("euw1", "latency", region="eu-west-1", alias=AliasTarget(API, True), ttl=None)
    r = zs(use1, euw1).resolve(NAME)
    assert r.answers == (
        Answer(1.0, (), (NLB,), None, 60, (hop(use1),), (use1.key,), "resolver nearest region us-east-1"),
        Answer(1.0, (), (), None, None, (hop(euw1),), (euw1.key,), "resolver nearest region eu-west-1", end=API),
    )
    # An alias record has no TTL of its own: the answer keeps the TTL of the CNAME before it.
    front = rec(None, "simple", "api.example.com", rtype="CNAME", ttl=30)
    api = rec(None, "simple", name="api.example.com", alias=AliasTarget(API, False), ttl=None)
    assert zs(front, api).resolve(NAME).answers == (
        Answer(1.0, (), (), None, 30, (hop(front), hop(api, "cname")), (api.key,), "", end=API),
    )


def test_alias_to_a_load_balancer_known_by_its_dualstack_name() -> None:
    dual = LoadBalancer("dualstack.alb-1.us-east-1.elb.amazonaws.com", "application", (("a", "198.51.100.7"),), "Alb")
    alias = rec(None, "simple", alias=AliasTarget(dual.dns_name, True))
    assert [a.load_balancers for a in zs(alias, lbs=(dual,)).resolve(NAME).answers] == [(dual,)]


def test_alias_to_a_name_of_the_zone_without_records_is_an_empty_answer_down_the_chain() -> None:
    # "You configure the alias resource record set to route traffic to a non-alias resource record
    # set in the same hosted zone": no such set, no record (NOERROR, empty), with what led there.
    front = rec("use1", "latency", "w.example.com", rtype="CNAME", region="us-east-1", ttl=30)
    a = rec("a", "weighted", name="w.example.com", alias=AliasTarget("gone.example.com", False), weight=1)
    b = rec("b", "weighted", "192.0.2.2", name="w.example.com", weight=3)
    r = zs(front, a, b).resolve(NAME, vantage=US)
    assert r.answers == (
        Answer(0.25, (), chain=(hop(front), hop(a, "cname")), condition="resolver nearest us-east-1", ttl=30, empty=True),
        Answer(0.75, ("192.0.2.2",), (), None, 30, (hop(front), hop(b, "cname")), (b.key,), "resolver nearest us-east-1"),
    )


# -- CNAME ------------------------------------------------------------------------------------------------
def test_cname_to_a_load_balancer_or_an_outside_name_per_latency_region() -> None:
    use1 = rec("use1", "latency", NLB.dns_name, rtype="CNAME", region="us-east-1", ttl=30)
    euw1 = rec("euw1", "latency", "Origin.Example.NET.", rtype="CNAME", region="eu-west-1", ttl=45)
    r = zs(use1, euw1).resolve(NAME)
    assert r.answers == (
        Answer(1.0, (), (NLB,), None, 30, (hop(use1),), (use1.key,), "resolver nearest region us-east-1"),
        Answer(1.0, (), (), None, 45, (hop(euw1),), (euw1.key,), "resolver nearest region eu-west-1", end="origin.example.net"),
    )


def test_weighted_cnames_to_a_geolocation_name_without_a_default() -> None:
    # GeoLocation: "If you don't create a * resource record set, Route 53 returns a "no answer"
    # response for queries from those locations" - also at the end of a CNAME.
    a = rec("a", "weighted", "geo.example.com", rtype="CNAME", weight=1, ttl=30)
    b = rec("b", "weighted", "origin.example.net", rtype="CNAME", weight=3)
    us = rec("us", "geolocation", "192.0.2.1", name="geo.example.com", geo=Geo(country="US"))
    r = zs(a, b, us).resolve(NAME, vantage=Vantage(location=Geo(continent="EU", country="DE")))
    assert r.policy == "weighted" and r.problems == ()
    assert r.answers == (
        Answer(0.25, (), chain=(hop(a),), condition="queries from EU/DE (no record: no answer)", ttl=30, empty=True),
        Answer(0.75, (), (), None, 60, (hop(b),), (b.key,), "", end="origin.example.net"),
    )


def test_a_cname_query_answers_the_cname_itself() -> None:
    cname = rec(None, "simple", "origin.example.net", rtype="CNAME")
    r = zs(cname, rec(None, "simple", "192.0.2.1", name="origin.example.net", zone="Z2"),
           zones=(ZONE, HostedZone("Z2", "example.net"))).resolve(NAME, "CNAME")
    assert r.answers == (Answer(1.0, ("origin.example.net",), (), None, 60, (hop(cname),), (cname.key,), ""),)


def test_conditions_along_a_chain_are_joined() -> None:
    front = rec("use1", "latency", "w.example.com", rtype="CNAME", region="us-east-1")
    a = rec("a", "weighted", "192.0.2.1", name="w.example.com", weight=2)
    spare = rec("b", "weighted", "192.0.2.2", name="w.example.com", weight=0)
    r = zs(front, a, spare).resolve(NAME, vantage=US, scenarios=True)
    assert [(x.condition, x.addresses) for x in r.answers] == [
        ("resolver nearest us-east-1", ("192.0.2.1",)),
        ("resolver nearest us-east-1 and while every non-zero-weight set is unhealthy", ("192.0.2.2",)),
    ]


def test_resolver_in_a_vpc_follows_a_cname_into_its_private_zone() -> None:
    # Private hosted zones: the private zone answers for its names inside the VPCs associated with it;
    # a public resolver never sees it (the chain leaves the known zones at that name).
    corp = HostedZone("ZC", "internal.corp", private=True, vpcs=("vpc-1",))
    cname = rec(None, "simple", "db.internal.corp", rtype="CNAME")
    db = rec(None, "simple", "10.0.0.5", name="db.internal.corp", zone="ZC")
    zoneset = zs(cname, db, zones=(ZONE, corp))
    inside = zoneset.resolve(NAME, vantage=Vantage("vpc", vpc_id="vpc-1"))
    assert inside.answers == (Answer(1.0, ("10.0.0.5",), (), None, 60, (hop(cname), hop(db, "cname")), (db.key,), ""),)
    outside = zoneset.resolve(NAME)
    assert [(a.addresses, a.end) for a in outside.answers] == [((), "db.internal.corp")]


# -- chains: at most MAX_CHAIN hops ---------------------------------------------------------------------
def _cname_chain(hops: int) -> list[Record]:
    """n0 -> n1 -> ... CNAMEs, the last name an A record: ``hops`` record sets in the chain."""
    chain = [rec(None, "simple", f"n{i + 1}.example.com", name=f"n{i}.example.com", rtype="CNAME") for i in range(hops - 1)]
    return chain + [rec(None, "simple", "192.0.2.1", name=f"n{hops - 1}.example.com")]


def _alias_chain(hops: int) -> list[Record]:
    chain = [rec(None, "simple", name=f"n{i}.example.com", alias=AliasTarget(f"n{i + 1}.example.com", False)) for i in range(hops - 1)]
    return chain + [rec(None, "simple", "192.0.2.1", name=f"n{hops - 1}.example.com")]


def test_a_chain_of_max_chain_hops_resolves_and_one_hop_more_does_not() -> None:
    names = " -> ".join(f"n{i}.example.com" for i in range(MAX_CHAIN + 1))
    for build, via in ((_cname_chain, "cname"), (_alias_chain, "alias")):
        longest = zs(*build(MAX_CHAIN)).resolve("n0.example.com")
        assert [(a.addresses, len(a.chain), a.chain[-1].via) for a in longest.answers] == [(("192.0.2.1",), MAX_CHAIN, via)]
        assert longest.problems == ()
        too_long = zs(*build(MAX_CHAIN + 1)).resolve("n0.example.com")
        assert too_long.answers == ()
        assert too_long.problems == (f"chain longer than {MAX_CHAIN} hops: {names}",)
    assert via == "alias"  # both kinds of chain were checked


def test_a_loop_is_named_hop_by_hop() -> None:
    loop = zs(rec(None, "simple", "b.example.com", name="a.example.com", rtype="CNAME"),
              rec(None, "simple", "a.example.com", name="b.example.com", rtype="CNAME"))
    assert loop.resolve("a.example.com").problems == ("alias/CNAME loop: a.example.com -> b.example.com -> a.example.com",)


# -- EvaluateTargetHealth through aliases to records of the zone -----------------------------------------
def _eth_chain(down_at: int) -> tuple[ZoneSet, Record]:
    """e0 -> e1 -> ... aliases with EvaluateTargetHealth; e{down_at} has a health check on 192.0.2.1."""
    chain = [rec(None, "simple", name=f"e{i}.example.com", alias=AliasTarget(f"e{i + 1}.example.com", True)) for i in range(down_at)]
    last = rec(None, "simple", "192.0.2.1", name=f"e{down_at}.example.com", health_check_id="h")
    return zs(*chain, last, checks=[HealthCheck("h", ip_address="192.0.2.1")]), chain[0]


def test_evaluate_target_health_reads_a_chain_as_deep_as_max_chain() -> None:
    # EvaluateTargetHealth: "an alias resource record set inherits the health of the referenced ...
    # resource record set"; the model reads MAX_CHAIN aliases deep and takes a deeper one as healthy.
    down = HealthState(down_addresses=frozenset({"192.0.2.1"}))
    deepest, head = _eth_chain(MAX_CHAIN)
    assert deepest.record_healthy(head, down) is False
    assert deepest.record_healthy(head) is True
    too_deep, head = _eth_chain(MAX_CHAIN + 1)
    assert too_deep.record_healthy(head, down) is True


# -- multivalue: one answer of several record sets --------------------------------------------------------
def test_multivalue_answer_names_its_first_set_in_the_chain_and_every_set_in_records() -> None:
    m1, m2 = rec("m1", "multivalue", "192.0.2.1"), rec("m2", "multivalue", "192.0.2.2")
    assert zs(m1, m2).resolve(NAME).answers == (
        Answer(1.0, ("192.0.2.1", "192.0.2.2"), (), None, 60, (hop(m1),), (m1.key, m2.key), ""),
    )
    # Route 53 refuses multivalue alias records; given them anyway, each load balancer is answered.
    a = rec("a", "multivalue", alias=AliasTarget(NLB.dns_name, False))
    b = rec("b", "multivalue", alias=AliasTarget(NLB2.dns_name, False))
    assert [x.load_balancers for x in zs(a, b).resolve(NAME).answers] == [(NLB, NLB2)]


# -- mixed routing policies (Route 53 refuses the change) --------------------------------------------------
def test_mixed_policies_each_judged_alone_with_every_scenario() -> None:
    # "You can't create non-latency resource record sets that have the same values for the Name and
    # Type elements as latency resource record sets" (likewise weighted, ...): each alone.
    weighted = [rec("a", "weighted", "192.0.2.1", weight=2), rec("b", "weighted", "192.0.2.2", weight=0)]
    multi = [rec(f"m{i}", "multivalue", f"198.51.100.{i}") for i in range(1, 10)]
    latency = [rec("use1", "latency", "203.0.113.1", region="us-east-1")]
    r = zs(*weighted, *multi, *latency).resolve(NAME, vantage=US, scenarios=True)
    assert r.problems == (f"{NAME} A in zone Z1: records mix routing policies: ['latency', 'multivalue', 'weighted']",)
    assert r.policy is None
    assert [(a.condition, a.probability, a.addresses, a.pick) for a in r.answers] == [
        ("only the weighted record sets deployed", 1.0, ("192.0.2.1",), None),
        ("only the weighted record sets deployed and while every non-zero-weight set is unhealthy", 1.0, ("192.0.2.2",), None),
        ("only the multivalue record sets deployed", 1.0, tuple(f"198.51.100.{i}" for i in range(1, 10)), 8),
        ("only the latency record sets deployed and resolver nearest us-east-1", 1.0, ("203.0.113.1",), None),
    ]


# -- which zone, the entry point --------------------------------------------------------------------------
def test_resolve_entry_point_defaults_and_each_parameter() -> None:
    private = HostedZone("ZP", "example.com", private=True, vpcs=("vpc-1",))
    primary = rec("p", "failover", "192.0.2.1", failover="PRIMARY", health_check_id="hp")
    secondary = rec("s", "failover", "192.0.2.2", failover="SECONDARY")
    six = rec(None, "simple", "2001:db8::1", rtype="AAAA")
    inside = rec(None, "simple", "10.0.0.1", zone="ZP")
    zoneset = zs(primary, secondary, six, inside, checks=[HealthCheck("hp", ip_address="192.0.2.1")], zones=(ZONE, private))
    a = Answer(1.0, ("192.0.2.1",), (), None, 60, (hop(primary),), (primary.key,), "")
    assert resolve(zoneset, NAME) == Resolution(NAME, "A", PUBLIC, (a,), ZONE, "failover", ())
    failed = Answer(1.0, ("192.0.2.2",), (), None, 60, (hop(secondary),), (secondary.key,), "while the primary is unhealthy")
    assert resolve(zoneset, NAME, "A", PUBLIC, ALL_HEALTHY, None, True).answers == (a, failed)
    down = HealthState(down_addresses=frozenset({"192.0.2.1"}))
    assert [x.addresses for x in resolve(zoneset, NAME, state=down).answers] == [("192.0.2.2",)]
    assert [x.addresses for x in resolve(zoneset, NAME, "AAAA").answers] == [("2001:db8::1",)]
    vpc = Vantage("vpc", vpc_id="vpc-1")
    assert [x.addresses for x in resolve(zoneset, NAME, vantage=vpc).answers] == [("10.0.0.1",)]
    # zone_id: judge the zone a resolver elsewhere sees, from here
    pinned = resolve(zoneset, NAME, zone_id="ZP")
    assert (pinned.zone, pinned.vantage, [x.addresses for x in pinned.answers]) == (private, PUBLIC, [("10.0.0.1",)])


def test_no_zone_holds_the_name() -> None:
    assert zs(rec(None, "simple", "192.0.2.1")).resolve("O.example.org", "AAAA", US) == Resolution(
        "o.example.org", "AAAA", US, problems=("no visible hosted zone holds o.example.org",))
    assert ZoneSet([], []).resolve("o.example.org").problems == ("no hosted zone holds o.example.org",)
