"""EO-SG1 judged as Route 53 health checking works: the check's Regions (all when none), more
than 18 % of checkers healthy, 0.0.0.0/0 admits all, partial coverage a warning."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from edge_origin.core.findings import Severity
from edge_origin.data import load
from edge_origin.model import TemplateModel
from edge_origin.rules import get_rule, run_rules

QUIET = json.loads((Path(__file__).parents[1] / "fixtures" / "templates" / "rules" / "eo-sg1-quiet.json").read_text())
REGIONS = load("route53_health_checkers.json")["regions"]


def _with(regions_admitted: list[str], check_regions: list[str] | None = None, extra: list[str] = ()) -> list:
    body: dict[str, Any] = copy.deepcopy(QUIET)
    res = body["Resources"]
    for key in [k for k, v in res.items() if v["Type"] == "AWS::EC2::SecurityGroupIngress"]:
        del res[key]
    cidrs = [c for r in ["GLOBAL", *regions_admitted] for c in REGIONS[r]] + list(extra)
    for i, cidr in enumerate(cidrs):
        res[f"In{i}"] = {
            "Type": "AWS::EC2::SecurityGroupIngress",
            "Properties": {"GroupId": {"Fn::GetAtt": ["NlbSg", "GroupId"]}, "IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "CidrIp": cidr},
        }
    if check_regions is not None:
        for check in ("CheckA", "CheckB"):
            res[check]["Properties"]["HealthCheckConfig"]["Regions"] = check_regions
    return run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-SG1")])


ALL = sorted(r for r in REGIONS if r != "GLOBAL")


def test_every_region_admitted_is_quiet() -> None:
    assert _with(ALL) == []


def test_regions_limit_what_must_be_admitted() -> None:
    three = ["us-east-1", "eu-west-1", "ap-southeast-1"]
    assert _with(three, check_regions=three) == []


def test_too_few_checkers_for_more_than_18_percent_is_an_error() -> None:
    findings = _with(["us-east-1"])  # 1 of 8 regions: 12 %
    assert [(f.severity, f.resource) for f in findings] == [(Severity.ERROR, "Nlb")]
    assert "only 12% of the checkers get through" in findings[0].message and "more than 18% healthy" in findings[0].message
    assert "every check fails" not in findings[0].message
    assert f"e.g. {REGIONS['us-west-1'][0]})" in findings[0].message  # the first blocked range of the first blocked region


def test_regions_given_but_not_admitted_is_an_error() -> None:
    findings = _with(["us-west-2"], check_regions=["us-east-1", "eu-west-1", "sa-east-1"])
    assert [f.severity for f in findings] == [Severity.ERROR]
    assert "checker regions us-east-1, eu-west-1, sa-east-1" in findings[0].message


def test_partial_coverage_above_18_percent_is_a_warning() -> None:
    findings = _with(["us-east-1", "us-west-1", "us-west-2"])  # 3 of 8: 38 %
    assert [(f.severity, f.resource) for f in findings] == [(Severity.WARNING, "Nlb")]
    assert "checkers of" in findings[0].message and "38% get through" in findings[0].message


def test_anywhere_admits_all() -> None:
    assert _with([], extra=["0.0.0.0/0"]) == []
    assert [f.severity for f in _with([])] == [Severity.ERROR]


def test_default_ports_of_the_check_types() -> None:
    # HealthCheckConfig.Port: the default is 80 for HTTP and HTTP_STR_MATCH, 443 for HTTPS and HTTPS_STR_MATCH
    for check_type, port in (("HTTPS", 443), ("HTTPS_STR_MATCH", 443), ("HTTP", 80), ("HTTP_STR_MATCH", 80)):
        assert len(_with_all_on(check_type, port)) == 0, check_type
        assert [f.severity for f in _with_all_on(check_type, port + 1)] == [Severity.ERROR], check_type


def _with_all_on(check_type: str, port: int) -> list:
    body: dict[str, Any] = copy.deepcopy(QUIET)
    res = body["Resources"]
    for key in [k for k, v in res.items() if v["Type"] == "AWS::EC2::SecurityGroupIngress"]:
        del res[key]
    for i, cidr in enumerate(c for cidrs in REGIONS.values() for c in cidrs):
        res[f"In{i}"] = {
            "Type": "AWS::EC2::SecurityGroupIngress",
            "Properties": {"GroupId": {"Fn::GetAtt": ["NlbSg", "GroupId"]}, "IpProtocol": "tcp", "FromPort": port, "ToPort": port, "CidrIp": cidr},
        }
    for check in ("CheckA", "CheckB"):
        cfg = res[check]["Properties"]["HealthCheckConfig"]
        cfg["Type"] = check_type
        cfg.pop("Port")
    return run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-SG1")])


def test_a_source_decided_at_deploy_is_not_judged() -> None:
    body: dict[str, Any] = copy.deepcopy(QUIET)
    body["Parameters"] = {"Office": {"Type": "String"}}
    body["Resources"]["Extra"] = {
        "Type": "AWS::EC2::SecurityGroupIngress",
        "Properties": {"GroupId": {"Fn::GetAtt": ["NlbSg", "GroupId"]}, "IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "CidrIp": {"Ref": "Office"}},
    }
    for key in [k for k, v in body["Resources"].items() if k.startswith("Checkers")]:
        del body["Resources"][key]
    found = run_rules(TemplateModel.from_templates({"S": body}), [get_rule("EO-SG1")])
    # Not judged is said, never silence (the checkers may or may not be in the parameter's range).
    assert [(f.severity, f.message.startswith("not judged: ")) for f in found] == [(Severity.WARNING, True)]
    assert "Office" in found[0].message
