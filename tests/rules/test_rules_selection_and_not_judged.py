"""Which rules a run reports (`--select` / `--ignore`) and the one shape of a "not judged" finding, as users
read them (mutation testing, issue 38): every refusal and reason whole, long expressions cut at one length."""

from __future__ import annotations

import pytest

from edge_origin.core.findings import Severity
from edge_origin.rules import CATALOGUE
from edge_origin.rules.not_judged import MAX_ELEMENT_CHARS, describe, not_judged, not_judged_message
from edge_origin.rules.selection import RuleSelection, parse_selectors

IDS = ("EO-DNS1", "EO-DNS2", "EO-NLB1")


def test_selectors_are_upper_cased_once_each_in_order():
    assert parse_selectors(["eo-nlb1,EO-DNS", "eo-dns  EO-NLB1"], known=IDS) == ("EO-NLB1", "EO-DNS")
    assert parse_selectors(["EO-"]) == ("EO-",)  # the catalogue when no ids are given
    assert {r.id for r in CATALOGUE} >= {"EO-DNS1", "EO-NLB5"}


@pytest.mark.parametrize(("values", "kwargs", "message"), [
    (["EO-DNS9"], {}, "--ignore 'EO-DNS9': no rule id starts with it; did you mean EO-DNS2? (rule ids: EO-DNS1, EO-DNS2, "
     "EO-NLB1; `edge-origin rules` lists them)"),
    (["zz"], {"what": "--select"}, "--select 'zz': no rule id starts with it (rule ids: EO-DNS1, EO-DNS2, EO-NLB1; "
     "`edge-origin rules` lists them)"),
])
def test_a_selector_no_rule_starts_with_is_refused_naming_the_nearest(values, kwargs, message):
    with pytest.raises(ValueError) as exc:
        parse_selectors(values, known=IDS, **kwargs)
    assert str(exc.value) == message


def test_the_nearest_id_is_one_close_match_only():
    ids = ("EO-ABC1", "EO-ABC2", "EO-XYZ9")
    with pytest.raises(ValueError) as exc:
        parse_selectors(["EO-ABD1"], known=ids)
    assert "; did you mean EO-ABC1? (rule ids" in str(exc.value)
    with pytest.raises(ValueError) as exc:
        parse_selectors(["QQQQQQQ"], known=ids)  # nothing near enough (difflib cutoff 0.6): no guess
    assert "did you mean" not in str(exc.value)


def test_the_reason_a_rule_is_left_out():
    selection = RuleSelection(select=("EO-DNS",), ignore=("EO-DNS2",))
    assert selection.reason("eo-dns1") == ""
    assert selection.reason("EO-NLB1") == "not selected (--select)"
    assert selection.reason("eo-nlb1") == "not selected (--select)"
    assert selection.reason("EO-DNS2") == "ignored (--ignore)"
    assert RuleSelection(ignore=("EO-NLB",)).reason("EO-NLB1") == "ignored (--ignore)"


def test_an_expression_is_shown_as_written_and_cut_at_one_length():
    assert describe("dualstack.my-nlb") == "dualstack.my-nlb"
    assert describe({"Fn::Join": ["", ["dualstack.", {"Fn::GetAtt": ["Nlb", "DNSName"]}]]}) == (
        '{"Fn::Join": ["", ["dualstack.", {"Fn::GetAtt": ["Nlb", "DNSName"]}]]}')
    assert describe({"b": 1, "a": 2}) == '{"a": 2, "b": 1}'  # keys sorted: the same text for the same element
    assert describe({"when": object}).startswith('{"when": "<class ')  # anything else as its str
    assert describe({1, 2}) == '"{1, 2}"'  # what JSON cannot hold: its str, as a JSON string
    assert describe({(1, 2): "x"}) == "{(1, 2): 'x'}"  # not JSON at all (a tuple key): its repr
    exact = "x" * MAX_ELEMENT_CHARS
    assert describe(exact) == exact and MAX_ELEMENT_CHARS == 160
    assert describe(exact + "y") == "x" * (MAX_ELEMENT_CHARS - 1) + "…"


def test_a_not_judged_finding_whole():
    f = not_judged("EO-NJ1", Severity.NOT_CHECKED, subject="record set Edge/Alias", element={"Ref": "Target"},
                   reason="a deploy-time alias target", needs="a literal DNS name")
    assert (f.rule, f.severity, f.template, f.stack, f.resource, f.path) == ("EO-NJ1", Severity.NOT_CHECKED, "", "", "", "")
    assert f.message == not_judged_message("record set Edge/Alias", {"Ref": "Target"}, "a deploy-time alias target") == (
        'not judged: record set Edge/Alias: {"Ref": "Target"} (a deploy-time alias target)')
    assert f.fix == "To let edge-origin judge it: a literal DNS name"
    placed = not_judged("EO-NJ1", Severity.WARNING, subject="s", element="e", reason="r", needs="n",
                        template="t.json", stack="S", resource="R", path="Properties.X")
    assert (placed.template, placed.stack, placed.resource, placed.path) == ("t.json", "S", "R", "Properties.X")
