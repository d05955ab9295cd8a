"""Edges of model/intrinsics.py: a list with an undecidable item leaves Fn::Equals undecided, a
``${Name}`` in Fn::Sub is a Ref (``${Name.Attr}`` a GetAtt: AWS CloudFormation User Guide, Fn::Sub),
the readable form of an intrinsic this module does not know is cut at 80 characters, and an opaque
intrinsic keeps its argument's text."""

from __future__ import annotations

from typing import Any

import pytest
from test_intrinsics_conditions import decide
from test_intrinsics_values import resolve

from edge_origin.model import ModelError
from edge_origin.model.values import ResourceRef, Unresolved, display_value


@pytest.mark.parametrize("expr", [
    {"Fn::Equals": [[{"Ref": "Free"}], ["x"]]},
    {"Fn::Equals": [["x"], ["x", {"Ref": "Free"}]]},
    {"Fn::Equals": [{"k": {"Ref": "Free"}}, {"k": "x"}]},
])
def test_equals_of_a_structure_with_an_undecidable_item_is_undecided(expr: Any) -> None:
    assert decide(expr) is None


def test_sub_of_a_resource_name_is_its_ref() -> None:
    # a Fn::Sub of one reference and nothing else is that reference's value (issue 36)
    nlb = ResourceRef("Stack", "Nlb", None)
    assert resolve({"Fn::Sub": "${Nlb}"}) == nlb
    dns = ResourceRef("Stack", "Nlb", "DNSName")
    assert resolve({"Fn::Sub": "${Nlb.DNSName}"}) == dns
    assert resolve({"Fn::Sub": "dualstack.${Nlb.DNSName}"}) == dns
    assert resolve({"Fn::Sub": "https://${Nlb.DNSName}"}) == Unresolved("composite", "https://${" + display_value(dns) + "}")


def test_sub_of_a_dotted_name_that_is_no_resource_is_a_ref_to_nothing() -> None:
    with pytest.raises(ModelError, match="Ref to 'Name.x': no such resource or parameter"):
        resolve({"Fn::Sub": "${Name.x}"})


@pytest.mark.parametrize(("length", "shown"), [(79, 79), (80, 80), (81, 80), (200, 80)])
def test_an_unknown_intrinsic_shows_its_argument_up_to_80_characters(length: int, shown: int) -> None:
    out = resolve({"Fn::Future": "x" * length})
    assert out == Unresolved("unknown", "Fn::Future(" + "x" * shown + ")")


@pytest.mark.parametrize(("value", "expr"), [
    ({"Fn::GetAZs": ""}, "Fn::GetAZs()"),
    ({"Fn::GetAZs": {"Ref": "AWS::Region"}}, "Fn::GetAZs(<AWS::Region>)"),
    ({"Fn::Base64": {"Fn::Sub": "${Name}-x"}}, "Fn::Base64(edge-x)"),
])
def test_an_opaque_intrinsic_keeps_its_arguments_text(value: Any, expr: str) -> None:
    assert resolve(value) == Unresolved("other", expr)


@pytest.mark.parametrize(("arg", "expr"), [
    ({"Ref": "Free"}, "Fn::Length(<Ref Free>)"),
    ({"Ref": "Nlb"}, "Fn::Length(Stack/Nlb)"),
])
def test_length_of_an_undecidable_list_is_undecided(arg: Any, expr: str) -> None:
    assert resolve({"Fn::Length": arg}) == Unresolved("other", expr)


@pytest.mark.parametrize("expr", [
    {"Fn::Equals": [{"Ref": "Free"}, "true"]}, {"Fn::Equals": ["true", {"Ref": "Free"}]},
    {"Fn::Equals": [True, {"Ref": "Free"}]}, {"Fn::Equals": [{"Ref": "Free"}, "false"]},
])
def test_equals_with_a_truth_value_beside_an_undecidable_one_is_undecided(expr: Any) -> None:
    assert decide(expr) is None


def test_an_undecidable_if_names_its_condition() -> None:
    assert resolve({"Fn::If": ["Maybe", "then", "else"]}) == Unresolved("condition", "Fn::If Maybe")
    assert resolve({"Fn::Equals": [{"Ref": "Free"}, "a"]}) == Unresolved("condition", "Fn::Equals <Ref Free>, a")
