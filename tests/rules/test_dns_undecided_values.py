"""Route 53 rules never read a value decided at deploy time as absent: an origin record's TTL (EO-DNS4), a record's
MultiValueAnswer (EO-NJ2 on an origin's path; EO-DNS5 elsewhere), a record's zone, Name or Type (EO-DNS5; EO-NJ1 on
an origin's path). One not-judged finding a record set and element, never one per rule that reads it; the same
template with a Default gets the judged verdict."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.model import model_from_text
from edge_origin.review.checker import _is_not_judged
from edge_origin.rules import RULES, RULES_BY_ID

RULES_DIR = Path(__file__).parents[1] / "fixtures" / "templates" / "rules"


def _fixture(name: str) -> dict[str, Any]:
    return json.loads((RULES_DIR / f"{name}.json").read_text())


def _with(body: dict[str, Any], record: str, member: str, value: Any, default: Any = None) -> dict[str, Any]:
    """``body`` with ``record``'s ``member`` the parameter P (with ``default`` when given) or ``value``."""
    out = copy.deepcopy(body)
    out["Parameters"] = {"P": {"Type": "String"} | ({"Default": default} if default is not None else {}), "Q": {"Type": "String"}}
    out["Resources"][record]["Properties"][member] = value
    return out


def _findings(body: dict[str, Any], rules: tuple[str, ...] | None = None) -> list[Any]:
    model = model_from_text(json.dumps(body))
    chosen = [RULES_BY_ID[r] for r in rules] if rules else RULES
    return [f for rule in chosen for f in rule.check(model)]


P = {"Ref": "P"}


def test_an_origin_ttl_decided_at_deploy_is_not_judged_and_judged_with_a_default() -> None:
    body = _with(_fixture("eo-dns4-fire"), "RecordA", "TTL", P)
    found = [f for f in _findings(body, ("EO-DNS4",)) if f.resource == "RecordA"]
    assert len(found) == 1 and _is_not_judged(found[0]), found
    assert "TTL" in found[0].message and "<Ref P>" in found[0].message and "above 60 s" in found[0].message
    assert "Default" in found[0].fix
    judged = _findings(_with(_fixture("eo-dns4-fire"), "RecordA", "TTL", P, default="3600"), ("EO-DNS4",))
    assert [f.resource for f in judged if not _is_not_judged(f)] == ["RecordA"] and not [f for f in judged if _is_not_judged(f)]
    assert _findings(_with(_fixture("eo-dns4-fire"), "RecordA", "TTL", P, default="60"), ("EO-DNS4",)) == []


@pytest.mark.parametrize("value", [P, {"Fn::ImportValue": "Flag"}])
def test_an_origin_multivalue_flag_decided_at_deploy_is_named_once(value: Any) -> None:
    body = _with(_fixture("eo-dns2-fire"), "RecordA", "MultiValueAnswer", value)
    said = [f for f in _findings(body) if _is_not_judged(f) and f.resource == "RecordA"]
    assert [f.rule for f in said] == ["EO-NJ2"], said  # not again by EO-DNS5 (or any rule reading the set)
    assert "MultiValueAnswer" in said[0].message and "multivalue or simple" in said[0].message
    decided = _findings(_with(_fixture("eo-dns2-fire"), "RecordA", "MultiValueAnswer", P, default="true"))
    assert ("EO-DNS2", "RecordA") in {(f.rule, f.resource) for f in decided if not _is_not_judged(f)}
    assert not [f for f in decided if f.rule == "EO-NJ2"]


def test_an_undecided_name_on_an_origin_path_is_named_once_by_nj1() -> None:
    body = _with(_fixture("eo-dns2-fire"), "RecordA", "Name", P)
    said = [f.rule for f in _findings(body) if _is_not_judged(f) and f.resource == "RecordA"]
    assert said == ["EO-NJ1"], said


@pytest.mark.parametrize(("record", "member"), [
    (record, member) for record in ("RecordA", "RecordB") for member in ("HostedZoneName", "Name", "Type")
] + [("RecordB", "MultiValueAnswer")])  # RecordA is weighted: its Weight decides it
def test_a_set_that_may_join_another_policy_is_not_judged_by_dns5(record: str, member: str) -> None:
    body = _fixture("eo-dns5-fire")  # api.example.com: weighted RecordA, multivalue RecordB, no origin
    found = _findings(_with(body, record, member, P), ("EO-DNS5",))
    assert len(found) == 1 and _is_not_judged(found[0]) and found[0].resource == record, found
    assert member in found[0].message and "<Ref P>" in found[0].message
    original = body["Resources"][record]["Properties"][member]
    judged = _findings(_with(body, record, member, P, default=json.dumps(original).strip('"')), ("EO-DNS5",))
    assert len(judged) == 1 and not _is_not_judged(judged[0]) and "mixed routing policies" in judged[0].message


def test_sets_that_cannot_mix_stay_quiet() -> None:
    body = _fixture("eo-dns5-fire")
    body["Resources"]["RecordA"]["Properties"] = {
        k: v for k, v in body["Resources"]["RecordB"]["Properties"].items() if k != "HealthCheckId"} | {"SetIdentifier": "A"}
    assert _findings(body, ("EO-DNS5",)) == []
    both = _with(_with(body, "RecordA", "MultiValueAnswer", P), "RecordB", "MultiValueAnswer", P)
    assert _findings(both, ("EO-DNS5",)) == []  # the one same value: one policy whatever it is
    assert _findings(_with(body, "RecordA", "Name", P), ("EO-DNS5",)) == []  # every set it may join is multivalue
    apart = _fixture("eo-dns5-fire")
    apart["Resources"]["RecordB"]["Properties"]["HostedZoneName"] = "example.org."
    assert _findings(_with(apart, "RecordA", "Name", P), ("EO-DNS5",)) == []  # no set of its zone and type to join


POLICY_MEMBERS = {"weighted": {"Weight": 10}, "multivalue": {"MultiValueAnswer": True}, "failover": {"Failover": "PRIMARY"}}


@settings(max_examples=40, deadline=None)
@given(policies=st.lists(st.sampled_from(sorted(POLICY_MEMBERS)), min_size=2, max_size=4),
       undecided=st.integers(min_value=0, max_value=3),
       member=st.sampled_from(["Name", "Type", "HostedZoneName"]))
def test_dns5_is_judged_or_not_judged_never_silent(policies: list[str], undecided: int, member: str) -> None:
    """Sets of one name and type with drawn policies, one of them with its Name, Type or zone decided at deploy:
    EO-DNS5 fires (judged) when the decided sets mix; else it says not judged exactly when the undecided set may
    join sets of another policy; else it is quiet."""
    undecided %= len(policies)
    resources: dict[str, Any] = {}
    for i, policy in enumerate(policies):
        resources[f"R{i}"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
            "HostedZoneName": "example.com.", "Name": "api.example.com", "Type": "A", "TTL": 60, "SetIdentifier": f"s{i}",
            "ResourceRecords": [f"192.0.2.{i + 1}"], **POLICY_MEMBERS[policy]}}
    resources[f"R{undecided}"]["Properties"][member] = P
    found = _findings({"Parameters": {"P": {"Type": "String"}}, "Resources": resources}, ("EO-DNS5",))
    decided = {p for i, p in enumerate(policies) if i != undecided}
    judged = [f for f in found if not _is_not_judged(f)]
    said = [f for f in found if _is_not_judged(f)]
    assert len(judged) == (1 if len(decided) > 1 else 0), found
    assert [f.resource for f in said] == ([f"R{undecided}"] if decided - {policies[undecided]} else []), found


def _pair(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """A weighted and a multivalue set of api.example.com A, each with the given members over the defaults."""
    def record(policy: dict[str, Any], extra: dict[str, Any], i: int) -> dict[str, Any]:
        props = {"HostedZoneName": "example.com.", "Name": "api.example.com", "Type": "A", "TTL": 60, "SetIdentifier": f"s{i}",
                 "ResourceRecords": [f"192.0.2.{i}"], **policy, **extra}
        if "HostedZoneId" in props:
            del props["HostedZoneName"]
        return {"Type": "AWS::Route53::RecordSet", "Properties": props}
    return {"Parameters": {"P": {"Type": "String"}, "Q": {"Type": "String"}},
            "Resources": {"W": record({"Weight": 1}, a, 1), "M": record({"MultiValueAnswer": True}, b, 2)}}


@pytest.mark.parametrize("member", ["Name", "Type", "HostedZoneName", "HostedZoneId"])
def test_the_same_undecided_expression_is_the_same_value_so_the_mix_is_judged(member: str) -> None:
    found = _findings(_pair({member: {"Ref": "P"}}, {member: {"Ref": "P"}}), ("EO-DNS5",))
    assert len(found) == 1 and not _is_not_judged(found[0]) and "mixed routing policies (multivalue, weighted)" in found[0].message


@pytest.mark.parametrize("member", ["Name", "Type", "HostedZoneName", "HostedZoneId"])
def test_two_undecided_expressions_may_be_one_value_so_each_set_is_not_judged(member: str) -> None:
    found = _findings(_pair({member: {"Ref": "P"}}, {member: {"Ref": "Q"}}), ("EO-DNS5",))
    assert sorted((f.resource, _is_not_judged(f)) for f in found) == [("M", True), ("W", True)], found


def test_an_undecided_zone_id_beside_a_literal_one_is_not_judged_once() -> None:
    found = _findings(_pair({"HostedZoneId": {"Ref": "P"}}, {"HostedZoneId": "Z0123456789"}), ("EO-DNS5",))
    assert [(f.resource, _is_not_judged(f)) for f in found] == [("W", True)], found
    assert "HostedZoneId" in found[0].message and "multivalue set(s)" in found[0].message


def _checked(member: str, value: Any, default: Any = None, *, calculated: bool = False) -> list[Any]:
    """eo-dns2-fire with RecordA health-checked by CheckA (quiet as written), CheckA's ``member`` the parameter P (with
    ``default``) or ``value``; ``calculated``: RecordA's check is a CALCULATED one over CheckA."""
    body = _with(_fixture("eo-dns2-fire"), "RecordA", "HealthCheckId", {"Ref": "CheckC" if calculated else "CheckA"}, default)
    body["Resources"]["CheckA"]["Properties"]["HealthCheckConfig"][member] = value
    if calculated:
        body["Resources"]["CheckC"] = {"Type": "AWS::Route53::HealthCheck", "Properties": {"HealthCheckConfig": {
            "Type": "CALCULATED", "HealthThreshold": 1, "ChildHealthChecks": [{"Ref": "CheckA"}]}}}
    return [f for f in _findings(body, ("EO-DNS2",)) if f.resource == "RecordA"]


def test_a_health_check_quiet_as_written() -> None:
    assert _checked("Disabled", False) == [] and _checked("Disabled", False, calculated=True) == []


@pytest.mark.parametrize(("member", "fires", "calculated"), [
    (member, fires, calculated) for member, fires in (("Disabled", "true"), ("Inverted", None), ("Type", None))
    for calculated in (False, True)] + [("IPAddress", None, False)])  # a CALCULATED check's child: its address counts not
def test_a_health_check_member_decided_at_deploy_is_not_judged_and_judged_with_a_default(
        member: str, fires: str | None, calculated: bool) -> None:
    found = _checked(member, P, calculated=calculated)
    assert len(found) == 1 and _is_not_judged(found[0]), found
    assert f"health check CheckA {member}: <Ref P>" in found[0].message
    if fires is not None:
        judged = _checked(member, P, default=fires, calculated=calculated)
        assert judged and not [f for f in judged if _is_not_judged(f)], judged
        assert _checked(member, P, default="false", calculated=calculated) == []


def test_the_port_of_a_tcp_check_and_a_childs_address_are_no_verdict_of_dns2() -> None:
    assert _checked("Port", P) == [] and _checked("IPAddress", P, calculated=True) == []


def test_a_check_of_the_records_own_undecided_address_is_judged() -> None:
    """One expression is one value at deploy: a check whose IPAddress is the record's own value probes that record."""
    body = _with(_fixture("eo-dns2-fire"), "RecordA", "HealthCheckId", {"Ref": "CheckA"})
    body["Resources"]["RecordA"]["Properties"]["ResourceRecords"] = [P]
    body["Resources"]["CheckA"]["Properties"]["HealthCheckConfig"]["IPAddress"] = P
    assert [f for f in _findings(body, ("EO-DNS2",)) if f.resource == "RecordA"] == []
    body["Resources"]["CheckA"]["Properties"]["HealthCheckConfig"]["Disabled"] = True  # still judged: never fails
    assert [f.resource for f in _findings(body, ("EO-DNS2",)) if not _is_not_judged(f)] == ["RecordA"]


def _zones(a: Any, b: Any, default: Any = None) -> list[Any]:
    body = _with(_fixture("eo-dns3-fire-zone"), "SubnetA", "AvailabilityZone", a, default)
    body["Resources"]["SubnetB"]["Properties"]["AvailabilityZone"] = b
    return _findings(body, ("EO-DNS3",))


def test_an_origin_ip_zone_decided_at_deploy_is_not_judged_and_judged_with_a_default() -> None:
    found = _zones(P, "us-east-1a")
    assert len(found) == 1 and _is_not_judged(found[0]), found
    assert "<Ref P>, us-east-1a" in found[0].message and "one zone" in found[0].message and "Default" in found[0].fix
    judged = _zones(P, "us-east-1a", default="us-east-1a")
    assert len(judged) == 1 and not _is_not_judged(judged[0]) and "all 2 origin IPs are in one zone" in judged[0].message
    assert _zones(P, "us-east-1a", default="us-east-1b") == []


@pytest.mark.parametrize(("a", "b", "verdict"), [
    (P, P, "judged"),  # one expression, one zone: all in one zone whatever it is
    ({"Ref": "Q"}, P, "not judged"),  # two parameters may be one zone
    ({"Fn::Select": [0, {"Fn::GetAZs": ""}]}, {"Fn::Select": [1, {"Fn::GetAZs": ""}]}, "quiet"),  # GetAZs lists a zone once
    ({"Fn::Select": [0, {"Fn::GetAZs": ""}]}, "us-east-1b", "not judged"),
    ("us-east-1a", "us-east-1b", "quiet"),
])
def test_origin_ip_zones_apart_only_when_certain(a: Any, b: Any, verdict: str) -> None:
    found = _zones(a, b)
    got = "quiet" if not found else "not judged" if all(_is_not_judged(f) for f in found) else "judged"
    assert got == verdict, found


@pytest.mark.parametrize("member", ["HostedZoneName", "HostedZoneId"])
def test_a_zone_decided_at_deploy_beside_a_decided_one_is_named_once_not_judged_apart(member: str) -> None:
    """Two multivalue sets of an origin name in two zones (us-east-1a, us-east-1b): one set's zone decided at deploy
    may be the other's; read as a second zone, EO-DNS3 said '1 origin IP' for each."""
    body = _with(_fixture("eo-dns4-fire"), "RecordA", "TTL", 60)
    body["Resources"]["RecordA"]["Properties"].pop("HostedZoneName")
    body["Resources"]["RecordA"]["Properties"][member] = P
    found = _findings(body)
    assert [(f.rule, f.resource, _is_not_judged(f)) for f in found] == [("EO-NJ1", "RecordA", True)], found
    assert f"{member} of o.example.com A" in found[0].message and "<Ref P>" in found[0].message
    same = _with(_fixture("eo-dns4-fire"), "RecordA", "TTL", 60)
    for record in ("RecordA", "RecordB"):  # one expression for both: one zone, judged as before
        same["Resources"][record]["Properties"].pop("HostedZoneName")
        same["Resources"][record]["Properties"][member] = P
    assert _findings(same) == []
    decided = _with(_fixture("eo-dns4-fire"), "RecordA", "TTL", 60, default="example.com.")
    decided["Resources"]["RecordA"]["Properties"]["HostedZoneName"] = P
    assert _findings(decided) == []


def _https(path: tuple[str, ...], value: Any, default: Any = None) -> list[Any]:
    """eo-dns2-fire with RecordA checked by an HTTPS check of EipA:443, the NLB's TCP listener on 443 (EO-DNS2's
    warning: Route 53's HTTPS checks do not speak HTTP/2), one value on ``path`` replaced by ``value``."""
    body = _with(_fixture("eo-dns2-fire"), "RecordA", "HealthCheckId", {"Ref": "CheckA"}, default)
    body["Resources"]["CheckA"]["Properties"]["HealthCheckConfig"]["Type"] = "HTTPS"
    body["Resources"]["Listener"] = {"Type": "AWS::ElasticLoadBalancingV2::Listener", "Properties": {
        "LoadBalancerArn": {"Ref": "Nlb"}, "Port": 443, "Protocol": "TCP",
        "DefaultActions": [{"Type": "forward", "TargetGroupArn": {"Ref": "Tg"}}]}}
    body["Resources"]["Tg"] = {"Type": "AWS::ElasticLoadBalancingV2::TargetGroup", "Properties": {
        "Port": 443, "Protocol": "TCP", "VpcId": "vpc-1", "TargetType": "ip"}}
    node = body["Resources"][path[0]]["Properties"]
    for key in path[1:-1]:
        node = node[key]
    node[path[-1]] = value
    return [f for f in _findings(body, ("EO-DNS2",)) if f.resource == "RecordA"]


@pytest.mark.parametrize(("path", "fires"), [
    (("Listener", "Port"), "443"), (("Listener", "Protocol"), "TCP"), (("Nlb", "Type"), "network"),
    (("Dist", "DistributionConfig", "DefaultCacheBehavior", "GrpcConfig", "Enabled"), "true"),
])
def test_an_https_check_of_a_grpc_port_decided_at_deploy_is_not_judged(path: tuple[str, ...], fires: str) -> None:
    found = _https(path, P)
    assert len(found) == 1 and _is_not_judged(found[0]) and "<Ref P>" in found[0].message, found
    judged = _https(path, P, default=fires)
    assert len(judged) == 1 and not _is_not_judged(judged[0]) and "the gRPC listener's" in judged[0].message, judged


def test_an_https_check_of_another_port_stays_quiet() -> None:
    assert _https(("Listener", "Port"), P, default="8443") == [] and _https(("Listener", "Port"), 8443) == []
