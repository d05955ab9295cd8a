"""EO-CF4: a custom origin's timeouts: below 1 s the API refuses them (error); above the default quota, 120 s, a quota
to raise (warning, never an error: issue 52); at or below it quiet; decided at deploy time: not judged."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import read_template_file
from edge_origin.rules import get_rule, run_rules
from tests.hardening_support import examples

QUIET = read_template_file(Path(__file__).parents[1] / "fixtures" / "templates" / "rules" / "eo-cf4-quiet.yaml").body


def _cf4(field: str, value: Any) -> list[tuple[Severity, str]]:
    body = copy.deepcopy(QUIET)
    body["Parameters"] = {"Timeout": {"Type": "Number"}}
    config = body["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"][0]["CustomOriginConfig"]
    if value is None:
        config.pop(field, None)
    else:
        config[field] = value
    found = run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-CF4")])
    return [(f.severity, f.message) for f in found]


@settings(max_examples=examples(30), deadline=None)
@given(field=st.sampled_from(["OriginKeepaliveTimeout", "OriginReadTimeout"]),
       value=st.one_of(st.none(), st.integers(0, 4000), st.sampled_from([0, 1, 119, 120, 121, 3600, 3601]),
                       st.just({"Ref": "Timeout"})))
def test_each_value_is_judged_as_the_api_and_the_quota_say(field: str, value: Any) -> None:
    found = _cf4(field, value)
    if value is None or (isinstance(value, int) and 1 <= value <= 120):
        assert found == []
        return
    [(severity, message)] = found
    if isinstance(value, dict):
        assert severity is Severity.WARNING and message.startswith(f"not judged: Dist origin o {field}")
    elif value < 1:
        assert severity is Severity.ERROR and "whole seconds from 1" in message
    else:
        assert severity is Severity.WARNING and f"{field} {value} s is above the default CloudFront quota" in message


def test_a_vpc_origin_is_left_to_eo_vpc1() -> None:
    body = copy.deepcopy(QUIET)
    origin = body["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"][0]
    origin["VpcOriginConfig"] = {"VpcOriginId": "vo-1", "OriginReadTimeout": 180}
    del origin["CustomOriginConfig"]
    assert run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-CF4")]) == []
