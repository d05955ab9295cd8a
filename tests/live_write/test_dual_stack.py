"""A dual-stack name (weighted A and AAAA alias records): plan from-live, plan show and enact move
every address type in one batch, or refuse naming the sets that would stay.

Also the plan rules of the issue: more than 8 records accepted with a note, private/loopback
addresses with a health check refused at plan time, duplicate JSON keys refused, TTL 0 allowed.
"""

from __future__ import annotations

import json
import re

import pytest
from botocore.stub import Stubber
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.cli import main
from edge_origin.live.enact import EnactOptions, Refusal, enact
from edge_origin.live.name_state import read_name, routing_policy
from edge_origin.live.plan_sources import parse_address, plan_from_live, show_text
from edge_origin.live.plans import (
    UNCHECKABLE_NETWORKS,
    LiveHealthCheckSpec,
    LivePlanError,
    loads_plan,
    uncheckable_reason,
)
from edge_origin.live.session import LiveSession
from edge_origin.testing.route53 import StrictRoute53
from tests.live_write.conftest import NAME, change

OPTIONS = EnactOptions(max_change_share=1.0, allow_full_change=True, wait_s=0)
NLBS = {"nlb-1": "nlb-1-abcdef.elb.us-east-1.amazonaws.com", "nlb-2": "nlb-2-ghijkl.elb.us-east-1.amazonaws.com"}
V4 = {"nlb-1": [("us-east-1a", "203.0.113.10"), ("us-east-1b", "203.0.113.11")],
      "nlb-2": [("us-east-1a", "203.0.113.20"), ("us-east-1b", "203.0.113.21")]}
V6 = {"nlb-1": {"us-east-1a": "2001:db8:1::10", "us-east-1b": "2001:db8:2::10"},
      "nlb-2": {"us-east-1a": "2001:db8:1::20", "us-east-1b": "2001:db8:2::20"}}


@pytest.fixture(autouse=True)
def fake_credentials(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")


def _alias(sid: str, rtype: str, weight: int = 50) -> dict:
    return {"Name": NAME, "Type": rtype, "SetIdentifier": sid, "Weight": weight,
            "AliasTarget": {"DNSName": NLBS[sid], "HostedZoneId": "Z26RNL4JYFTOTI", "EvaluateTargetHealth": True}}


def dual_stack(r53: StrictRoute53, zone_id: str) -> None:
    """Weighted A and AAAA alias records onto two dualstack NLBs."""
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [
        change("CREATE", _alias(sid, rtype)) for sid in NLBS for rtype in ("A", "AAAA")]})


def _nlbs(ipv6: bool = True) -> list[dict]:
    out = []
    for name, dns in NLBS.items():
        azs = []
        for zone, ip in V4[name]:
            address = {"IpAddress": ip, "AllocationId": f"eipalloc-{ip.replace('.', '')}"}
            if ipv6:
                address["IPv6Address"] = V6[name][zone]
            azs.append({"ZoneName": zone, "SubnetId": f"subnet-{zone}", "LoadBalancerAddresses": [address]})
        out.append({"LoadBalancerName": name, "DNSName": dns, "Type": "network", "Scheme": "internet-facing",
                    "IpAddressType": "dualstack" if ipv6 else "ipv4", "AvailabilityZones": azs})
    return out


def _elbv2(load_balancers: list[dict]):
    client = LiveSession(region="us-east-1").client("elbv2")
    stub = Stubber(client)
    stub.add_response("describe_load_balancers", {"LoadBalancers": load_balancers}, {})
    stub.activate()
    return client


def _policies(r53, zone_id: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for r in read_name(r53, zone_id, NAME).records:
        out.setdefault(r["Type"], set()).add(routing_policy(r))
    return out


def test_from_load_balancers_takes_the_ipv6_addresses_for_the_aaaa_aliases(r53, zone_id):
    dual_stack(r53, zone_id)
    plan = plan_from_live(r53, zone_id, NAME, elbv2=_elbv2(_nlbs()))
    assert sorted(r.ip for r in plan.records if r.type == "AAAA") == sorted(ip for v in V6.values() for ip in v.values())
    assert len([r for r in plan.records if r.type == "A"]) == 4
    assert all(r.health_check is not None for r in plan.records)


def test_a_dual_stack_migration_leaves_no_weighted_set_of_either_type(r53, zone_id):
    dual_stack(r53, zone_id)
    plan = plan_from_live(r53, zone_id, NAME, elbv2=_elbv2(_nlbs()))
    result = enact(r53, plan, OPTIONS)
    assert result.status == "applied" and result.read_back == "matches"
    assert sorted(result.removed) == ["nlb-1", "nlb-1 (AAAA)", "nlb-2", "nlb-2 (AAAA)"]
    assert _policies(r53, zone_id) == {"A": {"multivalue"}, "AAAA": {"multivalue"}}
    types = [c["ResourceRecordSet"]["Type"] for c in result.change_batch["Changes"]]
    assert types.count("AAAA") == 2 + 4 and types.count("A") == 2 + 4  # 2 deletes + 4 creates each, one batch
    aaaa = [r for r in read_name(r53, zone_id, NAME).records if r["Type"] == "AAAA"]
    assert all(r["HealthCheckId"] and r["MultiValueAnswer"] for r in aaaa)


def test_an_ipv4_only_plan_over_a_dual_stack_name_is_refused_naming_the_aaaa_sets(r53, zone_id):
    dual_stack(r53, zone_id)
    plan = plan_from_live(r53, zone_id, NAME, addresses=[parse_address("203.0.113.10@us-east-1a")])
    with pytest.raises(Refusal) as exc:
        enact(r53, plan, OPTIONS)
    text = str(exc.value)
    assert "also holds AAAA record sets (nlb-1 (AAAA) (weighted), nlb-2 (AAAA) (weighted))" in text
    assert "has no AAAA records" in text and "--address 2001:db8::10@us-east-1a" in text
    assert _policies(r53, zone_id) == {"A": {"weighted"}, "AAAA": {"weighted"}}


def test_an_ipv4_nlb_behind_aaaa_aliases_is_refused(r53, zone_id):
    dual_stack(r53, zone_id)
    with pytest.raises(Refusal, match=r"AAAA alias records to nlb-1, which has no IPv6 address in us-east-1a \(IpAddressType ipv4\)"):
        plan_from_live(r53, zone_id, NAME, elbv2=_elbv2(_nlbs(ipv6=False)))


def test_address_flags_take_ipv6_in_route53s_spelling(r53, zone_id):
    dual_stack(r53, zone_id)
    addresses = [parse_address(a) for a in ("203.0.113.10@us-east-1a", "2001:DB8:0001:0000::10@us-east-1a")]
    plan = plan_from_live(r53, zone_id, NAME, addresses=addresses)
    assert [(r.type, r.ip) for r in plan.records] == [("A", "203.0.113.10"), ("AAAA", "2001:db8:1::10")]
    assert enact(r53, plan, OPTIONS).status == "applied"
    assert _policies(r53, zone_id) == {"A": {"multivalue"}, "AAAA": {"multivalue"}}
    with pytest.raises(LivePlanError, match=r"--address '2001:db8::zz@us-east-1a': '2001:db8::zz' is not an IPv4 or IPv6 address"):
        parse_address("2001:db8::zz@us-east-1a")


def test_plan_show_speaks_of_both_types(r53, zone_id):
    dual_stack(r53, zone_id)
    text = show_text(read_name(r53, zone_id, NAME))
    assert "routing policy: weighted (A: weighted, AAAA: weighted)" in text
    assert "[nlb-1] AAAA weighted weight 50: alias nlb-1-abcdef.elb.us-east-1.amazonaws.com." in text
    assert read_name(r53, zone_id, NAME).to_json()["routing_policy_by_type"] == {"A": "weighted", "AAAA": "weighted"}


def test_an_ipv4_only_name_shows_as_before(r53, zone_id):
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [change("CREATE", _alias("nlb-1", "A"))]})
    text = show_text(read_name(r53, zone_id, NAME))
    # (the zone id moto makes up may hold "AAAA" itself)
    assert "routing policy: weighted\n" in text and "AAAA" not in text.replace(zone_id.split("/")[-1], "")


# --- plan rules -------------------------------------------------------------------------------------
def _plan_text(records: list[dict], ttl: int = 60) -> str:
    return json.dumps({"name": NAME, "hosted_zone_id": "Z1234567890ABC", "generation": 1, "ttl": ttl, "records": records})


def _rec(i: int, ip: str | None = None) -> dict:
    return {"set_identifier": f"o-{i}", "ip": ip or f"203.0.113.{10 + i}", "health_check": {"type": "TCP", "port": 443}}


def test_more_than_eight_records_of_a_type_are_accepted_with_a_note():
    plan = loads_plan(_plan_text([_rec(i) for i in range(9)]))
    assert len(plan.notes()) == 1 and plan.notes()[0].startswith("9 A records: Route 53 answers with up to 8 healthy ones, a different 8 per resolver")
    assert loads_plan(_plan_text([_rec(i) for i in range(8)])).notes() == []
    mixed = loads_plan(_plan_text([_rec(i) for i in range(8)] + [_rec(20 + i, f"2001:db8::{i + 1}") for i in range(8)]))
    assert mixed.notes() == []  # 8 of each type: each query type gets all of its records


def test_the_note_reaches_enact(r53, zone_id):
    plan = loads_plan(_plan_text([_rec(i) for i in range(9)]).replace("Z1234567890ABC", zone_id))
    result = enact(r53, plan, OPTIONS)
    assert any(n.startswith("9 A records: Route 53 answers with up to 8") for n in result.notes)


@pytest.mark.parametrize(("ip", "why"), [
    ("10.1.2.3", "private (RFC 1918)"), ("172.16.0.1", "private (RFC 1918)"), ("192.168.1.1", "private (RFC 1918)"),
    ("127.0.0.1", "loopback"), ("169.254.169.254", "link-local"), ("100.64.0.1", "shared address space (RFC 6598)"),
    ("::1", "loopback"), ("fd00::1", "unique local"), ("fe80::1", "link-local"), ("::ffff:203.0.113.1", "IPv4-mapped"),
])
def test_an_address_route53_cannot_health_check_is_refused_at_plan_time(ip, why):
    with pytest.raises(LivePlanError, match=rf"records\[0\]\.ip: {re.escape(ip)} is {re.escape(why)}.*Route 53 cannot health-check it"):
        loads_plan(_plan_text([_rec(0, ip)]))


def test_a_private_address_with_an_existing_check_id_is_not_refused():
    """The check is not created by the plan: whatever it probes, Route 53 already took it."""
    plan = loads_plan(_plan_text([{"set_identifier": "o", "ip": "10.1.2.3", "health_check_id": "abcd-1"}]))
    assert plan.records[0].ip == "10.1.2.3"


@settings(max_examples=200, database=None, deadline=None)
@given(st.sampled_from([n for n, _ in UNCHECKABLE_NETWORKS]), st.integers(0, 2**128 - 1))
def test_every_address_of_every_uncheckable_range_is_refused(network, offset):
    import ipaddress

    net = ipaddress.ip_network(network)
    address = net[offset % net.num_addresses]
    assert uncheckable_reason(str(address)) is not None
    with pytest.raises(LivePlanError):
        loads_plan(_plan_text([_rec(0, str(address))]))


@settings(max_examples=200, database=None, deadline=None)
@given(st.integers(1, 223), st.integers(0, 255), st.integers(0, 255), st.integers(1, 254))
def test_public_addresses_are_accepted(a, b, c, d):
    import ipaddress

    ip = f"{a}.{b}.{c}.{d}"
    address = ipaddress.ip_address(ip)
    if not address.is_global and not any(address in ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")):
        return  # a special range (refused or not, the ranges above decide)
    assert uncheckable_reason(ip) is None
    assert loads_plan(_plan_text([_rec(0, ip)])).records[0].ip == ip


@pytest.mark.parametrize(("text", "key"), [
    ('{"name": "a.example.com", "name": "b.example.com", "hosted_zone_id": "Z1", "generation": 1, "ttl": 60, "records": []}', "name"),
    ('{"name": "a.example.com", "hosted_zone_id": "Z1", "generation": 1, "ttl": 60, "records": ['
     '{"set_identifier": "x", "ip": "203.0.113.1", "ip": "203.0.113.2", "health_check_id": "h"}]}', "ip"),
])
def test_duplicate_json_keys_are_refused_not_last_wins(text, key):
    with pytest.raises(LivePlanError, match=rf"not valid JSON \(the key '{key}' is given twice in one object\)"):
        loads_plan(text)


def test_ttl_zero_is_allowed_as_route53_allows_it(r53, zone_id):
    plan = loads_plan(_plan_text([_rec(0)], ttl=0).replace("Z1234567890ABC", zone_id))
    assert plan.ttl == 0
    enact(r53, plan, OPTIONS)
    assert {r["TTL"] for r in read_name(r53, zone_id, NAME).records} == {0}
    with pytest.raises(LivePlanError, match=r"ttl: -1 is out of range 0..86400"):
        loads_plan(_plan_text([_rec(0)], ttl=-1))


def test_cli_ttl_zero_and_health_check_flag(capsys):
    with pytest.raises(SystemExit):
        main(["plan", "from-live", "--name", NAME, "--zone-id", "Z1", "--ttl", "-1", "--address", "203.0.113.1@us-east-1a"])
    assert "--ttl: -1 must be >= 0" in capsys.readouterr().err


def test_health_check_spec_for_ipv6_is_route53s_config():
    assert LiveHealthCheckSpec("TCP", 443).config("2001:db8::1")["IPAddress"] == "2001:db8::1"


def test_from_template_takes_the_aaaa_records_too(r53, zone_id, tmp_path):
    from edge_origin.live.plan_sources import plan_from_template

    resources = {}
    for n, (rtype, ip) in enumerate((("A", "198.51.100.10"), ("AAAA", "2001:db8::10"))):
        resources[f"Record{n}"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
            "HostedZoneId": zone_id, "Name": NAME, "Type": rtype, "TTL": "60", "SetIdentifier": f"o-{rtype.lower()}",
            "MultiValueAnswer": True, "ResourceRecords": [ip]}}
    template = tmp_path / "t.template.json"
    template.write_text(json.dumps({"Resources": resources}))
    plan = plan_from_template([template], r53, None, None, zone_id, NAME)
    assert sorted((r.type, r.ip, r.set_identifier) for r in plan.records) == [
        ("A", "198.51.100.10", "o-a"), ("AAAA", "2001:db8::10", "o-aaaa")]
