"""What the diff says a deploy does to each resource (model/transition.py Transition.status and
changed_keys): unchanged, updated, replaced (type, create-only property, a create-only reference to
a replaced resource, transitively), may replace (no schema, unresolvable, a reference that may be)."""

from __future__ import annotations

from typing import Any

import pytest
from worlds import res, world

from edge_origin.model import TemplateModel
from edge_origin.model.transition import ADDED, MAY_REPLACE, REMOVED, REPLACED, UNCHANGED, UPDATED, Transition


def _tr(base: dict[str, Any], head: dict[str, Any]) -> Transition:
    return Transition(TemplateModel.from_templates({"Edge": base}), TemplateModel.from_templates({"Edge": head}))


def _status(base: dict[str, Any], head: dict[str, Any], logical_id: str) -> tuple[str, str]:
    st = _tr(base, head).status(("Edge", logical_id))
    return st.status, "; ".join(st.reasons)


def _with_vpc(cidr: Any = "10.0.0.0/16") -> dict[str, Any]:
    body = world()
    body["Resources"]["Vpc"] = {"Type": "AWS::EC2::VPC", "Properties": {"CidrBlock": cidr}}
    res(body, "Targets")["VpcId"] = {"Ref": "Vpc"}
    body.setdefault("Parameters", {})["Cidr"] = {"Type": "String"}
    return body


def test_nothing_changed() -> None:
    tr = _tr(world(), world())
    assert tr.changed_keys == {"added": [], "removed": [], "changed": []}
    assert {tr.status(("Edge", k)).status for k in world()["Resources"]} == {UNCHANGED}


def test_a_property_that_updates_in_place() -> None:
    head = world()
    res(head, "EipA")["Tags"] = [{"Key": "team", "Value": "edge"}]
    assert _status(world(), head, "EipA") == (UPDATED, "Tags changed")
    assert _tr(world(), head).changed_keys["changed"] == [("Edge", "EipA")]


def test_a_create_only_property_replaces() -> None:
    head = world()
    res(head, "EipA")["Address"] = "198.51.100.7"
    assert _status(world(), head, "EipA") == (REPLACED, "Address unset -> 198.51.100.7")
    head = world()
    res(head, "RecordA")["SetIdentifier"] = "A2"
    assert _status(world(), head, "RecordA") == (REPLACED, "SetIdentifier A -> A2")


def test_a_type_change_replaces() -> None:
    head = world()
    head["Resources"]["SubnetA"]["Type"] = "AWS::EC2::Subnet2"
    assert _status(world(), head, "SubnetA") == (REPLACED, "type AWS::EC2::Subnet -> AWS::EC2::Subnet2")


def test_an_unresolvable_create_only_property_may_replace() -> None:
    head = world()
    head["Parameters"] = {"P": {"Type": "String"}}
    res(head, "EipA")["Address"] = {"Ref": "P"}
    status, why = _status(world(), head, "EipA")
    assert status == MAY_REPLACE and "Address not resolvable from the templates" in why


def test_no_schema_may_replace() -> None:
    def body(v: int) -> dict[str, Any]:
        b = world()
        b["Resources"]["Thing"] = {"Type": "Custom::Thing", "Properties": {"ServiceToken": "arn:aws:lambda:us-east-1:1:function:f", "V": v}}
        return b

    assert _status(body(1), body(2), "Thing") == (MAY_REPLACE, "no resource schema for Custom::Thing: changed V")
    assert _status(body(1), body(1), "Thing") == (UNCHANGED, "")


def test_a_reference_to_a_replaced_resource_in_a_create_only_property_replaces_transitively() -> None:
    tr = _tr(_with_vpc(), _with_vpc("10.9.0.0/16"))
    assert tr.status(("Edge", "Vpc")).status == REPLACED
    targets = tr.status(("Edge", "Targets"))
    assert targets.status == REPLACED and "VpcId: Vpc replaced" in targets.reasons
    listener = tr.status(("Edge", "Listener"))  # refers to Targets in an updatable property
    assert listener.status == UPDATED and listener.reasons == ("DefaultActions Targets replaced",)
    assert tr.gone(("Edge", "Targets")) and not tr.gone(("Edge", "Listener"))
    assert tr.changed_keys["changed"] == [("Edge", "Vpc")]  # only the text that differs
    assert tr.status(("Edge", "Nlb")).status == UNCHANGED


def test_a_reference_to_a_resource_that_may_be_replaced_may_replace() -> None:
    tr = _tr(_with_vpc(), _with_vpc({"Ref": "Cidr"}))
    assert tr.status(("Edge", "Vpc")).status == MAY_REPLACE
    targets = tr.status(("Edge", "Targets"))
    assert targets.status == MAY_REPLACE and "VpcId: Vpc may replace" in targets.reasons
    assert not tr.gone(("Edge", "Targets"))
    assert tr.status(("Edge", "Listener")).reasons == ("DefaultActions Targets may replace",)


def test_replaced_wins_over_may_replace_among_references() -> None:
    def body(cidr: Any, subnet_cidr: str) -> dict[str, Any]:
        b = _with_vpc(cidr)
        res(b, "SubnetA")["CidrBlock"] = subnet_cidr
        return b

    tr = _tr(body("10.0.0.0/16", "10.0.0.0/24"), body({"Ref": "Cidr"}, "10.0.7.0/24"))
    # the NLB's SubnetMappings refer to SubnetA (replaced); nothing of the NLB refers to the Vpc
    assert tr.status(("Edge", "SubnetA")).status == REPLACED
    assert tr.status(("Edge", "Nlb")).reasons == ("SubnetMappings SubnetA replaced",)


@pytest.mark.parametrize(("edit", "key", "status"), [("add", "added", ADDED), ("remove", "removed", REMOVED)])
def test_added_and_removed_resources(edit: str, key: str, status: str) -> None:
    small, big = world(), world()
    big["Resources"]["Extra"] = {"Type": "AWS::SNS::Topic", "Properties": {}}
    base, head = (small, big) if edit == "add" else (big, small)
    tr = _tr(base, head)
    assert tr.changed_keys[key] == [("Edge", "Extra")]
    assert sum(len(v) for v in tr.changed_keys.values()) == 1
    assert tr.status(("Edge", "Extra")).status == status
    assert tr.gone(("Edge", "Extra")) is (status == REMOVED)


def test_a_key_in_neither_side_is_unchanged() -> None:
    assert _tr(world(), world()).status(("Edge", "Nope")).status == UNCHANGED


# --- names: what the diff may skip -------------------------------------------------------------------------
@pytest.mark.parametrize(("edit", "unchanged"), [
    (lambda b: None, True),
    (lambda b: res(b, "RecordA").__setitem__("TTL", 120), False),
    (lambda b: res(b, "CheckA")["HealthCheckConfig"].__setitem__("Port", 444), False),
    (lambda b: res(b, "EipA").__setitem__("Tags", [{"Key": "a", "Value": "b"}]), False),
    (lambda b: res(b, "Listener").__setitem__("Port", 8443), False),
    (lambda b: b["Resources"]["Listener"].__setitem__("Metadata", {"edge-origin:connection-profile": {"nlb_idle_timeout_s": 600}}), False),
    (lambda b: b["Resources"].__delitem__("Dist"), False),
    (lambda b: res(b, "Targets").__setitem__("Port", 9443), False),
], ids=["same", "record", "health-check", "eip", "listener", "profile-metadata", "distribution-gone", "target-group"])
def test_name_unchanged_only_when_nothing_on_its_path_changes(edit: Any, unchanged: bool) -> None:
    head = world()
    edit(head)
    assert _tr(world(), head).name_unchanged("o.example.com") is unchanged


def test_name_with_one_record_fewer_is_changed() -> None:
    head = world()
    for logical_id in ("RecordB",):
        del head["Resources"][logical_id]
    assert _tr(world(), head).name_unchanged("o.example.com") is False


def test_name_whose_listener_is_removed_is_changed() -> None:
    # a removed resource touches what it referred to: the NLB that loses a listener
    head = world()
    del head["Resources"]["Listener"]
    assert _tr(world(), head).name_unchanged("o.example.com") is False


def test_record_groups_are_sorted_by_zone_name_and_type() -> None:
    def body() -> dict[str, Any]:
        b = world()
        # logical ids sort the other way round from the names they carry
        b["Resources"]["ZRecord"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
            "HostedZoneName": "example.com.", "Name": "a.example.com", "Type": "A", "TTL": 60,
            "ResourceRecords": ["192.0.2.1"]}}
        b["Resources"]["ARecord"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
            "HostedZoneName": "example.com.", "Name": "b.example.com", "Type": "A", "TTL": 60,
            "ResourceRecords": ["192.0.2.2"]}}
        return b

    groups = _tr(body(), body()).record_groups()
    names = [key[1] for key, _, _ in groups]
    assert names == sorted(names) and names[:2] == ["a.example.com", "b.example.com"]
    assert all(len(b) == len(h) >= 1 for _, b, h in groups)


def test_an_alias_to_a_name_outside_the_templates_is_an_address_of_its_own() -> None:
    def body(target: str) -> dict[str, Any]:
        b = world()
        for logical_id in ("RecordB", "CheckB"):
            del b["Resources"][logical_id]
        record = res(b, "RecordA")
        for key in ("TTL", "ResourceRecords", "HealthCheckId", "MultiValueAnswer", "SetIdentifier"):
            record.pop(key, None)
        record["AliasTarget"] = {"DNSName": target, "HostedZoneId": "Z2FDTNDATAQYW2"}
        return b

    tr = _tr(body("d1.cloudfront.net"), body("d2.cloudfront.net"))
    (before,) = tr.name_addresses(tr.base, "o.example.com")
    assert (before.kind, before.label) == ("value", "alias d1.cloudfront.net")
    after = tr.name_addresses(tr.head, "o.example.com")
    assert [a.label for a in after] == ["alias d2.cloudfront.net"]
    fate = tr.address_fate(before, after)
    assert fate.status == REMOVED and "no record answers with it" in fate.reasons[0]
    same = _tr(body("d1.cloudfront.net"), body("d1.cloudfront.net"))
    (kept,) = same.name_addresses(same.base, "o.example.com")
    assert same.address_fate(kept, same.name_addresses(same.head, "o.example.com")).status == UNCHANGED


def test_transition_of_shares_one_transition_per_pair_only() -> None:
    from edge_origin.model.transition import transition_of

    a, b, c = (TemplateModel.from_templates({"Edge": world()}) for _ in range(3))
    first = transition_of(a, b)
    assert transition_of(a, b) is first
    for base, head in ((a, c), (c, b), (b, a)):  # one side in common is another pair
        tr = transition_of(base, head)
        assert tr is not first and (tr.base, tr.head) == (base, head)


@pytest.mark.parametrize(("value", "shown"), [
    ({"Pool": "p"}, "{...}"), ([{"Pool": "p"}], "[...]"), (["a", "b"], "a, b"), ("198.51.100.7", "198.51.100.7"),
])
def test_a_replacing_change_shows_nested_values_elided(value: Any, shown: str) -> None:
    head = world()
    res(head, "EipA")["Address"] = value
    assert _status(world(), head, "EipA") == (REPLACED, f"Address unset -> {shown}")


def test_a_nested_create_only_property_replaces_with_its_path() -> None:
    head = world()
    res(head, "CheckA")["HealthCheckConfig"]["Type"] = "HTTP"
    assert _status(world(), head, "CheckA") == (REPLACED, "HealthCheckConfig.Type TCP -> HTTP")


def test_a_conditionally_replacing_property_may_replace() -> None:
    head = world()
    res(head, "SubnetA")["Ipv6CidrBlock"] = "2001:db8::/64"
    status, why = _status(world(), head, "SubnetA")
    assert status == MAY_REPLACE and "Ipv6CidrBlock changed (the schema does not say whether this one replaces)" in why


def test_an_unresolvable_value_inside_a_mapping_may_replace() -> None:
    head = world()
    head["Parameters"] = {"P": {"Type": "String"}}
    res(head, "EipA")["Address"] = {"Pool": {"Ref": "P"}}
    status, why = _status(world(), head, "EipA")
    assert status == MAY_REPLACE and "Address not resolvable from the templates" in why


def test_a_plain_record_keeps_its_identity_when_its_set_identifier_changes() -> None:
    import json

    from edge_origin.review.diff import diff_models, format_diff

    head = world()
    res(head, "RecordA")["SetIdentifier"] = "A2"
    result = diff_models(TemplateModel.from_templates({"Edge": world()}), TemplateModel.from_templates({"Edge": head}))
    changes = [c for c in json.loads(format_diff(result, "json"))["changes"] if c["logical_id"] == "RecordA"]
    assert [(c["field"], c["before"], c["after"]) for c in changes if c["field"] == "set_identifier"] == [("set_identifier", "A", "A2")]
    assert not any(c["field"] == "record" for c in changes)  # one record changed, not one removed and one added


def test_live_in_head() -> None:
    same = _tr(world(), world())
    assert same.live_in_head("o.example.com") is True
    assert same.live_in_head("nobody.example.com") is False  # an origin on neither side
    head = world()
    del head["Resources"]["Dist"]  # base's only distribution using it is gone: the safe clean-up
    assert _tr(world(), head).live_in_head("o.example.com") is False
    moved = world()
    moved["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"][0]["DomainName"] = "p.example.com."
    assert _tr(world(), moved).live_in_head("o.example.com") is False
    assert _tr(world(), moved).live_in_head("p.example.com") is True


def test_a_reference_cycle_ends() -> None:
    # CloudFormation refuses circular dependencies; the diff must still end (no RecursionError)
    def body(vpc: str) -> dict[str, Any]:
        b = world()
        b["Resources"]["SgA"] = {"Type": "AWS::EC2::SecurityGroup",
                                 "Properties": {"GroupDescription": {"Fn::GetAtt": ["SgB", "GroupId"]}, "VpcId": "vpc-1"}}
        b["Resources"]["SgB"] = {"Type": "AWS::EC2::SecurityGroup",
                                 "Properties": {"GroupDescription": {"Fn::GetAtt": ["SgA", "GroupId"]}, "VpcId": vpc}}
        return b

    tr = _tr(body("vpc-1"), body("vpc-2"))
    assert tr.status(("Edge", "SgB")).status == REPLACED
    assert tr.status(("Edge", "SgA")).status in (UNCHANGED, UPDATED, REPLACED)


def test_a_second_distribution_on_the_name_changes_it() -> None:
    head = world()
    head["Resources"]["Dist2"] = world()["Resources"]["Dist"]  # added: the first one stays untouched
    assert _tr(world(), head).name_unchanged("o.example.com") is False


def test_transition_of_keeps_the_last_two_pairs() -> None:
    from edge_origin.model.transition import transition_of

    a, b, c, d, e, f = (TemplateModel.from_templates({"Edge": world()}) for _ in range(6))
    transition_of(a, b)
    second = transition_of(c, d)
    transition_of(e, f)
    assert transition_of(c, d) is second
