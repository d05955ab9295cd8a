"""The smaller constructs on their own: internal origin, bindings with a cluster, exposed parts."""

from __future__ import annotations

import aws_cdk as cdk
import yaml
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_route53 as route53
from aws_cdk.assertions import Template

from edge_origin import GrpcEdgeToOrigin, InternalGrpcOrigin, OriginFleet, TargetGroupBindings
from tests.cdk_apps import quiet_app

ENV = cdk.Environment(account="123456789012", region="us-east-1")


def _stack() -> cdk.Stack:
    return cdk.Stack(cdk.App(), "S", env=ENV)


def test_internal_origin_uses_private_addresses_and_alarm_health_checks() -> None:
    stack = _stack()
    zone = route53.HostedZone.from_hosted_zone_attributes(stack, "Z", hosted_zone_id="Z1", zone_name="svc.internal")
    origin = InternalGrpcOrigin(stack, "Tax", zone=zone, origin_name="tax.svc.internal", service_name="tax")
    template = Template.from_stack(stack).to_json()
    resources = template["Resources"].values()
    nlbs = [r["Properties"] for r in resources if r["Type"] == "AWS::ElasticLoadBalancingV2::LoadBalancer"]
    assert [n["Scheme"] for n in nlbs] == ["internal", "internal"]
    assert not [r for r in resources if r["Type"] == "AWS::EC2::EIP"]
    assert not [r for r in resources if r["Type"] == "AWS::CloudFront::Distribution"]
    records = [r["Properties"] for r in resources if r["Type"] == "AWS::Route53::RecordSet"]
    ips = [r["ResourceRecords"][0] for r in records]
    assert len(set(ips)) == len(ips) == 6 and all(ip.startswith("10.0.") for ip in ips)
    checks = [r["Properties"]["HealthCheckConfig"] for r in resources if r["Type"] == "AWS::Route53::HealthCheck"]
    assert {c["Type"] for c in checks} == {"CLOUDWATCH_METRIC"} and len(checks) == 2
    assert all(r["MultiValueAnswer"] and r["HealthCheckId"] for r in records)
    assert len(origin.alarms) == 2
    groups = [r["Properties"] for r in resources if r["Type"] == "AWS::ElasticLoadBalancingV2::TargetGroup"]
    unhealthy = "target_health_state.unhealthy.connection_termination.enabled"  # AWS's default true: off (EO-NLB3)
    assert len(groups) == 2 and all({"Key": unhealthy, "Value": "false"} in g["TargetGroupAttributes"] for g in groups)


def test_bindings_applied_only_with_an_imported_cluster_and_its_provider() -> None:
    stack = _stack()
    fleet = OriginFleet(stack, "F", nlb_count=1)
    provider = eks.KubectlProvider.from_kubectl_provider_attributes(
        stack,
        "Kubectl",
        function_arn="arn:aws:lambda:us-east-1:123456789012:function:kubectl-provider",
        handler_role=iam.Role.from_role_arn(stack, "HandlerRole", "arn:aws:iam::123456789012:role/kubectl-handler"),
        kubectl_role_arn="arn:aws:iam::123456789012:role/kubectl",
    )
    cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="prod", kubectl_provider=provider)
    bindings = TargetGroupBindings(
        stack, "B", target_groups={"nlb1": fleet.target_groups[0]}, service_name="svc", service_port=8443, cluster=cluster
    )
    template = Template.from_stack(stack).to_json()
    manifests = [r for r in template["Resources"].values() if r["Type"] == "Custom::AWSCDK-EKS-KubernetesResource"]
    functions = [r for r in template["Resources"].values() if r["Type"] == "AWS::Lambda::Function"]
    assert len(manifests) == 1 and not functions
    assert "TargetGroupBinding" in str(manifests[0]["Properties"]["Manifest"])
    assert yaml.safe_load(bindings.render_yaml())["spec"]["targetType"] == "ip"


def test_pattern_exposes_its_parts() -> None:
    stack = _stack()
    zone = route53.HostedZone.from_hosted_zone_attributes(stack, "Z", hosted_zone_id="Z1", zone_name="example.com")
    pattern = GrpcEdgeToOrigin(stack, "P", zone=zone, origin_name="o.example.com", service_name="s", nlb_count=3)
    assert len(pattern.load_balancers) == 3 and len(pattern.target_groups) == 3
    assert len(pattern.records.records) == 3 * len(pattern.fleet.subnets)
    assert pattern.distribution is pattern.edge.distribution
    assert {a.set_identifier for a in pattern.fleet.addresses} == {r.address.set_identifier for r in pattern.records.records}


def test_existing_vpc_and_environment_agnostic_stack_use_a_region_mapping() -> None:
    stack = cdk.Stack(cdk.App(), "Agnostic")
    vpc = ec2.Vpc.from_vpc_attributes(
        stack,
        "Existing",
        vpc_id="vpc-0123456789abcdef0",
        vpc_cidr_block="10.1.0.0/16",
        availability_zones=["eu-west-1a", "eu-west-1b"],
        public_subnet_ids=["subnet-aaaa1111", "subnet-bbbb2222"],
    )
    fleet = OriginFleet(stack, "F", vpc=vpc, nlb_count=1)
    template = Template.from_stack(stack).to_json()
    assert template["Mappings"]["EdgeOriginCloudFrontOriginFacing"]["eu-west-1"] == {"PrefixListId": "pl-4fa04526"}
    ingress = [r["Properties"] for r in template["Resources"].values() if r["Type"] == "AWS::EC2::SecurityGroupIngress"]
    assert ingress[0]["SourcePrefixListId"] == {
        "Fn::FindInMap": ["EdgeOriginCloudFrontOriginFacing", {"Ref": "AWS::Region"}, "PrefixListId"]
    }
    assert [a.zone for a in fleet.addresses] == ["eu-west-1a", "eu-west-1b"]
    assert "Vpc" not in {c.node.id for c in fleet.node.children}


def test_explicit_prefix_list_and_checker_ranges_fit_one_group() -> None:
    stack = _stack()
    fleet = OriginFleet(
        stack, "F", nlb_count=1, cloudfront_prefix_list_id="pl-0123abcd", route53_health_checker_cidrs=["192.0.2.0/24"]
    )
    assert len(fleet.members[0].security_groups) == 1
    template = Template.from_stack(stack).to_json()
    assert "pl-0123abcd" in str(template) and "Mappings" not in template



def test_the_route53_managed_prefix_list_admits_the_checkers_and_eo_sg1_reads_it() -> None:
    """Issue 52: com.amazonaws.<region>.route53-healthchecks (weight 25) instead of the shipped ranges; the group's
    Metadata names it so EO-SG1 judges it (and not both ways at once)."""
    import pytest

    from edge_origin.core.errors import EdgeOriginPropError
    from edge_origin.model import TemplateModel
    from edge_origin.rules import get_rule, run_rules

    stack = _stack()
    OriginFleet(stack, "F", nlb_count=1, route53_health_checker_prefix_list_id="pl-0a1b2c3d4e5f60718")
    template = Template.from_stack(stack).to_json()
    groups = [r for r in template["Resources"].values() if r["Type"] == "AWS::EC2::SecurityGroup"]
    ingress = [r["Properties"] for r in template["Resources"].values() if r["Type"] == "AWS::EC2::SecurityGroupIngress"]
    assert [i["FromPort"] for i in ingress if i.get("SourcePrefixListId") == "pl-0a1b2c3d4e5f60718"] == [443]
    assert not [i for i in ingress if "CidrIp" in i]  # no shipped ranges beside the list
    named = [g["Metadata"]["edge-origin:route53-healthchecks-prefix-list"] for g in groups if "Metadata" in g]
    assert named == ["pl-0a1b2c3d4e5f60718"]  # 55 (CloudFront's list) + 25 > 60 rules: two groups, one names it
    records = {"Check": {"Type": "AWS::Route53::HealthCheck", "Properties": {"HealthCheckConfig": {
        "Type": "TCP", "Port": 443, "IPAddress": {"Ref": next(k for k, r in template["Resources"].items() if r["Type"] == "AWS::EC2::EIP")}}}}}
    template["Resources"].update(records)
    assert run_rules(TemplateModel.from_templates({"S": template}), [get_rule("EO-SG1")]) == []
    with pytest.raises(EdgeOriginPropError, match="route53_health_checker_prefix_list_id"):
        OriginFleet(_stack(), "F", nlb_count=1, route53_health_checker_prefix_list_id="pl-0a1b2c3d",
                    route53_health_checker_cidrs=["192.0.2.0/24"])


def test_more_targets_than_an_nlb_takes_is_a_warning() -> None:
    """Issue 52: with cross-zone on an NLB takes at most 500 targets (500 a zone without)."""
    from aws_cdk.assertions import Annotations, Match

    def warnings(**kw) -> list[str]:  # noqa: ANN003
        stack = _stack()
        OriginFleet(stack, "F", nlb_count=1, **kw)
        return [str(m.entry.data) for m in Annotations.from_stack(stack).find_warning("*", Match.string_like_regexp("expected_targets"))]

    assert warnings(expected_targets=500) == []
    [text] = warnings(expected_targets=501)
    assert "cross-zone load balancing on takes at most 500 targets" in text
    assert warnings(expected_targets=501, cross_zone_enabled=False) == []  # 500 a zone, 3 zones here


def test_a_fleet_on_its_own_sets_an_idle_timeout_its_targets_keep_track_of() -> None:
    """The default listener idle timeout is 350 s, set explicitly: no longer than the targets' connection
    tracking (TcpEstablishedTimeout, 350 s on current Nitro), which EO-NLB1 holds an origin's listener to."""
    stack = _stack()
    fleet = OriginFleet(stack, "F", nlb_count=1)
    assert fleet.idle_timeout_seconds == 350
    listeners = Template.from_stack(stack).find_resources("AWS::ElasticLoadBalancingV2::Listener")
    attributes = [a for li in listeners.values() for a in li["Properties"].get("ListenerAttributes", [])]
    assert {"Key": "tcp.idle_timeout.seconds", "Value": "350"} in attributes, attributes


def test_fleet_target_groups_turn_unhealthy_termination_off_and_a_plain_target_group_fires() -> None:
    """Issue 52: AWS's default (unset) resets every stream of a pod that fails one health check. OriginFleet writes
    false (quiet); ``unhealthy_connection_termination=True`` writes true and a CDK target group that leaves it
    unset gets AWS's default: both fire EO-NLB3. One synth, validation off."""
    from aws_cdk import aws_elasticloadbalancingv2 as elbv2

    from edge_origin.model import TemplateModel
    from edge_origin.rules import get_rule, run_rules

    app = quiet_app()
    stack = cdk.Stack(app, "S", env=ENV)
    quiet = OriginFleet(stack, "Quiet", nlb_count=1)
    loud = OriginFleet(stack, "Loud", nlb_count=1, vpc=quiet.vpc, unhealthy_connection_termination=True, name_prefix="loud")
    plain = elbv2.NetworkTargetGroup(stack, "Plain", vpc=quiet.vpc, port=8443, protocol=elbv2.Protocol.TCP,
                                     target_type=elbv2.TargetType.IP, connection_termination=True)
    template = app.synth().get_stack_by_name("S").template
    ids = {name: stack.get_logical_id(t.node.default_child)
           for name, t in (("quiet", quiet.target_groups[0]), ("loud", loud.target_groups[0]), ("plain", plain))}
    key = "target_health_state.unhealthy.connection_termination.enabled"
    found = {f.resource: f.message for f in run_rules(TemplateModel.from_templates({"S": template}), [get_rule("EO-NLB3")])
             if key in f.message}
    assert set(found) == {ids["loud"], ids["plain"]}
    assert "sets it true" in found[ids["loud"]] and "unset: AWS's default is true" in found[ids["plain"]]
    # the synth plugin reads the same assembly: the same two, at their construct paths, warnings
    from edge_origin.review.nag import EdgeOriginChecks

    paths = {r.construct_path for v in EdgeOriginChecks().validate_scope(app).violations
             if v.rule_name == "EdgeOrigin-EO-NLB3" and key in v.description and v.severity == "warning"
             for r in v.violating_resources}
    assert paths == {t.node.default_child.node.path for t in (loud.target_groups[0], plain)}
