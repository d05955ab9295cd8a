"""What each gRPC implementation's server does with a client's keepalive pings, as data.

One table, :data:`POLICIES`, read by the profile checks (:mod:`edge_origin.profile.checks`) and
by the renderers (:mod:`edge_origin.profile.render`), so a rendered config and a verdict never
disagree. Every number carries the file and function it comes from (read at the commits named in
:data:`SOURCES`).

All three servers work alike (gRFC A8): a ping received sooner than the floor after the previous
one is a strike; the strike count is reset when the server writes headers or data; more strikes
than the limit end in GOAWAY ENHANCE_YOUR_CALM "too_many_pings"; the client then doubles its
keepalive time for the channel. With permit-without-calls false and no stream open, the floor is
2 hours (RFC 1122's TCP keepalive minimum) instead of the configured minimum.

What the client reads decides whether it pings at all (issue 37): in all three implementations the
client's keepalive timer restarts on every frame it reads, PINGs from the server included, so a
server that pings (server keepalive time) or sends messages more often than the client's keepalive
time means the client never pings: no strikes, no GOAWAY. The server's keepalive timer likewise
restarts on every frame the server reads (the client's pings and its ACKs). :func:`ping_schedule`
turns that into the client's effective ping interval, per implementation:

* grpc-go ``internal/transport/http2_client.go`` (github.com/grpc/grpc-go @ 001f93a8e9f76a90b2f4e7e9c0bc8309ebed7569):
  ``reader()`` stores ``t.lastRead`` after every ``ReadFrame``; ``keepalive()`` re-arms its timer
  at ``lastRead + kp.Time`` when ``lastRead > prevNano`` and pings only after ``Time`` with no read.
  The server's ``http2_server.go keepalive()`` does the same with its own ``lastRead`` (SOURCES).
* grpc-java ``netty/src/main/java/io/grpc/netty/NettyClientHandler.java`` (github.com/grpc/grpc-java
  @ 0001eb47cfc8e896b6208f5fc58036531c342ea4): ``FrameListener.onPingRead`` and ``onPingAckRead`` call
  ``keepAliveManager.onDataReceived()`` (a received PING counts as data; data and headers reads do too).
* C-core ``src/core/ext/transport/chttp2/transport/chttp2_transport.cc`` / ``internal.h``
  (``next_adjusted_keepalive_timestamp``: the keepalive timer is pushed back on reads); and
  ``ping_rate_policy.cc`` (github.com/grpc/grpc @ 043e4f06f7d55bbc245ef870df55355569a28dc9):
  ``max_pings_without_data_`` is ``is_client ? GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA (default 2) : 0``,
  so a C-core SERVER keeps pinging a quiet stream (0 = no limit); the client limit is rendered as 0.
"""

from __future__ import annotations

import math

from edge_origin.core.fast_dataclass import dataclass

TWO_HOURS_S = 7200.0
"""The ping floor on a connection with no open stream when permit-without-calls is false."""

SOURCES = {
    "grpc-go": "github.com/grpc/grpc-go @ 4793ad0474669eafbd5346c8a3d098fdfa542498",
    "grpc-go client": "github.com/grpc/grpc-go internal/transport/http2_client.go @ 001f93a8e9f76a90b2f4e7e9c0bc8309ebed7569",
    "grpc-java": "github.com/grpc/grpc-java @ 5fda0c7c35a938b2b0be05cdbe168dcb0700d64a",
    "grpc-java client": "github.com/grpc/grpc-java netty/.../NettyClientHandler.java @ 0001eb47cfc8e896b6208f5fc58036531c342ea4",
    "c-core": "github.com/grpc/grpc src/core/ext/transport/chttp2/transport/ping_abuse_policy.cc @ 3e80231b57e8",
    "c-core ping rate": "github.com/grpc/grpc src/core/ext/transport/chttp2/transport/ping_rate_policy.cc @ 043e4f06f7d55bbc245ef870df55355569a28dc9",
}


@dataclass(frozen=True)
class PingPolicy:
    """One implementation's server-side ping enforcement and keepalive defaults."""

    name: str
    langs: tuple[str, ...]
    """``profile render --lang`` values rendered for this implementation."""
    strikes_setting: str | None
    """The setting that sets max ping strikes, or None when the count is hard-coded."""
    fixed_strikes: int
    """Strikes the server bears (the default when settable): GOAWAY on strike ``fixed_strikes + 1``."""
    zero_strikes_unlimited: bool
    """0 strikes means never GOAWAY (C-core only)."""
    idle_floor_s: float
    """Ping floor with no open stream and permit-without-calls false."""
    default_min_ping_s: float
    server_pings_idle: bool | None
    """The server's own keepalive pings also run with no open stream (None: only when the server's
    permit-without-calls is true)."""
    client_min_keepalive_s: float
    """Client keepalive times below this are raised to it."""
    default_server_keepalive_s: float
    strikes_since_valid: bool
    """True (grpc-java): an early ping is measured against the last VALID ping, so with a keepalive
    of at least half the floor only every other early ping strikes; False (grpc-go, C-core): against
    the previous ping. Same verdict on a quiet stream (GOAWAY), later."""
    source: dict[str, str]
    """Claim -> ``file: function/constant`` in the implementation's source."""

    def strikes(self, configured: int) -> int | None:
        """Strikes this server bears for a profile's ``server_max_ping_strikes`` (None: unlimited)."""
        if self.strikes_setting is None:
            return self.fixed_strikes
        if configured == 0 and self.zero_strikes_unlimited:
            return None
        return configured

    def render_problem(self, configured_strikes: int) -> str:
        """Why a rendering for this implementation cannot honour the profile ('' when it can)."""
        if self.strikes_setting is None and configured_strikes != self.fixed_strikes:
            return (
                f"server_max_ping_strikes {configured_strikes}: {self.name} hard-codes {self.fixed_strikes} strikes "
                f"({self.source['strikes']}); set server_max_ping_strikes {self.fixed_strikes} to render for {self.name}"
            )
        return ""

    def server_pings_when_idle(self, server_permit_without_calls: bool) -> bool:
        return server_permit_without_calls if self.server_pings_idle is None else self.server_pings_idle


GO = PingPolicy(
    name="grpc-go",
    langs=("go",),
    strikes_setting=None,
    fixed_strikes=2,
    zero_strikes_unlimited=False,
    idle_floor_s=TWO_HOURS_S,
    default_min_ping_s=300,
    server_pings_idle=True,
    client_min_keepalive_s=10,
    default_server_keepalive_s=TWO_HOURS_S,
    strikes_since_valid=False,
    source={
        "strikes": "internal/transport/http2_server.go: const maxPingStrikes = 2; handlePing GOAWAYs when pingStrikes > maxPingStrikes",
        "idle_floor": "internal/transport/http2_server.go: handlePing, no active streams and !kep.PermitWithoutStream -> defaultPingTimeout (2 * time.Hour)",
        "min_ping": "internal/transport/defaults.go: defaultKeepalivePolicyMinTime = 5 * time.Minute (keepalive.EnforcementPolicy.MinTime)",
        "reset": "internal/transport/http2_server.go: setResetPingStrikes on every headers/data write",
        "server_ping": "internal/transport/http2_server.go: keepalive(), kpTimer fires after ServerParameters.Time without reads, streams or not; defaults.go defaultServerKeepaliveTime = 2 * time.Hour",
        "client_min": "internal/internal.go: KeepaliveMinPingTime = 10 * time.Second (dialoptions.go raises Time to it)",
        "backoff": "clientconn.go: addrConn.adjustParams doubles keepaliveParams.Time on GoAwayTooManyPings",
        "strike_clock": "http2_server.go handlePing: strike when lastPingAt + MinTime is after now (lastPingAt = the previous ping)",
        "client_reads": "http2_client.go (@ 001f93a8): reader() stores lastRead on every frame; keepalive() pings only after Time with no read",
    },
)

JAVA = PingPolicy(
    name="grpc-java",
    langs=("java",),
    strikes_setting=None,
    fixed_strikes=2,
    zero_strikes_unlimited=False,
    idle_floor_s=TWO_HOURS_S,
    default_min_ping_s=300,
    server_pings_idle=True,
    client_min_keepalive_s=10,
    default_server_keepalive_s=TWO_HOURS_S,
    strikes_since_valid=True,
    source={
        "strikes": "core/src/main/java/io/grpc/internal/KeepAliveEnforcer.java: MAX_PING_STRIKES = 2; pingAcceptable() returns pingStrikes <= MAX_PING_STRIKES",
        "idle_floor": "core/src/main/java/io/grpc/internal/KeepAliveEnforcer.java: pingAcceptable(), !hasOutstandingCalls && !permitWithoutCalls -> IMPLICIT_PERMIT_TIME_NANOS (2 hours)",
        "min_ping": "netty/src/main/java/io/grpc/netty/NettyServerBuilder.java: permitKeepAliveTime (DEFAULT_SERVER_PERMIT_KEEPALIVE_TIME_NANOS, 5 minutes), permitKeepAliveWithoutCalls",
        "reset": "KeepAliveEnforcer.resetCounters(), called when the server writes headers or data",
        "server_ping": "netty/src/main/java/io/grpc/netty/NettyServerHandler.java: new KeepAliveManager(..., true /* keepAliveDuringTransportIdle */); GrpcUtil.DEFAULT_SERVER_KEEPALIVE_TIME_NANOS = 2 hours",
        "client_min": "core/src/main/java/io/grpc/internal/KeepAliveManager.java: MIN_KEEPALIVE_TIME_NANOS = 10 s",
        "backoff": "netty/src/main/java/io/grpc/netty/NettyChannelBuilder.java: tooManyPingsRunnable -> AtomicBackoff.State.backoff() (doubles)",
        "strike_clock": "KeepAliveEnforcer.pingAcceptable(): valid when lastValidPingTime + minTime <= now, and only a valid ping moves lastValidPingTime, so only every other early ping strikes when keepalive >= floor / 2",
        "client_reads": "NettyClientHandler.java (@ 0001eb47): FrameListener.onPingRead / onPingAckRead -> keepAliveManager.onDataReceived()",
    },
)

C_CORE = PingPolicy(
    name="C-core (grpcio)",
    langs=("python",),
    strikes_setting="grpc.http2.max_ping_strikes",
    fixed_strikes=2,
    zero_strikes_unlimited=True,
    idle_floor_s=TWO_HOURS_S,
    default_min_ping_s=300,
    server_pings_idle=None,
    client_min_keepalive_s=0.001,
    default_server_keepalive_s=TWO_HOURS_S,
    strikes_since_valid=False,
    source={
        "strikes": "src/core/ext/transport/chttp2/transport/ping_abuse_policy.cc: Chttp2PingAbusePolicy::ReceivedOnePing, ping_strikes_ > max_ping_strikes_ && max_ping_strikes_ != 0 (grpc.http2.max_ping_strikes, default 2, 0 = unlimited)",
        "idle_floor": "src/core/ext/transport/chttp2/transport/ping_abuse_policy.cc: RecvPingIntervalWithoutData(transport_idle) -> Duration::Hours(2); transport_idle = !keepalive_permit_without_calls && no streams",
        "min_ping": "ping_abuse_policy.cc: g_default_min_recv_ping_interval_without_data = Duration::Minutes(5) (grpc.http2.min_ping_interval_without_data_ms)",
        "reset": "ping_abuse_policy.cc: ResetPingStrikes(), called when the transport writes headers or data",
        "server_ping": "chttp2_transport.cc: server keepalive (grpc.keepalive_time_ms, server default 2 h) pings with no stream only when grpc.keepalive_permit_without_calls is 1",
        "client_min": "chttp2_transport.cc read_channel_args: grpc.keepalive_time_ms clamped to at least 1 ms",
        "backoff": "chttp2_transport.cc: GOAWAY ENHANCE_YOUR_CALM too_many_pings -> keepalive time x KEEPALIVE_TIME_BACKOFF_MULTIPLIER (2), kept by the subchannel",
        "strike_clock": "ping_abuse_policy.cc ReceivedOnePing: strike when last_ping_recv_time_ + interval > now (the previous ping)",
        "client_reads": "chttp2_transport.cc: the keepalive timer is pushed back on every read (internal.h next_adjusted_keepalive_timestamp); ping_rate_policy.cc (@ 043e4f06): a server has no max_pings_without_data",
    },
)

POLICIES: dict[str, PingPolicy] = {"go": GO, "java": JAVA, "python": C_CORE}
"""Render language -> the implementation whose server that rendering configures."""
IMPLEMENTATIONS = ("go", "java", "python")


def policy_for(lang: str) -> PingPolicy | None:
    """The ping policy a ``--lang`` renders (None for languages that render no gRPC server)."""
    return POLICIES.get(lang)


def throttled_interval_s(keepalive_s: float, floor_s: float, strikes: int | None, *, limit: int = 64) -> float:
    """The client's keepalive time after every doubling a server floor causes (gRFC A8).

    Pings sooner than ``floor_s`` are strikes; after ``strikes`` of them the server sends GOAWAY
    too_many_pings and the client doubles its keepalive time, until it is no longer below the floor.
    ``strikes`` None (C-core, 0 strikes): no GOAWAY, no doubling.
    """
    time_s = float(keepalive_s)
    if strikes is None:
        return time_s
    for _ in range(limit):
        if time_s >= floor_s:
            break
        time_s *= 2
    return time_s


@dataclass(frozen=True)
class PingSchedule:
    """What a client's keepalive settles to on one connection shape (:func:`ping_schedule`)."""

    keepalive_s: float
    """The client's keepalive time after every doubling (the clamped time when nothing doubled)."""
    pings: bool
    """Whether the client pings at all at that time (False: it reads a frame more often)."""
    goaways: int
    """GOAWAY too_many_pings received on the way (each doubled the keepalive time)."""
    pings_per_gap: float
    """Client pings between two server data writes at the first keepalive time (inf: quiet stream)."""


def gap_pings(keepalive_s: float, send_s: float | None, server_keepalive_s: float | None) -> float:
    """Client pings between two server data writes, in the steady state (inf when the server sends nothing).

    Zero RTT, and at equal times the client's timer fires first (the conservative order). The
    client pings ``keepalive_s`` after its last read; the server pings ``server_keepalive_s`` after
    its last read (the client's pings and ACKs); a data write at every multiple of ``send_s``
    restarts the client's timer. Only the first gap's server ping can come before the client's
    first ping (after that the client's pings, ``keepalive_s`` <= ``server_keepalive_s`` apart,
    keep the server reading), so each gap is walked once; the state carried over is how long
    before the gap the server last read, and it repeats after a few gaps.
    """
    if send_s is None:
        return math.inf
    k = math.inf if server_keepalive_s is None else server_keepalive_s
    most = 0
    since_server_read = 0.0
    seen: set[float] = set()
    for _ in range(64):
        count, client_next, server_next, last_read = 0, keepalive_s, k - since_server_read, -since_server_read
        while min(client_next, server_next) <= send_s:
            if client_next <= server_next:
                count += 1
                last_read = client_next
                server_next = client_next + k
                client_next += keepalive_s
            else:
                last_read = server_next
                client_next = server_next + keepalive_s
                server_next += k
        most = max(most, count)
        since_server_read = send_s - last_read
        if since_server_read in seen:
            break
        seen.add(since_server_read)
    return float(most)


def strikes_in_gap(pings: float, keepalive_s: float, floor_s: float, since_valid: bool) -> float:
    """Strikes ``pings`` client pings ``keepalive_s`` apart earn between two server data writes.

    The first ping after a data write is never a strike (the write reset the count and the clock).
    grpc-go and C-core measure each later ping from the previous one: every one is early when
    ``keepalive_s < floor_s``. grpc-java measures from the last valid ping: with ``q = ceil(floor /
    keepalive)`` only pings 1, 1 + q, 1 + 2q, ... are valid, the rest strike.
    """
    if keepalive_s >= floor_s or pings <= 1:
        return 0.0
    if math.isinf(pings):
        return math.inf
    if not since_valid:
        return pings - 1
    q = math.ceil(floor_s / keepalive_s)
    return pings - math.ceil(pings / q)


def ping_schedule(
    impl: PingPolicy,
    keepalive_s: float,
    floor_s: float,
    strikes: int | None,
    *,
    send_s: float | None = None,
    server_keepalive_s: float | None = None,
    limit: int = 64,
    clamp: bool = True,
) -> PingSchedule:
    """The client's keepalive on one connection shape, per implementation (zero RTT, ties: client first).

    ``send_s``: the server writes data this often (None: a quiet stream or an idle connection);
    ``server_keepalive_s``: the server pings after this long without reads (None: it does not ping
    here). The client never pings when a frame arrives sooner than its keepalive time
    (``keepalive_s > min(send_s, server_keepalive_s)``); otherwise each gap between data writes
    holds :func:`gap_pings` pings and, when they earn more strikes than the server bears
    (:func:`strikes_in_gap`), the server sends GOAWAY too_many_pings and the client doubles its
    keepalive time for the next connection (gRFC A8).
    """
    time_s = max(float(keepalive_s), impl.client_min_keepalive_s) if clamp else float(keepalive_s)
    reads = min(math.inf if send_s is None else send_s, math.inf if server_keepalive_s is None else server_keepalive_s)
    first_gap: float | None = None
    goaways = 0
    for _ in range(limit + 1):
        if time_s > reads:
            return PingSchedule(time_s, False, goaways, 0.0 if first_gap is None else first_gap)
        n = gap_pings(time_s, send_s, server_keepalive_s)
        first_gap = n if first_gap is None else first_gap
        if strikes is None or strikes_in_gap(n, time_s, floor_s, impl.strikes_since_valid) <= strikes or goaways >= limit:
            return PingSchedule(time_s, True, goaways, first_gap)
        goaways += 1
        time_s *= 2
    return PingSchedule(time_s, True, goaways, first_gap or 0.0)
