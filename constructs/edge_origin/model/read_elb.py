"""The EC2 and ELBv2 readers of :class:`~edge_origin.model.template_model.TemplateModel`: load balancers
(subnet mappings with their EIPs and zones), listeners, target groups, EIPs, and security groups with
their ingress rules, as typed views.

Functions of the model (its resources by type, ``target``); the model calls them once and caches the views.
"""

from __future__ import annotations

from edge_origin.model.values import ResourceRef, Unresolved, deploy_time, display_value
from edge_origin.model.views import (
    EipView,
    IngressRule,
    ListenerView,
    LoadBalancerView,
    Props,
    Resource,
    SecurityGroupView,
    SubnetMappingView,
    TargetGroupView,
    as_int,
    props_of,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

    from edge_origin.model.template_model import TemplateModel

EIP = "AWS::EC2::EIP"
SUBNET = "AWS::EC2::Subnet"
SECURITY_GROUP = "AWS::EC2::SecurityGroup"
SECURITY_GROUP_INGRESS = "AWS::EC2::SecurityGroupIngress"
LOAD_BALANCER = "AWS::ElasticLoadBalancingV2::LoadBalancer"
LISTENER = "AWS::ElasticLoadBalancingV2::Listener"
TARGET_GROUP = "AWS::ElasticLoadBalancingV2::TargetGroup"


def _zone_of_subnet(model: TemplateModel, subnet: Any, zones: dict[tuple[str, str], str | None]) -> str | None:
    """The subnet's zone (None: not a subnet of the templates, or its zone not stated); ``zones`` keeps
    each subnet's (several load balancers map one subnet)."""
    if not isinstance(subnet, ResourceRef):
        return None  # (model.target of it is None)
    key = (subnet.stack, subnet.logical_id)  # the subnet resource's key
    if key in zones:
        return zones[key]
    res = model.target(subnet)
    if res is None or res.type != SUBNET:
        return None
    zone = zones[key] = _read_zone(res)
    return zone


def _read_zone(res: Resource) -> str | None:
    p = props_of(res)
    zone = p.str("AvailabilityZone")
    if zone is None:
        zone = p.str("AvailabilityZoneId")
    if zone is None:
        return None
    return zone if isinstance(zone, str) else display_value(zone)


def elb_views(model: TemplateModel) -> tuple[list[LoadBalancerView], list[ListenerView], list[TargetGroupView], list[EipView]]:
    """(load balancers, listeners, target groups, EIPs), joined: an EIP knows its attachments, a load
    balancer its listeners, a listener its target groups. Read in that order, one type at a time."""
    eips = {(res.stack, res.logical_id): EipView(res) for res in model.of_type(EIP)}  # res.key, without its call
    tgs = {(res.stack, res.logical_id): _target_group(res) for res in model.of_type(TARGET_GROUP)}
    zones: dict[tuple[str, str], str | None] = {}
    lbs = {(res.stack, res.logical_id): _load_balancer(model, res, eips, zones) for res in model.of_type(LOAD_BALANCER)}
    listeners = [_listener(res, lbs, tgs) for res in model.of_type(LISTENER)]
    return list(lbs.values()), listeners, list(tgs.values()), list(eips.values())


def _target_group(res: Resource) -> TargetGroupView:
    p = props_of(res)
    data = p.data
    protocol, port, target_type = data.get("Protocol"), data.get("Port"), data.get("TargetType")
    check_port, check_protocol = data.get("HealthCheckPort"), data.get("HealthCheckProtocol")
    if (type(protocol) is str and type(port) in _INT_OR_NONE and type(target_type) in _STR_OR_NONE
            and type(check_port) in _AS_IS and type(check_protocol) in _STR_OR_NONE):
        # the common shape: each value as its accessor below returns it, read in place (same order of reads)
        return TargetGroupView(res, protocol, port, target_type, p.key_values("TargetGroupAttributes"), check_port,
                               check_protocol, False)  # a literal Protocol is decided
    return TargetGroupView(
        resource=res,
        protocol=p.literal_str("Protocol"),
        port=p.int("Port"),
        target_type=p.literal_str("TargetType"),
        attributes=p.key_values("TargetGroupAttributes"),
        health_check_port=p.str("HealthCheckPort"),
        health_check_protocol=p.literal_str("HealthCheckProtocol"),
        protocol_undecided=_undecided(p, "Protocol"),
    )


def _undecided(p: Props, key: str) -> bool:
    """Whether ``key`` is decided at deploy time: its value, or the whole Properties (an undecidable ``Fn::If``)."""
    value = p.data.get(key)
    return deploy_time(value) or (value is None and p.unknown)


#: What ``Props.str`` returns as it is (a string, a deploy-time value, None); ``literal_str``; ``int``.
_AS_IS = frozenset({str, ResourceRef, Unresolved, type(None)})
_STR_OR_NONE = frozenset({str, type(None)})
_INT_OR_NONE = frozenset({int, type(None)})


def _subnet_mappings(p: Props) -> list[tuple[Any, Any]]:
    """``(AllocationId, SubnetId)`` of each of ``p.mappings("SubnetMappings")``, each as ``str`` reads it:
    a value ``str`` returns as it is read in place, without a Props for the mapping."""
    items = p.data.get("SubnetMappings")
    if type(items) is not list or not _ONLY_DICT.issuperset(map(type, items)):
        return [(m.str("AllocationId"), m.str("SubnetId")) for m in p.mappings("SubnetMappings")]
    out = []
    for i, data in enumerate(items):
        alloc, subnet = data.get("AllocationId"), data.get("SubnetId")
        if type(alloc) not in _AS_IS or type(subnet) not in _AS_IS:
            m = Props(data, p.resource, (p, "SubnetMappings", i))
            alloc, subnet = m.str("AllocationId"), m.str("SubnetId")
        out.append((alloc, subnet))
    return out


def _load_balancer(model: TemplateModel, res: Resource, eips: dict[tuple[str, str], EipView],
                   zones: dict[tuple[str, str], str | None]) -> LoadBalancerView:
    """A load balancer's view; each EIP it maps gets the attachment (``zones``: see ``_zone_of_subnet``)."""
    p = props_of(res)
    mappings = []
    for alloc, subnet in _subnet_mappings(p):
        eip = eips.get((alloc.stack, alloc.logical_id)) if isinstance(alloc, ResourceRef) else None
        mappings.append(SubnetMappingView(subnet, alloc, eip, _zone_of_subnet(model, subnet, zones)))
    data = p.data
    lb_type, scheme = data.get("Type"), data.get("Scheme")
    if type(lb_type) is str and type(scheme) is str:  # the common shape: as below, read in place
        view = LoadBalancerView(res, lb_type.lower(), scheme.lower(), p.key_values("LoadBalancerAttributes"),
                                p.items("SecurityGroups"), mappings, [],
                                [SubnetMappingView(sn, None, None, _zone_of_subnet(model, sn, zones)) for sn in p.items("Subnets")])
    else:
        lb_type = p.str("Type")
        scheme = p.str("Scheme")
        view = LoadBalancerView(
            resource=res,
            type=lb_type.lower() if isinstance(lb_type, str) else "application" if lb_type is None else display_value(lb_type),
            scheme=scheme.lower() if isinstance(scheme, str) else "internet-facing" if scheme is None else display_value(scheme),
            attributes=p.key_values("LoadBalancerAttributes"),
            security_groups=p.items("SecurityGroups"),
            subnet_mappings=mappings,
            subnets=[SubnetMappingView(sn, None, None, _zone_of_subnet(model, sn, zones)) for sn in p.items("Subnets")],
            type_undecided=_undecided(p, "Type"),
        )
    if p.data.get("MinimumLoadBalancerCapacity") is not None:  # absent: no units, nothing unknown (the defaults)
        capacity = p.mapping("MinimumLoadBalancerCapacity")
        view.capacity_units = capacity.int("CapacityUnits")
        view.capacity_unknown = view.capacity_units is None
    for mapping in mappings:
        if mapping.eip is not None:
            mapping.eip.attachments.append((view, mapping))
    return view


def _listener(res: Resource, lbs: dict[tuple[str, str], LoadBalancerView],
              tgs: dict[tuple[str, str], TargetGroupView]) -> ListenerView:
    """A listener's view; its load balancer (when in the templates) gets it."""
    p = props_of(res)
    lb_ref = p.str("LoadBalancerArn")
    lb = lbs.get((lb_ref.stack, lb_ref.logical_id)) if isinstance(lb_ref, ResourceRef) else None
    refs: list[Any] = []
    actions = p.data.get("DefaultActions")
    if type(actions) is list and _ONLY_DICT.issuperset(map(type, actions)) and all(
            type(action.get("TargetGroupArn")) in _AS_IS and action.get("ForwardConfig") is None for action in actions):
        # the common shape, mappings naming a target group without a ForwardConfig: as below, read in place
        for action in actions:
            arn = action.get("TargetGroupArn")
            if arn is not None:
                refs.append(arn)
    else:
        for action in p.mappings("DefaultActions"):
            if action.has("TargetGroupArn"):
                refs.append(action.str("TargetGroupArn"))
            if action.data.get("ForwardConfig") is None:
                continue  # absent: no target groups there (mapping() reads it as empty)
            for tg in action.mapping("ForwardConfig").mappings("TargetGroups"):
                if tg.has("TargetGroupArn"):
                    refs.append(tg.str("TargetGroupArn"))
    attrs = p.key_values("ListenerAttributes")
    protocol = p.str("Protocol")
    idle_raw = attrs.get("tcp.idle_timeout.seconds")
    view = ListenerView(
        resource=res,
        load_balancer=lb,
        protocol=protocol.upper() if isinstance(protocol, str) else None,
        port=p.int("Port"),
        attributes=attrs,
        idle_timeout=_attribute_int(idle_raw),
        target_groups=[tgs[(r.stack, r.logical_id)] for r in refs if isinstance(r, ResourceRef) and (r.stack, r.logical_id) in tgs],
        target_group_refs=refs,
        protocol_undecided=protocol if deploy_time(protocol) else None,
    )
    if lb is not None:
        lb.listeners.append(view)
    return view


def security_group_views(model: TemplateModel) -> list[SecurityGroupView]:
    """Security groups with inline and separate (``SecurityGroupIngress``) ingress rules."""
    groups = {}
    for res in model.of_type(SECURITY_GROUP):
        p = props_of(res)
        items = p.data.get("SecurityGroupIngress")
        if type(items) is list and all(type(item) is dict for item in items):
            # the common shape, a list of mappings: nothing in it is deploy-time, and each reads as
            # ingress_rule reads p.mappings(...)'s items, without a Props for a literal permission
            view = SecurityGroupView(res, _inline_rules(res, p, items))
        else:
            view = SecurityGroupView(res, ingress_unknown=p.list_unknown("SecurityGroupIngress"))
            for rule in p.mappings("SecurityGroupIngress"):
                view.ingress.append(ingress_rule(res, rule))
        groups[(res.stack, res.logical_id)] = view
    for res in model.of_type(SECURITY_GROUP_INGRESS):
        p = props_of(res)
        group_ref = p.str("GroupId")
        rule = ingress_rule(res, p)
        if isinstance(group_ref, ResourceRef) and (group_ref.stack, group_ref.logical_id) in groups:
            groups[(group_ref.stack, group_ref.logical_id)].ingress.append(rule)
    return list(groups.values())


_ONLY_DICT = frozenset({dict})
#: Keys of an ingress permission that name its source (each read by ``ingress_rule``).
_SOURCES = ("CidrIpv6", "SourcePrefixListId", "SourceSecurityGroupId")


def _inline_rules(res: Resource, p: Props, items: list[dict[str, Any]]) -> list[IngressRule]:
    """``[ingress_rule(res, rule) for rule in p.mappings("SecurityGroupIngress")]`` for a list of
    mappings: a literal permission read in place, any other through its ``Props``."""
    out = []
    for i, data in enumerate(items):
        protocol, low, high, cidr = data.get("IpProtocol"), data.get("FromPort"), data.get("ToPort"), data.get("CidrIp")
        if (type(protocol) is str and type(low) is int and type(high) is int and type(cidr) is str
                and "CidrIpv6" not in data and "SourcePrefixListId" not in data and "SourceSecurityGroupId" not in data):
            out.append(IngressRule(res, protocol.lower(), low, high, cidr))  # as ingress_rule's literal permission
        else:
            out.append(read_ingress_rule(res, Props(data, res, (p, "SecurityGroupIngress", i))))
    return out


def ingress_rule(res: Resource, rule: Props) -> IngressRule:
    data = rule.data
    protocol, low, high, cidr = data.get("IpProtocol"), data.get("FromPort"), data.get("ToPort"), data.get("CidrIp")
    if (protocol.__class__ is str and low.__class__ is int and high.__class__ is int and cidr.__class__ is str
            and "CidrIpv6" not in data and "SourcePrefixListId" not in data and "SourceSecurityGroupId" not in data):
        return IngressRule(res, protocol.lower(), low, high, cidr)  # source, protocol, from/to port, cidr_ip
    return read_ingress_rule(res, rule)


def read_ingress_rule(res: Resource, rule: Props) -> IngressRule:
    """``ingress_rule`` through the typed accessors: any permission (deploy-time values, numbers as
    strings, other sources); the shapes CloudFormation refuses raise."""
    protocol = rule.str("IpProtocol")
    undecided = next((v for v in (protocol, rule.raw("FromPort"), rule.raw("ToPort")) if deploy_time(v)), None)
    return IngressRule(
        source=res,
        protocol=protocol.lower() if isinstance(protocol, str) else "" if protocol is None else display_value(protocol),
        from_port=rule.int("FromPort"),
        to_port=rule.int("ToPort"),
        cidr_ip=rule.str("CidrIp"),
        cidr_ipv6=rule.str("CidrIpv6"),
        prefix_list_id=rule.str("SourcePrefixListId"),
        source_security_group=rule.str("SourceSecurityGroupId"),
        unknown=undecided is not None,
        undecided=undecided,
        protocol_unknown=deploy_time(protocol),
    )


def _attribute_int(value: Any) -> int | None:
    """An attribute value as an int (attributes are strings); None when not decidable or not a number."""
    return as_int(value)
