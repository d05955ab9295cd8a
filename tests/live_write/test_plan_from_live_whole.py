"""`edge-origin plan from-live` as a user reads it (mutation testing, issue 38): every ``--address`` refusal
whole, the whole Plan from addresses (set identifiers, zones, health checks, TTL, generation) against each
live state that changes it, and from ``--from-load-balancers`` (alias targets spelled as Route 53 and ELB
spell them, each refusal whole, the IPv6 addresses of a dual-stack NLB)."""

from __future__ import annotations

import pytest
from botocore.stub import Stubber
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.live.enact import Refusal
from edge_origin.live.name_state import read_name
from edge_origin.live.plan_sources import AddressAtZone, parse_address, plan_from_live, show_text
from edge_origin.live.plans import LiveHealthCheckSpec, LivePlanError, LivePlanRecord, Plan
from edge_origin.live.session import LiveSession
from tests.live_write.conftest import NAME, a_record, change, tcp_check, weighted_alias

NO_ZONE = "no zone; expected IP@ZONE such as 203.0.113.10@us-east-1a or 2001:db8::10@us-east-1a"
DEFAULT_CHECK = LiveHealthCheckSpec()  # TCP 443, every 10 s, 3 failures
NLB1 = "nlb-1-abcdef.elb.us-east-1.amazonaws.com"
NLB2 = "nlb-2-ghijkl.elb.us-east-1.amazonaws.com"


@pytest.fixture(autouse=True)
def fake_credentials(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")


# --- --address IP@ZONE -------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "expected"), [
    ("203.0.113.10@us-east-1a", AddressAtZone("203.0.113.10", "us-east-1a")),
    ("2001:DB8:0:0::10@eu-west-3c", AddressAtZone("2001:db8::10", "eu-west-3c")),  # Route 53's short form
    ("203.0.113.10@us-" + "a" * 61, AddressAtZone("203.0.113.10", "us-" + "a" * 61)),  # 64 characters: the longest
    ("203.0.113.10", f"--address '203.0.113.10': {NO_ZONE}"),
    ("203.0.113.10@", f"--address '203.0.113.10@': {NO_ZONE}"),
    ("@us-east-1a", f"--address '@us-east-1a': {NO_ZONE}"),
    ("203.0.113.10@x@us-east-1a", "--address '203.0.113.10@x@us-east-1a': '203.0.113.10@x' is not an IPv4 or IPv6 address"),
    ("203.0.113.10@US-EAST-1A", "--address '203.0.113.10@US-EAST-1A': 'US-EAST-1A' is not an Availability Zone name such as us-east-1a"),
    ("203.0.113.10@us-" + "a" * 62,
     f"--address '203.0.113.10@us-{'a' * 62}': 'us-{'a' * 62}' is not an Availability Zone name such as us-east-1a"),
])
def test_parse_address(text, expected):
    if isinstance(expected, AddressAtZone):
        assert parse_address(text) == expected
        return
    with pytest.raises(LivePlanError) as exc:
        parse_address(text)
    assert str(exc.value) == expected


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=90))
def test_a_zone_name_is_taken_up_to_64_characters(extra):
    zone = "us-" + "a" * extra
    if len(zone) <= 64:
        assert parse_address(f"203.0.113.10@{zone}") == AddressAtZone("203.0.113.10", zone)
    else:
        with pytest.raises(LivePlanError, match="is not an Availability Zone name"):
            parse_address(f"203.0.113.10@{zone}")


# --- plan from-live --address -------------------------------------------------------------------
def _put(r53, zone_id: str, *records: dict) -> None:
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [change("CREATE", r) for r in records]})


def _addresses(*texts: str) -> list[AddressAtZone]:
    return [parse_address(t) for t in texts]


def _rec(sid: str, ip: str, zone: str, hc_id: str | None = None) -> LivePlanRecord:
    return LivePlanRecord(sid, ip, zone, hc_id, None if hc_id else DEFAULT_CHECK)


def test_new_addresses_get_origin_zone_set_identifiers_numbered_per_zone(r53, zone_id):
    plan = plan_from_live(r53, zone_id, NAME, addresses=_addresses(
        "203.0.113.10@us-east-1a", "203.0.113.11@us-east-1a", "203.0.113.12@us-east-1b", "203.0.113.13@us-east-1a",
        "2001:db8::1@us-east-1a"))
    assert plan == Plan("origin.example.com", zone_id, 1, 60, (
        _rec("origin-us-east-1a", "203.0.113.10", "us-east-1a"), _rec("origin-us-east-1a-2", "203.0.113.11", "us-east-1a"),
        _rec("origin-us-east-1b", "203.0.113.12", "us-east-1b"), _rec("origin-us-east-1a-3", "203.0.113.13", "us-east-1a"),
        _rec("origin-us-east-1a-4", "2001:db8::1", "us-east-1a")))
    assert r53.calls["GetHostedZone"] == 1  # the zone is read once (Route 53 allows 5 API requests a second per account)


def test_live_records_of_the_same_address_keep_what_they_have(r53, zone_id):
    """A live multivalue record keeps its set identifier, and its health check when it has one; a live
    weighted record of the same address (AAAA here: Route 53 mixes no policies in one type) is replaced by a new
    multivalue record (a new set identifier and check)."""
    hc = tcp_check(r53, "203.0.113.10")
    _put(r53, zone_id, a_record("kept-with-check", "203.0.113.10", multivalue=True, hc=hc),
         a_record("kept-without-check", "203.0.113.11", multivalue=True),
         {**a_record("blue", "2001:db8::12", weight=1, hc=tcp_check(r53, "2001:db8::12")), "Type": "AAAA"},
         a_record("green", "203.0.113.13", weight=1, name="other.example.com"))
    plan = plan_from_live(r53, zone_id, NAME, addresses=_addresses(
        "2001:db8::12@us-east-1c", "203.0.113.11@us-east-1b", "203.0.113.10@us-east-1a"))
    assert plan == Plan("origin.example.com", zone_id, 1, 60, (
        _rec("origin-us-east-1c", "2001:db8::12", "us-east-1c"), _rec("kept-without-check", "203.0.113.11", "us-east-1b"),
        _rec("kept-with-check", "203.0.113.10", "us-east-1a", hc)))


@pytest.mark.parametrize(("live_ttls", "given_ttl", "expected"), [
    ({"A": 300}, None, 300),  # the live TTL when there is one
    ({"A": 0}, None, 0),  # Route 53 allows 0
    ({"A": 86400}, None, 86400),
    ({"A": 86401}, None, 60),  # above a plan's range: the default
    ({"A": 30, "AAAA": 300}, None, 60),  # two TTLs: the default
    ({"A": 300}, 120, 120),  # --ttl wins
    ({}, None, 60),
])
def test_the_plans_ttl(r53, zone_id, live_ttls, given_ttl, expected):
    ips = {"A": "203.0.113.10", "AAAA": "2001:db8::10"}
    for rtype, ttl in live_ttls.items():
        _put(r53, zone_id, {"Name": NAME, "Type": rtype, "TTL": ttl, "SetIdentifier": f"live-{rtype}", "MultiValueAnswer": True,
                            "ResourceRecords": [{"Value": ips[rtype]}]})
    plan = plan_from_live(r53, zone_id, NAME, addresses=_addresses("203.0.113.10@us-east-1a"), ttl=given_ttl)
    sid = "live-A" if live_ttls else "origin-us-east-1a"
    assert plan == Plan("origin.example.com", zone_id, 1, expected, (_rec(sid, "203.0.113.10", "us-east-1a"),))


def test_a_name_in_capitals_with_a_trailing_dot_is_kept_as_given_without_the_dot(r53):
    zone_id = r53.create_hosted_zone(Name="example.box", CallerReference="box")["HostedZone"]["Id"].split("/")[-1]
    plan = plan_from_live(r53, zone_id, "ORIGIN.EXAMPLE.BOX.", addresses=_addresses("203.0.113.10@us-east-1a"))
    assert plan == Plan("ORIGIN.EXAMPLE.BOX", zone_id, 1, 60, (_rec("origin-us-east-1a", "203.0.113.10", "us-east-1a"),))


NOT_A_NAME = ("is not a DNS name with at least two labels such as origin.example.com (letters, digits, '-', '_'; labels "
              "of 1-63 characters; at most 229 characters so the generation label fits)")


@pytest.mark.parametrize(("name", "addresses", "message"), [
    (NAME, ["203.0.113.10@us-east-1a", "203.0.113.10@us-east-1b"], "--address 203.0.113.10@us-east-1b: 203.0.113.10 is given twice"),
    (NAME, ["10.0.0.5@us-east-1a"],
     "generated plan: records[0].ip: 10.0.0.5 is private (RFC 1918), 10.0.0.0/8: Route 53 cannot health-check it "
     "(CreateHealthCheck refuses local, private, non-routable and multicast addresses); use the origin's public address"),
    (NAME, [], "give --address IP@ZONE (one or more) or --from-load-balancers"),
    ("." + NAME, ["203.0.113.10@us-east-1a"], f"generated plan: name: '.origin.example.com' {NOT_A_NAME}"),
])
def test_refusals_whole(r53, zone_id, name, addresses, message):
    with pytest.raises(LivePlanError) as exc:
        plan_from_live(r53, zone_id, name, addresses=_addresses(*addresses))
    assert str(exc.value) == message


def test_a_cname_at_the_name_is_refused_whole(r53, zone_id):
    _put(r53, zone_id, {"Name": NAME, "Type": "CNAME", "TTL": 60, "ResourceRecords": [{"Value": "elsewhere.example.net"}]})
    with pytest.raises(Refusal) as exc:
        plan_from_live(r53, zone_id, NAME, addresses=_addresses("203.0.113.10@us-east-1a"))
    assert str(exc.value) == (
        "origin.example.com. holds a CNAME (elsewhere.example.net): Route 53 lets a CNAME share its name with no other "
        "record; remove the CNAME first (or plan another name)")


# --- plan from-live --from-load-balancers ---------------------------------------------------------
def _az(zone: str, *addresses: dict) -> dict:
    return {"ZoneName": zone, "SubnetId": f"subnet-{zone}", "LoadBalancerAddresses": list(addresses)}


def _eip(ip: str, ipv6: str | None = None) -> dict:
    out = {"IpAddress": ip, "AllocationId": "eipalloc-" + ip.replace(".", "")}
    if ipv6:
        out["IPv6Address"] = ipv6
    return out


def _lb(name: str, dns: str, azs: list[dict] | None, kind: str = "network", **extra) -> dict:
    out = {"LoadBalancerName": name, "DNSName": dns, "Type": kind, "Scheme": "internet-facing", **extra}
    if azs is not None:
        out["AvailabilityZones"] = azs
    return out


def _from_lbs(r53, zone_id, page: dict, aliases: list[tuple[str, str, str]]):
    """``aliases``: (set identifier, type, alias DNS name as written) at NAME; then plan from-live --from-load-balancers."""
    _put(r53, zone_id, *({**weighted_alias(sid, dns), "Type": rtype} for sid, rtype, dns in aliases))
    elbv2 = LiveSession(region="us-east-1").client("elbv2")
    with Stubber(elbv2) as stub:
        stub.add_response("describe_load_balancers", page, {})
        return plan_from_live(r53, zone_id, NAME, elbv2=elbv2)


def test_alias_targets_as_route53_spells_them_find_the_nlbs(r53, zone_id):
    """Alias targets with the ``dualstack.`` prefix, capitals and a trailing dot, against describe_load_balancers'
    DNS names in capitals with a trailing dot: the same NLBs; a dual-stack NLB's IPv6 addresses in the AAAA records."""
    page = {"LoadBalancers": [
        _lb("nlb-1", NLB1.upper() + ".", [_az("us-east-1a", _eip("203.0.113.10", "2001:DB8:1::0:10")),
                                          _az("us-east-1b", _eip("203.0.113.11", "2001:db8:2::10"))], IpAddressType="dualstack"),
        _lb("nlb-2", NLB2, [_az("us-east-1a", _eip("203.0.113.20"))]),
    ]}
    plan = _from_lbs(r53, zone_id, page, [("nlb-1", "A", "dualstack." + NLB1.upper() + "."), ("nlb-1-v6", "AAAA", "DUALSTACK." + NLB1),
                                          ("nlb-2", "A", NLB2)])
    assert plan == Plan("origin.example.com", zone_id, 1, 60, (
        _rec("nlb-1-us-east-1a", "203.0.113.10", "us-east-1a"), _rec("nlb-1-ipv6-us-east-1a", "2001:db8:1::10", "us-east-1a"),
        _rec("nlb-1-us-east-1b", "203.0.113.11", "us-east-1b"), _rec("nlb-1-ipv6-us-east-1b", "2001:db8:2::10", "us-east-1b"),
        _rec("nlb-2-us-east-1a", "203.0.113.20", "us-east-1a")))


def test_an_nlb_without_availability_zones_gives_no_records(r53, zone_id):
    page = {"LoadBalancers": [_lb("nlb-1", NLB1, None), _lb("nlb-2", NLB2, [_az("us-east-1b", _eip("203.0.113.21"))])]}
    plan = _from_lbs(r53, zone_id, page, [("nlb-1", "A", NLB1), ("nlb-2", "A", NLB2)])
    assert plan.records == (_rec("nlb-2-us-east-1b", "203.0.113.21", "us-east-1b"),)


NO_EIP = ("load balancer nlb-1 has no Elastic IP in us-east-1a: its addresses can change, so records cannot pin them. Give "
          "the NLB one Elastic IP per zone (SubnetMappings with an AllocationId, set when the NLB is created; edge-origin's "
          "OriginFleet does this), or pass --address IP@ZONE")


def _no_v6(kind: str) -> str:
    return (f"origin.example.com. has AAAA alias records to nlb-1, which has no IPv6 address in us-east-1a (IpAddressType "
            f"{kind}): pass --address IPV6@ZONE for each IPv6 origin address, or the AAAA sets would stay weighted")


@pytest.mark.parametrize(("page", "aliases", "message"), [
    ({}, [("nlb-1", "A", NLB1)],
     f"alias target {NLB1} is not a load balancer this region's describe_load_balancers knows; pass --address IP@ZONE"),
    ({"LoadBalancers": [_lb("nlb-1", NLB1, [_az("us-east-1a", _eip("203.0.113.10"))], kind="application")]}, [("nlb-1", "A", NLB1)],
     f"nlb-1 ({NLB1}) is an application load balancer: it has no static addresses; multivalue records need NLBs with one "
     "Elastic IP per zone"),
    ({"LoadBalancers": [_lb("nlb-1", NLB1, [{"ZoneName": "us-east-1a", "SubnetId": "subnet-1"}])]}, [("nlb-1", "A", NLB1)], NO_EIP),
    ({"LoadBalancers": [_lb("nlb-1", NLB1, [_az("us-east-1a", {"IpAddress": "203.0.113.10"})])]}, [("nlb-1", "A", NLB1)], NO_EIP),
    ({"LoadBalancers": [_lb("nlb-1", NLB1, [_az("us-east-1a", _eip("203.0.113.10"))])]}, [("nlb-1", "AAAA", NLB1)], _no_v6("ipv4")),
    ({"LoadBalancers": [_lb("nlb-1", NLB1, [_az("us-east-1a", _eip("203.0.113.10"))], IpAddressType="dualstack")]},
     [("nlb-1", "AAAA", NLB1)], _no_v6("dualstack")),
], ids=["no-such-lb", "alb", "no-addresses", "no-allocation-id", "no-ipv6-type-absent", "no-ipv6-dualstack"])
def test_load_balancer_refusals_whole(r53, zone_id, page, aliases, message):
    with pytest.raises(Refusal) as exc:
        _from_lbs(r53, zone_id, page, aliases)
    assert str(exc.value) == message


def test_show_lists_every_value_of_a_record(r53, zone_id):
    _put(r53, zone_id, {"Name": NAME, "Type": "A", "TTL": 300, "ResourceRecords": [{"Value": "203.0.113.9"}, {"Value": "203.0.113.10"}]})
    assert show_text(read_name(r53, zone_id, NAME)).splitlines()[-1] == "    [-] simple: 203.0.113.9, 203.0.113.10 ttl 300"
