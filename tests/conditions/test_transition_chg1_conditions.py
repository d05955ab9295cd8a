"""EO-CHG1 beyond tests/conditions/test_transition_rule_conditions.py: the whole message, and a name the rule
passes over (new, unchanged, one record set or one group flipped in place) before the name that fires, so
passing over one never ends the check of the others (mutmut survivors, issue 38)."""

from __future__ import annotations

from typing import Any

import pytest
from transition_worlds import NAME, props, record_ids, resources, set_policy, transition_findings, world

from edge_origin.core.findings import Severity

FIRST = "aaa.example.com"  # sorts and is written before NAME: the rule meets it first


def _flip(policy: str) -> dict[str, Any]:
    """One NLB's two records of NAME, both with ``policy``: weighted -> multivalue is two separate changes."""
    body = world(nlbs=1)
    for key in record_ids(body):
        set_policy(props(body, key), policy)
    return body


def _record(set_id: str, policy: str) -> dict[str, Any]:
    routing = {"Weight": 10} if policy == "weighted" else {"MultiValueAnswer": True}
    return {"Type": "AWS::Route53::RecordSet", "Properties": {
        "HostedZoneName": "example.com.", "Name": FIRST, "Type": "A", "TTL": 60, "SetIdentifier": set_id,
        "ResourceRecords": ["192.0.2.1"], **routing}}


def _first(body: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    body["Resources"] = {**extra, **resources(body)}
    return body


def test_chg1_the_whole_message() -> None:
    found = transition_findings(_flip("weighted"), _flip("multivalue"), "EO-CHG1")
    assert [(f.resource, f.severity, f.message) for f in found] == [(
        "RecordNlb1A", Severity.ERROR,
        f"{NAME} A: routing policy weighted -> multivalue across separate record sets in one deploy "
        "(base: Edge/RecordNlb1A, Edge/RecordNlb1B; head: Edge/RecordNlb1A, Edge/RecordNlb1B): CloudFormation "
        "creates or updates them one at a time while the others are still on the old policy, and Route 53 refuses "
        "a name with two policies: the deploy fails and rolls back")]


def _new_name(base: dict[str, Any], head: dict[str, Any]) -> None:
    _first(head, {"AaaA": _record("a", "weighted")})


def _unchanged(base: dict[str, Any], head: dict[str, Any]) -> None:
    for body in (base, head):
        _first(body, {"AaaA": _record("a", "weighted"), "AaaB": _record("b", "weighted")})


def _one_set_in_place(base: dict[str, Any], head: dict[str, Any]) -> None:
    _first(base, {"AaaA": _record("a", "weighted")})
    _first(head, {"AaaA": _record("a", "multivalue")})


def _one_group_in_place(base: dict[str, Any], head: dict[str, Any]) -> None:
    for body, policy in ((base, "weighted"), (head, "multivalue")):
        members = [_record(s, policy)["Properties"] for s in ("a", "b")]
        for member in members:
            member.pop("HostedZoneName")
        _first(body, {"AaaGroup": {"Type": "AWS::Route53::RecordSetGroup",
                                   "Properties": {"HostedZoneName": "example.com.", "RecordSets": members}}})


@pytest.mark.parametrize("pass_over", [_new_name, _unchanged, _one_set_in_place, _one_group_in_place])
def test_chg1_a_name_passed_over_does_not_end_the_check_of_the_next(pass_over) -> None:
    base, head = _flip("weighted"), _flip("multivalue")
    pass_over(base, head)
    assert next(iter(resources(head))).startswith("Aaa")  # the passed-over name comes first
    found = transition_findings(base, head, "EO-CHG1")
    assert [(f.resource, f.message.split(":")[0]) for f in found] == [("RecordNlb1A", f"{NAME} A")]


def test_chg1_records_of_other_policies_added_beside_unchanged_ones_get_the_remove_fix() -> None:
    """Base already mixes weighted and multivalue; head keeps both and adds a failover and a latency set: an accident."""
    base = world(nlbs=1)
    set_policy(props(base, "RecordNlb1A"), "weighted")
    head = world(nlbs=1)
    set_policy(props(head, "RecordNlb1A"), "weighted")
    for key, extra in (("AddedFailover", {"Failover": "PRIMARY"}), ("AddedLatency", {"Region": "us-east-1"})):
        record = {**props(head, "RecordNlb1B"), "SetIdentifier": key, **extra}
        record.pop("MultiValueAnswer")
        resources(head)[key] = {"Type": "AWS::Route53::RecordSet", "Properties": record}
    [found] = transition_findings(base, head, "EO-CHG1")
    assert found.resource == "AddedFailover"
    assert found.fix == (
        "Remove the added failover/latency record set(s) Edge/AddedFailover, Edge/AddedLatency: the name keeps answering "
        "with its multivalue/weighted records, and Route 53 allows one routing policy per name and type. If the routing "
        "policy is meant to change, migrate instead (see `edge-origin rules explain EO-CHG1`).")
