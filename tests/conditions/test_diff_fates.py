"""The diff's address fates (model/transition.py Transition.address_fate) and stack bookkeeping:
every branch (unchanged, removed as a resource, no longer answered, replaced, replaced through its
NLB, its NLB removed, may replace) from one edit of a quiet world, plus removed/added stacks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from worlds import res, world

from edge_origin.model import TemplateModel
from edge_origin.model.transition import MAY_REPLACE, REMOVED, REPLACED, UNCHANGED, Address, Transition
from edge_origin.review.diff import diff_models, format_diff

NAME = "o.example.com"
EIP_A = Address("eip", ("Edge", "EipA"), "EIP Edge/EipA")
EIP_B = Address("eip", ("Edge", "EipB"), "EIP Edge/EipB")


def _fates(base: dict[str, Any], head: dict[str, Any]) -> dict[Address, tuple[str, str]]:
    tr = Transition(TemplateModel.from_templates({"Edge": base}), TemplateModel.from_templates({"Edge": head}))
    after = tr.name_addresses(tr.head, NAME)
    out = {}
    for address in tr.name_addresses(tr.base, NAME):
        st = tr.address_fate(address, after)
        out[address] = (st.status, "; ".join(st.reasons))
    return out


def _changes(base: dict[str, Any], head: dict[str, Any]) -> list[dict[str, Any]]:
    result = diff_models(TemplateModel.from_templates({"Edge": base}), TemplateModel.from_templates({"Edge": head}))
    return json.loads(format_diff(result, "json"))["changes"]


def _custom_dependency(head_value: int) -> dict[str, Any]:
    """The world with the NLB's Name taken from a custom resource (no schema decides its updates)."""
    body = world()
    body["Resources"]["Thing"] = {
        "Type": "Custom::Thing",
        "Properties": {"ServiceToken": "arn:aws:lambda:us-east-1:111111111111:function:f", "V": head_value},
    }
    res(body, "Nlb")["Name"] = {"Fn::GetAtt": ["Thing", "Name"]}
    return body


def test_nothing_changed_every_address_stays() -> None:
    fates = _fates(world(), world())
    assert set(fates) == {EIP_A, EIP_B}
    assert {s for s, _ in fates.values()} == {UNCHANGED}
    assert _changes(world(), world()) == []


def test_an_eip_that_is_removed_is_removed_as_a_resource() -> None:
    head = world()
    for logical_id in ("EipA", "RecordA", "CheckA"):
        del head["Resources"][logical_id]
    res(head, "Nlb")["SubnetMappings"][0]["AllocationId"] = "eipalloc-0123456789abcdef0"
    status, why = _fates(world(), head)[EIP_A]
    assert status == REMOVED and "the resource is removed" in why


def test_an_address_no_record_answers_with_is_removed() -> None:
    head = world()
    res(head, "RecordA")["ResourceRecords"] = ["203.0.113.9"]
    fates = _fates(world(), head)
    assert fates[EIP_A][0] == REMOVED and "no record answers with it" in fates[EIP_A][1]
    assert fates[EIP_B][0] == UNCHANGED


def test_an_eip_replaced_itself() -> None:
    head = world()
    res(head, "EipA")["Address"] = "198.51.100.7"  # create-only
    fates = _fates(world(), head)
    assert fates[EIP_A][0] == REPLACED and "its NLB" not in fates[EIP_A][1]
    assert fates[EIP_B][0] == UNCHANGED


def test_an_eip_whose_nlb_is_replaced_is_replaced() -> None:
    head = world()
    res(head, "Nlb")["Name"] = "renamed"  # create-only: a new NLB
    fates = _fates(world(), head)
    for address in (EIP_A, EIP_B):
        status, why = fates[address]
        assert status == REPLACED and "its NLB Nlb replaced" in why and "creates before it deletes" in why
    assert any(c["kind"] == "nlb" and c["note"].startswith("replaced") for c in _changes(world(), head))


def test_an_eip_whose_nlb_is_removed_is_replaced_not_kept() -> None:
    head = world()
    for logical_id in ("Nlb", "Listener"):
        del head["Resources"][logical_id]
    status, why = _fates(world(), head)[EIP_A]
    assert status == REPLACED and "its NLB Nlb removed" in why


def test_an_eip_whose_nlb_may_be_replaced_may_be_replaced() -> None:
    fates = _fates(_custom_dependency(1), _custom_dependency(2))
    for address in (EIP_A, EIP_B):
        status, why = fates[address]
        assert status == MAY_REPLACE and "its NLB Nlb may replace" in why
    notes = {c["kind"]: c["note"] for c in _changes(_custom_dependency(1), _custom_dependency(2))}
    assert notes["nlb"] == "may be replaced: the schema does not decide"


def test_the_custom_dependency_unchanged_is_no_change() -> None:
    assert {s for s, _ in _fates(_custom_dependency(1), _custom_dependency(1)).values()} == {UNCHANGED}


def _alias_world() -> dict[str, Any]:
    body = world()
    for logical_id in ("RecordB", "CheckB"):
        del body["Resources"][logical_id]
    record = res(body, "RecordA")
    for key in ("TTL", "ResourceRecords", "HealthCheckId", "MultiValueAnswer", "SetIdentifier"):
        record.pop(key, None)
    record["AliasTarget"] = {"DNSName": {"Fn::GetAtt": ["Nlb", "DNSName"]},
                             "HostedZoneId": {"Fn::GetAtt": ["Nlb", "CanonicalHostedZoneID"]}}
    return body


@pytest.mark.parametrize(("edit", "status", "phrase"), [
    ("rename", REPLACED, "Name"),
    ("remove", REMOVED, "the resource is removed"),
])
def test_an_alias_to_the_nlb_follows_the_nlb(edit: str, status: str, phrase: str) -> None:
    head = _alias_world()
    if edit == "rename":
        res(head, "Nlb")["Name"] = "renamed"
    else:
        for logical_id in ("Nlb", "Listener"):
            del head["Resources"][logical_id]
        res(head, "RecordA")["AliasTarget"] = {"DNSName": "elsewhere.example.com", "HostedZoneId": "Z2FDTNDATAQYW2"}
    fates = _fates(_alias_world(), head)
    (alias,) = [a for a in fates if a.kind == "nlb"]
    assert fates[alias][0] == status and phrase in fates[alias][1]


def test_alias_unchanged_stays() -> None:
    fates = _fates(_alias_world(), _alias_world())
    assert [a.kind for a in fates] == ["nlb"] and {s for s, _ in fates.values()} == {UNCHANGED}


# --- stacks --------------------------------------------------------------------------------------------
OTHER = {"Resources": {"Topic": {"Type": "AWS::SNS::Topic", "Properties": {}}}}


def test_removed_added_and_common_stacks() -> None:
    both = TemplateModel.from_templates({"Edge": world(), "Other": OTHER})
    one = TemplateModel.from_templates({"Edge": world()})
    dropped = Transition(both, one)
    assert (dropped.common_stacks, dropped.added_stacks, dropped.removed_stacks) == (["Edge"], [], ["Other"])
    added = Transition(one, both)
    assert (added.common_stacks, added.added_stacks, added.removed_stacks) == (["Edge"], ["Other"], [])
    same = Transition(both, both)
    assert (sorted(same.common_stacks), same.added_stacks, same.removed_stacks) == (["Edge", "Other"], [], [])


def test_a_removed_stack_reaches_the_diff_report() -> None:
    both = TemplateModel.from_templates({"Edge": world(), "Other": OTHER})
    one = TemplateModel.from_templates({"Edge": world()})
    dropped = diff_models(both, one)
    doc = json.loads(format_diff(dropped, "json"))
    assert doc["summary"]["stacks"] == {"common": ["Edge"], "added": [], "removed": ["Other"]}
    assert doc["summary"]["resources"]["removed"] == 1
    assert "removed Other" in format_diff(dropped, "text").splitlines()[0]
    added = diff_models(one, both)
    assert json.loads(format_diff(added, "json"))["summary"]["stacks"]["added"] == ["Other"]
    assert "added Other" in format_diff(added, "text").splitlines()[0]
    assert "removed" not in format_diff(added, "text").splitlines()[0].split(";")[0]
