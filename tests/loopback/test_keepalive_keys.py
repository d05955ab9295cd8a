"""Every C-core key ``python_channel_options`` renders takes effect (gRPC ignores unknown keys silently).

For each key: the rendered options against the same options without the key (or with it at a
value that switches it off), observed on the wire through the relay's HTTP/2 frame log, so the
difference can only come from that key. All scenarios run at once (about 10 s), each bounded.

It also pins down the ping-timeout finding: in grpcio 1.85 the wait for a keepalive ack is
``grpc.http2.ping_timeout_ms`` (default 60 s), and ``grpc.keepalive_timeout_ms`` only gates it
(infinite switches ping timeouts off); see :mod:`edge_origin.profile.render`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from edge_origin.profile import ConnectionProfile, python_channel_options
from edge_origin.testing.health import health_check
from edge_origin.testing.relay import Flow
from edge_origin.testing.rig import Rig, rig

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

Options = list[tuple[str, Any]]

PROFILE = ConnectionProfile(
    client_keepalive_time_s=1,
    client_keepalive_timeout_s=1,
    server_min_ping_interval_s=0.5,
    server_max_connection_age_s=None,
    server_max_connection_age_grace_s=None,
    server_max_connection_idle_s=None,
    nlb_idle_timeout_s=3,
    p99_rpc_duration_s=0.05,
)
CLIENT = python_channel_options(PROFILE, "client")
SERVER = python_channel_options(PROFILE, "server")
STRICT_SERVER = python_channel_options(PROFILE.replace(server_min_ping_interval_s=10, server_max_ping_strikes=5), "server")
AGED_SERVER = python_channel_options(
    PROFILE.replace(server_max_connection_age_s=1, server_max_connection_age_grace_s=1), "server"
)
IDLE_SERVER = python_channel_options(PROFILE.replace(server_max_connection_idle_s=1), "server")
INT_MAX = 2**31 - 1


def without(options: Options, key: str) -> Options:
    assert key in dict(options), f"{key} is not rendered"
    return [(k, v) for k, v in options if k != key]


def setting(options: Options, key: str, value: Any) -> Options:
    assert key in dict(options), f"{key} is not rendered"
    return [(k, value if k == key else v) for k, v in options]


def rendered_keys(role: str) -> set[str]:
    return {k for k, _ in python_channel_options(ConnectionProfile(), role)}  # type: ignore[arg-type]


# --- observations ------------------------------------------------------------------------------------
def idle_pings(r: Rig) -> int:
    """Client PINGs seen from 1 s to 4.5 s after one RPC (the BDP ping of the RPC itself comes earlier)."""
    assert health_check(r.channel, 5).ok
    start = time.monotonic() + 1.0
    time.sleep(4.5)
    return sum(1 for p in r.relay.flows()[0].pings() if p.t > start)


def dead_flow_detection(r: Rig) -> tuple[bool, str, float]:
    """Drop the flow silently, then call with a 10 s deadline: (ok, code, seconds)."""
    assert health_check(r.channel, 5).ok
    time.sleep(1.5)
    r.relay.drop_all()
    time.sleep(0.2)
    result = health_check(r.channel, 10)
    return result.ok, result.code, result.elapsed_s


def _calm(flow: Flow) -> bool:
    return any(g.error == "ENHANCE_YOUR_CALM" and g.debug == b"too_many_pings" for g in flow.goaways())


def pings_until_too_many(r: Rig) -> int | None:
    """Client PINGs up to the GOAWAY too_many_pings (None: no such GOAWAY within 9 s)."""
    assert health_check(r.channel, 5).ok
    r.relay.wait_for(lambda: _calm(r.relay.flows()[0]), 9)
    flow = r.relay.flows()[0]
    if not _calm(flow):
        return None
    goaway = next(g for g in flow.goaways() if g.error == "ENHANCE_YOUR_CALM")
    return sum(1 for p in flow.pings() if p.t <= goaway.t)


def goaway_debug_within(seconds: float) -> Callable[[Rig], list[bytes]]:
    def observe(r: Rig) -> list[bytes]:
        assert health_check(r.channel, 5).ok
        time.sleep(seconds)
        return [g.debug for g in r.relay.flows()[0].goaways()]

    return observe


def watch_stream_end(r: Rig) -> tuple[str, float, list[bytes]]:
    """A Watch stream with a 5 s deadline through an aging connection: (how it ended, when, the debug data of the
    server's GOAWAYs). Which side's socket closed first is not asked: at the grace's end the server sends its
    GOAWAY and closes, the client closes on reading it, and the relay may read the two EOFs in one select, in
    either order (CI saw "client" once)."""
    stub = health_pb2_grpc.HealthStub(r.channel)
    start = time.monotonic()
    code = "ENDED"
    try:
        for _ in stub.Watch(health_pb2.HealthCheckRequest(), timeout=5):
            pass
    except Exception as exc:  # grpc.RpcError
        code = exc.code().name  # type: ignore[attr-defined]
    elapsed = time.monotonic() - start
    flow = r.relay.flows()[0]
    if code != "DEADLINE_EXCEEDED":  # let the relay see the close that ended the stream
        r.relay.wait_for(lambda: flow.closed_at is not None, 2)
    return code, elapsed, [g.debug for g in flow.goaways() if g.direction == "s2c"]


SCENARIOS: dict[str, tuple[Options, Options, Callable[[Rig], Any]]] = {
    # client keys (server options permissive)
    "keepalive_time_ms:on": (SERVER, CLIENT, idle_pings),
    "keepalive_time_ms:off": (SERVER, without(CLIENT, "grpc.keepalive_time_ms"), idle_pings),
    "client_permit_without_calls:off": (SERVER, setting(CLIENT, "grpc.keepalive_permit_without_calls", 0), idle_pings),
    "max_pings_without_data:off": (SERVER, without(CLIENT, "grpc.http2.max_pings_without_data"), idle_pings),
    "ping_timeout_ms:on": (SERVER, CLIENT, dead_flow_detection),
    "ping_timeout_ms:off": (SERVER, without(CLIENT, "grpc.http2.ping_timeout_ms"), dead_flow_detection),
    "keepalive_timeout_ms:infinite": (SERVER, setting(CLIENT, "grpc.keepalive_timeout_ms", INT_MAX), dead_flow_detection),
    "ping_timeout_ms:6s": (SERVER, setting(CLIENT, "grpc.http2.ping_timeout_ms", 6000), dead_flow_detection),
    # server keys (client pings every second, also without calls)
    "min_ping_interval:on": (SERVER, CLIENT, pings_until_too_many),
    "min_ping_interval:off": (without(SERVER, "grpc.http2.min_ping_interval_without_data_ms"), CLIENT, pings_until_too_many),
    "min_ping_interval:misspelled": (
        [*without(SERVER, "grpc.http2.min_ping_interval_without_data_ms"), ("grpc.http2.min_recv_ping_interval_without_data_ms", 500)],
        CLIENT,
        pings_until_too_many,
    ),
    "max_ping_strikes:5": (STRICT_SERVER, CLIENT, pings_until_too_many),
    "max_ping_strikes:off": (without(STRICT_SERVER, "grpc.http2.max_ping_strikes"), CLIENT, pings_until_too_many),
    "server_permit_without_calls:off": (setting(SERVER, "grpc.keepalive_permit_without_calls", 0), CLIENT, pings_until_too_many),
    "max_connection_age_ms:on": (AGED_SERVER, CLIENT, goaway_debug_within(3)),
    "max_connection_age_ms:off": (
        without(without(AGED_SERVER, "grpc.max_connection_age_ms"), "grpc.max_connection_age_grace_ms"),
        CLIENT,
        goaway_debug_within(3),
    ),
    "max_connection_age_grace_ms:on": (AGED_SERVER, CLIENT, watch_stream_end),
    "max_connection_age_grace_ms:off": (without(AGED_SERVER, "grpc.max_connection_age_grace_ms"), CLIENT, watch_stream_end),
    "max_connection_idle_ms:on": (IDLE_SERVER, CLIENT, goaway_debug_within(3)),
    "max_connection_idle_ms:off": (without(IDLE_SERVER, "grpc.max_connection_idle_ms"), CLIENT, goaway_debug_within(3)),
}


def _run(server: Options, client: Options, observe: Callable[[Rig], Any]) -> Any:
    with rig(server, client) as r:
        return observe(r)


@pytest.fixture(scope="module")
def seen() -> dict[str, Any]:
    with ThreadPoolExecutor(len(SCENARIOS)) as pool:
        futures = {name: pool.submit(_run, *scenario) for name, scenario in SCENARIOS.items()}
        return {name: f.result(timeout=60) for name, f in futures.items()}


# Which scenarios prove which rendered key.
KEY_SCENARIOS = {
    "grpc.keepalive_time_ms": ("keepalive_time_ms:on", "keepalive_time_ms:off"),
    "grpc.keepalive_timeout_ms": ("ping_timeout_ms:on", "keepalive_timeout_ms:infinite"),
    "grpc.http2.ping_timeout_ms": ("ping_timeout_ms:on", "ping_timeout_ms:off"),
    "grpc.keepalive_permit_without_calls": ("client_permit_without_calls:off", "server_permit_without_calls:off"),
    "grpc.http2.max_pings_without_data": ("keepalive_time_ms:on", "max_pings_without_data:off"),
    "grpc.http2.min_ping_interval_without_data_ms": ("min_ping_interval:on", "min_ping_interval:off"),
    "grpc.http2.max_ping_strikes": ("max_ping_strikes:5", "max_ping_strikes:off"),
    "grpc.max_connection_age_ms": ("max_connection_age_ms:on", "max_connection_age_ms:off"),
    "grpc.max_connection_age_grace_ms": ("max_connection_age_grace_ms:on", "max_connection_age_grace_ms:off"),
    "grpc.max_connection_idle_ms": ("max_connection_idle_ms:on", "max_connection_idle_ms:off"),
}


def test_every_rendered_key_has_scenarios() -> None:
    assert set(KEY_SCENARIOS) == rendered_keys("client") | rendered_keys("server")
    assert {name for pair in KEY_SCENARIOS.values() for name in pair} <= set(SCENARIOS)


def test_client_keepalive_time_and_idle_ping_keys(seen: dict[str, Any]) -> None:
    assert seen["keepalive_time_ms:on"] >= 2  # one a second
    assert seen["keepalive_time_ms:off"] == 0  # default 2 h
    assert seen["client_permit_without_calls:off"] == 0  # no pings without a call
    assert seen["max_pings_without_data:off"] <= 2  # C-core stops after 2 pings without data


def test_ping_timeout_is_what_notices_a_dead_flow(seen: dict[str, Any]) -> None:
    ok, code, elapsed = seen["ping_timeout_ms:on"]
    assert not ok and code == "UNAVAILABLE", (code, elapsed)  # the ping timeout (~2 s), not the 10 s deadline: the code says which
    ok, code, elapsed = seen["ping_timeout_ms:off"]  # keepalive_timeout_ms 1 s alone: 60 s default wait
    assert not ok and code == "DEADLINE_EXCEEDED" and elapsed >= 9.5
    ok, code, elapsed = seen["ping_timeout_ms:6s"]  # the 1 s keepalive timeout does not cut the 6 s wait short
    assert not ok and code == "UNAVAILABLE" and elapsed >= 5.5, elapsed  # a lower bound cannot flake on a busy machine
    ok, code, elapsed = seen["keepalive_timeout_ms:infinite"]  # keepalive_timeout_ms gates the ping timeout
    assert not ok and code == "DEADLINE_EXCEEDED" and elapsed >= 9.5


def test_server_ping_enforcement_keys(seen: dict[str, Any]) -> None:
    assert seen["min_ping_interval:on"] is None  # 0.5 s floor: 1 s pings are fine
    assert seen["min_ping_interval:off"] == 4  # default 5 min floor: 1 allowed + 3 strikes
    assert seen["min_ping_interval:misspelled"] == 4  # the `_recv_` macro name is silently ignored
    assert seen["max_ping_strikes:5"] == 7  # 1 allowed + 6 strikes
    assert seen["max_ping_strikes:off"] == 4  # default 2 strikes
    assert seen["server_permit_without_calls:off"] is not None  # idle pings held to a 2 h floor


def test_server_connection_lifetime_keys(seen: dict[str, Any]) -> None:
    assert b"max_age" in seen["max_connection_age_ms:on"]
    assert seen["max_connection_age_ms:off"] == []
    code, elapsed, goaways = on = seen["max_connection_age_grace_ms:on"]
    # age 1 s (+-10 %) + grace 1 s: the server ends the stream long before the 5 s deadline (the client would not)
    assert code == "UNAVAILABLE" and 1.5 <= elapsed < 4.5 and any(b"max_age" in d for d in goaways), on
    code, elapsed, _ = off = seen["max_connection_age_grace_ms:off"]
    assert code == "DEADLINE_EXCEEDED" and elapsed >= 4.5, off  # default grace: no limit, the stream lives on
    assert any(b"idle" in d for d in seen["max_connection_idle_ms:on"])
    assert seen["max_connection_idle_ms:off"] == []
