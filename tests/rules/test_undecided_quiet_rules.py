"""EO-KA2, EO-NLB3, EO-VPC1: a value decided at deploy time that some value it may take makes the rule fire is
"not judged" (naming the property path), never fine; with a Default, the judged verdict of that value."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import read_template_file
from edge_origin.rules import get_rule, run_rules


def _parameter(default: Any = None) -> dict[str, Any]:
    return {"Type": "String"} if default is None else {"Type": "String", "Default": str(default)}


def _findings(body: dict[str, Any], rule: str) -> list[Finding]:
    return run_rules(TemplateModel.from_templates({"S": body}), [get_rule(rule)])


# EO-KA2 ---------------------------------------------------------------------------------------------------------

def _ka2(default: Any = None, keepalive_wanted: float = 30) -> dict[str, Any]:
    return {"Parameters": {"P": _parameter(default)}, "Resources": {"Dist": {
        "Type": "AWS::CloudFront::Distribution",
        "Metadata": {"edge-origin:connection-profile": {
            "nlb_idle_timeout_s": 350, "cloudfront_keepalive_timeout_s": keepalive_wanted,
            "cloudfront_read_timeout_s": 30}},
        "Properties": {"DistributionConfig": {
            "Enabled": True, "HttpVersion": "http2",
            "Origins": [{"Id": "o", "DomainName": "o.example.com", "CustomOriginConfig": {
                "OriginProtocolPolicy": "https-only", "OriginKeepaliveTimeout": {"Ref": "P"}}}],
            "DefaultCacheBehavior": {"TargetOriginId": "o", "ViewerProtocolPolicy": "https-only",
                                     "GrpcConfig": {"Enabled": True}}}}}}}


def test_ka2_an_undecided_keepalive_is_not_judged_naming_the_path() -> None:
    [found] = _findings(_ka2(), "EO-KA2")
    assert found.severity is Severity.WARNING and found.message.startswith("not judged: Dist origin o "
                                                                           "CustomOriginConfig.OriginKeepaliveTimeout")
    assert "a parameter without Default" in found.message and "cloudfront_keepalive_timeout_s 30 s" in found.message


@pytest.mark.parametrize(("default", "fires"), [(30, False), (5, True), (60, True), (1, True)])
def test_ka2_with_a_default_judges_that_value(default: int, fires: bool) -> None:
    found = _findings(_ka2(default), "EO-KA2")
    assert [f.severity for f in found] == ([Severity.ERROR] if fires else [])
    assert all(f"OriginKeepaliveTimeout {default} s differs" in f.message for f in found)


def test_ka2_a_profile_value_no_timeout_can_take_fires_whatever_the_parameter() -> None:
    """Every value CloudFront takes is whole seconds from 1: none equals 2.5 s, so the drift is decided."""
    [found] = _findings(_ka2(keepalive_wanted=2.5), "EO-KA2")
    assert found.severity is Severity.ERROR and "decided at deploy time" in found.message
    assert "cloudfront_keepalive_timeout_s 2.5 s" in found.message


# EO-VPC1 --------------------------------------------------------------------------------------------------------

VPC1_QUIET = Path(__file__).parents[1] / "fixtures" / "templates" / "rules" / "eo-vpc1-quiet.yaml"


def _vpc1(default: Any = None, keepalive: int = 60, read: int = 60) -> dict[str, Any]:
    """eo-vpc1-quiet (keepalive 60 s, read 60 s) with the listener's idle timeout a parameter."""
    body = copy.deepcopy(read_template_file(VPC1_QUIET).body)
    body["Parameters"] = {"P": _parameter(default)}
    body["Resources"]["Listener"]["Properties"]["ListenerAttributes"][0]["Value"] = {"Ref": "P"}
    config = body["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"][0]["VpcOriginConfig"]
    config.update(OriginKeepaliveTimeout=keepalive, OriginReadTimeout=read)
    return body


def test_vpc1_an_undecided_idle_timeout_is_not_judged_naming_the_path() -> None:
    [found] = _findings(_vpc1(), "EO-VPC1")
    assert found.severity is Severity.WARNING
    assert found.message.startswith("not judged: Dist origin o (VPC origin VpcOrigin) -> S/Listener ListenerAttributes "
                                    "tcp.idle_timeout.seconds: <Ref P> (decided at deploy time: a parameter without "
                                    "Default; keepalive 60 s and read timeout 60 s not well below")


@pytest.mark.parametrize(("default", "warnings"), [(350, 0), (6000, 0), (70, 0), (64, 1), (60, 2)])
def test_vpc1_with_a_default_judges_that_idle_timeout(default: int, warnings: int) -> None:
    found = _findings(_vpc1(default), "EO-VPC1")
    assert [f.severity for f in found] == [Severity.WARNING] * warnings
    assert all(f"idle timeout {default} s of S/Listener" in f.message for f in found)


def test_vpc1_an_undecided_idle_timeout_is_decided_where_every_value_gives_the_same() -> None:
    assert _findings(_vpc1(keepalive=5, read=30), "EO-VPC1") == []  # well below 60 s: fine at every idle timeout
    found = [f for f in _findings(_vpc1(keepalive=6000, read=6000), "EO-VPC1") if "S/Listener" in f.message]
    [whatever] = found  # not below 6000 s either: fires whatever the idle timeout
    assert whatever.severity is Severity.WARNING and "even the longest idle timeout of S/Listener (6000 s" in whatever.message


# EO-NLB3 --------------------------------------------------------------------------------------------------------

CROSS_ZONE = "load_balancing.cross_zone.enabled"


def _nlb3(default: Any = None, value: Any = "false") -> dict[str, Any]:
    """An NLB with cross-zone on by a literal entry and a second entry whose Key is a parameter."""
    return {"Parameters": {"P": _parameter(default)}, "Resources": {"Nlb": {
        "Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": {
            "Type": "network", "Subnets": ["subnet-a", "subnet-b"],
            "LoadBalancerAttributes": [{"Key": CROSS_ZONE, "Value": "true"}, {"Key": {"Ref": "P"}, "Value": value}]}}}}


def _cross_zone(body: dict[str, Any]) -> list[Finding]:
    return [f for f in _findings(body, "EO-NLB3") if CROSS_ZONE in f.message or "cross-zone" in f.message]


def test_nlb3_an_undecided_key_that_may_turn_cross_zone_off_is_not_judged_naming_the_entry() -> None:
    [found] = _cross_zone(_nlb3())
    assert found.severity is Severity.WARNING and found.message.startswith(
        f"not judged: NLB Nlb {CROSS_ZONE} (LoadBalancerAttributes[1]): " + '{"Key": "<Ref P>", "Value": "false"}')
    assert "a parameter without Default" in found.message and "LoadBalancerAttributes[1]" in found.fix


@pytest.mark.parametrize(("default", "fires"), [(CROSS_ZONE, True), ("zonal_shift.config.enabled", False)])
def test_nlb3_with_a_default_judges_that_key(default: str, fires: bool) -> None:
    found = _cross_zone(_nlb3(default))
    assert [(f.severity, "has cross-zone load balancing off" in f.message) for f in found] == (
        [(Severity.WARNING, True)] if fires else [])


def test_nlb3_an_undecided_key_whose_value_is_true_leaves_cross_zone_on() -> None:
    """Whatever the Key is, its value true cannot turn cross-zone off: decided (quiet)."""
    assert _cross_zone(_nlb3(value="true")) == []


DEREGISTRATION = "deregistration_delay.connection_termination.enabled"
UNHEALTHY = "target_health_state.unhealthy.connection_termination.enabled"
DELAY = "deregistration_delay.timeout_seconds"
QUIET_TG = {DEREGISTRATION: "true", UNHEALTHY: "false", DELAY: "300"}


def _tg(key: str, value: str, default: Any = None) -> dict[str, Any]:
    """An ip TCP target group fine for EO-NLB3 by literal entries, and one more entry whose Key is a parameter,
    with ``value``: it may be ``key`` again."""
    attrs = [{"Key": k, "Value": v} for k, v in QUIET_TG.items()] + [{"Key": {"Ref": "P"}, "Value": value}]
    return {"Parameters": {"P": _parameter(default)}, "Resources": {"Targets": {
        "Type": "AWS::ElasticLoadBalancingV2::TargetGroup", "Properties": {
            "Protocol": "TCP", "Port": 8443, "TargetType": "ip", "VpcId": "vpc-1", "TargetGroupAttributes": attrs}}}}


@pytest.mark.parametrize(("key", "value"), [(DEREGISTRATION, "false"), (UNHEALTHY, "true"), (DELAY, "30")])
def test_nlb3_a_target_group_entry_whose_key_is_undecided_is_not_judged_where_it_may_be_the_key(
        key: str, value: str) -> None:
    # the entry may be any Key: each attribute its value would make the rule speak about is named (a value of
    # one attribute can be a refused value of another: the rule speaks about those too)
    [found] = [f for f in _findings(_tg(key, value), "EO-NLB3") if f"may be {key} again" in f.message]
    assert found.severity is Severity.WARNING and found.message.startswith("not judged: target group Targets")
    assert "TargetGroupAttributes[3]): " in found.message and "a parameter without Default" in found.message
    # with a Default: the judged verdict of that Key (the later entry is the one read)
    [judged] = _findings(_tg(key, value, default=key), "EO-NLB3")
    assert judged.severity is Severity.WARNING and not judged.message.startswith("not judged") and key in judged.message
    assert _findings(_tg(key, value, default="stickiness.enabled"), "EO-NLB3") == []


@pytest.mark.parametrize(("key", "value"), [(DEREGISTRATION, "true"), (UNHEALTHY, "false"), (DELAY, "300")])
def test_nlb3_an_undecided_key_whose_value_keeps_that_attribute_fine_leaves_it_judged(key: str, value: str) -> None:
    """Whatever the Key is, this value at ``key`` keeps the target group fine: nothing about ``key`` (other
    attributes the value would be wrong for are named, as above)."""
    found = _findings(_tg(key, value), "EO-NLB3")
    assert found and not [f for f in found if f"may be {key} again" in f.message]
