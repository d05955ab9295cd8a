"""The lead's path, end to end on small CDK stacks: profile -> listener/origin settings + Metadata -> EO-KA*."""

from __future__ import annotations

import os

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
os.environ.setdefault("CDK_VALIDATION", "false")

import aws_cdk as cdk  # noqa: E402
from aws_cdk import aws_cloudfront as cloudfront  # noqa: E402
from aws_cdk import aws_cloudfront_origins as origins  # noqa: E402
from aws_cdk import aws_ec2 as ec2  # noqa: E402
from aws_cdk import aws_elasticloadbalancingv2 as elbv2  # noqa: E402

from edge_origin.profile import PROFILE_METADATA_KEY, ConnectionProfile  # noqa: E402
from edge_origin.review.nag import EdgeOriginChecks  # noqa: E402

PROFILE = ConnectionProfile.preset("streaming-telemetry").replace(server_max_connection_idle_s=None)


def _app(listener_idle_s: float, read_timeout_s: float) -> cdk.App:
    app = cdk.App()
    stack = cdk.Stack(app, "Origin")
    vpc = ec2.Vpc(stack, "Vpc", max_azs=2, nat_gateways=0)
    nlb = elbv2.NetworkLoadBalancer(stack, "Nlb", vpc=vpc, internet_facing=True)
    listener = nlb.add_listener(
        "Grpc", port=443, protocol=elbv2.Protocol.TCP, tcp_idle_timeout=cdk.Duration.seconds(listener_idle_s)
    )
    listener.add_targets("Pods", port=8443, protocol=elbv2.Protocol.TCP)
    listener.node.default_child.add_metadata(PROFILE_METADATA_KEY, PROFILE.to_metadata())
    dist = cloudfront.Distribution(
        stack,
        "Dist",
        http_version=cloudfront.HttpVersion.HTTP2,
        default_behavior=cloudfront.BehaviorOptions(
            origin=origins.HttpOrigin(
                "origin.example.com",
                protocol_policy=cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
                keepalive_timeout=cdk.Duration.seconds(PROFILE.cloudfront_keepalive_timeout_s),
                read_timeout=cdk.Duration.seconds(read_timeout_s),
            ),
            enable_grpc=True,
            allowed_methods=cloudfront.AllowedMethods.ALLOW_ALL,
            cache_policy=cloudfront.CachePolicy.CACHING_DISABLED,
        ),
    )
    dist.node.default_child.add_metadata(PROFILE_METADATA_KEY, PROFILE.to_metadata())
    return app


def _ka(app: cdk.App) -> dict[str, list[str]]:
    pack = EdgeOriginChecks()
    pack.validate_scope(app)
    out: dict[str, list[str]] = {}
    for f in pack.findings:
        if f.rule.startswith("EO-KA"):
            out.setdefault(f.rule, []).append(f.message)
    return out


def test_settings_from_the_profile_are_quiet() -> None:
    # CDK drops nulls from synthesized Metadata: an unset field with a non-None default is listed under "unset"
    assert PROFILE.to_metadata()["unset"] == ["server_max_connection_idle_s"]
    assert None not in PROFILE.to_metadata().values()
    app = _app(PROFILE.nlb_idle_timeout_s, PROFILE.cloudfront_read_timeout_s)
    assert _ka(app) == {}
    template = app.synth().get_stack_by_name("Origin").template
    (listener,) = [r for r in template["Resources"].values() if r["Type"] == "AWS::ElasticLoadBalancingV2::Listener"]
    assert ConnectionProfile.from_metadata(listener["Metadata"][PROFILE_METADATA_KEY]) == PROFILE


def test_drift_fails_synth_validation() -> None:
    app = _app(listener_idle_s=400, read_timeout_s=30)
    found = _ka(app)
    assert set(found) == {"EO-KA1", "EO-KA2"}
    assert "idle timeout 400 s" in found["EO-KA1"][0] and "nlb_idle_timeout_s 350 s" in found["EO-KA1"][0]
    assert "OriginReadTimeout 30 s" in found["EO-KA2"][0] and "cloudfront_read_timeout_s 60 s" in found["EO-KA2"][0]
    report = EdgeOriginChecks().validate_scope(app)
    assert report.success is False
    assert {"EdgeOrigin-EO-KA1", "EdgeOrigin-EO-KA2"} <= {v.rule_name for v in report.violations}
