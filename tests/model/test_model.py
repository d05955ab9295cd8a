"""The template model: loading, intrinsics, names, typed views."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_origin.model import (
    ModelError,
    ResourceRef,
    TemplateModel,
    Unresolved,
    load_model,
    model_from_text,
    normalize_name,
)

WORLD = Path(__file__).parents[1] / "fixtures" / "templates" / "world"


@pytest.fixture(scope="module")
def world() -> TemplateModel:
    return load_model([WORLD / "Origins.yaml", WORLD / "Edge.json"])


def test_normalize_name() -> None:
    assert normalize_name("Origin.Example.COM.") == "origin.example.com"
    assert normalize_name(ResourceRef("S", "X")) is None


def test_world_stacks_and_indexes(world: TemplateModel) -> None:
    assert world.stacks == ["Origins", "Edge"]
    assert len(world.of_type("AWS::EC2::EIP")) == 3
    res = world.resource("Edge", "Distribution")
    assert res is not None and res.path == "Edge/Distribution/Resource"
    assert world.resource("Edge", "Nope") is None


def test_records_group_members_and_names(world: TemplateModel) -> None:
    records = world.record_sets("ORIGIN.example.com.")
    assert [r.label for r in records] == ["RecordA", "RecordsBC[0]", "RecordsBC[1]"]
    assert {r.routing_policy for r in records} == {"multivalue"}
    assert [r.ttl for r in records] == [60, 60, 60]
    assert records[1].values == [ResourceRef("Origins", "EipB", "PublicIp")]
    assert records[0].health_check is not None and records[0].health_check.port == 443
    assert records[1].health_check is not None and records[1].health_check.resource.logical_id == "CheckB"
    assert records[0].hosted_zone_name == "example.com"


def test_eips_attach_to_nlbs_with_zones(world: TemplateModel) -> None:
    zones = {e.resource.logical_id: e.zone for e in world.eips}
    assert zones == {"EipA": "us-east-1a", "EipB": "us-east-1b", "EipC": "us-east-1c"}
    lbs = world.load_balancers_for_name("origin.example.com")
    assert [lb.resource.logical_id for lb in lbs] == ["NlbA", "NlbB", "NlbC"]
    assert all(lb.is_network and lb.cross_zone for lb in lbs)


def test_listeners_and_security_groups(world: TemplateModel) -> None:
    assert [(li.idle_timeout, li.target_groups[0].resource.logical_id) for li in world.listeners] == [
        (350, "Targets")
    ] * 3
    assert world.target_groups[0].connection_termination is True
    (sg,) = world.security_groups
    assert [(r.prefix_list_id, r.cidr_ip) for r in sg.ingress] == [("pl-3b927c52", None), (None, "0.0.0.0/0")]


def test_import_value_across_stacks_and_grpc_origin(world: TemplateModel) -> None:
    (dist,) = world.distributions
    assert dist.origins[0].domain_name == "origin.example.com"
    assert world.origin_names() == {"origin.example.com": "grpc"}


def test_intrinsics_resolution() -> None:
    model = model_from_text(
        json.dumps(
            {
                "Parameters": {"P": {"Type": "String"}, "L": {"Type": "CommaDelimitedList", "Default": "a, b"}},
                "Conditions": {"Yes": {"Fn::Equals": [{"Fn::Select": [1, {"Ref": "L"}]}, "b"]}, "Maybe": {"Fn::Equals": [{"Ref": "P"}, "x"]}},
                "Resources": {
                    "R": {
                        "Type": "X::Y",
                        "Properties": {
                            "Sub": {"Fn::Sub": ["${A}-${AWS::StackName}-${!Lit}", {"A": "a"}]},
                            "Join": {"Fn::Join": ["-", [{"Ref": "P"}, "x"]]},
                            "If": {"Fn::If": ["Yes", "yes", "no"]},
                            "IfUnknown": {"Fn::If": ["Maybe", "yes", "no"]},
                            "NoValue": {"Ref": "AWS::NoValue"},
                            "Region": {"Ref": "AWS::Region"},
                            "Att": {"Fn::GetAtt": "R.Arn"},
                            "Import": {"Fn::ImportValue": "nowhere"},
                            "Split": {"Fn::Split": [",", "a,b"]},
                        },
                    }
                },
            }
        ),
        stack="S",
    )
    props = model.resource("S", "R").properties
    assert props["Sub"] == "a-S-${Lit}"
    assert props["Join"] == Unresolved("composite", "${<Ref P>}-x")
    assert props["If"] == "yes"
    assert isinstance(props["IfUnknown"], Unresolved) and props["IfUnknown"].reason == "condition"
    assert "NoValue" not in props
    assert props["Region"] == Unresolved("pseudo", "AWS::Region")
    assert props["Att"] == ResourceRef("S", "R", "Arn")
    assert props["Import"].reason == "import"
    assert props["Split"] == ["a", "b"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"Resources": {"R": {"Type": "X", "Properties": {"A": {"Fn::GetAtt": 7}}}}}, "R: Fn::GetAtt needs"),
        ({"Resources": {"R": {"Type": "X", "Properties": {"A": {"Ref": "Missing"}}}}}, "R: Ref to 'Missing'"),
        ({"Resources": {"R": {"Type": "X", "Properties": {"A": {"Fn::GetAtt": ["Missing", "Arn"]}}}}}, "R: Fn::GetAtt of 'Missing'"),
        ({"Resources": {}}, "no resources"),
        ({"Resources": {"R": {"Properties": {}}}}, "R: no Type"),
    ],
)
def test_bad_templates_raise_model_error(body: dict, message: str) -> None:
    with pytest.raises(ModelError, match=message) as info:
        TemplateModel.from_templates({"S": body})
    assert str(info.value).startswith("S.template.json: ")
    assert "\n" not in str(info.value)


def test_resource_with_false_condition_is_skipped() -> None:
    body = {
        "Parameters": {"Weighted": {"Type": "String", "Default": "no"}, "Env": {"Type": "String"}},
        "Conditions": {"IsWeighted": {"Fn::Equals": [{"Ref": "Weighted"}, "yes"]}, "Unknown": {"Fn::Equals": [{"Ref": "Env"}, "prod"]}},
        "Resources": {
            "Old": {"Type": "AWS::Route53::RecordSet", "Condition": "IsWeighted", "Properties": {"Name": "a.example.com", "Type": "A", "Weight": 1}},
            "Maybe": {"Type": "AWS::Route53::RecordSet", "Condition": "Unknown", "Properties": {"Name": "a.example.com", "Type": "A"}},
        },
    }
    model = TemplateModel.from_templates({"S": body})
    assert model.skipped == [("S", "Old")]
    assert [r.logical_id for r in model.record_sets("a.example.com")] == ["Maybe"]
    assert model.resource("S", "Maybe").condition == "Unknown"


def test_import_value_cycle_and_missing_export_stay_unresolved() -> None:
    a = {
        "Resources": {"R": {"Type": "X", "Properties": {"V": {"Fn::ImportValue": "b-out"}}}},
        "Outputs": {"O": {"Value": {"Fn::ImportValue": "b-out"}, "Export": {"Name": "a-out"}}},
    }
    b = {
        "Resources": {"R": {"Type": "X", "Properties": {"V": {"Fn::ImportValue": "a-out"}, "W": {"Fn::ImportValue": "zzz"}}}},
        "Outputs": {"O": {"Value": {"Fn::ImportValue": "a-out"}, "Export": {"Name": "b-out"}}},
    }
    model = TemplateModel.from_templates({"A": a, "B": b})
    assert isinstance(model.resource("A", "R").properties["V"], Unresolved)
    assert model.resource("B", "R").properties["W"] == Unresolved("import", "Fn::ImportValue zzz")
