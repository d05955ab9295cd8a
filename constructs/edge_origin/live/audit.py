"""``audit``: the rules, unchanged, over a live account read into the template model.

A rule whose inputs come from a service the account would not show (AccessDenied, a throttle)
is reported once as ``Severity.NOT_CHECKED`` with the reason, and its findings are dropped (they
would rest on missing data); it never passes as clean. Findings name the live resource: the
template is ``aws:<region>``, the stack the service, the resource its ARN or id (records:
``hostedzone/ZONE-ID/name/type/set-identifier``), and the message names resources as the account
does (a record as ``name/type/set-id in public zone example.com (ZONE-ID)``), never by the
reader's logical ids: a public and a private zone of one name are told apart in every finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from edge_origin.core.findings import Finding, Severity
from edge_origin.live.account import ClientSource, LiveAccount, read_account
from edge_origin.live.session import LiveError
from edge_origin.model import TemplateModel
from edge_origin.rules import RULES, Rule, run_rules

#: The services whose data each rule reads. Origin names come from CloudFront (and Route 53 markers).
RULE_NEEDS: dict[str, frozenset[str]] = {
    "EO-DNS1": frozenset({"route53", "cloudfront"}),
    "EO-DNS2": frozenset({"route53", "cloudfront"}),
    "EO-DNS3": frozenset({"route53", "cloudfront", "ec2", "elbv2"}),
    "EO-DNS4": frozenset({"route53", "cloudfront"}),
    "EO-DNS5": frozenset({"route53"}),
    "EO-NLB1": frozenset({"route53", "cloudfront", "ec2", "elbv2"}),
    "EO-NLB2": frozenset({"route53", "cloudfront", "ec2", "elbv2"}),
    "EO-NLB3": frozenset({"elbv2"}),
    "EO-NLB6": frozenset({"elbv2"}),
    "EO-SG1": frozenset({"route53", "ec2", "elbv2"}),
    "EO-CF1": frozenset({"cloudfront"}),
    "EO-CF4": frozenset({"cloudfront"}),
    "EO-CF2": frozenset({"cloudfront", "route53", "ec2", "elbv2"}),
    "EO-KA1": frozenset({"elbv2"}),
    "EO-KA2": frozenset({"cloudfront"}),
    "EO-KA3": frozenset({"elbv2", "cloudfront"}),
    "EO-SEC1": frozenset({"cloudfront", "route53", "ec2", "elbv2"}),
}


@dataclass(frozen=True)
class AuditResult:
    account: LiveAccount
    model: TemplateModel
    findings: list[Finding]
    #: ``--test-dns-answer``: Route 53's own answers against the answer model (None: not asked)
    answers: Any = None
    #: Route 53's guards on each origin name (``guards_audit.NameGuards``)
    guards: Any = None
    #: One line a custom or VPC origin: its ``OriginHttpVersion`` as read, or why it is not read
    #: (:func:`origin_http_versions`)
    origin_http: tuple[str, ...] = ()
    #: What this botocore cannot read at all (printed as ``audit: <note>``)
    notes: tuple[str, ...] = ()

    @property
    def not_checked(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.NOT_CHECKED]


def rule_needs(rule: Rule, grpc_origins: bool) -> frozenset[str]:
    """Services ``rule`` reads; with ``--grpc-origin`` names CloudFront is not needed for origin names."""
    needs = RULE_NEEDS.get(rule.id, frozenset({"route53", "cloudfront", "ec2", "elbv2"}))
    if grpc_origins and rule.id.startswith(("EO-DNS", "EO-NLB", "EO-SG")):
        needs = needs - {"cloudfront"}
    return needs


#: Logical ids are alphanumeric words (the answer model writes them stack-qualified, ``Live/Id``):
#: each word of a message is looked up, whole.
_WORD = re.compile(r"(?:\bLive/)?([A-Za-z0-9]+)")


def locate(finding: Finding, account: LiveAccount) -> Finding:
    """The finding re-addressed to the live resource (service / ARN or id), its message and fix
    naming resources as the account does (records with their zone)."""
    service, live_id = account.ids.get(finding.resource, ("", finding.resource))

    def named(match: re.Match[str]) -> str:
        word = match.group(1)
        if word not in account.ids:
            return match.group()
        zone = account.zone_of(word) if account.ids[word][1].startswith("hostedzone/") and "/" not in account.ids[word][1][11:] else None
        return zone["id"] if zone else account.describe(word)  # a zone: the texts say "zone example.com (<id>)"

    message, fix = _WORD.sub(named, finding.message), _WORD.sub(named, finding.fix)
    zone = account.zone_of(finding.resource)
    if zone is not None:
        head = f"{account.describe(finding.resource)}: "
        if zone["id"] not in message:
            message = head + message
        elif message.startswith(head) and zone["id"] in message[len(head):]:
            # the rule's text names the zone itself: the record's own head keeps name/type/set only
            message = head.split(" in ", 1)[0] + ": " + message[len(head):]
    return replace(finding, template=account.template_name, stack=service or finding.stack, resource=live_id,
                   message=message, fix=fix)


def origin_http_versions(account: LiveAccount) -> tuple[str, ...]:
    """``OriginHttpVersion`` of the custom and VPC origins the account showed, one line each where
    it is set: ``origin E123/o1: OriginHttpVersion http2`` (unset is CloudFront's default, no line:
    botocore 1.44.8 cloudfront ``CustomOriginConfig``/``VpcOriginConfig.OriginHttpVersion``: "If you
    don't specify a value, CloudFront uses HTTP/1.1"); with a botocore whose model lacks the member
    (it drops the value from every response) every origin's line says ``not read (botocore 1.43.2 <
    1.44: ...)``, never "unset". No rule judges it: CloudFront's gRPC guide does not say whether gRPC
    requests follow it."""
    from edge_origin.live.sdk_members import not_read

    out = []
    for res in account.template.get("Resources", {}).values():
        if res.get("Type") != "AWS::CloudFront::Distribution":
            continue
        dist = (res.get("Metadata") or {}).get("edge-origin:distribution-id") or (res.get("Metadata") or {}).get("edge-origin:live-id")
        for origin in (res["Properties"].get("DistributionConfig") or {}).get("Origins") or []:
            shape = "VpcOriginConfig" if origin.get("VpcOriginConfig") else "CustomOriginConfig" if origin.get("CustomOriginConfig") else None
            if shape is None:
                continue
            head = f"origin {dist}/{origin.get('Id')}: OriginHttpVersion"
            unread = not_read("cloudfront", shape, "OriginHttpVersion")
            value = origin[shape].get("OriginHttpVersion")
            if unread is not None:
                out.append(f"{head} {unread}")
            elif value is not None:  # unset: CloudFront's default, http1.1 (no line)
                out.append(f"{head} {value}")
    return tuple(out)


#: CloudFront members whose loss from a response changes a verdict: (shape, member, rule, which
#: origins it concerns, what is then not judged). An SDK without the member drops it silently (the
#: origin then reads as if it were unset): audit says so, once a member, naming the origins.
SDK_VERDICT_MEMBERS: tuple[tuple[str, str, str, str, str], ...] = (
    ("Origin", "VpcOriginConfig", "EO-VPC1", "neither",
     "a VPC origin reads as an origin of no known kind: its timeouts and its NLB are not judged (EO-VPC1..4, EO-CF2)"),
    ("VpcOriginConfig", "OriginKeepaliveTimeout", "EO-VPC1", "vpc",
     "a VPC origin's OriginKeepaliveTimeout and OriginReadTimeout read as CloudFront's defaults (5 s, 30 s): EO-VPC1 "
     "and EO-CF2 judge the defaults, not the values set"),
    ("Origin", "ResponseCompletionTimeout", "EO-CF3", "custom",
     "a ResponseCompletionTimeout that ends every gRPC stream at that age is not seen (EO-CF3)"),
    ("CustomOriginConfig", "IpAddressType", "EO-DNS1", "custom",
     "a dualstack or ipv6 origin reads as ipv4: the AAAA set of its name, which CloudFront then asks, is not judged (EO-DNS1/2/3)"),
)


def sdk_gap_findings(account: LiveAccount) -> list[Finding]:
    """One ``not-checked`` finding for each verdict-changing CloudFront member the installed
    botocore cannot read (``SDK_VERDICT_MEMBERS``), naming the origins it concerns."""
    from edge_origin.live.sdk_members import SDK_MEMBERS_BY_KEY, not_read

    origins: dict[str, list[str]] = {"custom": [], "neither": [], "vpc": []}
    for res in account.template.get("Resources", {}).values():
        if res.get("Type") != "AWS::CloudFront::Distribution":
            continue
        dist = (res.get("Metadata") or {}).get("edge-origin:distribution-id") or "?"
        for origin in (res["Properties"].get("DistributionConfig") or {}).get("Origins") or []:
            where = f"{dist}/{origin.get('Id')}"
            if origin.get("VpcOriginConfig"):
                origins["vpc"].append(where)
            if origin.get("CustomOriginConfig") or origin.get("VpcOriginConfig"):
                origins["custom"].append(where)
            elif not origin.get("S3OriginConfig"):
                origins["neither"].append(where)  # a VPC origin read by an SDK that drops VpcOriginConfig
                origins["custom"].append(where)
    out = []
    for shape, member, rule, which, consequence in SDK_VERDICT_MEMBERS:
        unread = not_read("cloudfront", shape, member)
        if unread is None or not origins[which]:
            continue
        since = SDK_MEMBERS_BY_KEY[("cloudfront", shape, member)].since
        out.append(Finding(
            rule=rule, severity=Severity.NOT_CHECKED,
            message=f"not checked: cloudfront {shape}.{member} {unread} for origin(s) {', '.join(origins[which])}: {consequence}",
            fix=f"Upgrade botocore to {since} or later (pip install -U boto3) and audit again.",
            template=account.template_name, stack="cloudfront", resource="*",
        ))
    return out


def not_returned_notes(account: LiveAccount, grpc_origins_given: bool) -> list[str]:
    """One line per field the endpoint's answers left out: which resources, and what that does to
    each verdict that reads it."""
    from edge_origin.live.account import GRPC_CONFIG_FIELD

    out = []
    dists = account.not_returned.get(GRPC_CONFIG_FIELD) or []
    if dists:
        shown = ", ".join(sorted(dists)[:5]) + (f" and {len(dists) - 5} more" if len(dists) > 5 else "")
        then = ("the names given with --grpc-origin are judged as gRPC origins" if grpc_origins_given else
                "EO-DNS1/2/3 judge their origins as not known to be gRPC (a weighted pile-up is then a warning, not "
                "an error) and EO-CF1 does not judge them; pass --grpc-origin NAME to judge a name as a gRPC origin")
        out.append(f"{GRPC_CONFIG_FIELD} not returned by the endpoint for distribution(s) {shown} (moto drops it): "
                   f"whether gRPC is on is not read; {then}")
    return out


def audit_account(account: LiveAccount, grpc_origins: bool = False, rules: Iterable[Rule] | None = None) -> AuditResult:
    """Run the rules over an account already read; rules needing an unreadable service: not checked."""
    model = account.model()
    chosen = list(rules if rules is not None else RULES)
    runnable, skipped = [], []
    for rule in chosen:
        missing = sorted(rule_needs(rule, grpc_origins) & set(account.unavailable))
        (skipped if missing else runnable).append((rule, missing))
    findings = [locate(f, account) for f in run_rules(model, [r for r, _ in runnable])]
    if "cloudfront" not in account.unavailable:
        findings += sdk_gap_findings(account)
    for rule, missing in skipped:
        reasons = "; ".join(account.unavailable[s] for s in missing)
        findings.append(
            Finding(
                rule=rule.id,
                severity=Severity.NOT_CHECKED,
                message=f"not checked: {rule.title} needs {', '.join(missing)} ({reasons})",
                fix=f"Grant the read-only actions for {', '.join(missing)} (docs/live.md: the minimal read-only IAM policy) or retry later.",
                template=account.template_name,
                stack=missing[0],
                resource="*",
            )
        )
    return AuditResult(account, model, findings, origin_http=() if "cloudfront" in account.unavailable else origin_http_versions(account))


def audit(
    source: ClientSource,
    names: Iterable[str] | None = None,
    grpc_origins: Iterable[str] = (),
    test_dns_answer: bool = False,
) -> AuditResult:
    """Read the account and audit it. ``LiveError`` for a ``--name`` without any record set.

    ``test_dns_answer``: also ask Route 53 (TestDNSAnswer) for each origin name and ``names``,
    and add a finding where its answer is not one the answer model allows
    (``edge_origin.live.route53_answer``)."""
    names = list(names or [])
    grpc = list(grpc_origins)
    account = read_account(source, names or None, grpc)
    if "route53" not in account.unavailable:
        empty = [n for n, count in account.names.items() if count == 0]
        if empty:
            raise LiveError(f"--name {empty[0]}: no record sets of that name in any hosted zone of the account")
    result = audit_account(account, grpc_origins=bool(grpc))
    from edge_origin.live.account import VPC_ORIGINS_SERVICE

    vpc_reason = account.unavailable.get(VPC_ORIGINS_SERVICE, "")
    if vpc_reason:  # no VPC origins read (an SDK or endpoint without them, denied): no rule lists them among its needs, say it here
        result = replace(result, notes=(*result.notes, f"CloudFront VPC origins: {account.unavailable[VPC_ORIGINS_SERVICE]}"))
    result = replace(result, notes=(*result.notes, *not_returned_notes(account, bool(grpc))))
    if "route53" not in account.unavailable:  # enact's own health checks that no record uses any more
        from edge_origin.live.health_owner import audit_findings

        found = audit_findings(source.client("route53"), account.template_name, any_checks=any(
            r.get("Type") == "AWS::Route53::HealthCheck" for r in account.template.get("Resources", {}).values()))
        result = replace(result, findings=result.findings + found)
    if "route53" not in account.unavailable:  # Route 53's own guards on each origin name
        from edge_origin.live.guards_audit import findings as guard_findings
        from edge_origin.live.guards_audit import name_guards
        from edge_origin.live.sdk_members import operation_not_read

        guards = name_guards(account, result.model, source.client("route53"))
        result = replace(result, findings=result.findings + guard_findings(account, guards), guards=guards)
        unread = operation_not_read("route53", "ListResourceRecordSetProtections")
        if unread is not None:  # every guard reads as "not known": say why once
            result = replace(result, notes=(*result.notes, f"guards: record set protections, change guardrails and change history {unread}"))
    if not test_dns_answer:
        return result
    from edge_origin.live.route53_answer import RULE, TITLE, AnswerComparison, compare_with_route53

    if "route53" in account.unavailable:
        comparison = AnswerComparison(unavailable=f"route53 could not be read ({account.unavailable['route53']})")
        comparison.findings = [Finding(
            rule=RULE, severity=Severity.NOT_CHECKED, message=f"not checked: {TITLE}: {comparison.unavailable}",
            fix="Grant the read-only Route 53 actions (docs/iam/readonly-policy.json) or retry later.",
            template=account.template_name, stack="route53", resource="*",
        )]
    else:
        comparison = compare_with_route53(account, result.model, source.client("route53"), names)
    return replace(result, findings=result.findings + comparison.findings, answers=comparison)
