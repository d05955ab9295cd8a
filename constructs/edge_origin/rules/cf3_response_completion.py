"""EO-CF3: a gRPC origin with a ResponseCompletionTimeout: CloudFront ends every stream at that age.

botocore 1.44.8 cloudfront ``Origin.ResponseCompletionTimeout``: "The time (in seconds) that a request
from CloudFront to the origin can stay open and wait for a response. If the complete response isn't
received from the origin by this time, CloudFront ends the connection. The value for
ResponseCompletionTimeout must be equal to or greater than the value for OriginReadTimeout. If you don't
set a value for ResponseCompletionTimeout, CloudFront doesn't enforce a maximum value."

A gRPC stream is one request whose response completes when the stream ends, so a set value ends every
stream (server-streaming, bidi) that lives longer. Judged against the declared connection profile
(``edge-origin:connection-profile`` on the distribution, as EO-KA2 reads it): below the profile's
``p99_rpc_duration_s`` it cuts RPCs the profile says must complete (error); below the longest stream the
profile lets a server keep open (``server_max_connection_age_s`` x 1.1 jitter + the grace; unbounded
when either is None) it ends streams the server would still serve (warning). Without a profile: a
warning naming the age at which every stream ends. Below the origin's read timeout: an error,
CloudFront refuses it. Decided at deploy time: not judged (warning).
"""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import DistributionView, OriginView, TemplateModel, display_value
from edge_origin.profile import ConnectionProfile, hops
from edge_origin.profile.hops import PathHop
from edge_origin.rules.base import finding, with_cdk
from edge_origin.rules.cf_undecided import target_element, timeout_undecided, undecided
from edge_origin.rules.ka_profile import CF_DEFAULT_READ, HopRule, declared_profile
from edge_origin.rules.not_judged import not_judged

READ_QUOTA = hops.CF_ORIGIN_TIMEOUTS["read"].default_quota_s
FIX = with_cdk(
    "EO-CF3",
    "Leave ResponseCompletionTimeout unset on a gRPC origin with streaming RPCs (CloudFront then enforces no "
    "maximum), or set it above the longest stream the servers keep open (max connection age x 1.1 + grace) "
    "and at least the OriginReadTimeout; declare the connection profile so edge-origin can judge it.",
    '`HttpOrigin(response_completion_timeout=...)` (aws-cdk-lib accepts 1..3600 s) or leave it unset; GrpcEdgeToOrigin(response_completion_timeout=None) is the default.',
)


def _grpc_origins(dist: DistributionView) -> list[OriginView]:
    """Custom and VPC origins of the distribution's gRPC behaviors."""
    found = {
        id(o): o for b in dist.behaviors if b.grpc_enabled for o in b.origins if o.custom or o.vpc_origin_id is not None
    }
    return list(found.values())


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _read_timeout(origin: OriginView) -> int | None:
    """The origin's OriginReadTimeout (default 30 s); None when decided at deploy time."""
    # where the origin view reads the timeouts (a VPC origin's only when it has no CustomOriginConfig)
    config = origin.raw.get("CustomOriginConfig" if origin.custom else "VpcOriginConfig")
    if origin.read_timeout is None and (not isinstance(config, dict) or "OriginReadTimeout" in config):
        return None
    return origin.read_timeout if origin.read_timeout is not None else CF_DEFAULT_READ


def check(model: TemplateModel) -> Iterator[Finding]:
    for dist in model.distributions:
        profile = declared_profile(dist.resource)
        for origin in _grpc_origins(dist):
            where = f"{dist.resource.logical_id} origin {origin.id}"
            if origin.response_completion_timeout_unknown:
                yield not_judged(
                    RULE.id, Severity.WARNING,
                    subject=f"{where} ResponseCompletionTimeout",
                    element=origin.raw.get("ResponseCompletionTimeout"),
                    reason="decided at deploy time; a set value ends every gRPC stream at that age",
                    needs="a literal ResponseCompletionTimeout, or none (CloudFront then enforces no maximum)",
                    template=dist.resource.template, stack=dist.resource.stack,
                    resource=dist.resource.logical_id, path=dist.resource.path,
                )
                continue
            rct = origin.response_completion_timeout
            if rct is None:
                continue  # "CloudFront doesn't enforce a maximum value"
            yield from _judge(dist, origin, where, rct, profile)
        yield from _maybe_grpc(dist, profile)


def _maybe_grpc(dist: DistributionView, profile: object) -> Iterator[Finding]:
    """Origins a gRPC behavior may reach, where that is decided at deploy time (the behavior's
    ``GrpcConfig.Enabled``, its ``TargetOriginId`` or the ``Id`` of the origins it may name): not judged, once per
    origin, when this rule would judge the origin as a gRPC origin (quiet when it would not)."""
    seen = {id(o) for o in _grpc_origins(dist)}
    for behavior in dist.behaviors:
        if not (behavior.grpc_enabled or behavior.grpc_unknown):
            continue
        for origin in behavior.target_candidates if behavior.grpc_enabled else behavior.origins + behavior.target_candidates:
            if id(origin) in seen or not (origin.custom or origin.vpc_origin_id is not None):
                continue
            rct = origin.response_completion_timeout
            if not origin.response_completion_timeout_unknown and (
                    rct is None or next(_judge(dist, origin, "", rct, profile), None) is None):
                continue  # quiet whether or not the behavior reaches it over gRPC
            seen.add(id(origin))
            if behavior.grpc_enabled:
                subject, value = target_element(behavior, origin)
            else:
                grpc = behavior.raw.get("GrpcConfig")
                subject, value = f"{behavior.label} GrpcConfig.Enabled", grpc.get("Enabled") if isinstance(grpc, dict) else grpc
            rct_text = f"{rct} s" if rct is not None else display_value(origin.raw.get("ResponseCompletionTimeout"))
            yield undecided(RULE.id, dist, subject, value,
                            f"whether gRPC streams reach origin {origin.id} (ResponseCompletionTimeout {rct_text}) through it")


def _judge(dist: DistributionView, origin: OriginView, where: str, rct: int, profile: object) -> Iterator[Finding]:
    low = hops.CF_RESPONSE_COMPLETION_MIN
    read = _read_timeout(origin)
    if rct < low:
        yield _finding(dist, Severity.ERROR, f"{where}: ResponseCompletionTimeout {rct} s is below {low} s")
        return
    if read is not None and rct < read:
        yield _finding(
            dist, Severity.ERROR,
            f"{where}: ResponseCompletionTimeout {rct} s is below OriginReadTimeout {read} s (CloudFront requires >=)",
        )
        return
    if read is None and rct < READ_QUOTA:
        # The read timeout is decided at deploy time: judged over every value up to the default quota (above it
        # CloudFront refuses the distribution until the quota is raised, EO-CF4): some are above the timeout.
        yield undecided(
            RULE.id, dist, f"{where.removeprefix(dist.resource.logical_id + ' ')} OriginReadTimeout",
            timeout_undecided(origin, "OriginReadTimeout"),
            f"CloudFront requires ResponseCompletionTimeout ({rct} s) >= OriginReadTimeout, which may be up to {READ_QUOTA} s",
        )
    if isinstance(profile, ConnectionProfile):
        longest = hops.longest_stream_s(profile.server_max_connection_age_s, profile.server_max_connection_age_grace_s)
        if rct < profile.p99_rpc_duration_s:
            yield _finding(
                dist, Severity.ERROR,
                f"{where}: ResponseCompletionTimeout {rct} s is below the declared connection profile's p99_rpc_duration_s "
                f"{_num(profile.p99_rpc_duration_s)} s: CloudFront ends RPCs the profile says must complete",
            )
        elif longest is None:
            unset = "server_max_connection_age_s" if profile.server_max_connection_age_s is None else "server_max_connection_age_grace_s"
            yield _finding(
                dist, Severity.WARNING,
                f"{where}: ResponseCompletionTimeout {rct} s ends every gRPC stream at {rct} s, while the declared "
                f"connection profile's {unset} None lets streams live without limit",
            )
        elif rct < longest:
            yield _finding(
                dist, Severity.WARNING,
                f"{where}: ResponseCompletionTimeout {rct} s ends gRPC streams at {rct} s, before the longest the declared "
                f"connection profile lets a server keep one ({_num(longest)} s: server_max_connection_age_s "
                f"{_num(profile.server_max_connection_age_s or 0)} x 1.1 + grace {_num(profile.server_max_connection_age_grace_s or 0)})",
            )
        return
    yield _finding(
        dist, Severity.WARNING,
        f"{where}: ResponseCompletionTimeout {rct} s on a gRPC origin ends every stream longer than {rct} s "
        f"(no connection profile declared to judge it against)",
    )


def _finding(dist: DistributionView, severity: Severity, message: str) -> Finding:
    return finding(RULE.id, severity, dist.resource, PathHop.CLOUDFRONT_TO_NLB.says(message), FIX)


RULE = HopRule(
    id="EO-CF3",
    lower="warning when ResponseCompletionTimeout ends streams the declared connection profile (or none) lets live longer",
    severity=Severity.ERROR,
    title="ResponseCompletionTimeout on a gRPC origin ends long streams",
    catches=(
        "A custom or VPC origin of a gRPC behavior with Origin.ResponseCompletionTimeout set: below OriginReadTimeout "
        "(default 30 s) or below 1 s (error; the API sets no maximum: 3600 s is aws-cdk-lib's HttpOrigin check, not "
        "CloudFront's); with a declared connection profile, below its p99_rpc_duration_s "
        "(error) or below the longest stream its servers keep (server_max_connection_age_s x 1.1 + grace; unbounded when "
        "either is None) (warning); without a profile, a warning naming the age at which every stream ends; deploy-time "
        "values are not judged (warning), and so is an origin such a timeout would judge when whether a gRPC behavior "
        "reaches it is decided at deploy time (GrpcConfig.Enabled, TargetOriginId or the origins' Id)."
    ),
    incident=(
        "Long-lived gRPC streams through CloudFront all ended at the same age, whatever the servers' connection age, "
        "because a response completion timeout was set on the origin."
    ),
    fix=FIX,
    check=check,
    why=(
        "Hop: CloudFront -> NLB. Margin: none, a stream older than the timeout is ended. Source: "
        + hops.SRC_RESPONSE_COMPLETION + "; aws-cdk-lib 2.275 HttpOrigin response_completion_timeout: 'Valid values are "
        "1-3600 seconds, inclusive' (aws-cdk-lib's own check: the constructs keep it, templates are not held to it)."
    ),
    facts=("cloudfront.response_completion.api_max", "cloudfront.response_completion.cdk_range",
           "cloudfront.origin_read_timeout"),
)

