"""EO-CHG3 beyond tests/conditions/test_transition_rule_conditions.py: whole messages and fixes (with other names'
records present), and a name or distribution the rule passes over before the one that fires, so passing over
one never ends the check of the others (mutmut survivors, issue 38)."""

from __future__ import annotations

import copy
from typing import Any

from transition_worlds import (
    NAME,
    copy_records,
    drop_record,
    props,
    record_ids,
    resources,
    transition_findings,
    world,
)

from edge_origin.core.findings import Severity
from edge_origin.rules.chg3_name_left_without_records import FIX, ORDER_FIX

MV_NAME = "origin-mv.example.com"
OTHER = "aaa.example.com"  # sorts before NAME: the rule meets it first
RECORDS = "Edge/RecordNlb1A, Edge/RecordNlb1B, Edge/RecordNlb2A, Edge/RecordNlb2B"


def _found(base: dict[str, Any], head: dict[str, Any]) -> list[tuple[str, Severity, str, str]]:
    return [(f.resource, f.severity, f.message, f.fix) for f in transition_findings(base, head, "EO-CHG3")]


def _other(body: dict[str, Any], marked: bool = False) -> dict[str, Any]:
    """A record of OTHER (no distribution uses it; ``marked``: a gRPC origin by its marker), written first."""
    record = {"Type": "AWS::Route53::RecordSet", "Properties": {
        "HostedZoneName": "example.com.", "Name": OTHER, "Type": "A", "TTL": 60, "ResourceRecords": ["192.0.2.1"]}}
    if marked:
        record["Metadata"] = {"edge-origin:grpc-origin": True}
    body["Resources"] = {"AaaRecord": record, **resources(body)}
    return body


def _without_records(body: dict[str, Any]) -> dict[str, Any]:
    for key in record_ids(body):
        if key != "AaaRecord":
            drop_record(body, key)
    return body


def test_chg3_every_record_removed_the_whole_message_beside_another_name() -> None:
    assert _found(_other(world()), _without_records(_other(world()))) == [(
        "Dist", Severity.ERROR, f"{NAME}: every record is removed ({RECORDS}) while the name is still an origin of "
        "Edge/Dist: after the deploy it resolves to nothing, and resolvers may cache that 'no such record' for up to "
        "900 s (Route 53's default SOA negative TTL), not a record TTL, after the records return", FIX)]


def test_chg3_every_health_check_removed_the_whole_message_beside_another_name() -> None:
    base = _other(world())
    head = copy.deepcopy(base)
    for key in record_ids(head):
        props(head, key).pop("HealthCheckId", None)
    assert _found(base, head) == [(
        "RecordNlb1A", Severity.ERROR, f"{NAME}: 4 health-checked record(s) in base, none in head ({RECORDS}): "
        "Route 53 keeps answering with dead addresses", FIX)]


def test_chg3_two_live_names_left_without_records_are_both_reported() -> None:
    base, head = _other(world(), marked=True), _without_records(world())
    assert [(r, m.split(":")[0]) for r, _, m, _ in _found(base, head)] == [("AaaRecord", OTHER), ("Dist", NAME)]


def _with_mv_records(body: dict[str, Any]) -> dict[str, Any]:
    copy_records(world(name=MV_NAME), body, "Mv")
    return body


def _switched_first(base_first: bool, ordered_first: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """Dist switches to MV_NAME without DependsOn; ADist (written first) is new in head (``base_first`` False) or
    switches too, ordered by DependsOn (``ordered_first``)."""
    base, head = world(), _with_mv_records(world())
    props(head, "Dist")["DistributionConfig"]["Origins"][0]["DomainName"] = MV_NAME
    first = copy.deepcopy(resources(head)["Dist"])
    if ordered_first:
        first["DependsOn"] = ["MvRecordNlb1A"]
    head["Resources"] = {"ADist": first, **resources(head)}
    if base_first:
        base["Resources"] = {"ADist": copy.deepcopy(resources(base)["Dist"]), **resources(base)}
    return base, head


def test_chg3_a_distribution_passed_over_does_not_end_the_check_of_the_next() -> None:
    message = (f"Dist switches to {MV_NAME}, whose records this deploy creates (Edge/MvRecordNlb1A, Edge/MvRecordNlb1B, "
               "Edge/MvRecordNlb2A, Edge/MvRecordNlb2B), and nothing orders them: CloudFormation may update the "
               "distribution first, and edges that resolve the name meanwhile get no answer and may cache that for up to "
               "900 s (Route 53's default SOA), whatever the records' TTL")
    for base_first, ordered_first in ((False, False), (True, True)):
        assert _found(*_switched_first(base_first, ordered_first)) == [("Dist", Severity.WARNING, message, ORDER_FIX)]
    assert _found(*_switched_first(True, False))[0][0] == "ADist"  # unordered, it fires first
