"""The connection profile's three proofs on real gRPC (grpcio), loopback only, time scaled down.

Every channel and server takes its settings from ``python_channel_options`` (the renderer), so
the rendered Python settings are the ones proven here. Each test runs its contrasting cases side
by side in threads, every wait is bounded, every server and relay is stopped on exit.

Scaling: the C-core client never pings more often than once a second without data, so profiles
here are in seconds (1 s keepalive, a 3 s "NLB" idle timeout) and checked with ``ranges=False``.
"""

from __future__ import annotations

import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from scaled_profile import SCALED_PROFILE

from edge_origin.profile import ConnectionProfile, python_channel_options
from edge_origin.testing.health import CallResult, health_check
from edge_origin.testing.relay import Flow
from edge_origin.testing.rig import rig

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

# A scaled profile that passes its own checks: pings every 1 s, the server allows one every 0.5 s.
GOOD = SCALED_PROFILE
# Scaled proofs do not test an L4 age; proof 3 adds one.
AGE_RULES = {"EO-PROFILE-AGE-UNSET"}


def rules(profile: ConnectionProfile) -> set[str]:
    return {f.rule for f in profile.check(ranges=False)} - AGE_RULES


def too_many_pings(flows: list[Flow]) -> list[Flow]:
    return [f for f in flows if any(g.error == "ENHANCE_YOUR_CALM" and g.debug == b"too_many_pings" for g in f.goaways())]


def ping_intervals(flow: Flow) -> list[float]:
    times = [p.t for p in flow.pings("c2s")][1:]  # the first PING on a connection is the BDP probe
    return [b - a for a, b in zip(times, times[1:], strict=False)]


# --- 1. GOAWAY too_many_pings, and the check flags the same pair ----------------------------------
# The incident, scaled: client keepalive 1 s (was 20 s) against a server floor of 5 s (was 5 min)
# that also refuses pings without calls; the NLB idle timeout 3.5 s (was 350 s).
INCIDENT = GOOD.replace(server_min_ping_interval_s=5, server_permit_without_calls=False, nlb_idle_timeout_s=3.5)


def _ping_scenario(profile: ConnectionProfile, watch_s: float) -> tuple[list[Flow], float]:
    with rig(python_channel_options(profile, "server"), python_channel_options(profile, "client")) as r:
        start = time.monotonic()
        assert health_check(r.channel, 5).ok
        r.relay.wait_for(lambda: bool(too_many_pings(r.relay.flows())), watch_s)
        if too_many_pings(r.relay.flows()):
            # The next RPC reconnects; the doubled keepalive time carries over to the new connection.
            assert health_check(r.channel, 5, wait_for_ready=True).ok
            r.relay.wait_for(lambda: len(r.relay.flows()) > 1 and len(r.relay.flows()[1].pings()) >= 4, 12)
        return r.relay.flows(), time.monotonic() - start


def test_proof1_too_many_pings_goaway_and_the_check_flags_the_same_pair() -> None:
    flagged = {f.rule: f for f in INCIDENT.check(ranges=False)}
    floor = flagged["EO-PROFILE-PING-FLOOR"]
    assert "client_keepalive_time_s 1 s" in floor.message and "server_min_ping_interval_s 5 s" in floor.message
    assert "EO-PROFILE-IDLE-PING-REJECTED" in flagged
    assert rules(GOOD) == set()

    with ThreadPoolExecutor(2) as pool:
        bad = pool.submit(_ping_scenario, INCIDENT, 10)
        good = pool.submit(_ping_scenario, GOOD, 6)
        (bad_flows, bad_s), (good_flows, _) = bad.result(), good.result()

    throttled = too_many_pings(bad_flows)
    assert throttled, f"no GOAWAY too_many_pings within {bad_s:.1f} s"
    first = throttled[0]
    # One ping allowed, then server_max_ping_strikes + 1 early ones: the GOAWAY follows ping 4.
    assert len([p for p in first.pings() if p.t <= first.goaways()[0].t]) == INCIDENT.server_max_ping_strikes + 2
    # gRFC A8: the client doubles its keepalive time after too_many_pings, on the next connection too.
    before, after = ping_intervals(bad_flows[0]), ping_intervals(bad_flows[1])
    assert statistics.median(after) >= 1.6 * statistics.median(before), (before, after)
    # The profile's own pair: pings keep flowing, no GOAWAY.
    assert not too_many_pings(good_flows) and len(good_flows) == 1 and len(good_flows[0].pings()) >= 4


# --- 2. The idle-flow-dropping relay ---------------------------------------------------------------
RELAY_IDLE_S = 3.0
GAP_S = 4.5
# Mismatched: keepalive slower than the idle timeout (8 s vs 3 s), or no pings on idle connections.
SLOW_KEEPALIVE = GOOD.replace(client_keepalive_time_s=8, client_keepalive_timeout_s=2)
NO_IDLE_PINGS = GOOD.replace(client_permit_without_calls=False)


def _idle_gaps(profile: ConnectionProfile, gaps: int) -> tuple[list[CallResult], list[Flow]]:
    results: list[CallResult] = []
    with rig(
        python_channel_options(profile, "server"),
        python_channel_options(profile, "client"),
        idle_timeout_s=RELAY_IDLE_S,
    ) as r:
        results.append(health_check(r.channel, 5))
        for _ in range(gaps):
            time.sleep(GAP_S)
            results.append(health_check(r.channel, 2.5))
        return results, r.relay.flows()


def test_proof2_idle_relay_mismatched_profile_hangs_rendered_profile_survives() -> None:
    assert GOOD.nlb_idle_timeout_s == RELAY_IDLE_S
    assert "EO-PROFILE-IDLE-MARGIN" in rules(SLOW_KEEPALIVE)
    assert "EO-PROFILE-IDLE-NO-PINGS" in rules(NO_IDLE_PINGS)

    with ThreadPoolExecutor(3) as pool:
        slow = pool.submit(_idle_gaps, SLOW_KEEPALIVE, 1)
        silent = pool.submit(_idle_gaps, NO_IDLE_PINGS, 1)
        good = pool.submit(_idle_gaps, GOOD, 3)
        cases = {"slow keepalive": slow.result(), "no idle pings": silent.result()}
        good_results, good_flows = good.result()

    for name, (results, flows) in cases.items():
        first, after_gap = results
        assert first.ok, (name, first)
        assert not after_gap.ok and after_gap.code in ("DEADLINE_EXCEEDED", "UNAVAILABLE"), (name, after_gap)
        assert flows[0].dropped and flows[0].bytes_discarded > 0, name  # the RPC went into the dead flow
    assert [r.ok for r in good_results] == [True] * 4, good_results
    assert len(good_flows) == 1 and not good_flows[0].dropped  # one connection, kept alive by pings


# --- 3. pick_first pinning vs max connection age ----------------------------------------------------
BACKEND_HOSTS = ("127.0.0.2", "127.0.0.3", "127.0.0.4")
PINNED = GOOD.replace(client_lb_policy="pick_first")
AGED = PINNED.replace(server_max_connection_age_s=1, server_max_connection_age_grace_s=0.5)


def _spread(profile: ConnectionProfile, rpcs: int, every_s: float) -> tuple[list[int], int, int]:
    with rig(
        python_channel_options(profile, "server"),
        python_channel_options(profile, "client"),
        backends=len(BACKEND_HOSTS),
        hosts=BACKEND_HOSTS,
    ) as r:
        failed = 0
        for _ in range(rpcs):
            failed += not health_check(r.channel, 5, wait_for_ready=True).ok
            time.sleep(every_s)
        return r.per_backend(), len(r.relay.flows()), failed


def test_proof3_pick_first_pins_max_connection_age_spreads(capsys: pytest.CaptureFixture[str]) -> None:
    assert "EO-PROFILE-PICK-FIRST" in {f.rule for f in PINNED.check(ranges=False)}
    assert rules(AGED) == {"EO-PROFILE-PICK-FIRST"}

    with ThreadPoolExecutor(2) as pool:
        pinned = pool.submit(_spread, PINNED, 60, 0.1)
        aged = pool.submit(_spread, AGED, 60, 0.1)
        (pinned_counts, pinned_flows, pinned_failed), (aged_counts, aged_flows, aged_failed) = (
            pinned.result(),
            aged.result(),
        )

    def max_over_mean(counts: list[int]) -> float:
        return max(counts) / statistics.mean(counts)

    with capsys.disabled():
        print(
            f"\n[proof 3] pick_first, no max age: per backend {pinned_counts}, connections {pinned_flows}, "
            f"max/mean {max_over_mean(pinned_counts):.2f}"
            f"\n[proof 3] pick_first, max age 1 s: per backend {aged_counts}, connections {aged_flows}, "
            f"max/mean {max_over_mean(aged_counts):.2f}"
        )
    assert pinned_failed == 0 and aged_failed == 0
    assert sorted(pinned_counts) == [0, 0, 60] and pinned_flows == 1
    assert max_over_mean(pinned_counts) == pytest.approx(3.0)
    assert aged_flows >= 3 and all(c > 0 for c in aged_counts), aged_counts
    assert max_over_mean(aged_counts) <= 2.0, aged_counts
