"""Each condition of EO-KA1, EO-KA2 and EO-KA3 (and the shared rules/ka_profile.py): one edit of the quiet
world (a valid connection profile declared where the test says) makes exactly one finding, on the named
resource, with the key phrase; the other side of every boundary is quiet."""

from __future__ import annotations

from typing import Any

import pytest
from worlds import dist_config, findings, one, origin, quiet, res, set_attribute, world

from edge_origin.core.findings import Severity
from edge_origin.profile import PROFILE_METADATA_KEY

IDLE = "tcp.idle_timeout.seconds"
PROFILE: dict[str, Any] = {
    "preset": "streaming-telemetry", "nlb_idle_timeout_s": 350, "cloudfront_keepalive_timeout_s": 30,
    "cloudfront_read_timeout_s": 30, "longest_stream_gap_s": 20,
}
"""A valid profile that agrees with the quiet world (listener 350 s, origin keepalive 30 s, read 30 s default)."""


def declare(body: dict[str, Any], logical_id: str, profile: Any = None, **changes: Any) -> None:
    """Declare ``profile`` (PROFILE with ``changes`` when None) in a resource's Metadata."""
    body["Resources"][logical_id]["Metadata"] = {PROFILE_METADATA_KEY: dict(PROFILE, **changes) if profile is None else profile}


def set_idle(body: dict[str, Any], value: Any) -> None:
    set_attribute(res(body, "Listener"), "ListenerAttributes", IDLE, value)


def deploy_time(body: dict[str, Any]) -> dict[str, Any]:
    """A parameter reference (the value is decided at deploy time)."""
    body["Parameters"] = {"P": {"Type": "String"}}
    return {"Ref": "P"}


def test_the_world_with_agreeing_profiles_is_quiet() -> None:
    body = world()
    declare(body, "Listener")
    declare(body, "Dist")
    for rule in ("EO-KA1", "EO-KA2", "EO-KA3"):
        quiet(body, rule)


# --- EO-KA1: a listener's own profile ------------------------------------------------------------------
@pytest.mark.parametrize("declared", [349, 351, 600])
def test_ka1_listener_idle_other_than_its_profile_fires(declared: int) -> None:
    body = world()
    declare(body, "Listener", nlb_idle_timeout_s=declared)
    f = one(body, "EO-KA1", "Listener", Severity.ERROR, "[NLB listener]", "Listener (TCP :443) idle timeout 350 s",
            f"(tcp.idle_timeout.seconds) differs from its declared connection profile's nlb_idle_timeout_s {declared} s")
    assert "()" not in f.message  # a TCP listener has no protocol note


def test_ka1_listener_idle_equal_to_its_profile_is_quiet() -> None:
    body = world()
    set_idle(body, "600")
    declare(body, "Listener", nlb_idle_timeout_s=600)
    quiet(body, "EO-KA1")


def test_ka1_fractional_profile_idle_is_printed_as_is() -> None:
    body = world()
    declare(body, "Listener", nlb_idle_timeout_s=350.5)
    one(body, "EO-KA1", "Listener", Severity.ERROR, "nlb_idle_timeout_s 350.5 s")


def test_ka1_whole_profile_idle_is_printed_without_a_fraction() -> None:
    body = world()
    declare(body, "Listener", nlb_idle_timeout_s=600.0)
    f = one(body, "EO-KA1", "Listener", Severity.ERROR, "nlb_idle_timeout_s 600 s")
    assert "600.0" not in f.message


def test_ka1_listener_idle_decided_at_deploy_time_is_not_judged() -> None:
    body = world()
    set_idle(body, deploy_time(body))
    declare(body, "Listener", nlb_idle_timeout_s=600)
    one(body, "EO-KA1", "Listener", Severity.WARNING,
        'not judged: Listener (TCP :443): tcp.idle_timeout.seconds: "<Ref P>" (decided at deploy time: a parameter '
        "without Default; whether the idle timeout is the connection profile's nlb_idle_timeout_s 600 s is not known)")


def test_ka1_listener_profile_that_does_not_parse_is_left_to_ka3() -> None:
    body = world()
    declare(body, "Listener", {"nlb_idle_timeout": 600})
    quiet(body, "EO-KA1")
    one(body, "EO-KA3", "Listener", Severity.ERROR, "[NLB listener]", "is not a valid connection profile")


def test_ka1_tcp_udp_listener_names_its_protocol_note() -> None:
    body = world()
    res(body, "Listener")["Protocol"] = "TCP_UDP"
    res(body, "Listener").pop("ListenerAttributes")
    declare(body, "Listener", nlb_idle_timeout_s=600)
    one(body, "EO-KA1", "Listener", Severity.ERROR, "(fixed for TCP_UDP) (TCP_UDP listener: tcp.idle_timeout.seconds")


# --- EO-KA1: a distribution's profile against the listeners its origins reach ----------------------------
@pytest.mark.parametrize("declared", [349, 351])
def test_ka1_distribution_profile_other_than_the_reached_listener_fires(declared: int) -> None:
    body = world()
    declare(body, "Dist", nlb_idle_timeout_s=declared)
    one(body, "EO-KA1", "Dist", Severity.ERROR, "[CloudFront -> NLB]", "Dist origin o reaches S/Listener (TCP :443)",
        "whose idle timeout is 350 s", f"profile says nlb_idle_timeout_s {declared} s")


def test_ka1_distribution_profile_equal_to_the_reached_listener_is_quiet() -> None:
    body = world()
    set_idle(body, "600")
    declare(body, "Dist", nlb_idle_timeout_s=600)
    quiet(body, "EO-KA1")


def test_ka1_distribution_profile_against_a_deploy_time_idle_is_not_judged() -> None:
    body = world()
    set_idle(body, deploy_time(body))
    declare(body, "Dist", nlb_idle_timeout_s=600)
    one(body, "EO-KA1", "Dist", Severity.WARNING,
        'not judged: Dist origin o reaches S/Listener (TCP :443): tcp.idle_timeout.seconds: "<Ref P>" (decided at '
        "deploy time: a parameter without Default;")


def test_ka1_distribution_profile_that_does_not_parse_is_left_to_ka3() -> None:
    body = world()
    declare(body, "Dist", {"preset": "turbo"})
    quiet(body, "EO-KA1")
    one(body, "EO-KA3", "Dist", Severity.ERROR, "[CloudFront -> NLB]", "unknown preset 'turbo'")


def test_ka1_a_listener_with_its_own_profile_is_judged_by_its_own() -> None:
    body = world()
    declare(body, "Dist", nlb_idle_timeout_s=600)
    declare(body, "Listener", nlb_idle_timeout_s=350)  # agrees with the listener: no finding for either
    quiet(body, "EO-KA1")
    declare(body, "Listener", {"nlb_idle_timeout": 350})  # its own, unparsable: EO-KA3's business
    quiet(body, "EO-KA1")


def test_ka1_non_custom_origin_on_the_origin_name_is_not_judged() -> None:
    body = world()
    declare(body, "Dist", nlb_idle_timeout_s=600)
    o = origin(body)
    o.pop("CustomOriginConfig")
    o["S3OriginConfig"] = {"OriginAccessIdentity": ""}
    quiet(body, "EO-KA1")


def test_ka1_two_origins_reaching_one_listener_give_one_finding() -> None:
    body = world()
    declare(body, "Dist", nlb_idle_timeout_s=600)
    second = dict(origin(body), Id="p")
    dist_config(body)["Origins"].append(second)
    one(body, "EO-KA1", "Dist", Severity.ERROR, "Dist origin o reaches S/Listener")


# --- EO-KA2: CloudFront origin timeouts against the distribution's profile --------------------------------
@pytest.mark.parametrize("keepalive", [29, 31])
def test_ka2_explicit_keepalive_other_than_the_profile_fires(keepalive: int) -> None:
    body = world()
    declare(body, "Dist")
    origin(body)["CustomOriginConfig"]["OriginKeepaliveTimeout"] = keepalive
    f = one(body, "EO-KA2", "Dist", Severity.ERROR, "[CloudFront -> NLB]",
            f"Dist origin o: OriginKeepaliveTimeout {keepalive} s differs from the declared connection profile's "
            "cloudfront_keepalive_timeout_s 30 s")
    assert "unset" not in f.message


def test_ka2_unset_keepalive_is_the_5_s_default() -> None:
    body = world()
    declare(body, "Dist")
    origin(body)["CustomOriginConfig"].pop("OriginKeepaliveTimeout")
    one(body, "EO-KA2", "Dist", Severity.ERROR, "OriginKeepaliveTimeout unset, default 5 s differs",
        "cloudfront_keepalive_timeout_s 30 s")
    declare(body, "Dist", cloudfront_keepalive_timeout_s=5)
    quiet(body, "EO-KA2")


@pytest.mark.parametrize("read", [29, 31])
def test_ka2_explicit_read_timeout_other_than_the_profile_fires(read: int) -> None:
    body = world()
    declare(body, "Dist")
    origin(body)["CustomOriginConfig"]["OriginReadTimeout"] = read
    one(body, "EO-KA2", "Dist", Severity.ERROR, f"OriginReadTimeout {read} s differs", "cloudfront_read_timeout_s 30 s")


def test_ka2_unset_read_timeout_is_the_30_s_default() -> None:
    body = world()
    declare(body, "Dist", cloudfront_read_timeout_s=45, longest_stream_gap_s=20)
    one(body, "EO-KA2", "Dist", Severity.ERROR, "OriginReadTimeout unset, default 30 s differs",
        "cloudfront_read_timeout_s 45 s")


def test_ka2_fractional_profile_value_is_printed_as_is() -> None:
    body = world()
    declare(body, "Dist", cloudfront_keepalive_timeout_s=30.5)
    one(body, "EO-KA2", "Dist", Severity.ERROR, "cloudfront_keepalive_timeout_s 30.5 s")


def test_ka2_timeouts_decided_at_deploy_time_are_not_judged() -> None:
    """Never quiet (that read them as fine): the profile's 10 s is a value each may take, others drift."""
    body = world()
    declare(body, "Dist", cloudfront_keepalive_timeout_s=10, cloudfront_read_timeout_s=10)
    custom = origin(body)["CustomOriginConfig"]
    custom["OriginKeepaliveTimeout"] = deploy_time(body)
    custom["OriginReadTimeout"] = {"Ref": "P"}
    found = findings(body, "EO-KA2")
    assert [(f.resource, f.severity) for f in found] == [("Dist", Severity.WARNING)] * 2
    assert [f.message.split(":")[1] for f in found] == [
        " Dist origin o CustomOriginConfig.OriginKeepaliveTimeout", " Dist origin o CustomOriginConfig.OriginReadTimeout"]
    assert all(f.message.startswith("not judged") for f in found)


def test_ka2_without_a_profile_is_quiet() -> None:
    body = world()
    origin(body)["CustomOriginConfig"]["OriginKeepaliveTimeout"] = 10
    quiet(body, "EO-KA2")
    declare(body, "Dist", {"preset": "turbo"})  # does not parse: EO-KA3's business
    quiet(body, "EO-KA2")


def _second_origin(body: dict[str, Any], keepalive: int) -> None:
    """A second custom origin (id p, keepalive ``keepalive``) served by a non-gRPC cache behavior."""
    config = dist_config(body)
    config["Origins"].append({"Id": "p", "DomainName": "p.example.com",
                              "CustomOriginConfig": {"OriginProtocolPolicy": "https-only", "OriginKeepaliveTimeout": keepalive}})
    config["CacheBehaviors"] = [{"PathPattern": "/static/*", "TargetOriginId": "p", "ViewerProtocolPolicy": "https-only",
                                 "CachePolicyId": "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"}]


def test_ka2_only_origins_of_grpc_behaviors_are_judged() -> None:
    body = world()
    declare(body, "Dist")
    _second_origin(body, keepalive=10)
    quiet(body, "EO-KA2")


def test_ka2_without_grpc_behaviors_every_custom_origin_is_judged() -> None:
    body = world()
    declare(body, "Dist")
    _second_origin(body, keepalive=10)
    dist_config(body)["DefaultCacheBehavior"].pop("GrpcConfig")
    one(body, "EO-KA2", "Dist", Severity.ERROR, "Dist origin p: OriginKeepaliveTimeout 10 s")


def test_ka2_without_grpc_behaviors_non_custom_origins_are_not_judged() -> None:
    body = world()
    declare(body, "Dist")
    dist_config(body)["DefaultCacheBehavior"].pop("GrpcConfig")
    o = origin(body)
    o.pop("CustomOriginConfig")
    o["S3OriginConfig"] = {"OriginAccessIdentity": ""}
    quiet(body, "EO-KA2")


# --- EO-KA3: a declared profile that fails its own checks -------------------------------------------------
def test_ka3_listener_profile_is_judged_on_the_in_vpc_client_path() -> None:
    body = world()
    declare(body, "Listener", client_keepalive_time_s=5)  # below the server's ping floor
    one(body, "EO-KA3", "Listener", Severity.ERROR, "Listener declares a connection profile that fails EO-PROFILE-PING-FLOOR")
    body = world()
    declare(body, "Listener", longest_stream_gap_s=45)  # a CloudFront read-timeout check: not on this path
    quiet(body, "EO-KA3")


def test_ka3_distribution_profile_is_judged_on_the_cloudfront_path() -> None:
    body = world()
    declare(body, "Dist", longest_stream_gap_s=45)  # above the 30 s read timeout
    one(body, "EO-KA3", "Dist", Severity.ERROR, "Dist declares a connection profile that fails EO-PROFILE-CF-READ")
    body = world()
    declare(body, "Dist", client_keepalive_time_s=5)  # device pings end at CloudFront
    quiet(body, "EO-KA3")


def test_ka3_metadata_not_a_mapping_fires_with_the_hop_of_the_resource() -> None:
    body = world()
    declare(body, "Listener", "streaming-telemetry")
    one(body, "EO-KA3", "Listener", Severity.ERROR, "[NLB listener] Listener Metadata edge-origin:connection-profile",
        "must be a mapping of profile fields, got str")
    body = world()
    declare(body, "Dist", ["streaming-telemetry"])
    one(body, "EO-KA3", "Dist", Severity.ERROR, "[CloudFront -> NLB] Dist Metadata", "got list")
