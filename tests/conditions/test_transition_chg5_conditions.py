"""EO-CHG5 beyond tests/conditions/test_transition_rule_conditions.py: whole messages and the fix, and a record
group or a record the rule passes over before the one that moves, so passing over one never ends the check of the
others (mutmut survivors, issue 38)."""

from __future__ import annotations

import copy
from typing import Any

from transition_worlds import NAME, props, resources, set_policy, transition_findings, world

from edge_origin.core.findings import Severity
from edge_origin.rules.chg5_record_identity_moved import FIX


def _found(base: Any, head: Any) -> list[tuple[str, Severity, str, str]]:
    return [(f.resource, f.severity, f.message, f.fix) for f in transition_findings(base, head, "EO-CHG5")]


def _renamed(body: dict[str, Any], key: str = "RecordNlb1B") -> dict[str, Any]:
    body["Resources"] = {(k + "Renamed" if k == key else k): v for k, v in resources(body).items()}
    return body


def test_chg5_a_new_logical_id_the_whole_message() -> None:
    assert _found(world(), _renamed(world())) == [(
        "RecordNlb1BRenamed", Severity.ERROR,
        f"{NAME} A set nlb1-us-east-1b: moves from Edge/RecordNlb1B to Edge/RecordNlb1BRenamed (a new logical id): a "
        "removal and an addition of the same Route 53 record; CloudFormation creates the new resource while the old "
        "one still holds the record: 'already exists', the deploy fails", FIX)]


def test_chg5_another_stack_the_whole_message() -> None:
    base, edge = world(), world()
    moved = resources(edge).pop("RecordNlb1A")
    moved["Properties"].pop("HealthCheckId")
    moved["Properties"]["ResourceRecords"] = ["203.0.113.5"]
    assert _found({"Edge": base}, {"Edge": edge, "Dns": {"Resources": {"RecordNlb1A": moved}}}) == [(
        "RecordNlb1A", Severity.ERROR,
        f"{NAME} A set nlb1-us-east-1a: moves from Edge/RecordNlb1A to Dns/RecordNlb1A (another stack): a removal and "
        "an addition of the same Route 53 record; the stacks deploy separately: adding first fails ('already exists'), "
        "removing first leaves it missing", FIX)]


def _aaa(policy: str) -> dict[str, Any]:
    routing = {"Weight": 10} if policy == "weighted" else {"MultiValueAnswer": True}
    return {"Type": "AWS::Route53::RecordSet", "Properties": {
        "HostedZoneName": "example.com.", "Name": "aaa.example.com", "Type": "A", "TTL": 60, "SetIdentifier": "a",
        "ResourceRecords": ["192.0.2.1"], **routing}}


def test_chg5_a_policy_change_passed_over_does_not_end_the_check_of_the_next_name() -> None:
    base, head = world(), _renamed(world())
    base["Resources"] = {"AaaRecord": _aaa("weighted"), **resources(base)}
    head["Resources"] = {"AaaRecordRenamed": _aaa("multivalue"), **resources(head)}  # EO-CHG1's business
    assert [r for r, _, _, _ in _found(base, head)] == ["RecordNlb1BRenamed"]


def test_chg5_a_duplicate_passed_over_does_not_end_the_check_of_the_next_record() -> None:
    base, head = world(), _renamed(world())
    head["Resources"] = {"AaaCopy": copy.deepcopy(resources(head)["RecordNlb1A"]), **resources(head)}
    set_policy(props(head, "AaaCopy"), "multivalue")
    assert [r for r, _, _, _ in _found(base, head)] == ["RecordNlb1BRenamed"]
