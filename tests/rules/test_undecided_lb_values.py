"""A load balancer's Type, its attributes and a target group's Protocol decided at deploy time: the LB view keeps
what it knows (``type_undecided``, ``protocol_undecided``) and each NLB rule that would judge such a balancer says
"not judged" once for it; with a Default (the same template, decided) the judged verdict is back."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from edge_origin.model import TemplateModel
from edge_origin.review.checker import _is_not_judged
from edge_origin.rules import get_rule, run_rules

RULES_DIR = Path(__file__).parents[1] / "fixtures" / "templates" / "rules"
UNDECIDED = {"Ref": "P"}


def _fixture(stem: str) -> dict[str, Any]:
    return json.loads((RULES_DIR / f"{stem}.json").read_text())


def _set(body: dict[str, Any], path: tuple[Any, ...], value: Any, default: Any = None) -> dict[str, Any]:
    """``body`` with ``value`` at ``path`` (under Resources) and a String parameter P (with ``default``)."""
    out = copy.deepcopy(body)
    out["Parameters"] = {"P": {"Type": "String", **({"Default": default} if default is not None else {})}}
    node = out["Resources"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def _findings(body: dict[str, Any], rule: str) -> tuple[list[str], list[str]]:
    """(judged messages, not-judged messages) of ``rule``."""
    found = run_rules(TemplateModel.from_templates({"S": body}), [get_rule(rule)])
    return ([f.message for f in found if not _is_not_judged(f)], [f.message for f in found if _is_not_judged(f)])


FORMS = [{"Ref": "P"}, {"Fn::ImportValue": "no-such-export"}, {"Fn::If": ["C", "network", {"Ref": "AWS::NoValue"}]}]


@pytest.mark.parametrize("form", FORMS, ids=["parameter", "import", "condition"])
def test_the_view_keeps_an_undecided_type_and_protocol(form: Any) -> None:
    body = {
        "Parameters": {"P": {"Type": "String"}, "F": {"Type": "String"}},
        "Conditions": {"C": {"Fn::Equals": [{"Ref": "F"}, "y"]}},
        "Resources": {
            "Lb": {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": {"Type": form}},
            "Tg": {"Type": "AWS::ElasticLoadBalancingV2::TargetGroup", "Properties": {"Protocol": form}},
        },
    }
    model = TemplateModel.from_templates({"S": body})
    [lb], [tg] = model.load_balancers, model.target_groups
    assert (lb.type_undecided, lb.is_network, lb.may_be_network) == (True, False, True)
    assert (tg.protocol, tg.protocol_undecided) == (None, True)


@pytest.mark.parametrize(("lb_type", "expected"), [("network", (False, True, True)), ("application", (False, False, False)),
                                                    (None, (False, False, False))])
def test_the_view_of_a_literal_or_absent_type(lb_type: str | None, expected: tuple[bool, bool, bool]) -> None:
    props = {"Type": lb_type} if lb_type else {}
    body = {"Resources": {"Lb": {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": props},
                          "Tg": {"Type": "AWS::ElasticLoadBalancingV2::TargetGroup", "Properties": {}}}}
    model = TemplateModel.from_templates({"S": body})
    [lb], [tg] = model.load_balancers, model.target_groups
    assert (lb.type_undecided, lb.is_network, lb.may_be_network) == expected
    assert tg.protocol_undecided is False
