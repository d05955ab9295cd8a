"""Issue 19: keepalive verdicts per gRPC implementation and per hop, generated over the profile fields.

Each class of the issue has a property test whose oracle is the rule as stated (AWS's and the gRPC
sources' numbers from profile.hops / profile.policy), not the checker's own output.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.findings import Severity
from edge_origin.profile import ConnectionProfile, hops, policy
from edge_origin.profile.cli import render_profile
from edge_origin.profile.core import ProfileError
from edge_origin.profile.render import RenderError, configmap, python_channel_options, render

DEFAULT = ConnectionProfile()
CLEAN = DEFAULT.replace(server_max_connection_idle_s=None)
SETTINGS = settings(database=None, max_examples=60, deadline=None)


def by_rule(profile: ConnectionProfile, **kw: object) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in profile.check(**kw):  # type: ignore[arg-type]
        out.setdefault(f.rule, []).append(f)
    return out


# --- the policy table is the sources' numbers ----------------------------------------------------------
def test_policy_table_pins_each_implementation() -> None:
    assert policy.GO.strikes_setting is None and policy.GO.fixed_strikes == 2
    assert policy.JAVA.strikes_setting is None and policy.JAVA.fixed_strikes == 2
    assert policy.C_CORE.strikes_setting == "grpc.http2.max_ping_strikes" and policy.C_CORE.zero_strikes_unlimited
    for impl in policy.POLICIES.values():
        assert impl.idle_floor_s == 7200 and impl.default_min_ping_s == 300
        assert {"strikes", "idle_floor", "min_ping", "reset", "server_ping", "client_min", "backoff"} <= set(impl.source)
    assert "handlePing" in policy.GO.source["idle_floor"] and "KeepAliveEnforcer" in policy.JAVA.source["strikes"]
    assert "ping_abuse_policy.cc" in policy.C_CORE.source["strikes"]


def test_defaults_pinned_on_both_sides() -> None:
    # profile side
    assert DEFAULT.nlb_idle_timeout_s == hops.NLB_DEFAULT_IDLE_S == 350
    assert DEFAULT.cloudfront_keepalive_timeout_s == hops.CF_DEFAULT_KEEPALIVE_S == 5
    assert DEFAULT.cloudfront_read_timeout_s == hops.CF_DEFAULT_READ_S == 30
    assert DEFAULT.target_tcp_established_timeout_s is None and hops.TARGET_TCP_ESTABLISHED_DEFAULT_S == 350
    assert DEFAULT.reach_limit_s()[0] == 350
    # template side: the rules read the same constants
    from edge_origin.rules import cf2_keepalive_vs_idle, ka_profile, nlb1_idle_timeout

    assert ka_profile.NLB_DEFAULT_IDLE == nlb1_idle_timeout.DEFAULT_IDLE == cf2_keepalive_vs_idle.DEFAULT_IDLE == 350
    assert ka_profile.CF_DEFAULT_KEEPALIVE == cf2_keepalive_vs_idle.DEFAULT_KEEPALIVE == 5
    assert ka_profile.CF_DEFAULT_READ == 30
    assert hops.NLB_TLS_IDLE_S == 350 and hops.NLB_IDLE_RANGE == (60, 6000)


# --- class 1: strikes judged per rendered language ------------------------------------------------------
@SETTINGS
@given(
    t=st.integers(10, 299),
    m=st.integers(11, 600),
    strikes=st.integers(0, 6),
)
def test_class1_strikes_per_implementation(t: int, m: int, strikes: int) -> None:
    p = CLEAN.replace(client_keepalive_time_s=t, server_min_ping_interval_s=m, server_max_ping_strikes=strikes)
    for lang, impl in policy.POLICIES.items():
        found = by_rule(p, langs=(lang,))
        bears = None if (impl.strikes_setting and strikes == 0) else (strikes if impl.strikes_setting else 2)
        expect_floor = t < m and bears is not None
        assert ("EO-PROFILE-PING-FLOOR" in found) == expect_floor, (lang, t, m, strikes)
        if expect_floor:
            assert f"exceeds the {bears} strikes" in found["EO-PROFILE-PING-FLOOR"][0].message
        fixed = impl.strikes_setting is None and strikes != 2
        assert ("EO-PROFILE-STRIKES-FIXED" in found) == fixed, (lang, strikes)


@SETTINGS
@given(strikes=st.integers(0, 6), lang=st.sampled_from(["go", "java", "python"]))
def test_class1_render_refuses_what_it_cannot_honour(strikes: int, lang: str) -> None:
    p = CLEAN.replace(server_max_ping_strikes=strikes)
    honourable = lang == "python" or strikes == 2
    if honourable:
        text = render(p, lang)
        if lang == "go":
            assert "hard-coded" in text and "maxPingStrikes" in text
        if lang == "python":
            assert ("grpc.http2.max_ping_strikes", strikes) in python_channel_options(p, "server")
    else:
        with pytest.raises(RenderError, match="server_max_ping_strikes"):
            render(p, lang)
        assert configmap(p, "x")["data"][f"grpc-{lang}.txt"].startswith("// not rendered:")


def test_class1_incident_pair_with_strikes_0_is_refused_for_go(tmp_path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("client_keepalive_time_s: 20\nserver_min_ping_interval_s: 300\nserver_max_ping_strikes: 0\n")
    with pytest.raises(ProfileError, match="grpc-go hard-codes 2"):
        render_profile(str(path), None, "go", "n", "default")
    code, text = render_profile(str(path), None, "python", "n", "default")  # C-core honours 0 = unlimited
    assert code == 0 and "('grpc.http2.max_ping_strikes', 0)" in text
    p = ConnectionProfile.from_file(path)
    assert "EO-PROFILE-PING-FLOOR" in by_rule(p)  # judged for every implementation: Go and Java GOAWAY


# --- class 2: the 2 h floor with no stream open -----------------------------------------------------------
@SETTINGS
@given(t=st.integers(10, 7199), m=st.integers(1, 600), lang=st.sampled_from(["go", "java", "python"]))
def test_class2_two_hour_floor_without_permit(t: int, m: int, lang: str) -> None:
    p = CLEAN.replace(client_keepalive_time_s=t, server_min_ping_interval_s=m, server_permit_without_calls=False)
    [rejected] = by_rule(p, langs=(lang,))["EO-PROFILE-IDLE-PING-REJECTED"]
    assert rejected.severity is Severity.ERROR and "2 h" in rejected.message and "any such ping" not in rejected.message
    assert p.throttled_keepalive_time_s(lang, idle=True) >= 7200
    assert p.replace(server_permit_without_calls=True).throttled_keepalive_time_s(lang, idle=True) == (
        p.throttled_keepalive_time_s(lang)
    )
    # with the floor honoured, idle connections go unpinged past the NLB: IDLE-NO-PINGS unless closed first
    assert "EO-PROFILE-IDLE-NO-PINGS" in by_rule(p, langs=(lang,))


def test_class2_incident_blows_past_350_only_without_streams() -> None:
    incident = CLEAN.replace(
        client_keepalive_time_s=20, client_keepalive_timeout_s=5, server_min_ping_interval_s=300,
        server_permit_without_calls=False,
    )
    assert incident.throttled_keepalive_time_s("go") == 320
    assert incident.throttled_keepalive_time_s("go", idle=True) == 10240


# --- class 3: margins -----------------------------------------------------------------------------------
@SETTINGS
@given(limit=st.integers(60, 350), t=st.floats(10, 400, allow_nan=False))
def test_class3_idle_margin_follows_the_stated_guard(limit: int, t: float) -> None:
    p = CLEAN.replace(client_keepalive_time_s=t, server_min_ping_interval_s=5, nlb_idle_timeout_s=limit,
                      client_keepalive_timeout_s=5, cloudfront_keepalive_timeout_s=1)
    found = by_rule(p, langs=("go",)).get("EO-PROFILE-IDLE-MARGIN", [])
    guard = min(5.0, 0.05 * limit)
    if t >= limit - guard:
        assert [f.severity for f in found] == [Severity.ERROR]
    elif t > 0.9 * limit:
        assert [f.severity for f in found] == [Severity.WARNING]
    else:
        assert found == []


def test_class3_300_effective_against_350_is_not_an_error() -> None:
    p = CLEAN.replace(client_keepalive_time_s=300)
    assert "EO-PROFILE-IDLE-MARGIN" not in by_rule(p)
    assert hops.idle_severity(300, 350) is None
    assert hops.idle_severity(320, 350) is Severity.WARNING
    assert hops.idle_severity(345, 350) is Severity.ERROR


# --- class 4: idle above the targets' connection tracking ------------------------------------------------
@SETTINGS
@given(idle=st.integers(351, 6000), t=st.integers(10, 6000), tracking=st.one_of(st.none(), st.integers(60, 432000)))
def test_class4_target_tracking_bounds_the_reach(idle: int, t: int, tracking: int | None) -> None:
    p = CLEAN.replace(client_keepalive_time_s=t, server_min_ping_interval_s=5, nlb_idle_timeout_s=idle,
                      client_keepalive_timeout_s=5, target_tcp_established_timeout_s=tracking)
    effective = 350 if tracking is None else tracking
    found = by_rule(p)
    assert ("EO-PROFILE-TARGET-TRACKING" in found) == (idle > effective)
    reach = min(idle, effective)
    margin = found.get("EO-PROFILE-IDLE-MARGIN", [])
    assert (Severity.ERROR in {f.severity for f in margin}) == (t >= reach - min(5.0, 0.05 * reach))


def test_class4_idle_600_keepalive_400_fails() -> None:
    p = CLEAN.replace(client_keepalive_time_s=400, nlb_idle_timeout_s=600)
    found = by_rule(p)
    assert found["EO-PROFILE-IDLE-MARGIN"][0].severity is Severity.ERROR
    assert "target TcpEstablishedTimeout 350 s (not stated: the Nitro v6 default" in found["EO-PROFILE-IDLE-MARGIN"][0].message
    tracking = found["EO-PROFILE-TARGET-TRACKING"][0].message
    assert "depends on the instance type" in tracking and "350 s on Nitro v6" in tracking and "432,000 s" in tracking
    assert "EO-PROFILE-IDLE-MARGIN" not in by_rule(p.replace(target_tcp_established_timeout_s=600))


# --- class 5: the CloudFront path -------------------------------------------------------------------------
@SETTINGS
@given(t=st.integers(10, 100000), idle=st.integers(60, 350))
def test_class5_device_keepalive_is_not_judged_behind_cloudfront(t: int, idle: int) -> None:
    p = CLEAN.replace(client_keepalive_time_s=t, nlb_idle_timeout_s=idle, cloudfront_keepalive_timeout_s=5)
    on_cloudfront = by_rule(p, cloudfront=True, in_vpc_clients=False)
    in_vpc = {"EO-PROFILE-PING-FLOOR", "EO-PROFILE-IDLE-MARGIN", "EO-PROFILE-IDLE-NO-PINGS", "EO-PROFILE-PING-TIMEOUT"}
    assert not in_vpc & set(on_cloudfront)
    assert all(f.message.startswith("[") for fs in on_cloudfront.values() for f in fs)


@SETTINGS
@given(
    gap=st.integers(1, 170), idle=st.integers(60, 350),
    server=st.one_of(st.none(), st.integers(1, 400)),
)
def test_class5_cloudfront_leg_kept_alive_by_stream_data_or_server_pings(gap: int, idle: int, server: int | None) -> None:
    p = CLEAN.replace(longest_stream_gap_s=gap, cloudfront_read_timeout_s=180, cloudfront_extended_timeouts=True,
                      nlb_idle_timeout_s=idle, server_keepalive_time_s=server, cloudfront_keepalive_timeout_s=5)
    silence = min(gap, math.inf if server is None else server)
    found = by_rule(p, cloudfront=True, in_vpc_clients=False).get("EO-PROFILE-CF-STREAM-IDLE", [])
    assert [f.severity for f in found] == ([s] if (s := hops.idle_severity(silence, idle)) else [])


def test_class5_issue_example_fails_and_server_pings_fix_it() -> None:
    p = CLEAN.replace(longest_stream_gap_s=150, cloudfront_read_timeout_s=170, cloudfront_extended_timeouts=True,
                      nlb_idle_timeout_s=120)
    [f] = by_rule(p, in_vpc_clients=False)["EO-PROFILE-CF-STREAM-IDLE"]
    assert f.severity is Severity.ERROR and f.message.startswith("[CloudFront -> NLB]")
    fixed = p.replace(server_keepalive_time_s=60)
    assert "EO-PROFILE-CF-STREAM-IDLE" not in by_rule(fixed)
    go = render(fixed, "go")
    assert "Time:                  60 * time.Second" in go
    assert "Time:                  7200 * time.Second" in render(p, "go")  # the default, rendered explicitly
    assert ".keepAliveTime(60, TimeUnit.SECONDS)" in render(fixed, "java")
    assert ("grpc.keepalive_time_ms", 60000) in python_channel_options(fixed, "server")


# --- the wording AWS uses -----------------------------------------------------------------------------------
def test_messages_say_what_aws_says_about_idle_expiry() -> None:
    assert "without sending FIN or RST" in hops.NLB_EXPIRY
    assert "NLB responds with a TCP RST" in hops.NLB_EXPIRY
    p = CLEAN.replace(client_keepalive_time_s=346)
    assert hops.NLB_EXPIRY in by_rule(p)["EO-PROFILE-IDLE-MARGIN"][0].message
    assert "hangs" not in hops.NLB_EXPIRY  # a hang comes from the target's silent drop, not the NLB's


# --- renderers and verdicts read one table: they never disagree --------------------------------------------
@settings(database=None, max_examples=80, deadline=None)
@given(
    t=st.integers(10, 700), m=st.integers(1, 600), strikes=st.integers(0, 4),
    permit_server=st.booleans(), permit_client=st.booleans(), idle=st.integers(60, 1000),
    server=st.one_of(st.none(), st.integers(1, 700)),
)
def test_render_succeeds_exactly_when_the_verdict_for_that_language_is_clean(
    t: int, m: int, strikes: int, permit_server: bool, permit_client: bool, idle: int, server: int | None
) -> None:
    import json
    import tempfile
    from pathlib import Path

    data = {
        "client_keepalive_time_s": t, "server_min_ping_interval_s": m, "server_max_ping_strikes": strikes,
        "server_permit_without_calls": permit_server, "client_permit_without_calls": permit_client,
        "nlb_idle_timeout_s": idle, "server_keepalive_time_s": server, "client_keepalive_timeout_s": 5,
    }
    profile = ConnectionProfile.from_mapping(data)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.json"
        path.write_text(json.dumps(data))
        for lang, impl in policy.POLICIES.items():
            errors = [f for f in profile.check(langs=(lang,)) if f.severity is Severity.ERROR]
            refused = impl.render_problem(strikes)
            try:
                render_profile(str(path), None, lang, "n", "default")
                rendered = True
            except ProfileError:
                rendered = False
            assert rendered == (not errors and not refused), (lang, [f.rule for f in errors], refused)


# --- recorded Metadata survives CDK dropping nulls ----------------------------------------------------------
def _cdk_drops_nulls(data: dict) -> dict:
    return {k: v for k, v in data.items() if v is not None}


@SETTINGS
@given(
    idle=st.one_of(st.none(), st.integers(60, 3000)), age=st.one_of(st.none(), st.integers(700, 3000)),
    server=st.one_of(st.none(), st.integers(1, 300)), tracking=st.one_of(st.none(), st.integers(60, 432000)),
)
def test_metadata_round_trips_through_cdk(idle: int | None, age: int | None, server: int | None, tracking: int | None) -> None:
    p = DEFAULT.replace(server_max_connection_idle_s=idle, server_max_connection_age_s=age,
                        server_max_connection_age_grace_s=None if age is None else 60,
                        server_keepalive_time_s=server, target_tcp_established_timeout_s=tracking)
    meta = p.to_metadata()
    assert None not in meta.values()
    assert ConnectionProfile.from_metadata(_cdk_drops_nulls(meta)) == p


def test_metadata_unset_must_name_optional_fields() -> None:
    with pytest.raises(ProfileError, match="unset"):
        ConnectionProfile.from_metadata({"version": 1, "unset": ["nlb_idle_timeout_s"]})
    with pytest.raises(ProfileError, match="unset"):
        ConnectionProfile.from_metadata({"version": 1, "unset": "server_max_connection_idle_s"})
