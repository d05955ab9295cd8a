"""Issue 19's corrected verdicts on real gRPC (grpcio, C-core), loopback only, time scaled down.

Each proof runs the contrasting profiles side by side, with the settings the renderer gives
(``python_channel_options``), and bounds every wait by events (pings or a GOAWAY seen by the relay,
or a flow dropped), never by wall-clock asserts. What C-core does here is the ``C_CORE`` row of
``edge_origin.profile.policy``; the verdicts for grpc-go and grpc-java come from their rows (no Go
toolchain here; Java without grpc-java jars).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from scaled_profile import SCALED_PROFILE

from edge_origin.profile import ConnectionProfile, python_channel_options
from edge_origin.profile.render import RenderError, render
from edge_origin.testing.health import health_check
from edge_origin.testing.relay import Flow
from edge_origin.testing.rig import rig

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

SCALED = SCALED_PROFILE
IGNORED = {"EO-PROFILE-AGE-UNSET"}  # scaled proofs do not test an L4 age
PINGS_SEEN = 7  # one allowed + the BDP probe + strikes: well past the GOAWAY point of 2 strikes


def rules(profile: ConnectionProfile, **kw: object) -> set[str]:
    return {f.rule for f in profile.check(ranges=False, **kw)} - IGNORED  # type: ignore[arg-type]


def too_many_pings(flows: list[Flow]) -> bool:
    return any(g.error == "ENHANCE_YOUR_CALM" and g.debug == b"too_many_pings" for f in flows for g in f.goaways())


def _idle_pings(profile: ConnectionProfile) -> tuple[bool, int]:
    """One RPC, then idle: (GOAWAY too_many_pings seen, client pings on the first connection)."""
    with rig(python_channel_options(profile, "server"), python_channel_options(profile, "client")) as r:
        assert health_check(r.channel, 5).ok
        r.relay.wait_for(
            lambda: too_many_pings(r.relay.flows()) or len(r.relay.flows()[0].pings()) >= PINGS_SEEN, 20
        )
        flows = r.relay.flows()
        return too_many_pings(flows), len(flows[0].pings())


# --- class 1: strikes 0 is C-core's "unlimited"; grpc-go cannot be told so ----------------------------------
EARLY = SCALED.replace(server_min_ping_interval_s=5)  # the client pings every 1 s against a 5 s floor


def test_cc_strikes_zero_never_goaways_two_strikes_do_and_go_refuses_zero() -> None:
    unlimited = EARLY.replace(server_max_ping_strikes=0)
    assert "EO-PROFILE-PING-FLOOR" in rules(EARLY, langs=("python",))
    assert "EO-PROFILE-PING-FLOOR" not in rules(unlimited, langs=("python",))
    assert "EO-PROFILE-PING-FLOOR" in rules(unlimited, langs=("go",))  # grpc-go bears 2 whatever the profile says
    with pytest.raises(RenderError, match="grpc-go hard-codes 2"):
        render(unlimited, "go")

    with ThreadPoolExecutor(2) as pool:
        two, zero = pool.submit(_idle_pings, EARLY), pool.submit(_idle_pings, unlimited)
        (two_goaway, _), (zero_goaway, zero_pings) = two.result(), zero.result()
    assert two_goaway
    assert not zero_goaway and zero_pings >= PINGS_SEEN


# --- class 2: the 2 h floor with no stream open when permit-without-calls is false ------------------------------
def test_cc_two_hour_floor_rejects_idle_pings_above_the_configured_floor() -> None:
    strict = SCALED.replace(server_permit_without_calls=False)  # 1 s pings, 0.5 s floor: fine with a stream open
    assert "EO-PROFILE-PING-FLOOR" not in rules(strict)
    assert "EO-PROFILE-IDLE-PING-REJECTED" in rules(strict)
    assert rules(SCALED) == set()

    with ThreadPoolExecutor(2) as pool:
        rejected, allowed = pool.submit(_idle_pings, strict), pool.submit(_idle_pings, SCALED)
        (strict_goaway, _), (allowed_goaway, allowed_pings) = rejected.result(), allowed.result()
    assert strict_goaway  # no stream open: the floor is 2 h, not server_min_ping_interval_s
    assert not allowed_goaway and allowed_pings >= PINGS_SEEN


# --- class 5: a quiet stream's flow behind CloudFront lives on the server's pings ---------------------------------
RELAY_IDLE_S = 3.0
# A client that never pings, like CloudFront towards its origin; a stream quiet far longer than the idle timeout.
QUIET = SCALED.replace(client_keepalive_time_s=1000, client_keepalive_timeout_s=1, client_permit_without_calls=False,
                       longest_stream_gap_s=10, cloudfront_read_timeout_s=20)
SERVER_PINGS = QUIET.replace(server_keepalive_time_s=1)


def _quiet_stream(profile: ConnectionProfile) -> tuple[bool, int]:
    """A Watch stream that stays quiet: (flow dropped by the relay, server pings seen)."""
    with rig(
        python_channel_options(profile, "server"), python_channel_options(profile, "client"), idle_timeout_s=RELAY_IDLE_S
    ) as r:
        call = health_pb2_grpc.HealthStub(r.channel).Watch(health_pb2.HealthCheckRequest(), timeout=30)
        try:
            next(call)  # the first status; then nothing more is sent on the stream
            r.relay.wait_for(lambda: r.relay.flows()[0].dropped or len(r.relay.flows()[0].pings("s2c")) >= 5, 15)
            flow = r.relay.flows()[0]
            return flow.dropped, len(flow.pings("s2c"))
        finally:
            call.cancel()


def test_cc_server_pings_keep_a_quiet_cloudfront_leg_alive() -> None:
    on_cloudfront = {"cloudfront": True, "in_vpc_clients": False}
    assert "EO-PROFILE-CF-STREAM-IDLE" in rules(QUIET, **on_cloudfront)
    assert "EO-PROFILE-CF-STREAM-IDLE" not in rules(SERVER_PINGS, **on_cloudfront)

    with ThreadPoolExecutor(2) as pool:
        silent, pinged = pool.submit(_quiet_stream, QUIET), pool.submit(_quiet_stream, SERVER_PINGS)
        (silent_dropped, _), (pinged_dropped, server_pings) = silent.result(), pinged.result()
    assert silent_dropped
    assert not pinged_dropped and server_pings >= 5


def test_watch_is_a_stream_the_servicer_answers() -> None:
    """The quiet-stream proof relies on Watch staying open after its first message."""
    with rig(python_channel_options(SCALED, "server"), python_channel_options(SCALED, "client")) as r:
        call = health_pb2_grpc.HealthStub(r.channel).Watch(health_pb2.HealthCheckRequest(), timeout=5)
        try:
            assert next(call).status == health_pb2.HealthCheckResponse.SERVING
        finally:
            call.cancel()
        with pytest.raises(grpc.RpcError):
            next(call)
