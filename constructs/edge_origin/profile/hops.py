"""The hop model: every hop a gRPC connection crosses, what keeps each alive, and the margins used.

::

    device --(viewer keepalive)--> CloudFront --(origin keepalive, read timeout)--> NLB listener
      (idle timeout, per protocol) --> target (ENI connection tracking) --> pod gRPC server
      (ping floor, permit without stream, strikes, max connection age + grace, server keepalive)
    in-VPC client --(client keepalive)--> NLB listener --> target --> pod gRPC server

HTTP/2 PINGs are hop-by-hop: a device's pings end at CloudFront, which opens its own connections
to the origin. So the device's keepalive is judged against nothing behind CloudFront; the
CloudFront -> NLB leg is kept alive by stream data, the pods' own server pings, and CloudFront's
origin keepalive / read timeouts. In-VPC clients reach the NLB directly: their pings (throttled by
the server's ping policy, :mod:`edge_origin.profile.policy`) keep their flows alive.

The device -> CloudFront hop has no check: CloudFront documents no viewer-side gRPC idle number to
judge a device's keepalive against, and the device's pings stop there.

Every profile check and every EO-KA* / EO-CF2 / EO-NLB1 rule takes its constants, limits and
margins from here, and names the hop it judges (:class:`PathHop`).

AWS references (read 2026-12-02):

* NLB idle timeout: https://docs.aws.amazon.com/elasticloadbalancing/latest/network/update-idle-timeout.html
  "The default idle timeout value for TCP flows is 350 seconds." "The connection idle timeout for
  TLS listeners is 350 seconds and can't be modified." Range 60-6000 seconds; the Attributes tab
  "is not present" for a listener "that uses a protocol other than TCP" (UDP, TCP_UDP, TLS).
  And: when the idle timeout is set above 350 seconds, the targets' ENI connection tracking idle
  timeout (``TcpEstablishedTimeout``) must be equal or greater; "On Nitro V6+ instances, the
  default connection tracking timeout is 350 seconds"; a mismatch makes the target's network
  interface silently drop the connection state before the load balancer closes the connection.
* What an NLB does after idle expiry, AWS blog "Introducing NLB TCP configurable idle timeout":
  the connection "is removed from the NLB flow table. If a client attempts to send traffic after
  the connection is no longer tracked, then NLB responds with a TCP RST". No FIN or RST is sent at
  expiry; UDP flows have a 120 s timeout.
"""

from __future__ import annotations

from enum import Enum

from edge_origin import _moved
from edge_origin.core.facts import value
from edge_origin.core.fast_dataclass import dataclass
from edge_origin.core.findings import Severity


class PathHop(str, Enum):
    """The hop a check judges; its value starts every message."""

    DEVICE_TO_CLOUDFRONT = "device -> CloudFront"
    CLOUDFRONT_TO_NLB = "CloudFront -> NLB"
    NLB = "NLB listener"
    TARGET = "target connection tracking"
    POD_SERVER = "pod gRPC server"
    IN_VPC_CLIENT = "in-VPC client -> NLB"
    CLOUDFRONT_VPC_ORIGIN_TO_NLB = "CloudFront VPC origin -> internal NLB"

    def says(self, message: str) -> str:
        return f"[{self.value}] {message}"


# --- NLB ------------------------------------------------------------------------------------------
NLB_DEFAULT_IDLE_S: int = value("elbv2.nlb.idle_default")
"""``tcp.idle_timeout.seconds`` when absent (TCP)."""
NLB_TLS_IDLE_S: int = value("elbv2.nlb.idle_tls")
"""TLS listeners: fixed, not settable."""
NLB_UDP_IDLE_S: int = value("elbv2.nlb.idle_udp")
"""UDP flows (and the UDP half of TCP_UDP): 120 s, not settable."""
NLB_IDLE_RANGE: tuple[int, int] = value("elbv2.nlb.idle_range")
"""``tcp.idle_timeout.seconds``: 60..6000 whole seconds, TCP listeners only."""
IDLE_ATTRIBUTE = "tcp.idle_timeout.seconds"
IDLE_SETTABLE_PROTOCOLS = ("TCP",)

NLB_EXPIRY = (
    "at idle expiry the NLB removes the flow from its flow table without sending FIN or RST to either "
    "side; the next packet either side sends on it is answered with a TCP RST (AWS: 'If a client attempts "
    "to send traffic after the connection is no longer tracked, then NLB responds with a TCP RST')"
)
"""What AWS says an NLB does after idle expiry: every message that relies on it says this."""
TARGET_EXPIRY = (
    "the target's network interface drops the connection state silently before the NLB does (AWS "
    "update-idle-timeout: TcpEstablishedTimeout must be equal or greater than the NLB idle timeout), so "
    "packets on the flow are dropped with no RST and the RPC hangs until a ping timeout or its deadline"
)

# --- target --------------------------------------------------------------------------------------
TARGET_TCP_ESTABLISHED_NITRO_V6_S: int = value("ec2.conntrack.tcp_established.nitro_v6")
TARGET_TCP_ESTABLISHED_OTHER_S: int = value("ec2.conntrack.tcp_established.other")
TARGET_TCP_ESTABLISHED_RANGE: tuple[int, int] = value("ec2.conntrack.tcp_established.range")
"""EC2 ``TcpEstablishedTimeout``: 60..432,000 s (the API's own limits: outside them the value is refused)."""
TARGET_TCP_ESTABLISHED_DEFAULT_S = TARGET_TCP_ESTABLISHED_NITRO_V6_S
"""The lower of the two EC2 defaults: what an undeclared ``TcpEstablishedTimeout`` may be (the reach limit
takes it, and every message that rests on it says :data:`TRACKING_DEPENDS`)."""
TRACKING_DEPENDS = (
    f"the targets' TcpEstablishedTimeout depends on the instance type when not set: {TARGET_TCP_ESTABLISHED_NITRO_V6_S} s "
    f"on Nitro v6 instance types, {TARGET_TCP_ESTABLISHED_OTHER_S:,} s on all others (EC2 API, "
    "ConnectionTrackingSpecificationRequest.TcpEstablishedTimeout)"
)
"""What edge-origin says when a profile does not state the targets' connection tracking."""
TARGET_TRACKING_TYPES = ("ip", "instance")
"""Target types whose traffic crosses an EC2 ENI's connection tracking (not ``alb``/``lambda``)."""

# --- CloudFront ----------------------------------------------------------------------------------
CF_DEFAULT_KEEPALIVE_S = 5
CF_DEFAULT_READ_S = 30


@dataclass(frozen=True)
class OriginTimeoutLimit:
    """One CloudFront origin timeout: an adjustable per-account quota, not a constant (issue 37)."""

    field: str
    """The API / CloudFormation name (CustomOriginConfig and VpcOriginConfig)."""
    quota: str
    """The Service Quotas name of the adjustable quota (CloudFront, us-east-1)."""
    minimum_s: int
    default_quota_s: int
    """Above this needs an approved quota increase: a WARNING naming :attr:`quota`, never an error."""
    default_s: int
    source: str


CF_ORIGIN_TIMEOUTS_READ = "2026-12-04"
"""When the sources in :data:`CF_ORIGIN_TIMEOUTS` were read."""
CF_ORIGIN_TIMEOUTS: dict[str, OriginTimeoutLimit] = {
    "read": OriginTimeoutLimit(
        field="OriginReadTimeout", quota="Response timeout per origin", minimum_s=1, default_quota_s=120, default_s=30,
        source=(
            "botocore 1.44.8 cloudfront/2020-05-31 service-2.json CustomOriginConfig/VpcOriginConfig OriginReadTimeout: "
            "'The minimum timeout is 1 second, the maximum is 120 seconds'; aws-cdk-lib 2.275 aws_cloudfront_origins "
            "HttpOrigin read_timeout: 'governed by the origin response timeout quota, which is adjustable ... The default "
            "quota allows up to 120 seconds' (HttpOrigin checks only the minimum)"
        ),
    ),
    "keepalive": OriginTimeoutLimit(
        field="OriginKeepaliveTimeout", quota="Keep-alive timeout per origin", minimum_s=1, default_quota_s=120,
        default_s=5,
        source=(
            "botocore 1.44.8 cloudfront/2020-05-31 service-2.json CustomOriginConfig/VpcOriginConfig "
            "OriginKeepaliveTimeout: 'The minimum timeout is 1 second, the maximum is 120 seconds'; aws-cdk-lib 2.275 "
            "HttpOrigin keepalive_timeout: 'governed by the keep-alive timeout per origin quota, which is adjustable ... "
            "The default quota allows up to 300 seconds'. The two disagree: warnings start above the lower, 120 s"
        ),
    ),
}
"""CloudFront's origin timeout limits, with sources and the date read: from ``minimum_s``, whole seconds;
above ``default_quota_s`` a warning naming the quota; no documented hard maximum (only the ceiling below)."""
CF_TIMEOUT_CEILING_S: int = value("cloudfront.response_completion.cdk_range")[1]
"""aws-cdk-lib's own bound (its HttpOrigin accepts ``response_completion_timeout`` 1..3600 s), not AWS's:
the constructs refuse larger values because aws-cdk-lib does; templates and profiles are not held to it
(CloudFront's API sets no maximum for ResponseCompletionTimeout; origin timeouts above the default quota
are quota requests, a warning)."""
CF_TIMEOUT_RANGE = (1, CF_ORIGIN_TIMEOUTS["read"].default_quota_s)
"""Both origin timeouts within the default quotas (kept for callers; the quotas are in :data:`CF_ORIGIN_TIMEOUTS`)."""
CF_EXTENDED_MAX_S = CF_TIMEOUT_CEILING_S
"""The largest origin timeout the constructs accept (aws-cdk-lib's ResponseCompletionTimeout bound, which the
read timeout must not exceed when both are set); templates and profiles: no maximum (a warning above the quota)."""
CF_RESPONSE_COMPLETION_MIN = 1
"""The smallest ``ResponseCompletionTimeout`` (whole seconds); the API sets no maximum and asks for >= OriginReadTimeout."""


def origin_timeout_problem(kind: str, seconds: float, *, quota_raised: bool = False) -> tuple[Severity, str] | None:
    """Severity and reason when ``seconds`` is not a plain ``kind`` (``read`` / ``keepalive``) origin timeout.

    ERROR: not whole seconds or below the minimum (the API's own limits); WARNING: above the default quota
    (unless ``quota_raised``), naming the quota: a quota is raised on request, so it is never an error; None: fine.
    """
    limit = CF_ORIGIN_TIMEOUTS[kind]
    if not float(seconds).is_integer() or seconds < limit.minimum_s:
        return Severity.ERROR, (
            f"{_fmt(seconds)} s is not a CloudFront {limit.field}: whole seconds from {limit.minimum_s} "
            f"(default quota {limit.default_quota_s} s)"
        )
    if seconds > limit.default_quota_s and not quota_raised:
        return Severity.WARNING, (
            f"{_fmt(seconds)} s is above the default CloudFront quota '{limit.quota}' ({limit.default_quota_s} s): "
            f"request an increase of that quota (Service Quotas, CloudFront, us-east-1) before deploying, or "
            f"CloudFront refuses the distribution (read {CF_ORIGIN_TIMEOUTS_READ}: {limit.source})"
        )
    return None

CF_RESPONSE_COMPLETION_RANGE: tuple[int, int] = value("cloudfront.response_completion.cdk_range")
"""``response_completion_timeout`` as aws-cdk-lib 2.275's HttpOrigin accepts it: whole seconds 1..3600 ("Valid
values are 1-3600 seconds, inclusive"): the constructs' bound, not the API's. botocore 1.44.8 cloudfront
``Origin.ResponseCompletionTimeout``: "must be equal to or greater than the value for OriginReadTimeout.
If you don't set a value for ResponseCompletionTimeout, CloudFront doesn't enforce a maximum value"."""
SRC_RESPONSE_COMPLETION = (
    "botocore 1.44.8 cloudfront/2020-05-31 service-2.json Origin.ResponseCompletionTimeout: 'If the complete response "
    "isn't received from the origin by this time, CloudFront ends the connection. The value for "
    "ResponseCompletionTimeout must be equal to or greater than the value for OriginReadTimeout. If you don't set a "
    "value for ResponseCompletionTimeout, CloudFront doesn't enforce a maximum value'"
)
AGE_JITTER: float = value("grpc.max_connection_age_jitter")
"""gRPC servers jitter MaxConnectionAge by +-10 %: the GOAWAY comes at most ``age x 1.1`` after the connection opened."""


def longest_stream_s(max_age_s: float | None, grace_s: float | None) -> float | None:
    """The longest a stream can live on a server with this max connection age and grace: the
    GOAWAY at ``age x 1.1`` (jitter) plus the grace for in-flight RPCs. None: unbounded (no age, or
    no grace: in-flight RPCs are never cut)."""
    if max_age_s is None or grace_s is None:
        return None
    return max_age_s * (1 + AGE_JITTER) + grace_s


# --- CloudFront VPC origin (issue 31) -------------------------------------------------------------
CF_VPC_ORIGIN_TIMEOUT_RANGE = (1, 120)
"""``VpcOriginConfig.OriginKeepaliveTimeout`` and ``OriginReadTimeout``: 1..120 s by default quota (above:
:func:`origin_timeout_problem`'s warning, :data:`CF_ORIGIN_TIMEOUTS`), defaults 5 s and 30 s.
Source: the CloudFront API reference, shape ``VpcOriginConfig`` (botocore 1.44.8
``cloudfront/2020-05-31/service-2.json``: "The minimum timeout is 1 second, the maximum is 120
seconds, and the default ... is 5 seconds" / "... 30 seconds"), the same text in aws-cdk-lib 2.275's
``CfnDistribution.VpcOriginConfigProperty``. aws-cdk-lib 2.275's L2 ``VpcOrigin`` calls both
adjustable quotas (read 120 s, keep-alive 300 s by default quota) and checks only the minimum."""
CF_VPC_ORIGIN_DEFAULT_KEEPALIVE_S = 5
CF_VPC_ORIGIN_DEFAULT_READ_S = 30
SRC_VPC_ORIGIN = (
    "CloudFront API reference VpcOriginConfig (botocore 1.44.8 cloudfront service-2.json); CloudFront "
    "Developer Guide private-content-vpc-origins.html"
)

# --- margins -------------------------------------------------------------------------------------
IDLE_GUARD_S = 5
"""An idle timer must not come within this many seconds of expiring between two packets: covers
the RTT inside a region (milliseconds, up to ~1 s under loss with one TCP retransmission), timer
scheduling slack in the gRPC runtimes (their keepalive timers are not jittered) and the NLB's idle
timer granularity (AWS documents whole seconds). Silence >= limit - guard is an error. For the
time-scaled limits of loopback rehearsals (a few seconds) the guard shrinks to
:data:`IDLE_GUARD_FRACTION` of the limit."""
IDLE_GUARD_FRACTION = 0.05
IDLE_WARN_FRACTION = 0.9
"""Silence above 90 % of an idle limit (but below limit - guard) is a warning: it works, with no room
for a ping delayed by a busy server or a retransmission."""
PING_FLOOR_GUARD_S = 1
"""A client keepalive equal to the server floor (or less than 1 s above it) is a warning: the
server measures between arrivals, so RTT jitter makes some pings early strikes, and strikes are
only reset when the server writes data."""


def idle_severity(silence_s: float, limit_s: float) -> Severity | None:
    """ERROR when ``silence_s`` reaches ``limit_s - guard`` (:func:`idle_guard_s`), WARNING above 90 %, else None."""
    if silence_s >= limit_s - idle_guard_s(limit_s):
        return Severity.ERROR
    if silence_s > IDLE_WARN_FRACTION * limit_s:
        return Severity.WARNING
    return None


def idle_guard_s(limit_s: float) -> float:
    """The guard below an idle limit: 5 s, or 5 % of a (time-scaled) limit shorter than 100 s."""
    return min(float(IDLE_GUARD_S), IDLE_GUARD_FRACTION * limit_s)


def ping_floor_guard_s(floor_s: float) -> float:
    """The guard above a server ping floor: 1 s, or 5 % of a (time-scaled) floor shorter than 20 s."""
    return min(float(PING_FLOOR_GUARD_S), IDLE_GUARD_FRACTION * floor_s)


def margin_words(limit_s: float) -> str:
    guard = idle_guard_s(limit_s)
    return (
        f"(error at >= {_fmt(limit_s - guard)} s: {_fmt(guard)} s guard for RTT and timer precision; "
        f"warning above {_fmt(IDLE_WARN_FRACTION * limit_s)} s)"
    )


@dataclass(frozen=True)
class ListenerIdle:
    """What a listener's protocol makes of the idle timeout."""

    seconds: float | None
    """The TCP idle timeout in effect (None: not decidable from the template)."""
    how: str
    settable: bool
    note: str = ""
    """Extra fact to report (TCP_UDP / UDP: the attribute is TCP-only)."""


def listener_idle(protocol: str | None, idle_attribute: int | None, *, attribute_present: bool = False,
                  attribute_known: bool = True) -> ListenerIdle:
    """The idle timeout a listener of ``protocol`` applies to TCP flows."""
    if protocol == "TLS":
        return ListenerIdle(NLB_TLS_IDLE_S, "fixed for TLS listeners", settable=False)
    if protocol in ("UDP", "TCP_UDP"):
        note = (
            f"{protocol} listener: tcp.idle_timeout.seconds is a TCP-listener attribute (AWS: the attribute tab is "
            f"not present for other protocols), so TCP flows keep the {NLB_DEFAULT_IDLE_S} s default and UDP flows "
            f"{NLB_UDP_IDLE_S} s"
        )
        return ListenerIdle(NLB_DEFAULT_IDLE_S if protocol == "TCP_UDP" else None, "fixed for " + protocol,
                            settable=False, note=note)
    if idle_attribute is not None:
        return ListenerIdle(idle_attribute, IDLE_ATTRIBUTE, settable=True)
    if attribute_present or not attribute_known:
        return ListenerIdle(None, "decided at deploy time", settable=True)
    return ListenerIdle(NLB_DEFAULT_IDLE_S, f"the default, {IDLE_ATTRIBUTE} unset", settable=True)


def idle_range_problem(seconds: float) -> str:
    """Why ``seconds`` is not a valid ``tcp.idle_timeout.seconds`` ('' when it is)."""
    lo, hi = NLB_IDLE_RANGE
    if lo <= seconds <= hi and float(seconds).is_integer():
        return ""
    return f"{_fmt(seconds)} s is outside the NLB TCP idle timeout range {lo}..{hi} whole seconds"


def tracking_range_problem(seconds: float | None) -> str:
    """Why ``seconds`` is not a valid EC2 ``TcpEstablishedTimeout`` ('' when it is, or unset)."""
    lo, hi = TARGET_TCP_ESTABLISHED_RANGE
    if seconds is None or (lo <= seconds <= hi and float(seconds).is_integer()):
        return ""
    return (f"{_fmt(seconds)} s is outside EC2's TcpEstablishedTimeout range {lo}..{hi:,} whole seconds "
            "(ConnectionTrackingSpecificationRequest: 'Min: 60 seconds. Max: 432000 seconds (5 days)')")


def reach_limit_s(nlb_idle_s: float, target_tracking_s: float | None) -> tuple[float, str]:
    """The silence a flow survives end to end: the NLB idle timeout or the target's connection
    tracking, whichever is shorter; and which one it is."""
    tracking = TARGET_TCP_ESTABLISHED_DEFAULT_S if target_tracking_s is None else target_tracking_s
    if tracking < nlb_idle_s:
        if target_tracking_s is None:
            return tracking, (f"target TcpEstablishedTimeout {_fmt(tracking)} s (not stated: the Nitro v6 default; "
                              f"{TARGET_TCP_ESTABLISHED_OTHER_S:,} s on other instance types)")
        return tracking, f"target TcpEstablishedTimeout {_fmt(tracking)} s"
    return nlb_idle_s, f"NLB idle timeout {_fmt(nlb_idle_s)} s"


def _fmt(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() else str(round(value, 3))


MARGIN_IDLE = (
    f"error when the silence reaches limit - {IDLE_GUARD_S} s (5 % of limits under 100 s), warning above {int(IDLE_WARN_FRACTION * 100)} % "
    "of the limit (RTT, timer slack, whole-second idle timers)"
)
SRC_NLB = "AWS ELB docs update-idle-timeout.html; AWS blog 'Introducing NLB TCP configurable idle timeout'"
SRC_POLICY = "edge_origin.profile.policy (grpc-go http2_server.go handlePing, grpc-java KeepAliveEnforcer, C-core ping_abuse_policy.cc)"

PROFILE_CHECK_DOCS: dict[str, tuple[PathHop, str, str]] = {
    "EO-PROFILE-PING-FLOOR": (PathHop.IN_VPC_CLIENT, "none: any keepalive below the floor is a strike", SRC_POLICY),
    "EO-PROFILE-PING-FLOOR-EDGE": (PathHop.IN_VPC_CLIENT, f"warning when keepalive < floor + {PING_FLOOR_GUARD_S} s (arrival jitter)", SRC_POLICY),
    "EO-PROFILE-IDLE-PING-REJECTED": (PathHop.IN_VPC_CLIENT, "none: the 2 h floor with no stream open", SRC_POLICY),
    "EO-PROFILE-IDLE-MARGIN": (PathHop.IN_VPC_CLIENT, MARGIN_IDLE + "; limit = min(NLB idle, target TcpEstablishedTimeout)", f"{SRC_POLICY}; {SRC_NLB}"),
    "EO-PROFILE-IDLE-NO-PINGS": (PathHop.IN_VPC_CLIENT, MARGIN_IDLE, f"{SRC_POLICY}; {SRC_NLB}"),
    "EO-PROFILE-PING-TIMEOUT": (PathHop.IN_VPC_CLIENT, "none (warning)", "gRFC A8 keepalive"),
    "EO-PROFILE-PICK-FIRST": (PathHop.IN_VPC_CLIENT, "none (warning)", "gRPC load-balancing policies"),
    "EO-PROFILE-CF-KEEPALIVE": (PathHop.CLOUDFRONT_TO_NLB, MARGIN_IDLE, f"CloudFront origin keepalive timeout; {SRC_NLB}"),
    "EO-PROFILE-CF-READ": (PathHop.CLOUDFRONT_TO_NLB, "none: read timeout must exceed the gap", "CloudFront origin response timeout"),
    "EO-PROFILE-CF-STREAM-IDLE": (PathHop.CLOUDFRONT_TO_NLB, MARGIN_IDLE, f"RFC 9113 PING is hop-by-hop; {SRC_POLICY}; {SRC_NLB}"),
    "EO-PROFILE-STRIKES-FIXED": (PathHop.POD_SERVER, "none (warning)", SRC_POLICY),
    "EO-PROFILE-AGE-UNSET": (PathHop.POD_SERVER, "none", "L4 NLB pins a connection to one target"),
    "EO-PROFILE-AGE-P99": (PathHop.POD_SERVER, "age x 0.9 (gRPC's +-10 % jitter) >= 10 x p99", "grpc MaxConnectionAge jitter"),
    "EO-PROFILE-AGE-GRACE": (PathHop.POD_SERVER, "none", "grpc MaxConnectionAgeGrace"),
    "EO-PROFILE-TARGET-TRACKING": (PathHop.TARGET, "none: idle above TcpEstablishedTimeout", SRC_NLB),
    "EO-PROFILE-TARGETS": (PathHop.NLB, "none (warning: a quota): above 500 targets an NLB with cross-zone on takes",
                           "AWS ELB docs load-balancer-limits.html (facts elbv2.nlb.targets_per_zone, elbv2.nlb.targets_max)"),
    "EO-PROFILE-RANGE": (PathHop.NLB, "none: the AWS/gRPC ranges; CloudFront origin timeouts above the default quota warn", f"{SRC_NLB}; CloudFront quotas (hops.CF_ORIGIN_TIMEOUTS); {SRC_POLICY}"),
}
"""Each profile check: the hop it judges, the margin it uses and why, and its source (RULES.md)."""


def profile_checks_doc() -> str:
    """One line per profile check, for EO-KA3's catalogue entry."""
    return " ".join(f"{rule}: hop {hop.value}; margin {margin}; source {src}." for rule, (hop, margin, src) in PROFILE_CHECK_DOCS.items())


__getattr__ = _moved.old_names(__name__)  # old class names, until 0.3
