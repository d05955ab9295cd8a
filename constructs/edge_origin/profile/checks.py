"""The connection profile's own checks: each a pure function (profile, judgement) -> findings.

Every check judges one hop of :mod:`edge_origin.profile.hops` and its message starts with that
hop; checks about what a gRPC server does judge each implementation in ``langs`` by its ping
policy (:mod:`edge_origin.profile.policy`), and implementations that agree share one finding.
``resource`` is the field name(s), comma separated. Rule ids start with ``EO-PROFILE-``; the
template rules ``EO-KA*`` reuse these when a declared profile fails its own checks.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from edge_origin.core.facts import value as fact_value
from edge_origin.core.fast_dataclass import dataclass, replace
from edge_origin.core.findings import Finding, Severity
from edge_origin.profile import hops, policy
from edge_origin.profile.basics import AGE_JITTER, AGE_P99_FACTOR, ProfileError, _fmt
from edge_origin.profile.hops import PathHop

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:  # a type only: core imports this module to run the checks
    from edge_origin.profile.core import ConnectionProfile


@dataclass(frozen=True)
class Judgement:
    """What the checks judge: which implementations, and which hops exist on the path."""

    langs: tuple[str, ...] = policy.IMPLEMENTATIONS
    cloudfront: bool = True
    in_vpc_clients: bool = True
    ranges: bool = True
    """False: time-scaled rehearsal numbers; the implementations' lowest client keepalive is not applied."""

    @property
    def policies(self) -> list[policy.PingPolicy]:
        return [policy.POLICIES[lang] for lang in self.langs]


Check = Callable[["ConnectionProfile", Judgement], list[Finding]]


def _finding(rule: str, severity: Severity, hop: PathHop, fields: tuple[str, ...], message: str, fix: str) -> Finding:
    return Finding(rule=rule, severity=severity, message=hop.says(message), fix=fix, resource=",".join(fields))


def _names(impls: list[policy.PingPolicy]) -> str:
    return ", ".join(i.name for i in impls)


def _grouped(j: Judgement, verdict: Callable[[policy.PingPolicy], tuple | None]) -> list[tuple[tuple, list[policy.PingPolicy]]]:
    """Implementations grouped by identical verdict (None: no finding for that implementation)."""
    groups: dict[tuple, list[policy.PingPolicy]] = {}
    for impl in j.policies:
        key = verdict(impl)
        if key is not None:
            groups.setdefault(key, []).append(impl)
    return list(groups.items())


# --- in-VPC client -> NLB -> pod server ------------------------------------------------------------
def _reads_words(p: ConnectionProfile, impl: policy.PingPolicy, *, idle: bool = False) -> str:
    """What the client reads on that connection shape, for messages."""
    server = p.server_keepalive_s(impl.langs[0], idle=idle)
    said = "unset: 2 h" if p.server_keepalive_time_s is None else f"{_fmt(p.server_keepalive_time_s)} s"
    parts = [f"server_keepalive_time_s {said}" + ("" if server is not None else " (no pings with no stream open)")]
    if not idle:
        send = p.server_send_interval_s
        parts.append("server_send_interval_s " + ("unset: a quiet stream" if send is None else f"{_fmt(send)} s"))
    return ", ".join(parts)


def check_ping_floor(p: ConnectionProfile, j: Judgement) -> list[Finding]:
    """EO-PROFILE-PING-FLOOR(-EDGE): the client pings sooner than the server's floor (per implementation).

    The client pings only after its keepalive time with no frame read (:func:`policy.ping_schedule`):
    a server that pings or sends sooner keeps it from pinging at all, so there is nothing to strike.
    """
    if not j.in_vpc_clients:
        return []
    t, m = p.client_keepalive_time_s, p.server_min_ping_interval_s
    found: list[Finding] = []

    def verdict(impl: policy.PingPolicy) -> tuple | None:
        strikes = impl.strikes(p.server_max_ping_strikes)
        sched = p.ping_schedule(impl.langs[0], clamp=j.ranges)
        if strikes is None or sched.goaways == 0:
            return None
        return (strikes, sched.keepalive_s, _reads_words(p, impl))

    for (strikes, throttled, reads), impls in _grouped(j, verdict):
        clock = (
            " (grpc-java measures an early ping from the last VALID ping, so with a keepalive of at least half the "
            "floor only every other early ping strikes: the same GOAWAY, later)"
            if any(i.strikes_since_valid for i in impls) else ""
        )
        found.append(
            _finding(
                "EO-PROFILE-PING-FLOOR", Severity.ERROR, PathHop.IN_VPC_CLIENT,
                ("client_keepalive_time_s", "server_min_ping_interval_s", "server_max_ping_strikes"),
                f"{_names(impls)}: client_keepalive_time_s {_fmt(t)} s is below server_min_ping_interval_s "
                f"{_fmt(m)} s and the client reads nothing sooner ({reads}; every frame read restarts its keepalive "
                f"timer: {impls[0].source['client_reads']}), so it pings: each early ping between two server data "
                f"writes is a strike{clock}: the early ping that exceeds the {strikes} strikes this server bears "
                f"({impls[0].source['strikes']}) makes it send GOAWAY too_many_pings and the client doubles its keepalive "
                f"time (gRFC A8) to {_fmt(throttled)} s",
                "raise client_keepalive_time_s to at least server_min_ping_interval_s, lower the server's floor, or "
                "set server_keepalive_time_s below client_keepalive_time_s (the server's pings keep the client from pinging)",
            )
        )
    guard_m = hops.ping_floor_guard_s(m)
    if m <= t < m + guard_m and any(p.ping_schedule(i.langs[0], clamp=j.ranges).pings for i in j.policies):
        found.append(
            _finding(
                "EO-PROFILE-PING-FLOOR-EDGE", Severity.WARNING, PathHop.IN_VPC_CLIENT,
                ("client_keepalive_time_s", "server_min_ping_interval_s"),
                f"client_keepalive_time_s {_fmt(t)} s is less than {_fmt(guard_m)} s above "
                f"server_min_ping_interval_s {_fmt(m)} s: the server times arrivals, so RTT jitter makes some pings "
                "early strikes, and strikes are reset only when the server writes data",
                f"keep client_keepalive_time_s at least {_fmt(guard_m)} s above the server floor",
            )
        )

    def near(impl: policy.PingPolicy) -> tuple | None:
        sched = p.ping_schedule(impl.langs[0], clamp=j.ranges)
        strikes = impl.strikes(p.server_max_ping_strikes)
        if sched.pings or sched.goaways or strikes is None or t >= m:
            return None
        reads = min(x for x in (p.server_send_interval_s, p.server_keepalive_s(impl.langs[0])) if x is not None)
        guard = hops.ping_floor_guard_s(reads)
        return None if sched.keepalive_s >= reads + guard else (reads, guard)

    for (reads, guard), impls in _grouped(j, near):
        found.append(
            _finding(
                "EO-PROFILE-PING-FLOOR-EDGE", Severity.WARNING, PathHop.IN_VPC_CLIENT,
                ("client_keepalive_time_s", "server_keepalive_time_s", "server_send_interval_s"),
                f"{_names(impls)}: client_keepalive_time_s {_fmt(t)} s is less than {_fmt(guard)} s above the "
                f"{_fmt(reads)} s at which the client reads a server frame: RTT and timer slack decide whether it "
                f"pings, and its pings are below server_min_ping_interval_s {_fmt(m)} s",
                f"keep the server's keepalive or send interval at least {_fmt(guard)} s below client_keepalive_time_s",
            )
        )
    return found


def check_idle_pings_rejected(p: ConnectionProfile, j: Judgement) -> list[Finding]:
    """EO-PROFILE-IDLE-PING-REJECTED: the client pings idle connections; the server's floor there is 2 h."""
    if not j.in_vpc_clients or not p.client_permit_without_calls or p.server_permit_without_calls:
        return []

    def verdict(impl: policy.PingPolicy) -> tuple | None:
        strikes = impl.strikes(p.server_max_ping_strikes)
        sched = p.ping_schedule(impl.langs[0], idle=True, clamp=j.ranges)
        if strikes is None or sched.goaways == 0:
            return None
        return (strikes, sched.keepalive_s)

    return [
        _finding(
            "EO-PROFILE-IDLE-PING-REJECTED", Severity.ERROR, PathHop.IN_VPC_CLIENT,
            ("client_permit_without_calls", "server_permit_without_calls", "client_keepalive_time_s"),
            f"{_names(impls)}: client_permit_without_calls true but server_permit_without_calls false: with no "
            f"stream open the server's ping floor is 2 h, not server_min_ping_interval_s "
            f"({'; '.join(i.source['idle_floor'] for i in impls)}), and no server ping comes sooner "
            f"({_reads_words(p, impls[0], idle=True)}), so every idle ping "
            f"(client_keepalive_time_s {_fmt(p.client_keepalive_time_s)} s) is a strike, early ping number {strikes + 1} ends "
            f"in GOAWAY too_many_pings and the client's keepalive doubles to {_fmt(throttled)} s",
            "set server_permit_without_calls true (Go EnforcementPolicy.PermitWithoutStream, Java "
            "permitKeepAliveWithoutCalls, C-core grpc.keepalive_permit_without_calls)",
        )
        for (strikes, throttled), impls in _grouped(j, verdict)
    ]


def _limit_words(p: ConnectionProfile) -> tuple[float, str]:
    limit, what = p.reach_limit_s()
    return limit, f"{what} {hops.margin_words(limit)}"


def _expiry(p: ConnectionProfile) -> str:
    limit, what = p.reach_limit_s()
    return hops.TARGET_EXPIRY if what.startswith("target") else hops.NLB_EXPIRY


def check_idle_margin(p: ConnectionProfile, j: Judgement) -> list[Finding]:
    """EO-PROFILE-IDLE-MARGIN: with a stream open, the longest silence on an in-VPC client's flow
    (client pings after throttling, or the server's own pings) does not beat the idle limit."""
    if not j.in_vpc_clients:
        return []
    limit, words = _limit_words(p)
    server = p.server_keepalive_time_s

    def verdict(impl: policy.PingPolicy) -> tuple | None:
        sched = p.ping_schedule(impl.langs[0], clamp=j.ranges)
        silence = p.flow_silence_s(impl.langs[0], clamp=j.ranges)
        severity = hops.idle_severity(silence, limit)
        return None if severity is None else (severity, sched.keepalive_s, sched.pings, silence)

    found = []
    for (severity, throttled, pings, silence), impls in _grouped(j, verdict):
        how = (
            f"client_keepalive_time_s {_fmt(p.client_keepalive_time_s)} s"
            if throttled == p.client_keepalive_time_s
            else f"client_keepalive_time_s {_fmt(p.client_keepalive_time_s)} s, doubled by the server's ping floor "
            f"(server_min_ping_interval_s {_fmt(p.server_min_ping_interval_s)} s) to {_fmt(throttled)} s"
        ) + ("" if pings else ", never reached: the server's frames come sooner")
        how += f"; server_send_interval_s {_fmt(p.server_send_interval_s)}"
        found.append(
            _finding(
                "EO-PROFILE-IDLE-MARGIN", severity, PathHop.IN_VPC_CLIENT,
                ("client_keepalive_time_s", "server_keepalive_time_s", "nlb_idle_timeout_s"),
                f"{_names(impls)}: on a quiet stream the flow is silent up to {_fmt(silence)} s ({how}; "
                f"server_keepalive_time_s {_fmt(server)}) against the {words}: {_expiry(p)}",
                "lower client_keepalive_time_s (and the server floor with it) or server_keepalive_time_s, or raise "
                "nlb_idle_timeout_s (above 350 s also the targets' TcpEstablishedTimeout)",
            )
        )
    return found


def check_idle_connections(p: ConnectionProfile, j: Judgement) -> list[Finding]:
    """EO-PROFILE-IDLE-NO-PINGS: a connection with no RPC open outlives the idle limit unpinged."""
    if not j.in_vpc_clients:
        return []
    limit, words = _limit_words(p)

    def verdict(impl: policy.PingPolicy) -> tuple | None:
        sources: list[float] = []
        if p.client_permit_without_calls:
            sources.append(p.throttled_keepalive_time_s(impl.langs[0], idle=True, clamp=j.ranges))
        server = p.server_keepalive_s(impl.langs[0], idle=True)
        if server is not None:
            sources.append(server)
        if p.server_max_connection_idle_s is not None:
            sources.append(p.server_max_connection_idle_s)  # closed with GOAWAY: a clean end, not a silent drop
        silence = min(sources, default=math.inf)
        severity = hops.idle_severity(silence, limit)
        return None if severity is None else (severity, silence)

    found = []
    for (severity, silence), impls in _grouped(j, verdict):
        found.append(
            _finding(
                "EO-PROFILE-IDLE-NO-PINGS", severity, PathHop.IN_VPC_CLIENT,
                ("client_permit_without_calls", "server_permit_without_calls", "server_keepalive_time_s",
                 "server_max_connection_idle_s", "nlb_idle_timeout_s"),
                f"{_names(impls)}: a connection with no RPC open is silent up to "
                f"{'forever' if math.isinf(silence) else _fmt(silence) + ' s'} (client idle pings "
                f"{'on' if p.client_permit_without_calls else 'off'}; {_server_idle_pings(p, impls[0])}; "
                f"server_max_connection_idle_s {_fmt(p.server_max_connection_idle_s)}) against the "
                f"{words}: {_expiry(p)}",
                "set client_permit_without_calls and server_permit_without_calls true (C-core clients also need "
                "grpc.http2.max_pings_without_data=0, rendered), or a server_keepalive_time_s or "
                "server_max_connection_idle_s below the idle limit",
            )
        )
    return found


def _server_idle_pings(p: ConnectionProfile, impl: policy.PingPolicy) -> str:
    if p.server_keepalive_time_s is None:
        return "server_keepalive_time_s unset: the server pings after 2 h"
    if impl.server_pings_when_idle(p.server_permit_without_calls):
        return f"server pings after {_fmt(p.server_keepalive_time_s)} s, streams or not"
    return f"server pings after {_fmt(p.server_keepalive_time_s)} s only with a stream open (permit without calls false)"


def check_keepalive_timeout(p: ConnectionProfile, j: Judgement) -> list[Finding]:
    """EO-PROFILE-PING-TIMEOUT: dead-flow detection takes longer than the keepalive interval allows."""
    if not j.in_vpc_clients or p.client_keepalive_timeout_s <= p.client_keepalive_time_s:
        return []
    return [
        _finding(
            "EO-PROFILE-PING-TIMEOUT", Severity.WARNING, PathHop.IN_VPC_CLIENT,
            ("client_keepalive_timeout_s", "client_keepalive_time_s"),
            f"client_keepalive_timeout_s {_fmt(p.client_keepalive_timeout_s)} s is longer than "
            f"client_keepalive_time_s {_fmt(p.client_keepalive_time_s)} s: a dead flow is noticed only "
            "after the ping timeout, so RPCs hang longer on a dropped connection than it was idle",
            "keep client_keepalive_timeout_s at or below client_keepalive_time_s",
        )
    ]


def check_pick_first(p: ConnectionProfile, j: Judgement) -> list[Finding]:
    """EO-PROFILE-PICK-FIRST: pick_first clients without re-resolution stay on one backend."""
    if p.client_lb_policy != "pick_first":
        return []
    return [
        _finding(
            "EO-PROFILE-PICK-FIRST", Severity.WARNING, PathHop.IN_VPC_CLIENT,
            ("client_lb_policy", "server_max_connection_age_s"),
            f"client_lb_policy pick_first: every RPC of a channel goes to one address and one NLB flow; only "
            f"server_max_connection_age_s ({_fmt(p.server_max_connection_age_s)} s) makes it reconnect and re-resolve",
            "use round_robin for in-VPC clients (the rendered service config), keep server_max_connection_age_s set",
        )
    ]


# --- pod server ------------------------------------------------------------------------------------
def check_strikes_honoured(p: ConnectionProfile, j: Judgement) -> list[Finding]:
    """EO-PROFILE-STRIKES-FIXED: server_max_ping_strikes is not a setting of some judged implementation."""
    impls = [i for i in j.policies if i.render_problem(p.server_max_ping_strikes)]
    if not impls:
        return []
    return [
        _finding(
            "EO-PROFILE-STRIKES-FIXED", Severity.WARNING, PathHop.POD_SERVER, ("server_max_ping_strikes",),
            f"{_names(impls)}: server_max_ping_strikes {p.server_max_ping_strikes} cannot be set: "
            f"{'; '.join(i.source['strikes'] for i in impls)}; these servers are judged with "
            f"{impls[0].fixed_strikes} strikes and profile render --lang {'|'.join(i.langs[0] for i in impls)} refuses "
            "this profile",
            f"set server_max_ping_strikes {impls[0].fixed_strikes}, or render only for C-core (--lang python)",
        )
    ]


def check_connection_age(p: ConnectionProfile, j: Judgement) -> list[Finding]:
    """EO-PROFILE-AGE-UNSET / -AGE-P99 / -AGE-GRACE: connection age set, well above p99, with grace."""
    age, grace = p.server_max_connection_age_s, p.server_max_connection_age_grace_s
    if age is None:
        return [
            _finding(
                "EO-PROFILE-AGE-UNSET", Severity.ERROR, PathHop.POD_SERVER,
                ("server_max_connection_age_s", "nlb_idle_timeout_s"),
                "server_max_connection_age_s is unset behind an L4 NLB (nlb_idle_timeout_s "
                f"{_fmt(p.nlb_idle_timeout_s)} s): a channel's connection, and every RPC on it, never leaves "
                "the backend it first reached, and scaled-up pods get no traffic",
                "set server_max_connection_age_s (minutes, well above p99_rpc_duration_s)",
            )
        ]
    found: list[Finding] = []
    shortest = age * (1 - AGE_JITTER)
    if shortest < AGE_P99_FACTOR * p.p99_rpc_duration_s:
        found.append(
            _finding(
                "EO-PROFILE-AGE-P99", Severity.ERROR, PathHop.POD_SERVER,
                ("server_max_connection_age_s", "p99_rpc_duration_s"),
                f"server_max_connection_age_s {_fmt(age)} s (as short as {_fmt(round(shortest, 3))} s after the "
                f"+-10 % jitter) is not {AGE_P99_FACTOR}x p99_rpc_duration_s {_fmt(p.p99_rpc_duration_s)} s: "
                "connections recycle so often that handshakes and GOAWAY drains land in the p99",
                f"raise server_max_connection_age_s to at least {_fmt(AGE_P99_FACTOR * p.p99_rpc_duration_s / (1 - AGE_JITTER))} s",
            )
        )
    if grace is not None and grace < p.p99_rpc_duration_s:
        found.append(
            _finding(
                "EO-PROFILE-AGE-GRACE", Severity.ERROR, PathHop.POD_SERVER,
                ("server_max_connection_age_grace_s", "p99_rpc_duration_s"),
                f"server_max_connection_age_grace_s {_fmt(grace)} s is shorter than p99_rpc_duration_s "
                f"{_fmt(p.p99_rpc_duration_s)} s: RPCs in flight at the age GOAWAY are cancelled",
                "raise server_max_connection_age_grace_s to at least p99_rpc_duration_s",
            )
        )
    return found


# --- CloudFront -> NLB -----------------------------------------------------------------------------
def check_cloudfront_keepalive(p: ConnectionProfile, j: Judgement) -> list[Finding]:
    """EO-PROFILE-CF-KEEPALIVE: CloudFront keeps idle origin connections about as long as the flow lives."""
    limit, words = _limit_words(p)
    severity = hops.idle_severity(p.cloudfront_keepalive_timeout_s, limit)
    if severity is None:
        return []
    return [
        _finding(
            "EO-PROFILE-CF-KEEPALIVE", severity, PathHop.CLOUDFRONT_TO_NLB,
            ("cloudfront_keepalive_timeout_s", "nlb_idle_timeout_s"),
            f"cloudfront_keepalive_timeout_s {_fmt(p.cloudfront_keepalive_timeout_s)} s against the {words}: "
            f"CloudFront may reuse an idle origin connection whose flow is gone; {_expiry(p)}",
            "keep cloudfront_keepalive_timeout_s well below nlb_idle_timeout_s",
        )
    ]


def check_cloudfront_read(p: ConnectionProfile, j: Judgement) -> list[Finding]:
    """EO-PROFILE-CF-READ: CloudFront gives up on a stream during its longest expected gap."""
    if p.cloudfront_read_timeout_s > p.longest_stream_gap_s:
        return []
    return [
        _finding(
            "EO-PROFILE-CF-READ", Severity.ERROR, PathHop.CLOUDFRONT_TO_NLB,
            ("cloudfront_read_timeout_s", "longest_stream_gap_s"),
            f"cloudfront_read_timeout_s {_fmt(p.cloudfront_read_timeout_s)} s is not longer than "
            f"longest_stream_gap_s {_fmt(p.longest_stream_gap_s)} s: CloudFront times out a stream that is "
            "merely quiet",
            f"raise cloudfront_read_timeout_s (above {hops.CF_ORIGIN_TIMEOUTS['read'].default_quota_s} s needs an increase of "
            f"the quota '{hops.CF_ORIGIN_TIMEOUTS['read'].quota}') or send messages more often",
        )
    ]


def check_cloudfront_stream_silence(p: ConnectionProfile, j: Judgement) -> list[Finding]:
    """EO-PROFILE-CF-STREAM-IDLE: a quiet stream's CloudFront -> NLB flow outlives the idle limit.

    Device pings end at CloudFront (HTTP/2 PING is hop-by-hop) and CloudFront documents no pings
    of its own to origins, so only stream messages and the pods' server pings cross this leg.
    """
    limit, words = _limit_words(p)
    server = p.server_keepalive_time_s
    send = p.server_send_interval_s
    silence = min(p.longest_stream_gap_s, server if server is not None else math.inf, send if send is not None else math.inf)
    severity = hops.idle_severity(silence, limit)
    if severity is None:
        return []
    return [
        _finding(
            "EO-PROFILE-CF-STREAM-IDLE", severity, PathHop.CLOUDFRONT_TO_NLB,
            ("longest_stream_gap_s", "server_keepalive_time_s", "nlb_idle_timeout_s"),
            f"a stream quiet for longest_stream_gap_s {_fmt(p.longest_stream_gap_s)} s with server_keepalive_time_s "
            f"{_fmt(server) + ' s' if server is not None else 'unset (the servers ping after 2 h)'} leaves the "
            f"CloudFront -> NLB flow silent {_fmt(silence)} s against the {words}; the devices' keepalive does not "
            f"help (their pings end at CloudFront): {_expiry(p)}",
            "set server_keepalive_time_s below the idle limit (rendered as Go ServerParameters.Time, Java "
            "keepAliveTime, C-core grpc.keepalive_time_ms) or raise nlb_idle_timeout_s",
        )
    ]


# --- target ----------------------------------------------------------------------------------------
def check_target_tracking(p: ConnectionProfile, j: Judgement) -> list[Finding]:
    """EO-PROFILE-TARGET-TRACKING: NLB idle timeout above the targets' connection tracking timeout."""
    tracking = p.target_tcp_established_timeout_s
    effective = hops.TARGET_TCP_ESTABLISHED_DEFAULT_S if tracking is None else tracking
    if p.nlb_idle_timeout_s <= effective:
        return []
    if tracking is None:
        return [
            _finding(
                "EO-PROFILE-TARGET-TRACKING", Severity.WARNING, PathHop.TARGET,
                ("nlb_idle_timeout_s", "target_tcp_established_timeout_s"),
                f"nlb_idle_timeout_s {_fmt(p.nlb_idle_timeout_s)} s is above {_fmt(effective)} s and "
                f"target_tcp_established_timeout_s is not stated: {hops.TRACKING_DEPENDS}. On Nitro v6 targets flows "
                f"silent more than {_fmt(effective)} s die at the target's network interface before the NLB closes them; "
                "on the others this idle timeout is fine",
                "state the nodes' value: target_tcp_established_timeout_s "
                f"{hops.TARGET_TCP_ESTABLISHED_OTHER_S} for instance types other than Nitro v6, or the value set in "
                "their EC2 ConnectionTrackingSpecification (at least nlb_idle_timeout_s); or keep nlb_idle_timeout_s "
                f"at or below {_fmt(effective)}",
            )
        ]
    return [
        _finding(
            "EO-PROFILE-TARGET-TRACKING", Severity.WARNING, PathHop.TARGET,
            ("nlb_idle_timeout_s", "target_tcp_established_timeout_s"),
            f"nlb_idle_timeout_s {_fmt(p.nlb_idle_timeout_s)} s is above target_tcp_established_timeout_s "
            f"({_fmt(tracking)} s): AWS: the targets' ENI connection tracking (TcpEstablishedTimeout) must be equal or "
            "greater than the idle timeout, or the target's network interface silently drops the connection state "
            f"before the load balancer closes the connection; flows silent more than {_fmt(effective)} s die there",
            "raise the targets' TcpEstablishedTimeout (EC2 ConnectionTrackingSpecification of the nodes' ENIs) and "
            "set target_tcp_established_timeout_s to it, or keep nlb_idle_timeout_s at or below it",
        )
    ]


def check_target_count(p: ConnectionProfile, j: Judgement) -> list[Finding]:
    """EO-PROFILE-TARGETS: more targets per NLB than ELB's quota takes (a quota: a warning)."""
    stated = p.expected_targets_per_nlb
    per_zone, most = fact_value("elbv2.nlb.targets_per_zone"), fact_value("elbv2.nlb.targets_max")
    if stated is None or stated <= per_zone:
        return []
    over_all = stated > most
    return [
        _finding(
            "EO-PROFILE-TARGETS", Severity.WARNING, PathHop.NLB, ("expected_targets_per_nlb",),
            f"expected_targets_per_nlb {stated}: an NLB takes at most {per_zone} targets with cross-zone load balancing "
            f"on (EO-NLB3's demand, OriginFleet's default), whatever its zones"
            + (f", and {most:,} in all without it" if over_all else f"; without it {per_zone} a zone and {most:,} in all")
            + " (ELB quotas 'Targets per Availability Zone per Network Load Balancer', 'Targets per Network Load "
            "Balancer', adjustable): the controller cannot register the rest",
            "raise the quota (Service Quotas, Elastic Load Balancing), or spread the pods over more NLBs "
            "(OriginFleet(nlb_count=...), a Service and TargetGroupBinding each)",
        )
    ]


# --- ranges ----------------------------------------------------------------------------------------
def check_ranges(p: ConnectionProfile, j: Judgement | None = None) -> list[Finding]:
    """EO-PROFILE-RANGE: every value inside its AWS and gRPC range."""
    j = j or Judgement()
    found: list[Finding] = []
    problem = hops.idle_range_problem(p.nlb_idle_timeout_s)
    if problem:
        lo, hi = hops.NLB_IDLE_RANGE
        found.append(
            _finding(
                "EO-PROFILE-RANGE", Severity.ERROR, PathHop.NLB, ("nlb_idle_timeout_s",),
                f"nlb_idle_timeout_s {problem}", f"use a whole number of seconds in {lo}..{hi}",
            )
        )
    problem = hops.tracking_range_problem(p.target_tcp_established_timeout_s)
    if problem:
        lo, hi = hops.TARGET_TCP_ESTABLISHED_RANGE
        found.append(
            _finding(
                "EO-PROFILE-RANGE", Severity.ERROR, PathHop.TARGET, ("target_tcp_established_timeout_s",),
                f"target_tcp_established_timeout_s {problem}",
                f"use a whole number of seconds in {lo}..{hi} (or null: not stated)",
            )
        )
    for name, kind in (("cloudfront_keepalive_timeout_s", "keepalive"), ("cloudfront_read_timeout_s", "read")):
        problem = hops.origin_timeout_problem(kind, getattr(p, name), quota_raised=p.cloudfront_extended_timeouts)
        if problem is None:
            continue
        severity, why = problem
        limit = hops.CF_ORIGIN_TIMEOUTS[kind]
        found.append(
            _finding(
                "EO-PROFILE-RANGE", severity, PathHop.CLOUDFRONT_TO_NLB, (name, "cloudfront_extended_timeouts"),
                f"{name} {why}",
                f"use whole seconds in {limit.minimum_s}..{limit.default_quota_s}, or raise the quota '{limit.quota}' "
                "and set cloudfront_extended_timeouts true"
                if severity is Severity.WARNING
                else f"use whole seconds from {limit.minimum_s}",
            )
        )
    raised = [i for i in j.policies if p.client_keepalive_time_s < i.client_min_keepalive_s]
    if raised and j.in_vpc_clients:
        floor = raised[0].client_min_keepalive_s
        found.append(
            _finding(
                "EO-PROFILE-RANGE", Severity.WARNING, PathHop.IN_VPC_CLIENT, ("client_keepalive_time_s",),
                f"client_keepalive_time_s {_fmt(p.client_keepalive_time_s)} s is below {_fmt(floor)} s: "
                f"{_names(raised)} raise it to {_fmt(floor)} s ({raised[0].source['client_min']}), so those clients "
                "ping less often than the profile says",
                f"use at least {_fmt(floor)} s",
            )
        )
    return found


IN_VPC_CHECKS: tuple[Check, ...] = (
    check_ping_floor,
    check_idle_pings_rejected,
    check_idle_margin,
    check_idle_connections,
    check_keepalive_timeout,
)
CLOUDFRONT_CHECKS: tuple[Check, ...] = (check_cloudfront_keepalive, check_cloudfront_read, check_cloudfront_stream_silence)
CHECKS: tuple[Check, ...] = (
    *IN_VPC_CHECKS,
    *CLOUDFRONT_CHECKS,
    check_strikes_honoured,
    check_target_tracking,
    check_target_count,
    check_connection_age,
    check_pick_first,
)
"""Consistency checks; :func:`check_ranges` runs unless ``ranges=False``."""

CHECK_HOPS: dict[str, PathHop] = {
    "check_ping_floor": PathHop.IN_VPC_CLIENT,
    "check_idle_pings_rejected": PathHop.IN_VPC_CLIENT,
    "check_idle_margin": PathHop.IN_VPC_CLIENT,
    "check_idle_connections": PathHop.IN_VPC_CLIENT,
    "check_keepalive_timeout": PathHop.IN_VPC_CLIENT,
    "check_pick_first": PathHop.IN_VPC_CLIENT,
    "check_cloudfront_keepalive": PathHop.CLOUDFRONT_TO_NLB,
    "check_cloudfront_read": PathHop.CLOUDFRONT_TO_NLB,
    "check_cloudfront_stream_silence": PathHop.CLOUDFRONT_TO_NLB,
    "check_strikes_honoured": PathHop.POD_SERVER,
    "check_connection_age": PathHop.POD_SERVER,
    "check_target_tracking": PathHop.TARGET,
    "check_target_count": PathHop.NLB,
}
"""The hop each check judges (RULES.md lists them)."""


def judgement(
    *, cloudfront: bool = True, langs: tuple[str, ...] | None = None, in_vpc_clients: bool | None = None
) -> Judgement:
    """A :class:`Judgement`; ``langs`` default all implementations; ``in_vpc_clients`` default True (the
    profile's client settings are rendered for clients that reach the NLB directly)."""
    chosen = tuple(langs) if langs else policy.IMPLEMENTATIONS
    unknown = [lang for lang in chosen if lang not in policy.POLICIES]
    if unknown:
        raise ProfileError(f"--lang: {unknown[0]!r} renders no gRPC server; judge one of {', '.join(policy.IMPLEMENTATIONS)}")
    return Judgement(langs=chosen, cloudfront=cloudfront, in_vpc_clients=True if in_vpc_clients is None else in_vpc_clients)


def run_checks(
    p: ConnectionProfile, *, ranges: bool = True, cloudfront: bool = True, langs: tuple[str, ...] | None = None,
    in_vpc_clients: bool | None = None,
) -> list[Finding]:
    """All checks; ``cloudfront=False`` drops the CloudFront ones (and CloudFront range findings)."""
    j = replace(judgement(cloudfront=cloudfront, langs=langs, in_vpc_clients=in_vpc_clients), ranges=ranges)
    found = [f for check in CHECKS if cloudfront or check not in CLOUDFRONT_CHECKS for f in check(p, j)]
    if ranges:
        found.extend(f for f in check_ranges(p, j) if cloudfront or not f.resource.startswith("cloudfront_"))
    return found
