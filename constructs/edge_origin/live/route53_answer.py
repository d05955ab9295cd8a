"""``audit --test-dns-answer``: ask Route 53 itself (TestDNSAnswer) what it answers for each origin
name, and say where that answer is not one the answer model allows.

TestDNSAnswer (Route 53 API reference, ``GET /2013-04-01/testdnsanswer``, read-only): "Gets the
value that Amazon Route 53 returns in response to a DNS request for a specified record name and
type"; "This call only supports querying public hosted zones"; without ``ResolverIP`` it
simulates "a DNS resolver in the Amazon Web Services US East (N. Virginia) Region". It answers as
the authoritative server does: an alias is resolved inside Route 53 (its target's values), a
CNAME is returned as the CNAME (the resolver, not Route 53, follows it).

One call answers one draw of the routing policy, so the comparison is "is Route 53's answer one
the model lists" (any location's answer: the simulated resolver's location is Route 53's choice),
never "is it the most likely". The model is asked with the health each check has now
(``GetHealthCheckStatus``, read by the account reader), so a failover to the secondary agrees.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from edge_origin.answers import Answer, HealthState, Resolution, normalize
from edge_origin.core.findings import Finding, Severity
from edge_origin.live.account import (
    HEALTH_STATUS_KEY,
    LIVE_DNS_NAME_KEY,
    ZONE_KEY,
    LiveAccount,
    dns_key,
)
from edge_origin.rules.base import origin_resolutions

RULE = "EO-LIVE-TDA"
TITLE = "Route 53's own answer (TestDNSAnswer) is one the answer model allows"


class Unsupported(Exception):
    """TestDNSAnswer cannot be asked here (not implemented, denied, throttled): one line why."""


@dataclass
class AnswerCheck:
    """One name asked of Route 53, in one public zone, and what the model allows."""

    name: str
    rtype: str
    zone_id: str
    zone_name: str
    route53: tuple[str, ...] = ()
    response_code: str = ""
    #: each model answer as Route 53 would write it (sorted values), with its condition
    allowed: list[tuple[tuple[str, ...], str, int | None]] = field(default_factory=list)
    agrees: bool | None = None
    why: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "type": self.rtype, "zone": self.zone_id, "route53": list(self.route53),
            "response_code": self.response_code, "agrees": self.agrees, "why": self.why,
            "allowed": [{"values": list(v), "condition": c, "pick": p} for v, c, p in self.allowed],
        }


@dataclass
class AnswerComparison:
    checks: list[AnswerCheck] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    #: the one-line reason TestDNSAnswer could not be asked (then ``findings`` holds it as not checked)
    unavailable: str | None = None

    def summary(self) -> str:
        if self.unavailable:
            return f"--test-dns-answer: {self.unavailable}"
        agree = sum(1 for c in self.checks if c.agrees)
        differ = sum(1 for c in self.checks if c.agrees is False)
        unknown = sum(1 for c in self.checks if c.agrees is None)
        return (f"--test-dns-answer: {len(self.checks)} name/type(s) asked of Route 53: {agree} agree with the answer model, "
                f"{differ} disagree" + (f", {unknown} could not be compared" if unknown else ""))


def _health_state(account: LiveAccount) -> HealthState:
    """The checks' status as read (healthy: all checkers pass; unhealthy: none), unread ones healthy."""
    shares: dict[str, float] = {}
    for lid, res in account.resources("AWS::Route53::HealthCheck").items():
        healthy = (res.get("Metadata") or {}).get(HEALTH_STATUS_KEY, {}).get("healthy")
        if healthy is not None:
            shares[f"Live/{lid}"] = 1.0 if healthy else 0.0
    return HealthState(checker_shares=shares)


class AccountValues:
    """The model's value keys (EIPs, NLB DNS names, literals) as the values Route 53 writes."""

    def __init__(self, account: LiveAccount) -> None:
        self.by_key: dict[str, str] = {}
        for lid, res in account.resources().items():
            meta = res.get("Metadata") or {}
            if res["Type"] == "AWS::EC2::EIP" and meta.get("edge-origin:public-ip"):
                self.by_key[f"Live/{lid}"] = meta["edge-origin:public-ip"]
            if meta.get(LIVE_DNS_NAME_KEY):
                self.by_key[f"Live/{lid}.dnsname"] = dns_key(meta[LIVE_DNS_NAME_KEY])

    def value(self, key: str) -> str | None:
        if key in self.by_key:
            return self.by_key[key]
        return key if _is_literal(key) else None


def _is_literal(key: str) -> bool:
    """A value written in the record itself (an address, a name), not a reference's key."""
    return "/" not in key and (":" not in key or _is_ip(key))


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


class LiteralValues:
    """A template's values: only addresses and names written in the record are known."""

    def value(self, key: str) -> str | None:
        return key if _is_literal(key) else None


def answer_values(answer: Answer, values: Any) -> tuple[str, ...] | None:
    """The addresses a recursive resolver ends with for this model answer (sorted; CNAMEs and
    aliases followed), None when the model cannot name one of them."""
    out = []
    for key in answer.addresses:
        value = values.value(key)
        if value is None:
            return None
        out.append(value)
    for lb in answer.load_balancers:
        if not lb.addresses:
            return None
        for key in lb.addresses:
            value = values.value(key)
            if value is None:
                return None
            out.append(value)
    if answer.end is not None and not out:
        return None  # the chain leaves the zones the model knows
    return tuple(sorted(out))


def _route53_form(answer: Answer, resolution: Resolution, zones: Any, values: AccountValues) -> tuple[str, ...] | None:
    """What Route 53's authoritative answer holds for this model answer (sorted), None when the
    model cannot say (an address it does not know, e.g. an NLB without EIPs)."""
    for hop in answer.chain:
        if hop.key.type == "CNAME" and resolution.type != "CNAME":
            records = [r for r in zones.record_sets(hop.key.zone, hop.key.name, "CNAME") if r.key == hop.key]
            if not records or not records[0].values:
                return None
            target = values.value(records[0].values[0])
            return (normalize(target).removeprefix("dualstack."),) if target else None
    return answer_values(answer, values)


def matches(got: tuple[str, ...], allowed: tuple[str, ...], pick: int | None) -> bool:
    if pick is None or pick >= len(allowed):
        return got == allowed
    return set(got) <= set(allowed) and len(got) == pick


def ask_route53(route53: Any, zone_id: str, name: str, rtype: str) -> dict[str, Any]:
    """One TestDNSAnswer call; ``Unsupported`` with one line when the endpoint cannot answer it
    (``live/optional.py``: an SDK or endpoint without it, denied, throttled, failed)."""
    from edge_origin.live.optional import NotRead, call_optional

    got = call_optional(route53, "route53", "TestDNSAnswer", HostedZoneId=zone_id, RecordName=name, RecordType=rtype)
    if isinstance(got, NotRead):
        raise Unsupported(f"{got}; Route 53's own answers were not compared")
    return got


def compare_with_route53(account: LiveAccount, model: Any, route53: Any, names: Iterable[str] = ()) -> AnswerComparison:
    """TestDNSAnswer for every origin name (and ``names``) in every public zone holding it,
    compared with the answer model; a WARNING finding per disagreement."""
    out = AnswerComparison()
    zones = model.zones
    state = _health_state(account)
    values = AccountValues(account)
    asked: set[tuple[str, str, str]] = set()
    targets = [(item.name, item.zone, item.vantage, item.resolution.type) for _, _, item in origin_resolutions(model)]
    for name in names:
        for zone in zones.zone_set.zones_holding(name):
            for rtype in ("A", "AAAA"):
                if zones.zone_set.record_sets(zone.id, name, rtype) or zones.zone_set.record_sets(zone.id, name, "CNAME"):
                    targets.append((normalize(name), zone, None, rtype))
    for name, zone, _vantage, rtype in targets:
        if zone.private:
            continue  # "This call only supports querying public hosted zones"
        zone_meta = account.template["Resources"].get(zone.id.split("/", 1)[-1], {}).get("Metadata", {}).get(ZONE_KEY)
        if not zone_meta or (name, rtype, zone.id) in asked:
            continue
        asked.add((name, rtype, zone.id))
        check = AnswerCheck(name, rtype, zone_meta["id"], zone_meta["name"])
        resolution = zones.zone_set.resolve(name, rtype, state=state, zone_id=zone.id)
        for answer in resolution.answers:
            form = _route53_form(answer, resolution, zones.zone_set, values)
            if form is not None:
                check.allowed.append((form, answer.condition, answer.pick if answer.pick is not None else None))
            else:
                check.allowed.append(((), answer.condition or "?", -1))
        try:
            reply = ask_route53(route53, zone_meta["id"], name, rtype)
        except Unsupported as exc:
            out.unavailable = str(exc)
            out.findings = [Finding(
                rule=RULE, severity=Severity.NOT_CHECKED, message=f"not checked: {TITLE}: {exc}",
                fix="Run against Route 53 itself with route53:TestDNSAnswer allowed (docs/iam/readonly-policy.json), or drop --test-dns-answer.",
                template=account.template_name, stack="route53", resource="*",
            )]
            return out
        check.response_code = str(reply.get("ResponseCode") or "")
        check.route53 = tuple(sorted(normalize(v).removeprefix("dualstack.") if not _is_ip(v) else v for v in reply.get("RecordData") or []))
        _judge(check)
        out.checks.append(check)
        if check.agrees is False:
            out.findings.append(_finding(account, check))
    return out


def _judge(check: AnswerCheck) -> None:
    if check.response_code and check.response_code != "NOERROR":
        check.agrees = not check.allowed
        check.why = f"Route 53 answers {check.response_code}" + ("" if check.agrees else " while the model has answers")
        return
    if not check.route53:
        check.agrees = not check.allowed or any(not v and p != -1 for v, _, p in check.allowed)
        check.why = "empty NOERROR answer" + ("" if check.agrees else " while the model's answers hold values")
        return
    if any(p == -1 for _, _, p in check.allowed) and not any(matches(check.route53, v, p) for v, _, p in check.allowed if p != -1):
        check.agrees = None
        check.why = "the model cannot name every value of its answers (a load balancer without known addresses, or a chain leaving the zones)"
        return
    matched = [c for v, c, p in check.allowed if p != -1 and matches(check.route53, v, p)]
    check.agrees = bool(matched)
    check.why = f"one of the model's answers{' (' + matched[0] + ')' if matched and matched[0] else ''}" if matched else \
        "not one of the model's answers"


def _finding(account: LiveAccount, check: AnswerCheck) -> Finding:
    allowed = "; ".join(
        f"[{', '.join(v) or 'empty'}]" + (f" ({c})" if c else "") + (f" any {p}" if p not in (None, -1) else "")
        for v, c, p in check.allowed[:6]
    ) or "no answer"
    return Finding(
        rule=RULE,
        severity=Severity.WARNING,
        message=(f"{check.name} {check.rtype} in public zone {check.zone_name} ({check.zone_id}): Route 53 answers "
                 f"[{', '.join(check.route53) or 'empty'}] ({check.response_code or '?'}), which is not one of the answers the "
                 f"model allows: {allowed}. The audit's DNS findings for this name rest on the model."),
        fix="Compare the record sets and health checks of this name with what Route 53 answers (aws route53 test-dns-answer); "
            "report the difference: the answer model is wrong about this account.",
        template=account.template_name,
        stack="route53",
        resource=f"hostedzone/{check.zone_id}/{check.name}/{check.rtype}",
    )
