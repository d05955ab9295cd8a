"""The smaller constructs on their own: internal origin, bindings with a cluster, exposed parts."""

from __future__ import annotations

import aws_cdk as cdk
import yaml
from aws_cdk import aws_eks as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_route53 as route53
from aws_cdk.assertions import Template
from edge_origin import GrpcEdgeToOrigin, InternalGrpcOrigin, OriginFleet, TargetGroupBindings

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
