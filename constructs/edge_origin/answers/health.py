"""Health as Route 53 decides it: pure functions over health checks and observations.

The sentences each rule rests on (Route 53 API reference, botocore route53 2013-04-01
service-2.json, ``HealthCheckConfig`` and ``ResourceRecordSet`` members; Route 53 developer
guide, "How Amazon Route 53 determines whether a health check is healthy"):

* no health check: "If you don't associate a health check with a multivalue answer record,
  Route 53 always considers the record to be healthy."
* ``Disabled``: "After you disable a health check, Route 53 considers the status of the health
  check to always be healthy."
* ``Inverted``: "invert the status of a health check, for example, to consider a health check
  unhealthy when it otherwise would be considered healthy."
* CALCULATED ``HealthThreshold``: "If you specify a number greater than the number of child
  health checks, Route 53 always considers this health check to be unhealthy. If you specify 0,
  Route 53 always considers this health check to be healthy."
* CloudWatch alarm checks: healthy while the alarm is OK; ``InsufficientDataHealthStatus``
  Healthy | Unhealthy | LastKnownStatus ("For new health checks that have no last known status,
  the default status for the health check is healthy").
* endpoint checks: "If more than 18% of health checkers report that an endpoint is healthy,
  Route 53 considers it healthy" (developer guide); ``Regions``: "If you don't specify any
  regions, Route 53 health checkers automatically performs checks from all of the regions".
* ``EvaluateTargetHealth``: "an alias resource record set inherits the health of the referenced
  Amazon Web Services resource"; an NLB/ALB is healthy when "every target group that contains
  targets must contain at least one healthy target".
* "Route 53 doesn't check the health of the endpoint that is specified in the resource record
  set": a check that probes another address than the record's says nothing about the record.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from edge_origin.answers.types import fills_dict
from edge_origin.core.facts import value
from edge_origin.core.fast_dataclass import dataclass, field

#: Share of checkers that must report healthy, strictly more than this (developer guide).
HEALTHY_CHECKER_SHARE: float = value("route53.health.healthy_share")
#: The HealthCheckRegion values (HealthCheckConfig.Regions' valid values): the default set.
CHECKER_REGIONS = (
    "us-east-1", "us-west-1", "us-west-2", "eu-west-1", "ap-southeast-1", "ap-southeast-2", "ap-northeast-1", "sa-east-1",
)
ENDPOINT_TYPES = ("HTTP", "HTTPS", "HTTP_STR_MATCH", "HTTPS_STR_MATCH", "TCP")
#: Addresses only a VPC reaches (RFC 1918, RFC 6598 shared space, IPv6 unique local): never an internet checker's.
VPC_PRIVATE_NETWORKS = tuple(
    ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7")
)
#: How deep CALCULATED checks may nest before the evaluation stops (Route 53 allows no cycles).
MAX_DEPTH = 16


@fills_dict
@dataclass(frozen=True)
class HealthCheck:
    """A Route 53 health check, the fields that decide its status."""

    id: str
    type: str = "TCP"
    disabled: bool = False
    inverted: bool = False
    children: tuple[str, ...] = ()
    health_threshold: int | None = None
    regions: tuple[str, ...] = ()
    ip_address: str | None = None
    fqdn: str | None = None
    port: int | None = None
    alarm: str | None = None
    insufficient_data: str | None = None  # Healthy | Unhealthy | LastKnownStatus
    label: str = ""
    endpoint_type: str = "PUBLIC"  # HealthCheckConfig.EndpointType: PUBLIC (the default) or PRIVATE (a health check source)

    @property
    def checker_regions(self) -> tuple[str, ...]:
        """The regions whose checkers probe the endpoint: ``Regions``, else all of them."""
        return self.regions or CHECKER_REGIONS


@dataclass(frozen=True)
class HealthState:
    """What is observed now. Anything not given is healthy (a new check starts healthy).

    ``checker_shares``: check id -> share of checkers reporting healthy (endpoint checks);
    ``down_addresses``: endpoints that do not answer (their checks see 0 % healthy);
    ``alarms``: alarm name -> OK | ALARM | INSUFFICIENT_DATA; ``last_known``: check id -> status;
    ``load_balancers_down``: DNS names of load balancers with a target group without a healthy target.
    """

    checker_shares: Mapping[str, float] = field(default_factory=dict)
    down_addresses: frozenset[str] = frozenset()
    alarms: Mapping[str, str] = field(default_factory=dict)
    last_known: Mapping[str, bool] = field(default_factory=dict)
    load_balancers_down: frozenset[str] = frozenset()


ALL_HEALTHY = HealthState()


def share_is_healthy(share: float) -> bool:
    """Route 53 calls an endpoint healthy when more than 18 % of its checkers say so."""
    return share > HEALTHY_CHECKER_SHARE


def reachable_share(check: HealthCheck, reachable_regions: frozenset[str] | set[str]) -> float:
    """The share of ``check``'s checkers (its ``Regions``, else all) that can reach the endpoint."""
    regions = check.checker_regions
    return sum(1 for r in regions if r in reachable_regions) / len(regions)


def _raw_status(check: HealthCheck, checks: Mapping[str, HealthCheck], state: HealthState, depth: int) -> bool:
    if check.type == "CALCULATED":
        healthy_children = sum(1 for c in check.children if check_healthy(c, checks, state, depth + 1))
        return healthy_children >= _threshold(check)  # 0: always healthy; above the children: never
    if check.type == "CLOUDWATCH_METRIC":
        alarm = state.alarms.get(check.alarm or "", "OK")
        if alarm == "ALARM":
            return False
        if alarm == "INSUFFICIENT_DATA":
            policy = check.insufficient_data or "LastKnownStatus"
            if policy == "Healthy":
                return True
            if policy == "Unhealthy":
                return False
            return state.last_known.get(check.id, True)
        return True
    if check.id in state.checker_shares:
        return share_is_healthy(state.checker_shares[check.id])
    if check.ip_address is not None and check.ip_address in state.down_addresses:
        return False
    return not (check.fqdn is not None and check.fqdn in state.down_addresses)


def check_healthy(check_id: str, checks: Mapping[str, HealthCheck], state: HealthState = ALL_HEALTHY, depth: int = 0) -> bool:
    """The status Route 53 gives ``check_id`` (a check not in ``checks`` counts as healthy)."""
    check = checks.get(check_id)
    if check is None or depth > MAX_DEPTH:
        return True
    if check.disabled:
        return True  # "considers the status of the health check to always be healthy"
    if state is ALL_HEALTHY and check.type != "CALCULATED":
        return not check.inverted  # nothing observed: an endpoint or alarm check reports healthy (_raw_status)
    status = _raw_status(check, checks, state, depth)
    return not status if check.inverted else status


def nested_too_deep(check_id: str, checks: Mapping[str, HealthCheck]) -> bool:
    """Whether judging ``check_id`` reaches a check more than ``MAX_DEPTH`` CALCULATED levels down, where
    :func:`check_healthy` stops (and counts it healthy): the caller must say "not judged" there. One
    level at a time (each check once a level), so a wide tree or a cycle costs levels x checks."""
    level = {check_id}
    for _ in range(MAX_DEPTH + 1):
        parents = [c for c in (checks.get(i) for i in level) if c is not None and c.type == "CALCULATED" and not c.disabled]
        level = {child for c in parents for child in c.children}
        if not level:
            return False
    return True  # children at depth MAX_DEPTH + 1: not evaluated


def undefined_children(check_id: str, checks: Mapping[str, HealthCheck]) -> tuple[str, ...]:
    """The child checks below ``check_id`` (CALCULATED, enabled, down to ``MAX_DEPTH`` levels, where
    :func:`check_healthy` reads them) that ``checks`` does not hold, in the order met: the model counts each as
    healthy and able to fail, which is a guess. Deeper, :func:`nested_too_deep` says the status is not judged."""
    first = checks.get(check_id)
    if first is None or first.type != "CALCULATED" or first.disabled:
        return ()  # no children below it (the walk's first level)
    found: dict[str, None] = {}
    level = [check_id]
    for _ in range(MAX_DEPTH):
        parents = [c for c in (checks.get(i) for i in level) if c is not None and c.type == "CALCULATED" and not c.disabled]
        level = list(dict.fromkeys(child for c in parents for child in c.children))  # each check once a level
        if not level:
            break  # nothing below: the levels left are empty too
        found.update((child, None) for child in level if child not in checks)
    return tuple(found)


def can_fail(check_id: str | None, checks: Mapping[str, HealthCheck], depth: int = 0) -> bool:
    """Whether the check can ever report unhealthy (False: no check, Disabled, threshold 0, ...)."""
    if check_id is None:
        return False
    check = checks.get(check_id)
    if check is None:
        return True  # defined elsewhere: assume it works
    if check.disabled or depth > MAX_DEPTH:
        return False
    return _raw_can_succeed(check, checks, depth) if check.inverted else _raw_can_fail(check, checks, depth)


def can_succeed(check_id: str | None, checks: Mapping[str, HealthCheck], depth: int = 0) -> bool:
    """Whether the check can ever report healthy (False: always unhealthy, e.g. Inverted of a
    check that cannot fail, or a threshold above the number of children)."""
    if check_id is None:
        return True
    check = checks.get(check_id)
    if check is None or check.disabled or depth > MAX_DEPTH:
        return True
    return _raw_can_fail(check, checks, depth) if check.inverted else _raw_can_succeed(check, checks, depth)


def _threshold(check: HealthCheck) -> int:
    return check.health_threshold if check.health_threshold is not None else len(check.children)


def _raw_can_succeed(check: HealthCheck, checks: Mapping[str, HealthCheck], depth: int) -> bool:
    """Before Inverted: some state makes it healthy (CALCULATED: enough children can be healthy)."""
    if check.type == "CALCULATED":
        return _threshold(check) <= sum(1 for c in check.children if can_succeed(c, checks, depth + 1))
    return True


def _raw_can_fail(check: HealthCheck, checks: Mapping[str, HealthCheck], depth: int) -> bool:
    """Before Inverted: some state makes it unhealthy (CALCULATED: too few children can stay healthy)."""
    if check.type == "CALCULATED":
        always_healthy = sum(1 for c in check.children if not can_fail(c, checks, depth + 1))
        return always_healthy < _threshold(check)
    return True


def why_never_fails(check_id: str | None, checks: Mapping[str, HealthCheck]) -> str | None:
    """Why this check can never take its record out of answers, or None when it can."""
    if check_id is None:
        return "no health check"
    check = checks.get(check_id)
    if check is None or (check.type != "CALCULATED" and not check.disabled and not check.inverted):
        return None  # defined elsewhere (assumed to work), or an enabled endpoint check: can_fail's first level
    if can_fail(check_id, checks):
        return None
    name = check.label or check.id
    if check.disabled:
        return f"health check {name} is Disabled (Route 53 then considers it always healthy)"
    if check.type == "CALCULATED" and (check.health_threshold or 0) <= 0 and not check.inverted:
        return f"CALCULATED health check {name} has HealthThreshold 0 (Route 53 then considers it always healthy)"
    if check.inverted:
        return f"health check {name} is Inverted over a check that never succeeds (always healthy)"
    return f"health check {name} never reports unhealthy (its children cannot fail)"


def public_check_of_private_address(check: HealthCheck) -> bool:
    """An endpoint check Route 53's internet checkers run (EndpointType PUBLIC, the default) against a literal
    private address: no checker can reach it, so it never reports healthy (a private endpoint check goes through
    a health check source in the VPC: ``EndpointType`` PRIVATE, ``HealthCheckSourceId``)."""
    if check.type not in ENDPOINT_TYPES or check.endpoint_type == "PRIVATE" or check.ip_address is None:
        return False
    if "/" in check.ip_address:
        return False  # an EIP's key (``Stack/Eip``): ip_address refuses any text with a "/" (a costly ValueError)
    return _vpc_private(check.ip_address)


def _vpc_private(text: str) -> bool:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return any(address in net for net in VPC_PRIVATE_NETWORKS if net.version == address.version)


def probed_elsewhere(check: HealthCheck, addresses: tuple[str, ...]) -> bool:
    """The check probes an IP address that is not among the record's own addresses: Route 53
    "doesn't check the health of the endpoint that is specified in the resource record set"."""
    if check.type not in ENDPOINT_TYPES or check.ip_address is None or not addresses:
        return False
    return check.ip_address not in addresses
