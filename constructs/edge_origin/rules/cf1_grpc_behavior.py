"""EO-CF1: a gRPC behavior with caching, limited methods, no HTTP/2, or a non-HTTPS origin."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import (
    CACHING_DISABLED_POLICY_ID,
    BehaviorView,
    DistributionView,
    OriginView,
    ResourceRef,
    TemplateModel,
    as_int,
    display_value,
    props_of,
)
from edge_origin.model.values import deploy_time
from edge_origin.rules.base import Rule, finding, with_cdk
from edge_origin.rules.cf_undecided import target_element, undecided

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

ALL_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"})
HTTP2 = frozenset({"http2", "http2and3"})
FIX = with_cdk(
    "EO-CF1",
    "For gRPC behaviors: CachePolicyId 4135ea2d-6df8-44a3-9df3-4b5a84be39ad (CachingDisabled), AllowedMethods all 7, "
    "HttpVersion http2 or http2and3, origin OriginProtocolPolicy https-only.",
    '`cloudfront.BehaviorOptions(enable_grpc=True, allowed_methods=AllowedMethods.ALLOW_ALL, cache_policy=CachePolicy.CACHING_DISABLED)` with `HttpOrigin(protocol_policy=OriginProtocolPolicy.HTTPS_ONLY)`, `Distribution(http_version=HttpVersion.HTTP2_AND_3)`; GrpcEdgeDistribution / GrpcEdgeToOrigin set all of these.',
)


def _caching(model: TemplateModel, behavior: BehaviorView) -> tuple[bool | None, str, Any]:
    """(does the behavior's cache policy cache, what was not decided, its value): (None, "", None) when there is
    nothing to judge; (None, path, value) when a value it rests on is decided at deploy time."""
    policy = behavior.cache_policy_id
    if isinstance(policy, str):
        return policy != CACHING_DISABLED_POLICY_ID, "", None
    if isinstance(policy, ResourceRef):
        res = model.target(policy)
        if res is None or res.type != "AWS::CloudFront::CachePolicy":
            return None, "", None
        cfg = props_of(res).mapping("CachePolicyConfig")
        # MinTTL is not read: MaxTTL >= MinTTL, so a positive MinTTL already shows in MaxTTL
        ttls = {key: cfg.int(key) for key in ("DefaultTTL", "MaxTTL")}
        if any(t is not None and t > 0 for t in ttls.values()):
            return True, "", None  # caches, whatever the other TTL is
        for key in ttls:
            if deploy_time(cfg.raw(key)):
                return None, f"cache policy {res.logical_id} CachePolicyConfig.{key}", cfg.raw(key)
        return any(t is None for t in ttls.values()), "", None
    if deploy_time(policy):
        return None, "CachePolicyId", policy
    if policy is None and behavior.forwarded_values is not None:
        raw = {k: behavior.raw.get(k) for k in ("DefaultTTL", "MaxTTL")}
        ttls = [as_int(v) for v in raw.values() if not deploy_time(v)]
        if any(t != 0 for t in ttls):
            return True, "", None  # legacy defaults: DefaultTTL 86400 (absent: caches, whatever the other is)
        undecided_ttl = next((k for k, v in raw.items() if deploy_time(v)), None)
        if undecided_ttl is not None:
            return None, undecided_ttl, raw[undecided_ttl]
        return False, "", None
    return None, "", None


def _methods(where: str, behavior: BehaviorView) -> tuple[str, str, Any]:
    """("error", message, None) when the behavior cannot allow every method, ("not judged", path, value) when
    that is decided at deploy time, ("", "", None) when it allows all 7."""
    listed = behavior.raw.get("AllowedMethods")
    if deploy_time(listed):
        return "not judged", "AllowedMethods", listed
    if behavior.methods_unknown and isinstance(listed, list):
        # Some items are decided at deploy time: judged as the literal list is (its set of methods is all 7), over
        # every method each undecided item may be. Literal items that are no method, or more methods missing than
        # undecided items, can never make all 7 (still an error); none missing: all 7 whatever they are (fine).
        literal = {m.upper() for m in listed if isinstance(m, str)}
        undecided_items = [m for m in listed if deploy_time(m)]
        missing = ALL_METHODS - literal
        if literal - ALL_METHODS or len(missing) > len(undecided_items):
            return "error", (f"{where}: gRPC needs all methods (POST), AllowedMethods is [{display_value(listed)}]: "
                             f"never all 7, whatever its items decided at deploy time are"), None
        if not missing:
            return "", "", None
        return "not judged", f"AllowedMethods[{listed.index(undecided_items[0])}]", undecided_items[0]
    methods = set(behavior.allowed_methods or ())
    if methods != ALL_METHODS:
        return "error", f"{where}: gRPC needs all methods (POST), AllowedMethods is {sorted(methods) or 'the default GET/HEAD'}", None
    return "", "", None


def _origin(where: str, origin: OriginView) -> tuple[str, str, Any]:
    """("error", message, None) when the origin is not reached over HTTPS, ("not judged", path, value) when its
    protocol policy is decided at deploy time, ("outside", path, id) when it lives in a VPC origin outside the
    templates (a literal VpcOriginId), else empty."""
    if origin.protocol_policy_unknown:
        if origin.vpc_origin_id is not None:
            vpc = origin.vpc_origin
            if vpc is None:
                return "outside" if not deploy_time(origin.vpc_origin_id) else "not judged", \
                    f"origin {origin.id} VpcOriginConfig.VpcOriginId", origin.vpc_origin_id
            cfg = vpc.resource.properties.get("VpcOriginEndpointConfig")
            value = cfg.get("OriginProtocolPolicy") if isinstance(cfg, dict) else cfg
            return "not judged", f"VPC origin {vpc.resource.logical_id} OriginProtocolPolicy", value
        cfg = origin.raw.get("CustomOriginConfig")
        value = cfg.get("OriginProtocolPolicy") if isinstance(cfg, dict) else cfg
        return "not judged", f"origin {origin.id} CustomOriginConfig.OriginProtocolPolicy", value
    # "CloudFront only supports secure (HTTPS-based) gRPC connections. gRPC only supports
    # end-to-end HTTPS" (CloudFront developer guide, Using gRPC with CloudFront): a gRPC
    # viewer is HTTPS, so match-viewer connects to the origin with HTTPS too.
    if not (origin.custom or origin.vpc_origin is not None) or origin.protocol_policy not in HTTPS_TO_ORIGIN:
        return "error", (f"{where}: origin {origin.id} is not reached over HTTPS (OriginProtocolPolicy "
                         f"{origin.protocol_policy or 'unset'}; https-only, or match-viewer for gRPC viewers, which are HTTPS)"), None
    return "", "", None


def _judge(model: TemplateModel, dist: DistributionView, behavior: BehaviorView) -> Iterator[Finding]:
    """The findings of ``behavior`` as a gRPC behavior: judged, or not judged where a value is decided at deploy time."""
    res = dist.resource
    where = f"{res.logical_id} {behavior.label}"
    caching, path, value = _caching(model, behavior)
    if caching:
        yield finding(
            RULE.id, Severity.WARNING, res,
            f"{where}: gRPC behavior with a caching cache policy ({display_value(behavior.cache_policy_id)}): "
            "CloudFront passes gRPC through uncached, so the policy only governs the behavior's non-gRPC "
            "requests; CachingDisabled says what happens",
            FIX,
        )
    elif path:
        yield undecided(RULE.id, dist, f"{behavior.label} {path}", value, "a caching policy caches the behavior's non-gRPC requests")
    said, text, value = _methods(where, behavior)
    if said == "error":
        yield finding(RULE.id, Severity.ERROR, res, text, FIX)
    elif said:
        yield undecided(RULE.id, dist, f"{behavior.label} {text}", value, "gRPC needs all 7 methods (POST)")
    if dist.http_version_unknown:
        raw = props_of(res).mapping("DistributionConfig").raw("HttpVersion")
        yield undecided(RULE.id, dist, "HttpVersion", raw, f"gRPC ({behavior.label}) needs http2 or http2and3")
    elif (dist.http_version or "http1.1").lower() not in HTTP2:
        yield finding(RULE.id, Severity.ERROR, res, f"{where}: HttpVersion {dist.http_version or 'unset (http1.1)'} has no HTTP/2; gRPC needs it", FIX)
    for origin in behavior.origins:
        said, text, value = _origin(where, origin)
        if said == "error":
            yield finding(RULE.id, Severity.ERROR, res, text, FIX)
        elif said:
            yield undecided(RULE.id, dist, f"{behavior.label} {text}", value, "gRPC needs an origin reached over HTTPS",
                            needs="check the template that creates the VPC origin together with this one"
                            if said == "outside" else "",
                            why="a VPC origin outside these templates: its OriginProtocolPolicy is not in them"
                            if said == "outside" else "")
    for origin in behavior.target_candidates:
        if _origin(where, origin)[0]:
            subject, value = target_element(behavior, origin)
            yield undecided(RULE.id, dist, subject, value,
                            f"it may name origin {origin.id}, which is not (or not surely) reached over HTTPS, as gRPC needs")
            break


def check(model: TemplateModel) -> Iterator[Finding]:
    for dist in model.distributions:
        for behavior in dist.behaviors:
            if behavior.grpc_enabled:
                yield from _judge(model, dist, behavior)
            elif behavior.grpc_unknown and next(_judge(model, dist, behavior), None) is not None:
                # Whether it is a gRPC behavior is decided at deploy time, and as one it has findings: not judged.
                grpc = behavior.raw.get("GrpcConfig")
                value = grpc.get("Enabled") if isinstance(grpc, dict) else grpc
                yield undecided(RULE.id, dist, f"{behavior.label} GrpcConfig.Enabled", value,
                                "as a gRPC behavior it has findings of this rule (cache policy, methods, HTTP/2, HTTPS origin)")


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
        "cache gRPC, so the policy affects only the behavior's other requests). A value these rest on that is decided "
        "at deploy time (HttpVersion, OriginProtocolPolicy or a VPC origin outside the templates, CachePolicyId, AllowedMethods, GrpcConfig.Enabled, the "
        "behavior's target origin) is not judged (warning), but an AllowedMethods list that cannot hold all 7 whatever "
        "its undecided items are still fires."
    ),
    incident="CloudFront forwards gRPC only over HTTP/2 to HTTPS origins with POST allowed and no caching; otherwise calls fail at the edge.",
    fix=FIX,
    check=check,
)
