"""EO-NJ1 for a distribution whose origins the templates do not decide (redteam): a DistributionConfig from
an ``AWS::Include``, Origins from an ``Fn::ImportValue``, one origin or the whole Properties behind an
``Fn::If`` the templates cannot decide. Each read as a distribution with no origin: the weighted pile-up
behind it got "no findings, 0 not judged". Now it is not judged (a warning naming the distribution and
the expression), never quiet; a distribution whose origins are all written is not named."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.model import model_from_text
from edge_origin.rules import run_rules

CORPUS = Path(__file__).resolve().parents[1] / "assembly" / "corpus"
APPS = {s: json.loads((CORPUS / f"{s}-flat" / "App.template.json").read_text()) for s in ("weighted", "fleet", "keepalive")}
UNKNOWN_CONDITION = {"Fn::Equals": [{"Ref": "Mode"}, "on"]}
DEPLOY_TIME = {
    "include": {"Fn::Transform": {"Name": "AWS::Include", "Parameters": {"Location": "s3://bucket/part.yaml"}}},
    "import": {"Fn::ImportValue": "shared-origins"},
    "parameter": {"Ref": "Mode"},
}


def _undecided(body: dict[str, Any], where: str, how: str) -> dict[str, Any]:
    body = copy.deepcopy(body)
    body.setdefault("Parameters", {})["Mode"] = {"Type": "String"}  # no Default, no AllowedValues
    body.setdefault("Conditions", {})["ModeOn"] = UNKNOWN_CONDITION
    (dist,) = [r for r in body["Resources"].values() if r["Type"] == "AWS::CloudFront::Distribution"]
    props = dist["Properties"]
    value = DEPLOY_TIME[how]
    if where == "Properties":
        dist["Properties"] = {"Fn::If": ["ModeOn", props, {"DistributionConfig": value}]}
    elif where == "DistributionConfig":
        props["DistributionConfig"] = value
    elif where == "Origins":
        props["DistributionConfig"]["Origins"] = value
    else:  # one origin
        props["DistributionConfig"]["Origins"] = [{"Fn::If": ["ModeOn", props["DistributionConfig"]["Origins"][0], value]}]
    return body


@settings(max_examples=25, deadline=None, database=None)
@given(scenario=st.sampled_from(sorted(APPS)), where=st.sampled_from(["Properties", "DistributionConfig", "Origins", "Origins[0]"]),
       how=st.sampled_from(sorted(DEPLOY_TIME)))
def test_a_distribution_whose_origins_are_undecided_is_not_judged_never_quiet(scenario: str, where: str, how: str) -> None:
    body = _undecided(APPS[scenario], where, how)
    findings = run_rules(model_from_text(json.dumps(body), "App", "App.json"))
    named = [f for f in findings if f.rule == "EO-NJ1" and "(CloudFront origins)" in f.message]
    assert len(named) == 1 and named[0].message.startswith("not judged: Edge7038544F "), [f.message for f in findings]
    assert named[0].severity.value == "warning"


def test_written_origins_are_not_named() -> None:
    for body in APPS.values():
        assert not [f for f in run_rules(model_from_text(json.dumps(body), "App", "App.json")) if "(CloudFront origins)" in f.message]
