"""Where the answer model gives up, as ``Resolution.stopped`` says it (EO-NJ1 reports each on an origin name):
an alias/CNAME loop, a chain longer than MAX_CHAIN hops, CALCULATED health checks nested past MAX_DEPTH.
Mixed routing policies are a problem of the resolution (judged per policy), not a stop."""

from __future__ import annotations

from edge_origin.answers import AliasTarget, HealthCheck, HostedZone, LoadBalancer, Record, RecordKey, ZoneSet
from edge_origin.answers.health import MAX_DEPTH
from edge_origin.answers.types import MAX_CHAIN

ZONE = HostedZone("Z1", "example.com")
NAME = "o.example.com"


def _alias(name: str, target: str) -> Record:
    return Record(RecordKey("Z1", name, "A"), "simple", (), alias=AliasTarget(target))


def _nested(levels: int) -> list[HealthCheck]:
    checks = [HealthCheck(f"c{i}", type="CALCULATED", children=(f"c{i + 1}",), health_threshold=1) for i in range(levels)]
    return [*checks, HealthCheck(f"c{levels}", ip_address="192.0.2.1")]


def test_a_loop_is_a_stop_with_no_answer():
    zs = ZoneSet([ZONE], [_alias(NAME, "a.example.com"), _alias("a.example.com", NAME)])
    resolution = zs.resolve(NAME)
    assert resolution.answers == ()
    assert resolution.stopped == ("alias/CNAME loop: o.example.com -> a.example.com -> o.example.com",)
    assert resolution.problems == resolution.stopped


def test_a_chain_past_the_bound_is_a_stop_and_within_it_is_not():
    def chain(hops: int) -> list[Record]:
        names = [NAME] + [f"h{i}.example.com" for i in range(1, hops + 1)]
        out = [_alias(names[i], names[i + 1]) for i in range(hops)]
        return [*out, Record(RecordKey("Z1", names[-1], "A"), "simple", ("192.0.2.1",), ttl=60)]

    assert ZoneSet([ZONE], chain(MAX_CHAIN - 1)).resolve(NAME).stopped == ()
    stopped = ZoneSet([ZONE], chain(MAX_CHAIN)).resolve(NAME).stopped
    assert stopped == ("chain longer than 8 hops: o.example.com -> h1.example.com -> h2.example.com -> h3.example.com -> "
                       "h4.example.com -> h5.example.com -> h6.example.com -> h7.example.com -> h8.example.com",)


def test_health_checks_nested_past_the_bound_are_a_stop_naming_the_record():
    deep = Record(RecordKey("Z1", NAME, "A", "m0"), "multivalue", ("192.0.2.1",), ttl=60, health_check_id="c0")
    other = Record(RecordKey("Z1", NAME, "A", "m1"), "multivalue", ("192.0.2.2",), ttl=60)
    resolution = ZoneSet([ZONE], [deep, other], _nested(MAX_DEPTH + 1)).resolve(NAME)
    assert resolution.stopped == (
        "o.example.com A: health check c0 of m0 nests CALCULATED checks deeper than 16 levels: its status is not judged",)
    assert len(resolution.answers) > 0  # the answers are there; the health of m0 is what is not judged
    assert ZoneSet([ZONE], [deep, other], _nested(MAX_DEPTH)).resolve(NAME).stopped == ()
    simple = Record(RecordKey("Z1", NAME, "A"), "simple", ("192.0.2.1",), ttl=60, health_check_id="c0")
    assert ZoneSet([ZONE], [simple], _nested(MAX_DEPTH + 1)).resolve(NAME).stopped == (
        "o.example.com A: health check c0 of the record set nests CALCULATED checks deeper than 16 levels: its status "
        "is not judged",)


def test_mixed_policies_are_a_problem_not_a_stop():
    records = [Record(RecordKey("Z1", NAME, "A", "w"), "weighted", ("192.0.2.1",), ttl=60, weight=1),
               Record(RecordKey("Z1", NAME, "A", "m"), "multivalue", ("192.0.2.2",), ttl=60)]
    resolution = ZoneSet([ZONE], records).resolve(NAME)
    assert resolution.problems and resolution.stopped == ()


def test_an_ipv6_alias_to_a_declared_balancer_is_that_balancer():
    """Route 53's ipv6. alias prefix (as dualstack.): the declared balancer, not one "not in these templates"."""
    nlb = LoadBalancer("nlb-1-abc.elb.us-east-1.amazonaws.com", "network", label="S/Nlb")
    for prefix in ("", "dualstack.", "ipv6."):
        resolution = ZoneSet([ZONE], [_alias(NAME, prefix + nlb.dns_name)], load_balancers=[nlb]).resolve(NAME)
        assert [lb for a in resolution.answers for lb in a.load_balancers] == [nlb], prefix
