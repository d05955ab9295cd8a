"""The connection profile: one source of truth for keepalive, idle timeouts and connection age.

Every number on the path client -> CloudFront -> NLB -> gRPC server that decides whether a
connection stays usable lives here: the client's keepalive, the server's ping enforcement, the
server's connection age, the NLB's TCP idle timeout and CloudFront's origin timeouts. The profile
checks that those numbers agree (:meth:`ConnectionProfile.check`), the constructs apply the AWS
ones and record the profile as template metadata (:data:`PROFILE_METADATA_KEY`), and
:mod:`edge_origin.render` hands the service side the matching gRPC settings.

File format (JSON or YAML): the field names below as keys, durations in seconds, plus an optional
``preset`` naming the base the file overrides. Absent keys take the preset's value, or the
defaults. Unknown keys, wrong types, zero or negative durations and a grace longer than the age
are bad input (:class:`ProfileError`); values outside the AWS or gRPC ranges, and settings that do
not agree with each other, are findings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from edge_origin.core.fast_dataclass import dataclass, field_names, fields, replace
from edge_origin.core.findings import Finding, Severity
from edge_origin.core.limits import short_repr
from edge_origin.profile import hops, policy
from edge_origin.profile.basics import AGE_JITTER, AGE_P99_FACTOR, ProfileError, _fmt, _plain  # noqa: F401  (re-exported)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

PROFILE_METADATA_KEY = "edge-origin:connection-profile"
"""CloudFormation ``Metadata`` key under which the constructs record the profile."""
METADATA_UNSET_KEY = "unset"
"""In recorded Metadata: the optional fields set to None (CDK drops null values)."""

# --- ranges (seconds): the hop model (profile.hops) holds the AWS numbers ----------------------
NLB_IDLE_RANGE = hops.NLB_IDLE_RANGE
"""NLB TCP listener ``tcp.idle_timeout.seconds``: 60..6000 (default 350)."""
CLOUDFRONT_TIMEOUT_RANGE = hops.CF_TIMEOUT_RANGE
"""CloudFront origin keepalive and response (read) timeouts within the default quotas (:data:`hops.CF_ORIGIN_TIMEOUTS`)."""
CLOUDFRONT_EXTENDED_MAX = hops.CF_EXTENDED_MAX_S
"""... and the largest accepted at all (above the default quota: a warning naming the quota)."""
GRPC_MIN_CLIENT_KEEPALIVE_S = 10
"""grpc-go and grpc-java raise a client keepalive time below 10 s to 10 s (C-core allows 1 s)."""
MAX_MS = 2**31 - 1
"""C-core channel args are ``int`` milliseconds: no duration may exceed this (about 24.8 days)."""

MAX_THROTTLE_DOUBLINGS = 32
MAX_PROFILE_INT = 2**31 - 1
"""No integer field (durations in seconds, strikes) may exceed this."""
MAX_PROFILE_BYTES = 1024 * 1024
"""Largest profile file read (a profile is a few hundred bytes)."""

LB_POLICIES = ("round_robin", "pick_first")
PING_TIMEOUT_KEY = "grpc.http2.ping_timeout_ms"


_DURATIONS = (
    "client_keepalive_time_s",
    "client_keepalive_timeout_s",
    "server_min_ping_interval_s",
    "server_max_connection_age_s",
    "server_max_connection_age_grace_s",
    "server_max_connection_idle_s",
    "nlb_idle_timeout_s",
    "cloudfront_keepalive_timeout_s",
    "cloudfront_read_timeout_s",
    "p99_rpc_duration_s",
    "longest_stream_gap_s",
    "server_keepalive_time_s",
    "server_keepalive_timeout_s",
    "target_tcp_established_timeout_s",
    "server_send_interval_s",
)
_OPTIONAL = (
    "server_max_connection_age_s",
    "server_max_connection_age_grace_s",
    "server_max_connection_idle_s",
    "server_keepalive_time_s",
    "target_tcp_established_timeout_s",
    "server_send_interval_s",
)
_BOOLS = ("client_permit_without_calls", "server_permit_without_calls", "cloudfront_extended_timeouts")
_INTS = ("server_max_ping_strikes",)
_OPTIONAL_INTS = ("expected_targets_per_nlb",)
_STRS = ("client_lb_policy",)


@dataclass(frozen=True, kw_only=True)
class ConnectionProfile:
    """Keepalive, idle timeouts and connection age for one gRPC path. Durations are seconds.

    The defaults are the ``default`` preset and pass every check.
    """

    client_keepalive_time_s: float = 60
    """Client pings after this long without reads (``grpc.keepalive_time_ms``; Go ``Time``). Default 60."""
    client_keepalive_timeout_s: float = 20
    """Client closes the connection when a ping is not acknowledged within this time (rendered for
    C-core as both ``grpc.keepalive_timeout_ms`` and ``grpc.http2.ping_timeout_ms``). Default 20."""
    client_permit_without_calls: bool = True
    """Client pings also when no RPC is open (Go ``PermitWithoutStream``). Default True."""
    server_min_ping_interval_s: float = 30
    """Server's ping floor (Go ``EnforcementPolicy.MinTime``; Java ``permitKeepAliveTime``). Default 30."""
    server_permit_without_calls: bool = True
    """Server accepts pings with no RPC open (Go ``PermitWithoutStream``). Default True."""
    server_max_ping_strikes: int = 2
    """Early pings the server bears before GOAWAY ``too_many_pings``: C-core's
    ``grpc.http2.max_ping_strikes`` (0 = unlimited); grpc-go and grpc-java hard-code 2, so their
    renderings refuse any other value and their verdicts use 2 (:mod:`edge_origin.profile.policy`).
    Default 2."""
    server_keepalive_time_s: float | None = None
    """The server pings after this long without reads (Go ``ServerParameters.Time``, Java
    ``keepAliveTime``, C-core server ``grpc.keepalive_time_ms``). On the CloudFront -> NLB leg these
    pings are what keeps a quiet stream's flow alive (CloudFront's own pings are not documented).
    None = the implementations' default, 2 hours (rendered explicitly). Default None."""
    server_keepalive_timeout_s: float = 20
    """The server closes the connection when its ping is not acknowledged within this. Default 20."""
    server_max_connection_age_s: float | None = 600
    """Server sends GOAWAY after this age (+-10 % jitter), so channels behind an L4 NLB rebalance.
    None = never. Default 600."""
    server_max_connection_age_grace_s: float | None = 60
    """In-flight RPCs get this long after the age GOAWAY before the connection is closed.
    None = unlimited. Default 60."""
    server_max_connection_idle_s: float | None = 900
    """Server closes connections with no open RPC for this long. None = never. Default 900."""
    nlb_idle_timeout_s: float = 350
    """NLB TCP listener idle timeout: a flow silent this long leaves the NLB's flow table (no FIN or
    RST then; the next packet on it gets a RST). 60..6000. Default 350 (the AWS default)."""
    target_tcp_established_timeout_s: float | None = None
    """The targets' ENI connection tracking idle timeout (EC2 ``TcpEstablishedTimeout``). None = not stated:
    its default depends on the instance type (350 s on Nitro v6, 432,000 s on all others), so an idle timeout
    above 350 s is a warning naming both. AWS: it must be at least the NLB idle timeout. Default None."""
    cloudfront_keepalive_timeout_s: float = 5
    """CloudFront origin keepalive timeout, whole seconds from 1; above the account's default quota
    (:data:`edge_origin.profile.hops.CF_ORIGIN_TIMEOUTS`) a warning naming the quota. Default 5."""
    cloudfront_read_timeout_s: float = 30
    """CloudFront origin response (read) timeout, whole seconds from 1; above the account's default
    quota (:data:`edge_origin.profile.hops.CF_ORIGIN_TIMEOUTS`) a warning naming the quota. Default 30."""
    cloudfront_extended_timeouts: bool = False
    """The account's CloudFront origin timeout quotas are raised above the defaults: no warning for
    timeouts above the default quotas. Default False."""
    client_lb_policy: str = "round_robin"
    """Client load-balancing policy: ``round_robin`` (in-VPC clients) or ``pick_first``. Default round_robin."""
    p99_rpc_duration_s: float = 5
    """p99 duration of an RPC (for streams: of the part that must not be cut). Default 5."""
    longest_stream_gap_s: float = 20
    """Longest expected silence between two messages on a stream. Default 20."""
    server_send_interval_s: float | None = None
    """The server writes a message on every long stream at least this often (a heartbeat message).
    Every frame a client reads restarts its keepalive timer (grpc-go, grpc-java, C-core:
    :mod:`edge_origin.profile.policy`), so a server that sends more often than the client's
    keepalive time keeps the client from pinging, and each write resets the server's ping strikes.
    None = a quiet stream: the server may send nothing for as long as the stream lives (the
    conservative reading). Default None."""
    expected_targets_per_nlb: int | None = None
    """The most targets (pods, a rollout's surge included) one NLB's target groups hold, a target in N target
    groups counted N times. Above ELB's quota (500 with cross-zone load balancing on, whatever the zones; 500 a
    zone and 3,000 in all without) a warning: the rest cannot be registered. None = not stated (not judged: the
    pods are registered at runtime). Default None."""

    # --- construction ----------------------------------------------------------------------------
    def __post_init__(self) -> None:
        errors = _input_errors(self)
        if errors:
            raise ProfileError("; ".join(errors))

    @classmethod
    def preset(cls, name: str) -> ConnectionProfile:
        """A named preset: see :data:`PRESETS`."""
        try:
            return PRESETS[name]
        except KeyError:
            raise ProfileError(f"preset: unknown preset {_r(name)}; known: {', '.join(sorted(PRESETS))}") from None

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return field_names(cls)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], source: str = "<mapping>") -> ConnectionProfile:
        """Build from file keys (and an optional ``preset``); raises :class:`ProfileError` naming the field."""
        if not isinstance(data, Mapping):
            raise ProfileError(f"{source}: a profile must be a mapping of field: value, got {type(data).__name__}")
        values = dict(data)
        base_name = values.pop("preset", "default")
        if not isinstance(base_name, str):
            raise ProfileError(f"{source}: preset: must be a string, got {_r(base_name)}")
        try:
            base = cls.preset(base_name)
        except ProfileError as exc:
            raise ProfileError(f"{source}: {exc}") from None
        known = set(cls.field_names())
        for key in values:
            if key not in known:
                raise ProfileError(f"{source}: {key if isinstance(key, str) and len(key) <= 60 else _r(key)}: unknown key; known keys: preset, {', '.join(sorted(known))}")
        for key, value in values.items():
            problem = _type_problem(key, value)
            if problem:
                raise ProfileError(f"{source}: {key}: {problem}")
        try:
            return replace(base, **values)
        except ProfileError as exc:
            raise ProfileError(f"{source}: {exc}") from None

    @classmethod
    def from_file(cls, path: str | Path) -> ConnectionProfile:
        """Load a JSON or YAML profile file."""
        return cls.from_mapping(parse_profile_text(read_profile_file(path), str(path)), source=str(path))

    def replace(self, **changes: Any) -> ConnectionProfile:
        """A copy with some fields changed (validated like the constructor)."""
        return replace(self, **changes)

    # --- derived numbers ---------------------------------------------------------------------------
    def server_keepalive_s(self, lang: str = "python", *, idle: bool = False) -> float | None:
        """How long ``lang``'s server waits without reads before it pings (None: it does not ping then).

        Unset = the implementations' 2 h default. With no stream open, grpc-go and grpc-java servers
        ping anyway; a C-core server only with ``server_permit_without_calls``.
        """
        impl = policy.POLICIES[lang]
        time_s = self.server_keepalive_time_s if self.server_keepalive_time_s is not None else impl.default_server_keepalive_s
        if idle and not impl.server_pings_when_idle(self.server_permit_without_calls):
            return None
        return time_s

    def ping_schedule(self, lang: str = "python", *, idle: bool = False, clamp: bool = True) -> policy.PingSchedule:
        """The client's keepalive on ``lang``'s server after every doubling (:func:`policy.ping_schedule`).

        ``idle`` False: a stream is open, the floor is ``server_min_ping_interval_s``, the server sends
        every ``server_send_interval_s`` (None: never). ``idle`` True: no stream is open, nothing is
        sent; with ``server_permit_without_calls`` false the floor is 2 hours in every implementation
        (:data:`edge_origin.profile.policy.TWO_HOURS_S`). The server's own pings count as reads.
        ``clamp`` False skips the implementations' lowest client keepalive (time-scaled rehearsals).
        """
        impl = policy.POLICIES[lang]
        floor = self.server_min_ping_interval_s
        if idle and not self.server_permit_without_calls:
            floor = impl.idle_floor_s
        return policy.ping_schedule(
            impl, self.client_keepalive_time_s, floor, impl.strikes(self.server_max_ping_strikes),
            send_s=None if idle else self.server_send_interval_s,
            server_keepalive_s=self.server_keepalive_s(lang, idle=idle),
            limit=MAX_THROTTLE_DOUBLINGS, clamp=clamp,
        )

    def throttled_keepalive_time_s(self, lang: str = "python", *, idle: bool = False, clamp: bool = True) -> float:
        """The client keepalive time after every doubling ``lang``'s server ping policy causes
        (:meth:`ping_schedule`)."""
        return self.ping_schedule(lang, idle=idle, clamp=clamp).keepalive_s

    def flow_silence_s(self, lang: str = "python", *, clamp: bool = True) -> float:
        """The longest silence on an open stream's in-VPC flow: the client's pings (after throttling),
        or, when it reads sooner, the server's messages and pings, whichever come first."""
        sched = self.ping_schedule(lang, clamp=clamp)
        send = math.inf if self.server_send_interval_s is None else self.server_send_interval_s
        server = self.server_keepalive_s(lang)
        return min(sched.keepalive_s, send, math.inf if server is None else server)

    def idle_pings_flow(self) -> bool:
        """Idle connections (no RPC open) get keepalive pings: both sides permit pings without calls."""
        return self.client_permit_without_calls and self.server_permit_without_calls

    def reach_limit_s(self) -> tuple[float, str]:
        """The silence a flow survives: NLB idle timeout or target connection tracking, the shorter."""
        return hops.reach_limit_s(self.nlb_idle_timeout_s, self.target_tcp_established_timeout_s)

    # --- checks --------------------------------------------------------------------------------------
    def check(
        self,
        *,
        ranges: bool = True,
        cloudfront: bool = True,
        source: str = "",
        langs: tuple[str, ...] | None = None,
        in_vpc_clients: bool | None = None,
    ) -> list[Finding]:
        """Every finding for this profile, errors first.

        ``ranges=False`` skips the AWS and gRPC range checks, for time-scaled loopback rehearsals
        (an NLB idle timeout of 3 s is out of range but fine for a relay); ``cloudfront=False``
        skips everything about CloudFront, for the internal-origin pattern (no distribution);
        ``langs`` the implementations judged (``go``, ``java``, ``python``; default all three);
        ``in_vpc_clients`` whether clients reach the NLB directly (default True: the client settings
        are rendered for them; False judges the CloudFront path alone, where device pings end at
        CloudFront); ``source`` goes into each finding's ``template`` (the profile file).
        """
        from edge_origin.profile.checks import run_checks

        found = run_checks(self, ranges=ranges, cloudfront=cloudfront, langs=langs, in_vpc_clients=in_vpc_clients)
        found = [replace(f, template=source) for f in found] if source else found
        return sorted(found, key=lambda f: (-f.severity.rank, f.rule, f.resource, f.message))

    def errors(
        self, *, ranges: bool = True, cloudfront: bool = True, langs: tuple[str, ...] | None = None,
        in_vpc_clients: bool | None = None,
    ) -> list[Finding]:
        return [
            f
            for f in self.check(ranges=ranges, cloudfront=cloudfront, langs=langs, in_vpc_clients=in_vpc_clients)
            if f.severity is Severity.ERROR
        ]

    def validate(self, *, ranges: bool = True, cloudfront: bool = True) -> ConnectionProfile:
        """Raise :class:`ProfileError` listing every error finding; return self when there is none.

        The constructs call this at synth (``cloudfront=False`` for the internal-origin pattern).
        """
        errors = self.errors(ranges=ranges, cloudfront=cloudfront)
        if errors:
            lines = "\n".join(f"  {f.rule} [{f.resource}]: {f.message}" + (f"\n    fix: {f.fix}" if f.fix else "") for f in errors)
            raise ProfileError(f"connection profile has {len(errors)} error(s):\n{lines}", tuple(errors))
        return self

    # --- output ----------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """File keys -> values, integral floats as ints (JSON-able)."""
        return {name: _plain(getattr(self, name)) for name in field_names(self)}

    def to_metadata(self) -> dict[str, Any]:
        """What the constructs put under :data:`PROFILE_METADATA_KEY` in CloudFormation Metadata.

        CDK drops nulls from Metadata, so no value is None here: a field left unset whose default
        is None is simply absent (it reads back as the same default), and one unset against a
        non-None default (``server_max_connection_idle_s: null``) is listed under ``unset``.
        """
        defaults = {f.name: f.default for f in fields(self)}
        data = self.to_dict()
        unset = sorted(k for k, v in data.items() if v is None and defaults[k] is not None)
        out: dict[str, Any] = {"version": 1, **{k: v for k, v in data.items() if v is not None}}
        if unset:
            out[METADATA_UNSET_KEY] = unset
        return out

    @classmethod
    def from_metadata(cls, data: Mapping[str, Any], source: str = "<metadata>") -> ConnectionProfile:
        """The inverse of :meth:`to_metadata` (ignores ``version``; applies ``unset``)."""
        values = {k: v for k, v in dict(data).items() if k not in ("version", METADATA_UNSET_KEY)}
        unset = dict(data).get(METADATA_UNSET_KEY, [])
        if not isinstance(unset, list) or not all(isinstance(k, str) and k in _OPTIONAL for k in unset):
            raise ProfileError(f"{source}: {METADATA_UNSET_KEY}: must be a list of {', '.join(_OPTIONAL)}")
        values.update(dict.fromkeys(unset))
        return cls.from_mapping(values, source=source)


def _type_problem(key: str, value: Any) -> str:
    """Why ``value`` is the wrong type for ``key`` ('' when it is fine)."""
    if key in _BOOLS:
        return "" if isinstance(value, bool) else f"must be true or false, got {_r(value)}"
    if key in _INTS:
        return "" if isinstance(value, int) and not isinstance(value, bool) else f"must be an integer, got {_r(value)}"
    if key in _OPTIONAL_INTS:
        ok = value is None or (isinstance(value, int) and not isinstance(value, bool))
        return "" if ok else f"must be an integer or null, got {_r(value)}"
    if key in _STRS:
        return "" if isinstance(value, str) else f"must be a string, got {_r(value)}"
    if key in _DURATIONS:
        if value is None and key in _OPTIONAL:
            return ""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            hint = " or null" if key in _OPTIONAL else ""
            return f"must be a number of seconds{hint}, got {_r(value)}"
    return ""


def _input_errors(p: ConnectionProfile) -> list[str]:
    """Bad input: wrong types, non-positive or non-finite durations, grace > age, unknown policy."""
    errors: list[str] = []
    for name in field_names(p):
        value = getattr(p, name)
        problem = _type_problem(name, value)
        if problem:
            errors.append(f"{name}: {problem}")
            continue
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_PROFILE_INT:
            errors.append(f"{name}: {_short_number(value)} is out of range (at most {MAX_PROFILE_INT})")
            continue
        if name in _DURATIONS and value is not None:
            if not math.isfinite(value) or value <= 0:
                errors.append(f"{name}: must be a positive number of seconds, got {_r(value)}")
            elif value * 1000 > MAX_MS:
                errors.append(f"{name}: {value} s is out of range: gRPC takes at most {MAX_MS} ms (about 24.8 days)")
    if errors:
        return errors
    if p.expected_targets_per_nlb is not None and p.expected_targets_per_nlb < 1:
        errors.append(f"expected_targets_per_nlb: must be 1 or more (or null: not stated), got {p.expected_targets_per_nlb}")
    if p.server_max_ping_strikes < 0:
        errors.append(f"server_max_ping_strikes: must be 0 (unlimited) or more, got {p.server_max_ping_strikes}")
    if p.client_lb_policy not in LB_POLICIES:
        errors.append(f"client_lb_policy: must be one of {', '.join(LB_POLICIES)}, got {_r(p.client_lb_policy)}")
    age, grace = p.server_max_connection_age_s, p.server_max_connection_age_grace_s
    if age is not None and grace is not None and grace > age:
        errors.append(
            f"server_max_connection_age_grace_s: grace {_fmt(grace)} s is longer than "
            f"server_max_connection_age_s {_fmt(age)} s"
        )
    return errors


def _r(value: Any) -> str:
    """A bounded repr for messages, cut while it is built (an alias bomb or a huge value costs what a
    small one does: :func:`edge_origin.core.limits.short_repr`)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of {value.bit_length()} bits"
    return short_repr(value, 60)


def _short_number(value: int) -> str:
    text = str(value) if value.bit_length() < 200 else f"an integer of {value.bit_length()} bits"
    return text if len(text) <= 40 else text[:37] + "..."


def read_profile_file(path: str | Path) -> str:
    """A profile file's text: a regular file of at most ``MAX_PROFILE_BYTES``; ProfileError otherwise."""
    from edge_origin.core.files import InputFileError, read_text_file

    try:
        return read_text_file(path, MAX_PROFILE_BYTES)
    except InputFileError as exc:
        raise ProfileError(str(exc)) from None


def parse_profile_text(text: str, source: str = "<text>") -> Any:
    """JSON or YAML text -> data through the one safe parser (:func:`edge_origin.core.files.parse_data_text`:
    bounded nesting and alias expansion); raises :class:`ProfileError` when it is neither."""
    from edge_origin.core.files import InputFileError, parse_data_text

    try:
        data = parse_data_text(text, source)
    except InputFileError as exc:
        raise ProfileError(str(exc)) from None
    if data is None:
        raise ProfileError(f"{source}: empty file: a profile needs at least {{}} or a preset")
    return data


def _presets() -> dict[str, ConnectionProfile]:
    default = ConnectionProfile()
    return {
        "default": default,
        # Long-lived streams with gaps between messages (telemetry, watch streams) through CloudFront.
        "streaming-telemetry": ConnectionProfile(
            client_keepalive_time_s=30,
            client_keepalive_timeout_s=10,
            server_min_ping_interval_s=20,
            server_max_connection_age_s=1800,
            server_max_connection_age_grace_s=300,
            server_max_connection_idle_s=900,
            server_keepalive_time_s=60,
            nlb_idle_timeout_s=350,
            cloudfront_keepalive_timeout_s=30,
            cloudfront_read_timeout_s=60,
            p99_rpc_duration_s=120,
            longest_stream_gap_s=45,
        ),
        # Service-to-service unary RPCs through an internal NLB (the keepalive incident's shape, fixed).
        "internal-unary": ConnectionProfile(
            client_keepalive_time_s=45,
            client_keepalive_timeout_s=10,
            server_min_ping_interval_s=30,
            server_max_connection_age_s=300,
            server_max_connection_age_grace_s=30,
            server_max_connection_idle_s=600,
            server_keepalive_time_s=60,
            # The write-up raised the NLB to 400 s; above 350 s the targets' ENI connection tracking
            # (TcpEstablishedTimeout, 350 s on Nitro v6, 432,000 s on other types) may need raising, so the preset keeps 350.
            nlb_idle_timeout_s=350,
            cloudfront_keepalive_timeout_s=5,
            cloudfront_read_timeout_s=30,
            p99_rpc_duration_s=2,
            longest_stream_gap_s=10,
        ),
    }


PRESETS: dict[str, ConnectionProfile] = _presets()
"""Named presets: ``default``, ``streaming-telemetry``, ``internal-unary``."""
