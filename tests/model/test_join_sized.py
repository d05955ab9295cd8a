"""``check`` sizes the common Join of a parsed tree without building it (``StackResolver._join_sized``): the same
steps, characters, errors and memo as ``_join(build=False)``, for every list of text, numbers, booleans, nulls,
references (simple or not), pseudo parameters, AWS::NoValue, nested intrinsics and containers (issue 53)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.core.limits import using
from edge_origin.model import ModelError
from edge_origin.model.intrinsics import StackResolver
from edge_origin.model.values import Unresolved
from tests.hardening_support import examples

BODY = {"Parameters": {"P": {"Type": "String", "Default": "p" * 30}, "L": {"Type": "CommaDelimitedList", "Default": "a,b"}},
        "Resources": {"Lb": {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer"}, "Rec": {"Type": "AWS::Route53::RecordSet"},
                      "Nested": {"Type": "AWS::CloudFormation::Stack"}}}

part = st.one_of(
    st.text(max_size=6), st.integers(-3, 10**12), st.floats(allow_nan=False, allow_infinity=False), st.booleans(), st.none(),
    st.sampled_from([{"Ref": "Lb"}, {"Ref": "Rec"}, {"Fn::GetAtt": ["Lb", "DNSName"]}, {"Fn::GetAtt": ["Nested", "Outputs.X"]},
                     {"Ref": "AWS::Region"}, {"Ref": "AWS::NoValue"}, {"Ref": "P"}, {"Ref": "Missing"}, {"Ref": 7},
                     {"Fn::Select": [0, {"Ref": "L"}]}, {"Fn::Join": ["-", ["a", {"Ref": "Lb"}]]}, {"Fn::GetAtt": ["Lb"]},
                     {"a": 1}, [1, "x"], {"k": [{"Ref": "Lb"}]}, {"Fn::Sub": "x-${Lb}"}, {"Fn::Nope": 1}]))


def _outcome(arg: Any, sized: bool, steps: int, chars: int) -> tuple[Any, ...]:
    with using(eval_steps=steps, eval_chars=chars):
        resolver = StackResolver("S", "t.json", BODY, lambda name: Unresolved("import", name), tree=True)
        try:
            if not sized:
                resolver._join(arg, 3, build=False)
            elif not resolver._join_sized(arg, 3):
                return ("declined",)
        except ModelError as exc:
            return ("error", str(exc))
        return ("ok", resolver._steps, resolver._chars, sorted(len(repr(v)) for _, v in resolver._memo.values()))


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["", ",", "-x-"]), st.lists(part, max_size=9), st.sampled_from([2_000_000, 1000, 1003, 1006]),
       st.sampled_from([32 << 20, 40, 400]))
def test_a_sized_join_counts_charges_and_refuses_as_the_join_does(delimiter: str, items: list[Any], steps: int, chars: int) -> None:
    arg = json.loads(json.dumps([delimiter, items]))  # as parsed: no node shared
    sized = _outcome(arg, True, steps, chars)
    if sized != ("declined",):
        assert sized == _outcome(json.loads(json.dumps([delimiter, items])), False, steps, chars)
    else:  # only a list with no container in it, or another shape, is left to _join
        assert not any(isinstance(i, (dict, list)) for i in items)


def test_a_join_naming_one_resource_is_made_as_the_join_makes_it() -> None:
    """``dualstack.`` + an NLB's DNS name: the text names the load balancer (nothing charged), as _join decides."""
    arg = ["", ["dualstack.", {"Fn::GetAtt": ["Lb", "DNSName"]}]]
    assert _outcome(arg, True, 2_000_000, 1 << 20) == _outcome(json.loads(json.dumps(arg)), False, 2_000_000, 1 << 20)
    assert _outcome(arg, True, 2_000_000, 1 << 20)[2] == 0
