"""The cdk-nag 3 pack on small L2 stacks: same rules, resolved templates, cross-stack."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
os.environ.setdefault("CDK_VALIDATION", "false")

import aws_cdk as cdk  # noqa: E402
from aws_cdk import aws_cloudfront as cloudfront  # noqa: E402
from aws_cdk import aws_cloudfront_origins as origins  # noqa: E402
from aws_cdk import aws_route53 as r53  # noqa: E402

from edge_origin.findings import Severity  # noqa: E402
from edge_origin.nag import EdgeOriginChecks  # noqa: E402


def _app(weighted: bool, ttl_override: str | None = None) -> tuple[cdk.App, cdk.Stack, cdk.Stack]:
    app = cdk.App()
    records = cdk.Stack(app, "Records")
    edge = cdk.Stack(app, "Edge")
    zone = r53.PublicHostedZone(records, "Zone", zone_name="example.com")
    for i, ip in enumerate(["192.0.2.1", "192.0.2.2"]):
        kwargs: dict = {"weight": 10}
        if not weighted:
            check = r53.HealthCheck(records, f"Check{i}", type=r53.HealthCheckType.TCP, ip_address=ip, port=443)
            kwargs = {"multi_value_answer": True, "health_check": check}
        rec = r53.ARecord(
            records, f"Origin{i}", zone=zone, record_name="origin", set_identifier=f"z{i}",
            target=r53.RecordTarget.from_ip_addresses(ip), ttl=cdk.Duration.seconds(60), **kwargs,
        )
        if ttl_override:
            rec.node.default_child.add_property_override("TTL", ttl_override)
    cloudfront.Distribution(
        edge, "Dist",
        http_version=cloudfront.HttpVersion.HTTP2,
        default_behavior=cloudfront.BehaviorOptions(
            origin=origins.HttpOrigin("origin.example.com", protocol_policy=cloudfront.OriginProtocolPolicy.HTTPS_ONLY),
            enable_grpc=True,
            allowed_methods=cloudfront.AllowedMethods.ALLOW_ALL,
            cache_policy=cloudfront.CachePolicy.CACHING_DISABLED,
        ),
    )
    return app, records, edge


def _by_rule(report: cdk.PolicyValidationPluginReport) -> dict[str, tuple[str, list[str]]]:
    return {v.rule_name: (v.severity, sorted(r.construct_path for r in v.violating_resources)) for v in report.violations}


@pytest.fixture(scope="module")
def weighted() -> tuple[cdk.App, cdk.Stack, cdk.Stack]:
    return _app(weighted=True)


def test_weighted_grpc_origin_fails_across_stacks(weighted: tuple[cdk.App, cdk.Stack, cdk.Stack]) -> None:
    app, records, _ = weighted
    pack = EdgeOriginChecks()
    report = pack.validate_scope(app)
    assert report.success is False
    rules = _by_rule(report)
    assert rules["EdgeOrigin-EO-DNS1"] == ("error", ["Records/Origin0/Resource", "Records/Origin1/Resource"])
    assert {f.rule for f in pack.findings} == {"EO-DNS1"}


def test_scope_limits_where_findings_are_reported(weighted: tuple[cdk.App, cdk.Stack, cdk.Stack]) -> None:
    _, _, edge = weighted
    report = EdgeOriginChecks().validate_scope(edge)  # the records live in the other stack
    assert "EdgeOrigin-EO-DNS1" not in _by_rule(report)


def test_warnings_do_not_fail_synth_unless_fail_on_warning() -> None:
    app, _, _ = _app(weighted=False, ttl_override="3600")  # raw override, L1 attribute says 60
    report = EdgeOriginChecks().validate_scope(app)
    rules = _by_rule(report)
    assert rules["EdgeOrigin-EO-DNS4"][0] == "warning"
    assert "EdgeOrigin-EO-DNS1" not in rules
    assert report.success is True
    strict = EdgeOriginChecks(fail_on=Severity.WARNING).validate_scope(app)
    assert _by_rule(strict)["EdgeOrigin-EO-DNS4"][0] == "error" and strict.success is False
