"""Bounded work for any template (issue 50): intrinsic evaluation is memoised and budgeted in
steps and characters, Mappings are never evaluated, Fn::ForEach is capped at CloudFormation's
500 resources, YAML aliases are counted in characters, the duplicate-key message is linear.

Only bounds that cannot flake are asserted: step counts, the budget errors, the exact flag named.
The timings are printed by ``benchmarks/bench_hostile.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.core.limits import current, using
from edge_origin.model import ModelError
from edge_origin.model.intrinsics import StackResolver
from edge_origin.model.loader import parse_template_text
from edge_origin.model.values import Unresolved
from tests import hostile_support as hostile
from tests.hardening_support import examples


def _resolver(body: dict[str, Any]) -> StackResolver:
    return StackResolver("S", "t.json", body, lambda name: Unresolved("import", name))


def _sub(depth: int, uses: int) -> Any:
    value: Any = "o"
    for _ in range(depth):
        value = {"Fn::Sub": ["${A}" * uses, {"A": value}]}
    return value


def test_nested_sub_variables_are_resolved_once_each() -> None:
    resolver = _resolver({"Resources": {}})
    assert resolver.resolve(_sub(5, 10), "R") == "o" * 10**5
    # without the memo: 10**5 resolutions of the innermost; with it: a few steps a level
    assert resolver._steps < 60


def test_nested_sub_eight_deep_is_refused_by_the_character_budget() -> None:
    with pytest.raises(ModelError, match=r"t.json: R: intrinsic functions build too many characters \(limit 33,554,432; "
                       r"raise with edge-origin --max-eval-chars N\)"):
        _resolver({"Resources": {}}).resolve(_sub(8, 10), "R")


def test_join_of_refs_to_a_large_default_counts_characters_before_joining() -> None:
    body = {"Resources": {}, "Parameters": {"P": {"Type": "String", "Default": "a" * 1000}}}
    with using(eval_chars=100_000):
        assert _resolver(body).resolve({"Fn::Join": ["", [{"Ref": "P"}] * 99]}) == "a" * 99_000
        with pytest.raises(ModelError, match="--max-eval-chars"):
            _resolver(body).resolve({"Fn::Join": ["", [{"Ref": "P"}] * 101]})


def test_split_and_to_json_string_are_charged() -> None:
    shared = ["x" * 1000]
    with using(eval_chars=50_000):
        with pytest.raises(ModelError, match="--max-eval-chars"):
            _resolver({"Resources": {}}).resolve({"Fn::ToJsonString": [shared] * 100})
        with pytest.raises(ModelError, match="--max-eval-chars"):
            _resolver({"Resources": {}}).resolve({"Fn::Split": [",", "a," * 30_000]})


def test_the_step_budget_names_its_flag() -> None:
    with using(eval_steps=1000):
        assert current().eval_steps == 1000
        _resolver({"Resources": {}}).resolve([[1]] * 500)
        with pytest.raises(ModelError, match=r"takes too many steps \(limit 1,000; raise with edge-origin --max-eval-steps N\)"):
            _resolver({"Resources": {}}).resolve([[i] for i in range(1000)])


def test_find_in_map_values_are_never_evaluated() -> None:
    _, text = hostile.find_in_map_chain(60)
    with pytest.raises(ModelError, match=r"Mappings\.M\.k0\.v holds a list of lists or mappings: mapping values are strings"):
        _resolver(json.loads(text)).resolve({"Fn::FindInMap": ["M", "k0", "v"]})
    cycle = {"Resources": {}, "Mappings": {"M": {"a": {"b": {"Fn::FindInMap": ["M", "a", "b"]}}}}}
    with pytest.raises(ModelError, match="holds a mapping"):
        _resolver(cycle).resolve({"Fn::FindInMap": ["M", "a", "b"]})
    plain = {"Resources": {}, "Mappings": {"M": {"a": {"b": ["x", "y"], "c": "z"}}}}
    assert _resolver(plain).resolve({"Fn::FindInMap": ["M", "a", "b"]}) == ["x", "y"]
    assert _resolver(plain).resolve({"Fn::FindInMap": ["M", "a", "c"]}) == "z"


def test_a_value_that_contains_itself_is_refused() -> None:
    loop: list[Any] = []
    loop.append({"Fn::Join": ["", loop]})
    with pytest.raises(ModelError, match="refers back to itself"):
        _resolver({"Resources": {}}).resolve(loop)


# A DAG of intrinsics where later nodes reuse earlier ones any number of times: the work is the
# number of edges between distinct nodes, never the size of the expanded tree.
_LEAVES = st.sampled_from(["a", "b.", {"Ref": "P"}, {"Ref": "AWS::Region"}, {"Ref": "L"}, 7])


@st.composite
def _dags(draw: st.DrawFn) -> list[Any]:
    nodes: list[Any] = [draw(_LEAVES)]
    for _ in range(draw(st.integers(1, 14))):
        picks = draw(st.lists(st.integers(0, len(nodes) - 1), min_size=1, max_size=6))
        kids = [nodes[i] for i in picks]
        shape = draw(st.sampled_from(["join", "sub", "select", "if", "list", "map", "split"]))
        node: Any = {
            "join": {"Fn::Join": ["-", kids]},
            "sub": {"Fn::Sub": ["${X}" * len(kids), {"X": kids[0]}]},
            "select": {"Fn::Select": [0, kids]},
            "if": {"Fn::If": ["Yes", kids[0], kids[-1]]},
            "list": kids,
            "map": {f"k{i}": kid for i, kid in enumerate(kids)},
            "split": {"Fn::Split": [",", {"Fn::Join": [",", kids]}]},
        }[shape]
        nodes.append(node)
    return nodes


def _edges(root: Any) -> int:
    """Container -> container edges among distinct nodes reachable from ``root`` (and each
    ``${X}`` of a Fn::Sub text), plus one: the size of the input, not of its expansion."""
    seen: set[int] = set()
    stack, edges = [root], 1
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        kids = list(node.values()) if isinstance(node, dict) else node
        if isinstance(node, dict) and isinstance(node.get("Fn::Sub"), list):
            edges += node["Fn::Sub"][0].count("${")  # each use of a variable is a (memo) step
        for kid in kids:
            if isinstance(kid, (dict, list)):
                edges += 1
                stack.append(kid)
    return edges


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_dags())
def test_work_is_bounded_by_the_distinct_nodes_of_any_intrinsic_dag(nodes: list[Any]) -> None:
    body = {"Resources": {}, "Parameters": {"P": {"Type": "String", "Default": "p" * 200},
                                            "L": {"Type": "CommaDelimitedList", "Default": "a,b"}},
            "Conditions": {"Yes": {"Fn::Equals": ["1", "1"]}}}
    resolver = _resolver(body)
    with using(eval_chars=200_000):
        resolver = _resolver(body)
        try:
            resolver.resolve(nodes[-1], "R")
        except ModelError as exc:
            assert "t.json: R: " in str(exc)
    # each distinct node resolved once, each edge followed once (memo hits are steps too)
    assert resolver._steps <= _edges(nodes[-1]) + 2 * len(body["Conditions"]) + 2


def test_for_each_is_counted_before_it_is_expanded() -> None:
    _, text = hostile.for_each_nested(4, 40)
    with pytest.raises(ModelError, match=r"Resources: Fn::ForEach loops make more than 500 entries \(CloudFormation allows "
                       r"at most 500 resources a stack"):
        parse_template_text(text, "f.json")


def test_for_each_count_follows_parameter_lists() -> None:
    from edge_origin.model.loader import _for_each_count

    body = {"Parameters": {"L": {"Type": "CommaDelimitedList", "Default": "a,b,c"}}, "Resources": {}}
    resolver = _resolver(body)
    inner = {"R${Y}": {"Type": "X"}, "Other": {"Type": "X"}}
    entries = {"Fn::ForEach::A": ["X", {"Ref": "L"}, {"Fn::ForEach::B": ["Y", ["1", "2"], inner]}], "Plain": {}}
    assert _for_each_count(entries, resolver, 500, 0) == 3 * 2 * 2 + 1
    assert _for_each_count({"Fn::ForEach::A": ["X", ["a"] * 501, {"R${X}": {}}]}, resolver, 500, 0) == 501


def test_yaml_aliases_are_counted_in_characters() -> None:
    _, text = hostile.yaml_alias_join(400, 1000)
    with using(eval_chars=300_000), pytest.raises(
        ModelError, match=r"aliases expand to too many characters \(limit 300,000; raise with edge-origin --max-eval-chars N\)"
    ):
        parse_template_text(text, "a.yaml")
    with using(eval_chars=500_000):
        assert parse_template_text(text, "a.yaml")["Resources"]["Rec"]["Properties"]["Comment"] == "a" * 1000


def test_the_duplicate_key_message_names_both_lines() -> None:
    _, text = hostile.duplicate_key_late(2000)
    with pytest.raises(ModelError, match=r"duplicate key 'k0' at line 2003 \(first at line 3\)"):
        parse_template_text(text, "d.json")


def test_for_each_inside_properties_is_weighed_against_the_step_budget() -> None:
    fragment: dict[str, Any] = {"Tag${L3}": "v"}
    for level in (3, 2, 1, 0):
        fragment = {f"Fn::ForEach::P{level}": [f"L{level}", [f"i{n}" for n in range(40)], fragment]}
    body = {"Transform": "AWS::LanguageExtensions",
            "Resources": {"R": {"Type": "AWS::SNS::Topic", "Properties": {"Tags": fragment}}}}
    with pytest.raises(ModelError, match=r"p.json: Fn::ForEach loops expand to too many values \(limit 2,000,000; "
                       r"raise with edge-origin --max-eval-steps N\)"):
        parse_template_text(json.dumps(body), "p.json")
