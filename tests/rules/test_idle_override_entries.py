"""A ListenerAttributes entry whose Key is decided at deploy time, beside a literal ``tcp.idle_timeout.seconds``
entry, may be that Key again (which of two entries of one Key ELB keeps, the templates do not say): EO-NLB1, EO-KA1
and EO-CF2 judge the listener with either Value, and give that verdict when both agree, else one not-judged finding
naming the entry. Never quiet where one of the two would fire. The oracle is each rule on the two decided
templates: the literal entry alone, and the literal entry holding the other entry's Value."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.findings import Finding
from edge_origin.model import LoadedTemplate, TemplateModel
from edge_origin.rules import RULES_BY_ID, run_rules
from edge_origin.rules.ka_profile import verdict

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "templates" / "rules"
IDLE = "tcp.idle_timeout.seconds"
CASES = [(fixture, rule) for rule, stem in (("EO-NLB1", "eo-nlb1"), ("EO-KA1", "eo-ka1"), ("EO-CF2", "eo-cf2"))
         for fixture in (f"{stem}-quiet", f"{stem}-fire")]
VALUES = st.one_of(st.sampled_from(["60", "300", "340", "350", "351", "6000", "6500", "59", "abc"]),
                   st.integers(1, 7000).map(str), st.just({"Ref": "Value"}))


def _body(fixture: str) -> dict[str, Any]:
    body = json.loads((FIXTURES / f"{fixture}.json").read_text())
    body.setdefault("Parameters", {}).update({"Key": {"Type": "String"}, "Value": {"Type": "String"}})
    return body


def _idle_entries(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The literal idle entry of each listener that has one."""
    return [entry for r in body["Resources"].values() for entry in r.get("Properties", {}).get("ListenerAttributes", [])
            if isinstance(entry, dict) and entry.get("Key") == IDLE]


def _run(body: dict[str, Any], rule: str) -> list[Finding]:
    return run_rules(TemplateModel([LoadedTemplate("S", "t.json", body)]), [RULES_BY_ID[rule]])


@settings(max_examples=60, deadline=None)
@given(case=st.sampled_from([c for c in CASES if _idle_entries(_body(c[0]))]), value=VALUES)
def test_an_entry_that_may_be_the_idle_key_again_is_judged_both_ways(case: tuple[str, str], value: Any) -> None:
    fixture, rule = case
    written = _body(fixture)
    other = copy.deepcopy(written)
    for entry in _idle_entries(other):
        entry["Value"] = value
    both = copy.deepcopy(written)
    for r in both["Resources"].values():
        attrs = r.get("Properties", {}).get("ListenerAttributes")
        if isinstance(attrs, list) and any(isinstance(e, dict) and e.get("Key") == IDLE for e in attrs):
            attrs.append({"Key": {"Ref": "Key"}, "Value": value})
    as_written, with_other, found = _run(written, rule), _run(other, rule), _run(both, rule)
    if verdict(as_written) == verdict(with_other):
        assert found == as_written, (value, found)
    else:  # never quiet, never one of the two verdicts as if decided: the entry is named
        assert len(found) == 1 and found[0].message.startswith("not judged: "), (value, found)
        assert "ListenerAttributes[" in found[0].message and "may be tcp.idle_timeout.seconds again" in found[0].message


@pytest.mark.parametrize(("fixture", "rule", "value", "expected"), [
    ("eo-nlb1-quiet", "EO-NLB1", "6500", "not judged"),  # outside 60..6000 with the other entry's Value
    ("eo-nlb1-quiet", "EO-NLB1", "350", "no finding"),  # the same Value: the literal decides
    ("eo-ka1-quiet", "EO-KA1", "60", "not judged"),  # 60 s is not the profile's 350 s
    ("eo-ka1-fire", "EO-KA1", "350", "error"),  # 300 s or 350 s: both differ from the profile's 340 s
    ("eo-cf2-fire", "EO-CF2", "350", "not judged"),  # keepalive 60 s: an error against 60 s, fine against 350 s
])
def test_examples(fixture: str, rule: str, value: str, expected: str) -> None:
    body = _body(fixture)
    for r in body["Resources"].values():
        attrs = r.get("Properties", {}).get("ListenerAttributes")
        if isinstance(attrs, list) and any(isinstance(e, dict) and e.get("Key") == IDLE for e in attrs):
            attrs.append({"Key": {"Ref": "Key"}, "Value": value})
    found = _run(body, rule)
    if expected == "not judged":
        assert [f.message[:12] for f in found] == ["not judged: "], found
    else:
        assert verdict(found) == expected, found
