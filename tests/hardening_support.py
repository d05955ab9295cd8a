"""Shared by the test_hardening_* modules: JSON-value strategies and the example budget."""

from __future__ import annotations

from typing import Any

from hypothesis import settings
from hypothesis import strategies as st


def examples(n: int) -> int:
    """``n`` examples normally; the loaded profile's count when it asks for more
    (``pytest --hypothesis-profile=deep``)."""
    loaded = settings.default.max_examples
    return loaded if loaded > 100 else n


INTRINSICS = (
    "Ref", "Condition", "Fn::GetAtt", "Fn::Sub", "Fn::Join", "Fn::If", "Fn::Select", "Fn::Split", "Fn::FindInMap",
    "Fn::ImportValue", "Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or", "Fn::Length", "Fn::ToJsonString", "Fn::Base64",
    "Fn::GetAZs", "Fn::Cidr", "Fn::GetStackOutput", "Fn::NoSuchFunction", "Fn::ForEach::Loop",
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([0, -1, 2**63, 10**400, 1.5, 1e308])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=6)
    | st.sampled_from(["", "true", "false", "network", "A", "TCP", "AWS::NoValue", "AWS::Region", "é☃\u202e", "x" * 300])
)

json_values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)

malformed_intrinsics = st.builds(lambda name, arg: {name: arg}, st.sampled_from(INTRINSICS), json_values)

# Well-formed values the templates cannot resolve: the model reads them as Unresolved.
unresolvable = st.sampled_from(
    [
        {"Ref": "AWS::Region"},
        {"Ref": "AWS::AccountId"},
        {"Fn::GetAZs": ""},
        {"Fn::ImportValue": "not-exported"},
        {"Fn::Base64": "x"},
        {"Fn::GetStackOutput": {"StackName": "s", "OutputName": "o"}},
        {"Fn::NoSuchFunction": [1]},
        {"Fn::Join": ["", [{"Ref": "AWS::Region"}, "x"]]},
        {"Fn::Sub": "${AWS::Region}.example.com"},
        [{"Ref": "AWS::Region"}],
    ]
)

replacements = json_values | malformed_intrinsics | unresolvable


def all_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (keys and list indices) inside ``value``, the root excluded."""
    out: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            out.append((*prefix, key))
            out.extend(all_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out.append((*prefix, i))
            out.extend(all_paths(item, (*prefix, i)))
    return out


def set_path(body: Any, path: tuple[Any, ...], value: Any) -> None:
    target = body
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
