"""EO-VPC1..4 (issue 31): a distribution whose origin is a CloudFront VPC origin to an internal NLB."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import read_template_file
from edge_origin.profile import hops
from edge_origin.rules import get_rule, run_rules

QUIET = Path(__file__).parents[1] / "fixtures" / "templates" / "rules" / "eo-vpc1-quiet.yaml"


@pytest.fixture
def body() -> dict[str, Any]:
    return copy.deepcopy(read_template_file(QUIET).body)


def _run(body: dict[str, Any], *ids: str) -> list[Any]:
    rules = [get_rule(i) for i in ids] if ids else None
    return run_rules(TemplateModel.from_templates({"S": body}), rules)


def _origin(body: dict[str, Any]) -> dict[str, Any]:
    return body["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"][0]


def test_model_joins_the_origin_to_its_vpc_origin_and_nlb(body: dict[str, Any]) -> None:
    model = TemplateModel.from_templates({"S": body})
    (origin,) = model.distributions[0].origins
    assert origin.vpc_origin is not None and origin.vpc_origin.resource.logical_id == "VpcOrigin"
    assert (origin.keepalive_timeout, origin.read_timeout, origin.protocol_policy) == (60, 60, "https-only")
    assert [lb.resource.logical_id for lb in model.load_balancers_for_origin(origin)] == ["Nlb"]
    # a VPC origin's DomainName is its Host/SNI name, not a name CloudFront resolves in public DNS
    assert "origin.example.com" not in model.cloudfront_origin_names()


def test_quiet_base_is_quiet_for_every_rule(body: dict[str, Any]) -> None:
    assert _run(body) == []


@pytest.mark.parametrize(
    ("field", "value", "severity", "phrase"),
    [
        # issue 37: 1..120 s is the default quota, adjustable: above it a warning naming the quota (was an error)
        ("OriginKeepaliveTimeout", 121, Severity.WARNING, "above the default CloudFront quota 'Keep-alive timeout per origin'"),
        ("OriginReadTimeout", 121, Severity.WARNING, "above the default CloudFront quota 'Response timeout per origin'"),
        ("OriginReadTimeout", 0, Severity.ERROR, "is not a CloudFront OriginReadTimeout: whole seconds in 1..3600"),
    ],
)
def test_vpc1_range_is_the_api_references_1_to_120(
    body: dict[str, Any], field: str, value: int, severity: Severity, phrase: str
) -> None:
    assert hops.CF_VPC_ORIGIN_TIMEOUT_RANGE == (1, 120)
    _origin(body)["VpcOriginConfig"][field] = value
    (found,) = _run(body, "EO-VPC1")
    assert found.severity is severity and f"{field} {value} s" in found.message and phrase in found.message
    _origin(body)["VpcOriginConfig"][field] = 120
    assert _run(body, "EO-VPC1") == []


def test_vpc1_keepalive_and_read_against_the_nlb_idle_timeout(body: dict[str, Any]) -> None:
    body["Resources"]["Listener"]["Properties"]["ListenerAttributes"][0]["Value"] = "60"
    found = _run(body, "EO-VPC1")
    assert {f.severity for f in found} == {Severity.WARNING}
    text = " ".join(f.message for f in found)
    assert "[CloudFront VPC origin -> internal NLB]" in text
    assert "keepalive 60 s is not well below the idle timeout 60 s" in text
    assert "read timeout 60 s is not below the idle timeout 60 s" in text


def test_vpc1_defaults_are_5_and_30(body: dict[str, Any]) -> None:
    del _origin(body)["VpcOriginConfig"]["OriginKeepaliveTimeout"]
    del _origin(body)["VpcOriginConfig"]["OriginReadTimeout"]
    body["Resources"]["Listener"]["Properties"]["ListenerAttributes"][0]["Value"] = "60"
    assert _run(body, "EO-VPC1") == []  # 5 and 30 are below 60 - 5 and 60 * 0.9
    body["Resources"]["Listener"]["Properties"]["ListenerAttributes"][0]["Value"] = "30"
    assert "read timeout 30 s" in " ".join(f.message for f in _run(body, "EO-VPC1"))


@pytest.mark.parametrize(
    ("mutate", "words"),
    [
        (lambda b: b["Resources"]["Nlb"]["Properties"].pop("SecurityGroups"), "no security group"),
        (lambda b: b["Resources"]["Nlb"]["Properties"].update(IpAddressType="dualstack"), "dual-stack"),
        (lambda b: b["Resources"]["VpcOrigin"]["Properties"]["VpcOriginEndpointConfig"].update(IpAddressType="ipv6"), "IPv6-only"),
    ],
)
def test_vpc2_each_documented_refusal(body: dict[str, Any], mutate: Any, words: str) -> None:
    mutate(body)
    found = _run(body, "EO-VPC2")
    assert found and all(f.severity is Severity.ERROR for f in found) and words in found[0].message


def test_vpc2_dualstack_vpc_origin_is_allowed(body: dict[str, Any]) -> None:
    body["Resources"]["VpcOrigin"]["Properties"]["VpcOriginEndpointConfig"]["IpAddressType"] = "dualstack"
    assert _run(body, "EO-VPC2") == []


def test_vpc3_partial_affinity_with_cross_zone_off_is_an_error(body: dict[str, Any]) -> None:
    body["Resources"]["Nlb"]["Properties"]["LoadBalancerAttributes"] = [
        {"Key": "load_balancing.cross_zone.enabled", "Value": "false"},
        {"Key": "dns_record.client_routing_policy", "Value": "partial_availability_zone_affinity"},
    ]
    (found,) = _run(body, "EO-VPC3")
    assert found.severity is Severity.ERROR and "not documented" in found.message and "public resolver has no zone" in found.message


def test_vpc3_quiet_on_any_availability_zone(body: dict[str, Any]) -> None:
    body["Resources"]["Nlb"]["Properties"]["LoadBalancerAttributes"].append(
        {"Key": "dns_record.client_routing_policy", "Value": "any_availability_zone"}
    )
    assert _run(body, "EO-VPC3") == []


def test_vpc4_internet_facing(body: dict[str, Any]) -> None:
    body["Resources"]["Nlb"]["Properties"]["Scheme"] = "internet-facing"
    found = _run(body)
    assert [f.rule for f in found] == ["EO-VPC4"] and "internet-facing" in found[0].message


def test_sec1_meaning_on_this_path(body: dict[str, Any]) -> None:
    """An internal NLB behind a VPC origin: the prefix list admits only VPC-origin traffic, so no
    verification header is not 'every CloudFront customer' (EO-SEC1 quiet); internet-facing: it is."""
    del _origin(body)["OriginCustomHeaders"]
    assert _run(body, "EO-SEC1") == []
    body["Resources"]["Nlb"]["Properties"]["Scheme"] = "internet-facing"
    assert [f.rule for f in _run(body, "EO-SEC1")] == ["EO-SEC1"]


def test_vpc4_a_source_security_group_is_allowed(body: dict[str, Any]) -> None:
    """The VPC origin's service group (CloudFront-VPCOrigins-Service-SG) is admitted by id."""
    body["Resources"]["NlbSg"]["Properties"]["SecurityGroupIngress"] = [
        {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "SourceSecurityGroupId": "sg-0123456789abcdef0"}
    ]
    assert _run(body) == []
