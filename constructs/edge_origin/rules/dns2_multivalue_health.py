"""EO-DNS2: an origin record Route 53 can never take out of its answers (no health check, or one
that never fails: Disabled, HealthThreshold 0, ...), or whose check probes another address.

Judged from the answer model's health (``edge_origin.answers.health``) for the record sets a
resolver chooses among: multivalue records and failover PRIMARY records (CNAME/alias chains
followed, per zone). An alias with EvaluateTargetHealth inherits its target's health.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from edge_origin.answers import probed_elsewhere, public_check_of_private_address, why_never_fails
from edge_origin.answers.health import undefined_children
from edge_origin.core.findings import Finding, Severity
from edge_origin.model import TemplateModel, display_value
from edge_origin.rules.base import Rule, finding, origin_label, origin_resolutions, origin_severity, with_cdk
from edge_origin.rules.not_judged import not_judged

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
    "HealthCheckSourceId of a health check source in the VPC; API only, not yet in CloudFormation), or a "
    "CLOUDWATCH_METRIC check on the target group's HealthyHostCount alarm.",
    "InternalGrpcOrigin does the alarm check (one CloudWatch alarm per target group); by hand "
    "`route53.CfnHealthCheck(health_check_config={\"type\": \"CLOUDWATCH_METRIC\", \"alarmIdentifier\": ...})`.",
)
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
        for key in item.resolution.record_keys:
            record = zones.record_by_key(key)
            view = zones.view_of(key)
            if record is None or view is None or id(view) in seen or record.policy not in HEALTH_DECIDES:
                continue
            if record.policy == "failover" and (record.failover or "").upper() != "PRIMARY":
                continue  # the secondary answers only while the primary is unhealthy
            seen.add(id(view))
            if record.alias is not None and record.alias.evaluate_target_health and record.health_check_id is None:
                continue  # "an alias resource record set inherits the health of the referenced resource"
            where = f"{record.policy} record in {item.zone.label} for {origin_label(name, kind)}"
            if view.health_check_id is not None and view.health_check is None:
                # A check the templates do not define (a literal id, an import, a parameter): it may be disabled,
                # inverted or probe another address. Not judged, never "it works" (issue 34's rule: fail closed).
                res = view.resource
                yield not_judged(
                    RULE.id, Severity.WARNING, subject=f"{view.label}: {where}: HealthCheckId",
                    element=display_value(view.health_check_id),
                    reason="no given template defines this health check; whether Route 53 can take the record out of "
                           "its answers is not judged",
                    needs=NEEDS_CHECK, template=res.template, stack=res.stack, resource=res.logical_id, path=res.path,
                )
                continue
            hidden = undefined_children(record.health_check_id, checks) if view.health_check is not None else ()
            if hidden:  # a CALCULATED check over children defined elsewhere: judged below only where they cannot matter
                res = view.resource
                yield not_judged(
                    RULE.id, Severity.WARNING, subject=f"{view.label}: {where}: CALCULATED health check "
                    f"{view.health_check.resource.logical_id} ChildHealthChecks",
                    element=", ".join(hidden),
                    reason="no given template defines these child health checks; whether Route 53 can take the record "
                           "out of its answers is not judged",
                    needs=NEEDS_CHECK, template=res.template, stack=res.stack, resource=res.logical_id, path=res.path,
                )
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
            hc = checks.get(record.health_check_id or "")
            grpc_port = _https_check_of_the_grpc_port(model, view) if kind == "grpc" and reason is None else None
            if grpc_port is not None:
                yield finding(
                    RULE.id, Severity.WARNING, view.resource,
                    f"{view.label}: {where}: health check {view.health_check.resource.logical_id} is "
                    f"{view.health_check.type} on port {grpc_port}, the gRPC listener's: Route 53's HTTPS checks speak "
                    "TLS 1.0-1.2 and send an HTTP/1.1 request, and are not documented to speak HTTP/2, so against an "
                    "HTTP/2-only gRPC port (grpc-go refuses a TLS handshake without ALPN h2) every check can fail and "
                    "Route 53 then answers with every record (fail-open)",
                    HTTPS_FIX,
                )
            if hc is not None and reason is None and public_check_of_private_address(hc):
                yield finding(
                    RULE.id, origin_severity(Severity.ERROR, kind), view.resource,
                    f"{view.label}: {where}: health check {hc.label or hc.id} is a public endpoint check of the private "
                    f"address {hc.ip_address}: Route 53's checkers probe from the internet and never reach it, so the "
                    "record is never healthy (and with every record unhealthy Route 53 answers with all of them: "
                    "fail-open); a private endpoint check needs EndpointType PRIVATE through a health check source, "
                    "which CloudFormation cannot declare yet",
                    PRIVATE_FIX,
                )
            if hc is not None and probed_elsewhere(hc, record.values) and _held_by_another(zones, holders, key, hc.ip_address):
                yield finding(
                    RULE.id, origin_severity(Severity.ERROR, kind), view.resource,
                    f"{view.label}: {where}: health check {hc.label or hc.id} probes {hc.ip_address} (another record's address), not this record's "
                    f"address ({', '.join(record.values)}); Route 53 \"doesn't check the health of the endpoint that is "
                    "specified in the resource record set\": the record stays in answers when its own NLB is down",
                    FIX,
                )


def _https_check_of_the_grpc_port(model: TemplateModel, view: Any) -> int | None:
    """The port, when the record's check is HTTPS(_STR_MATCH) on an EIP of an NLB whose TCP listener on that port
    carries the gRPC origin's traffic (the pods' HTTP/2 port, TLS on the pods)."""
    hc = view.health_check
    if hc is None or (hc.type or "").upper() not in ("HTTPS", "HTTPS_STR_MATCH"):
        return None
    port = hc.port if hc.port is not None else 443
    eip = model.eip(hc.ip_address)
    for lb in eip.load_balancers if eip is not None else ():
        if lb.is_network and any(listener.port == port and (listener.protocol or "").upper() == "TCP" for listener in lb.listeners):
            return port
    return None


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
        "never fails (Disabled, CALCULATED with HealthThreshold 0, Inverted over one that never succeeds), or with a "
        "check that probes another record's address, or a public endpoint check (EndpointType PUBLIC, the default) "
        "of a private address (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7), which no checker reaches; and a "
        "warning for an HTTPS check of a gRPC origin's TCP listener port (Route 53's HTTPS checks are not documented "
        "to speak HTTP/2). A "
        "HealthCheckId no given template defines (a literal id, an "
        "import, a parameter) is not judged (warning), never read as a check that works."
    ),
    incident="Multivalue answers without health checks keep handing out a failed zone's IP; new connections keep failing there.",
    fix=FIX,
    check=check,
    facts=("route53.health.endpoint_types", "route53.health.cfn_private", "route53.multivalue.all_unhealthy",
           "route53.health.https_tls"),
)
