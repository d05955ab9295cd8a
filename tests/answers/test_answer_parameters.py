"""Routing decided by a Parameter (directly or through a Condition): every allowed value judged;
a finding that holds only for a non-default value names the parameter and the value."""

from __future__ import annotations

import copy

from answer_templates import base, eip, record

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.model.parameters import MAX_CHOICES, routing_choices
from edge_origin.rules import run_rules


def _template(default: str, allowed: list[str] | None = ("multivalue", "weighted")) -> dict:
    body = base()
    spec = {"Type": "String", "Default": default}
    if allowed is not None:
        spec["AllowedValues"] = list(allowed)
    body["Parameters"] = {"Routing": spec}
    body["Conditions"] = {"Weighted": {"Fn::Equals": [{"Ref": "Routing"}, "weighted"]}}
    for i in (0, 2):
        body["Resources"][f"Rec{i}"] = record(
            SetIdentifier=f"s{i}",
            ResourceRecords=[eip(i)],
            HealthCheckId={"Ref": f"Check{i}"},
            Weight={"Fn::If": ["Weighted", 1, {"Ref": "AWS::NoValue"}]},
            MultiValueAnswer={"Fn::If": ["Weighted", {"Ref": "AWS::NoValue"}, True]},
        )
    return body


def _dns1(body: dict) -> list:
    return [f for f in run_rules(TemplateModel.from_templates({"S": body})) if f.rule == "EO-DNS1"]


def test_the_other_allowed_value_is_judged_and_named() -> None:
    findings = _dns1(_template("multivalue"))
    assert {f.resource for f in findings} == {"Rec0", "Rec2"}
    assert all(f.severity is Severity.ERROR for f in findings)
    assert all("(only with parameter Routing=weighted in stack S (default multivalue))" in f.message for f in findings)


def test_the_default_value_is_judged_without_naming_a_parameter() -> None:
    findings = _dns1(_template("weighted"))
    assert {f.resource for f in findings} == {"Rec0", "Rec2"} and not any("only with" in f.message for f in findings)


def test_no_allowed_values_means_no_choice_to_judge() -> None:
    assert _dns1(_template("multivalue", allowed=None)) == []
    assert _dns1(_template("multivalue", allowed=["multivalue"])) == []


def test_parameters_outside_routing_are_not_choices() -> None:
    body = _template("multivalue")
    body["Parameters"]["Unrelated"] = {"Type": "String", "Default": "a", "AllowedValues": ["a", "b"]}
    model = TemplateModel.from_templates({"S": body})
    assert [(c.parameter, c.value) for c in routing_choices(model.templates)[0]] == [("Routing", "weighted")]


def test_choices_are_bounded() -> None:
    body = _template("multivalue", allowed=["multivalue", "weighted", *[f"v{i}" for i in range(40)]])
    choices, left_out = routing_choices(TemplateModel.from_templates({"S": copy.deepcopy(body)}).templates)
    assert len(choices) == MAX_CHOICES and left_out == 41 - MAX_CHOICES


def test_a_resource_condition_decided_by_the_parameter_is_judged_too() -> None:
    body = base()
    body["Parameters"] = {"Mode": {"Type": "String", "Default": "spread", "AllowedValues": ["spread", "pinned"]}}
    body["Conditions"] = {"Pinned": {"Fn::Equals": [{"Ref": "Mode"}, "pinned"]}, "Spread": {"Fn::Not": [{"Condition": "Pinned"}]}}
    for i in (0, 2):
        spread = record(SetIdentifier=f"m{i}", MultiValueAnswer=True, ResourceRecords=[eip(i)], HealthCheckId={"Ref": f"Check{i}"})
        spread["Condition"] = "Spread"
        pinned = record(SetIdentifier=f"w{i}", Weight=1, ResourceRecords=[eip(i)], HealthCheckId={"Ref": f"Check{i}"})
        pinned["Condition"] = "Pinned"
        body["Resources"][f"Spread{i}"], body["Resources"][f"Pinned{i}"] = spread, pinned
    findings = _dns1(body)
    assert {f.resource for f in findings} == {"Pinned0", "Pinned2"}
    assert all("only with parameter Mode=pinned" in f.message for f in findings)
