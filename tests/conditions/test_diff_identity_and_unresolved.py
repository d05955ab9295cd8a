"""model/transition.py: a record's identity across base and head (a RecordSetGroup member is known by
its Route 53 identity, not its position), the zone part of that identity (HostedZoneName compared as a
DNS name, HostedZoneId as written), and a create-only list with an unresolvable item (may replace)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from worlds import world

from edge_origin.model import TemplateModel
from edge_origin.model.transition import MAY_REPLACE, REPLACED, Transition
from edge_origin.review.diff import diff_models, format_diff


def _tr(base: dict[str, Any], head: dict[str, Any]) -> Transition:
    return Transition(TemplateModel.from_templates({"Edge": base}), TemplateModel.from_templates({"Edge": head}))


def _changes(base: dict[str, Any], head: dict[str, Any]) -> list[dict[str, Any]]:
    result = diff_models(TemplateModel.from_templates({"Edge": base}), TemplateModel.from_templates({"Edge": head}))
    return json.loads(format_diff(result, "json"))["changes"]


# --- RecordSetGroup members: identity by (name, type, set identifier) ----------------------------------------
def _group_world(members: list[tuple[str, str]]) -> dict[str, Any]:
    """The quiet world with its two records replaced by one RecordSetGroup: (set identifier, address)."""
    body = world()
    for logical_id in ("RecordA", "RecordB"):
        del body["Resources"][logical_id]
    body["Resources"]["Group"] = {"Type": "AWS::Route53::RecordSetGroup", "Properties": {
        "HostedZoneName": "example.com.",
        "RecordSets": [{"Name": "o.example.com", "Type": "A", "TTL": 60, "SetIdentifier": set_id,
                        "MultiValueAnswer": True, "ResourceRecords": [address]} for set_id, address in members]}}
    return body


def test_a_member_added_in_front_of_a_group_is_the_only_change() -> None:
    base = _group_world([("a", "192.0.2.1"), ("b", "192.0.2.2")])
    head = _group_world([("c", "192.0.2.3"), ("a", "192.0.2.1"), ("b", "192.0.2.2")])
    changes = _changes(base, head)
    assert [(c["logical_id"], c["field"], c["before"], c["note"]) for c in changes] == [("Group[0]", "record", None, "added")]
    assert "set c" in changes[0]["after"] and "192.0.2.3" in changes[0]["after"]


def test_a_member_removed_from_a_group_is_the_only_change() -> None:
    base = _group_world([("a", "192.0.2.1"), ("b", "192.0.2.2")])
    head = _group_world([("b", "192.0.2.2")])
    changes = _changes(base, head)
    assert [(c["logical_id"], c["field"], c["after"]) for c in changes] == [("Group[0]", "record", None)]
    assert "set a" in changes[0]["before"]


# --- the zone in a record's Route 53 identity ---------------------------------------------------------------
def _record(zone: dict[str, str], address: str) -> dict[str, Any]:
    return {"Type": "AWS::Route53::RecordSet", "Properties": {
        **zone, "Name": "api.example.com", "Type": "A", "TTL": 60, "ResourceRecords": [address]}}


def _zones_world(*zones: dict[str, str]) -> dict[str, Any]:
    body = world()
    for i, zone in enumerate(zones):
        body["Resources"][f"Api{i}"] = _record(zone, f"192.0.2.{i + 1}")
    return body


def _api_groups(tr: Transition) -> list[tuple[Any, int, int]]:
    return [(key[0], len(b), len(h)) for key, b, h in tr.record_groups() if key[1] == "api.example.com"]


def test_a_zone_named_with_other_case_or_dots_is_the_same_zone() -> None:
    tr = _tr(_zones_world({"HostedZoneName": "example.com."}), _zones_world({"HostedZoneName": "EXAMPLE.com"}))
    assert _api_groups(tr) == [("example.com", 1, 1)]


def test_records_in_zones_given_by_id_are_grouped_per_zone() -> None:
    body = _zones_world({"HostedZoneId": "Z111111111111"}, {"HostedZoneId": "Z222222222222"})
    assert _api_groups(_tr(body, body)) == [("Z111111111111", 1, 1), ("Z222222222222", 1, 1)]


# --- a create-only list property ---------------------------------------------------------------------------
def _instance_world(groups: list[Any]) -> dict[str, Any]:
    body = world()
    body.setdefault("Parameters", {})["Sg"] = {"Type": "String"}  # no default: not resolvable
    body["Resources"]["Host"] = {"Type": "AWS::EC2::Instance",
                                 "Properties": {"ImageId": "ami-12345678", "SecurityGroups": groups}}
    return body


def test_an_unresolvable_item_in_a_create_only_list_may_replace() -> None:
    st = _tr(_instance_world(["sg-1"]), _instance_world(["sg-1", {"Ref": "Sg"}])).status(("Edge", "Host"))
    assert (st.status, st.reasons) == (MAY_REPLACE, ("SecurityGroups not resolvable from the templates",))


def test_a_literal_change_of_a_create_only_list_replaces() -> None:
    st = _tr(_instance_world(["sg-1"]), _instance_world(["sg-1", "sg-2"])).status(("Edge", "Host"))
    assert (st.status, st.reasons) == (REPLACED, ("SecurityGroups sg-1 -> sg-1, sg-2",))


# --- reasons: which property, and how ----------------------------------------------------------------------
def test_an_updatable_change_beside_a_conditionally_replacing_property_only_updates() -> None:
    # AWS::EC2::Subnet's Ipv6CidrBlock replaces only conditionally; the change is elsewhere (Tags)
    head = world()
    head["Resources"]["SubnetA"]["Properties"]["Tags"] = [{"Key": "team", "Value": "edge"}]
    st = _tr(world(), head).status(("Edge", "SubnetA"))
    assert (st.status, st.reasons) == ("updated", ("Tags changed",))


def _vpc_world(cidr: str, action_order: int | None) -> dict[str, Any]:
    body = world()
    body["Resources"]["Vpc"] = {"Type": "AWS::EC2::VPC", "Properties": {"CidrBlock": cidr}}
    body["Resources"]["Targets"]["Properties"]["VpcId"] = {"Ref": "Vpc"}
    if action_order is not None:
        body["Resources"]["Listener"]["Properties"]["DefaultActions"][0]["Order"] = action_order
    return body


def test_a_value_that_differs_is_changed_even_when_it_refers_to_a_replaced_resource() -> None:
    tr = _tr(_vpc_world("10.0.0.0/16", None), _vpc_world("10.9.0.0/16", 1))
    assert tr.status(("Edge", "Targets")).status == REPLACED  # its create-only VpcId refers to the new VPC
    listener = tr.status(("Edge", "Listener"))
    assert (listener.status, listener.reasons) == ("updated", ("DefaultActions changed",))


def test_a_create_only_value_that_differs_is_one_reason_whatever_it_refers_to() -> None:
    # Targets' create-only VpcId changes from a literal id to the VPC of the template, which is replaced too
    base, head = _vpc_world("10.0.0.0/16", None), _vpc_world("10.9.0.0/16", None)
    base["Resources"]["Targets"]["Properties"]["VpcId"] = "vpc-1"
    tr = _tr(base, head)
    assert tr.status(("Edge", "Vpc")).status == REPLACED
    targets = tr.status(("Edge", "Targets"))
    assert targets.status == REPLACED and len(targets.reasons) == 1 and targets.reasons[0].startswith("VpcId vpc-1 -> ")


# --- addresses, liveness, sharing ---------------------------------------------------------------------------
def _literal_world(values: list[Any]) -> dict[str, Any]:
    """The quiet world with RecordA answering with ``values`` instead of its EIP."""
    body = world()
    body.setdefault("Parameters", {})["Ip"] = {"Type": "String"}  # no default: not resolvable
    body["Resources"]["RecordA"]["Properties"]["ResourceRecords"] = values
    return body


def test_a_literal_ip_and_an_unresolvable_value_are_addresses_of_their_own() -> None:
    tr = _tr(_literal_world(["192.0.2.1", {"Ref": "Ip"}]), _literal_world(["192.0.2.1"]))
    before = tr.name_addresses(tr.base, "o.example.com")
    kinds = sorted((a.kind, a.label) for a in before)
    assert kinds == [("eip", "EIP Edge/EipB"), ("ip", "192.0.2.1"), ("value", "<Ref Ip>")]
    after = tr.name_addresses(tr.head, "o.example.com")
    fates = {a.kind: tr.address_fate(a, after).status for a in before}
    assert fates == {"eip": "unchanged", "ip": "unchanged", "value": "removed"}


def test_a_name_head_marks_as_a_grpc_origin_is_live_without_a_distribution() -> None:
    def body(marked: bool) -> dict[str, Any]:
        b = world()
        del b["Resources"]["Dist"]
        if marked:
            b["Resources"]["RecordA"]["Metadata"] = {"edge-origin:grpc-origin": True}
        return b

    assert _tr(body(False), body(True)).live_in_head("o.example.com") is True
    assert _tr(body(False), body(False)).live_in_head("o.example.com") is False


def test_transition_of_forgets_the_third_pair_back() -> None:
    from edge_origin.model.transition import transition_of

    a, b, c, d, e, f = (TemplateModel.from_templates({"Edge": world()}) for _ in range(6))
    first = transition_of(a, b)
    transition_of(c, d)
    transition_of(e, f)
    again = transition_of(a, b)
    assert again is not first and (again.base, again.head) == (a, b)


# --- a replaced resource's dependents, whatever else changed ------------------------------------------------
def _renamed_nlb_world(nlb_name: str, reader: str, version: int) -> dict[str, Any]:
    """The world with the NLB's create-only Name given, and a custom resource ``reader`` (no schema:
    a change may replace it) that reads the listener."""
    body = world()
    body["Resources"]["Nlb"]["Properties"]["Name"] = nlb_name
    body["Resources"][reader] = {"Type": "Custom::Reader", "Properties": {
        "ServiceToken": "arn:aws:lambda:us-east-1:111111111111:function:f", "Version": version,
        "Listener": {"Ref": "Listener"}}}
    return body


# The changed resources are looked at in the order of a set (it varies with the names): one logical id
# per case, so that every order is met.
@pytest.mark.parametrize("reader", [f"Reader{i}" for i in range(16)])
def test_a_listener_of_a_renamed_nlb_is_replaced_when_a_changed_resource_reads_it(reader: str) -> None:
    tr = _tr(_renamed_nlb_world("a", reader, 1), _renamed_nlb_world("b", reader, 2))
    assert tr.status(("Edge", "Nlb")).describe() == "replaced (Name a -> b)"
    assert tr.status(("Edge", "Listener")).describe() == "replaced (LoadBalancerArn: Nlb replaced)"
    assert tr.status(("Edge", reader)).describe() == \
        "may replace (no resource schema for Custom::Reader: changed Version, Listener)"
