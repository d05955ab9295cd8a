"""EO-VPC4: a VPC origin's NLB reachable by more than CloudFront (EO-SEC1's meaning on this path)."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import SecurityGroupView, TemplateModel, display_value
from edge_origin.model.values import Unresolved, deploy_time
from edge_origin.model.views import IngressRule
from edge_origin.rules.base import Rule, finding, with_cdk
from edge_origin.rules.not_judged import not_judged, undecided, undecided_needs, undecided_reason
from edge_origin.rules.sec1_origin_verification import _is_cloudfront_list
from edge_origin.rules.vpc_paths import VpcOriginPath, vpc_origin_paths

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

FIX = with_cdk(
    "EO-VPC4",
    "Use an internal NLB (Scheme internal) whose security groups admit, on the listener port, only the CloudFront "
    "origin-facing prefix list (com.amazonaws.global.cloudfront.origin-facing) or the VPC origin's service security "
    "group (CloudFront-VPCOrigins-Service-SG); GrpcEdgeToOrigin(origin_access='vpc-origin') does.",
    'GrpcEdgeToOrigin(origin_access="vpc-origin") or OriginFleet(internet_facing=False, vpc_origin=True) (security group admitting the origin-facing prefix list only).',
)


def _covers(rule: IngressRule, ports: list[int]) -> bool | None:
    """Whether ``rule`` admits traffic on one of ``ports`` (every rule counts when no port is known); None when that
    rests on a protocol or port decided at deploy time. Decided where every value it may have gives one answer."""
    if not ports:
        return True
    if not rule.unknown:
        return any(rule.covers_port(p) for p in ports)
    if rule.protocol_unknown:
        return None  # may be -1 (every port) or tcp on these ports, or udp
    if rule.protocol in ("-1", "all"):
        return True  # every protocol and port, whatever the ports say
    if rule.protocol not in ("tcp", "6"):
        return False  # no TCP port, whatever the ports
    low, high = rule.from_port, rule.to_port  # one of them decided at deploy time (None)
    if low == -1 or high == -1:
        return None  # -1 to -1 is every port
    may = any((low is None or low <= p) and (high is None or p <= high) for p in ports)
    return None if may else False


def _source(rule: IngressRule, group: SecurityGroupView) -> tuple[str, bool] | None:
    """``(what the rule admits, decided)`` when it is not CloudFront (decided False: a prefix list decided at deploy
    time, which may be CloudFront's); None for CloudFront's list and for security-group sources."""
    where = group.resource.logical_id
    if rule.cidr_ip is not None or rule.cidr_ipv6 is not None:
        return f"{display_value(rule.cidr_ip or rule.cidr_ipv6)} in {where}", True
    if rule.prefix_list_id is not None and not _is_cloudfront_list(rule.prefix_list_id):
        return f"prefix list {display_value(rule.prefix_list_id)} in {where}", not deploy_time(rule.prefix_list_id)
    return None


def _other_sources(model: TemplateModel, lb) -> tuple[list[str], list[tuple[str, Any]]]:  # noqa: ANN001 - LoadBalancerView
    """(sources other than CloudFront admitted on a listener port; ``(source, value decided at deploy time)`` of the
    rules that may admit one: an ingress rule's protocol, ports or prefix list, a listener's Port, a security group
    or an ingress list decided at deploy time)."""
    ports = [li.port for li in lb.listeners if li.port is not None]
    port = next((raw for li in lb.listeners if li.port is None and deploy_time(raw := li.resource.properties.get("Port"))),
                None)
    out: list[str] = []
    undecided: list[tuple[str, Any]] = []
    for ref in lb.security_groups:
        group = model.view(ref)
        if not isinstance(group, SecurityGroupView):
            if isinstance(ref, Unresolved):
                undecided.append((f"what security group {display_value(ref)} admits", ref))
            continue  # a group outside the templates (a literal id) is not read here
        if group.ingress_unknown:
            undecided.append((f"what the ingress rules of {group.resource.logical_id} admit",
                              group.resource.properties.get("SecurityGroupIngress")))
        for rule in group.ingress:
            source = _source(rule, group)
            if source is None:
                continue
            element = rule.undecided
            tcp = rule.protocol_unknown or rule.protocol in ("tcp", "6")  # may admit some TCP port, not every one
            if not ports and port is not None:  # only an undecided port: decided for every port or none
                if not rule.unknown and rule.covers_port(1) and rule.covers_port(65535):
                    covers = True  # a range is contiguous: every port
                else:
                    covers = None if tcp else rule.protocol in ("-1", "all")
                element = port if rule.undecided is None else element
            else:
                covers = _covers(rule, ports)
                if covers is False and port is not None and tcp:
                    covers, element = None, port  # another listener's port, decided at deploy time, may be covered
            if covers is None:
                undecided.append((source[0], element))
            elif covers and source[1]:
                out.append(source[0])
            elif covers:
                undecided.append((source[0], rule.prefix_list_id))
    return out, undecided


def _not_judged(path: VpcOriginPath, lb, undecided: list[tuple[str, Any]]) -> Finding:  # noqa: ANN001 - LoadBalancerView
    element = undecided[0][1]
    sources = ", ".join(source for source, _ in undecided[:3]) + (f" and {len(undecided) - 3} more" if len(undecided) > 3 else "")
    return not_judged(
        RULE.id, Severity.WARNING,
        subject=f"{path.label}: load balancer {lb.resource.logical_id} admits {sources} on its listener port?",
        element=element,
        reason=f"{undecided_reason(element)}; it may admit them besides CloudFront, around the VPC origin",
        needs=undecided_needs(element), at=lb.resource,
    )


def check(model: TemplateModel) -> Iterator[Finding]:
    seen: set[tuple[str, str]] = set()
    for path in vpc_origin_paths(model):
        lb = path.load_balancer
        if lb is None or lb.resource.key in seen:
            continue
        seen.add(lb.resource.key)
        scheme = undecided(lb.resource.properties.get("Scheme"))
        if scheme is not None:
            yield not_judged(
                RULE.id, Severity.WARNING, subject=f"{path.label}: load balancer {lb.resource.logical_id} Scheme",
                element=scheme, reason=f"{undecided_reason(scheme)}; it may be internet-facing, reachable around CloudFront",
                needs=undecided_needs(scheme), at=lb.resource,
            )
        elif lb.scheme == "internet-facing":
            yield finding(
                RULE.id, RULE.severity, lb.resource,
                f"{path.label}: load balancer {lb.resource.logical_id} is internet-facing: the VPC origin does not take "
                "away its public addresses, so the origin stays reachable around CloudFront (and EO-SEC1 applies)",
                FIX,
            )
        others, undecided_sources = _other_sources(model, lb)
        if others:
            yield finding(
                RULE.id, RULE.severity, lb.resource,
                f"{path.label}: load balancer {lb.resource.logical_id} admits {', '.join(others[:3])}"
                f"{f' and {len(others) - 3} more' if len(others) > 3 else ''} on its listener port besides CloudFront: "
                "the origin is not reachable only through the VPC origin",
                FIX,
            )
        if undecided_sources:
            yield _not_judged(path, lb, undecided_sources)


RULE = Rule(
    id="EO-VPC4",
    severity=Severity.WARNING,
    title="VPC origin NLB reachable around CloudFront",
    catches=(
        "An NLB behind a VPC origin that is internet-facing, or whose security groups admit CIDRs or prefix lists other "
        "than CloudFront's origin-facing list on a listener port. Not judged (a warning naming the value): a Scheme, an "
        "ingress rule's protocol or ports, a prefix list, a security group, an ingress list or a listener Port decided "
        "at deploy time where it may open the NLB around CloudFront. On this path EO-SEC1 does not fire for an internal NLB: "
        "only VPC origins of the account (or shared with it) reach it, not every CloudFront customer; the origin "
        "verification header still tells this distribution from the account's others."
    ),
    incident="A private origin that was not: reachable from the VPC or the internet, around the WAF and logs of the edge.",
    fix=FIX,
    check=check,
)
