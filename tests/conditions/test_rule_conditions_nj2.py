"""EO-NJ2: the whole finding for a record set on an origin's path whose routing the table does not judge,
and the record sets it does not name (off every path, decided at deploy) (mutmut, issue 38)."""

from __future__ import annotations

from typing import Any

from worlds import findings, quiet, res, world

from edge_origin.core.findings import Severity
from edge_origin.rules.nj2_unknown_routing import NEEDS

ELEMENTS = "Weight, MultiValueAnswer, Failover, Region, GeoLocation, GeoProximityLocation, CidrRoutingConfig, AZAffinity"


def _seen(body: dict[str, Any]) -> list[tuple[str, str, Severity, str, str, str, str]]:
    return [(f.rule, f.resource, f.severity, f.message, f.fix, f.stack, f.template) for f in findings(body, "EO-NJ2")]


def _finding(resource: str, element: str, reason: str, name: str = "o.example.com", set_id: str = "A") -> tuple:
    return (
        "EO-NJ2", resource, Severity.NOT_CHECKED,
        f"not judged: {resource}: record set {name} A (SetIdentifier {set_id}): {element} ({reason}; its answers are left "
        f"out of every verdict on {name})",
        "To let edge-origin judge it: " + NEEDS, "S", "t.json",
    )


def test_nj2_a_member_the_table_does_not_know_the_whole_finding() -> None:
    body = world()
    res(body, "RecordB")["Frob"] = 1
    assert _seen(body) == [_finding(
        "RecordB", "Frob",
        "ResourceRecordSet member(s) Frob not in edge-origin's table of Route 53 routing elements: what Route 53 answers "
        "for this set is not known", set_id="B")]


def test_nj2_a_set_id_without_routing_element_the_whole_finding() -> None:
    body = world()
    del res(body, "RecordA")["MultiValueAnswer"]
    assert _seen(body) == [_finding(
        "RecordA", "SetIdentifier",
        f"a SetIdentifier with no routing element edge-origin knows ({ELEMENTS}): Route 53 refuses a set id without one, "
        "so an element edge-origin does not read may be missing here")]


def test_nj2_a_record_reached_through_an_alias_is_on_the_path_one_off_it_is_not() -> None:
    body = world()
    for logical_id in ("RecordA", "RecordB"):
        res(body, logical_id)["Name"] = "pool.example.com"
    body["Resources"]["Alias"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
        "HostedZoneName": "example.com.", "Name": "o.example.com", "Type": "A",
        "AliasTarget": {"DNSName": "pool.example.com", "HostedZoneId": "Z1", "EvaluateTargetHealth": True}}}
    body["Resources"]["Off"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
        "HostedZoneName": "example.com.", "Name": "off.example.com", "Type": "A", "TTL": 60, "SetIdentifier": "x",
        "ResourceRecords": ["192.0.2.9"]}}
    res(body, "RecordB")["TrafficPolicyInstanceId"] = "tp-1"
    assert _seen(body) == [_finding(
        "RecordB", "TrafficPolicyInstanceId",
        "a traffic policy instance decides this record's answers; edge-origin does not read traffic policies",
        name="pool.example.com", set_id="B")]


def test_nj2_a_routing_element_decided_at_deploy_the_whole_finding() -> None:
    body = world()
    body["Parameters"] = {"Multi": {"Type": "String"}}
    res(body, "RecordA")["MultiValueAnswer"] = {"Ref": "Multi"}
    assert _seen(body) == [(
        "EO-NJ2", "RecordA", Severity.NOT_CHECKED,  # left out of every verdict on the name: never read as clean
        "not judged: RecordA: record set o.example.com A (SetIdentifier A) MultiValueAnswer: <Ref Multi> (decided at deploy "
        "time: a parameter without Default; multivalue or simple is not known; its answers are left out of every verdict "
        "on o.example.com)",
        "To let edge-origin judge it: give the parameter a Default (or check with the value you deploy)", "S", "t.json",
    )]
    res(body, "RecordA")["MultiValueAnswer"] = True
    quiet(body, "EO-NJ2")


def test_nj2_a_record_without_type_or_set_id_and_its_cdk_path() -> None:
    body = world()
    del body["Resources"]["RecordB"]
    props = res(body, "RecordA")
    del props["Type"], props["SetIdentifier"], props["MultiValueAnswer"]
    props["Frob"] = 1
    body["Resources"]["RecordA"]["Metadata"] = {"aws:cdk:path": "S/RecordA/Resource"}
    found = findings(body, "EO-NJ2")
    assert [(f.resource, f.path, f.message.split(": Frob")[0]) for f in found] == [
        ("RecordA", "S/RecordA/Resource", "not judged: RecordA: record set o.example.com ? (SetIdentifier -)")]
