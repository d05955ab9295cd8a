"""Condition functions of model/intrinsics.py: Fn::And / Fn::Or / Fn::Not / Fn::Equals / Condition,
values given as the strings "true"/"false", three-valued logic when a condition cannot be decided,
and the arity bounds CloudFormation sets (Fn::Not: 1; Fn::And/Fn::Or: 2 to 10; Fn::Equals: 2).

Reference: AWS CloudFormation User Guide, "Condition functions" (Fn::And "a minimum of 2 conditions
and a maximum of 10"; Fn::Not "a condition that evaluates to true or false"; Fn::Or likewise)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.model import ModelError
from edge_origin.model.intrinsics import StackResolver
from edge_origin.model.values import Unresolved

TRUE: dict[str, Any] = {"Fn::Equals": ["a", "a"]}
FALSE: dict[str, Any] = {"Fn::Equals": ["a", "b"]}
UNKNOWN: dict[str, Any] = {"Fn::Equals": [{"Ref": "Free"}, "x"]}  # a parameter without a default
LEAVES = {True: TRUE, False: FALSE, None: UNKNOWN}


def decide(expr: Any, **defaults: str) -> bool | None:
    """The value of a condition ``C`` defined as ``expr`` (parameters P... with the given defaults)."""
    params: dict[str, Any] = {"Free": {"Type": "String"}}
    params.update({name: {"Type": "String", "Default": value} for name, value in defaults.items()})
    body = {"Parameters": params, "Conditions": {"C": expr}, "Resources": {}}
    resolver = StackResolver("S", "t.json", body, lambda name: Unresolved("import", name))
    return resolver.condition("C")


# --- Fn::And ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 10])
def test_and_with_every_condition_true_is_true(n: int) -> None:
    assert decide({"Fn::And": [TRUE] * n}) is True


@pytest.mark.parametrize("n", [2, 10])
def test_and_with_one_false_is_false_wherever_it_is(n: int) -> None:
    outcomes = [decide({"Fn::And": [FALSE if j == i else TRUE for j in range(n)]}) for i in range(n)]
    assert outcomes == [False] * n


@pytest.mark.parametrize("expr", [
    {"Fn::Equals": [{"Ref": "Free"}, "x"]}, {"Fn::Equals": ["x", {"Ref": "Free"}]},
    {"Fn::Equals": [{"Ref": "Free"}, {"Ref": "Free"}]},
])
def test_equals_with_an_undecided_side_is_undecided(expr: Any) -> None:
    assert decide(expr) is None


def test_and_with_an_undecided_condition_is_undecided_unless_one_is_false() -> None:
    assert decide({"Fn::And": [TRUE, UNKNOWN]}) is None
    assert decide({"Fn::And": [UNKNOWN, FALSE]}) is False


# --- Fn::Or ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 10])
def test_or_with_every_condition_false_is_false(n: int) -> None:
    assert decide({"Fn::Or": [FALSE] * n}) is False


def test_or_with_one_true_is_true_and_undecided_only_without_one() -> None:
    assert decide({"Fn::Or": [FALSE, TRUE]}) is True
    assert decide({"Fn::Or": [UNKNOWN, TRUE]}) is True
    assert decide({"Fn::Or": [FALSE, UNKNOWN]}) is None


# --- Fn::Not -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("inner", "want"), [(TRUE, False), (FALSE, True), (UNKNOWN, None)])
def test_not(inner: Any, want: bool | None) -> None:
    assert decide({"Fn::Not": [inner]}) is want


# --- "true" / "false" as strings ---------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "want"), [("true", True), ("false", False), ("TRUE", True), ("False", False)])
def test_string_truth_values_from_a_parameter(text: str, want: bool) -> None:
    assert decide({"Fn::And": [{"Ref": "P"}, TRUE]}, P=text) is want
    assert decide({"Fn::Or": [{"Ref": "P"}, FALSE]}, P=text) is want
    assert decide({"Fn::Not": [{"Ref": "P"}]}, P=text) is (not want)


@pytest.mark.parametrize("text", ["yes", "1", "", "truthy"])
def test_other_strings_are_no_truth_value(text: str) -> None:
    assert decide({"Fn::And": [{"Ref": "P"}, TRUE]}, P=text) is None
    assert decide({"Fn::Not": [{"Ref": "P"}]}, P=text) is None


def test_literal_string_conditions() -> None:
    assert decide({"Fn::And": ["true", "True"]}) is True
    assert decide({"Fn::Or": ["false", "FALSE"]}) is False


# --- the Condition reference ---------------------------------------------------------------------------------
def test_a_condition_may_name_another_and_a_cycle_is_undecided() -> None:
    body = {"Conditions": {"A": TRUE, "B": {"Fn::Not": [{"Condition": "A"}]}, "X": {"Fn::Not": [{"Condition": "X"}]}},
            "Resources": {}}
    resolver = StackResolver("S", "t.json", body, lambda name: Unresolved("import", name))
    assert resolver.condition("A") is True and resolver.condition("B") is False
    assert resolver.condition("X") is None
    with pytest.raises(ModelError, match="Condition 'Nope' is not defined"):
        resolver.condition("Nope")


# --- arity bounds -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 2, 3])
def test_not_takes_exactly_one(n: int) -> None:
    with pytest.raises(ModelError, match="Fn::Not needs a list of one condition"):
        decide({"Fn::Not": [TRUE] * n})


@pytest.mark.parametrize("fn", ["Fn::And", "Fn::Or"])
@pytest.mark.parametrize("n", [0, 1, 11, 12])
def test_and_or_take_2_to_10(fn: str, n: int) -> None:
    with pytest.raises(ModelError, match=f"{fn} needs 2 to 10 conditions, got {n}"):
        decide({fn: [TRUE] * n})


@pytest.mark.parametrize("fn", ["Fn::And", "Fn::Or"])
@pytest.mark.parametrize("n", [2, 10])
def test_and_or_accept_the_bounds(fn: str, n: int) -> None:
    assert decide({fn: [TRUE] * n}) is True


@pytest.mark.parametrize("fn", ["Fn::And", "Fn::Or", "Fn::Not", "Fn::Equals"])
def test_a_condition_function_needs_a_list(fn: str) -> None:
    with pytest.raises(ModelError, match=f"{fn} needs a list"):
        decide({fn: "true"})


@pytest.mark.parametrize("n", [1, 3])
def test_equals_takes_two(n: int) -> None:
    with pytest.raises(ModelError, match="Fn::Equals needs two values"):
        decide({"Fn::Equals": ["a"] * n})


def test_errors_name_the_template_and_the_resource() -> None:
    body = {"Conditions": {"C": {"Fn::Not": []}}, "Resources": {}}
    resolver = StackResolver("S", "t.json", body, lambda name: Unresolved("import", name))
    with pytest.raises(ModelError, match=r"^t\.json: Res: Fn::Not"):
        resolver.condition_for("C", "Res")


# --- generated: three-valued (Kleene) logic over any tree ---------------------------------------------------
def _kleene(op: str, values: list[bool | None]) -> bool | None:
    if op == "Fn::Not":
        return None if values[0] is None else not values[0]
    absorbing = op == "Fn::Or"  # True absorbs Or, False absorbs And
    if absorbing in values:
        return absorbing
    return None if None in values else not absorbing


def _trees() -> st.SearchStrategy[tuple[Any, bool | None]]:
    leaves = st.sampled_from(sorted(LEAVES.items(), key=repr)).map(lambda kv: (kv[1], kv[0]))

    def extend(children: st.SearchStrategy[tuple[Any, bool | None]]) -> st.SearchStrategy[tuple[Any, bool | None]]:
        def node(op: str, kids: list[tuple[Any, bool | None]]) -> tuple[Any, bool | None]:
            return {op: [k[0] for k in kids]}, _kleene(op, [k[1] for k in kids])

        return st.one_of(
            st.builds(node, st.just("Fn::Not"), st.lists(children, min_size=1, max_size=1)),
            st.builds(node, st.sampled_from(["Fn::And", "Fn::Or"]), st.lists(children, min_size=2, max_size=10)),
        )

    return st.recursive(leaves, extend, max_leaves=25)


@settings(max_examples=150, deadline=None, database=None)
@given(tree=_trees())
def test_any_condition_tree_follows_three_valued_logic(tree: tuple[Any, bool | None]) -> None:
    expr, want = tree
    assert decide(expr) is want
