"""Every finding the profile checks give, whole (rule, severity, fields, message, fix), for one profile per check and
each side of its boundaries, per implementation and path (mutmut, issue 38). The findings are a committed golden file,
tests/snapshots/profile_checks.json: refresh it on purpose with UPDATE_SNAPSHOTS=1 and review the diff."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from edge_origin.profile import ConnectionProfile, ProfileError
from edge_origin.profile.checks import CHECK_HOPS

SNAPSHOT = Path(__file__).resolve().parents[1] / "snapshots" / "profile_checks.json"
D = ConnectionProfile()

#: case -> (fields changed from the default profile, keyword arguments of ConnectionProfile.check)
CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "default": ({}, {}),
    "incident": ({"client_keepalive_time_s": 20, "client_keepalive_timeout_s": 5, "client_permit_without_calls": True,
                  "server_min_ping_interval_s": 300, "server_permit_without_calls": False,
                  "server_max_connection_age_s": None, "server_max_connection_age_grace_s": None,
                  "server_max_connection_idle_s": None, "nlb_idle_timeout_s": 350}, {}),
    "incident-java-only": ({"client_keepalive_time_s": 20, "client_permit_without_calls": True,
                            "server_min_ping_interval_s": 300, "server_permit_without_calls": False,
                            "server_max_connection_idle_s": None}, {"langs": ("java",)}),
    "incident-no-in-vpc-clients": ({"client_keepalive_time_s": 20, "client_permit_without_calls": True,
                                    "server_min_ping_interval_s": 300, "server_permit_without_calls": False,
                                    "server_max_connection_idle_s": None}, {"in_vpc_clients": False}),
    "ping-floor": ({"client_keepalive_time_s": 20, "server_min_ping_interval_s": 30}, {}),
    "ping-floor-server-pings-sooner": ({"client_keepalive_time_s": 20, "server_min_ping_interval_s": 30,
                                        "server_keepalive_time_s": 15}, {}),
    "ping-floor-no-strikes": ({"client_keepalive_time_s": 20, "server_max_ping_strikes": 0}, {}),
    "ping-floor-edge": ({"client_keepalive_time_s": 30, "server_min_ping_interval_s": 30}, {}),
    "ping-floor-edge-just-above-guard": ({"client_keepalive_time_s": 33, "server_min_ping_interval_s": 30}, {}),
    "ping-floor-near-server-frames": ({"client_keepalive_time_s": 20, "server_min_ping_interval_s": 30,
                                       "server_keepalive_time_s": 19}, {}),
    "idle-ping-rejected": ({"server_permit_without_calls": False}, {}),
    "idle-ping-rejected-server-permits": ({"server_permit_without_calls": True, "client_permit_without_calls": True}, {}),
    "idle-margin-warning": ({"client_keepalive_time_s": 346, "nlb_idle_timeout_s": 350}, {}),
    "idle-margin-error": ({"client_keepalive_time_s": 349, "nlb_idle_timeout_s": 350}, {}),
    "idle-margin-doubled": ({"client_keepalive_time_s": 20, "server_min_ping_interval_s": 300,
                             "server_keepalive_time_s": None, "server_send_interval_s": None}, {}),
    "idle-no-pings": ({"client_permit_without_calls": False, "server_max_connection_idle_s": None}, {}),
    "idle-no-pings-server-unset": ({"client_permit_without_calls": False, "server_max_connection_idle_s": None,
                                    "server_keepalive_time_s": None}, {}),
    "idle-no-pings-server-not-permitted": ({"client_permit_without_calls": False, "server_max_connection_idle_s": None,
                                            "server_permit_without_calls": False}, {}),
    "ping-timeout": ({"client_keepalive_timeout_s": 90}, {}),
    "pick-first": ({"client_lb_policy": "pick_first"}, {}),
    "strikes-fixed": ({"server_max_ping_strikes": 3}, {}),
    "strikes-fixed-python-only": ({"server_max_ping_strikes": 3}, {"langs": ("python",)}),
    "age-unset": ({"server_max_connection_age_s": None}, {}),
    "age-p99": ({"server_max_connection_age_s": 40, "server_max_connection_age_grace_s": 10}, {}),
    "age-p99-boundary": ({"server_max_connection_age_s": 50, "server_max_connection_age_grace_s": 10,
                          "p99_rpc_duration_s": 5}, {}),
    "age-grace": ({"server_max_connection_age_grace_s": 2, "p99_rpc_duration_s": 5}, {}),
    "age-grace-equal": ({"server_max_connection_age_grace_s": 5, "p99_rpc_duration_s": 5}, {}),
    "cf-keepalive": ({"cloudfront_keepalive_timeout_s": 60, "nlb_idle_timeout_s": 60}, {}),
    "cf-keepalive-no-cloudfront": ({"cloudfront_keepalive_timeout_s": 60, "nlb_idle_timeout_s": 60},
                                   {"cloudfront": False}),
    "cf-read": ({"cloudfront_read_timeout_s": 20, "longest_stream_gap_s": 20}, {}),
    "cf-read-above": ({"cloudfront_read_timeout_s": 21, "longest_stream_gap_s": 20}, {}),
    "cf-stream-idle": ({"longest_stream_gap_s": 150, "cloudfront_read_timeout_s": 170,
                        "cloudfront_extended_timeouts": True, "nlb_idle_timeout_s": 120}, {}),
    "cf-stream-idle-server-unset": ({"longest_stream_gap_s": 150, "cloudfront_read_timeout_s": 170,
                                     "cloudfront_extended_timeouts": True, "nlb_idle_timeout_s": 120,
                                     "server_keepalive_time_s": None, "server_send_interval_s": None}, {}),
    "target-tracking": ({"nlb_idle_timeout_s": 600}, {}),
    "target-tracking-set": ({"nlb_idle_timeout_s": 600, "target_tcp_established_timeout_s": 400}, {}),
    "target-tracking-equal": ({"nlb_idle_timeout_s": 600, "target_tcp_established_timeout_s": 600}, {}),
    "targets-at-quota": ({"expected_targets_per_nlb": 500}, {}),
    "targets-over-quota": ({"expected_targets_per_nlb": 501}, {}),
    "targets-over-all": ({"expected_targets_per_nlb": 3001}, {}),
    "range-nlb": ({"nlb_idle_timeout_s": 30, "cloudfront_keepalive_timeout_s": 5}, {}),
    "range-cloudfront-quota": ({"cloudfront_read_timeout_s": 200, "cloudfront_keepalive_timeout_s": 121,
                                "nlb_idle_timeout_s": 600, "target_tcp_established_timeout_s": 600}, {}),
    "range-cloudfront-ceiling": ({"cloudfront_read_timeout_s": 3601, "cloudfront_extended_timeouts": True}, {}),
    "range-cloudfront-no-cloudfront": ({"cloudfront_read_timeout_s": 3601, "cloudfront_extended_timeouts": True},
                                       {"cloudfront": False}),
    "range-client-keepalive": ({"client_keepalive_time_s": 5, "client_keepalive_timeout_s": 5,
                                "server_min_ping_interval_s": 4}, {}),
    "range-client-keepalive-no-in-vpc-clients": ({"client_keepalive_time_s": 5, "client_keepalive_timeout_s": 5,
                                                  "server_min_ping_interval_s": 4}, {"in_vpc_clients": False}),
    "scaled-no-ranges": ({"client_keepalive_time_s": 5, "client_keepalive_timeout_s": 1, "server_min_ping_interval_s": 0.5,
                          "nlb_idle_timeout_s": 4, "cloudfront_keepalive_timeout_s": 1, "cloudfront_read_timeout_s": 2,
                          "longest_stream_gap_s": 1, "server_max_connection_idle_s": None}, {"ranges": False}),
    # the words of what the client reads, and clamping to an implementation's lowest keepalive (ranges) or not
    "ping-floor-server-pings-and-sends": ({"client_keepalive_time_s": 20, "server_keepalive_time_s": 60,
                                           "server_send_interval_s": 45}, {}),
    "ping-floor-go-only": ({"client_keepalive_time_s": 20}, {"langs": ("go",)}),
    "ping-floor-clamped": ({"client_keepalive_time_s": 7, "client_keepalive_timeout_s": 5}, {}),
    "ping-floor-unclamped": ({"client_keepalive_time_s": 7, "client_keepalive_timeout_s": 5}, {"ranges": False}),
    "ping-floor-edge-at-guard": ({"client_keepalive_time_s": 31, "server_min_ping_interval_s": 30}, {}),
    "ping-floor-edge-near-server-pings": ({"client_keepalive_time_s": 19.5, "server_keepalive_time_s": 19}, {}),
    "ping-floor-edge-near-server-sends": ({"client_keepalive_time_s": 19.5, "server_send_interval_s": 19}, {}),
    "ping-floor-edge-near-clamped": ({"client_keepalive_time_s": 7, "client_keepalive_timeout_s": 5,
                                      "server_send_interval_s": 9.9}, {}),
    "ping-floor-edge-near-go-only": ({"client_keepalive_time_s": 19.5, "server_keepalive_time_s": 19}, {"langs": ("go",)}),
    "idle-ping-rejected-server-pings": ({"server_permit_without_calls": False, "server_keepalive_time_s": 600}, {}),
    "idle-ping-rejected-one-doubling": ({"server_permit_without_calls": False, "client_keepalive_time_s": 3600,
                                         "client_keepalive_timeout_s": 20}, {}),
    "idle-ping-rejected-at-2h": ({"server_permit_without_calls": False, "client_keepalive_time_s": 7200}, {}),
    "idle-ping-rejected-clamped": ({"server_permit_without_calls": False, "client_keepalive_time_s": 7,
                                    "client_keepalive_timeout_s": 5}, {}),
    "idle-margin-target-tracking": ({"client_keepalive_time_s": 395, "nlb_idle_timeout_s": 600,
                                     "target_tcp_established_timeout_s": 400}, {}),
    "idle-margin-server-pings": ({"client_keepalive_time_s": 360, "server_keepalive_time_s": 346,
                                  "server_send_interval_s": 400}, {}),
    "idle-margin-clamped": ({"client_keepalive_time_s": 8, "client_keepalive_timeout_s": 5, "server_min_ping_interval_s": 4,
                             "nlb_idle_timeout_s": 9, "server_max_connection_idle_s": 5}, {}),
    "idle-no-pings-server-400": ({"client_permit_without_calls": False, "server_max_connection_idle_s": None,
                                  "server_keepalive_time_s": 400}, {}),
    "idle-no-pings-server-400-not-permitted": ({"client_permit_without_calls": False, "server_max_connection_idle_s": None,
                                                "server_keepalive_time_s": 400, "server_permit_without_calls": False}, {}),
    "idle-no-pings-clamped": ({"client_keepalive_time_s": 8, "client_keepalive_timeout_s": 5,
                               "server_permit_without_calls": False, "server_max_connection_idle_s": None}, {}),
    "strikes-fixed-go-only": ({"server_max_ping_strikes": 3}, {"langs": ("go",)}),
    "age-p99-at-the-factor": ({"server_max_connection_age_s": 100, "p99_rpc_duration_s": 9}, {}),
    "age-p99-fraction": ({"server_max_connection_age_s": 41.23456, "server_max_connection_age_grace_s": 10}, {}),
    "cf-stream-idle-server-pings": ({"longest_stream_gap_s": 150, "cloudfront_read_timeout_s": 170,
                                     "cloudfront_extended_timeouts": True, "nlb_idle_timeout_s": 120,
                                     "server_keepalive_time_s": 125, "server_send_interval_s": 140}, {}),
    "cf-stream-idle-server-sends": ({"longest_stream_gap_s": 150, "cloudfront_read_timeout_s": 170,
                                     "cloudfront_extended_timeouts": True, "nlb_idle_timeout_s": 120,
                                     "server_keepalive_time_s": 140, "server_send_interval_s": 125}, {}),
    "range-client-keepalive-10": ({"client_keepalive_time_s": 10, "client_keepalive_timeout_s": 5,
                                   "server_min_ping_interval_s": 4}, {}),
    "range-client-keepalive-go-only": ({"client_keepalive_time_s": 5, "client_keepalive_timeout_s": 5,
                                       "server_min_ping_interval_s": 4}, {"langs": ("go",)}),
    "ping-floor-server-sends-rarely": ({"client_keepalive_time_s": 20, "server_keepalive_time_s": 60,
                                        "server_send_interval_s": 100}, {}),
    "ping-floor-edge-clamped-go": ({"client_keepalive_time_s": 4.1, "client_keepalive_timeout_s": 4,
                                    "server_min_ping_interval_s": 4, "server_keepalive_time_s": 8}, {"langs": ("go",)}),
    "ping-floor-edge-unclamped-go": ({"client_keepalive_time_s": 4.1, "client_keepalive_timeout_s": 4,
                                      "server_min_ping_interval_s": 4, "server_keepalive_time_s": 8},
                                     {"langs": ("go",), "ranges": False}),
    "ping-floor-edge-near-unclamped": ({"client_keepalive_time_s": 7, "client_keepalive_timeout_s": 5,
                                        "server_send_interval_s": 6.9}, {"ranges": False}),
    "ping-floor-edge-near-no-strikes": ({"client_keepalive_time_s": 19.5, "server_keepalive_time_s": 19,
                                        "server_max_ping_strikes": 0}, {}),
    "ping-floor-edge-near-after-a-goaway": ({"client_keepalive_time_s": 20, "server_keepalive_time_s": 39}, {}),
    "ping-floor-edge-near-at-the-floor": ({"client_keepalive_time_s": 30, "server_keepalive_time_s": 29.5}, {}),
    "ping-floor-edge-near-at-the-guard": ({"client_keepalive_time_s": 21, "server_keepalive_time_s": 20}, {}),
    "ping-floor-doubling-limit": ({"client_keepalive_time_s": 0.0001, "client_keepalive_timeout_s": 0.0001,
                                   "server_min_ping_interval_s": 2147483, "server_keepalive_time_s": 2147483},
                                  {"ranges": False, "langs": ("go",)}),  # stops after 32 GOAWAYs (core.MAX_THROTTLE_DOUBLINGS)
    "idle-ping-rejected-unclamped": ({"server_permit_without_calls": False, "client_keepalive_time_s": 7,
                                      "client_keepalive_timeout_s": 5}, {"ranges": False}),
    "idle-no-pings-clamped-permitted": ({"client_keepalive_time_s": 7, "client_keepalive_timeout_s": 5,
                                         "nlb_idle_timeout_s": 60, "server_max_connection_idle_s": None}, {}),
    "idle-no-pings-server-400-python-only": ({"client_permit_without_calls": False, "server_max_connection_idle_s": None,
                                              "server_keepalive_time_s": 400}, {"langs": ("python",)}),
}


def _findings(case: str) -> dict[str, Any]:
    fields, kwargs = CASES[case]
    found = D.replace(**fields).check(**kwargs)
    return {"profile": fields, "check": {k: list(v) if isinstance(v, tuple) else v for k, v in kwargs.items()},
            "findings": [{"rule": f.rule, "severity": f.severity.value, "fields": f.resource, "message": f.message,
                          "fix": f.fix} for f in found]}


def test_the_snapshot_holds_every_case() -> None:
    """The committed golden file; refresh on purpose with UPDATE_SNAPSHOTS=1 and review the diff."""
    rendered = json.dumps({case: _findings(case) for case in CASES}, indent=1, ensure_ascii=False) + "\n"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.write_text(rendered)
    assert SNAPSHOT.exists(), f"no snapshot at {SNAPSHOT}: run UPDATE_SNAPSHOTS=1 pytest {__file__}"
    assert set(json.loads(SNAPSHOT.read_text())) == set(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_findings_a_user_reads(case: str) -> None:
    expected = json.loads(SNAPSHOT.read_text())[case]
    assert _findings(case) == json.loads(json.dumps(expected)), f"{case} changed: review, then UPDATE_SNAPSHOTS=1"


def test_every_check_fires_somewhere_and_some_cases_are_quiet() -> None:
    snapshot = json.loads(SNAPSHOT.read_text())
    fired = {f["rule"] for case in snapshot.values() for f in case["findings"]}
    assert {r for r in fired if r.startswith("EO-PROFILE-")} == {
        "EO-PROFILE-PING-FLOOR", "EO-PROFILE-PING-FLOOR-EDGE", "EO-PROFILE-IDLE-PING-REJECTED", "EO-PROFILE-IDLE-MARGIN",
        "EO-PROFILE-IDLE-NO-PINGS", "EO-PROFILE-PING-TIMEOUT", "EO-PROFILE-PICK-FIRST", "EO-PROFILE-STRIKES-FIXED",
        "EO-PROFILE-AGE-UNSET", "EO-PROFILE-AGE-P99", "EO-PROFILE-AGE-GRACE", "EO-PROFILE-CF-KEEPALIVE",
        "EO-PROFILE-CF-READ", "EO-PROFILE-CF-STREAM-IDLE", "EO-PROFILE-TARGET-TRACKING", "EO-PROFILE-RANGE",
        "EO-PROFILE-TARGETS"}
    assert snapshot["default"]["findings"] == [] and snapshot["target-tracking-equal"]["findings"] == []
    hops = {hop.says("") for hop in CHECK_HOPS.values()} | {"[NLB listener] "}  # ranges also judge the listener
    assert all(any(f["message"].startswith(h) for h in hops) for case in snapshot.values() for f in case["findings"])


def test_an_implementation_that_renders_no_grpc_server_is_refused() -> None:
    with pytest.raises(ProfileError) as refused:
        D.check(langs=("go", "rust", "ruby"))
    assert str(refused.value) == "--lang: 'rust' renders no gRPC server; judge one of go, java, python"


def every_case() -> None:
    """All cases at once (for a quick mutant check outside pytest)."""
    snapshot = json.loads(SNAPSHOT.read_text())
    for case in CASES:
        assert _findings(case) == snapshot[case], case
