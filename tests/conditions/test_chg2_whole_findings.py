"""EO-CHG2's findings whole (message, severity, resource, fix), with more than one origin name in a change: a
name passed over never hides the next one, and one name's addresses, records and TTL never leak into another's
finding (mutation testing, issue 38)."""

from __future__ import annotations

import copy
from typing import Any

from transition_worlds import NAME, props, record_ids, transition_findings, world

from edge_origin.core.findings import Severity
from edge_origin.rules.chg2_origin_ips_replaced import FIX

OTHER = "a.example.com"  # sorted before NAME: checked first


def _stacks(a: dict[str, Any], b: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {"A": a, "B": b}


def _b_loses_nlb3() -> tuple[dict[str, Any], dict[str, Any]]:
    return world(nlbs=3), world(nlbs=2)


def _only(findings):
    assert len(findings) == 1, [(f.stack, f.resource, f.message) for f in findings]
    return findings[0]


B_MESSAGE = (f"{NAME}: 2 of its 6 addresses are removed or replaced (4 stay): EIP B/Nlb3EipA removed (the resource is "
             "removed); EIP B/Nlb3EipB removed (the resource is removed); edges keep connecting to the old addresses "
             "until their TTL (60 s) ends")


def test_a_name_left_as_it_was_does_not_hide_the_next_one():
    a = world(nlbs=2, name=OTHER, ttl=300)
    base_b, head_b = _b_loses_nlb3()
    f = _only(transition_findings(_stacks(a, base_b), _stacks(copy.deepcopy(a), head_b), "EO-CHG2"))
    assert (f.stack, f.resource, f.severity, f.message, f.fix) == ("B", "RecordNlb1A", Severity.WARNING, B_MESSAGE, FIX)


def test_a_changed_name_with_no_address_in_base_does_not_hide_the_next_one():
    a = world(nlbs=1, name=OTHER)
    for key in record_ids(a):
        props(a, key)["ResourceRecords"] = []
    head_a = copy.deepcopy(a)
    for key in record_ids(head_a):
        props(head_a, key)["TTL"] = 120
    base_b, head_b = _b_loses_nlb3()
    f = _only(transition_findings(_stacks(a, base_b), _stacks(head_a, head_b), "EO-CHG2"))
    assert (f.stack, f.message) == ("B", B_MESSAGE)


def test_a_name_whose_addresses_all_stay_does_not_hide_the_next_one():
    a = world(nlbs=1, name=OTHER)
    head_a = copy.deepcopy(a)
    for key in record_ids(head_a):
        props(head_a, key)["TTL"] = 120  # changed, but every address stays and no record is replaced
    base_b, head_b = _b_loses_nlb3()
    f = _only(transition_findings(_stacks(a, base_b), _stacks(head_a, head_b), "EO-CHG2"))
    assert (f.stack, f.message) == ("B", B_MESSAGE)


def test_every_address_gone_is_an_error_naming_each():
    base, head = world(nlbs=1), world(nlbs=1)
    for key in ("Nlb1EipA", "Nlb1EipB"):
        head["Resources"][key.replace("Nlb1", "New1")] = head["Resources"].pop(key)
    for key in record_ids(head):
        props(head, key)["ResourceRecords"] = [{"Ref": props(head, key)["ResourceRecords"][0]["Ref"].replace("Nlb1", "New1")}]
    for key in list(head["Resources"]):
        if key.startswith("Check"):
            ip = head["Resources"][key]["Properties"]["HealthCheckConfig"]["IPAddress"]
            ip["Ref"] = ip["Ref"].replace("Nlb1", "New1")
    mappings = head["Resources"]["Nlb1"]["Properties"]["SubnetMappings"]
    for m in mappings:
        m["AllocationId"]["Fn::GetAtt"][0] = m["AllocationId"]["Fn::GetAtt"][0].replace("Nlb1", "New1")
    f = _only(transition_findings(base, head, "EO-CHG2"))
    assert (f.resource, f.severity, f.fix) == ("RecordNlb1A", Severity.ERROR, FIX)
    assert f.message == (f"{NAME}: all 2 of its addresses change at once: EIP Edge/Nlb1EipA removed (the resource is removed); "
                         "EIP Edge/Nlb1EipB removed (the resource is removed); edges keep connecting to the old addresses "
                         "until their TTL (60 s) ends")


def test_a_replaced_record_alone_whole():
    base = world()
    head = copy.deepcopy(base)
    props(head, "RecordNlb2B")["SetIdentifier"] = "origin-nlb2-b"
    f = _only(transition_findings(base, head, "EO-CHG2"))
    assert (f.resource, f.severity, f.fix) == ("RecordNlb1A", Severity.WARNING, FIX)
    assert f.message == (
        f"{NAME}: records are replaced: Edge/RecordNlb2B replaced (SetIdentifier nlb2-us-east-1b -> origin-nlb2-b); "
        "Route 53 gets a new record and the old one is deleted in clean-up: whatever manages these records by set "
        "identifier (plans, runbooks, edge-origin enact) no longer finds them")


def test_an_address_whose_eip_may_be_replaced_says_the_schema_does_not_decide():
    base = world(nlbs=2)
    head = copy.deepcopy(base)
    head["Parameters"] = {"EipDomain": {"Type": "String"}}
    props(head, "Nlb1EipA")["NetworkBorderGroup"] = {"Ref": "EipDomain"}  # create-only, decided at deploy time
    f = _only(transition_findings(base, head, "EO-CHG2"))
    assert (f.resource, f.severity, f.fix) == ("RecordNlb1A", Severity.WARNING, FIX)
    assert f.message.startswith(f"{NAME}: 1 of its 4 addresses are removed or replaced (3 stay): EIP Edge/Nlb1EipA ")
    assert f.message.endswith(" (the schema does not decide); edges keep connecting to the old addresses until their "
                              "TTL (60 s) ends")


def test_an_address_moved_to_another_name_is_gone_from_this_one():
    """Head answers OTHER with Nlb1EipA and NAME with the rest: for NAME that address is removed (only NAME's own
    records count, not every record of the head template)."""
    base, head = world(nlbs=1), world(nlbs=1)
    moved = next(k for k in record_ids(head) if props(head, k)["ResourceRecords"][0]["Ref"] == "Nlb1EipA")
    props(head, moved)["Name"] = OTHER
    found = transition_findings(_stacks(world(nlbs=1, name=OTHER), base), _stacks(world(nlbs=1, name=OTHER), head), "EO-CHG2")
    f = _only(found)
    assert (f.stack, f.severity) == ("B", Severity.WARNING)
    assert f.message == (
        f"{NAME}: 1 of its 2 addresses are removed or replaced (1 stays): EIP B/Nlb1EipA removed (no record answers with "
        f"it any more); B/RecordNlb1A replaced (Name {NAME} -> {OTHER}); edges keep connecting to the old addresses until "
        "their TTL (60 s) ends")


def test_a_record_replaced_for_two_reasons_names_both():
    base, head = world(nlbs=1), world(nlbs=1)
    props(head, "RecordNlb1A")["SetIdentifier"] = "x-new"
    props(head, "RecordNlb1A")["HostedZoneName"] = "example.com"
    f = _only(transition_findings({"B": base}, {"B": head}, "EO-CHG2"))
    assert f.message == (
        f"{NAME}: records are replaced: B/RecordNlb1A replaced (HostedZoneName example.com. -> example.com; SetIdentifier "
        "nlb1-us-east-1a -> x-new); Route 53 gets a new record and the old one is deleted in clean-up: whatever manages "
        "these records by set identifier (plans, runbooks, edge-origin enact) no longer finds them")


def test_a_name_whose_records_are_all_removed_does_not_hide_the_next_one():
    a = world(nlbs=1, name=OTHER)
    head_a = copy.deepcopy(a)
    for key in record_ids(head_a):
        del head_a["Resources"][key]  # every record of OTHER removed: EO-CHG3's business, not this rule's
    base_b, head_b = _b_loses_nlb3()
    f = _only(transition_findings(_stacks(a, base_b), _stacks(head_a, head_b), "EO-CHG2"))
    assert (f.stack, f.message) == ("B", B_MESSAGE)
