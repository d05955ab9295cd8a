"""profile/policy.py's ping arithmetic against a plain model of what the servers and clients do (mutmut, issue 38).

Over small whole-second inputs, each answer is asserted: client pings between two server data writes (every frame
read restarts the client's keepalive timer; ties: the client's timer fires first), the strikes those pings earn
(grpc-go and C-core measure each ping from the previous one, grpc-java from the last valid one; the first ping after
a data write never strikes), and the keepalive a client settles to after GOAWAY too_many_pings doubles it (gRFC A8).
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.profile.policy import gap_pings, strikes_in_gap, throttled_interval_s

SECONDS = st.integers(min_value=1, max_value=40)


def _client_pings(keepalive: int, send: int, server: int | None) -> int:
    """The client pings at keepalive, 2 x keepalive, ... up to the next write, unless the server's ping (sent
    ``server`` after its last read, which is a client ping) arrives first and restarts the client's timer."""
    if server is not None and server < keepalive:
        return 0  # the server pings before every client ping: the client never pings
    return send // keepalive


@settings(max_examples=300, deadline=None)
@given(keepalive=SECONDS, send=st.integers(min_value=1, max_value=80), server=st.none() | SECONDS)
def test_client_pings_between_two_server_writes(keepalive: int, send: int, server: int | None) -> None:
    assert gap_pings(keepalive, send, server) == _client_pings(keepalive, send, server)


@given(keepalive=SECONDS, server=st.none() | SECONDS)
def test_a_quiet_stream_has_no_second_write(keepalive: int, server: int | None) -> None:
    assert gap_pings(keepalive, None, server) == math.inf


def _strikes(pings: int, keepalive: int, floor: int, since_valid: bool) -> int:
    """Walk the pings at keepalive, 2 x keepalive, ... after a data write (which reset count and clock)."""
    strikes, last = 0, None
    for i in range(1, pings + 1):
        now = i * keepalive
        if last is not None and now - last < floor:
            strikes += 1
            if not since_valid:
                last = now
        else:
            last = now
    return strikes


@settings(max_examples=300, deadline=None)
@given(pings=st.integers(min_value=0, max_value=30), keepalive=SECONDS, floor=SECONDS, since_valid=st.booleans())
def test_strikes_the_pings_of_one_gap_earn(pings: int, keepalive: int, floor: int, since_valid: bool) -> None:
    assert strikes_in_gap(pings, keepalive, floor, since_valid) == _strikes(pings, keepalive, floor, since_valid)


@given(keepalive=SECONDS, floor=SECONDS, since_valid=st.booleans())
def test_a_quiet_stream_earns_unbounded_strikes_only_below_the_floor(keepalive: int, floor: int, since_valid: bool) -> None:
    assert strikes_in_gap(math.inf, keepalive, floor, since_valid) == (0 if keepalive >= floor else math.inf)


@settings(max_examples=200, deadline=None)
@given(keepalive=st.integers(min_value=1, max_value=400), floor=st.integers(min_value=1, max_value=8000),
       strikes=st.none() | st.integers(min_value=0, max_value=3))
def test_the_keepalive_a_client_settles_to(keepalive: int, floor: int, strikes: int | None) -> None:
    settled = throttled_interval_s(keepalive, floor, strikes)
    if strikes is None:  # C-core with 0 strikes: no GOAWAY, no doubling
        assert settled == keepalive
        return
    doublings = math.log2(settled / keepalive)
    assert doublings == int(doublings) >= 0  # only ever doubled
    assert settled >= floor or settled == keepalive  # doubled until no longer below the floor ...
    assert settled == keepalive or settled / 2 < floor  # ... and not once more


def test_doubling_stops_at_the_limit() -> None:
    assert throttled_interval_s(1, 1e30, 2, limit=3) == 8
    assert throttled_interval_s(1, 1e30, 2) == 2.0**64
