"""The DNS plan of a name, read from the template model (never from CloudFormation directly)."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edge_origin.model import (
    ModelError,
    ResourceRef,
    TemplateModel,
    display_value,
    load_model,
    normalize_name,
)
from edge_origin.rehearsal.answers import ROUTING_POLICIES
from edge_origin.rehearsal.plan import DnsPlan, HealthCheckSpec, Origin, PlanError, PlanRecord

DEFAULT_ALIAS_TTL = 60  # an alias record has no TTL: resolvers get the target's (60 s for an ELB)


def _literal_ip(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    try:
        return str(ipaddress.IPv4Address(value.strip()))
    except ValueError:
        return None


def _origin_of_value(model: TemplateModel, value: Any, alias: bool = False) -> Origin | None:
    """The origin a record value stands for: an EIP (Ref or GetAtt), a load balancer, a literal IPv4,
    or (``alias``) the literal DNS name of an alias target."""
    if isinstance(value, ResourceRef):
        eip = model.eip(value)
        if eip is not None:
            key = ResourceRef(value.stack, value.logical_id).display()
            lbs = eip.load_balancers
            return Origin(key, nlb=lbs[0].resource.logical_id if lbs else key)
        lb = model.load_balancer(value)
        if lb is not None:
            key = ResourceRef(value.stack, value.logical_id).display()
            return Origin(key, nlb=lb.resource.logical_id)
        return None
    ip = _literal_ip(value)
    if ip is not None:
        return Origin(ip, nlb=ip)
    name = normalize_name(value) if alias else None
    if name:
        return Origin(name, nlb=name)
    return None


def plan_from_model(model: TemplateModel, name: str) -> DnsPlan:
    """The A record sets of ``name`` as a :class:`DnsPlan`; :class:`PlanError` when they cannot be rehearsed."""
    wanted = normalize_name(name)
    if wanted is None:
        raise PlanError(f"not a DNS name: {name!r}")
    found = [r for r in model.record_sets(wanted) if (r.type or "A") == "A"]
    if not found:
        known = [n for n in model.record_names() if isinstance(n, str)]
        hint = f"; names with records: {', '.join(known[:10])}" if known else "; the templates have no record sets"
        raise PlanError(f"no Route 53 A record sets for {wanted}{hint}")
    records: list[PlanRecord] = []
    origins: dict[str, Origin] = {}
    for view in found:
        if view.routing_policy not in ROUTING_POLICIES:
            raise PlanError(
                f"{view.stack}/{view.label}: routing policy {view.routing_policy} is not rehearsed "
                f"(one of {', '.join(ROUTING_POLICIES)})"
            )
        raw_values = [view.alias_target.dns_name] if view.alias_target is not None else list(view.values)
        keys: list[str] = []
        unresolvable: list[str] = []
        for value in raw_values:
            origin = _origin_of_value(model, value, alias=view.alias_target is not None)
            if origin is None:
                unresolvable.append(display_value(value))
                continue
            origins.setdefault(origin.key, origin)
            keys.append(origin.key)
        if unresolvable or not keys:
            what = ", ".join(unresolvable) or "no values"
            raise PlanError(
                f"{view.stack}/{view.label}: record for {wanted} points at nothing resolvable ({what}); "
                "values must be EIPs, load balancers, literal IPv4 addresses or alias target names"
            )
        hc = view.health_check
        spec = None
        if hc is not None:
            spec = HealthCheckSpec(
                key=f"{hc.resource.stack}/{hc.resource.logical_id}",
                type=str(hc.type or "TCP"),
                port=hc.port,
                request_interval=int(hc.request_interval or 30),
                failure_threshold=int(hc.failure_threshold or 3),
            )
        records.append(
            PlanRecord(
                set_identifier=display_value(view.set_identifier) if view.set_identifier is not None else "",
                routing=view.routing_policy,
                values=tuple(dict.fromkeys(keys)),
                ttl=int(view.ttl) if isinstance(view.ttl, int) else DEFAULT_ALIAS_TTL,
                weight=view.weight,
                health_check=spec,
                stack=view.stack,
                logical_id=view.label,
            )
        )
    return DnsPlan(name=wanted, records=tuple(records), origins=tuple(origins.values()))


def load_plan(paths: Sequence[str | Path], name: str) -> DnsPlan:
    """Load templates (files or a ``cdk.out``) through the template model and plan ``name``."""
    if not paths:
        raise PlanError("no templates given")
    try:
        model = load_model([str(p) for p in paths])
    except ModelError as exc:
        raise PlanError(str(exc)) from exc
    return plan_from_model(model, name)
