"""EO-DNS5 beyond tests/conditions/test_rule_conditions_dns.py: the whole finding, the groups it keeps apart
(zones, types) and the records it cannot read passed over before the group that fires (mutmut, issue 38)."""

from __future__ import annotations

from typing import Any

from worlds import findings, quiet, res, world

from edge_origin.core.findings import Severity
from edge_origin.rules.dns5_mixed_policies import FIX


def _record(name: Any, **props: Any) -> dict[str, Any]:
    return {"Type": "AWS::Route53::RecordSet", "Properties": {"HostedZoneName": "example.com.", "Name": name, "Type": "A", "TTL": 60, **props}}


def _weighted_b(body: dict[str, Any]) -> dict[str, Any]:
    props = res(body, "RecordB")
    del props["MultiValueAnswer"]
    props["Weight"] = 1
    return body


def _first(body: dict[str, Any], **resources: dict[str, Any]) -> dict[str, Any]:
    body["Resources"] = {**resources, **body["Resources"]}
    return body


MIXED = (
    "EO-DNS5", "RecordA", Severity.ERROR,
    "o.example.com A: mixed routing policies (multivalue, weighted) in S/RecordA, S/RecordB: Route 53 rejects the change at deploy",
    FIX,
)


def _seen(body: dict[str, Any]) -> list[tuple[str, str, Severity, str, str]]:
    return [(f.rule, f.resource, f.severity, f.message, f.fix) for f in findings(body, "EO-DNS5")]


def test_dns5_multivalue_and_weighted_of_one_name_the_whole_finding() -> None:
    assert _seen(_weighted_b(world())) == [MIXED]


def test_dns5_records_it_cannot_read_before_the_mixed_group_do_not_end_the_check() -> None:
    body = _weighted_b(world())
    body["Parameters"] = {"Multi": {"Type": "String"}, "Name": {"Type": "String"}}
    body["Conditions"] = {"Blue": {"Fn::Equals": [{"Ref": "Name"}, "blue"]}}
    _first(body,
           AaaName=_record({"Fn::If": ["Blue", "a.example.com", "b.example.com"]}, SetIdentifier="n", Weight=1, ResourceRecords=["192.0.2.8"]),
           AaaUnknown=_record("a.example.com", SetIdentifier="u", MultiValueAnswer={"Ref": "Multi"}, ResourceRecords=["192.0.2.9"]))
    seen = _seen(body)
    assert seen[-1] == MIXED
    # with Blue true, AaaName is a weighted set of a.example.com beside AaaUnknown, multivalue or simple: not judged
    assert [(f[0], f[1], f[2]) for f in seen[:-1]] == [("EO-DNS5", "AaaUnknown", Severity.WARNING)]
    assert seen[0][3].startswith("not judged: AaaUnknown: MultiValueAnswer") and "weighted" in seen[0][3]


def test_dns5_a_policy_decided_at_deploy_is_not_a_second_policy() -> None:
    body = world()
    body["Parameters"] = {"Multi": {"Type": "String"}}
    body["Resources"]["Third"] = _record("o.example.com", SetIdentifier="C", MultiValueAnswer={"Ref": "Multi"}, ResourceRecords=["192.0.2.9"])
    quiet(body, "EO-DNS5")


def test_dns5_the_same_name_in_two_hosted_zones_is_two_groups() -> None:
    body = _weighted_b(world())
    for logical_id, zone in (("RecordA", "Z111"), ("RecordB", "Z222")):
        props = res(body, logical_id)
        del props["HostedZoneName"]
        props["HostedZoneId"] = zone
    quiet(body, "EO-DNS5")
    res(body, "RecordB")["HostedZoneId"] = "Z111"
    assert [f.resource for f in findings(body, "EO-DNS5")] == ["RecordA"]


def test_dns5_records_whose_name_is_one_parameter_are_one_name_whatever_it_is() -> None:
    # two record sets named by one parameter without Default, weighted and multivalue: which name they carry is
    # chosen at deploy, but it is one name for both (one parameter, one value a deploy): mixed whatever it is
    body = world()
    body["Parameters"] = {"Name": {"Type": "String"}}
    name = {"Ref": "Name"}
    body["Resources"].update(
        IfW=_record(name, SetIdentifier="w", Weight=1, ResourceRecords=["192.0.2.8"]),
        IfM=_record(name, SetIdentifier="m", MultiValueAnswer=True, ResourceRecords=["192.0.2.9"]))
    assert [(f[1], f[2], f[3]) for f in _seen(body)] == [(
        "IfW", Severity.ERROR, "<Ref Name> (decided at deploy: one value for each of these sets) A: mixed routing "
        "policies (multivalue, weighted) in S/IfM, S/IfW: Route 53 rejects the change at deploy")]
    body["Resources"]["IfM"]["Properties"]["Name"] = {"Ref": "Other"}  # two parameters: may be two names
    body["Parameters"]["Other"] = {"Type": "String"}
    quiet(body, "EO-DNS5")  # not judged, once a set: by EO-NJ1 (they may be records of the origin name of the zone)
    assert sorted(f.resource for f in findings(body, "EO-NJ1") if f.message.startswith("not judged")) == ["IfM", "IfW"]
