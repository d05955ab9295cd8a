"""Issue 31: GrpcEdgeToOrigin(origin_access="vpc-origin"): CloudFront -> VPC origin -> internal NLB -> EKS."""

from __future__ import annotations

import copy
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest

from edge_origin import GrpcEdgeToOrigin
from edge_origin.core.errors import EdgeOriginPropError
from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.rules import run_rules
from tests.cdk_apps import quiet_app

SNAPSHOTS = Path(__file__).parents[1] / "snapshots"
VPC_SNAPSHOT = SNAPSHOTS / "TelemetryIngestVpcOrigin.template.json"


def _stack() -> cdk.Stack:
    app = quiet_app(context={"aws:cdk:enable-path-metadata": False})
    return cdk.Stack(app, "S", env=cdk.Environment(account="123456789012", region="us-east-1"))


def _template(stack: cdk.Stack) -> dict[str, Any]:
    return cdk.Stage.of(stack).synth(validate_on_synthesis=False).get_stack_by_name(stack.stack_name).template


def _pattern(stack: cdk.Stack, **kwargs: Any) -> GrpcEdgeToOrigin:
    kwargs.setdefault("origin_access", "vpc-origin")
    return GrpcEdgeToOrigin(stack, "Ingest", origin_name="origin.telemetry.example.com", service_name="ingest", **kwargs)


@pytest.fixture(scope="module")
def made() -> tuple[GrpcEdgeToOrigin, dict[str, Any]]:
    stack = _stack()
    pattern = _pattern(stack)
    return pattern, _template(stack)


def _of(template: dict[str, Any], kind: str) -> dict[str, Any]:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == kind}


def test_parts_that_do_not_apply_are_not_made(made: tuple[GrpcEdgeToOrigin, dict[str, Any]]) -> None:
    pattern, template = made
    kinds = Counter(r["Type"] for r in template["Resources"].values())
    for absent in ("AWS::EC2::EIP", "AWS::Route53::RecordSet", "AWS::Route53::HealthCheck"):
        assert kinds[absent] == 0, absent
    assert kinds["AWS::CloudFront::VpcOrigin"] == 1 and kinds["AWS::ElasticLoadBalancingV2::LoadBalancer"] == 1
    assert pattern.records is None and pattern.origin_access == "vpc-origin"
    assert pattern.bindings is not None and pattern.watch is not None and pattern.edge.origin_verification is not None
    (nlb,) = _of(template, "AWS::ElasticLoadBalancingV2::LoadBalancer").values()
    assert nlb["Properties"]["Scheme"] == "internal" and nlb["Properties"]["SecurityGroups"]
    assert all("AllocationId" not in m and "PrivateIPv4Address" not in m for m in nlb["Properties"]["SubnetMappings"])
    (listener,) = _of(template, "AWS::ElasticLoadBalancingV2::Listener").values()
    assert listener["Properties"]["Protocol"] == "TCP"  # NLBs with TLS listeners can't be VPC origins


def test_security_group_admits_only_the_cloudfront_origin_facing_list(made: tuple[GrpcEdgeToOrigin, dict[str, Any]]) -> None:
    _, template = made
    rules = [r["Properties"] for r in _of(template, "AWS::EC2::SecurityGroupIngress").values()]
    inline = [i for g in _of(template, "AWS::EC2::SecurityGroup").values() for i in g["Properties"].get("SecurityGroupIngress", [])]
    assert inline == [] and len(rules) == 1
    assert rules[0]["SourcePrefixListId"] == "pl-3b927c52" and rules[0]["FromPort"] == rules[0]["ToPort"] == 443


def test_the_vpc_origins_service_group_instead(made: Any) -> None:
    stack = _stack()
    _pattern(stack, vpc_origin_security_group_id="sg-0123456789abcdef0")
    template = _template(stack)
    rules = [r["Properties"] for r in _of(template, "AWS::EC2::SecurityGroupIngress").values()]
    rules += [i for g in _of(template, "AWS::EC2::SecurityGroup").values() for i in g["Properties"].get("SecurityGroupIngress", [])]
    assert [(r.get("SourceSecurityGroupId"), r.get("SourcePrefixListId"), r["FromPort"]) for r in rules] == [
        ("sg-0123456789abcdef0", None, 443)
    ]


def test_origin_is_the_vpc_origin_with_the_profile_timeouts(made: tuple[GrpcEdgeToOrigin, dict[str, Any]]) -> None:
    pattern, template = made
    (dist,) = _of(template, "AWS::CloudFront::Distribution").values()
    (origin,) = dist["Properties"]["DistributionConfig"]["Origins"]
    assert "CustomOriginConfig" not in origin and origin["DomainName"] == "origin.telemetry.example.com"
    cfg = origin["VpcOriginConfig"]
    assert (cfg["OriginKeepaliveTimeout"], cfg["OriginReadTimeout"]) == (
        round(pattern.profile.cloudfront_keepalive_timeout_s), round(pattern.profile.cloudfront_read_timeout_s)
    )
    assert [h["HeaderName"] for h in origin["OriginCustomHeaders"]] == ["x-origin-verify"]
    (vpc_origin,) = _of(template, "AWS::CloudFront::VpcOrigin").values()
    assert vpc_origin["Properties"]["VpcOriginEndpointConfig"]["OriginProtocolPolicy"] == "https-only"


def test_rules_are_quiet_on_it(made: tuple[GrpcEdgeToOrigin, dict[str, Any]]) -> None:
    assert run_rules(TemplateModel.from_templates({"S": made[1]})) == []


@pytest.mark.parametrize(
    ("kwargs", "prop", "allowed"),
    [
        ({"origin_access": "private-link"}, "origin_access", "public-eip"),
        ({"nlb_count": 2}, "nlb_count", "1 with origin_access='vpc-origin'"),
        ({"route53_health_checker_cidrs": ["15.177.0.0/18"]}, "route53_health_checker_cidrs", "unset with origin_access"),
        ({"route53_health_checker_prefix_list_id": "pl-0a1b2c3d"}, "route53_health_checker_prefix_list_id",
         "unset with origin_access"),
    ],
)
def test_validation_names_the_prop_and_the_allowed_values(kwargs: dict[str, Any], prop: str, allowed: str) -> None:
    with pytest.raises(EdgeOriginPropError) as info:
        _pattern(_stack(), **kwargs)
    assert info.value.prop == prop and allowed in info.value.allowed


def test_public_path_needs_a_zone_and_refuses_the_service_group() -> None:
    with pytest.raises(EdgeOriginPropError, match="zone"):
        GrpcEdgeToOrigin(_stack(), "P", origin_name="origin.example.com", service_name="ingest")
    from aws_cdk import aws_route53 as route53

    stack = _stack()
    zone = route53.HostedZone.from_hosted_zone_attributes(stack, "Z", hosted_zone_id="Z0123456789EXAMPLE", zone_name="example.com")
    with pytest.raises(EdgeOriginPropError) as info:
        GrpcEdgeToOrigin(
            stack, "P", zone=zone, origin_name="origin.example.com", service_name="ingest", origin_access="public-eip",
            vpc_origin_security_group_id="sg-0123456789abcdef0",
        )
    assert info.value.prop == "vpc_origin_security_group_id"


def test_keepalive_above_the_vpc_origin_default_quota_synthesizes() -> None:
    """Issue 37: VPC origin timeouts are adjustable quotas; 150 s is a warning, not a refusal (was refused)."""
    from edge_origin import ConnectionProfile

    profile = ConnectionProfile.preset("streaming-telemetry")
    profile = type(profile)(**{**profile.__dict__, "cloudfront_keepalive_timeout_s": 150, "cloudfront_extended_timeouts": True,
                               "nlb_idle_timeout_s": 350})
    _pattern(_stack(), connection_profile=profile)


def test_snapshot() -> None:
    """The second reference stack's golden template; refresh with UPDATE_SNAPSHOTS=1 and review."""
    from stacks.app_builder import build_vpc_origin_stack, cdk_json_context
    from stacks.reference import ReferenceConfig

    context = {**cdk_json_context(), "aws:cdk:enable-path-metadata": True, "aws:cdk:version-reporting": False}
    app = quiet_app(context=context)
    stack = build_vpc_origin_stack(app, ReferenceConfig.from_context(app.node))
    rendered = json.dumps(_template(stack), indent=1, sort_keys=True) + "\n"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        VPC_SNAPSHOT.write_text(rendered)
    assert rendered == VPC_SNAPSHOT.read_text(), "template changed: review, then UPDATE_SNAPSHOTS=1 to accept"


def test_one_wrong_setting_in_each_topology_is_caught() -> None:
    vpc = json.loads(VPC_SNAPSHOT.read_text())
    public = json.loads((SNAPSHOTS / "TelemetryIngest.template.json").read_text())
    assert run_rules(TemplateModel.from_templates({"S": copy.deepcopy(vpc)})) == []
    assert run_rules(TemplateModel.from_templates({"S": copy.deepcopy(public)})) == []
    (dist,) = _of(vpc, "AWS::CloudFront::Distribution").values()
    dist["Properties"]["DistributionConfig"]["Origins"][0]["VpcOriginConfig"]["OriginKeepaliveTimeout"] = 150
    # issue 37: above the default quota (120 s) is a warning naming the quota; 0 s is no timeout at all
    assert {(f.rule, f.severity) for f in run_rules(TemplateModel.from_templates({"S": vpc}))} >= {("EO-VPC1", Severity.WARNING)}
    dist["Properties"]["DistributionConfig"]["Origins"][0]["VpcOriginConfig"]["OriginKeepaliveTimeout"] = 0
    assert {(f.rule, f.severity) for f in run_rules(TemplateModel.from_templates({"S": vpc}))} >= {("EO-VPC1", Severity.ERROR)}
    (dist,) = _of(public, "AWS::CloudFront::Distribution").values()
    dist["Properties"]["DistributionConfig"]["Origins"][0]["CustomOriginConfig"]["OriginKeepaliveTimeout"] = 349
    assert "EO-CF2" in {f.rule for f in run_rules(TemplateModel.from_templates({"S": public}))}


def test_both_topologies_synthesize_clean_under_both_packs(tmp_path: Path) -> None:
    from stacks.app_builder import build_reference_app, cdk_json_context

    app, _ = build_reference_app(cdk_json_context(), outdir=str(tmp_path), vpc_origin=True)
    app.synth()  # raises ValidationFailed on any error of either pack
    report = json.loads((tmp_path / "validation-report.json").read_text())
    conclusions = {p["pluginName"]: p["conclusion"] for p in report["pluginReports"]}
    assert conclusions.get("AwsSolutions") == "success" and conclusions.get("EdgeOrigin", "success") == "success"
    assert (tmp_path / "TelemetryIngestVpcOrigin.template.json").exists()
    assert (tmp_path / "k8s" / "TelemetryIngestVpcOrigin" / "Bindings.yaml").exists()
