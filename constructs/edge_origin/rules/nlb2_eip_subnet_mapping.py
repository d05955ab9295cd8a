"""EO-NLB2: a multivalue origin record whose value is not an EIP attached to an NLB subnet mapping."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import ResourceRef, TemplateModel, Unresolved, display_value
from edge_origin.rules.base import (
    Rule,
    answer_views,
    finding,
    origin_label,
    origin_resolutions,
    origin_severity,
    with_cdk,
)

FIX = with_cdk(
    "EO-NLB2",
    "Point each multivalue origin record at an EIP (Ref or Fn::GetAtt PublicIp) that the NLB attaches through "
    "SubnetMappings[].AllocationId, one EIP per zone.",
    '`elbv2.NetworkLoadBalancer(subnet_mappings=[elbv2.SubnetMapping(subnet=s, allocation_id=eip.attr_allocation_id)])` and records of `eip.ref`; OriginFleet does both (fleet.addresses for MultivalueOriginRecords).',
)


def _private_addresses(model: TemplateModel) -> set[str]:
    """Literal ``PrivateIPv4Address``es of internal NLB subnet mappings (InternalGrpcOrigin's records)."""
    out: set[str] = set()
    for lb in model.load_balancers:
        props = lb.resource.properties
        mappings = props.get("SubnetMappings") if lb.is_network and isinstance(props, dict) else None
        for mapping in mappings if isinstance(mappings, list) else ():
            address = mapping.get("PrivateIPv4Address") if isinstance(mapping, dict) else None
            if isinstance(address, str):
                out.add(address)
    return out


def check(model: TemplateModel) -> Iterator[Finding]:
    if not any(lb.is_network for lb in model.load_balancers):
        return
    private = _private_addresses(model)
    seen: set[int] = set()
    for name, kind, item in origin_resolutions(model):  # the records a resolver reaches, chains followed
        for record in answer_views(model, item.resolution.record_keys):
            if id(record) in seen or model.zones.policy(record) != "multivalue" or record.type not in (None, "A"):
                continue
            seen.add(id(record))
            for value in record.values:
                if isinstance(value, Unresolved) or (isinstance(value, str) and value in private):
                    continue
                eip = model.eip(value)
                if eip is not None and any(lb.is_network for lb in eip.load_balancers):
                    continue
                if eip is not None:
                    problem = f"EIP {eip.resource.logical_id} is not attached to any NLB subnet mapping"
                elif isinstance(value, ResourceRef):
                    problem = f"{display_value(value)} is not an EIP"
                else:
                    problem = f"{display_value(value)} is a literal address, not an EIP of an NLB in these templates"
                yield finding(
                    RULE.id, origin_severity(Severity.ERROR, kind), record.resource,
                    f"{record.label}: value {problem} ({origin_label(name, kind)}): health checks and answers drift from the fleet",
                    FIX,
                )


RULE = Rule(
    id="EO-NLB2",
    severity=Severity.ERROR,
    title="Multivalue origin record not on an NLB's EIP",
    catches="A multivalue record an origin name reaches (CNAME/alias chains followed) whose value is not an EIP attached through an NLB SubnetMapping, nor the PrivateIPv4Address of an internal NLB's SubnetMapping (when the NLBs are in the given templates).",
    incident="Hard-coded origin IPs outlived the NLB they belonged to; Route 53 kept answering with an address nobody served.",
    fix=FIX,
    check=check,
    facts=("ec2.elastic_ips_quota",),
)
