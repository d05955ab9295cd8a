"""Issue 37: generated profiles against a small reference simulation of the ping timeline.

The simulation is written from the gRPC sources, not from edge_origin.profile.policy:

* a client pings when it has read nothing for its keepalive time, and every frame it reads (data,
  the server's PINGs, ACKs of its own PINGs) restarts that timer (grpc-go http2_client.go reader():
  lastRead on every frame, keepalive(); grpc-java NettyClientHandler onPingRead/onPingAckRead ->
  KeepAliveManager.onDataReceived; C-core chttp2 keepalive timer pushed back on reads);
* the server pings when it has read nothing for its keepalive time (grpc-go http2_server.go
  keepalive(); Java KeepAliveManager on the server; C-core the same transport code, no
  max_pings_without_data on a server: ping_rate_policy.cc);
* server data writes reset the ping strikes; a ping is a strike when it arrives sooner than the
  floor after the previous ping (grpc-go handlePing lastPingAt, C-core ReceivedOnePing
  last_ping_recv_time_) or after the last VALID ping (grpc-java KeepAliveEnforcer lastValidPingTime);
  more strikes than the server bears: GOAWAY too_many_pings; the client doubles its keepalive time
  for the next connection (gRFC A8); C-core with max_ping_strikes 0 never sends GOAWAY;
* grpc-go and grpc-java raise a client keepalive below 10 s to 10 s, C-core below 1 ms to 1 ms.

Zero RTT; at equal times the client's timer fires first, then the server's, then the data write
(the conservative order). The NLB drops a flow silent for its idle timeout (the verdict's guard is
hops.idle_severity's margin, applied to the simulated silence).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.findings import Severity
from edge_origin.profile import ConnectionProfile, ProfileError, hops

CLIENT, SERVER, DATA = 0, 1, 2
MIN_KEEPALIVE = {"go": 10.0, "java": 10.0, "python": 0.001}
STRIKES_FIXED = {"go": 2, "java": 2}


@dataclass
class Outcome:
    goaway: bool
    pinged: bool
    silence: float


def run_connection(lang: str, t: float, floor: float, strikes: int, k: float | None, send: float | None) -> Outcome:
    """One connection with one long stream: the events until GOAWAY or the horizon."""
    unlimited = lang == "python" and strikes == 0
    horizon = (2 * strikes + 8) * t + (6 * send if send is not None else 0.0) + (2 * k if k is not None else 0.0)
    client_read = server_read = 0.0
    last_ping = -math.inf  # go / C-core: previous ping; Java: last valid ping
    reset = True
    count = 0
    pinged = False
    frames = [0.0]
    queue: list[tuple[float, int]] = [(t, CLIENT)]
    if k is not None:
        heapq.heappush(queue, (k, SERVER))
    if send is not None:
        heapq.heappush(queue, (send, DATA))
    while queue:
        now, kind = heapq.heappop(queue)
        if now > horizon:
            break
        if kind == CLIENT:
            if now != client_read + t:
                continue  # a stale timer: the client read something since
            pinged = True
            frames.append(now)
            early = now - last_ping < floor
            if reset:
                reset, count, last_ping = False, 0, now
            elif lang == "java":
                if early:
                    count += 1
                else:
                    last_ping = now
            else:
                count += 1 if early else 0
                last_ping = now
            if not unlimited and count > strikes:
                return Outcome(True, True, max(b - a for a, b in zip(frames, frames[1:], strict=False)))
            client_read = server_read = now  # the server reads the ping, the client its ACK
            heapq.heappush(queue, (now + t, CLIENT))
            if k is not None:
                heapq.heappush(queue, (now + k, SERVER))
        elif kind == SERVER:
            if now != server_read + k:
                continue
            frames.append(now)
            client_read = server_read = now  # the client reads the ping, the server its ACK
            heapq.heappush(queue, (now + t, CLIENT))
            heapq.heappush(queue, (now + k, SERVER))
        else:
            frames.append(now)
            client_read = now
            reset, count, last_ping = True, 0, -math.inf  # go resetPingStrikes, Java resetCounters, C-core ResetPingStrikes
            heapq.heappush(queue, (now + t, CLIENT))
            heapq.heappush(queue, (now + send, DATA))
    return Outcome(False, pinged, max(b - a for a, b in zip(frames, frames[1:], strict=False)) if len(frames) > 1 else horizon)


def simulate(
    lang: str, keepalive: float, floor: float, strikes: int, k: float | None, send: float | None
) -> tuple[int, float, bool, float]:
    """Connections until one ends without GOAWAY: (GOAWAYs, final keepalive, pinged, silence)."""
    t = max(float(keepalive), MIN_KEEPALIVE[lang])
    strikes = STRIKES_FIXED.get(lang, strikes)
    for goaways in range(40):
        out = run_connection(lang, t, floor, strikes, k, send)
        if not out.goaway:
            return goaways, t, out.pinged, out.silence
        t *= 2
    raise AssertionError("no steady state after 40 doublings")


seconds = st.integers(1, 1200)
maybe = st.one_of(st.none(), seconds)


@settings(max_examples=150, deadline=None, database=None)
@given(t=seconds, m=seconds, k=maybe, send=maybe, strikes=st.integers(0, 3), idle=st.integers(60, 1300))
def test_verdicts_equal_the_reference_simulation(t: int, m: int, k: int | None, send: int | None, strikes: int, idle: int) -> None:
    profile = ConnectionProfile(
        client_keepalive_time_s=t, client_keepalive_timeout_s=1, server_min_ping_interval_s=m, server_keepalive_time_s=k,
        server_send_interval_s=send, server_max_ping_strikes=strikes, nlb_idle_timeout_s=idle,
        target_tcp_established_timeout_s=idle, server_max_connection_idle_s=None,
    )
    found = profile.check()
    for lang, name in (("go", "grpc-go"), ("java", "grpc-java"), ("python", "C-core (grpcio)")):
        server_k = k if k is not None else 7200  # unset: the implementations' 2 h default
        goaways, final, pinged, silence = simulate(lang, t, m, strikes, server_k, send)
        floor_errors = [f for f in found if f.rule == "EO-PROFILE-PING-FLOOR" and name in f.message.split(": ")[0]]
        assert bool(floor_errors) == (goaways > 0), (lang, goaways, floor_errors)
        sched = profile.ping_schedule(lang)
        assert (sched.goaways, sched.keepalive_s, sched.pings) == (goaways, final, pinged), lang
        assert profile.flow_silence_s(lang) == silence, lang
        margin = [f for f in found if f.rule == "EO-PROFILE-IDLE-MARGIN" and name in f.message.split(": ")[0]]
        assert [f.severity for f in margin] == ([] if hops.idle_severity(silence, idle) is None
                                                else [hops.idle_severity(silence, idle)]), lang


def test_issue_example_server_pings_keep_the_client_quiet() -> None:
    """Client keepalive 60 s, floor 300 s, server keepalive 30 s: no PING-FLOOR for go, java, python."""
    profile = ConnectionProfile(client_keepalive_time_s=60, server_min_ping_interval_s=300, server_keepalive_time_s=30)
    assert "EO-PROFILE-PING-FLOOR" not in {f.rule for f in profile.check()}
    for lang in ("go", "java", "python"):
        assert simulate(lang, 60, 300, 2, 30, None)[0] == 0
    quiet = profile.replace(server_keepalive_time_s=None)
    errors = [f for f in quiet.check() if f.rule == "EO-PROFILE-PING-FLOOR"]
    assert errors and all(f.severity is Severity.ERROR for f in errors)
    assert {"grpc-go", "grpc-java", "C-core (grpcio)"} <= {n for f in errors for n in f.message.split(": ")[0].split("] ")[1].split(", ")}
    # a stream whose server sends every 45 s keeps the client from pinging too
    assert "EO-PROFILE-PING-FLOOR" not in {f.rule for f in quiet.replace(server_send_interval_s=45).check()}


@settings(max_examples=60, deadline=None, database=None)
@given(bad=st.one_of(st.integers(-1000, 0), st.just(math.nan), st.just(math.inf), st.booleans(), st.text(max_size=5)))
def test_bad_send_interval_is_refused_naming_the_field(bad: object) -> None:
    with pytest.raises(ProfileError, match="server_send_interval_s"):
        ConnectionProfile.from_mapping({"server_send_interval_s": bad})
