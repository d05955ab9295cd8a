"""EO-CF1: a gRPC behavior with caching, limited methods, no HTTP/2, or a non-HTTPS origin."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import (
    CACHING_DISABLED_POLICY_ID,
    BehaviorView,
    ResourceRef,
    TemplateModel,
    as_int,
    display_value,
    props_of,
)
from edge_origin.rules.base import Rule, finding, with_cdk

ALL_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"})
HTTP2 = frozenset({"http2", "http2and3"})
FIX = with_cdk(
    "EO-CF1",
    "For gRPC behaviors: CachePolicyId 4135ea2d-6df8-44a3-9df3-4b5a84be39ad (CachingDisabled), AllowedMethods all 7, "
    "HttpVersion http2 or http2and3, origin OriginProtocolPolicy https-only.",
    '`cloudfront.BehaviorOptions(enable_grpc=True, allowed_methods=AllowedMethods.ALLOW_ALL, cache_policy=CachePolicy.CACHING_DISABLED)` with `HttpOrigin(protocol_policy=OriginProtocolPolicy.HTTPS_ONLY)`, `Distribution(http_version=HttpVersion.HTTP2_AND_3)`; GrpcEdgeDistribution / GrpcEdgeToOrigin set all of these.',
)


def _caching(model: TemplateModel, behavior: BehaviorView) -> bool | None:
    policy = behavior.cache_policy_id
    if isinstance(policy, str):
        return policy != CACHING_DISABLED_POLICY_ID
    if isinstance(policy, ResourceRef):
        res = model.target(policy)
        if res is None or res.type != "AWS::CloudFront::CachePolicy":
            return None
        cfg = props_of(res).mapping("CachePolicyConfig")
        # MinTTL is not read: MaxTTL >= MinTTL, so a positive MinTTL already shows in MaxTTL
        return any(t is None or t > 0 for t in (cfg.int("DefaultTTL"), cfg.int("MaxTTL")))
    if policy is None and behavior.forwarded_values is not None:
        ttls = [as_int(behavior.raw.get(k)) for k in ("DefaultTTL", "MaxTTL")]
        return not all(t == 0 for t in ttls)  # legacy defaults: DefaultTTL 86400
    return None


def check(model: TemplateModel) -> Iterator[Finding]:
    for dist in model.distributions:
        res = dist.resource
        for behavior in dist.behaviors:
            if not behavior.grpc_enabled:
                continue
            where = f"{res.logical_id} {behavior.label}"
            if _caching(model, behavior):
                yield finding(
                    RULE.id, Severity.WARNING, res,
                    f"{where}: gRPC behavior with a caching cache policy ({display_value(behavior.cache_policy_id)}): "
                    "CloudFront passes gRPC through uncached, so the policy only governs the behavior's non-gRPC "
                    "requests; CachingDisabled says what happens",
                    FIX,
                )
            methods = set(behavior.allowed_methods or ())
            if methods != ALL_METHODS and not behavior.methods_unknown:
                yield finding(RULE.id, Severity.ERROR, res, f"{where}: gRPC needs all methods (POST), AllowedMethods is {sorted(methods) or 'the default GET/HEAD'}", FIX)
            if (dist.http_version or "http1.1").lower() not in HTTP2 and not dist.http_version_unknown:
                yield finding(RULE.id, Severity.ERROR, res, f"{where}: HttpVersion {dist.http_version or 'unset (http1.1)'} has no HTTP/2; gRPC needs it", FIX)
            for origin in behavior.origins:
                if origin.protocol_policy_unknown:
                    continue  # decided at deploy time
                # "CloudFront only supports secure (HTTPS-based) gRPC connections. gRPC only supports
                # end-to-end HTTPS" (CloudFront developer guide, Using gRPC with CloudFront): a gRPC
                # viewer is HTTPS, so match-viewer connects to the origin with HTTPS too.
                if not (origin.custom or origin.vpc_origin is not None) or origin.protocol_policy not in HTTPS_TO_ORIGIN:
                    yield finding(
                        RULE.id, Severity.ERROR, res,
                        f"{where}: origin {origin.id} is not reached over HTTPS (OriginProtocolPolicy {origin.protocol_policy or 'unset'}; "
                        "https-only, or match-viewer for gRPC viewers, which are HTTPS)",
                        FIX,
                    )


#: Origin protocol policies that reach the origin with HTTPS for a gRPC (always HTTPS) viewer.
HTTPS_TO_ORIGIN = ("https-only", "match-viewer")


RULE = Rule(
    id="EO-CF1",
    lower="warning for a caching cache policy on a gRPC behavior (only its non-gRPC requests are cached)",
    severity=Severity.ERROR,
    title="gRPC behavior misconfigured",
    catches=(
        "A cache behavior with GrpcConfig.Enabled and AllowedMethods other than all, no HTTP/2 in HttpVersion, or an "
        "origin not reached over HTTPS (https-only, or match-viewer: gRPC viewers are HTTPS) (errors); one with a caching cache policy (a warning: CloudFront does not "
        "cache gRPC, so the policy affects only the behavior's other requests)."
    ),
    incident="CloudFront forwards gRPC only over HTTP/2 to HTTPS origins with POST allowed and no caching; otherwise calls fail at the edge.",
    fix=FIX,
    check=check,
)
