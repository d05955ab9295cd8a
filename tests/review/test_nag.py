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

from edge_origin.core.findings import Severity  # noqa: E402
from edge_origin.review.nag import EdgeOriginChecks  # noqa: E402


def _app(weighted: bool, ttl_override: str | list[str] | None = None) -> tuple[cdk.App, cdk.Stack, cdk.Stack]:
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
            ttl = ttl_override[i] if isinstance(ttl_override, list) else ttl_override
            rec.node.default_child.add_property_override("TTL", ttl)
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
    rules: dict[str, tuple[str, list[str]]] = {}
    for v in report.violations:
        severity, paths = rules.setdefault(v.rule_name, (v.severity, []))
        paths.extend(r.construct_path for r in v.violating_resources)
        paths.sort()
    return rules


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


def test_every_finding_keeps_its_own_message_and_resource() -> None:
    app, _, _ = _app(weighted=False, ttl_override=["3600", "7200"])
    report = EdgeOriginChecks().validate_scope(app)
    dns4 = [v for v in report.violations if v.rule_name == "EdgeOrigin-EO-DNS4"]
    assert len(dns4) == 2
    by_path = {v.violating_resources[0].construct_path: v.description for v in dns4}
    assert "TTL 3600 s" in by_path["Records/Origin0/Resource"]
    assert "TTL 7200 s" in by_path["Records/Origin1/Resource"]
    assert all(len(v.violating_resources) == 1 for v in dns4)


def test_two_findings_of_one_rule_on_one_resource_stay_two() -> None:
    from aws_cdk import aws_ec2 as ec2

    from edge_origin import GrpcEdgeDistribution, MultivalueOriginRecords, OriginAddress, OriginFleet

    app = cdk.App()
    stack = cdk.Stack(app, "S", env=cdk.Environment(account="123456789012", region="us-east-1"))
    zone = r53.HostedZone.from_hosted_zone_attributes(stack, "Z", hosted_zone_id="Z1", zone_name="example.com")
    vpc = ec2.Vpc.from_vpc_attributes(
        stack, "Vpc", vpc_id="vpc-1", vpc_cidr_block="10.0.0.0/16", availability_zones=["us-east-1a", "us-east-1b"],
        public_subnet_ids=["subnet-1", "subnet-2"],
    )
    fleet = OriginFleet(stack, "F", vpc=vpc, nlb_count=2, idle_timeout=cdk.Duration.seconds(60))
    MultivalueOriginRecords(
        stack, "R", zone=zone, record_name="o.example.com",
        addresses=[OriginAddress(a.ip_address, a.set_identifier) for a in fleet.addresses],
    )
    GrpcEdgeDistribution(stack, "E", origin_name="o.example.com", keepalive_timeout=cdk.Duration.seconds(60))
    report = EdgeOriginChecks().validate_scope(app)
    cf2 = [v for v in report.violations if v.rule_name == "EdgeOrigin-EO-CF2"]
    assert len(cf2) == 2
    assert {v.violating_resources[0].construct_path for v in cf2} == {"S/E/Distribution/Resource"}
    assert len({v.description for v in cf2}) == 2  # one names Nlb1's listener, the other Nlb2's
