"""EO-KA1..3 beyond their fire/quiet fixtures: defaults, TLS, non-gRPC distributions, bad metadata."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from edge_origin.findings import Severity
from edge_origin.model import TemplateModel
from edge_origin.model.loader import read_template_file
from edge_origin.profile import PROFILE_METADATA_KEY, ConnectionProfile
from edge_origin.rules import get_rule, run_rules

RULES_DIR = Path(__file__).parent / "fixtures" / "templates" / "rules"
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
