"""The connection profile's own checks: each a pure function profile -> findings.

Every message names both settings and both numbers. ``resource`` is the field name(s), comma
separated. Rule ids start with ``EO-PROFILE-``; the template rules ``EO-KA*`` reuse these when a
declared profile fails its own checks.
"""

from __future__ import annotations

from collections.abc import Callable

from edge_origin.findings import Finding, Severity
from edge_origin.profile.core import (
    AGE_JITTER,
    AGE_P99_FACTOR,
    CLOUDFRONT_EXTENDED_MAX,
    CLOUDFRONT_TIMEOUT_RANGE,
    GRPC_MIN_CLIENT_KEEPALIVE_S,
    IDLE_MARGIN,
    NLB_IDLE_RANGE,
    ConnectionProfile,
    _fmt,
)

Check = Callable[[ConnectionProfile], list[Finding]]


def _finding(rule: str, severity: Severity, fields: tuple[str, ...], message: str, fix: str) -> Finding:
    return Finding(rule=rule, severity=severity, message=message, fix=fix, resource=",".join(fields))


def _error(rule: str, fields: tuple[str, ...], message: str, fix: str) -> Finding:
    return _finding(rule, Severity.ERROR, fields, message, fix)


def check_ping_floor(p: ConnectionProfile) -> list[Finding]:
    """EO-PROFILE-PING-FLOOR: the client pings more often than the server allows."""
    if p.client_keepalive_time_s >= p.server_min_ping_interval_s or p.server_max_ping_strikes == 0:
        return []
    return [
        _error(
            "EO-PROFILE-PING-FLOOR",
            ("client_keepalive_time_s", "server_min_ping_interval_s"),
            f"client_keepalive_time_s {_fmt(p.client_keepalive_time_s)} s is below server_min_ping_interval_s "
            f"{_fmt(p.server_min_ping_interval_s)} s: every early ping is a strike, after "
            f"server_max_ping_strikes {p.server_max_ping_strikes} the server sends GOAWAY too_many_pings and "
            f"the client doubles its keepalive time (gRFC A8), up to "
            f"{_fmt(p.throttled_keepalive_time_s())} s",
            "raise client_keepalive_time_s to at least server_min_ping_interval_s, or lower the server's floor",
        )
    ]


def check_idle_pings_rejected(p: ConnectionProfile) -> list[Finding]:
    """EO-PROFILE-IDLE-PING-REJECTED: the client pings idle connections and the server forbids it."""
    if not p.client_permit_without_calls or p.server_permit_without_calls:
        return []
    return [
        _error(
            "EO-PROFILE-IDLE-PING-REJECTED",
            ("client_permit_without_calls", "server_permit_without_calls"),
            "client_permit_without_calls true but server_permit_without_calls false: the server holds pings "
            "on a connection with no RPC to a 2 h floor (C-core; Go and Java: any such ping), so idle pings "
            "are strikes and end in GOAWAY too_many_pings",
            "set server_permit_without_calls true (Go EnforcementPolicy.PermitWithoutStream, Java "
            "permitKeepAliveWithoutCalls)",
        )
    ]


def check_idle_margin(p: ConnectionProfile) -> list[Finding]:
    """EO-PROFILE-IDLE-MARGIN: the keepalive time (after throttling) does not beat the NLB idle timeout."""
    worst = p.throttled_keepalive_time_s()
    limit = p.nlb_idle_timeout_s * (1 - IDLE_MARGIN)
    if worst <= limit:
        return []
    how = (
        f"client_keepalive_time_s {_fmt(p.client_keepalive_time_s)} s"
        if worst == p.client_keepalive_time_s
        else f"client_keepalive_time_s {_fmt(p.client_keepalive_time_s)} s, doubled by the server's ping floor "
        f"(server_min_ping_interval_s {_fmt(p.server_min_ping_interval_s)} s) to {_fmt(worst)} s,"
    )
    return [
        _error(
            "EO-PROFILE-IDLE-MARGIN",
            ("client_keepalive_time_s", "nlb_idle_timeout_s"),
            f"{how} is not below nlb_idle_timeout_s {_fmt(p.nlb_idle_timeout_s)} s with a {int(IDLE_MARGIN * 100)} % "
            f"margin (at most {_fmt(limit)} s): the NLB drops the silent flow without FIN or RST and the next "
            "RPC hangs until the ping timeout or its deadline",
            "lower client_keepalive_time_s (and the server floor with it) or raise nlb_idle_timeout_s",
        )
    ]


def check_idle_connections(p: ConnectionProfile) -> list[Finding]:
    """EO-PROFILE-IDLE-NO-PINGS: idle connections get no pings and outlive the NLB idle timeout."""
    if p.idle_pings_flow():
        return []
    idle = p.server_max_connection_idle_s
    if idle is not None and idle < p.nlb_idle_timeout_s * (1 - IDLE_MARGIN):
        return []
    side = "client_permit_without_calls" if not p.client_permit_without_calls else "server_permit_without_calls"
    return [
        _error(
            "EO-PROFILE-IDLE-NO-PINGS",
            (side, "server_max_connection_idle_s", "nlb_idle_timeout_s"),
            f"{side} is false, so a connection with no RPC gets no pings, and server_max_connection_idle_s "
            f"{_fmt(idle) + ' s' if idle is not None else 'unset'} does not close it before nlb_idle_timeout_s {_fmt(p.nlb_idle_timeout_s)} s: the NLB "
            "drops it silently and the first RPC after the lull hangs",
            "set client_permit_without_calls and server_permit_without_calls true (C-core clients also need "
            "grpc.http2.max_pings_without_data=0, rendered), or a server_max_connection_idle_s below the NLB "
            "idle timeout",
        )
    ]


def check_keepalive_timeout(p: ConnectionProfile) -> list[Finding]:
    """EO-PROFILE-PING-TIMEOUT: dead-flow detection takes longer than the keepalive interval allows."""
    if p.client_keepalive_timeout_s <= p.client_keepalive_time_s:
        return []
    return [
        _finding(
            "EO-PROFILE-PING-TIMEOUT",
            Severity.WARNING,
            ("client_keepalive_timeout_s", "client_keepalive_time_s"),
            f"client_keepalive_timeout_s {_fmt(p.client_keepalive_timeout_s)} s is longer than "
            f"client_keepalive_time_s {_fmt(p.client_keepalive_time_s)} s: a dead flow is noticed only "
            "after the ping timeout, so RPCs hang longer on a dropped connection than it was idle",
            "keep client_keepalive_timeout_s at or below client_keepalive_time_s",
        )
    ]


def check_cloudfront_keepalive(p: ConnectionProfile) -> list[Finding]:
    """EO-PROFILE-CF-KEEPALIVE: CloudFront keeps origin connections longer than the NLB keeps flows."""
    if p.cloudfront_keepalive_timeout_s < p.nlb_idle_timeout_s:
        return []
    return [
        _error(
            "EO-PROFILE-CF-KEEPALIVE",
            ("cloudfront_keepalive_timeout_s", "nlb_idle_timeout_s"),
            f"cloudfront_keepalive_timeout_s {_fmt(p.cloudfront_keepalive_timeout_s)} s is not shorter than "
            f"nlb_idle_timeout_s {_fmt(p.nlb_idle_timeout_s)} s: CloudFront reuses an idle origin connection "
            "the NLB has already dropped",
            "keep cloudfront_keepalive_timeout_s below nlb_idle_timeout_s",
        )
    ]


def check_cloudfront_read(p: ConnectionProfile) -> list[Finding]:
    """EO-PROFILE-CF-READ: CloudFront gives up on a stream during its longest expected gap."""
    if p.cloudfront_read_timeout_s > p.longest_stream_gap_s:
        return []
    return [
        _error(
            "EO-PROFILE-CF-READ",
            ("cloudfront_read_timeout_s", "longest_stream_gap_s"),
            f"cloudfront_read_timeout_s {_fmt(p.cloudfront_read_timeout_s)} s is not longer than "
            f"longest_stream_gap_s {_fmt(p.longest_stream_gap_s)} s: CloudFront times out a stream that is "
            "merely quiet",
            "raise cloudfront_read_timeout_s (above 60 s needs the quota increase) or send messages more often",
        )
    ]


def check_connection_age(p: ConnectionProfile) -> list[Finding]:
    """EO-PROFILE-AGE-UNSET / -AGE-P99 / -AGE-GRACE: connection age set, well above p99, with grace."""
    age, grace = p.server_max_connection_age_s, p.server_max_connection_age_grace_s
    if age is None:
        return [
            _error(
                "EO-PROFILE-AGE-UNSET",
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
            _error(
                "EO-PROFILE-AGE-P99",
                ("server_max_connection_age_s", "p99_rpc_duration_s"),
                f"server_max_connection_age_s {_fmt(age)} s (as short as {_fmt(round(shortest, 3))} s after the "
                f"+-10 % jitter) is not {AGE_P99_FACTOR}x p99_rpc_duration_s {_fmt(p.p99_rpc_duration_s)} s: "
                "connections recycle so often that handshakes and GOAWAY drains land in the p99",
                f"raise server_max_connection_age_s to at least {_fmt(AGE_P99_FACTOR * p.p99_rpc_duration_s / (1 - AGE_JITTER))} s",
            )
        )
    if grace is not None and grace < p.p99_rpc_duration_s:
        found.append(
            _error(
                "EO-PROFILE-AGE-GRACE",
                ("server_max_connection_age_grace_s", "p99_rpc_duration_s"),
                f"server_max_connection_age_grace_s {_fmt(grace)} s is shorter than p99_rpc_duration_s "
                f"{_fmt(p.p99_rpc_duration_s)} s: RPCs in flight at the age GOAWAY are cancelled",
                "raise server_max_connection_age_grace_s to at least p99_rpc_duration_s",
            )
        )
    return found


def check_pick_first(p: ConnectionProfile) -> list[Finding]:
    """EO-PROFILE-PICK-FIRST: pick_first clients without re-resolution stay on one backend."""
    if p.client_lb_policy != "pick_first":
        return []
    age = p.server_max_connection_age_s
    return [
        _finding(
            "EO-PROFILE-PICK-FIRST",
            Severity.WARNING,
            ("client_lb_policy", "server_max_connection_age_s"),
            f"client_lb_policy pick_first: every RPC of a channel goes to one address and one NLB flow; only "
            f"server_max_connection_age_s ({_fmt(age)} s) makes it reconnect and re-resolve",
            "use round_robin for in-VPC clients (the rendered service config), keep server_max_connection_age_s set",
        )
    ]


def check_ranges(p: ConnectionProfile) -> list[Finding]:
    """EO-PROFILE-RANGE: every value inside its AWS and gRPC range."""
    found: list[Finding] = []
    lo, hi = NLB_IDLE_RANGE
    if not lo <= p.nlb_idle_timeout_s <= hi or not float(p.nlb_idle_timeout_s).is_integer():
        found.append(
            _error(
                "EO-PROFILE-RANGE",
                ("nlb_idle_timeout_s",),
                f"nlb_idle_timeout_s {_fmt(p.nlb_idle_timeout_s)} s is outside the NLB TCP idle timeout range "
                f"{lo}..{hi} whole seconds",
                f"use a whole number of seconds in {lo}..{hi}",
            )
        )
    cf_lo, cf_hi = CLOUDFRONT_TIMEOUT_RANGE
    top = CLOUDFRONT_EXTENDED_MAX if p.cloudfront_extended_timeouts else cf_hi
    for name in ("cloudfront_keepalive_timeout_s", "cloudfront_read_timeout_s"):
        value = getattr(p, name)
        if not cf_lo <= value <= top or not float(value).is_integer():
            extra = (
                ""
                if p.cloudfront_extended_timeouts or value > CLOUDFRONT_EXTENDED_MAX
                else f" (up to {CLOUDFRONT_EXTENDED_MAX} with the quota increase: cloudfront_extended_timeouts true)"
            )
            found.append(
                _error(
                    "EO-PROFILE-RANGE",
                    (name, "cloudfront_extended_timeouts"),
                    f"{name} {_fmt(value)} s is outside the CloudFront origin timeout range {cf_lo}..{top} whole "
                    f"seconds{extra}",
                    f"use a whole number of seconds in {cf_lo}..{top}",
                )
            )
    if p.client_keepalive_time_s < GRPC_MIN_CLIENT_KEEPALIVE_S:
        found.append(
            _finding(
                "EO-PROFILE-RANGE",
                Severity.WARNING,
                ("client_keepalive_time_s",),
                f"client_keepalive_time_s {_fmt(p.client_keepalive_time_s)} s is below "
                f"{GRPC_MIN_CLIENT_KEEPALIVE_S} s: grpc-go and grpc-java raise it to {GRPC_MIN_CLIENT_KEEPALIVE_S} s, "
                "so those clients ping less often than the profile says",
                f"use at least {GRPC_MIN_CLIENT_KEEPALIVE_S} s",
            )
        )
    return found


CHECKS: tuple[Check, ...] = (
    check_ping_floor,
    check_idle_pings_rejected,
    check_idle_margin,
    check_idle_connections,
    check_keepalive_timeout,
    check_cloudfront_keepalive,
    check_cloudfront_read,
    check_connection_age,
    check_pick_first,
)
"""Consistency checks; :func:`check_ranges` runs unless ``ranges=False``."""


CLOUDFRONT_CHECKS: tuple[Check, ...] = (check_cloudfront_keepalive, check_cloudfront_read)


def run_checks(p: ConnectionProfile, *, ranges: bool = True, cloudfront: bool = True) -> list[Finding]:
    """All checks; ``cloudfront=False`` drops the CloudFront ones (and CloudFront range findings)."""
    found = [f for check in CHECKS if cloudfront or check not in CLOUDFRONT_CHECKS for f in check(p)]
    if ranges:
        found.extend(f for f in check_ranges(p) if cloudfront or not f.resource.startswith("cloudfront_"))
    return found
