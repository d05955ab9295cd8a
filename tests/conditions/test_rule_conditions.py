"""Each condition of EO-NLB3, EO-CF1, EO-CF2, EO-DNS4 and the rule base's direct-NLB path: one edit of
a quiet world makes exactly one finding, on the named resource, with the key phrase; boundaries are
tested on both sides. Assertions are on stable things (id, resource, severity, phrase), not whole messages."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from worlds import behavior, dist_config, findings, one, origin, quiet, res, set_attribute, world

from edge_origin.core.findings import Severity
from edge_origin.model import CACHING_DISABLED_POLICY_ID

TERMINATION = "deregistration_delay.connection_termination.enabled"
CROSS_ZONE = "load_balancing.cross_zone.enabled"
IDLE = "tcp.idle_timeout.seconds"


def test_the_world_is_quiet_for_every_rule_here() -> None:
    for rule in ("EO-NLB1", "EO-NLB3", "EO-CF1", "EO-CF2", "EO-DNS4"):
        quiet(world(), rule)


# --- EO-NLB3: connection termination off ---------------------------------------------------------------
@pytest.mark.parametrize("value", [None, "false", "FALSE", False])
def test_nlb3_target_group_without_connection_termination_fires(value: Any) -> None:
    body = world()
    set_attribute(res(body, "Targets"), "TargetGroupAttributes", TERMINATION, value)
    f = one(body, "EO-NLB3", "Targets", Severity.WARNING, "Targets", TERMINATION)
    assert "cross-zone" not in f.message


@pytest.mark.parametrize("value", ["true", "True", True])
def test_nlb3_connection_termination_on_is_quiet(value: Any) -> None:
    body = world()
    set_attribute(res(body, "Targets"), "TargetGroupAttributes", TERMINATION, value)
    quiet(body, "EO-NLB3")


@pytest.mark.parametrize("protocol", ["TCP", "tcp", "TLS", "UDP", "TCP_UDP"])
def test_nlb3_every_nlb_protocol_is_checked(protocol: str) -> None:
    body = world()
    res(body, "Targets")["Protocol"] = protocol
    set_attribute(res(body, "Targets"), "TargetGroupAttributes", TERMINATION, "false")
    one(body, "EO-NLB3", "Targets", Severity.WARNING, TERMINATION)


@pytest.mark.parametrize("protocol", ["HTTP", "HTTPS", "GENEVE"])
def test_nlb3_other_target_groups_are_not_its_business(protocol: str) -> None:
    body = world()
    res(body, "Targets")["Protocol"] = protocol
    set_attribute(res(body, "Targets"), "TargetGroupAttributes", TERMINATION, "false")
    quiet(body, "EO-NLB3")


def test_nlb3_termination_decided_at_deploy_time_is_not_judged() -> None:
    body = world()
    body["Parameters"] = {"Term": {"Type": "String"}}
    set_attribute(res(body, "Targets"), "TargetGroupAttributes", TERMINATION, {"Ref": "Term"})
    [f] = findings(body, "EO-NLB3")  # never quiet: unless it is true, connections outlive deregistered pods
    assert (f.resource, f.severity) == ("Targets", Severity.WARNING)
    assert f.message.startswith(f'not judged: target group Targets (TCP) {TERMINATION}: "<Ref Term>" (decided at deploy time')


def test_nlb3_cross_zone_off_fires_on_the_nlb() -> None:
    body = world()
    set_attribute(res(body, "Nlb"), "LoadBalancerAttributes", CROSS_ZONE, "false")
    f = one(body, "EO-NLB3", "Nlb", Severity.WARNING, "Nlb", "cross-zone")
    assert TERMINATION not in f.message


def test_nlb3_both_conditions_give_one_finding_each() -> None:
    body = world()
    set_attribute(res(body, "Nlb"), "LoadBalancerAttributes", CROSS_ZONE, "false")
    set_attribute(res(body, "Targets"), "TargetGroupAttributes", TERMINATION, "false")
    found = sorted(findings(body, "EO-NLB3"), key=lambda f: f.resource)
    assert [(f.resource, f.severity) for f in found] == [("Nlb", Severity.WARNING), ("Targets", Severity.WARNING)]
    assert "cross-zone" in found[0].message and TERMINATION in found[1].message


# --- EO-CF1: HTTP/2 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("version", ["http1.1", "http3", "HTTP1.1"])
def test_cf1_a_grpc_behavior_without_http2_is_an_error(version: str) -> None:
    body = world()
    dist_config(body)["HttpVersion"] = version
    one(body, "EO-CF1", "Dist", Severity.ERROR, f"HttpVersion {version}", "HTTP/2")


def test_cf1_http_version_unset_is_http1_and_an_error() -> None:
    body = world()
    del dist_config(body)["HttpVersion"]
    one(body, "EO-CF1", "Dist", Severity.ERROR, "unset (http1.1)", "HTTP/2")


@pytest.mark.parametrize("version", ["http2", "http2and3", "HTTP2", "Http2And3"])
def test_cf1_http2_versions_are_quiet(version: str) -> None:
    body = world()
    dist_config(body)["HttpVersion"] = version
    quiet(body, "EO-CF1")


def test_cf1_http1_without_grpc_is_not_its_business() -> None:
    body = world()
    dist_config(body)["HttpVersion"] = "http1.1"
    behavior(body)["GrpcConfig"] = {"Enabled": False}
    quiet(body, "EO-CF1")


def test_cf1_http_version_decided_at_deploy_time_is_not_judged() -> None:
    """Never read as absent (http1.1, an error) nor as fine: one not-judged warning naming it."""
    body = world()
    body["Parameters"] = {"Version": {"Type": "String"}}
    dist_config(body)["HttpVersion"] = {"Ref": "Version"}
    found = findings(body, "EO-CF1")
    assert [(f.severity, f.message.split(" (")[0]) for f in found] == [
        (Severity.WARNING, "not judged: Dist HttpVersion: <Ref Version>")]


# --- EO-CF1: the caching (TTL) logic ------------------------------------------------------------------
def _with_cache_policy(ttls: dict[str, int]) -> dict[str, Any]:
    body = world()
    body["Resources"]["Policy"] = {
        "Type": "AWS::CloudFront::CachePolicy",
        "Properties": {"CachePolicyConfig": {
            "Name": "p", **ttls,
            "ParametersInCacheKeyAndForwardedToOrigin": {
                "EnableAcceptEncodingGzip": False,
                "CookiesConfig": {"CookieBehavior": "none"},
                "HeadersConfig": {"HeaderBehavior": "none"},
                "QueryStringsConfig": {"QueryStringBehavior": "none"},
            },
        }},
    }
    behavior(body)["CachePolicyId"] = {"Ref": "Policy"}
    return body


def test_cf1_a_cache_policy_resource_with_zero_ttls_is_quiet() -> None:
    quiet(_with_cache_policy({"DefaultTTL": 0, "MaxTTL": 0, "MinTTL": 0}), "EO-CF1")


@pytest.mark.parametrize(
    "ttls",
    [
        {"DefaultTTL": 1, "MaxTTL": 1, "MinTTL": 0},
        {"DefaultTTL": 0, "MaxTTL": 1, "MinTTL": 0},
        {"MaxTTL": 0, "MinTTL": 0},  # DefaultTTL unset: CloudFront's default (1 day) caches
        {"DefaultTTL": 0, "MinTTL": 0},  # MaxTTL unset: 1 year
    ],
    ids=["default-1", "max-1", "default-unset", "max-unset"],
)
def test_cf1_a_cache_policy_resource_that_caches_is_a_warning(ttls: dict[str, int]) -> None:
    one(_with_cache_policy(ttls), "EO-CF1", "Dist", Severity.WARNING, "caching cache policy")


def test_cf1_min_ttl_alone_does_not_decide() -> None:
    # MinTTL > 0 with Default/Max 0 is refused by CloudFront; the rule reads Default and Max only
    quiet(_with_cache_policy({"DefaultTTL": 0, "MaxTTL": 0}), "EO-CF1")


def test_cf1_a_ref_to_something_that_is_not_a_cache_policy_is_undecided() -> None:
    body = world()
    behavior(body)["CachePolicyId"] = {"Ref": "Targets"}
    quiet(body, "EO-CF1")


def test_cf1_a_managed_caching_policy_id_is_a_warning_and_caching_disabled_is_quiet() -> None:
    body = world()
    behavior(body)["CachePolicyId"] = "658327ea-f89d-4fab-a63d-7e88639e58f6"  # Managed-CachingOptimized
    one(body, "EO-CF1", "Dist", Severity.WARNING, "caching cache policy", "658327ea")
    behavior(body)["CachePolicyId"] = CACHING_DISABLED_POLICY_ID
    quiet(body, "EO-CF1")


def _legacy(ttls: dict[str, int]) -> dict[str, Any]:
    body = world()
    b = behavior(body)
    del b["CachePolicyId"]
    b["ForwardedValues"] = {"QueryString": False}
    b.update(ttls)
    return body


def test_cf1_legacy_forwarded_values_with_zero_ttls_is_quiet() -> None:
    quiet(_legacy({"DefaultTTL": 0, "MaxTTL": 0}), "EO-CF1")


@pytest.mark.parametrize(
    "ttls", [{}, {"DefaultTTL": 0}, {"MaxTTL": 0}, {"DefaultTTL": 1, "MaxTTL": 0}, {"DefaultTTL": 0, "MaxTTL": 1}],
    ids=["both-unset", "max-unset", "default-unset", "default-1", "max-1"],
)
def test_cf1_legacy_forwarded_values_that_cache_is_a_warning(ttls: dict[str, int]) -> None:
    one(_legacy(ttls), "EO-CF1", "Dist", Severity.WARNING, "caching cache policy")


# --- EO-CF2: the default keepalive (5 s) and idle timeout (350 s) ----------------------------------------
def _cf2(keepalive: int | None, idle: str | None, protocol: str = "TCP") -> dict[str, Any]:
    body = world()
    custom = origin(body)["CustomOriginConfig"]
    custom.pop("OriginKeepaliveTimeout", None)
    if keepalive is not None:
        custom["OriginKeepaliveTimeout"] = keepalive
    res(body, "Listener")["Protocol"] = protocol
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, idle)
    return body


def test_cf2_unset_keepalive_is_5_s_against_an_idle_timeout_of_5() -> None:
    # issue 37: keepalive at the idle timeout is an ERROR, as in profile check (was a warning here)
    one(_cf2(None, "5"), "EO-CF2", "Dist", Severity.ERROR, "keepalive 5 s", "idle timeout 5 s", "Listener")


def test_cf2_unset_keepalive_is_quiet_against_an_idle_timeout_of_6() -> None:
    quiet(_cf2(None, "6"), "EO-CF2")


def test_cf2_unset_idle_timeout_is_350_s() -> None:
    # margins (RULES.md, EO-CF2): within 5 s of the idle limit, or above 90 % of it (315 s of 350 s)
    one(_cf2(345, None), "EO-CF2", "Dist", Severity.ERROR, "keepalive 345 s", "idle timeout 350 s")
    one(_cf2(316, None), "EO-CF2", "Dist", Severity.WARNING, "keepalive 316 s", "idle timeout 350 s")
    quiet(_cf2(315, None), "EO-CF2")


def test_cf2_a_tls_listener_is_350_s_whatever_it_says() -> None:
    one(_cf2(345, "6000", "TLS"), "EO-CF2", "Dist", Severity.ERROR, "idle timeout 350 s")
    quiet(_cf2(315, "60", "TLS"), "EO-CF2")


@settings(max_examples=60, deadline=None, database=None)
@given(keepalive=st.integers(1, 400), idle=st.integers(1, 400))
def test_cf2_fires_exactly_when_keepalive_reaches_the_margin(keepalive: int, idle: int) -> None:
    found = findings(_cf2(keepalive, str(idle)), "EO-CF2")
    guard = min(5.0, 0.05 * idle)  # 5 s, or 5 % of limits under 100 s
    fires = keepalive >= idle - guard or keepalive > 0.9 * idle
    assert len(found) == (1 if fires else 0), (keepalive, idle, found)
    error = keepalive >= idle - guard
    assert all(f.severity is (Severity.ERROR if error else Severity.WARNING) for f in found)
    assert all(f.resource == "Dist" and f"keepalive {keepalive} s" in f.message for f in found)


def test_cf2_udp_listeners_are_not_its_business() -> None:
    quiet(_cf2(30, "5", "UDP"), "EO-CF2")


def test_profile_defaults_are_the_aws_defaults_cf2_assumes() -> None:
    from edge_origin.profile import ConnectionProfile
    from edge_origin.rules import cf2_keepalive_vs_idle as cf2

    # CloudFront OriginKeepaliveTimeout defaults to 5 s; the NLB tcp.idle_timeout.seconds to 350 s
    # (AWS CloudFront Developer Guide, "Origin keep-alive timeout"; ELB NLB guide, "Idle timeout").
    profile = ConnectionProfile()
    assert profile.cloudfront_keepalive_timeout_s == 5 == cf2.DEFAULT_KEEPALIVE
    assert profile.nlb_idle_timeout_s == 350 == cf2.DEFAULT_IDLE


# --- EO-DNS4: the TTL boundary: 60 s with a health check (the API's advice), 300 s without ---------------
def _unchecked(body: dict[str, Any], record: str) -> None:
    del res(body, record)["HealthCheckId"]


@pytest.mark.parametrize(("ttl", "checked"), [(0, True), (60, True), (0, False), (60, False), (299, False), (300, False)])
def test_dns4_ttl_within_its_limit_is_quiet(ttl: int, checked: bool) -> None:
    body = world()
    res(body, "RecordA")["TTL"] = ttl
    if not checked:
        _unchecked(body, "RecordA")
    quiet(body, "EO-DNS4")


@pytest.mark.parametrize(("ttl", "checked"), [(61, True), (300, True), (301, False), (3600, False), ("301", False)])
def test_dns4_ttl_above_its_limit_fires_on_that_record(ttl: Any, checked: bool) -> None:
    body = world()
    res(body, "RecordA")["TTL"] = ttl
    if not checked:
        _unchecked(body, "RecordA")
    f = one(body, "EO-DNS4", "RecordA", Severity.WARNING, f"TTL {int(ttl)} s", "o.example.com")
    assert ("60 seconds or less" in f.message) is checked and ("above 300 s" in f.message) is not checked


@settings(max_examples=50, deadline=None, database=None)
@given(ttl_a=st.integers(0, 172800), ttl_b=st.integers(0, 172800), checked_a=st.booleans(), checked_b=st.booleans())
def test_dns4_fires_once_per_record_above_its_limit(ttl_a: int, ttl_b: int, checked_a: bool, checked_b: bool) -> None:
    body = world()
    res(body, "RecordA")["TTL"] = ttl_a
    res(body, "RecordB")["TTL"] = ttl_b
    for record, checked in (("RecordA", checked_a), ("RecordB", checked_b)):
        if not checked:
            _unchecked(body, record)
    fired = sorted(f.resource for f in findings(body, "EO-DNS4"))
    cases = (("RecordA", ttl_a, checked_a), ("RecordB", ttl_b, checked_b))
    assert fired == [r for r, t, c in cases if t > (60 if c else 300)]


# --- the rule base: a CloudFront origin straight at an NLB's DNSName ---------------------------------------
def _direct(grpc: bool = True) -> dict[str, Any]:
    body = world()
    origin(body)["DomainName"] = {"Fn::GetAtt": ["Nlb", "DNSName"]}
    for record in ("RecordA", "RecordB", "CheckA", "CheckB"):
        del body["Resources"][record]
    behavior(body)["GrpcConfig"] = {"Enabled": grpc}
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, None)
    return body


def test_base_an_origin_at_the_nlbs_dns_name_reaches_its_listeners() -> None:
    one(_direct(), "EO-NLB1", "Listener", Severity.WARNING, "gRPC origin Nlb.DNSName", IDLE)


def test_base_a_long_lived_origin_at_the_nlbs_dns_name_is_labelled_so() -> None:
    one(_direct(grpc=False), "EO-NLB1", "Listener", Severity.WARNING, "long-lived origin Nlb.DNSName")


def test_base_two_behaviors_at_the_same_nlb_give_one_finding() -> None:
    body = _direct()
    dist_config(body)["CacheBehaviors"] = [{**behavior(body), "PathPattern": "/other/*"}]
    one(body, "EO-NLB1", "Listener", Severity.WARNING, "Nlb.DNSName")


def test_base_an_origin_at_another_name_does_not_reach_the_nlb() -> None:
    body = _direct()
    origin(body)["DomainName"] = "elsewhere.example.com"
    quiet(body, "EO-NLB1")


def test_base_the_direct_path_with_an_explicit_idle_timeout_is_quiet() -> None:
    body = _direct()
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, "340")  # within the targets' tracking (350 s)
    quiet(body, "EO-NLB1")
