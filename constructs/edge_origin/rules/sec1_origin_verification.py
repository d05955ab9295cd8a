"""EO-SEC1: an NLB open to every CloudFront distribution, reached by an origin that does not verify itself."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from edge_origin.core.findings import Finding, Severity
from edge_origin.core.origin_verification import METADATA_KEY, verification_status
from edge_origin.data import cloudfront_origin_facing_prefix_lists
from edge_origin.model import LoadBalancerView, SecurityGroupView, TemplateModel, display_value
from edge_origin.rules.base import Rule, finding, with_cdk

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

# The CfnMapping OriginFleet writes for environment-agnostic stacks (region -> prefix list id).
CLOUDFRONT_MAPPING = "EdgeOriginCloudFrontOriginFacing"
FIX = with_cdk(
    "EO-SEC1",
    "Send a secret origin header from this distribution and check it on the pods: GrpcEdgeToOrigin does by "
    "default (origin_verification=OriginVerification(...)); by hand, add OriginCustomHeaders "
    "[{HeaderName: x-origin-verify, HeaderValue: '{{resolve:secretsmanager:<secret arn>:SecretString:current::<version id>}}'}] "
    "(a dynamic reference, never the value) and run the rendered interceptor on the pods "
    "(edge-origin profile render --lang python-interceptor|go-interceptor|java-interceptor).",
    'GrpcEdgeToOrigin(origin_verification=OriginVerification(...)) (on by default) or GrpcEdgeDistribution(origin_verification=); by hand `HttpOrigin(custom_headers={...})` with a Secrets Manager dynamic reference.',
)


@cache
def _cloudfront_lists() -> frozenset[str]:
    return frozenset(entry["id"] for entry in cloudfront_origin_facing_prefix_lists().values())


def _is_cloudfront_list(value: Any) -> bool:
    if isinstance(value, str):
        return value in _cloudfront_lists()
    expr = getattr(value, "expr", None)
    return isinstance(expr, str) and CLOUDFRONT_MAPPING in expr


def cloudfront_ingress(model: TemplateModel, lb: LoadBalancerView) -> tuple[str, int | None] | None:
    """(prefix list, port) when the NLB's security groups admit CloudFront's origin-facing list on a
    listener port (any port when the listeners are not in the templates); else None."""
    ports = [li.port for li in lb.listeners if li.port is not None]
    for ref in lb.security_groups:
        group = model.view(ref)
        if not isinstance(group, SecurityGroupView):
            continue
        for rule in group.ingress:
            if rule.prefix_list_id is None or not _is_cloudfront_list(rule.prefix_list_id):
                continue
            if not ports:
                return display_value(rule.prefix_list_id), None
            for port in ports:
                if rule.covers_port(port):
                    return display_value(rule.prefix_list_id), port
    return None


def check(model: TemplateModel) -> Iterator[Finding]:
    for dist in model.distributions:
        meta = dist.resource.metadata.get(METADATA_KEY)
        declared = meta.get("header") if isinstance(meta, dict) else None
        seen: set[str] = set()
        for behavior in dist.behaviors:
            for origin in behavior.origins:
                if origin.id in seen:
                    continue
                lbs = model.load_balancers_for_origin(origin)
                kind = "gRPC" if behavior.grpc_enabled else "long-lived"
                if not behavior.grpc_enabled:
                    lbs = [lb for lb in lbs if lb.is_network]
                if origin.vpc_origin_id is not None:  # only the account's VPC origins reach an internal NLB (EO-VPC4)
                    lbs = [lb for lb in lbs if lb.scheme != "internal"]
                open_lbs = [(lb, ingress) for lb in lbs if (ingress := cloudfront_ingress(model, lb)) is not None]
                if not open_lbs:
                    continue
                seen.add(origin.id)
                status = verification_status(origin.custom_headers, declared)
                if status.verified:
                    continue
                lb, (prefix_list, port) = open_lbs[0]
                more = f" (and {len(open_lbs) - 1} more NLB(s))" if len(open_lbs) > 1 else ""
                on_port = f" on port {port}" if port is not None else ""
                if status.state == "parameter":
                    problem = (
                        f"sends verification header {status.header} from a plain SSM parameter "
                        "(readable by anyone with ssm:GetParameter: use SecureString or Secrets Manager)"
                    )
                elif status.state == "plaintext":
                    problem = (
                        f"sends verification header {status.header} with a plaintext value in the template "
                        "(anyone who reads the template, the stack or the distribution config has it)"
                    )
                else:
                    problem = "sends no origin verification header"
                yield finding(
                    RULE.id, RULE.severity, dist.resource,
                    f"{dist.resource.logical_id} origin {origin.id} ({kind}, {display_value(origin.domain_name)}): "
                    f"NLB {lb.resource.logical_id}{more} admits CloudFront's origin-facing prefix list {prefix_list}{on_port}, "
                    f"which is every distribution of every AWS customer, and the origin {problem}: "
                    "anyone's distribution reaches the pods around this one's WAF, geo rules and logs",
                    FIX,
                )


RULE = Rule(
    id="EO-SEC1",
    severity=Severity.WARNING,
    title="Origin reachable from any CloudFront distribution",
    catches=(
        "A gRPC or long-lived CloudFront origin whose NLB security group admits the CloudFront origin-facing "
        "prefix list, and whose distribution origin sends no verification header, or sends one with a "
        "plaintext value in the template (the finding names the header, never its value). A header whose "
        "value is a Secrets Manager (or SSM SecureString) dynamic reference verifies the origin."
    ),
    incident=(
        "The origin-facing prefix list is every CloudFront edge serving every customer: anyone can create a "
        "distribution pointed at the origin name or an EIP and reach the pods through it, bypassing the WAF, "
        "geo restriction and access logs of ours; an L4 NLB cannot tell distributions apart."
    ),
    fix=FIX,
    check=check,
)
