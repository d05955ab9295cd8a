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
"""

from __future__ import annotations

from dataclasses import dataclass

TWO_HOURS_S = 7200.0
"""The ping floor on a connection with no open stream when permit-without-calls is false."""

SOURCES = {
    "grpc-go": "github.com/grpc/grpc-go @ 4793ad0474669eafbd5346c8a3d098fdfa542498",
    "grpc-java": "github.com/grpc/grpc-java @ 5fda0c7c35a938b2b0be05cdbe168dcb0700d64a",
    "c-core": "github.com/grpc/grpc src/core/ext/transport/chttp2/transport/ping_abuse_policy.cc @ 3e80231b57e8",
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
    source={
        "strikes": "internal/transport/http2_server.go: const maxPingStrikes = 2; handlePing GOAWAYs when pingStrikes > maxPingStrikes",
        "idle_floor": "internal/transport/http2_server.go: handlePing, no active streams and !kep.PermitWithoutStream -> defaultPingTimeout (2 * time.Hour)",
        "min_ping": "internal/transport/defaults.go: defaultKeepalivePolicyMinTime = 5 * time.Minute (keepalive.EnforcementPolicy.MinTime)",
        "reset": "internal/transport/http2_server.go: setResetPingStrikes on every headers/data write",
        "server_ping": "internal/transport/http2_server.go: keepalive(), kpTimer fires after ServerParameters.Time without reads, streams or not; defaults.go defaultServerKeepaliveTime = 2 * time.Hour",
        "client_min": "internal/internal.go: KeepaliveMinPingTime = 10 * time.Second (dialoptions.go raises Time to it)",
        "backoff": "clientconn.go: addrConn.adjustParams doubles keepaliveParams.Time on GoAwayTooManyPings",
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
    source={
        "strikes": "core/src/main/java/io/grpc/internal/KeepAliveEnforcer.java: MAX_PING_STRIKES = 2; pingAcceptable() returns pingStrikes <= MAX_PING_STRIKES",
        "idle_floor": "core/src/main/java/io/grpc/internal/KeepAliveEnforcer.java: pingAcceptable(), !hasOutstandingCalls && !permitWithoutCalls -> IMPLICIT_PERMIT_TIME_NANOS (2 hours)",
        "min_ping": "netty/src/main/java/io/grpc/netty/NettyServerBuilder.java: permitKeepAliveTime (DEFAULT_SERVER_PERMIT_KEEPALIVE_TIME_NANOS, 5 minutes), permitKeepAliveWithoutCalls",
        "reset": "KeepAliveEnforcer.resetCounters(), called when the server writes headers or data",
        "server_ping": "netty/src/main/java/io/grpc/netty/NettyServerHandler.java: new KeepAliveManager(..., true /* keepAliveDuringTransportIdle */); GrpcUtil.DEFAULT_SERVER_KEEPALIVE_TIME_NANOS = 2 hours",
        "client_min": "core/src/main/java/io/grpc/internal/KeepAliveManager.java: MIN_KEEPALIVE_TIME_NANOS = 10 s",
        "backoff": "netty/src/main/java/io/grpc/netty/NettyChannelBuilder.java: tooManyPingsRunnable -> AtomicBackoff.State.backoff() (doubles)",
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
    client_min_keepalive_s=1,
    default_server_keepalive_s=TWO_HOURS_S,
    source={
        "strikes": "src/core/ext/transport/chttp2/transport/ping_abuse_policy.cc: Chttp2PingAbusePolicy::ReceivedOnePing, ping_strikes_ > max_ping_strikes_ && max_ping_strikes_ != 0 (grpc.http2.max_ping_strikes, default 2, 0 = unlimited)",
        "idle_floor": "src/core/ext/transport/chttp2/transport/ping_abuse_policy.cc: RecvPingIntervalWithoutData(transport_idle) -> Duration::Hours(2); transport_idle = !keepalive_permit_without_calls && no streams",
        "min_ping": "ping_abuse_policy.cc: g_default_min_recv_ping_interval_without_data = Duration::Minutes(5) (grpc.http2.min_ping_interval_without_data_ms)",
        "reset": "ping_abuse_policy.cc: ResetPingStrikes(), called when the transport writes headers or data",
        "server_ping": "chttp2_transport.cc: server keepalive (grpc.keepalive_time_ms, server default 2 h) pings with no stream only when grpc.keepalive_permit_without_calls is 1",
        "client_min": "C-core takes grpc.keepalive_time_ms as given (>= 1 ms)",
        "backoff": "chttp2_transport.cc: GOAWAY ENHANCE_YOUR_CALM too_many_pings -> keepalive time x KEEPALIVE_TIME_BACKOFF_MULTIPLIER (2), kept by the subchannel",
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
