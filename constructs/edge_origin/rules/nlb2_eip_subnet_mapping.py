"""EO-NLB2: a multivalue origin record whose value is not an EIP attached to an NLB subnet mapping."""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import LoadBalancerView, ResourceRef, TemplateModel, Unresolved, display_value
from edge_origin.rules.base import (
    Rule,
    finding,
    origin_label,
    origin_resolutions,
    origin_severity,
    with_cdk,
)
from edge_origin.rules.lb_type import undecided_type

FIX = with_cdk(
    "EO-NLB2",
    "Point each multivalue origin record at an EIP (Ref or Fn::GetAtt PublicIp) that the NLB attaches through "
    "SubnetMappings[].AllocationId, one EIP per zone.",
    '`elbv2.NetworkLoadBalancer(subnet_mappings=[elbv2.SubnetMapping(subnet=s, allocation_id=eip.attr_allocation_id)])` and records of `eip.ref`; OriginFleet does both (fleet.addresses for MultivalueOriginRecords).',
)


def _private_addresses(model: TemplateModel) -> dict[str, list[LoadBalancerView]]:
    """Literal ``PrivateIPv4Address``es of internal NLB subnet mappings (InternalGrpcOrigin's records), each with its
    load balancers (an NLB, or one whose Type is decided at deploy time)."""
    out: dict[str, list[LoadBalancerView]] = {}
    for lb in model.load_balancers:
        props = lb.resource.properties
        mappings = props.get("SubnetMappings") if lb.may_be_network and isinstance(props, dict) else None
        for mapping in mappings if isinstance(mappings, list) else ():
            address = mapping.get("PrivateIPv4Address") if isinstance(mapping, dict) else None
            if isinstance(address, str):
                out.setdefault(address, []).append(lb)
    return out


def check(model: TemplateModel) -> Iterator[Finding]:
    known = any(lb.is_network for lb in model.load_balancers)
    undecided = [lb for lb in model.load_balancers if lb.type_undecided]
    if not known and not undecided:
        return
    private = _private_addresses(model)
    held: dict[int, tuple[LoadBalancerView, list[str]]] = {}  # Type decided at deploy time: the records it leaves open
    seen: set[int] = set()
    key_views = model.zones.key_views
    for name, kind, item in origin_resolutions(model):  # the records a resolver reaches, chains followed
        # answer_views(model, keys) with each view's answer-model record (zones.policy(view): its policy, or unknown)
        for _key, record, answer_record in key_views(item.resolution.record_keys):
            if id(record) in seen or answer_record is None or answer_record.policy != "multivalue" \
                    or record.type not in (None, "A"):
                continue
            seen.add(id(record))
            for value in record.values:
                if isinstance(value, Unresolved):
                    continue
                eip = model.eip(value)
                owners = private.get(value, []) if isinstance(value, str) else eip.load_balancers if eip is not None else []
                if any(lb.is_network for lb in owners):
                    continue
                # fine if a balancer whose Type is decided at deploy time is an NLB; with no NLB in the templates,
                # whether the rule applies at all rests on those balancers' Types: not judged, once a balancer
                open_on = [lb for lb in owners if lb.type_undecided] or ([] if known else undecided)
                for lb in open_on:
                    entry = held.setdefault(id(lb), (lb, []))
                    if record.label not in entry[1]:
                        entry[1].append(record.label)
                if open_on:
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
    for lb, labels in held.values():
        yield undecided_type(RULE.id, lb, f"the values of multivalue origin records {', '.join(labels)}")


RULE = Rule(
    id="EO-NLB2",
    severity=Severity.ERROR,
    title="Multivalue origin record not on an NLB's EIP",
    catches="A multivalue record an origin name reaches (CNAME/alias chains followed) whose value is not an EIP attached through an NLB SubnetMapping, nor the PrivateIPv4Address of an internal NLB's SubnetMapping (when the NLBs are in the given templates). A load balancer whose Type is decided at deploy time is not judged once, for the records whose verdict rests on it.",
    incident="Hard-coded origin IPs outlived the NLB they belonged to; Route 53 kept answering with an address nobody served.",
    fix=FIX,
    check=check,
    facts=("ec2.elastic_ips_quota",),
)
