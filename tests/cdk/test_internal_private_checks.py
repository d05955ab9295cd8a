"""InternalGrpcOrigin ``private_health_checks`` (issue 52 item 4): one Route 53 private endpoint check per private
address (TCP, EndpointType PRIVATE, from a health check source), the records on them, no EO finding, no cfn-lint
lag failure at synth (CloudFormation validation as errors); bad props are one error naming the prop; the default
(None) keeps the alarm checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_route53 as route53

from edge_origin import EdgeOriginChecks, InternalGrpcOrigin, PrivateHealthChecks
from edge_origin.cdk.private_checks import CFN_LINT_LAG, SOURCE_TYPE
from edge_origin.cli import main
from edge_origin.core.errors import EdgeOriginPropError

ENV = cdk.Environment(account="123456789012", region="us-east-1")
ORIGIN = "tax.svc.example.com"


def _network(stack: cdk.Stack) -> tuple[ec2.Vpc, route53.PrivateHostedZone]:
    vpc = ec2.Vpc(stack, "Vpc", max_azs=3, nat_gateways=0, subnet_configuration=[
        ec2.SubnetConfiguration(name="private", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)])
    return vpc, route53.PrivateHostedZone(stack, "Zone", zone_name="svc.example.com", vpc=vpc)


@pytest.fixture(scope="module")
def synth() -> dict[str, Any]:
    """One app, CloudFormation validation as errors and the EdgeOriginChecks pack: a new source, an existing one."""
    app = cdk.App(context={"@aws-cdk/core:validateAgainstDefaultRules": True})
    pack = EdgeOriginChecks()
    cdk.Validations.of(app).add_plugins(pack)
    made = cdk.Stack(app, "Made", env=ENV)
    vpc, zone = _network(made)
    sg = ec2.SecurityGroup(made, "CheckerSg", vpc=vpc)
    origin = InternalGrpcOrigin(made, "Tax", zone=zone, origin_name=ORIGIN, service_name="tax", vpc=vpc, nlb_count=2,
                                private_health_checks=PrivateHealthChecks(subnets=vpc.isolated_subnets, security_groups=[sg]))
    given = cdk.Stack(app, "Given", env=ENV)
    vpc2, zone2 = _network(given)
    InternalGrpcOrigin(given, "Tax", zone=zone2, origin_name=ORIGIN, service_name="tax", vpc=vpc2, nlb_count=1,
                       private_health_checks=PrivateHealthChecks(health_check_source_id="hcs-0123456789"))
    default = cdk.Stack(app, "Default", env=ENV)
    vpc3, zone3 = _network(default)
    InternalGrpcOrigin(default, "Tax", zone=zone3, origin_name=ORIGIN, service_name="tax", vpc=vpc3, nlb_count=1)
    assembly = app.synth()
    return {"made": assembly.get_stack_by_name("Made").template, "given": assembly.get_stack_by_name("Given").template,
            "default": assembly.get_stack_by_name("Default").template,
            "origin": origin, "pack": pack}


def _of(template: dict, kind: str) -> dict[str, dict]:
    return {k: v for k, v in template["Resources"].items() if v["Type"] == kind}


def test_one_private_check_per_address_from_the_new_source(synth: dict[str, Any]) -> None:
    template, origin = synth["made"], synth["origin"]
    (source_id, source), = _of(template, SOURCE_TYPE).items()
    subnets = source["Properties"]["HealthCheckSourceConfig"]["SubnetConfigurationList"]
    assert len(subnets) == 3 and all(s["AvailabilityZoneId"]["Fn::GetAtt"][1] == "AvailabilityZoneId" for s in subnets)
    assert source["Metadata"]["cfn-lint"] == {"config": {"ignore_checks": ["E" + CFN_LINT_LAG["source"]]}}
    checks = _of(template, "AWS::Route53::HealthCheck")
    addresses = [a.ip_address for a in origin.fleet.addresses]
    assert len(addresses) == 6 and len(checks) == 6
    configs = {c["Properties"]["HealthCheckConfig"]["IPAddress"]: c["Properties"]["HealthCheckConfig"] for c in checks.values()}
    assert sorted(configs) == sorted(addresses)
    for cfg in configs.values():
        assert cfg["Type"] == "TCP" and cfg["Port"] == 50051 and cfg["EndpointType"] == "PRIVATE"
        assert cfg["HealthCheckSourceId"] == {"Fn::GetAtt": [source_id, "HealthCheckSourceId"]}
    assert not _of(template, "AWS::CloudWatch::Alarm").keys() & {k for k in template["Resources"] if "NoHealthyTargets" in k}
    by_id = {k: c["Properties"]["HealthCheckConfig"]["IPAddress"] for k, c in checks.items()}
    for record in _of(template, "AWS::Route53::RecordSet").values():
        props = record["Properties"]
        assert by_id[props["HealthCheckId"]["Ref"]] == props["ResourceRecords"][0]


def test_the_source_groups_are_admitted_on_the_listener_port(synth: dict[str, Any]) -> None:
    template = synth["made"]
    sg_id = next(k for k in _of(template, "AWS::EC2::SecurityGroup") if k.startswith("CheckerSg"))
    rules = [r["Properties"] for r in _of(template, "AWS::EC2::SecurityGroupIngress").values()
             if r["Properties"].get("SourceSecurityGroupId") == {"Fn::GetAtt": [sg_id, "GroupId"]}]
    inline = [rule for g in _of(template, "AWS::EC2::SecurityGroup").values()
              for rule in g["Properties"].get("SecurityGroupIngress", [])
              if rule.get("SourceSecurityGroupId") == {"Fn::GetAtt": [sg_id, "GroupId"]}]
    admitted = rules + inline
    assert len(admitted) == 2 and all(r["FromPort"] == r["ToPort"] == 50051 for r in admitted)


def test_an_existing_source_is_used_as_given(synth: dict[str, Any]) -> None:
    template = synth["given"]
    assert not _of(template, SOURCE_TYPE)
    checks = _of(template, "AWS::Route53::HealthCheck").values()
    assert len(checks) == 3
    assert {c["Properties"]["HealthCheckConfig"]["HealthCheckSourceId"] for c in checks} == {"hcs-0123456789"}


def test_the_default_keeps_one_alarm_check_per_nlb(synth: dict[str, Any]) -> None:
    template = synth["default"]
    assert not _of(template, SOURCE_TYPE)
    (check,) = _of(template, "AWS::Route53::HealthCheck").values()
    assert check["Properties"]["HealthCheckConfig"]["Type"] == "CLOUDWATCH_METRIC"
    assert "EndpointType" not in check["Properties"]["HealthCheckConfig"] and "cfn-lint" not in check.get("Metadata", {})
    records = _of(template, "AWS::Route53::RecordSet").values()
    assert len(records) == 3 and {json.dumps(r["Properties"]["HealthCheckId"]) for r in records} == {
        json.dumps({"Ref": next(iter(_of(template, "AWS::Route53::HealthCheck")))})}


def test_no_finding_at_synth_nor_from_check(synth: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert [f for f in synth["pack"].findings if f.severity.name in ("ERROR", "WARNING")] == []
    for name in ("made", "given", "default"):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(synth[name]))
        assert main(["check", str(path)]) == 0
        out = capsys.readouterr().out
        assert "no findings" in out.lower() and "0 failed" in out and "0 not judged" in out


def test_a_private_check_without_its_source_is_still_an_error(synth: dict[str, Any], tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    template = json.loads(json.dumps(synth["given"]))
    for check in _of(template, "AWS::Route53::HealthCheck").values():
        del check["Properties"]["HealthCheckConfig"]["HealthCheckSourceId"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(template))
    assert main(["check", str(path)]) != 0
    assert "EO-DNS2" in capsys.readouterr().out


@pytest.fixture(scope="module")
def scratch() -> dict[str, Any]:
    stack = cdk.Stack(cdk.App(), "Bad", env=ENV)
    vpc, zone = _network(stack)
    imported = [ec2.Subnet.from_subnet_attributes(stack, f"Imp{i}", subnet_id=f"subnet-{i}", availability_zone=f"us-east-1{z}")
                for i, z in enumerate("ab")]
    return {"stack": stack, "vpc": vpc, "zone": zone, "sg": ec2.SecurityGroup(stack, "Sg", vpc=vpc), "imported": imported,
            "n": [0]}


def _bad(scratch: dict[str, Any], make: Any) -> str:
    scratch["n"][0] += 1
    sub = scratch["vpc"].isolated_subnets
    with pytest.raises(EdgeOriginPropError) as info:
        InternalGrpcOrigin(scratch["stack"], f"T{scratch['n'][0]}", zone=scratch["zone"], origin_name=ORIGIN, service_name="t",
                           vpc=scratch["vpc"], nlb_count=1, private_health_checks=make(sub, scratch))
    return str(info.value)


BAD = {
    "not the props type": (lambda sub, s: {"health_check_source_id": "x"}, "private_health_checks="),
    "nothing": (lambda sub, s: PrivateHealthChecks(), "private_health_checks="),
    "both": (lambda sub, s: PrivateHealthChecks(health_check_source_id="x", subnets=sub, security_groups=[s["sg"]]),
             "either an existing source"),
    "empty id": (lambda sub, s: PrivateHealthChecks(health_check_source_id=""), "private_health_checks.health_check_source_id"),
    "one subnet": (lambda sub, s: PrivateHealthChecks(subnets=sub[:1], security_groups=[s["sg"]]), "2 or 3"),
    "four subnets": (lambda sub, s: PrivateHealthChecks(subnets=[*sub, sub[0]], security_groups=[s["sg"]]), "2 or 3"),
    "same zone": (lambda sub, s: PrivateHealthChecks(subnets=[sub[0], sub[0]], security_groups=[s["sg"]]), "distinct"),
    "no groups": (lambda sub, s: PrivateHealthChecks(subnets=sub, security_groups=[]), "private_health_checks.security_groups"),
    "no groups given": (lambda sub, s: PrivateHealthChecks(subnets=sub), "private_health_checks="),
    "imported, no zone ids": (lambda sub, s: PrivateHealthChecks(subnets=s["imported"], security_groups=[s["sg"]]),
                              "private_health_checks.availability_zone_ids"),
    "zone ids repeat": (lambda sub, s: PrivateHealthChecks(subnets=s["imported"], security_groups=[s["sg"]],
                                                          availability_zone_ids=["use1-az1", "use1-az1"]), "distinct zone ids"),
    "zone ids short": (lambda sub, s: PrivateHealthChecks(subnets=s["imported"], security_groups=[s["sg"]],
                                                         availability_zone_ids=["use1-az1"]), "2 distinct zone ids"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_props_are_one_error_naming_the_prop(scratch: dict[str, Any], case: str) -> None:
    make, expected = BAD[case]
    text = _bad(scratch, make)
    assert "private_health_checks" in text and expected in text and "\n" not in text


def test_imported_subnets_with_zone_ids_are_accepted(scratch: dict[str, Any]) -> None:
    origin = InternalGrpcOrigin(
        scratch["stack"], "Good", zone=scratch["zone"], origin_name="ok.svc.example.com", service_name="t", vpc=scratch["vpc"],
        nlb_count=1, private_health_checks=PrivateHealthChecks(subnets=scratch["imported"], security_groups=[scratch["sg"]],
                                                               availability_zone_ids=["use1-az1", "use1-az2"]))
    assert origin.health_check_source_id
