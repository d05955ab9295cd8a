"""EO-CF4: a custom origin's keepalive or read timeout outside the API's own limits (error) or above its default
quota (warning).

botocore cloudfront ``CustomOriginConfig.OriginReadTimeout`` / ``OriginKeepaliveTimeout``: "The minimum timeout is 1
second, the maximum is 120 seconds" (the facts table's ``cloudfront.origin_read_timeout``,
``cloudfront.origin_keepalive_timeout``); CloudFront's quotas page makes both maximums adjustable quotas ("Response
timeout per origin", "Keep-alive timeout per origin"). So whole seconds from 1 is the API's limit (below: an
error), and above 120 s is a quota to raise before deploying (a warning naming it, never an error: issue 52).
VPC origins are EO-VPC1's. A value decided at deploy time is not judged.
"""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel
from edge_origin.profile import hops
from edge_origin.profile.hops import PathHop
from edge_origin.rules.base import Rule, finding, with_cdk
from edge_origin.rules.not_judged import not_judged

FIX = with_cdk(
    "EO-CF4",
    "Keep OriginKeepaliveTimeout and OriginReadTimeout whole seconds from 1 and within the default quotas (120 s), "
    "or request the quota increases ('Keep-alive timeout per origin', 'Response timeout per origin'; Service "
    "Quotas, CloudFront, us-east-1) before deploying.",
    "`HttpOrigin(keepalive_timeout=Duration.seconds(N), read_timeout=Duration.seconds(N))`; GrpcEdgeToOrigin takes "
    "both from the connection profile (cloudfront_extended_timeouts when the quotas are raised).",
)
FIELDS = (("OriginKeepaliveTimeout", "keepalive"), ("OriginReadTimeout", "read"))


def check(model: TemplateModel) -> Iterator[Finding]:
    for dist in model.distributions:
        res = dist.resource
        for origin in dist.origins:
            custom = origin.raw.get("CustomOriginConfig")
            if not origin.custom or origin.vpc_origin_id is not None or not isinstance(custom, dict):
                continue
            for field, kind in FIELDS:
                if field not in custom:
                    continue  # unset: the default (5 s, 30 s)
                value = origin.keepalive_timeout if kind == "keepalive" else origin.read_timeout
                if value is None:
                    yield not_judged(
                        RULE.id, Severity.WARNING, subject=f"{res.logical_id} origin {origin.id} {field}",
                        element=custom[field], reason="decided at deploy time",
                        needs=f"a literal {field} (whole seconds from 1; above 120 s a quota increase)",
                        at=res,
                    )
                    continue
                problem = hops.origin_timeout_problem(kind, value)
                if problem is not None:
                    yield finding(
                        RULE.id, problem[0], res,
                        PathHop.CLOUDFRONT_TO_NLB.says(f"{res.logical_id} origin {origin.id}: CustomOriginConfig {field} {problem[1]}"),
                        FIX,
                    )


RULE = Rule(
    id="EO-CF4",
    severity=Severity.ERROR,
    lower="warning above the default quota (120 s), which is raised on request",
    title="Custom origin timeouts outside the API's limits or above their default quota",
    catches=(
        "A CloudFront custom origin whose OriginKeepaliveTimeout or OriginReadTimeout is below 1 s (the API's own "
        "limit: an error) or above the default quota of 120 s ('Keep-alive timeout per origin', 'Response timeout "
        "per origin': adjustable, so a warning naming the quota to raise before deploying). VPC origins: EO-VPC1. "
        "A value decided at deploy time is not judged."
    ),
    incident="An origin read timeout raised for long gRPC streams was refused at deploy: the account's quota was the default.",
    fix=FIX,
    check=check,
    facts=("cloudfront.origin_keepalive_timeout", "cloudfront.origin_read_timeout"),
)
