"""EO-NJ1 for a distribution whose origins the templates do not decide, and for a template a macro rewrites (redteam): a DistributionConfig from
an ``AWS::Include``, Origins from an ``Fn::ImportValue``, one origin or the whole Properties behind an
``Fn::If`` the templates cannot decide. Each read as a distribution with no origin: the weighted pile-up
behind it got "no findings, 0 not judged". Now it is not judged (a warning naming the distribution and
the expression), never quiet; a distribution whose origins are all written is not named."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
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
    assert len(APPS) >= 2
    for body in APPS.values():
        assert not [f for f in run_rules(model_from_text(json.dumps(body), "App", "App.json")) if "(CloudFront origins)" in f.message]


MACRO = st.one_of(st.from_regex(r"\A[A-Z][A-Za-z0-9]{2,20}\Z"), st.just({"Name": "AWS::Include", "Parameters": {"Location": "s3://b/x"}}),
                  st.builds(lambda n: {"Name": n, "Parameters": {}}, st.from_regex(r"\A[A-Z][A-Za-z]{2,12}Macro\Z")))


@settings(max_examples=25, deadline=None, database=None)
@given(scenario=st.sampled_from(sorted(APPS)), macro=MACRO, as_list=st.booleans())
def test_a_template_a_macro_rewrites_is_not_judged_as_written_only(scenario: str, macro: Any, as_list: bool) -> None:
    """``Transform: MyMacro``: CloudFormation deploys what the macro returns; the template judged as written
    read as clean (the fleet) with nothing said. Now one not-judged warning naming the macro."""
    body = {**copy.deepcopy(APPS[scenario]), "Transform": [macro] if as_list else macro}
    findings = run_rules(model_from_text(json.dumps(body), "App", "App.json"))
    named = [f for f in findings if f.rule == "EO-NJ1" and "Transform edge-origin cannot run" in f.message]
    assert len(named) == 1 and named[0].severity.value == "warning"


@pytest.mark.parametrize("transform", ["AWS::CodeDeployBlueGreen", "AWS::SecretsManager-2020-07-23"])
def test_transforms_that_leave_the_path_as_written_are_not_named(transform: str) -> None:
    body = {**copy.deepcopy(APPS["fleet"]), "Transform": transform}
    assert not [f for f in run_rules(model_from_text(json.dumps(body), "App", "App.json")) if "Transform edge-origin cannot run" in f.message]


@pytest.mark.parametrize("section", ["Resources", "Outputs", "Mappings", "Conditions", "Parameters"])
def test_a_section_level_include_is_read_not_refused(section: str) -> None:
    """``Resources: {Fn::Transform: {Name: AWS::Include, ...}}`` is valid CloudFormation (the section gets
    entries at deploy time); it was refused as bad input ("Fn::Transform: no Type"). Now the rest is
    judged and the template is said to be judged as written."""
    body = copy.deepcopy(APPS["weighted"])
    body.setdefault(section, {})["Fn::Transform"] = {"Name": "AWS::Include", "Parameters": {"Location": "s3://b/part.yaml"}}
    findings = run_rules(model_from_text(json.dumps(body), "App", "App.json"))
    assert [f.rule for f in findings if f.rule == "EO-DNS1"] == ["EO-DNS1"] * 2
    assert len([f for f in findings if "Transform edge-origin cannot run" in f.message and "AWS::Include" in f.message]) == 1


WRITES = {"service": "Route53", "action": "changeResourceRecordSets",
          "parameters": {"HostedZoneId": "Z1", "ChangeBatch": {"Changes": [{"Action": "UPSERT", "ResourceRecordSet": {
              "Name": "api.example.com", "Type": "A", "SetIdentifier": "w0", "Weight": 1}}]}}}


@settings(max_examples=20, deadline=None, database=None)
@given(kind=st.sampled_from(["Custom::AWS", "Custom::DnsRecords", "AWS::CloudFormation::CustomResource"]),
       form=st.sampled_from(["json string", "join", "mapping"]))
def test_records_a_custom_resource_writes_are_not_judged_and_it_is_named(kind: str, form: str) -> None:
    """aws-cdk-lib's ``AwsCustomResource`` calling Route 53 ``changeResourceRecordSets`` (a JSON string, or an
    Fn::Join of it with tokens): the origin's records are not in the templates. Not judged (never a pass),
    and the reason names the custom resource (it said "check the stack that holds its records")."""
    body = copy.deepcopy(APPS["weighted"])
    for logical_id in [k for k, r in body["Resources"].items() if r["Type"] == "AWS::Route53::RecordSet"]:
        del body["Resources"][logical_id]
    text = json.dumps(WRITES)
    create = {"json string": text, "join": {"Fn::Join": ["", [text[:40], {"Ref": "AWS::Region"}, text[40:]]]}, "mapping": WRITES}[form]
    body["Resources"]["Rec"] = {"Type": kind, "Properties": {"ServiceToken": "arn:aws:lambda:eu-west-1:1:function:f", "Create": create}}
    findings = run_rules(model_from_text(json.dumps(body), "App", "App.json"))
    (named,) = [f for f in findings if f.rule == "EO-NJ1" and "no record set of api.example.com" in f.message]
    assert f"{kind} App/Rec may write record sets at deploy time" in named.message and not any(f.rule == "EO-DNS1" for f in findings)
    body["Resources"]["Rec"]["Properties"] = {"ServiceToken": "arn:aws:lambda:eu-west-1:1:function:f", "Create": "{}"}
    (plain,) = [f for f in run_rules(model_from_text(json.dumps(body), "App", "App.json")) if "no record set of" in f.message]
    assert "may write record sets" not in plain.message
