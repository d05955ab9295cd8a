"""``preflight``: before ``cdk deploy``, what the templates create against the account's quotas.

Quotas checked (each with its code, the limit, what is in use, what the templates need):

- Elastic IPs per region: Service Quotas ``ec2`` L-0263D0A3 where it answers, else EC2
  ``describe_account_attributes`` ``vpc-max-elastic-ips``; in use: ``describe_addresses``.
- Route 53 health checks per account: ``get_account_limit`` MAX_HEALTH_CHECKS_BY_OWNER (limit and count).
- Network load balancers per region: ELBv2 ``describe_account_limits`` ``network-load-balancers``,
  else Service Quotas ``elasticloadbalancing`` L-69A177A2; in use: ``describe_load_balancers``.
- Inbound rules per security group: Service Quotas ``vpc`` L-0EA8095F, per group of the templates
  (IPv4 and IPv6 counted apart); a managed prefix list weighs its max entries (the CloudFront
  origin-facing list 55, others from ``describe_managed_prefix_lists``); a rule added to an existing
  group (literal ``GroupId``) counts with that group's current rules.

A quota that cannot be read is "not checked", never fine: ``ok`` is True only when every needed
quota was read and fits. Only List/Describe/Get calls are made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import botocore.exceptions

from edge_origin.data import cloudfront_origin_facing_prefix_lists
from edge_origin.live.account import ClientSource
from edge_origin.live.optional import why_not_read
from edge_origin.live.paging import PagingError, paginate
from edge_origin.model import IngressRule, TemplateModel, load_model
from edge_origin.model.views import props_of

OK, EXCEEDED, NOT_CHECKED = "ok", "exceeded", "not checked"
EIP_QUOTA = ("Elastic IP addresses per region", "L-0263D0A3")
HC_QUOTA = ("Route 53 health checks per account", "MAX_HEALTH_CHECKS_BY_OWNER")
NLB_QUOTA = ("Network Load Balancers per region", "L-69A177A2")
SG_QUOTA = ("Inbound rules per security group", "L-0EA8095F")


@dataclass(frozen=True)
class QuotaCheck:
    quota: str
    code: str
    scope: str
    needed: int
    limit: int | None = None
    in_use: int | None = None
    status: str = NOT_CHECKED
    source: str = ""
    reason: str = ""

    def line(self) -> str:
        head = f"{self.status:<11} {self.quota} ({self.code}) {self.scope}"
        if self.status == NOT_CHECKED:
            return f"{head}: needed {self.needed}; limit not read ({self.reason})"
        free = (self.limit or 0) - (self.in_use or 0)
        return f"{head}: limit {self.limit}, in use {self.in_use}, needed {self.needed} ({free} free; {self.source})"


@dataclass
class PreflightResult:
    region: str
    checks: list[QuotaCheck] = field(default_factory=list)

    @property
    def exceeded(self) -> list[QuotaCheck]:
        return [c for c in self.checks if c.status == EXCEEDED]

    @property
    def not_checked(self) -> list[QuotaCheck]:
        return [c for c in self.checks if c.status == NOT_CHECKED]

    @property
    def ok(self) -> bool:
        return not self.exceeded and not self.not_checked

    def text(self) -> str:
        lines = [c.line() for c in self.checks]
        summary = f"{len(self.checks)} quota(s) in {self.region}: {len(self.exceeded)} exceeded, {len(self.not_checked)} not checked"
        lines.append(summary + (": all fit" if self.ok else ""))
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {"region": self.region, "ok": self.ok, "checks": [asdict(c) for c in self.checks]}


class _Quotas:
    def __init__(self, source: ClientSource) -> None:
        self.source = source

    def attempt(self, service: str, operation: str, fn: Any) -> tuple[Any, str]:
        """(result, "") or (None, the reason it could not be read)."""
        try:
            return fn(), ""
        except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError, PagingError) as exc:
            return None, str(why_not_read(exc, service, operation))

    def service_quota(self, service_code: str, quota_code: str) -> tuple[int | None, str]:
        sq = self.source.client("service-quotas")
        got, why = self.attempt("service-quotas", "GetServiceQuota",
                                lambda: sq.get_service_quota(ServiceCode=service_code, QuotaCode=quota_code))
        if got is None:
            return None, why
        return int(got["Quota"]["Value"]), ""


def _check(quota: tuple[str, str], scope: str, needed: int, limit: int | None, in_use: int | None, source: str, reason: str) -> QuotaCheck:
    name, code = quota
    if limit is None or in_use is None:
        return QuotaCheck(name, code, scope, needed, limit, in_use, NOT_CHECKED, source, reason)
    status = OK if in_use + needed <= limit else EXCEEDED
    return QuotaCheck(name, code, scope, needed, limit, in_use, status, source)


def _eips(q: _Quotas, needed: int, region: str) -> QuotaCheck:
    limit, why = q.service_quota("ec2", EIP_QUOTA[1])
    source = f"Service Quotas ec2 {EIP_QUOTA[1]}"
    if limit is None:
        ec2 = q.source.client("ec2")
        got, why2 = q.attempt("ec2", "DescribeAccountAttributes",
                              lambda: ec2.describe_account_attributes(AttributeNames=["vpc-max-elastic-ips"]))
        for attr in (got or {}).get("AccountAttributes", []):
            if attr.get("AttributeName") == "vpc-max-elastic-ips":
                limit = int(attr["AttributeValues"][0]["AttributeValue"])
                source = "EC2 account attribute vpc-max-elastic-ips"
        why = why2 or why if limit is None else ""
    ec2 = q.source.client("ec2")
    got, why3 = q.attempt("ec2", "DescribeAddresses", lambda: ec2.describe_addresses())
    in_use = None if got is None else len([a for a in got.get("Addresses", []) if a.get("Domain", "vpc") == "vpc"])
    return _check(EIP_QUOTA, region, needed, limit, in_use, source, why or why3)


def _health_checks(q: _Quotas, needed: int) -> QuotaCheck:
    route53 = q.source.client("route53")
    got, why = q.attempt("route53", "GetAccountLimit", lambda: route53.get_account_limit(Type="MAX_HEALTH_CHECKS_BY_OWNER"))
    if got is None:
        return _check(HC_QUOTA, "account", needed, None, None, "", why)
    return _check(HC_QUOTA, "account", needed, int(got["Limit"]["Value"]), int(got["Count"]), "Route 53 GetAccountLimit", "")


def _nlbs(q: _Quotas, needed: int, region: str) -> QuotaCheck:
    elbv2 = q.source.client("elbv2")
    limit, source = None, ""
    got, why = q.attempt("elbv2", "DescribeAccountLimits", lambda: [
        item for page in paginate(elbv2, "describe_account_limits") for item in page.get("Limits", [])
    ])
    for item in got or []:
        if item.get("Name") == "network-load-balancers":
            limit, source = int(float(item["Max"])), "ELBv2 DescribeAccountLimits network-load-balancers"
    if limit is None:
        limit, why2 = q.service_quota("elasticloadbalancing", NLB_QUOTA[1])
        source = f"Service Quotas elasticloadbalancing {NLB_QUOTA[1]}"
        why = why2 or why or "network-load-balancers not in DescribeAccountLimits"
    listed, why3 = q.attempt("elbv2", "DescribeLoadBalancers", lambda: [
        lb for page in paginate(elbv2, "describe_load_balancers") for lb in page.get("LoadBalancers", [])
    ])
    in_use = None if listed is None else sum(lb.get("Type") == "network" for lb in listed)
    return _check(NLB_QUOTA, region, needed, limit, in_use, source, why if limit is None else why3)


def _rule_weight(rule: IngressRule, prefix_weights: dict[str, int | None]) -> tuple[int, int] | None:
    """(IPv4 weight, IPv6 weight) of one ingress rule; None when a prefix list's weight is unknown."""
    if rule.prefix_list_id is not None:
        weight = prefix_weights.get(rule.prefix_list_id) if isinstance(rule.prefix_list_id, str) else None
        return None if weight is None else (weight, weight)
    if rule.cidr_ipv6 is not None:
        return (0, 1)
    return (1, 0)


def _security_groups(q: _Quotas, model: TemplateModel, region: str) -> list[QuotaCheck]:
    groups: dict[str, list[IngressRule]] = {}
    existing: dict[str, list[IngressRule]] = {}
    for view in model.security_groups:
        groups[f"{view.resource.stack}/{view.resource.logical_id}"] = list(view.ingress)
    for res in model.of_type("AWS::EC2::SecurityGroupIngress"):
        props = props_of(res)
        group_id = props.str("GroupId")
        if isinstance(group_id, str) and group_id.startswith("sg-"):
            existing.setdefault(group_id, []).append(TemplateModel._ingress(res, props))
    if not groups and not existing:
        return []
    weights: dict[str, int | None] = {e["id"]: int(e["weight"]) for e in cloudfront_origin_facing_prefix_lists().values()}
    others = sorted({
        r.prefix_list_id for rules in (*groups.values(), *existing.values()) for r in rules
        if isinstance(r.prefix_list_id, str) and r.prefix_list_id not in weights
    })
    if others:
        ec2 = q.source.client("ec2")
        got, _ = q.attempt("ec2", "DescribeManagedPrefixLists", lambda: [
            pl for page in paginate(ec2, "describe_managed_prefix_lists", PrefixListIds=others) for pl in page.get("PrefixLists", [])
        ])
        for pl in got or []:
            weights[pl["PrefixListId"]] = int(pl.get("MaxEntries") or 0)
    limit, why = q.service_quota("vpc", SG_QUOTA[1])
    source = f"Service Quotas vpc {SG_QUOTA[1]}"
    in_use_of: dict[str, tuple[int, int] | None] = dict.fromkeys(groups, (0, 0))
    if existing:
        ec2 = q.source.client("ec2")
        got, why_sg = q.attempt("ec2", "DescribeSecurityGroups", lambda: [
            g for page in paginate(ec2, "describe_security_groups", GroupIds=sorted(existing)) for g in page.get("SecurityGroups", [])
        ])
        by_id = {g["GroupId"]: g for g in got or []}
        for group_id in existing:
            group = by_id.get(group_id)
            if group is None:
                in_use_of[group_id] = None
                continue
            v4 = v6 = 0
            for perm in group.get("IpPermissions", []):
                v4 += len(perm.get("IpRanges", [])) + len(perm.get("UserIdGroupPairs", []))
                v6 += len(perm.get("Ipv6Ranges", []))
                for pl in perm.get("PrefixListIds", []):
                    w = weights.get(pl["PrefixListId"])
                    v4, v6 = v4 + (w or 1), v6 + (w or 1)
            in_use_of[group_id] = (v4, v6)
        groups.update(existing)
    else:
        why_sg = ""
    checks = []
    for scope, rules in groups.items():
        parts = [_rule_weight(r, weights) for r in rules]
        unknown = [r.prefix_list_id for r, p in zip(rules, parts, strict=True) if p is None]
        need4 = sum(p[0] for p in parts if p)
        need6 = sum(p[1] for p in parts if p)
        used = in_use_of.get(scope)
        worst = max(((need4, used[0] if used else None), (need6, used[1] if used else None)), key=lambda t: t[0] + (t[1] or 0))
        if unknown:
            checks.append(_check(SG_QUOTA, f"group {scope}", worst[0], None, None, source,
                                 f"prefix list {unknown[0]} weight unknown (describe_managed_prefix_lists)"))
        elif used is None:
            checks.append(_check(SG_QUOTA, f"group {scope}", worst[0], limit, None, source, why_sg or f"{scope} not found"))
        else:
            checks.append(_check(SG_QUOTA, f"group {scope}", worst[0], limit, worst[1], source, why))
    return checks


def preflight(source: ClientSource, paths: Sequence[str | Path]) -> PreflightResult:
    """Load the templates (``ModelError`` on bad input) and check what they create against the quotas."""
    model = load_model(paths)
    region = source.region or "us-east-1"
    quotas = _Quotas(source)
    result = PreflightResult(region)
    eips = len(model.eips)
    health_checks = len(model.health_checks)
    nlbs = sum(lb.may_be_network for lb in model.load_balancers)  # a Type decided at deploy time may be network
    if eips:
        result.checks.append(_eips(quotas, eips, region))
    if health_checks:
        result.checks.append(_health_checks(quotas, health_checks))
    if nlbs:
        result.checks.append(_nlbs(quotas, nlbs, region))
    result.checks.extend(_security_groups(quotas, model, region))
    return result
