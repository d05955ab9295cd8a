"""EO-KA2: CloudFront origin keepalive or read timeout differs from the declared connection profile."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import DistributionView, OriginView, TemplateModel
from edge_origin.profile import ConnectionProfile, hops
from edge_origin.profile.hops import PathHop
from edge_origin.rules.base import finding, with_cdk
from edge_origin.rules.cf_undecided import timeout_undecided, undecided
from edge_origin.rules.ka_profile import CF_DEFAULT_KEEPALIVE, CF_DEFAULT_READ, HopRule, declared_profile

FIX = with_cdk(
    "EO-KA2",
    "Set the origin's OriginKeepaliveTimeout and OriginReadTimeout from the profile (the edge-origin constructs "
    "do: HttpOrigin(keepalive_timeout=..., read_timeout=...)), or change the profile.",
    'GrpcEdgeToOrigin(connection_profile=profile) or GrpcEdgeDistribution(keepalive_timeout=, read_timeout=) from the profile.',
)


def _origins(dist: DistributionView) -> list[OriginView]:
    """Custom origins of gRPC behaviors; every custom origin if no behavior enables gRPC."""
    grpc = {o.id: o for b in dist.behaviors if b.grpc_enabled for o in b.origins if o.custom}
    return list(grpc.values()) if grpc else [o for o in dist.origins if o.custom]


def check(model: TemplateModel) -> Iterator[Finding]:
    for dist in model.distributions:
        profile = declared_profile(dist.resource)
        if not isinstance(profile, ConnectionProfile):
            continue
        for origin in _origins(dist):
            for label, kind, actual, default, field, wanted in (
                ("OriginKeepaliveTimeout", "keepalive", origin.keepalive_timeout, CF_DEFAULT_KEEPALIVE,
                 "cloudfront_keepalive_timeout_s", profile.cloudfront_keepalive_timeout_s),
                ("OriginReadTimeout", "read", origin.read_timeout, CF_DEFAULT_READ,
                 "cloudfront_read_timeout_s", profile.cloudfront_read_timeout_s),
            ):
                raw = timeout_undecided(origin, label)
                if raw is not None:
                    yield from _undecided(dist, origin, label, kind, raw, field, wanted)
                    continue
                custom = origin.raw.get("CustomOriginConfig")
                if actual is None and (not isinstance(custom, dict) or label in custom):
                    continue  # present but not decidable from the templates
                value = default if actual is None else actual
                if value != wanted:
                    how = label if actual is not None else f"{label} unset, default"
                    yield _drift(dist, origin, f"{how} {value} s", field, wanted)


def _drift(dist: DistributionView, origin: OriginView, what: str, field: str, wanted: float) -> Finding:
    return finding(
        RULE.id, Severity.ERROR, dist.resource,
        PathHop.CLOUDFRONT_TO_NLB.says(
            f"{dist.resource.logical_id} origin {origin.id}: {what} differs from the declared connection profile's "
            f"{field} {_num(wanted)} s"
        ),
        FIX,
    )


def _undecided(dist: DistributionView, origin: OriginView, label: str, kind: str, raw: object, field: str,
               wanted: float) -> Iterator[Finding]:
    """A timeout decided at deploy time: CloudFront takes whole seconds from 1 (above the default quota, 120 s,
    after a quota increase; hops.CF_ORIGIN_TIMEOUTS), so when the profile's value is one of those, some value
    the timeout may take matches it and others do not: not judged. When it is none of them (not whole seconds,
    below 1 s), every value differs: the drift is decided."""
    lowest = hops.CF_ORIGIN_TIMEOUTS[kind].minimum_s
    if not float(wanted).is_integer() or wanted < lowest:
        yield _drift(dist, origin, f"{label} decided at deploy time (every value CloudFront takes: whole seconds "
                     f"from {lowest})", field, wanted)
        return
    yield undecided(
        RULE.id, dist, f"origin {origin.id} CustomOriginConfig.{label}", raw,
        f"the declared connection profile's {field} {_num(wanted)} s is one of the values it may take "
        f"(whole seconds from {lowest}), the others drift from it",
    )


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


RULE = HopRule(
    id="EO-KA2",
    severity=Severity.ERROR,
    title="CloudFront origin timeouts drifted from the declared connection profile",
    catches=(
        "A distribution whose Metadata edge-origin:connection-profile declares cloudfront_keepalive_timeout_s / "
        "cloudfront_read_timeout_s, while a custom origin of its gRPC behaviors (every custom origin if none) has "
        "another OriginKeepaliveTimeout (default 5 s) or OriginReadTimeout (default 30 s). A timeout decided at deploy time "
        "(a parameter without Default, an import, an undecidable condition) is not judged (warning) when the profile's "
        "value is one it may take (whole seconds from 1), else every value drifts and it fires."
    ),
    incident=(
        "CloudFront reused origin connections the NLB had already dropped, and cut quiet streams, because its "
        "timeouts were never compared with the NLB's and the services' (keepalive-vs-nlb-idle-timeout)."
    ),
    fix=FIX,
    check=check,
    facts=("cloudfront.origin_keepalive_timeout", "cloudfront.origin_read_timeout"),
    why=(
        "Hop: CloudFront -> NLB. Margin: none, the numbers must be equal. Source: CloudFront origin keepalive (default "
        "5 s) and response timeout (default 30 s), whole seconds from 1, adjustable quotas (default 120 s; hops.CF_ORIGIN_TIMEOUTS)."
    ),
)
