"""Each condition of EO-SEC1 and the advisory EO-WATCH1: one edit of the quiet world makes exactly one
finding, on the named resource, with the key phrase; the other side of every boundary is quiet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from worlds import behavior, dist_config, one, origin, quiet, res, world

from edge_origin.core.findings import Finding, Severity
from edge_origin.core.origin_verification import METADATA_KEY
from edge_origin.model import TemplateModel
from edge_origin.model.loader import LoadedTemplate
from edge_origin.rules import ADVISORY_RULES, run_rules

CLOUDFRONT_LIST = "pl-3b927c52"
SECRET = "{{resolve:secretsmanager:arn:aws:secretsmanager:us-east-1:123456789012:secret:v-AbCdEf:SecretString:current}}"
OPEN = "NLB Nlb admits CloudFront's origin-facing prefix list pl-3b927c52 on port 443, which is every distribution"


def cf_rule(**changes: Any) -> dict[str, Any]:
    return dict({"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "SourcePrefixListId": CLOUDFRONT_LIST}, **changes)


def open_world(*ingress: dict[str, Any]) -> dict[str, Any]:
    """The quiet world with a security group on the NLB (CloudFront's list on 443 unless ``ingress``)."""
    body = world()
    body["Resources"]["NlbSg"] = {"Type": "AWS::EC2::SecurityGroup", "Properties": {
        "GroupDescription": "origin NLB", "VpcId": "vpc-1", "SecurityGroupIngress": list(ingress) or [cf_rule()]}}
    res(body, "Nlb")["SecurityGroups"] = [{"Fn::GetAtt": ["NlbSg", "GroupId"]}]
    return body


def header(body: dict[str, Any], name: str, value: Any) -> None:
    origin(body)["OriginCustomHeaders"] = [{"HeaderName": name, "HeaderValue": value}]


# --- EO-SEC1 ---------------------------------------------------------------------------------------------
def test_sec1_open_nlb_and_no_header_fires_on_the_distribution() -> None:
    f = one(open_world(), "EO-SEC1", "Dist", Severity.WARNING, f"Dist origin o (gRPC, o.example.com): {OPEN}",
            "the origin sends no origin verification header")
    assert "more NLB" not in f.message


def test_sec1_header_from_a_secret_is_quiet() -> None:
    body = open_world()
    header(body, "x-origin-verify", SECRET)
    quiet(body, "EO-SEC1")


def test_sec1_plaintext_header_fires_naming_the_header() -> None:
    body = open_world()
    header(body, "x-origin-verify", "s3cr3t-value")
    f = one(body, "EO-SEC1", "Dist", Severity.WARNING, OPEN,
            "sends verification header x-origin-verify with a plaintext value in the template")
    assert "s3cr3t-value" not in f.message


def test_sec1_header_from_a_plain_ssm_parameter_fires() -> None:
    body = open_world()
    header(body, "x-origin-verify", "{{resolve:ssm:/origin/verify}}")
    one(body, "EO-SEC1", "Dist", Severity.WARNING, "sends verification header x-origin-verify from a plain SSM parameter")


def test_sec1_header_named_in_the_distribution_metadata_counts() -> None:
    body = open_world()
    header(body, "x-edge-check", "abc")
    one(body, "EO-SEC1", "Dist", Severity.WARNING, "sends no origin verification header")
    body["Resources"]["Dist"]["Metadata"] = {METADATA_KEY: {"header": "x-edge-check"}}
    one(body, "EO-SEC1", "Dist", Severity.WARNING, "sends verification header x-edge-check with a plaintext value")
    body["Resources"]["Dist"]["Metadata"] = {METADATA_KEY: "x-edge-check"}  # not a mapping: no declared header
    one(body, "EO-SEC1", "Dist", Severity.WARNING, "sends no origin verification header")


def test_sec1_nlb_without_cloudfront_ingress_is_quiet() -> None:
    quiet(world(), "EO-SEC1")
    quiet(open_world(cf_rule(SourcePrefixListId="pl-0123456789abcdef0")), "EO-SEC1")
    quiet(open_world({"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "CidrIp": "10.0.0.0/8"}), "EO-SEC1")


@pytest.mark.parametrize(("from_port", "to_port", "fires"), [(442, 442, False), (444, 444, False), (443, 443, True),
                                                             (400, 500, True)])
def test_sec1_the_list_must_be_admitted_on_a_listener_port(from_port: int, to_port: int, fires: bool) -> None:
    body = open_world(cf_rule(FromPort=from_port, ToPort=to_port))
    if fires:
        one(body, "EO-SEC1", "Dist", Severity.WARNING, "pl-3b927c52 on port 443,")
    else:
        quiet(body, "EO-SEC1")


def test_sec1_without_listeners_in_the_templates_any_port_counts() -> None:
    body = open_world(cf_rule(FromPort=8000, ToPort=8000))
    del body["Resources"]["Listener"]
    f = one(body, "EO-SEC1", "Dist", Severity.WARNING, "admits CloudFront's origin-facing prefix list pl-3b927c52, which")
    assert "on port" not in f.message


def test_sec1_the_origin_fleet_mapping_is_cloudfront_s_list() -> None:
    body = open_world(cf_rule(SourcePrefixListId={"Fn::FindInMap": ["EdgeOriginCloudFrontOriginFacing",
                                                                     {"Ref": "AWS::Region"}, "PrefixList"]}))
    body["Mappings"] = {"EdgeOriginCloudFrontOriginFacing": {"us-east-1": {"PrefixList": CLOUDFRONT_LIST}}}
    one(body, "EO-SEC1", "Dist", Severity.WARNING, "prefix list <Fn::FindInMap EdgeOriginCloudFrontOriginFacing")
    body["Resources"]["NlbSg"]["Properties"]["SecurityGroupIngress"][0]["SourcePrefixListId"] = {
        "Fn::FindInMap": ["Other", {"Ref": "AWS::Region"}, "PrefixList"]}
    body["Mappings"] = {"Other": {"us-east-1": {"PrefixList": "pl-0123456789abcdef0"}}}
    quiet(body, "EO-SEC1")


def test_sec1_a_security_group_outside_the_templates_is_skipped() -> None:
    body = open_world()
    res(body, "Nlb")["SecurityGroups"].insert(0, "sg-0123456789abcdef0")
    one(body, "EO-SEC1", "Dist", Severity.WARNING, OPEN)


def test_sec1_long_lived_origin_is_judged_on_its_nlbs() -> None:
    body = open_world()
    behavior(body).pop("GrpcConfig")
    one(body, "EO-SEC1", "Dist", Severity.WARNING, "Dist origin o (long-lived, o.example.com)")
    res(body, "Nlb")["Type"] = "application"
    quiet(body, "EO-SEC1")
    behavior(body)["GrpcConfig"] = {"Enabled": True}  # a gRPC origin: any load balancer behind it
    one(body, "EO-SEC1", "Dist", Severity.WARNING, "Dist origin o (gRPC, o.example.com)")


def test_sec1_an_origin_of_two_behaviors_is_reported_once() -> None:
    body = open_world()
    second = {k: v for k, v in behavior(body).items() if k != "GrpcConfig"}  # the same origin, not gRPC here
    dist_config(body)["CacheBehaviors"] = [dict(second, PathPattern="/v2/*")]
    one(body, "EO-SEC1", "Dist", Severity.WARNING, "Dist origin o (gRPC, o.example.com)", OPEN)


def second_nlb(body: dict[str, Any]) -> None:
    """A second NLB (Nlb2, same security groups) behind the origin name, on its own EIP and record."""
    body["Resources"]["EipC"] = {"Type": "AWS::EC2::EIP", "Properties": {"Domain": "vpc"}}
    body["Resources"]["Nlb2"] = {"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": dict(
        res(body, "Nlb"), SubnetMappings=[{"SubnetId": {"Ref": "SubnetA"}, "AllocationId": {"Fn::GetAtt": ["EipC", "AllocationId"]}}])}
    body["Resources"]["RecordC"] = {"Type": "AWS::Route53::RecordSet", "Properties": dict(
        res(body, "RecordA"), SetIdentifier="C", ResourceRecords=[{"Ref": "EipC"}])}
    body["Resources"]["RecordC"]["Properties"].pop("HealthCheckId")


def test_sec1_more_open_nlbs_are_counted_after_the_first() -> None:
    body = open_world()
    second_nlb(body)
    one(body, "EO-SEC1", "Dist", Severity.WARNING, "NLB Nlb (and 1 more NLB(s)) admits")


# --- EO-WATCH1 (advisory) --------------------------------------------------------------------------------
(WATCH1,) = [r for r in ADVISORY_RULES if r.id == "EO-WATCH1"]


def watch(body: dict[str, Any]) -> list[Finding]:
    return run_rules(TemplateModel([LoadedTemplate("S", "t.json", body)]), [WATCH1])


def alarm(body: dict[str, Any], dimension: Any = None, expression: str = "MAX([m0])/AVG([m0])", **metric: Any) -> dict[str, Any]:
    """An imbalance alarm over the NLB's ActiveFlowCount; returns its Metrics[0] Metric for edits."""
    stat_metric = dict({"Namespace": "AWS/NetworkELB", "MetricName": "ActiveFlowCount", "Dimensions": [
        {"Name": "LoadBalancer", "Value": {"Fn::GetAtt": ["Nlb", "LoadBalancerFullName"]} if dimension is None else dimension},
    ]}, **metric)
    body["Resources"]["Imbalance"] = {"Type": "AWS::CloudWatch::Alarm", "Properties": {
        "ComparisonOperator": "GreaterThanThreshold", "EvaluationPeriods": 5, "Threshold": 2,
        "Metrics": [{"Id": "m0", "MetricStat": {"Metric": stat_metric, "Period": 60, "Stat": "Average"}, "ReturnData": False},
                    {"Id": "e", "Expression": expression, "ReturnData": True}]}}
    return stat_metric


def watch_one(body: dict[str, Any], resource: str, *phrases: str) -> None:
    found = watch(body)
    assert [(f.rule, f.resource, f.severity) for f in found] == [("EO-WATCH1", resource, Severity.INFO)], found
    for phrase in phrases:
        assert phrase in found[0].message, (phrase, found[0].message)


def test_watch1_nlb_without_an_alarm_fires() -> None:
    watch_one(world(), "Nlb", "gRPC origin o.example.com: no CloudWatch alarm compares the active flows of Nlb with the others")


def test_watch1_imbalance_alarm_by_reference_is_quiet() -> None:
    body = world()
    alarm(body)
    assert watch(body) == []
    alarm(body, expression="max([m0])/avg([m0])")  # metric math is case-insensitive
    assert watch(body) == []


def test_watch1_alarm_without_max_does_not_count() -> None:
    body = world()
    alarm(body, expression="SUM([m0])")
    watch_one(body, "Nlb", "active flows of Nlb")


def test_watch1_alarm_without_metric_queries_does_not_count() -> None:
    body = world()
    alarm(body)
    body["Resources"]["Imbalance"]["Properties"]["Metrics"] = {"Ref": "AWS::NoValue"}
    watch_one(body, "Nlb", "active flows of Nlb")


@pytest.mark.parametrize("change", [{"MetricName": "NewFlowCount"}, {"Namespace": "AWS/ApplicationELB"}])
def test_watch1_alarm_over_another_metric_does_not_count(change: dict[str, str]) -> None:
    body = world()
    alarm(body, **change)
    watch_one(body, "Nlb", "active flows of Nlb")


def test_watch1_alarm_on_another_dimension_does_not_count() -> None:
    body = world()
    metric = alarm(body)
    metric["Dimensions"][0]["Name"] = "AvailabilityZone"
    watch_one(body, "Nlb", "active flows of Nlb")


def test_watch1_literal_dimension_matches_by_the_nlb_name() -> None:
    body = world()
    res(body, "Nlb")["Name"] = "origin-a"
    alarm(body, dimension="net/origin-a/50dc6c495c0c9188")
    assert watch(body) == []
    alarm(body, dimension="net/origin-b/50dc6c495c0c9188")
    watch_one(body, "Nlb", "active flows of Nlb")


def test_watch1_literal_dimension_does_not_match_an_unnamed_nlb() -> None:
    body = world()
    alarm(body, dimension="net/origin-a/50dc6c495c0c9188")
    watch_one(body, "Nlb", "active flows of Nlb")


def _internal_world(private: str) -> dict[str, Any]:
    """Records holding literal private addresses; the NLB's subnet mapping fixes ``private``, no EIPs."""
    body = world()
    for lid in ("EipA", "EipB", "CheckA", "CheckB"):
        del body["Resources"][lid]
    res(body, "Nlb")["SubnetMappings"] = [{"SubnetId": {"Ref": "SubnetA"}, "PrivateIPv4Address": private}]
    for lid, address in (("RecordA", "10.0.0.10"), ("RecordB", "10.0.1.10")):
        res(body, lid)["ResourceRecords"] = [address]
        res(body, lid).pop("HealthCheckId")
    return body


def test_watch1_internal_nlb_found_by_its_private_address() -> None:
    watch_one(_internal_world("10.0.0.10"), "Nlb", "active flows of Nlb")
    assert watch(_internal_world("10.0.0.99")) == []


def test_watch1_the_finding_is_on_the_first_nlb_left_out() -> None:
    body = world()
    second_nlb(body)
    watch_one(body, "Nlb", "active flows of Nlb, Nlb2 with the others")
    alarm(body)  # covers Nlb only
    watch_one(body, "Nlb2", "active flows of Nlb2 with the others")


def test_sec1_findings_whole_on_the_shipped_example():
    from importlib import resources

    from edge_origin.model import load_model
    from edge_origin.rules import RULES_BY_ID, run_rules
    from edge_origin.rules.sec1_origin_verification import FIX

    path = Path(str(resources.files("edge_origin.data").joinpath("rule_examples/eo-sec1-fire.yaml")))
    found = {f.resource: f for f in run_rules(load_model([path]), [RULES_BY_ID["EO-SEC1"]])}
    common = ("origin o (gRPC, o.example.com): NLB Nlb admits CloudFront's origin-facing prefix list pl-3b927c52, which is "
              "every distribution of every AWS customer, and the origin sends ")
    assert found["Dist"].message == ("Dist " + common + "no origin verification header: anyone's distribution reaches the "
                                     "pods around this one's WAF, geo rules and logs")
    assert found["DistPlain"].message == (
        "DistPlain " + common + "verification header x-origin-verify with a plaintext value in the template (anyone who "
        "reads the template, the stack or the distribution config has it): anyone's distribution reaches the pods "
        "around this one's WAF, geo rules and logs")
    assert {f.fix for f in found.values()} == {FIX}
