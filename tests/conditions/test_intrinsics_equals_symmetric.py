"""Fn::Equals compares two values, and which one comes first does not matter (AWS CloudFormation
User Guide, "Condition functions": Fn::Equals "Compares if two values are equal"). Scalars compare
by their string forms (``true`` equals ``"true"``, 1 equals ``"1"``); a list or a mapping equals only
the same structure, never a string that prints like it, on either side."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_intrinsics_conditions import decide

PAIRS: list[tuple[Any, Any, bool]] = [
    ("a", "a", True), ("a", "b", False),
    (True, "true", True), (False, "true", False), (1, "1", True), (1.5, "1.5", True), (2, 3, False),
    (["a"], ["a"], True), (["a"], ["a", "b"], False),
    (["a"], "['a']", False), (["a"], "a", False),
    ({"k": "v"}, {"k": "v"}, True), ({"k": "v"}, {"k": "w"}, False),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),  # a mapping has no key order
    ({"k": "v"}, "{'k': 'v'}", False), ({"k": "v"}, ["k"], False),
]


@pytest.mark.parametrize(("a", "b", "want"), PAIRS)
def test_equals_either_way_round(a: Any, b: Any, want: bool) -> None:
    assert (decide({"Fn::Equals": [a, b]}), decide({"Fn::Equals": [b, a]})) == (want, want)


_scalars = st.one_of(st.booleans(), st.integers(-3, 3), st.sampled_from(["a", "1", "true", "['a']", "{'k': 'a'}"]))
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=2), st.dictionaries(st.sampled_from(["k", "z"]), inner, max_size=2)),
    max_leaves=4,
)


@settings(max_examples=200, deadline=None, database=None)
@given(a=_values, b=_values)
def test_equals_does_not_depend_on_the_order_of_its_values(a: Any, b: Any) -> None:
    assert decide({"Fn::Equals": [a, b]}) is decide({"Fn::Equals": [b, a]})
