"""Bad props fail at construction with an error naming the prop, the value and what is allowed."""

from __future__ import annotations

import re
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks as eks
from aws_cdk import aws_route53 as route53
from aws_cdk.assertions import Annotations, Match

from edge_origin import (
    ConnectionProfile,
    EdgeOriginPropError,
    GrpcEdgeDistribution,
    GrpcEdgeToOrigin,
    MultivalueOriginRecords,
    OriginAddress,
    OriginFleet,
    TargetGroupBindings,
)
from stacks.reference import ReferenceConfig

# The keepalive incident: client pings every 20 s, server allows one per 5 min and no idle pings.
INCIDENT_PROFILE = ConnectionProfile(
    client_keepalive_time_s=20, server_min_ping_interval_s=300, server_permit_without_calls=False
)


def _stack() -> cdk.Stack:
    return cdk.Stack(cdk.App(), "S", env=cdk.Environment(account="123456789012", region="us-east-1"))


def _zone(stack: cdk.Stack) -> route53.IHostedZone:
    return route53.HostedZone.from_hosted_zone_attributes(stack, "Zone", hosted_zone_id="Z1", zone_name="example.com")


def _pattern(**overrides: Any) -> GrpcEdgeToOrigin:
    stack = _stack()
    props: dict[str, Any] = {"zone": _zone(stack), "origin_name": "origin.example.com", "service_name": "ingest"}
    props.update(overrides)
    return GrpcEdgeToOrigin(stack, "P", **props)


def _records(**overrides: Any) -> MultivalueOriginRecords:
    stack = _stack()
    props: dict[str, Any] = {
        "zone": _zone(stack),
        "record_name": "origin.example.com",
        "addresses": [OriginAddress("192.0.2.1", "a"), OriginAddress("192.0.2.2", "b")],
    }
    props.update(overrides)
    return MultivalueOriginRecords(stack, "R", **props)


def _edge(**overrides: Any) -> GrpcEdgeDistribution:
    props: dict[str, Any] = {"origin_name": "origin.example.com"}
    props.update(overrides)
    return GrpcEdgeDistribution(_stack(), "E", **props)


CASES = [
    ("nlb_count=0", lambda: _pattern(nlb_count=0), "nlb_count", "1..20"),
    ("nlb_count='2'", lambda: _pattern(nlb_count="2"), "nlb_count", "integer"),
    ("max_azs=1", lambda: _pattern(max_azs=1), "max_azs", "2..6"),
    ("idle 30s", lambda: _fleet(idle_timeout=cdk.Duration.seconds(30)), "idle_timeout", "60..6000"),
    ("idle 7000s", lambda: _fleet(idle_timeout=cdk.Duration.seconds(7000)), "idle_timeout", "60..6000"),
    ("interval 20s", lambda: _records(request_interval=cdk.Duration.seconds(20)), "request_interval", "10, 30"),
    ("threshold 0", lambda: _records(failure_threshold=0), "failure_threshold", "1..10"),
    ("threshold 11", lambda: _records(failure_threshold=11), "failure_threshold", "1..10"),
    ("ttl -1", lambda: _records(ttl=-1), "ttl", "0..2147483647"),
    ("ttl too big", lambda: _records(ttl=2**31), "ttl", "0..2147483647"),
    ("name outside zone", lambda: _records(record_name="origin.example.org"), "record_name", "inside the zone"),
    ("empty record name", lambda: _records(record_name=" "), "record_name", "non-empty"),
    ("listener port 0", lambda: _pattern(listener_port=0), "listener_port", "1..65535"),
    ("target port 70000", lambda: _pattern(target_port=70000), "target_port", "1..65535"),
    # issue 37: origin timeouts are adjustable quotas (above the default: a warning); only non-timeouts are refused
    ("keepalive 0", lambda: _edge(keepalive_timeout=0), "keepalive_timeout", "1..3600"),
    ("keepalive 3601", lambda: _edge(keepalive_timeout=cdk.Duration.seconds(3601)), "keepalive_timeout", "1..3600"),
    ("read timeout 4000", lambda: _edge(read_timeout=cdk.Duration.seconds(4000)), "read_timeout", "1..3600"),
    ("completion 0", lambda: _edge(response_completion_timeout=0), "response_completion_timeout", "1..3600"),
    ("completion 4000: aws-cdk-lib's bound, not CloudFront's", lambda: _edge(response_completion_timeout=4000),
     "response_completion_timeout", "1..3600 (aws-cdk-lib's HttpOrigin check; CloudFront's API sets no maximum"),
    ("completion below read", lambda: _edge(response_completion_timeout=30), "response_completion_timeout",
     "at least read_timeout (60s)"),
    ("ip type IPv4", lambda: _edge(origin_ip_address_type="IPv4"), "origin_ip_address_type", "'dualstack'"),
    ("pattern completion below read", lambda: _pattern(response_completion_timeout=10), "response_completion_timeout",
     "at least read_timeout"),
    ("empty origin", lambda: _edge(origin_name=""), "origin_name", "non-empty"),
    ("http/1.1", lambda: _edge(http_version="http1.1"), "http_version", "http2"),
    ("domain without cert", lambda: _edge(domain_names=["grpc.example.com"]), "domain_names", "ACM certificate"),
    (
        "duplicate set ids",
        lambda: _records(addresses=[OriginAddress("192.0.2.1", "a"), OriginAddress("192.0.2.2", "a")]),
        "addresses",
        "unique",
    ),
    ("bad set id", lambda: _records(addresses=[OriginAddress("192.0.2.1", "a b")]), "set_identifier", "1..128"),
    ("no addresses", lambda: _records(addresses=[]), "addresses", "at least one"),
    ("bad service name", lambda: _pattern(service_name="Ingest_Svc"), "service_name", "DNS-1123"),
    ("bad prefix list", lambda: _pattern(cloudfront_prefix_list_id="cloudfront"), "cloudfront_prefix_list_id", "pl-"),
    ("bad checker CIDR", lambda: _pattern(route53_health_checker_cidrs=["1.2.3.4/99"]), "route53_health_checker_cidrs", "CIDR"),
    ("health protocol", lambda: _pattern(target_health_check_protocol="GRPC"), "target_health_check_protocol", "HTTP"),
    ("health check type", lambda: _pattern(origin_health_check_type="UDP"), "origin_health_check_type", "TCP"),
    ("sg quota too small", lambda: _fleet(rules_per_security_group=50), "rules_per_security_group", ">= 55"),
    (
        "incident keepalive profile",
        lambda: _pattern(connection_profile=INCIDENT_PROFILE),
        "connection_profile",
        "EO-PROFILE-PING-FLOOR",
    ),
    ("profile not a profile", lambda: _pattern(connection_profile={"nlb_idle_timeout_s": 400}), "connection_profile", "a ConnectionProfile"),
    ("nlb idle not a duration", lambda: _fleet(idle_timeout="600s"), "idle_timeout", "Duration"),
]


def _fleet(**overrides: Any) -> OriginFleet:
    return OriginFleet(_stack(), "F", **overrides)


@pytest.mark.parametrize(("case", "build", "prop", "allowed"), CASES, ids=[c[0] for c in CASES])
def test_bad_prop_raises_naming_prop_and_allowed(case: str, build, prop: str, allowed: str) -> None:
    with pytest.raises(EdgeOriginPropError) as info:
        build()
    message = str(info.value)
    assert f"invalid {prop}=" in message, message
    assert allowed in message, message
    assert "jsii" not in message


def test_fewer_than_two_zones_in_given_vpc() -> None:
    stack = _stack()
    vpc = ec2.Vpc(stack, "OneZone", max_azs=1, nat_gateways=0)
    with pytest.raises(EdgeOriginPropError, match=re.escape("invalid vpc='1 zone(s) with public subnets'; allowed: at least 2 zones")):
        OriginFleet(stack, "F", vpc=vpc)


def test_vpc_without_public_subnets() -> None:
    stack = _stack()
    vpc = ec2.Vpc(
        stack,
        "Private",
        max_azs=2,
        nat_gateways=0,
        subnet_configuration=[ec2.SubnetConfiguration(name="i", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)],
    )
    with pytest.raises(EdgeOriginPropError, match="0 zone"):
        OriginFleet(stack, "F", vpc=vpc)


def test_cluster_without_kubectl_provider_is_refused() -> None:
    stack = _stack()
    fleet = OriginFleet(stack, "F", nlb_count=1)
    cluster = eks.Cluster.from_cluster_attributes(stack, "C", cluster_name="prod")
    with pytest.raises(EdgeOriginPropError, match="kubectl_provider"):
        TargetGroupBindings(
            stack, "B", target_groups={"nlb1": fleet.target_groups[0]}, service_name="svc", service_port=8443, cluster=cluster
        )


def test_region_outside_prefix_list_table_needs_explicit_id() -> None:
    stack = cdk.Stack(cdk.App(), "S", env=cdk.Environment(account="123456789012", region="me-central-1"))
    with pytest.raises(EdgeOriginPropError, match="me-central-1 is not in the shipped table"):
        OriginFleet(stack, "F")


def test_unknown_profile_preset_in_context_names_the_key() -> None:
    app = cdk.App(context={"edge-origin:profile": "bulk"})
    with pytest.raises(EdgeOriginPropError, match="invalid edge-origin:profile='bulk'; allowed: one of 'default'"):
        ReferenceConfig.from_context(app.node).connection_profile()


def test_context_of_wrong_type_names_the_key() -> None:
    app = cdk.App(context={"edge-origin:nlbCount": "two"})
    with pytest.raises(EdgeOriginPropError, match="invalid edge-origin:nlbCount='two'; allowed: a int"):
        ReferenceConfig.from_context(app.node)


def test_good_values_at_the_edges_of_ranges_are_accepted() -> None:
    _records(request_interval=cdk.Duration.seconds(30), failure_threshold=10, ttl=0)
    _records(failure_threshold=1, ttl=300)
    _edge(keepalive_timeout=1, read_timeout=cdk.Duration.seconds(180))
    _fleet(idle_timeout=cdk.Duration.seconds(60), nlb_count=1)
    _fleet(idle_timeout=6000, nlb_count=1, rules_per_security_group=55 + 17)


def _warnings(construct) -> list[str]:  # noqa: ANN001
    stack = cdk.Stack.of(construct)
    return [str(m.entry.data) for m in Annotations.from_stack(stack).find_warning("*", Match.any_value())]


def test_warnings_for_ttl_above_60_and_cloudfront_quota() -> None:
    texts = _warnings(_records(ttl=61))
    assert any("TTL 61s" in t and "60 s or less" in t for t in texts), texts
    # issue 37: a 200 s response timeout synthesizes, with a warning naming the quota (was: refused above 180 s)
    texts = _warnings(_edge(keepalive_timeout=90, read_timeout=200))
    assert any("read_timeout=200 s is above the default CloudFront quota 'Response timeout per origin'" in t for t in texts), texts
    assert not [t for t in texts if "keepalive_timeout" in t]


def test_no_warnings_for_sane_values() -> None:
    many = [OriginAddress(f"192.0.2.{i}", f"id{i}") for i in range(1, 10)]  # 9: Route 53 answers each resolver a combination
    assert not [t for t in _warnings(_records(ttl=60, addresses=many)) if "edge-origin" in t or "TTL" in t or "records" in t]
    assert not [t for t in _warnings(_edge(keepalive_timeout=60, read_timeout=60)) if "quota" in t]
    assert not [t for t in _warnings(_edge(keepalive_timeout=120, read_timeout=120)) if "quota" in t]


def test_response_completion_timeout_and_ip_address_type_reach_the_origin() -> None:
    from aws_cdk.assertions import Template

    edge = _edge(response_completion_timeout=cdk.Duration.minutes(20), origin_ip_address_type="dualstack")
    origin = Template.from_stack(cdk.Stack.of(edge)).find_resources("AWS::CloudFront::Distribution")
    [dist] = origin.values()
    [o] = dist["Properties"]["DistributionConfig"]["Origins"]
    assert o["ResponseCompletionTimeout"] == 1200
    assert o["CustomOriginConfig"]["IpAddressType"] == "dualstack"
    plain = Template.from_stack(cdk.Stack.of(_edge())).find_resources("AWS::CloudFront::Distribution")
    [o] = next(iter(plain.values()))["Properties"]["DistributionConfig"]["Origins"]
    assert "ResponseCompletionTimeout" not in o and "IpAddressType" not in o["CustomOriginConfig"]


def test_vpc_origin_takes_response_completion_timeout_and_refuses_ip_address_type() -> None:
    from aws_cdk import aws_elasticloadbalancingv2 as elbv2
    from aws_cdk.assertions import Template

    from edge_origin.cdk.vpc_origin import GrpcVpcOriginDistribution
    from edge_origin.core.errors import EdgeOriginPropError

    stack = _stack()
    vpc = ec2.Vpc(stack, "Vpc", max_azs=2)
    nlb = elbv2.NetworkLoadBalancer(stack, "Nlb", vpc=vpc)
    GrpcVpcOriginDistribution(stack, "E", load_balancer=nlb, origin_name="origin.example.com",
                              read_timeout=30, response_completion_timeout=600)
    [dist] = Template.from_stack(stack).find_resources("AWS::CloudFront::Distribution").values()
    assert dist["Properties"]["DistributionConfig"]["Origins"][0]["ResponseCompletionTimeout"] == 600
    with pytest.raises(EdgeOriginPropError, match="origin_ip_address_type"):
        GrpcVpcOriginDistribution(stack, "E2", load_balancer=nlb, origin_name="origin.example.com",
                                  origin_ip_address_type="dualstack")


def test_an_https_check_of_the_grpc_port_is_a_warning() -> None:
    """Issue 52: Route 53's HTTPS health checks are not documented to speak HTTP/2 (EO-DNS2 says the same)."""
    from aws_cdk import aws_route53 as route53

    from edge_origin import GrpcEdgeToOrigin

    stack = cdk.Stack(cdk.App(), "S", env=cdk.Environment(account="123456789012", region="us-east-1"))
    zone = route53.HostedZone.from_hosted_zone_attributes(stack, "Z", hosted_zone_id="Z0123456789EXAMPLE", zone_name="example.com")
    pattern = GrpcEdgeToOrigin(stack, "P", zone=zone, origin_name="o.example.com", service_name="svc",
                               origin_health_check_type="HTTPS", origin_verification=None, monitoring=None)
    assert any("not documented to speak HTTP/2" in t for t in _warnings(pattern))
