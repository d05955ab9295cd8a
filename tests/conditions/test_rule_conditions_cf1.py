"""EO-CF1: the whole message of each finding (what a user reads), a gRPC behavior after a non-gRPC one, and an
origin group whose first member's protocol policy is decided at deploy time (mutmut, issue 38)."""

from __future__ import annotations

from typing import Any

from worlds import behavior, dist_config, findings, origin, quiet, world

from edge_origin.core.findings import Severity
from edge_origin.rules.cf1_grpc_behavior import FIX

HTTPS = "(OriginProtocolPolicy http-only; https-only, or match-viewer for gRPC viewers, which are HTTPS)"


def _seen(body: dict[str, Any]) -> set[tuple[str, str, Severity, str, str]]:
    return {(f.rule, f.resource, f.severity, f.message, f.fix) for f in findings(body, "EO-CF1")}


def _group(body: dict[str, Any], first_policy: Any, second_policy: str) -> dict[str, Any]:
    """The default behavior targets an origin group of o (first) and p (second)."""
    config = dist_config(body)
    origin(body)["CustomOriginConfig"]["OriginProtocolPolicy"] = first_policy
    config["Origins"].append({"Id": "p", "DomainName": "p.example.com",
                              "CustomOriginConfig": {"OriginProtocolPolicy": second_policy}})
    config["OriginGroups"] = {"Quantity": 1, "Items": [{
        "Id": "g", "FailoverCriteria": {"StatusCodes": {"Quantity": 1, "Items": [503]}},
        "Members": {"Quantity": 2, "Items": [{"OriginId": "o"}, {"OriginId": "p"}]}}]}
    behavior(body)["TargetOriginId"] = "g"
    return body


def test_cf1_each_problem_of_the_default_behavior_reads_in_full() -> None:
    body = world()
    del dist_config(body)["HttpVersion"]
    behavior(body)["CachePolicyId"] = "658327ea-f89d-4fab-a63d-7e88639e58f6"  # CachingOptimized
    origin(body)["CustomOriginConfig"]["OriginProtocolPolicy"] = "http-only"
    assert _seen(body) == {
        ("EO-CF1", "Dist", Severity.WARNING,
         "Dist default behavior: gRPC behavior with a caching cache policy (658327ea-f89d-4fab-a63d-7e88639e58f6): "
         "CloudFront passes gRPC through uncached, so the policy only governs the behavior's non-gRPC requests; "
         "CachingDisabled says what happens", FIX),
        ("EO-CF1", "Dist", Severity.ERROR,
         "Dist default behavior: HttpVersion unset (http1.1) has no HTTP/2; gRPC needs it", FIX),
        ("EO-CF1", "Dist", Severity.ERROR, f"Dist default behavior: origin o is not reached over HTTPS {HTTPS}", FIX),
    }


def test_cf1_a_grpc_behavior_after_a_non_grpc_default_is_still_judged() -> None:
    body = world()
    grpc = dict(behavior(body), PathPattern="/svc.Api/*", AllowedMethods=["GET", "HEAD"])
    del behavior(body)["GrpcConfig"]
    dist_config(body)["CacheBehaviors"] = [grpc]
    assert _seen(body) == {
        ("EO-CF1", "Dist", Severity.ERROR,
         "Dist behavior /svc.Api/*: gRPC needs all methods (POST), AllowedMethods is ['GET', 'HEAD']", FIX),
    }


def test_cf1_a_deploy_time_protocol_policy_is_not_judged_for_that_origin_only() -> None:
    body = _group(world(), {"Ref": "Policy"}, "http-only")
    body["Parameters"] = {"Policy": {"Type": "String"}}
    seen = _seen(body)
    assert ("EO-CF1", "Dist", Severity.ERROR, f"Dist default behavior: origin p is not reached over HTTPS {HTTPS}", FIX) in seen
    (undecided,) = seen - {("EO-CF1", "Dist", Severity.ERROR, f"Dist default behavior: origin p is not reached over HTTPS {HTTPS}", FIX)}
    assert undecided[2] is Severity.WARNING  # origin o: not judged, never read as fine
    assert undecided[3].startswith("not judged: Dist default behavior origin o CustomOriginConfig.OriginProtocolPolicy: <Ref Policy>")


def test_cf1_an_origin_group_of_https_origins_is_quiet() -> None:
    quiet(_group(world(), "https-only", "match-viewer"), "EO-CF1")
