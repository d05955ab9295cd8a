"""EO-KA1..3 beyond their fire/quiet fixtures: defaults, TLS, non-gRPC distributions, bad metadata."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import read_template_file
from edge_origin.profile import PROFILE_METADATA_KEY, ConnectionProfile, hops
from edge_origin.rules import get_rule, run_rules

RULES_DIR = Path(__file__).parents[1] / "fixtures" / "templates" / "rules"
KA = [get_rule("EO-KA1"), get_rule("EO-KA2"), get_rule("EO-KA3")]


def body(name: str = "eo-ka3-quiet.yaml") -> dict[str, Any]:
    return copy.deepcopy(read_template_file(RULES_DIR / name).body)


def ka(template: dict[str, Any]) -> list[tuple[str, str, str]]:
    findings = run_rules(TemplateModel.from_templates({"S": template}), KA)
    return [(f.rule, f.resource, f.message) for f in findings]


def declare(template: dict[str, Any], logical_id: str, profile: Any) -> None:
    template["Resources"][logical_id]["Metadata"] = {PROFILE_METADATA_KEY: profile}


def test_full_metadata_from_the_constructs_is_read() -> None:
    t = body()
    profile = ConnectionProfile.preset("streaming-telemetry").replace(
        nlb_idle_timeout_s=350, cloudfront_keepalive_timeout_s=30, cloudfront_read_timeout_s=30, longest_stream_gap_s=20
    )
    declare(t, "Listener", profile.to_metadata())
    declare(t, "Dist", profile.to_metadata())
    assert ka(t) == []


def test_ka1_unset_idle_timeout_is_the_350_s_default() -> None:
    t = body()
    t["Resources"]["Listener"]["Properties"].pop("ListenerAttributes")
    declare(t, "Listener", {"nlb_idle_timeout_s": 350})
    assert ka(t) == []
    declare(t, "Listener", {"nlb_idle_timeout_s": 600})
    [(rule, resource, message)] = ka(t)
    assert (rule, resource) == ("EO-KA1", "Listener")
    assert "350 s (the default" in message and "nlb_idle_timeout_s 600 s" in message


def test_ka1_tls_listener_is_fixed_at_350_s() -> None:
    t = body()
    t["Resources"]["Listener"]["Properties"]["Protocol"] = "TLS"
    assert ka(t) == []  # the profile says 350, as TLS does
    declare(t, "Listener", {"nlb_idle_timeout_s": 600})
    [(rule, _, message)] = ka(t)
    assert rule == "EO-KA1" and "fixed for TLS" in message


def test_ka2_explicit_keepalive_drift_names_both_numbers() -> None:
    t = body()
    origin = t["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"][0]
    origin["CustomOriginConfig"]["OriginKeepaliveTimeout"] = 10
    [(rule, resource, message)] = ka(t)
    assert (rule, resource) == ("EO-KA2", "Dist")
    assert "OriginKeepaliveTimeout 10 s" in message and "cloudfront_keepalive_timeout_s 30 s" in message


def test_ka2_without_grpc_behaviors_checks_every_custom_origin() -> None:
    t = body()
    config = t["Resources"]["Dist"]["Properties"]["DistributionConfig"]
    config["DefaultCacheBehavior"].pop("GrpcConfig")
    config["Origins"][0]["CustomOriginConfig"]["OriginReadTimeout"] = 45
    assert [r for r, _, _ in ka(t)] == ["EO-KA2"]


def test_ka3_metadata_not_a_mapping() -> None:
    t = body()
    declare(t, "Listener", "internal-unary")
    [(rule, resource, message)] = ka(t)
    assert (rule, resource) == ("EO-KA3", "Listener") and "must be a mapping" in message


def test_ka3_unknown_key_and_unknown_preset() -> None:
    t = body()
    declare(t, "Listener", {"nlb_idle_timeout": 600})
    declare(t, "Dist", {"preset": "turbo"})
    messages = {resource: message for _, resource, message in ka(t)}
    assert "nlb_idle_timeout: unknown key" in messages["Listener"]
    assert "unknown preset 'turbo'" in messages["Dist"]


def test_ka3_cloudfront_checks_only_where_a_distribution_declares_the_profile() -> None:
    t = body()
    bad_cf = {"nlb_idle_timeout_s": 350, "cloudfront_keepalive_timeout_s": 30, "cloudfront_read_timeout_s": 30,
              "longest_stream_gap_s": 45}  # read timeout 30 s < longest gap 45 s
    declare(t, "Listener", bad_cf)
    declare(t, "Dist", bad_cf)
    findings = ka(t)
    assert [(r, res) for r, res, _ in findings] == [("EO-KA3", "Dist")]
    assert "EO-PROFILE-CF-READ" in findings[0][2] and "longest_stream_gap_s 45 s" in findings[0][2]


def test_ka_rules_are_errors_and_quiet_without_metadata() -> None:
    assert {r.severity for r in KA} == {Severity.ERROR}
    t = body()
    for res in t["Resources"].values():
        res.pop("Metadata", None)
    t["Resources"]["Listener"]["Properties"]["Protocol"] = "TLS"
    assert ka(t) == []


# --- issue 19: the hop model in templates ---------------------------------------------------------------
NLB1, CF2, KA1 = get_rule("EO-NLB1"), get_rule("EO-CF2"), get_rule("EO-KA1")


def run(template: dict[str, Any], *rules: Any) -> list[tuple[str, str, str, Severity]]:
    findings = run_rules(TemplateModel.from_templates({"S": template}), list(rules))
    return [(f.rule, f.resource, f.message, f.severity) for f in findings]


def set_idle(template: dict[str, Any], value: Any) -> None:
    template["Resources"]["Listener"]["Properties"]["ListenerAttributes"] = [
        {"Key": "tcp.idle_timeout.seconds", "Value": str(value)}
    ]


@settings(database=None, max_examples=40, deadline=None)
@given(dist_idle=st.integers(60, 350), listener_idle=st.integers(60, 350))
def test_class6_distribution_profile_against_the_listener_its_origin_reaches(dist_idle: int, listener_idle: int) -> None:
    t = body()
    t["Resources"]["Listener"].pop("Metadata")  # the listener declares no profile
    declare(t, "Dist", {"nlb_idle_timeout_s": dist_idle, "cloudfront_keepalive_timeout_s": 30, "cloudfront_read_timeout_s": 30})
    set_idle(t, listener_idle)
    found = [f for f in run(t, KA1) if f[1] == "Dist"]
    assert bool(found) == (dist_idle != listener_idle)
    if found:
        assert found[0][2].startswith("[CloudFront -> NLB]") and f"{listener_idle} s" in found[0][2]


def test_class6_issue_example_idle_600_profile_idle_60_listener() -> None:
    t = body()
    t["Resources"]["Listener"].pop("Metadata")
    declare(t, "Dist", {"nlb_idle_timeout_s": 600, "cloudfront_keepalive_timeout_s": 30, "cloudfront_read_timeout_s": 30})
    set_idle(t, 60)
    [(rule, resource, message, severity)] = run(t, KA1)
    assert (rule, resource, severity) == ("EO-KA1", "Dist", Severity.ERROR)
    assert "nlb_idle_timeout_s 600 s" in message and "idle timeout is 60 s" in message


@settings(database=None, max_examples=40, deadline=None)
@given(idle=st.integers(351, 6000), target_type=st.sampled_from(["ip", "instance", None, "alb"]))
def test_class4_idle_above_350_with_tracked_targets(idle: int, target_type: str | None) -> None:
    t = body()
    set_idle(t, idle)
    tg = t["Resources"]["Targets"]["Properties"]
    tg.pop("TargetType", None)
    if target_type:
        tg["TargetType"] = target_type
    found = [f for f in run(t, NLB1) if f[2].startswith("[target connection tracking]")]
    assert bool(found) == (target_type != "alb")
    if found:
        assert "TcpEstablishedTimeout" in found[0][2] and "silently" in found[0][2]


def test_class4_cf2_fix_carries_the_tracking_caveat() -> None:
    assert "TcpEstablishedTimeout" in CF2.fix and "600" not in CF2.fix
    t = body()
    t["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"][0]["CustomOriginConfig"]["OriginKeepaliveTimeout"] = 60
    set_idle(t, 60)
    [(rule, _, message, _)] = run(t, CF2)
    assert rule == "EO-CF2" and message.startswith("[CloudFront -> NLB]") and hops.NLB_EXPIRY in message


@pytest.mark.parametrize("protocol", ["TCP_UDP", "UDP"])
def test_class7_tcp_udp_listener_says_the_attribute_is_tcp_only(protocol: str) -> None:
    t = body()
    t["Resources"]["Listener"]["Properties"]["Protocol"] = protocol
    t["Resources"]["Listener"]["Properties"].pop("ListenerAttributes")
    notes = [f for f in run(t, NLB1) if "TCP-listener attribute" in f[2]]
    assert notes and f"{protocol} listener" in notes[0][2]
    set_idle(t, 350)
    assert any("AWS documents for TCP listeners only" in f[2] for f in run(t, NLB1))
    if protocol == "TCP_UDP":  # TCP flows keep 350 s: a declared 350 agrees, 600 does not
        declare(t, "Listener", {"nlb_idle_timeout_s": 350})
        assert [f for f in run(t, KA1) if f[1] == "Listener"] == []
        declare(t, "Listener", {"nlb_idle_timeout_s": 600})
        [(_, _, message, _)] = [f for f in run(t, KA1) if f[1] == "Listener"]
        assert "fixed for TCP_UDP" in message and "TCP-listener attribute" in message


@settings(database=None, max_examples=60, deadline=None)
@given(idle=st.one_of(st.integers(-10, 59), st.integers(6001, 100000), st.integers(60, 6000)))
def test_class8_idle_out_of_range_in_templates(idle: int) -> None:
    t = body()
    set_idle(t, idle)
    errors = [f for f in run(t, NLB1) if f[3] is Severity.ERROR]
    out_of_range = not 60 <= idle <= 6000
    assert bool(errors) == out_of_range
    if out_of_range:
        assert "60..6000" in errors[0][2] and errors[0][2].startswith("[NLB listener]")


def test_ka3_on_a_distribution_does_not_judge_device_keepalive_against_the_nlb() -> None:
    t = body()
    slow_devices = {"preset": "streaming-telemetry", "client_keepalive_time_s": 400, "cloudfront_keepalive_timeout_s": 30,
                    "cloudfront_read_timeout_s": 30, "longest_stream_gap_s": 20,
                    "server_keepalive_time_s": None}
    declare(t, "Dist", slow_devices)
    assert [f for f in ka(t) if f[1] == "Dist"] == []
    declare(t, "Listener", slow_devices)  # in-VPC clients reaching the listener directly: judged
    listener = [f for f in ka(t) if f[1] == "Listener"]
    assert listener and "[in-VPC client -> NLB]" in listener[0][2]


def test_class6_origin_on_the_nlb_dns_name_directly() -> None:
    t = body()
    t["Resources"]["Listener"].pop("Metadata")
    declare(t, "Dist", {"nlb_idle_timeout_s": 350, "cloudfront_keepalive_timeout_s": 30, "cloudfront_read_timeout_s": 30})
    origin = t["Resources"]["Dist"]["Properties"]["DistributionConfig"]["Origins"][0]
    origin["DomainName"] = {"Fn::GetAtt": ["Nlb", "DNSName"]}
    assert run(t, KA1) == []
    set_idle(t, 120)
    [(rule, resource, message, _)] = run(t, KA1)
    assert (rule, resource) == ("EO-KA1", "Dist") and "idle timeout is 120 s" in message


def test_class4_declared_target_tracking_quiets_the_finding() -> None:
    t = body()
    set_idle(t, 600)
    declare(t, "Listener", {"nlb_idle_timeout_s": 600})
    assert any(f[2].startswith("[target connection tracking]") for f in run(t, NLB1))
    declare(t, "Listener", {"nlb_idle_timeout_s": 600, "target_tcp_established_timeout_s": 600})
    assert not any(f[2].startswith("[target connection tracking]") for f in run(t, NLB1))
    declare(t, "Listener", {"nlb_idle_timeout_s": 600, "target_tcp_established_timeout_s": 500})
    assert any("above 500 s" in f[2] for f in run(t, NLB1))


@pytest.mark.parametrize("value", ["350.5", "abc", "", "1e3"])
def test_class8_idle_not_a_whole_number_in_templates(value: str) -> None:
    t = body()
    set_idle(t, value)
    errors = [f for f in run(t, NLB1) if f[3] is Severity.ERROR]
    assert errors and "not a whole number" in errors[0][2]


def test_every_keepalive_finding_names_its_hop() -> None:
    from edge_origin.model import load_model
    from edge_origin.profile.hops import PathHop

    tags = tuple(f"[{h.value}]" for h in PathHop)
    rules = [get_rule(r) for r in ("EO-KA1", "EO-KA2", "EO-KA3", "EO-CF2", "EO-NLB1")]
    seen = 0
    for path in sorted(RULES_DIR.glob("*-fire*.yaml")):
        for f in run_rules(load_model([path]), rules):
            seen += 1
            assert any(tag in f.message for tag in tags), (path.name, f.rule, f.message)
    assert seen >= 5
