"""Resources resolve their Properties on first read, once (issue 53); the model still refuses bad
input when it is built: ``StackResolver.check`` raises what ``resolve`` would, building nothing,
and the budgets (``--max-eval-steps``/``--max-eval-chars``) end a check with the one line, exit 2,
wherever the value sits (a resource no rule reads included)."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.cli import main
from edge_origin.core.limits import using
from edge_origin.model import ModelError, model_from_text
from edge_origin.model.intrinsics import StackResolver
from edge_origin.model.values import Unresolved
from tests.hardening_support import examples, replacements

RECORD = {"Type": "AWS::Route53::RecordSet", "Properties": {"HostedZoneName": "example.com.", "Name": "o.example.com",
                                                            "Type": "A", "TTL": "60", "ResourceRecords": ["192.0.2.1"]}}


def _template(topic_name: Any) -> dict[str, Any]:
    return {"Parameters": {"P": {"Type": "String", "Default": "p" * 50}, "L": {"Type": "CommaDelimitedList", "Default": "a,b"}},
            "Conditions": {"Yes": {"Fn::Equals": ["1", "1"]}},
            "Resources": {"Rec": RECORD, "Topic": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": topic_name}}}}


def test_a_resource_no_view_reads_is_resolved_on_first_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    original = StackResolver.resolve_checked

    def counted(self: StackResolver, value: Any, where: str = "") -> Any:
        calls.append(where)
        return original(self, value, where)

    monkeypatch.setattr(StackResolver, "resolve_checked", counted)
    model = model_from_text(json.dumps(_template({"Fn::Join": ["-", [{"Ref": "AWS::StackName"}, {"Ref": "Rec"}, "x"]]})))
    topic, record = model.resource("Stack", "Topic"), model.resource("Stack", "Rec")
    assert topic is not None and record is not None
    assert record.settled and not topic.settled  # the record views read it; nothing has read the topic
    assert calls == []
    first = topic.properties["TopicName"]
    assert topic.properties["TopicName"] is first and topic.settled
    assert calls == ["Topic"]  # once, however often it is read
    assert isinstance(first, Unresolved) and first.expr == "Stack-${Stack/Rec}-x"


def test_a_bad_intrinsic_in_a_resource_no_view_reads_is_refused_when_the_model_is_built() -> None:
    with pytest.raises(ModelError, match=r"<string>: Topic: Ref to 'Missing': no such resource"):
        model_from_text(json.dumps(_template({"Fn::Join": ["", [{"Ref": "Missing"}]]})))


def _outcome(resolver: StackResolver, value: Any, checked: bool) -> tuple[str, Any]:
    try:
        if checked:
            resolver.check(value, "R")
            return "ok", resolver.resolve_checked(value, "R")
        return "ok", resolver.resolve(value, "R")
    except ModelError as exc:
        return "error", str(exc)


def _tree(draw_value: Any) -> Any:
    """A JSON round trip: no node shared (as a parsed JSON template), NaN and huge numbers kept."""
    return json.loads(json.dumps(draw_value))


values = st.recursive(replacements | st.sampled_from([{"Ref": "Rec"}, {"Fn::GetAtt": ["Rec", "Name"]}, {"Ref": "P"},
                                                      {"Fn::Join": ["", [{"Ref": "P"}] * 30]}, {"Ref": "L"},
                                                      {"Fn::Join": ["-", [{"Ref": "Rec"}, "x", {"Fn::Select": [0, {"Ref": "L"}]},
                                                                          {"Ref": "AWS::NoValue"}, 7]]},
                                                      {"Fn::Join": ["", ["dualstack.", {"Fn::GetAtt": ["Rec", "DNSName"]}]]}]),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "Ref", "b"]), inner, max_size=2),
                      max_leaves=8)


@settings(max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values, st.sampled_from([(2_000_000, 32 << 20), (1000, 1000), (1000, 2000)]))
def test_check_raises_what_resolve_raises_and_then_resolve_builds_the_same_value(value: Any, budget: tuple[int, int]) -> None:
    value = _tree({"Top": value})
    body = _template("x")
    with using(eval_steps=budget[0], eval_chars=budget[1]):
        eager = StackResolver("S", "t.json", body, lambda name: Unresolved("import", name))
        checked = StackResolver("S", "t.json", body, lambda name: Unresolved("import", name))
        assert _outcome(checked, value, True) == _outcome(eager, value, False)
    assert (checked._steps, checked._chars) == (eager._steps, eager._chars)


def _nested(kind: str, depth: int) -> Any:
    value: Any = {"Ref": "P"}
    for _ in range(depth):
        value = {"Fn::Sub": ["${A}${A}${A}", {"A": value}]} if kind == "sub" else {"Fn::Join": ["", [value, value, value]]}
    return value


@settings(max_examples=examples(20), deadline=None)
@given(st.sampled_from(["sub", "join"]), st.integers(0, 9), st.sampled_from(["AWS::SNS::Topic", "AWS::Route53::RecordSet"]))
def test_a_budget_blown_anywhere_ends_check_with_one_line_and_exit_2(kind: str, depth: int, where: str) -> None:
    body = _template(_nested(kind, depth))
    if where != "AWS::SNS::Topic":  # the record views read: the value in a property they resolve
        body["Resources"]["Topic"] = {**RECORD, "Properties": {**RECORD["Properties"], "Comment": _nested(kind, depth)}}
    flags = ["--max-eval-chars", "100000", "--max-eval-steps", "1000"]
    body = _tree(body)  # as the file is parsed: no node shared
    expected = None
    with using(eval_chars=100_000, eval_steps=1000):  # every resource resolved in order, as before issue 53
        eager = StackResolver("Stack", "t", body, lambda name: None)
        try:
            for logical_id, resource in body["Resources"].items():
                eager.resolve(resource["Properties"], logical_id)
        except ModelError as exc:
            expected = str(exc).removeprefix("t: ")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.template.json"
        path.write_text(json.dumps(body))
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main([*flags, "check", str(path)])
    if expected is None:
        assert code in (0, 1) and "too many" not in err.getvalue()
    else:
        assert code == 2 and "too many" in expected
        assert err.getvalue() == f"edge-origin check: {path}: {expected}\n"


def test_only_json_text_is_a_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    from edge_origin.model import transforms
    from edge_origin.model.loader import parse_template

    json_text = json.dumps(_template({"Fn::Join": ["-", [{"Ref": "Rec"}, "x"]]}))
    assert parse_template(json_text, "t.json")[1] is True
    yaml_text = "Resources:\n  T:\n    Type: AWS::SNS::Topic\n    Properties: &p {TopicName: x}\n  U:\n    Type: AWS::SNS::Topic\n    Properties: *p\n"
    assert parse_template(yaml_text, "t.yaml")[1] is False  # aliases share nodes: every container memoised
    shared = {"TopicName": "x"}  # an expansion may reuse a fragment (cfn-lint's, stubbed: it takes a second to import)
    monkeypatch.setattr(transforms, "expand", lambda body, text, where: {"Resources": {
        "T": {"Type": "AWS::SNS::Topic", "Properties": shared}, "U": {"Type": "AWS::SNS::Topic", "Properties": shared}}})
    sam = {"Transform": "AWS::Serverless-2016-10-31", "Resources": {"F": {"Type": "AWS::Serverless::Function"}}}
    body, tree = parse_template(json.dumps(sam), "s.json")
    assert set(body["Resources"]) == {"T", "U"} and tree is False


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_a_tree_resolves_as_any_template_does(value: Any) -> None:
    value = _tree({"Top": [value, {"k": value}]})
    outcomes = []
    for tree in (False, True):
        resolver = StackResolver("S", "t.json", _template("x"), lambda name: Unresolved("import", name), tree=tree)
        outcomes.append((_outcome(resolver, value, False), resolver._steps, resolver._chars))
    assert outcomes[0] == outcomes[1]


def _checked(value: Any, tree: bool, steps: int) -> tuple[Any, ...]:
    with using(eval_steps=steps, eval_chars=1000):
        resolver = StackResolver("S", "t.json", _template("x"), lambda name: Unresolved("import", name), tree=tree)
        try:
            if tree:  # a resource's Properties, as TemplateModel._check_unread checks it
                resolver.check_mapping(value, "R")
            else:
                resolver.check(value, "R")
        except ModelError as exc:
            return ("error", str(exc))
        return ("ok", resolver._steps, resolver._chars)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values, st.sampled_from([2_000_000, 30, 12]))
def test_a_tree_is_checked_as_any_template_is(value: Any, steps: int) -> None:
    """``check_mapping`` (a parsed tree's Properties, each container's leaf test made once) counts, charges and
    refuses as the general walk does, budgets included."""
    value = _tree({"Top": [value, {"k": value}], "Leaf": {"a": 1}, "Deep": [[[value]]]})
    assert _checked(value, True, steps) == _checked(value, False, steps)


@pytest.mark.parametrize("depth", range(96, 103))
def test_a_tree_is_refused_at_the_depth_any_template_is(depth: int) -> None:
    value: Any = {"Ref": "Rec"}
    for i in range(depth):
        value = {"k": value, "n": 1} if i % 2 else [value, "x"]
    assert _checked({"Top": value}, True, 2_000_000) == _checked({"Top": value}, False, 2_000_000)
