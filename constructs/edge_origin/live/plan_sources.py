"""Where plans come from: the live name (its records, or the NLBs its alias records point at),
synthesized templates resolved through the deployed stacks, and ``show`` of what is live.

Every function takes boto3 clients (made by ``LiveSession``) so tests hand in moto's, a botocore
``Stubber``'d client, or ``StrictRoute53``. Bad input raises ``LivePlanError`` (exit 2); a live state
that cannot give a safe plan (an NLB without Elastic IPs, no alias records to follow) raises
``enact.Refusal`` (exit 1) with what to do instead.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import botocore.exceptions

from edge_origin import _moved
from edge_origin.core.dns_names import canonical_name
from edge_origin.live.enact import Refusal
from edge_origin.live.name_state import LiveName, plan_blocker, read_name, routing_policy, zone_name
from edge_origin.live.paging import paginate
from edge_origin.live.plans import LiveHealthCheckSpec, LivePlanError, LivePlanRecord, Plan, parse_plan

DEFAULT_TTL = 60
_ZONE = re.compile(r"^[a-z]{2}(-[a-z0-9]+)+$")


@dataclass(frozen=True)
class AddressAtZone:
    """One origin address and its Availability Zone (``--address IP@ZONE``)."""

    ip: str
    zone: str
    source: str = ""  # e.g. the load balancer's name


def parse_address(text: str) -> AddressAtZone:
    """``203.0.113.10@us-east-1a`` or ``2001:db8::10@us-east-1a`` -> AddressAtZone (IPv6 in its short
    form, as Route 53 spells it); LivePlanError naming ``--address`` otherwise."""
    ip, sep, zone = text.rpartition("@")
    if not sep or not zone or not ip:
        raise LivePlanError(f"--address {text!r}: no zone; expected IP@ZONE such as 203.0.113.10@us-east-1a or 2001:db8::10@us-east-1a")
    try:
        ip = str(ipaddress.ip_address(ip))
    except ValueError:
        raise LivePlanError(f"--address {text!r}: {ip!r} is not an IPv4 or IPv6 address") from None
    if not _ZONE.match(zone) or len(zone) > 64:
        raise LivePlanError(f"--address {text!r}: {zone!r} is not an Availability Zone name such as us-east-1a")
    return AddressAtZone(ip, zone)


def _unique_sid(base: str, used: set[str]) -> str:
    sid, n = base[:128], 2
    while sid in used:
        sid = f"{base[:120]}-{n}"
        n += 1
    used.add(sid)
    return sid


def _build_plan(live: LiveName, zone_id: str, name: str, addresses: Sequence[AddressAtZone], health_check: LiveHealthCheckSpec,
                ttl: int | None, sid_of: dict[str, str]) -> Plan:
    """A multivalue plan at live + 1: live multivalue records with the same IP keep their set
    identifier and health check; new ones get ``sid_of[ip]`` (or ``origin-<zone>``)."""
    by_ip = {}
    for rec in live.records:
        values = [v["Value"] for v in rec.get("ResourceRecords") or []]
        if routing_policy(rec) == "multivalue" and len(values) == 1:  # the one routing table (name_state.routing_policy)
            by_ip.setdefault(values[0], rec)
    used: set[str] = {r["SetIdentifier"] for r in by_ip.values()}
    records = []
    seen: set[str] = set()
    for addr in addresses:
        if addr.ip in seen:
            raise LivePlanError(f"--address {addr.ip}@{addr.zone}: {addr.ip} is given twice")
        seen.add(addr.ip)
        current = by_ip.get(addr.ip)
        if current is not None and current.get("HealthCheckId"):
            records.append(LivePlanRecord(current["SetIdentifier"], addr.ip, addr.zone, current["HealthCheckId"], None))
            continue
        sid = current["SetIdentifier"] if current is not None else _unique_sid(sid_of.get(addr.ip, f"origin-{addr.zone}"), used)
        records.append(LivePlanRecord(sid, addr.ip, addr.zone, None, health_check))
    if ttl is None:
        ttls = {r["TTL"] for r in live.records if r.get("TTL") is not None}
        ttl = ttls.pop() if len(ttls) == 1 and 0 <= next(iter(ttls)) <= 86400 else DEFAULT_TTL
    plan = Plan(name=name.rstrip("."), hosted_zone_id=zone_id, generation=live.live_generation + 1, ttl=ttl, records=tuple(records))
    return parse_plan(plan.to_json(), "generated plan")  # the same checks as a plan file


def plan_from_live(route53: Any, zone_id: str, name: str, *, addresses: Sequence[AddressAtZone] | None = None,
                   elbv2: Any = None, health_check: LiveHealthCheckSpec | None = None, ttl: int | None = None) -> Plan:
    """A multivalue plan for ``name`` from ``addresses`` or (``elbv2`` given) from the NLBs its
    alias records point at. Generation: the live one + 1."""
    zone = zone_name(route53, zone_id)
    live = read_name(route53, zone_id, name, zone)
    if (why := plan_blocker(live)) is not None:
        raise Refusal(why)
    health_check = health_check or LiveHealthCheckSpec()
    sid_of: dict[str, str] = {}
    if addresses:
        chosen = list(addresses)
    else:
        if elbv2 is None:
            raise LivePlanError("give --address IP@ZONE (one or more) or --from-load-balancers")
        chosen = load_balancer_addresses(elbv2, live)
        sid_of = {a.ip: f"{a.source}-{a.zone}" for a in chosen}
    return _build_plan(live, zone_id, name, chosen, health_check, ttl, sid_of)


def _lb_dns(name: str) -> str:
    return canonical_name(name).removeprefix("dualstack.")


def load_balancer_addresses(elbv2: Any, live: LiveName) -> list[AddressAtZone]:
    """The Elastic IPs of the NLBs the name's alias records point at, one per zone, and, when
    the name has AAAA alias records, the NLBs' IPv6 addresses (a dualstack NLB has one a zone,
    ``LoadBalancerAddresses[].IPv6Address``); Refusal when an AAAA alias points at an NLB with none."""
    targets = [_lb_dns(r["AliasTarget"]["DNSName"]) for r in live.records if r.get("AliasTarget")]
    ipv6_targets = {_lb_dns(r["AliasTarget"]["DNSName"]) for r in live.records if r.get("AliasTarget") and r.get("Type") == "AAAA"}
    if not targets:
        raise Refusal(
            f"{live.name} has no alias records pointing at load balancers "
            f"(it is {live.routing_policy}); pass --address IP@ZONE for each origin address"
        )
    by_dns: dict[str, dict[str, Any]] = {}
    for page in paginate(elbv2, "describe_load_balancers"):
        for lb in page.get("LoadBalancers", []):
            by_dns[canonical_name(lb["DNSName"])] = lb
    out: list[AddressAtZone] = []
    for target in dict.fromkeys(targets):
        lb = by_dns.get(target)
        if lb is None:
            raise Refusal(f"alias target {target} is not a load balancer this region's describe_load_balancers knows; pass --address IP@ZONE")
        if lb.get("Type") != "network":
            raise Refusal(
                f"{lb['LoadBalancerName']} ({target}) is an {lb.get('Type')} load balancer: it has no static addresses; "
                "multivalue records need NLBs with one Elastic IP per zone"
            )
        for az in lb.get("AvailabilityZones", []):
            eips = [a for a in az.get("LoadBalancerAddresses", []) if a.get("AllocationId") and a.get("IpAddress")]
            if not eips:
                raise Refusal(
                    f"load balancer {lb['LoadBalancerName']} has no Elastic IP in {az.get('ZoneName')}: its addresses can "
                    "change, so records cannot pin them. Give the NLB one Elastic IP per zone (SubnetMappings with an "
                    "AllocationId, set when the NLB is created; edge-origin's OriginFleet does this), or pass --address IP@ZONE"
                )
            out.extend(AddressAtZone(e["IpAddress"], az["ZoneName"], lb["LoadBalancerName"]) for e in eips)
            if target in ipv6_targets:
                v6 = [a["IPv6Address"] for a in az.get("LoadBalancerAddresses", []) if a.get("IPv6Address")]
                if not v6:
                    raise Refusal(
                        f"{live.name} has AAAA alias records to {lb['LoadBalancerName']}, which has no IPv6 address in "
                        f"{az.get('ZoneName')} (IpAddressType {lb.get('IpAddressType', 'ipv4')}): pass --address IPV6@ZONE for "
                        "each IPv6 origin address, or the AAAA sets would stay weighted"
                    )
                out.extend(AddressAtZone(str(ipaddress.ip_address(a)), az["ZoneName"], f"{lb['LoadBalancerName']}-ipv6") for a in v6)
    return out


# --- from synthesized templates ----------------------------------------------------------------
def plan_from_template(paths: Sequence[str | Path], route53: Any, cloudformation: Any, ec2: Any, zone_id: str, name: str, *,
                       health_check: LiveHealthCheckSpec | None = None, ttl: int | None = None) -> Plan:
    """A plan from the synthesized A and AAAA records of ``name``, each EIP resolved through the deployed
    stack's physical ids (``describe_stack_resources``) and checked with ``describe_addresses``."""
    from edge_origin.model import ModelError, ResourceRef, load_model

    try:
        model = load_model(paths)
    except ModelError as exc:
        raise LivePlanError(str(exc)) from None
    records = [r for r in model.record_sets(canonical_name(name)) if r.type in ("A", "AAAA")]  # every address type
    if not records:
        raise LivePlanError(f"--name {name}: no A or AAAA records of that name in {', '.join(map(str, paths))}")
    zone = zone_name(route53, zone_id)
    live = read_name(route53, zone_id, name, zone)
    if (why := plan_blocker(live)) is not None:
        raise Refusal(why)
    physical: dict[str, dict[str, str]] = {}
    addresses: list[AddressAtZone] = []
    sid_of: dict[str, str] = {}
    specs: dict[str, LiveHealthCheckSpec] = {}
    deployed_checks: dict[str, str] = {}
    for record in records:
        for value in record.values:
            if isinstance(value, str):
                ip, az = value, None
            elif isinstance(value, ResourceRef) and (res := model.target(value)) is not None and res.type == "AWS::EC2::EIP":
                ids = stack_ids(cloudformation, model, res.stack, physical)
                pid = ids.get(res.logical_id)
                if pid is None:
                    raise LivePlanError(f"{res.template}: {res.logical_id}: stack {res.stack} has no deployed resource of that logical id")
                ip = _eip_address(ec2, pid, f"{res.stack}/{res.logical_id}")
                eip = model.eip(value)
                az = eip.zone if eip is not None else None
            else:
                raise LivePlanError(f"{record.resource.template}: {record.logical_id}: record value {value!r} is neither an IP nor an EIP")
            zone_label = az or "unknown"
            addresses.append(AddressAtZone(ip, zone_label))
            if isinstance(record.set_identifier, str):
                sid_of[ip] = record.set_identifier if len(record.values) == 1 else f"{record.set_identifier}-{ip}"
            else:
                sid_of[ip] = f"{record.logical_id}-{zone_label}"
            hc_ref = record.health_check_id
            if isinstance(hc_ref, ResourceRef) and (hc_res := model.target(hc_ref)) is not None:
                ids = stack_ids(cloudformation, model, hc_res.stack, physical)
                if ids.get(hc_res.logical_id):
                    deployed_checks[ip] = ids[hc_res.logical_id]
            elif isinstance(hc_ref, str) and hc_ref:
                deployed_checks[ip] = hc_ref
            hc = record.health_check
            if hc is not None and hc.type in ("TCP", "HTTP", "HTTPS") and isinstance(hc.port, int):
                specs[ip] = LiveHealthCheckSpec(hc.type, hc.port, hc.request_interval or 30, hc.failure_threshold or 3,
                                            hc.resource_path if isinstance(hc.resource_path, str) and hc.type != "TCP" else None)
    default = health_check or LiveHealthCheckSpec()
    plan = _build_plan(live, zone_id, name, addresses, default, ttl if ttl is not None else _template_ttl(records), sid_of)
    records_out = []
    for r in plan.records:
        if r.health_check_id is None and r.ip in deployed_checks:
            r = LivePlanRecord(r.set_identifier, r.ip, r.zone, deployed_checks[r.ip], None)
        elif r.health_check_id is None and r.ip in specs:
            r = LivePlanRecord(r.set_identifier, r.ip, r.zone, None, specs[r.ip])
        records_out.append(r)
    plan = Plan(plan.name, plan.hosted_zone_id, plan.generation, plan.ttl, tuple(records_out))
    return parse_plan(plan.to_json(), "generated plan")


def _template_ttl(records: Sequence[Any]) -> int | None:
    ttls = {r.ttl for r in records if isinstance(r.ttl, int)}
    return ttls.pop() if len(ttls) == 1 and 0 <= next(iter(ttls)) <= 86400 else None


def stack_ids(cloudformation: Any, model: Any, stack: str, physical: dict[str, dict[str, str]]) -> dict[str, str]:
    """``{logical id: physical id}`` of a stack of the model, read once into ``physical``; a nested
    stack (issue 49: ``Parent/Child``) is read by the id its parent's ``AWS::CloudFormation::Stack`` holds."""
    if stack not in physical:
        parent = model.templates[stack].parent
        name = stack
        if parent is not None:
            found = stack_ids(cloudformation, model, parent[0], physical).get(parent[1])
            if found is None:
                raise LivePlanError(f"stack {stack}: nested in {parent[0]}, whose {parent[1]} is not deployed here")
            name = found
        physical[stack] = _stack_physical_ids(cloudformation, name)
    return physical[stack]


def _stack_physical_ids(cloudformation: Any, stack: str) -> dict[str, str]:
    try:
        resources = cloudformation.describe_stack_resources(StackName=stack)["StackResources"]
    except botocore.exceptions.ClientError as exc:
        err = exc.response.get("Error", {})
        raise LivePlanError(f"stack {stack}: not deployed here ({err.get('Code')}: {err.get('Message')})") from None
    return {r["LogicalResourceId"]: r["PhysicalResourceId"] for r in resources if r.get("PhysicalResourceId")}


def _eip_address(ec2: Any, physical_id: str, where: str) -> str:
    """The public IP of an EIP whose physical id is its address or its allocation id."""
    try:
        if physical_id.startswith("eipalloc-"):
            found = ec2.describe_addresses(AllocationIds=[physical_id])["Addresses"]
        else:
            found = ec2.describe_addresses(PublicIps=[physical_id])["Addresses"]
    except botocore.exceptions.ClientError as exc:
        err = exc.response.get("Error", {})
        raise LivePlanError(f"{where}: Elastic IP {physical_id} not found ({err.get('Code')}: {err.get('Message')})") from None
    if not found or not found[0].get("PublicIp"):
        raise LivePlanError(f"{where}: Elastic IP {physical_id} not found")
    return found[0]["PublicIp"]


# --- show --------------------------------------------------------------------------------------
def show_text(live: LiveName) -> str:
    """What is live for one name: routing policy, generation, records."""
    gen = live.generation
    by_type = live.policies_by_type()
    per_type = f" ({', '.join(f'{t}: {p}' for t, p in by_type.items())})" if len(by_type) > 1 else ""
    lines = [
        f"{live.name} in {live.zone_name} ({live.zone_id})",
        f"  routing policy: {live.routing_policy}{per_type}",
        f"  generation: {gen.number} (digest {gen.digest}; previous {gen.previous if gen.previous is not None else '-'})"
        if gen else ("  generation: none (never enacted)" if not live.foreign_generation_record
                     else "  generation: a TXT record edge-origin did not write holds the label"),
        f"  records: {len(live.records)}",
    ]
    for rec in live.records:
        sid = rec.get("SetIdentifier", "-")
        if rec.get("AliasTarget"):
            what = f"alias {rec['AliasTarget']['DNSName']}"
        else:
            what = ", ".join(v["Value"] for v in rec.get("ResourceRecords") or []) + f" ttl {rec.get('TTL')}"
        extra = f" weight {rec['Weight']}" if rec.get("Weight") is not None else ""
        hc = f" health check {rec['HealthCheckId']}" if rec.get("HealthCheckId") else ""
        rtype = f" {rec.get('Type')}" if rec.get("Type") != "A" else ""
        lines.append(f"    [{sid}]{rtype} {routing_policy(rec)}{extra}: {what}{hc}")
    return "\n".join(lines) + "\n"


__getattr__ = _moved.old_names(__name__)  # old class names, until 0.3
