"""EO-DNS2: an origin record Route 53 can never take out of its answers (no health check, or one
that never fails: Disabled, HealthThreshold 0, ...), or whose check probes another address.

Judged from the answer model's health (``edge_origin.answers.health``) for the record sets a
resolver chooses among: multivalue records and failover PRIMARY records (CNAME/alias chains
followed, per zone). An alias with EvaluateTargetHealth inherits its target's health.
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from collections.abc import Iterator

from edge_origin.answers import (
    HealthCheck,
    probed_elsewhere,
    public_check_of_private_address,
    why_never_fails,
)
from edge_origin.answers.health import ENDPOINT_TYPES, MAX_DEPTH, undefined_children
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel, display_value
from edge_origin.model.read_route53 import HEALTH_CHECK
from edge_origin.model.values import Unresolved, deploy_time
from edge_origin.model.zones import value_key
from edge_origin.rules.base import Rule, finding, origin_label, origin_resolutions, origin_severity, with_cdk
from edge_origin.rules.not_judged import not_judged, not_judged_value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

FIX = with_cdk(
    "EO-DNS2",
    "Give every multivalue (and failover) origin record a HealthCheckId: an enabled TCP or HTTPS Route 53 health check "
    "on that record's own IP and port (not Disabled, not a CALCULATED check with HealthThreshold 0).",
    '`route53.ARecord(..., health_check=route53.HealthCheck(type=TCP, ip_address=eip.ref, port=443))` per record; MultivalueOriginRecords and GrpcEdgeToOrigin make one per record (health_check_type= / origin_health_check_type=).',
)
HTTPS_FIX = with_cdk(
    "EO-DNS2",
    "Health check the gRPC origin with TCP on the listener port (it proves the NLB and a pod accept connections), or "
    "HTTPS on a port whose server speaks HTTP/1.1 (a health port on the pods, through its own NLB listener).",
    "GrpcEdgeToOrigin(origin_health_check_type=\"TCP\") (the default); MultivalueOriginRecords(health_check_type=\"TCP\").",
)
PRIVATE_FIX = with_cdk(
    "EO-DNS2",
    "Check a private address from inside the VPC: a Route 53 private endpoint health check (EndpointType PRIVATE, "
    "HealthCheckSourceId of an AWS::Route53::HealthCheckSource in the VPC; CloudFormation declares both), or a "
    "CLOUDWATCH_METRIC check on the target group's HealthyHostCount alarm.",
    "InternalGrpcOrigin(private_health_checks=PrivateHealthChecks(...)) makes one private endpoint check per address "
    "(by default it makes the alarm check, one CloudWatch alarm per target group); by hand "
    "`route53.CfnHealthCheck(health_check_config={\"type\": \"CLOUDWATCH_METRIC\", \"alarmIdentifier\": ...})`.",
)
_HTTPS_WHY = ("Route 53's HTTPS checks speak TLS 1.0-1.2 and send an HTTP/1.1 request, and are not documented to speak "
              "HTTP/2, so against an HTTP/2-only gRPC port (grpc-go refuses a TLS handshake without ALPN h2) every check "
              "can fail and Route 53 then answers with every record (fail-open)")
_HTTP_WHY = ("an HTTP check sends a cleartext HTTP/1.1 request, and CloudFront reaches this port over TLS (the pods "
             "terminate it), so every check can fail and Route 53 then answers with every record (fail-open)")
#: What would let edge-origin judge a health check the given templates do not define.
NEEDS_CHECK = ("check the stack that defines the health check together with this one, or run edge-origin audit on the "
               "account (it reads the deployed health checks)")
#: Policies whose sets Route 53 drops from answers only by their health.
HEALTH_DECIDES = ("multivalue", "failover")


def check(model: TemplateModel) -> Iterator[Finding]:
    zones = model.zones
    checks = zones.zone_set.health_checks
    seen: set[int] = set()
    # per zone + name + type: how many of its record sets hold each value (built once per group,
    # so "another record's address" is a lookup: linear in records per name)
    holders: dict[tuple[str, str, str], Any] = {}
    for name, kind, item in origin_resolutions(model):
        of_item = f" record in {item.zone.label} for {origin_label(name, kind)}"  # each record's ``where``, after its policy
        # zones.view_of(key) and zones.record_by_key(key) (the record of that first view), once per resolution
        for key, view, record in zones.key_views(item.resolution.record_keys):
            if record is None or id(view) in seen or record.policy not in HEALTH_DECIDES:
                continue
            if record.policy == "failover" and (record.failover or "").upper() != "PRIMARY":
                continue  # the secondary answers only while the primary is unhealthy
            seen.add(id(view))
            if record.alias is not None and record.alias.evaluate_target_health and record.health_check_id is None:
                continue  # "an alias resource record set inherits the health of the referenced resource"
            where = record.policy + of_item
            if view.health_check_id is not None and view.health_check is None:
                # A check the templates do not define (a literal id, an import, a parameter): it may be disabled,
                # inverted or probe another address. Not judged, never "it works" (issue 34's rule: fail closed).
                res = view.resource
                yield not_judged(
                    RULE.id, Severity.WARNING, subject=f"{view.label}: {where}: HealthCheckId",
                    element=display_value(view.health_check_id),
                    reason="no given template defines this health check; whether Route 53 can take the record out of "
                           "its answers is not judged",
                    needs=NEEDS_CHECK, at=res,
                )
                continue
            hc = checks.get(record.health_check_id or "")
            # (undefined_children is () below any check but an enabled CALCULATED one: asked only of those)
            hidden = undefined_children(record.health_check_id, checks) if view.health_check is not None and \
                hc is not None and hc.type == "CALCULATED" else ()
            if hidden:  # a CALCULATED check over children defined elsewhere: judged below only where they cannot matter
                res = view.resource
                yield not_judged(
                    RULE.id, Severity.WARNING, subject=f"{view.label}: {where}: CALCULATED health check "
                    f"{view.health_check.resource.logical_id} ChildHealthChecks",
                    element=", ".join(hidden),
                    reason="no given template defines these child health checks; whether Route 53 can take the record "
                           "out of its answers is not judged",
                    needs=NEEDS_CHECK, at=res,
                )
            undecided = _undecided_config(model, record.health_check_id, checks, record.values)
            if undecided is not None:  # the verdicts below would read it as absent (TCP, enabled, not inverted...)
                label, member, raw = undecided
                yield not_judged_value(
                    RULE.id, f"{view.label}: {where}: health check {label} {member}", raw,
                    "whether Route 53 can take the record out of its answers, and which address it probes, is not judged",
                    view.resource)
                continue
            reason = why_never_fails(record.health_check_id, checks)
            if reason == "no health check":
                yield finding(
                    RULE.id, origin_severity(Severity.ERROR, kind), view.resource,
                    f"{view.label}: {where} has no HealthCheckId: Route 53 keeps answering with a dead NLB's IP",
                    FIX,
                )
            elif reason is not None:
                yield finding(
                    RULE.id, origin_severity(Severity.ERROR, kind), view.resource,
                    f"{view.label}: {where}: {reason}: Route 53 keeps answering with a dead NLB's IP",
                    FIX,
                )
            grpc_port, undecided_port = _https_check_of_the_grpc_port(model, view) if reason is None else (None, None)
            if kind != "grpc" and (grpc_port is not None or undecided_port is not None):
                # the warning is a gRPC origin's: said only where a behavior's GrpcConfig is decided at deploy
                behavior = _grpc_undecided(model, name)
                grpc_port, undecided_port = None, (None if behavior is None else behavior)
            if undecided_port is not None:
                what, raw = undecided_port
                yield not_judged_value(
                    RULE.id, f"{view.label}: {where}: health check {view.health_check.resource.logical_id} "
                    f"({view.health_check.type}) against {what}", raw,
                    "whether the check probes a gRPC listener's port is not judged", view.resource)
            if grpc_port is not None:
                yield finding(
                    RULE.id, Severity.WARNING, view.resource,
                    f"{view.label}: {where}: health check {view.health_check.resource.logical_id} is "
                    f"{view.health_check.type} on port {grpc_port}, the gRPC listener's: "
                    + (_HTTPS_WHY if view.health_check.type.upper().startswith("HTTPS") else _HTTP_WHY),
                    HTTPS_FIX,
                )
            # (an address key with a "/", an EIP's Stack/Eip, is never a private address: asked of a literal only)
            if hc is not None and reason is None and hc.ip_address is not None and "/" not in hc.ip_address \
                    and public_check_of_private_address(hc):
                yield finding(
                    RULE.id, origin_severity(Severity.ERROR, kind), view.resource,
                    f"{view.label}: {where}: health check {hc.label or hc.id} is a public endpoint check of the private "
                    f"address {hc.ip_address}: Route 53's checkers probe from the internet and never reach it, so the "
                    "record is never healthy (and with every record unhealthy Route 53 answers with all of them: "
                    "fail-open); a private endpoint check needs EndpointType PRIVATE through a health check source "
                    "(AWS::Route53::HealthCheckSource in CloudFormation)",
                    PRIVATE_FIX,
                )
            elif hc is not None:
                if hc.endpoint_type == "PRIVATE":
                    yield from _private_check(view, hc, where, kind)
                yield from _probe_findings(zones, holders, key, record, view, hc, where, kind, judged=reason is None)


#: HealthCheckConfig members a verdict of this rule rests on (whether the check can fail, what it probes), and
#: those that matter only for some check types (the port of an HTTP(S) check: EO-DNS2's gRPC-port warning).
VERDICT_MEMBERS = ("Type", "Disabled", "Inverted", "HealthThreshold", "ChildHealthChecks", "IPAddress",
                   "FullyQualifiedDomainName", "Port")
#: Of those, what the record's own check probes.
PROBE_MEMBERS = ("IPAddress", "FullyQualifiedDomainName", "Port")


def _undecided_config(model: TemplateModel, check_id: str | None, checks: Any,
                      values: tuple[str, ...]) -> tuple[str, str, Any] | None:
    """(check's logical id, member, value) of the first HealthCheckConfig member a verdict rests on that is decided
    at deploy time (an Unresolved: a Ref of an EIP is an address the model follows), in the record's check or the
    children a CALCULATED check reads; None when every one is decided. What the record's own check probes
    (IPAddress, FullyQualifiedDomainName, an HTTP(S) Port) is read of that check alone, and an IPAddress that is the
    record's own value (one expression: one value at deploy) is decided. Bounded by MAX_DEPTH like the health walk."""
    if check_id is None:
        return None
    by_id = model.__dict__.get("_dns2_undecided_members")
    if by_id is None:
        by_id = model.__dict__["_dns2_undecided_members"] = {
            f"{r.stack}/{r.logical_id}": r for r in model.of_type(HEALTH_CHECK)}
    entry = by_id.get(check_id)
    if entry is None:
        return None  # not a check of these templates: nothing read of it (the walk's first step)
    if entry.__class__ is not tuple:
        entry = by_id[check_id] = _undecided_members(entry)
    if not entry[3]:  # nearly every check: no member decided at deploy, no children to read
        check = checks.get(check_id)
        if check is None or not check.children:
            return None
    todo, seen = [(check_id, 0)], set()
    while todo:
        cid, depth = todo.pop()
        entry = by_id.get(cid)
        if entry is None or cid in seen or depth > MAX_DEPTH:
            continue
        seen.add(cid)
        if entry.__class__ is not tuple:  # a resource not read yet: its undecided members, once per check
            entry = by_id[cid] = _undecided_members(entry)
        logical_id, kind, has_ip, members = entry
        if members is None:
            continue  # no HealthCheckConfig mapping: nothing read of it or its children
        for member, value in members:  # usually none: every member decided
            if member == "HealthCheckConfig":
                return logical_id, member, value
            if member in PROBE_MEMBERS and depth > 0:
                continue  # a child's address: only whether it can fail counts
            if member == "Port" and not (isinstance(kind, str) and kind.upper().startswith("HTTP")):
                continue  # a TCP check's port: no verdict here rests on it
            if member == "FullyQualifiedDomainName" and has_ip:
                continue  # Route 53 probes the IPAddress
            # (a child that is itself undecided: ``undefined_children``, named above as a child no template defines)
            if not (member == "IPAddress" and value_key(value) in values):
                return logical_id, member, value
        check = checks.get(cid)
        todo.extend((child, depth + 1) for child in (check.children if check is not None else ()))
    return None


def _undecided_members(resource: Any) -> tuple[str, Any, bool, tuple[tuple[str, Any], ...] | None]:
    """(logical id, Type, whether IPAddress is set, the VERDICT_MEMBERS decided at deploy time, in order) of one
    health check resource; a HealthCheckConfig decided at deploy time as a whole is the one member; members None
    when HealthCheckConfig is no mapping."""
    cfg = resource.properties.get("HealthCheckConfig")
    if isinstance(cfg, Unresolved):
        return resource.logical_id, None, False, (("HealthCheckConfig", cfg),)
    if not isinstance(cfg, dict):
        return resource.logical_id, None, False, None
    if Unresolved not in map(type, cfg.values()):  # nearly every check (a C-level scan; Unresolved has no subclass)
        return resource.logical_id, cfg.get("Type"), cfg.get("IPAddress") is not None, ()
    members = tuple((m, cfg[m]) for m in VERDICT_MEMBERS if isinstance(cfg.get(m), Unresolved))
    return resource.logical_id, cfg.get("Type"), cfg.get("IPAddress") is not None, members


def _probe_findings(zones: Any, holders: dict[tuple[str, str, str], Any], key: Any, record: Any, view: Any,
                    hc: HealthCheck, where: str, kind: str, *, judged: bool) -> Iterator[Finding]:
    """What the endpoint check probes against the record it guards (route53 HealthCheckConfig: IPAddress,
    FullyQualifiedDomainName, Inverted): another record's address, the origin name itself, an address the
    templates cannot tie to the record, or an inverted endpoint check. ``judged``: False when the check never
    fails anyway (reported already): then only another record's address is said."""
    if hc.type not in ENDPOINT_TYPES:
        return
    elsewhere = hc.ip_address is not None and probed_elsewhere(hc, record.values)  # asked three times below
    another = elsewhere and _held_by_another(zones, holders, key, hc.ip_address)
    if another or (judged and elsewhere and _is_ip(hc.ip_address) and all(_is_ip(v) for v in record.values)):
        yield _probes_another(view, hc, record, where, kind,
                              "another record's address" if another else "an address this record does not hold")
        return
    if not judged:
        return
    if hc.inverted:
        # HealthCheckConfig.Inverted: "consider a health check unhealthy when it otherwise would be considered healthy".
        yield _error(view, kind, f"{where}: health check {hc.label or hc.id} is an Inverted {hc.type} check: Route 53 "
                     "calls the record healthy exactly when its endpoint does not answer, so it answers with a dead "
                     "NLB's IP and drops a live one")
    if hc.ip_address is None and hc.fqdn and hc.fqdn.rstrip(".").lower() == key.name.rstrip(".").lower():
        yield _error(view, kind, f"{where}: health check {hc.label or hc.id} has no IPAddress and probes "
                     f"FullyQualifiedDomainName {hc.fqdn}, the origin name itself: Route 53 resolves it and checks one "
                     "of the addresses DNS returns, not this record's, so the record stays in answers when its own NLB "
                     "is down")
    elif hc.ip_address is None and hc.fqdn:
        yield _not_judged(view, where, hc, "FullyQualifiedDomainName", hc.fqdn,
                          "with no IPAddress Route 53 checks an address DNS returns for this name; whether that is this "
                          "record's address is not judged", "set IPAddress to the record's address (the EIP) on the check")
    elif elsewhere and _is_ip(hc.ip_address):
        # A typed address against a record of deploy-time addresses (an EIP). The other way round (a record's
        # typed address, a check of an EIP) is EO-NLB2's: the record is not on an NLB's EIP.
        yield _not_judged(view, where, hc, "IPAddress", hc.ip_address,
                          f"the record holds {', '.join(record.values)}, addresses decided at deploy time: whether the "
                          "check probes one of them is not judged (Route 53 checks the IPAddress, not the record)",
                          "point the check's IPAddress at the record's own address (Ref of the same EIP)")


def _private_check(view: Any, hc: HealthCheck, where: str, kind: str) -> Iterator[Finding]:
    """A PRIVATE endpoint check the API refuses (route53 HealthCheckConfig.EndpointType: "PRIVATE : ... You must also
    specify HealthCheckSourceId"; not for CALCULATED, CLOUDWATCH_METRIC or RECOVERY_CONTROL checks)."""
    cfg = view.health_check.resource.properties.get("HealthCheckConfig") if view.health_check is not None else None
    source = cfg.get("HealthCheckSourceId") if isinstance(cfg, dict) else None
    if hc.type not in ENDPOINT_TYPES:
        yield _error(view, kind, f"{where}: health check {hc.label or hc.id} is {hc.type} with EndpointType PRIVATE, "
                     "which the API refuses (PRIVATE is for endpoint checks only): the deploy fails")
    elif source is None:
        yield _error(view, kind, f"{where}: health check {hc.label or hc.id} has EndpointType PRIVATE and no "
                     "HealthCheckSourceId, which the API requires ('You must also specify HealthCheckSourceId'): the "
                     "deploy fails")


def _error(view: Any, kind: str, text: str) -> Finding:
    return finding(RULE.id, origin_severity(Severity.ERROR, kind), view.resource, f"{view.label}: {text}", FIX)


def _not_judged(view: Any, where: str, hc: HealthCheck, member: str, element: Any, reason: str, needs: str) -> Finding:
    res = view.resource
    return not_judged(
        RULE.id, Severity.WARNING, subject=f"{view.label}: {where}: health check {hc.label or hc.id} {member}",
        element=element, reason=reason, needs=needs, template=res.template, stack=res.stack,
        resource=res.logical_id, path=res.path,
    )


def _probes_another(view: Any, hc: HealthCheck, record: Any, where: str, kind: str, what: str) -> Finding:
    return _error(view, kind, f"{where}: health check {hc.label or hc.id} probes {hc.ip_address} ({what}), not this "
                  f"record's address ({', '.join(record.values)}); Route 53 \"doesn't check the health of the endpoint "
                  "that is specified in the resource record set\": the record stays in answers when its own NLB is down")


def _is_ip(value: Any) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def _grpc_undecided(model: TemplateModel, name: str) -> tuple[str, Any] | None:
    """("distribution X GrpcConfig", value) when a behavior that targets origin ``name`` has a GrpcConfig decided at
    deploy time (it may be a gRPC origin), else None."""
    for dist in model.distributions:
        for behavior in dist.behaviors:
            if behavior.grpc_unknown and any(o.domain_name == name for o in behavior.origins):
                raw = behavior.raw.get("GrpcConfig") if isinstance(behavior.raw, dict) else None
                if isinstance(raw, dict):
                    raw = raw.get("Enabled", raw)
                return f"distribution {dist.resource.logical_id} GrpcConfig (a gRPC origin or not)", raw
    return None


def _https_check_of_the_grpc_port(model: TemplateModel, view: Any) -> tuple[int | None, tuple[str, Any] | None]:
    """(the port, None) when the record's check is HTTP(S)(_STR_MATCH) on an EIP of an NLB whose TCP listener on that
    port carries the gRPC origin's traffic (the pods' HTTP/2 port, TLS on the pods); (None, (what, value)) when only a
    value decided at deploy time (the listener's Port or Protocol, the balancer's Type) leaves that open; else
    (None, None)."""
    hc = view.health_check
    kind = (hc.type or "").upper() if hc is not None else ""
    if kind not in ("HTTPS", "HTTPS_STR_MATCH", "HTTP", "HTTP_STR_MATCH"):
        return None, None
    port = hc.port if hc.port is not None else (443 if kind.startswith("HTTPS") else 80)
    eip = model.eip(hc.ip_address)
    undecided: tuple[str, Any] | None = None
    for lb in eip.load_balancers if eip is not None else ():
        if not lb.may_be_network:
            continue
        for listener in lb.listeners:
            raw_port = listener.resource.properties.get("Port")
            port_open = deploy_time(raw_port) if listener.port is None else None
            protocol_open = listener.protocol_undecided
            if listener.port != port and port_open is not True:
                continue
            if (listener.protocol or "").upper() != "TCP" and protocol_open is None:
                continue
            if listener.port == port and protocol_open is None and lb.is_network:
                return port, None
            if undecided is None:
                label = listener.resource.logical_id
                undecided = (f"listener {label} Port", raw_port) if port_open else (
                    (f"listener {label} Protocol", protocol_open) if protocol_open is not None else
                    (f"load balancer {lb.resource.logical_id} Type", lb.resource.properties.get("Type")))
    return None, undecided


def _held_by_another(zones: Any, holders: dict[tuple[str, str, str], Any], key: Any, value: Any) -> bool:
    """Whether a record set of ``key``'s zone, name and type with another key holds ``value``."""
    group = (key.zone, key.name, key.type)
    counts = holders.get(group)
    if counts is None:
        by_value: Counter[Any] = Counter()
        by_key_value: Counter[Any] = Counter()
        for r in zones.sets_of(key):
            for v in set(r.values):
                by_value[v] += 1
                by_key_value[(r.key, v)] += 1
        counts = holders[group] = (by_value, by_key_value)
    return counts[0][value] - counts[1][(key, value)] > 0


RULE = Rule(
    id="EO-DNS2",
    severity=Severity.ERROR,
    title="Origin record Route 53 cannot take out of its answers",
    catches=(
        "A multivalue (or failover PRIMARY) record for an origin name without HealthCheckId, with a health check that "
        "never fails (Disabled, CALCULATED with HealthThreshold 0, Inverted over one that never succeeds), an "
        "Inverted endpoint check (healthy exactly when its endpoint is down), or with a check that probes another "
        "record's address (or, with no IPAddress, the origin name itself by FullyQualifiedDomainName), or a public "
        "endpoint check (EndpointType PUBLIC, the default) of a private address (10/8, 172.16/12, 192.168/16, "
        "100.64/10, fc00::/7), which no checker reaches, or an EndpointType PRIVATE check the API refuses (no "
        "HealthCheckSourceId, or not an endpoint check); and a warning for an HTTPS check of a gRPC origin's TCP "
        "listener port (Route 53's HTTPS checks are not documented to speak HTTP/2) or an HTTP one (cleartext to a "
        "port CloudFront reaches over TLS). A HealthCheckId no given template defines (a literal id, an import, a "
        "parameter), a typed IPAddress on a record of deploy-time addresses, or a FullyQualifiedDomainName check of "
        "another name, or a health check whose Type, Disabled, Inverted, HealthThreshold, ChildHealthChecks (its own or "
        "a child's), IPAddress (not the record's own value), FullyQualifiedDomainName or HTTP(S) Port is decided at "
        "deploy time is not judged (warning), never read as a check that works; so is an HTTP(S) check of an NLB "
        "EIP whose listener Port or Protocol, balancer Type or distribution GrpcConfig, decided at deploy time, may "
        "make it a check of the gRPC listener's port."
    ),
    incident="Multivalue answers without health checks keep handing out a failed zone's IP; new connections keep failing there.",
    fix=FIX,
    check=check,
    facts=("route53.health.endpoint_types", "route53.health.cfn_private", "route53.multivalue.all_unhealthy",
           "route53.health.https_tls"),
)
