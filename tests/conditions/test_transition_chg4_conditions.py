"""Each condition of EO-CHG4 (a connection-profile transition that breaks on the way; a TTL raised on a gRPC
origin): one change of a quiet before/after pair makes exactly one finding, on the named resource, with the
key phrase; boundaries are tested on both sides."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from transition_worlds import (
    make_pairs,
    one_change,
    props,
    quiet_change,
    record_ids,
    resources,
    transition_findings,
    world,
)

from edge_origin.core.findings import Severity

IDLE = "tcp.idle_timeout.seconds"
# head's profile in the diff fixtures' keepalive-with-idle pair: client keepalive 600 s, for a 1200 s idle timeout
LONG_KEEPALIVE = dict(nlb_idle_timeout_s=1200, client_keepalive_time_s=600, server_min_ping_interval_s=300,
                      server_keepalive_time_s=None, target_tcp_established_timeout_s=1200)
NEW_CLIENTS_ON_OLD = "the new clients (head's profile) on the old listener"


def _listener(idle: int, **profile: Any) -> dict[str, Any]:
    """One NLB whose TCP listener has ``idle`` and declares the streaming-telemetry profile with ``profile``."""
    return world(nlbs=1, idle=idle, listener_profile=make_pairs.profile(**({"nlb_idle_timeout_s": idle} | profile)))


def _set_idle(body: dict[str, Any], value: Any) -> dict[str, Any]:
    """The listener's idle attribute set to ``value``, or dropped (None)."""
    listener = props(body, "Nlb1Tcp")
    listener["ListenerAttributes"] = [a for a in listener["ListenerAttributes"] if a["Key"] != IDLE]
    if value is not None:
        listener["ListenerAttributes"].append({"Key": IDLE, "Value": value})
    return body


# --- the listener: mixed pairs of clients and listeners -----------------------------------------------------
def test_chg4_new_clients_on_the_old_listener_fire_with_both_sides_in_the_message() -> None:
    one_change(_listener(400), _listener(1200, **LONG_KEEPALIVE), "EO-CHG4", "Nlb1Tcp", Severity.WARNING,
               "Nlb1Tcp: idle timeout 400 s -> 1200 s, client keepalive 30 s -> 600 s",
               f"{NEW_CLIENTS_ON_OLD} (400 s idle) fail EO-PROFILE-IDLE-MARGIN")


def test_chg4_the_idle_raised_first_is_quiet() -> None:
    quiet_change(_listener(400), _listener(1200), "EO-CHG4")


def test_chg4_a_listener_without_the_idle_attribute_has_the_nlb_default() -> None:
    base = _set_idle(_listener(350), None)
    one_change(base, _listener(1200, **LONG_KEEPALIVE), "EO-CHG4", "Nlb1Tcp", Severity.WARNING,
               "idle timeout 350 s -> 1200 s", f"{NEW_CLIENTS_ON_OLD} (350 s idle)")


def test_chg4_an_idle_timeout_decided_at_deploy_time_is_not_compared() -> None:
    """Neither the listener pairs nor the CloudFront keepalive are checked against an unknown idle timeout."""
    base = _set_idle(_listener(400), {"Ref": "Idle"})
    base["Parameters"] = {"Idle": {"Type": "String"}}
    head = _listener(1200, **LONG_KEEPALIVE)
    props(head, "Dist")["DistributionConfig"]["Origins"][0]["CustomOriginConfig"]["OriginKeepaliveTimeout"] = 60
    quiet_change(base, head, "EO-CHG4")
    quiet_change(head, base, "EO-CHG4")
    long_base = _set_idle(_listener(1200, **LONG_KEEPALIVE), {"Ref": "Idle"})  # base's clients would fail on 400 s
    long_base["Parameters"] = {"Idle": {"Type": "String"}}
    quiet_change(long_base, _listener(400), "EO-CHG4")
    one_change(_listener(1200, **LONG_KEEPALIVE), _listener(400), "EO-CHG4", "Nlb1Tcp", Severity.WARNING,
               "the old clients (base's profile) on the new listener (400 s idle)")  # the same pair, idle known


@pytest.mark.parametrize(("protocol", "fires"), [("TCP", True), ("TLS", False)])
def test_chg4_a_tls_listener_has_the_fixed_default_whatever_its_attribute_says(protocol: str, fires: bool) -> None:
    base, head = _listener(400), _listener(1200, **LONG_KEEPALIVE)
    for body in (base, head):
        props(body, "Nlb1Tcp")["Protocol"] = protocol
    if fires:
        one_change(base, head, "EO-CHG4", "Nlb1Tcp", Severity.WARNING, "idle timeout 400 s -> 1200 s")
    else:
        quiet_change(base, head, "EO-CHG4")


@pytest.mark.parametrize(("scheme", "fires"), [("internet-facing", True), ("internal", False)])
def test_chg4_a_replaced_listener_takes_the_old_connections_with_it(scheme: str, fires: bool) -> None:
    """A create-only change of the NLB replaces it and its listener: old clients never meet the new one."""
    head = _listener(1200, **LONG_KEEPALIVE)
    props(head, "Nlb1")["Scheme"] = scheme
    if fires:
        one_change(_listener(400), head, "EO-CHG4", "Nlb1Tcp", Severity.WARNING, NEW_CLIENTS_ON_OLD)
    else:
        quiet_change(_listener(400), head, "EO-CHG4")


def test_chg4_a_failure_head_already_has_alone_is_not_a_transition_failure() -> None:
    """Head's clients fail on head's own listener too (EO-KA's business): the old listener adds nothing new."""
    broken_head = LONG_KEEPALIVE | {"nlb_idle_timeout_s": 400, "target_tcp_established_timeout_s": 400}
    quiet_change(_listener(300), _listener(400, **broken_head), "EO-CHG4")


def test_chg4_a_failure_base_already_has_alone_is_not_a_transition_failure() -> None:
    broken_base = LONG_KEEPALIVE | {"nlb_idle_timeout_s": 400, "target_tcp_established_timeout_s": 400}
    quiet_change(_listener(400, **broken_base), _listener(300), "EO-CHG4")


def test_chg4_a_listener_that_declared_no_profile_shows_an_unknown_keepalive() -> None:
    base = _listener(400)
    del resources(base)["Nlb1Tcp"]["Metadata"]
    one_change(base, _listener(1200, **LONG_KEEPALIVE), "EO-CHG4", "Nlb1Tcp", Severity.WARNING,
               "client keepalive ? s -> 600 s", f"{NEW_CLIENTS_ON_OLD} (400 s idle)")


@pytest.mark.parametrize(("keepalive", "shown"), [(600.0, "600"), (600.5, "600.5")])
def test_chg4_the_keepalive_is_shown_as_written_without_a_trailing_point_zero(keepalive: float, shown: str) -> None:
    head = _listener(1200, **(LONG_KEEPALIVE | {"client_keepalive_time_s": keepalive}))
    one_change(_listener(400), head, "EO-CHG4", "Nlb1Tcp", Severity.WARNING, f"client keepalive 30 s -> {shown} s:")


def test_chg4_an_idle_timeout_the_profile_cannot_hold_does_not_break_the_check() -> None:
    """Head's 0 s is no duration the profile takes (ProfileError): the pairs with it are not judged, the others are."""
    head = _set_idle(_listener(1200, **LONG_KEEPALIVE), "0")
    one_change(_listener(400), head, "EO-CHG4", "Nlb1Tcp", Severity.WARNING,
               "idle timeout 400 s -> 0 s", f"{NEW_CLIENTS_ON_OLD} (400 s idle)")


# --- CloudFront origin keepalive against the listener idle timeout ----------------------------------------------
def _cloudfront(keepalive: int, idle: int) -> dict[str, Any]:
    """One NLB; the origin keepalive and the idle timeout given; the clients' keepalive (45 s) fits every idle here."""
    return world(nlbs=1, idle=idle, keepalive=keepalive,
                 listener_profile=make_pairs.profile(nlb_idle_timeout_s=idle, client_keepalive_time_s=45))


def _on_dist(base: dict[str, Any], head: dict[str, Any]) -> list[str]:
    """EO-CHG4's messages on the distribution (the listener pairs are checked above)."""
    return [f.message for f in transition_findings(base, head, "EO-CHG4") if f.resource == "Dist"]


@pytest.mark.parametrize(("base", "head", "phrase"), [
    ((60, 100), (150, 200), "keepalive 60 s -> 150 s, Edge/Nlb1Tcp idle 100 s -> 200 s: the new origin keepalive on "
                            "the old listener (150 s >= 100 s)"),
    ((60, 100), (100, 200), "the new origin keepalive on the old listener (100 s >= 100 s)"),
    ((90, 180), (50, 90), "the old origin keepalive on the new listener (90 s >= 90 s)"),
])
def test_chg4_an_origin_keepalive_reaching_the_other_sides_idle_fires(
        base: tuple[int, int], head: tuple[int, int], phrase: str) -> None:
    messages = _on_dist(_cloudfront(*base), _cloudfront(*head))
    assert len(messages) == 1 and phrase in messages[0], messages


@pytest.mark.parametrize(("base", "head"), [
    ((60, 100), (99, 200)),   # the new keepalive stays below the old idle
    ((89, 180), (50, 90)),    # the old keepalive stays below the new idle
    ((100, 100), (150, 200)),  # base alone is broken (EO-CF2's business)
    ((60, 100), (200, 200)),  # head alone is broken
])
def test_chg4_an_origin_keepalive_below_both_idles_or_broken_alone_is_quiet(
        base: tuple[int, int], head: tuple[int, int]) -> None:
    assert _on_dist(_cloudfront(*base), _cloudfront(*head)) == []


def test_chg4_an_origin_new_in_head_is_not_compared() -> None:
    head = _cloudfront(150, 200)
    config = props(head, "Dist")["DistributionConfig"]
    config["Origins"][0]["Id"] = config["DefaultCacheBehavior"]["TargetOriginId"] = "o2"
    assert _on_dist(_cloudfront(60, 100), head) == []


# --- TTL raised on a gRPC origin ------------------------------------------------------------------------------------
def _ttls(*ttls: int, grpc: bool = True) -> dict[str, Any]:
    """Two NLBs' four records with these TTLs (in template order)."""
    body = world()
    for key, ttl in zip(record_ids(body), ttls, strict=True):
        props(body, key)["TTL"] = ttl
    props(body, "Dist")["DistributionConfig"]["DefaultCacheBehavior"]["GrpcConfig"]["Enabled"] = grpc
    return body


def test_chg4_the_highest_head_ttl_fires_on_its_record() -> None:
    one_change(_ttls(60, 60, 60, 60), _ttls(60, 300, 60, 60), "EO-CHG4", "RecordNlb1B", Severity.WARNING,
               f"{make_pairs.NAME}: TTL raised 60 s -> 300 s on a gRPC origin")


def test_chg4_a_ttl_raised_from_zero_fires() -> None:
    one_change(_ttls(0, 0, 0, 0), _ttls(0, 1, 0, 0), "EO-CHG4", "RecordNlb1B", Severity.WARNING, "TTL raised 0 s -> 1 s")


@pytest.mark.parametrize(("before", "after"), [((0, 0, 0, 0), (0, 0, 0, 0)), ((60, 300, 60, 60), (300, 60, 60, 60))])
def test_chg4_no_ttl_above_base_highest_is_quiet(before: tuple[int, ...], after: tuple[int, ...]) -> None:
    quiet_change(_ttls(*before), _ttls(*after), "EO-CHG4")


def test_chg4_a_ttl_raised_on_an_origin_that_is_not_grpc_is_quiet() -> None:
    quiet_change(_ttls(60, 60, 60, 60, grpc=False), _ttls(300, 300, 300, 300, grpc=False), "EO-CHG4")


@pytest.mark.parametrize("side", ["base", "head"])
def test_chg4_a_ttl_decided_at_deploy_time_on_either_side_is_not_compared(side: str) -> None:
    base, head = _ttls(60, 60, 60, 60), _ttls(300, 300, 300, 300)
    unknown = base if side == "base" else head
    unknown["Parameters"] = {"Ttl": {"Type": "Number"}}
    for key in record_ids(unknown):
        props(unknown, key)["TTL"] = {"Ref": "Ttl"}
    quiet_change(base, head, "EO-CHG4")


# --- whole messages, each fix, and one listener or origin skipped among others (mutmut survivors) -----------------
def _transition(base: dict[str, Any], head: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(f.resource, f.message, f.fix) for f in transition_findings(base, head, "EO-CHG4")]


def test_chg4_each_direction_names_every_failed_check_and_its_own_fix() -> None:
    from edge_origin.rules.chg4_connection_profile_transition import FIX_IDLE_LOWERED, FIX_IDLE_RAISED

    fails = "fail EO-PROFILE-IDLE-MARGIN, EO-PROFILE-IDLE-NO-PINGS while the change rolls out"
    assert _transition(_listener(400), _listener(1200, **LONG_KEEPALIVE)) == [(
        "Nlb1Tcp", f"Nlb1Tcp: idle timeout 400 s -> 1200 s, client keepalive 30 s -> 600 s: {NEW_CLIENTS_ON_OLD} (400 s idle) "
        f"{fails}", FIX_IDLE_RAISED)]
    assert _transition(_listener(1200, **LONG_KEEPALIVE), _listener(400)) == [(
        "Nlb1Tcp", "Nlb1Tcp: idle timeout 1200 s -> 400 s, client keepalive 600 s -> 30 s: the old clients (base's profile) "
        f"on the new listener (400 s idle) {fails}", FIX_IDLE_LOWERED)]


def test_chg4_range_and_cloudfront_checks_of_the_profile_are_left_to_their_own_rules() -> None:
    """An idle timeout below the AWS range (EO-KA's business) adds no range failure to the mix; the profile's own
    CloudFront keepalive is not compared (the template's origin keepalive is, below)."""
    base = _listener(50)
    del resources(base)["Nlb1Tcp"]["Metadata"]
    [(_, message, _)] = _transition(base, _listener(1200, **LONG_KEEPALIVE))
    assert message.endswith("(50 s idle) fail EO-PROFILE-IDLE-MARGIN, EO-PROFILE-IDLE-NO-PINGS while the change rolls out")
    quiet_change(_listener(90), _listener(1200, cloudfront_keepalive_timeout_s=100), "EO-CHG4")


def test_chg4_a_keepalive_written_as_a_float_shows_without_point_zero() -> None:
    head = _listener(1200, **LONG_KEEPALIVE)
    resources(head)["Nlb1Tcp"]["Metadata"]["edge-origin:connection-profile"]["client_keepalive_time_s"] = 600.0
    one_change(_listener(400), head, "EO-CHG4", "Nlb1Tcp", Severity.WARNING, "client keepalive 30 s -> 600 s:")


def test_chg4_old_clients_fail_on_a_new_listener_that_declares_no_profile() -> None:
    head = _listener(400)
    del resources(head)["Nlb1Tcp"]["Metadata"]
    one_change(_listener(1200, **LONG_KEEPALIVE), head, "EO-CHG4", "Nlb1Tcp", Severity.WARNING,
               "client keepalive 600 s -> ? s: the old clients (base's profile) on the new listener (400 s idle)")


def _two(idle: int, **profile: Any) -> dict[str, Any]:
    return world(nlbs=2, idle=idle, listener_profile=make_pairs.profile(**({"nlb_idle_timeout_s": idle} | profile)))


def _unchanged(base: dict[str, Any], head: dict[str, Any]) -> None:
    resources(head)["Nlb1Tcp"] = resources(base)["Nlb1Tcp"]


def _new_in_head(base: dict[str, Any], head: dict[str, Any]) -> None:
    del resources(base)["Nlb1Tcp"]


def _idle_at_deploy(base: dict[str, Any], head: dict[str, Any]) -> None:
    head["Parameters"] = {"Idle": {"Type": "String"}}
    _set_idle(head, {"Ref": "Idle"})  # Nlb1Tcp


def _replaced(base: dict[str, Any], head: dict[str, Any]) -> None:
    props(head, "Nlb1")["Scheme"] = "internal"


@pytest.mark.parametrize("skip", [_unchanged, _new_in_head, _idle_at_deploy, _replaced])
def test_chg4_a_listener_skipped_does_not_end_the_check_of_the_next(skip) -> None:
    base, head = _two(400), _two(1200, **LONG_KEEPALIVE)
    assert [r for r, _, _ in _transition(base, head)] == ["Nlb1Tcp", "Nlb2Tcp"]
    skip(base, head)
    assert [r for r, _, _ in _transition(base, head)] == ["Nlb2Tcp"]


def _cf_two(keepalive: int | None, idle: int) -> dict[str, Any]:
    body = world(nlbs=2, idle=idle, keepalive=keepalive or 60,
                 listener_profile=make_pairs.profile(nlb_idle_timeout_s=idle, client_keepalive_time_s=45))
    if keepalive is None:
        del props(body, "Dist")["DistributionConfig"]["Origins"][0]["CustomOriginConfig"]["OriginKeepaliveTimeout"]
    return body


def _cf_listener_new(base: dict[str, Any], head: dict[str, Any]) -> None:
    del resources(base)["Nlb1Tcp"]


def _cf_idle_at_deploy(base: dict[str, Any], head: dict[str, Any]) -> None:
    base["Parameters"] = {"Idle": {"Type": "String"}}
    _set_idle(base, {"Ref": "Idle"})


def _cf_broken_alone(base: dict[str, Any], head: dict[str, Any]) -> None:
    _set_idle(base, "50")  # the base keepalive 60 s already reaches Nlb1's old idle: EO-CF2's business


@pytest.mark.parametrize("skip", [_cf_listener_new, _cf_idle_at_deploy, _cf_broken_alone])
def test_chg4_an_origin_listener_skipped_does_not_end_the_check_of_the_next(skip) -> None:
    base, head = _cf_two(60, 100), _cf_two(150, 200)
    assert len(_on_dist(base, head)) == 2
    skip(base, head)
    messages = _on_dist(base, head)
    assert len(messages) == 1 and "Edge/Nlb2Tcp idle 100 s -> 200 s" in messages[0], messages


@pytest.mark.parametrize(("base", "head", "phrase"), [
    ((None, 100), (150, 200), "keepalive 5 s -> 150 s"),  # CloudFront's default origin keepalive: 5 s
    ((60, 100), (None, 50), "keepalive 60 s -> 5 s"),
])
def test_chg4_an_origin_without_a_keepalive_has_cloudfronts_default(base, head, phrase: str) -> None:
    messages = _on_dist(_cf_two(*base), _cf_two(*head))
    assert len(messages) == 2 and all(phrase in m for m in messages), messages


def test_chg4_a_ttl_raise_is_judged_on_the_origin_name_only() -> None:
    def with_other(body: dict[str, Any]) -> dict[str, Any]:
        resources(body)["Other"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
            "HostedZoneName": "example.com.", "Name": "other.example.com", "Type": "A", "TTL": 3600,
            "ResourceRecords": ["192.0.2.1"]}}
        return body

    found = transition_findings(with_other(_ttls(60, 60, 60, 60)), with_other(_ttls(60, 300, 60, 60)), "EO-CHG4")
    assert [(f.resource, f.message) for f in found] == [(
        "RecordNlb1B", f"{make_pairs.NAME}: TTL raised 60 s -> 300 s on a gRPC origin: edges keep a dead or replaced "
        "address that much longer, and long-lived connections pile onto what one answer held")]
    quiet_change(with_other(_ttls(60, 60, 60, 60)), with_other(_ttls(60, 60, 60, 60)), "EO-CHG4")


def _second_listener(body: dict[str, Any]) -> dict[str, Any]:
    """Nlb1 with a second TCP listener (port 8443, Nlb1Tcp2) after Nlb1Tcp, the same idle timeout."""
    second = copy.deepcopy(resources(body)["Nlb1Tcp"])
    second["Properties"]["Port"] = 8443
    resources(body)["Nlb1Tcp2"] = second
    return body


@pytest.mark.parametrize("skip", [_cf_listener_new, _cf_idle_at_deploy, _cf_broken_alone])
def test_chg4_a_listener_of_the_same_nlb_skipped_does_not_end_the_check_of_the_next(skip) -> None:
    base = _second_listener(_cloudfront(60, 100))
    head = _second_listener(_cloudfront(150, 200))
    assert len(_on_dist(base, head)) == 2
    skip(base, head)
    messages = _on_dist(base, head)
    assert len(messages) == 1 and "Edge/Nlb1Tcp2 idle 100 s -> 200 s" in messages[0], messages


def _other_origin_first(body: dict[str, Any]) -> dict[str, Any]:
    """An origin o0 (another name, served to /static/* without gRPC) before o1."""
    config = props(body, "Dist")["DistributionConfig"]
    config["Origins"].insert(0, {"Id": "o0", "DomainName": "static.example.com", "CustomOriginConfig": {
        "OriginProtocolPolicy": "https-only", "OriginKeepaliveTimeout": 60, "OriginReadTimeout": 60}})
    config["CacheBehaviors"] = [{"PathPattern": "/static/*", "TargetOriginId": "o0", "ViewerProtocolPolicy": "https-only",
                                 "CachePolicyId": "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"}]
    return body


def test_chg4_an_origin_passed_over_does_not_end_the_check_of_the_next() -> None:
    messages = _on_dist(_cloudfront(60, 100), _other_origin_first(_cloudfront(150, 200)))
    assert len(messages) == 1 and "origin o1: keepalive 60 s -> 150 s" in messages[0], messages


def _aaa_origin(body: dict[str, Any], grpc: bool, ttl: Any) -> dict[str, Any]:
    """A second origin aaa.example.com (sorted before NAME) on Nlb1's address, served to /aaa/*."""
    config = props(body, "Dist")["DistributionConfig"]
    config["Origins"].append({"Id": "o0", "DomainName": "aaa.example.com", "CustomOriginConfig": {
        "OriginProtocolPolicy": "https-only", "OriginKeepaliveTimeout": 60, "OriginReadTimeout": 60}})
    config["CacheBehaviors"] = [{"PathPattern": "/aaa/*", "TargetOriginId": "o0", "ViewerProtocolPolicy": "https-only",
                                 "GrpcConfig": {"Enabled": grpc}, "CachePolicyId": "4135ea2d-6df8-44a3-9df3-4b5a84be39ad",
                                 "AllowedMethods": ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"]}]
    body.setdefault("Parameters", {})["Ttl"] = {"Type": "Number"}
    resources(body)["AaaRecord"] = {"Type": "AWS::Route53::RecordSet", "Properties": {
        "HostedZoneName": "example.com.", "Name": "aaa.example.com", "Type": "A", "TTL": ttl,
        "ResourceRecords": [{"Ref": "Nlb1EipA"}]}}
    return body


@pytest.mark.parametrize(("grpc", "kind", "ttls"), [
    (False, "long-lived", (60, 300)),  # not gRPC: its TTL is not this rule's
    (True, "grpc", ({"Ref": "Ttl"}, {"Ref": "Ttl"})),  # TTL decided at deploy time: not compared
])
def test_chg4_an_origin_name_passed_over_for_its_ttl_does_not_end_the_check_of_the_next(grpc: bool, kind: str, ttls) -> None:
    base, head = _aaa_origin(_ttls(60, 60, 60, 60), grpc, ttls[0]), _aaa_origin(_ttls(60, 300, 60, 60), grpc, ttls[1])
    from edge_origin.model import TemplateModel

    assert list(TemplateModel.from_templates({"Edge": head}).origin_names().items())[0] == ("aaa.example.com", kind)
    found = transition_findings(base, head, "EO-CHG4")
    assert [f.resource for f in found if "TTL raised" in f.message] == ["RecordNlb1B"]
