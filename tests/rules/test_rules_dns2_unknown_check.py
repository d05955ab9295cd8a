"""EO-DNS2 and a HealthCheckId no given template defines: not judged, never "a check that works".

Before, a multivalue origin record whose HealthCheckId was a literal id, an import or a parameter
passed EO-DNS2 silently: the answer model assumed the check could fail. It may be disabled, inverted
or probe another address; only the stack that defines it (or the live account) can tell.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.rules import get_rule, run_rules
from tests.answers.answer_templates import base, eip, model, record

RULE = get_rule("EO-DNS2")
NEEDS = ("To let edge-origin judge it: check the stack that defines the health check together with this one, or run "
         "edge-origin audit on the account (it reads the deployed health checks)")


def _records(check: Any) -> dict[str, dict[str, Any]]:
    return {f"Rec{n}": record(SetIdentifier=f"m{n}", MultiValueAnswer=True, ResourceRecords=[eip(n)],
                              HealthCheckId=check if n == 0 else {"Ref": f"Check{n}"}) for n in (0, 1)}


def _body() -> dict[str, Any]:
    body = base()
    body["Parameters"] = {"CheckParam": {"Type": "String"}}
    return body


@pytest.mark.parametrize(("check", "shown"), [
    ("0a1b2c3d-1111-2222-3333-444455556666", "0a1b2c3d-1111-2222-3333-444455556666"),
    ({"Fn::ImportValue": "SharedCheck"}, "<Fn::ImportValue SharedCheck>"),
    ({"Ref": "CheckParam"}, "<Ref CheckParam>"),
])
def test_a_health_check_no_template_defines_is_not_judged(check: Any, shown: str):
    found = list(RULE.check(model(_body(), **_records(check))))
    assert found == [Finding(
        "EO-DNS2", Severity.WARNING,
        "not judged: Rec0: multivalue record in public zone example.com (S/Zone) for gRPC origin o.example.com: "
        f"HealthCheckId: {shown} (no given template defines this health check; whether Route 53 can take the record "
        "out of its answers is not judged)",
        NEEDS, "S.template.json", "S", "Rec0")]
    assert [f.rule for f in run_rules(model(_body(), **_records(check))) if f.rule.startswith("EO-DNS")] == ["EO-DNS2"]


def test_the_stack_that_defines_the_check_checked_together_judges_it():
    """The check in another template of the same check run: judged (a disabled one is the usual error)."""
    records = copy.deepcopy(_body())
    records["Resources"].update(_records({"Fn::ImportValue": "SharedCheck"}))
    checks = {"Resources": {"Shared": {"Type": "AWS::Route53::HealthCheck", "Properties": {"HealthCheckConfig": {
        "Type": "TCP", "IPAddress": "203.0.113.10", "Port": 443, "Disabled": True}}}},
        "Outputs": {"Out": {"Value": {"Ref": "Shared"}, "Export": {"Name": "SharedCheck"}}}}
    found = list(RULE.check(TemplateModel.from_templates({"S": records, "Checks": checks})))
    assert [(f.severity, "not judged" in f.message) for f in found] == [(Severity.ERROR, False)], [f.message for f in found]
    assert "Disabled" in found[0].message


def test_checks_the_templates_define_are_judged_as_before():
    assert list(RULE.check(model(_body(), **_records({"Ref": "Check0"})))) == []


@settings(max_examples=10, deadline=None)
@given(st.uuids())
def test_any_literal_check_id_is_not_judged(check_id):
    found = list(RULE.check(model(_body(), **_records(str(check_id)))))
    assert [(f.severity, f.resource) for f in found] == [(Severity.WARNING, "Rec0")]
    assert f"HealthCheckId: {check_id} (no given template defines this health check" in found[0].message


def _calculated(children: list[Any], threshold: int) -> dict[str, Any]:
    return {"Type": "AWS::Route53::HealthCheck", "Properties": {"HealthCheckConfig": {
        "Type": "CALCULATED", "ChildHealthChecks": children, "HealthThreshold": threshold}}}


def test_a_calculated_check_over_children_no_template_defines_is_not_judged():
    body = _body()
    body["Resources"]["Calc"] = _calculated([{"Ref": "Check0"}, "abcd-literal", {"Fn::ImportValue": "X"}], 1)
    found = list(RULE.check(model(body, **_records({"Ref": "Calc"}))))
    assert found == [Finding(
        "EO-DNS2", Severity.WARNING,
        "not judged: Rec0: multivalue record in public zone example.com (S/Zone) for gRPC origin o.example.com: "
        "CALCULATED health check Calc ChildHealthChecks: abcd-literal, <Fn::ImportValue X> (no given template defines "
        "these child health checks; whether Route 53 can take the record out of its answers is not judged)",
        NEEDS, "S.template.json", "S", "Rec0")]


def test_a_verdict_the_undefined_children_cannot_change_is_still_given():
    """HealthThreshold 0: always healthy whatever the children say (Route 53 API reference, HealthThreshold)."""
    body = _body()
    body["Resources"]["Calc"] = _calculated(["abcd-literal"], 0)
    found = list(RULE.check(model(body, **_records({"Ref": "Calc"}))))
    assert [f.severity for f in found] == [Severity.WARNING, Severity.ERROR]
    assert "HealthThreshold 0" in found[1].message and "not judged" in found[0].message


def test_children_the_templates_define_are_judged_as_before():
    body = _body()
    body["Resources"]["Calc"] = _calculated([{"Ref": "Check0"}], 1)
    assert list(RULE.check(model(body, **_records({"Ref": "Calc"})))) == []


@st.composite
def _trees(draw):
    """CALCULATED checks c0..cN (children among the later ones or ids no template holds), some disabled."""
    from edge_origin.answers import HealthCheck

    size = draw(st.integers(1, 8))
    checks = {}
    for i in range(size):
        pool = [f"c{j}" for j in range(i + 1, size)] + ["gone-1", "gone-2"]
        if draw(st.booleans()):
            checks[f"c{i}"] = HealthCheck(f"c{i}", type="CALCULATED", disabled=draw(st.booleans()),
                                          children=tuple(draw(st.lists(st.sampled_from(pool), max_size=3, unique=True))))
        else:
            checks[f"c{i}"] = HealthCheck(f"c{i}", ip_address=f"192.0.2.{i}")
    return checks


@settings(max_examples=50, deadline=None)
@given(_trees())
def test_undefined_children_are_every_missing_id_an_enabled_calculated_check_names(checks):
    from edge_origin.answers.health import undefined_children

    def reached(check_id, seen):
        check = checks.get(check_id)
        if check is None or check.type != "CALCULATED" or check.disabled or check_id in seen:
            return set()
        out = set()
        for child in check.children:
            out |= {child} if child not in checks else reached(child, seen | {check_id})
        return out

    assert set(undefined_children("c0", checks)) == reached("c0", frozenset())


def test_every_record_is_judged_after_one_whose_check_is_not():
    """Rec0's check is defined elsewhere (not judged); Rec1 has none at all (an error), and both are said."""
    records = _records("0a1b2c3d-1111-2222-3333-444455556666")
    del records["Rec1"]["Properties"]["HealthCheckId"]
    found = list(RULE.check(model(_body(), **records)))
    assert [(f.resource, f.severity) for f in found] == [("Rec0", Severity.WARNING), ("Rec1", Severity.ERROR)]
    assert "has no HealthCheckId" in found[1].message


def test_not_judged_checks_carry_the_records_cdk_path():
    records = _records({"Fn::ImportValue": "SharedCheck"})
    records["Rec0"] = {**records["Rec0"], "Metadata": {"aws:cdk:path": "S/Api/Rec0/Resource"}}
    assert [f.path for f in RULE.check(model(_body(), **records))] == ["S/Api/Rec0/Resource"]
    body = _body()
    body["Resources"]["Calc"] = _calculated(["abcd-literal"], 1)
    records = _records({"Ref": "Calc"})
    records["Rec0"] = {**records["Rec0"], "Metadata": {"aws:cdk:path": "S/Api/Rec0/Resource"}}
    assert [f.path for f in RULE.check(model(body, **records))] == ["S/Api/Rec0/Resource"]


def test_undefined_children_are_read_as_deep_as_the_model_reads_health():
    """c0 -> ... -> c15 (CALCULATED) -> "gone" at depth 16: check_healthy reads it (a guess: reported); one level
    deeper it is not read at all (nested_too_deep: EO-NJ1 says not judged)."""
    from edge_origin.answers import HealthCheck
    from edge_origin.answers.health import MAX_DEPTH, nested_too_deep, undefined_children

    def chain(levels: int) -> dict[str, HealthCheck]:
        return {f"c{i}": HealthCheck(f"c{i}", type="CALCULATED", health_threshold=1,
                                     children=(f"c{i + 1}" if i + 1 < levels else "gone",)) for i in range(levels)}

    assert undefined_children("c0", chain(MAX_DEPTH)) == ("gone",)
    assert nested_too_deep("c0", chain(MAX_DEPTH)) is False
    assert undefined_children("c0", chain(MAX_DEPTH + 1)) == ()
    assert nested_too_deep("c0", chain(MAX_DEPTH + 1)) is True
