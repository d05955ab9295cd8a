"""Value intrinsics of model/intrinsics.py pinned case by case (StackResolver.resolve): what resolves,
to what, what stays Unresolved (and why), and the one-line ModelError for a wrong shape."""

from __future__ import annotations

from typing import Any

import pytest

from edge_origin.model import ModelError
from edge_origin.model.intrinsics import StackResolver
from edge_origin.model.values import ResourceRef, Unresolved

BODY: dict[str, Any] = {
    "Parameters": {
        "Name": {"Type": "String", "Default": "edge"},
        "Free": {"Type": "String"},
        "Zones": {"Type": "List<AWS::EC2::AvailabilityZone::Name>", "Default": "us-east-1a, us-east-1b"},
        "Cidrs": {"Type": "CommaDelimitedList", "Default": "10.0.0.0/16,10.1.0.0/16"},
        "Plain": {"Type": "String", "Default": "a,b"},
        "Port": {"Type": "Number", "Default": 443},
        "Ami": {"Type": "AWS::SSM::Parameter::Value<String>", "Default": "/aws/ami"},
    },
    "Mappings": {"Region": {"us-east-1": {"Zone": "a"}}},
    "Conditions": {"Yes": {"Fn::Equals": ["a", "a"]}, "No": {"Fn::Equals": ["a", "b"]},
                   "Maybe": {"Fn::Equals": [{"Ref": "Free"}, "a"]}},
    "Resources": {"Nlb": {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": {}}},
}


def resolve(value: Any, body: dict[str, Any] | None = None) -> Any:
    resolver = StackResolver("Stack", "t.json", body or BODY, lambda name: {"exported": "yes"}.get(name, Unresolved("import", name)))
    return resolver.resolve(value, "Res")


# --- Ref -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "want"), [
    ("Name", "edge"),
    ("Port", 443),
    ("Zones", ["us-east-1a", "us-east-1b"]),
    ("Cidrs", ["10.0.0.0/16", "10.1.0.0/16"]),
    ("Plain", "a,b"),  # a String default with commas stays one string
    ("AWS::StackName", "Stack"),
    ("AWS::URLSuffix", "amazonaws.com"),
])
def test_ref_resolves(name: str, want: Any) -> None:
    assert resolve({"Ref": name}) == want


def test_ref_to_a_resource_is_a_resource_ref() -> None:
    assert resolve({"Ref": "Nlb"}) == ResourceRef("Stack", "Nlb", None)


@pytest.mark.parametrize(("name", "reason"), [("Free", "parameter"), ("Ami", "parameter"), ("AWS::Region", "pseudo")])
def test_ref_undecided(name: str, reason: str) -> None:
    out = resolve({"Ref": name})
    assert isinstance(out, Unresolved) and out.reason == reason


def test_ref_to_nothing_is_an_error_naming_it() -> None:
    with pytest.raises(ModelError, match=r"t\.json: Res: Ref to 'Nope': no such resource or parameter"):
        resolve({"Ref": "Nope"})
    with pytest.raises(ModelError, match="Ref needs a name"):
        resolve({"Ref": ["x"]})


def test_no_value_drops_the_key_and_the_item() -> None:
    assert resolve({"A": {"Ref": "AWS::NoValue"}, "B": 1}) == {"B": 1}
    assert resolve([1, {"Ref": "AWS::NoValue"}, 2]) == [1, 2]
    assert resolve({"Ref": "AWS::NoValue"}) is None


# --- GetAtt ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("arg", [["Nlb", "DNSName"], "Nlb.DNSName", ["Nlb", {"Ref": "AttName"}]])
def test_getatt_forms(arg: Any) -> None:
    body = {**BODY, "Parameters": {**BODY["Parameters"], "AttName": {"Type": "String", "Default": "DNSName"}}}
    assert resolve({"Fn::GetAtt": arg}, body) == ResourceRef("Stack", "Nlb", "DNSName")


def test_getatt_errors_and_unknowns() -> None:
    with pytest.raises(ModelError, match="Fn::GetAtt of 'Nope': no such resource"):
        resolve({"Fn::GetAtt": ["Nope", "Arn"]})
    with pytest.raises(ModelError, match=r"Fn::GetAtt needs \[LogicalId, Attribute\]"):
        resolve({"Fn::GetAtt": ["Nlb"]})
    out = resolve({"Fn::GetAtt": ["Nlb", {"Ref": "Free"}]})
    assert isinstance(out, Unresolved) and out.reason == "other"


# --- Sub / Join / Select / Split ----------------------------------------------------------------------------
@pytest.mark.parametrize(("arg", "want"), [
    ("${Name}-x", "edge-x"),
    ("${!Literal}", "${Literal}"),
    (["${A}-${Name}", {"A": "z"}], "z-edge"),
    (["${A}", {"A": 7}], "7"),
    ("no vars", "no vars"),
])
def test_sub(arg: Any, want: str) -> None:
    assert resolve({"Fn::Sub": arg}) == want


def test_sub_with_a_resource_is_composite() -> None:
    out = resolve({"Fn::Sub": "${Nlb.DNSName}:443"})
    assert isinstance(out, Unresolved) and out.reason == "composite" and out.expr.endswith(":443")
    with pytest.raises(ModelError, match="Fn::Sub needs a string or"):
        resolve({"Fn::Sub": ["x"]})


@pytest.mark.parametrize(("arg", "want"), [
    ([",", ["a", "b", "c"]], "a,b,c"),
    (["", ["a", 1]], "a1"),
    (["-", []], ""),
    (["-", ["only"]], "only"),
])
def test_join(arg: Any, want: str) -> None:
    assert resolve({"Fn::Join": arg}) == want


def test_join_undecided_and_bad() -> None:
    for arg in ([{"Ref": "Free"}, ["a"]], ["-", {"Ref": "Free"}], ["-", ["a", {"Ref": "Nlb"}]]):
        assert isinstance(resolve({"Fn::Join": arg}), Unresolved), arg
    with pytest.raises(ModelError, match="Fn::Join needs"):
        resolve({"Fn::Join": ["-"]})


@pytest.mark.parametrize(("index", "want"), [(0, "a"), (2, "c"), ("1", "b")])
def test_select(index: Any, want: str) -> None:
    assert resolve({"Fn::Select": [index, ["a", "b", "c"]]}) == want


@pytest.mark.parametrize("index", [3, -1])
def test_select_out_of_range_is_an_error(index: int) -> None:
    with pytest.raises(ModelError, match=f"Fn::Select index {index} out of range"):
        resolve({"Fn::Select": [index, ["a", "b", "c"]]})


def test_select_undecided_and_bad() -> None:
    assert isinstance(resolve({"Fn::Select": [{"Ref": "Free"}, ["a"]]}), Unresolved)
    assert isinstance(resolve({"Fn::Select": [0, {"Fn::GetAZs": ""}]}), Unresolved)
    with pytest.raises(ModelError, match="Fn::Select needs"):
        resolve({"Fn::Select": [0]})


def test_split() -> None:
    assert resolve({"Fn::Split": [",", "a,b"]}) == ["a", "b"]
    assert resolve({"Fn::Select": [1, {"Fn::Split": [",", {"Ref": "Plain"}]}]}) == "b"
    assert isinstance(resolve({"Fn::Split": ["", "ab"]}), Unresolved)  # an empty delimiter decides nothing
    assert isinstance(resolve({"Fn::Split": [",", {"Ref": "Free"}]}), Unresolved)
    with pytest.raises(ModelError, match="Fn::Split needs"):
        resolve({"Fn::Split": [","]})


# --- FindInMap / If / ImportValue --------------------------------------------------------------------------
def test_find_in_map() -> None:
    assert resolve({"Fn::FindInMap": ["Region", "us-east-1", "Zone"]}) == "a"
    assert resolve({"Fn::FindInMap": ["Region", "eu-west-1", "Zone", {"DefaultValue": "d"}]}) == "d"
    with pytest.raises(ModelError, match="Fn::FindInMap: no entry Region/eu-west-1/Zone"):
        resolve({"Fn::FindInMap": ["Region", "eu-west-1", "Zone"]})
    with pytest.raises(ModelError, match=r"Fn::FindInMap needs \[map, key, key\]"):
        resolve({"Fn::FindInMap": ["Region", "us-east-1"]})
    assert isinstance(resolve({"Fn::FindInMap": ["Region", {"Ref": "AWS::Region"}, "Zone"]}), Unresolved)


@pytest.mark.parametrize(("condition", "want"), [("Yes", "then"), ("No", "else")])
def test_if(condition: str, want: str) -> None:
    assert resolve({"Fn::If": [condition, "then", "else"]}) == want


def test_if_undecided_and_bad() -> None:
    out = resolve({"Fn::If": ["Maybe", "then", "else"]})
    assert isinstance(out, Unresolved) and out.reason == "condition"
    for bad in (["Yes", "then"], [["Yes"], "a", "b"], "Yes"):
        with pytest.raises(ModelError, match=r"Fn::If needs \[condition, then, else\]"):
            resolve({"Fn::If": bad})


def test_import_value() -> None:
    assert resolve({"Fn::ImportValue": "exported"}) == "yes"
    assert resolve({"Fn::ImportValue": {"Fn::Sub": "${Name}-out"}}) == Unresolved("import", "edge-out")
    assert isinstance(resolve({"Fn::ImportValue": {"Ref": "Free"}}), Unresolved)


# --- Equals on mixed types (CloudFormation compares the string forms) ----------------------------------------
@pytest.mark.parametrize(("a", "b", "want"), [
    (True, "true", True), (False, "false", True), (True, "false", False), (1, "1", True), (443, {"Ref": "Port"}, True),
    (["a"], ["a"], True), (["a"], ["b"], False),
    (["a"], "['a']", False),  # a list never equals a string, whatever it prints as
    ("['a']", ["a"], False),  # ... on either side: Fn::Equals is symmetric
])
def test_equals_compares_text(a: Any, b: Any, want: bool) -> None:
    assert resolve({"Fn::If": ["C", "yes", "no"]}, {**BODY, "Conditions": {"C": {"Fn::Equals": [a, b]}}}) == ("yes" if want else "no")


# --- Length / ToJsonString / opaque / unknown ----------------------------------------------------------------
def test_length_and_to_json_string() -> None:
    assert resolve({"Fn::Length": [1, 2, 3]}) == 3
    assert resolve({"Fn::Length": []}) == 0
    assert isinstance(resolve({"Fn::Length": {"Ref": "Free"}}), Unresolved)
    with pytest.raises(ModelError, match="Fn::Length needs a list"):
        resolve({"Fn::Length": "abc"})
    assert resolve({"Fn::ToJsonString": {"a": [1, "b"]}}) == '{"a":[1,"b"]}'
    assert resolve({"Fn::ToJsonString": {"a": {"Ref": "Nlb"}}}) == Unresolved("other", "Fn::ToJsonString(...)")
    with pytest.raises(ModelError, match="Fn::ToJsonString needs a mapping or a list"):
        resolve({"Fn::ToJsonString": "x"})


@pytest.mark.parametrize("fn", ["Fn::Base64", "Fn::GetAZs", "Fn::Cidr"])
def test_opaque_intrinsics_are_unresolved_other(fn: str) -> None:
    out = resolve({fn: "x"})
    assert isinstance(out, Unresolved) and out.reason == "other" and out.expr.startswith(fn)


def test_unknown_intrinsics() -> None:
    out = resolve({"Fn::Future": {"Ref": "Name"}})
    assert isinstance(out, Unresolved) and out.reason == "unknown" and out.expr == "Fn::Future(edge)"
    # a one-key mapping that is no Ref/Condition/Fn:: is a plain mapping
    assert resolve({"Fn:Typo": {"Ref": "Name"}}) == {"Fn:Typo": "edge"}


def test_a_property_named_condition_is_not_the_intrinsic() -> None:
    assert resolve({"Condition": {"Key": "v"}}) == {"Condition": {"Key": "v"}}
    assert resolve({"Condition": "Yes"}) is True


def _nested(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


def test_nesting_deeper_than_the_limit_is_an_error() -> None:
    # n nested lists: the innermost is resolved at depth n - 1; the documented limit is 100 levels
    assert resolve(_nested(101)) == _nested(101)
    with pytest.raises(ModelError, match="nested deeper than 100 levels"):
        resolve(_nested(102))


def _nested_intrinsic(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = {"Fn::Base64": value}
    return value


def test_each_intrinsic_counts_one_level() -> None:
    assert isinstance(resolve(_nested_intrinsic(100)), Unresolved)
    with pytest.raises(ModelError, match="nested deeper than 100 levels"):
        resolve(_nested_intrinsic(101))


def _nested_dicts(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = {"a": value}
    return value


def test_scalars_do_not_count_a_level() -> None:
    # 101 nested mappings: the innermost mapping is at depth 100, its plain value is not resolved
    assert resolve(_nested_dicts(101)) == _nested_dicts(101)
    with pytest.raises(ModelError, match="nested deeper than 100 levels"):
        resolve(_nested_dicts(102))


def test_a_condition_is_resolved_from_depth_zero() -> None:
    from test_intrinsics_conditions import decide

    assert decide({"Fn::Equals": [_nested(99), "a"]}) is False
    with pytest.raises(ModelError, match="nested deeper than 100 levels"):
        decide({"Fn::Equals": [_nested(100), "a"]})


def test_unchanged_values_are_returned_as_they_are() -> None:
    value = {"a": [1, {"b": "c"}], "d": "e"}
    assert resolve(value) is value
    mixed = {"a": 1, "b": {"Ref": "Name"}, "c": 2}
    assert resolve(mixed) == {"a": 1, "b": "edge", "c": 2}
    assert resolve([1, {"Ref": "Name"}, 3]) == [1, "edge", 3]


def test_a_bad_argument_is_quoted_up_to_60_characters() -> None:
    fits = "x" * 58  # repr: 60 characters
    with pytest.raises(ModelError) as exc:
        resolve({"Fn::If": fits})
    assert str(exc.value).endswith(f"got {fits!r}")
    longer = "x" * 59  # repr: 61 characters -> 57 and an ellipsis
    with pytest.raises(ModelError) as exc:
        resolve({"Fn::If": longer})
    assert str(exc.value).endswith(f"got {repr(longer)[:57]}...")
