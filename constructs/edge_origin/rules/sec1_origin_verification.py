"""EO-SEC1: an NLB open to every CloudFront distribution, reached by an origin that does not verify itself."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache

from edge_origin.core.findings import Finding, Severity
from edge_origin.core.origin_verification import METADATA_KEY, verification_status
from edge_origin.data import cloudfront_origin_facing_prefix_lists
from edge_origin.model import (
    BehaviorView,
    DistributionView,
    LoadBalancerView,
    OriginView,
    Resource,
    SecurityGroupView,
    TemplateModel,
    display_value,
)
from edge_origin.model.values import Unresolved
from edge_origin.rules.base import Rule, finding, with_cdk
from edge_origin.rules.cf_undecided import target_element, undecided

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
    found = _admitted_on_a_listener_port(model, lb, lambda listed, _rule: _is_cloudfront_list(listed))
    return None if found is None else (display_value(found[0]), found[1])


def maybe_cloudfront_ingress(model: TemplateModel, lb: LoadBalancerView) -> tuple[Any, int | None] | None:
    """(prefix list as written, port) when the NLB's security groups admit, on a listener port, a prefix list
    decided at deploy time (a parameter without Default, an import, an undecidable condition): it may be
    CloudFront's origin-facing list. A ``Ref`` to a prefix list of the templates is the customer's own: not CloudFront's."""

    def may_be_cloudfront_s(listed: Any, rule: Any) -> bool:
        if not isinstance(listed, Unresolved) or _is_cloudfront_list(listed):
            return False
        mapped = _mapped_values(model, rule.source.stack, listed)
        # a mapping by an undecided key whose every value is another list: decided, not CloudFront's
        return mapped is None or bool(mapped & _cloudfront_lists())

    return _admitted_on_a_listener_port(model, lb, may_be_cloudfront_s)


def _admitted_on_a_listener_port(model: TemplateModel, lb: LoadBalancerView,
                                 admits: Callable[[Any, Any], bool]) -> tuple[Any, int | None] | None:
    """(prefix list as written, port) of the first ingress rule of the NLB's security groups whose prefix list
    ``admits`` (given the list and the rule) and that covers a listener port (port None: the listeners are not in the templates)."""
    ports = [li.port for li in lb.listeners if li.port is not None]
    for ref in lb.security_groups:
        group = model.view(ref)
        if not isinstance(group, SecurityGroupView):
            continue
        for rule in group.ingress:
            listed = rule.prefix_list_id
            if listed is None or not admits(listed, rule):
                continue
            for port in ports or [None]:
                if port is None or rule.covers_port(port):
                    return listed, port
    return None


def _mapped_values(model: TemplateModel, stack: str, value: Unresolved) -> frozenset[Any] | None:
    """Every value an ``Fn::FindInMap`` whose top-level key is decided at deploy time (``AWS::Region`` of an
    environment-agnostic stack) may give: the named second-level key under every top-level key of the map (the
    model shows it as ``Fn::FindInMap Map/<key>/Name``); None when the expression is not such a lookup."""
    parts = value.expr.removeprefix("Fn::FindInMap ").split("/") if value.expr.startswith("Fn::FindInMap ") else []
    if len(parts) != 3 or "<" in parts[0] + parts[2]:
        return None
    loaded = model.templates.get(stack)
    table = (loaded.body.get("Mappings") or {}).get(parts[0]) if loaded is not None else None
    if not isinstance(table, dict) or not all(isinstance(row, dict) and parts[2] in row for row in table.values()):
        return None
    values = [row[parts[2]] for row in table.values()]
    return frozenset(values) if all(isinstance(v, str) for v in values) else None


def _header_parameter(model: TemplateModel, dist: Resource, value: Any) -> tuple[str, bool] | None:
    """(name, NoEcho) when the header's value is a ``Ref`` to a parameter of the distribution's template without
    Default (``Ref P`` as the model shows it); None for any other value."""
    expr = value.expr if isinstance(value, Unresolved) and value.reason == "parameter" else ""
    name = expr[4:] if expr.startswith("Ref ") else ""
    loaded = model.templates.get(dist.stack)
    params = loaded.body.get("Parameters") if loaded is not None else None
    param = params.get(name) if isinstance(params, dict) and name and " " not in name else None
    if not isinstance(param, dict):
        return None
    return name, str(param.get("NoEcho", "false")).lower() == "true"


def _unverified(model: TemplateModel, dist: Resource, origin: OriginView, declared: Any) -> tuple[str, str, Any]:
    """("", "", None): the origin verifies itself; ("judged", problem, None): it does not (the problem in words);
    ("not judged", header, (value, why)): its verification header's value is decided at deploy time; why that
    leaves it not judged.

    A header whose value is a ``Ref`` to a parameter without NoEcho is NOT verification: CloudFormation returns
    the value of such a parameter in DescribeStacks (and the console's Parameters tab) to anyone who may describe
    the stack ("NoEcho: Whether to mask the parameter value [...] CloudFormation returns the parameter value
    masked as asterisks (*****) for any calls that describe the stack or stack events", CloudFormation user
    guide, Parameters): the secret is readable outside the pods, like a plaintext value, so the rule still fires.
    A NoEcho parameter, an import, a condition or any other deploy-time value: whether it is a kept secret is
    outside the templates (AWS recommends dynamic references, not NoEcho parameters, for secrets): not judged."""
    status = verification_status(origin.custom_headers, declared)
    if status.state == "deploy-time":
        value = origin.custom_headers.get(status.header)
        param = _header_parameter(model, dist, value)
        if param is not None and not param[1]:
            return "judged", (
                f"sends verification header {status.header} from stack parameter {param[0]}, which is not NoEcho "
                "(DescribeStacks returns its value to anyone who may describe the stack: use a Secrets Manager "
                "dynamic reference)"), None
        kept = (f"the NoEcho parameter {param[0]} is masked in DescribeStacks, but whether its value is a secret kept "
                "and rotated outside the stack is not known") if param is not None else \
            "whether the value is a secret kept from the stack's readers is not known"
        return "not judged", status.header, (value, kept)
    if status.verified:
        return "", "", None
    if status.state == "parameter":
        return "judged", (
            f"sends verification header {status.header} from a plain SSM parameter "
            "(readable by anyone with ssm:GetParameter: use SecureString or Secrets Manager)"), None
    if status.state == "plaintext":
        return "judged", (
            f"sends verification header {status.header} with a plaintext value in the template "
            "(anyone who reads the template, the stack or the distribution config has it)"), None
    return "judged", "sends no origin verification header", None


def _judge(model: TemplateModel, dist: DistributionView, behavior: BehaviorView, origin: OriginView,
           declared: Any) -> Finding | None:
    """The origin's finding through this behavior (judged or not judged), or None (quiet, or not this rule's)."""
    lbs = model.load_balancers_for_origin(origin)
    kind = "gRPC" if behavior.grpc_enabled else "long-lived"
    if not behavior.grpc_enabled:
        lbs = [lb for lb in lbs if lb.is_network]
    if origin.vpc_origin_id is not None:  # only the account's VPC origins reach an internal NLB (EO-VPC4)
        lbs = [lb for lb in lbs if lb.scheme != "internal"]
    open_lbs = [(lb, ingress) for lb in lbs if (ingress := cloudfront_ingress(model, lb)) is not None]
    maybe = [] if open_lbs else [(lb, found) for lb in lbs if (found := maybe_cloudfront_ingress(model, lb)) is not None]
    if not open_lbs and not maybe:
        return None
    said, text, value = _unverified(model, dist.resource, origin, declared)
    if not said:
        return None
    where = f"origin {origin.id} ({kind}, {display_value(origin.domain_name)})"
    if maybe:
        lb, (listed, port) = maybe[0]
        on_port = f" on port {port}" if port is not None else ""
        origin_says = text if said == "judged" else "its verification header's value is decided at deploy time too"
        return undecided(RULE.id, dist, f"{where}: NLB {lb.resource.logical_id} SourcePrefixListId", listed,
                         f"it may be CloudFront's origin-facing prefix list{on_port} (every distribution of every AWS "
                         f"customer), and the origin {origin_says}")
    lb, (prefix_list, port) = open_lbs[0]
    more = f" (and {len(open_lbs) - 1} more NLB(s))" if len(open_lbs) > 1 else ""
    on_port = f" on port {port}" if port is not None else ""
    if said == "not judged":
        value, kept = value
        return undecided(RULE.id, dist, f"{where}: OriginCustomHeaders {text} HeaderValue", value,
                         f"NLB {lb.resource.logical_id}{more} admits CloudFront's origin-facing prefix list "
                         f"{prefix_list}{on_port}: {kept}",
                         needs="send the header's value from a Secrets Manager dynamic reference "
                               "({{resolve:secretsmanager:<secret arn>:SecretString:current::<version id>}})")
    return finding(
        RULE.id, RULE.severity, dist.resource,
        f"{dist.resource.logical_id} {where}: "
        f"NLB {lb.resource.logical_id}{more} admits CloudFront's origin-facing prefix list {prefix_list}{on_port}, "
        f"which is every distribution of every AWS customer, and the origin {text}: "
        "anyone's distribution reaches the pods around this one's WAF, geo rules and logs",
        FIX,
    )


def check(model: TemplateModel) -> Iterator[Finding]:
    for dist in model.distributions:
        meta = dist.resource.metadata.get(METADATA_KEY)
        declared = meta.get("header") if isinstance(meta, dict) else None
        seen: set[str] = set()
        for behavior in dist.behaviors:
            for origin in behavior.origins:
                if origin.id in seen:
                    continue
                found = _judge(model, dist, behavior, origin, declared)
                if found is not None:
                    seen.add(origin.id)
                    yield found
        for behavior in dist.behaviors:  # targets decided at deploy time: not judged where an origin would fire
            for origin in behavior.target_candidates:
                if origin.id not in seen and _judge(model, dist, behavior, origin, declared) is not None:
                    seen.add(origin.id)
                    subject, value = target_element(behavior, origin)
                    yield undecided(RULE.id, dist, subject, value,
                                    f"it may name origin {origin.id}, reachable from any CloudFront distribution")


RULE = Rule(
    id="EO-SEC1",
    severity=Severity.WARNING,
    title="Origin reachable from any CloudFront distribution",
    catches=(
        "A gRPC or long-lived CloudFront origin whose NLB security group admits the CloudFront origin-facing "
        "prefix list, and whose distribution origin sends no verification header, or sends one with a "
        "plaintext value in the template (the finding names the header, never its value). A header whose "
        "value is a Secrets Manager (or SSM SecureString) dynamic reference verifies the origin. A value that is a "
        "Ref to a parameter without NoEcho fires too (DescribeStacks returns it to anyone who may describe the "
        "stack); a NoEcho parameter, an import or an undecidable condition is not judged (warning: whether it is a "
        "secret kept from the stack's readers is outside the templates), and so is an ingress SourcePrefixListId "
        "decided at deploy time (it may be CloudFront's list)."
    ),
    incident=(
        "The origin-facing prefix list is every CloudFront edge serving every customer: anyone can create a "
        "distribution pointed at the origin name or an EIP and reach the pods through it, bypassing the WAF, "
        "geo restriction and access logs of ours; an L4 NLB cannot tell distributions apart."
    ),
    fix=FIX,
    check=check,
)
