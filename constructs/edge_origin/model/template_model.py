"""``TemplateModel``: all given templates as one world, indexed once, with typed views."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from edge_origin.model.intrinsics import StackResolver
from edge_origin.model.loader import (
    LoadedTemplate,
    check_template_shape,
    parse_template_text,
    read_paths,
    read_validation_acknowledgements,
)
from edge_origin.model.values import ModelError, ResourceRef, Unresolved, display_value, normalize_name
from edge_origin.model.views import (
    AliasTargetView,
    BehaviorView,
    DistributionView,
    EipView,
    HealthCheckView,
    IngressRule,
    ListenerView,
    LoadBalancerView,
    OriginView,
    RecordSetView,
    Resource,
    SecurityGroupView,
    SubnetMappingView,
    TargetGroupView,
    as_bool,
    as_int,
    key_values,
)

#: Metadata key that marks a record set (or a RecordSetGroup) as a gRPC origin name.
GRPC_ORIGIN_METADATA_KEY = "edge-origin:grpc-origin"

RECORD_SET = "AWS::Route53::RecordSet"
RECORD_SET_GROUP = "AWS::Route53::RecordSetGroup"
HEALTH_CHECK = "AWS::Route53::HealthCheck"
HOSTED_ZONE = "AWS::Route53::HostedZone"
EIP = "AWS::EC2::EIP"
SUBNET = "AWS::EC2::Subnet"
SECURITY_GROUP = "AWS::EC2::SecurityGroup"
SECURITY_GROUP_INGRESS = "AWS::EC2::SecurityGroupIngress"
LOAD_BALANCER = "AWS::ElasticLoadBalancingV2::LoadBalancer"
LISTENER = "AWS::ElasticLoadBalancingV2::Listener"
TARGET_GROUP = "AWS::ElasticLoadBalancingV2::TargetGroup"
DISTRIBUTION = "AWS::CloudFront::Distribution"


def _routing_policy(props: Mapping[str, Any]) -> str:
    if props.get("Weight") is not None:
        return "weighted"
    if as_bool(props.get("MultiValueAnswer")) is True:
        return "multivalue"
    if props.get("Failover") is not None:
        return "failover"
    if props.get("Region") is not None:
        return "latency"
    if props.get("GeoLocation") is not None:
        return "geolocation"
    if props.get("GeoProximityLocation") is not None:
        return "geoproximity"
    if props.get("CidrRoutingConfig") is not None:
        return "cidr"
    return "simple"


def _name_key(value: Any) -> Any:
    """Normalized str for literal names; the value itself (hashable) otherwise."""
    if isinstance(value, str):
        return normalize_name(value)
    if isinstance(value, (ResourceRef, Unresolved)):
        return value
    return None


class TemplateModel:
    """Every resource of the given templates, indexed by stack/logical id and by type.

    Build with ``load_model(paths)`` or ``TemplateModel.from_templates({"Stack": dict})``.
    Construction resolves every resource's properties once (linear in the number of resources);
    the typed views are built on first use and cached.
    """

    def __init__(self, loaded: Sequence[LoadedTemplate]) -> None:
        #: ``{construct path: {rule id: reason}}`` acknowledged outside the templates (a cdk.out's
        #: validation-report.json); ``rules.run_rules`` honours them like template metadata.
        self.acknowledged_paths: dict[str, dict[str, str]] = {}
        self.templates: dict[str, LoadedTemplate] = {t.stack: t for t in loaded}
        self._resolvers: dict[str, StackResolver] = {}
        self._exports: dict[str, tuple[str, Any]] = {}
        self._export_cache: dict[str, Any] = {}
        self._exporting: set[str] = set()
        for item in loaded:
            self._resolvers[item.stack] = StackResolver(item.stack, item.template, item.body, self._import_value)
        for item in loaded:
            resolver = self._resolvers[item.stack]
            outputs = item.body.get("Outputs") or {}
            if not isinstance(outputs, dict):
                raise ModelError(f"{item.template}: Outputs is not a mapping")
            for out_id, output in outputs.items():
                if not isinstance(output, dict) or not isinstance(output.get("Export"), dict):
                    continue
                name = resolver.resolve(output["Export"].get("Name"), f"Outputs.{out_id}")
                if isinstance(name, str):
                    self._exports[name] = (item.stack, output.get("Value"))
        self._by_key: dict[tuple[str, str], Resource] = {}
        self._by_type: dict[str, list[Resource]] = defaultdict(list)
        self.resources: list[Resource] = []
        #: ``(stack, logical_id)`` of resources whose ``Condition`` is false with the defaults.
        self.skipped: list[tuple[str, str]] = []
        for item in loaded:
            resolver = self._resolvers[item.stack]
            for logical_id, body in item.body["Resources"].items():
                props = resolver.resolve(body.get("Properties") or {}, logical_id)
                metadata = body.get("Metadata") if isinstance(body.get("Metadata"), dict) else {}
                condition = body.get("Condition") if isinstance(body.get("Condition"), str) else None
                if condition is not None and resolver.condition_for(condition, logical_id) is False:
                    self.skipped.append((item.stack, logical_id))
                    continue  # not created with these parameter defaults
                res = Resource(item.stack, item.template, logical_id, body["Type"], props or {}, metadata, condition)
                self.resources.append(res)
                self._by_key[res.key] = res
                self._by_type[res.type].append(res)

    # --- construction ---------------------------------------------------------------------------
    @classmethod
    def from_templates(cls, templates: Mapping[str, Mapping[str, Any]], template_names: Mapping[str, str] | None = None) -> TemplateModel:
        """A model from in-memory templates ``{"StackName": template_dict}``.

        ``template_names`` optionally gives each stack a file name for findings (default
        ``<StackName>.template.json``). Templates are checked like files (Resources needed).
        """
        loaded = []
        for stack, body in templates.items():
            where = (template_names or {}).get(stack, f"{stack}.template.json")
            check_template_shape(body, where)
            loaded.append(LoadedTemplate(stack, where, dict(body)))
        return cls(loaded)

    def _import_value(self, name: str) -> Any:
        if name in self._export_cache:
            return self._export_cache[name]
        if name not in self._exports or name in self._exporting:
            return Unresolved("import", f"Fn::ImportValue {name}")
        stack, raw = self._exports[name]
        resolver = self._resolvers[stack]
        saved = resolver._where
        self._exporting.add(name)
        try:
            value = resolver.resolve(raw, f"Outputs (export {name})")
        finally:
            self._exporting.discard(name)
            resolver._where = saved
        self._export_cache[name] = value
        return value

    # --- generic access ----------------------------------------------------------------------
    @property
    def stacks(self) -> list[str]:
        return list(self.templates)

    def resource(self, stack: str, logical_id: str) -> Resource | None:
        """The resource with this stack and logical id, or None."""
        return self._by_key.get((stack, logical_id))

    def target(self, ref: Any) -> Resource | None:
        """The resource a ``ResourceRef`` points at (None for anything else)."""
        if isinstance(ref, ResourceRef):
            return self._by_key.get((ref.stack, ref.logical_id))
        return None

    def of_type(self, type_name: str) -> list[Resource]:
        """All resources of one CloudFormation type, in template order."""
        return list(self._by_type.get(type_name, ()))

    # --- Route 53 ----------------------------------------------------------------------------
    @cached_property
    def health_checks(self) -> list[HealthCheckView]:
        views = []
        for res in self._by_type.get(HEALTH_CHECK, ()):
            cfg = res.properties.get("HealthCheckConfig") or {}
            if not isinstance(cfg, dict):
                cfg = {}
            views.append(
                HealthCheckView(
                    resource=res,
                    type=cfg.get("Type") if isinstance(cfg.get("Type"), str) else None,
                    ip_address=cfg.get("IPAddress"),
                    fqdn=cfg.get("FullyQualifiedDomainName"),
                    port=as_int(cfg.get("Port")),
                    resource_path=cfg.get("ResourcePath"),
                    request_interval=as_int(cfg.get("RequestInterval")),
                    failure_threshold=as_int(cfg.get("FailureThreshold")),
                )
            )
        return views

    @cached_property
    def _health_check_by_key(self) -> dict[tuple[str, str], HealthCheckView]:
        return {hc.resource.key: hc for hc in self.health_checks}

    def health_check(self, ref: Any) -> HealthCheckView | None:
        """The health check a ``HealthCheckId`` value refers to (Ref or GetAtt), if in the model."""
        if isinstance(ref, ResourceRef):
            return self._health_check_by_key.get((ref.stack, ref.logical_id))
        return None

    def _hosted_zone_name(self, zone_id: Any, zone_name: Any) -> str | None:
        if isinstance(zone_name, str):
            return normalize_name(zone_name)
        res = self.target(zone_id)
        if res is not None and res.type == HOSTED_ZONE:
            return normalize_name(res.properties.get("Name"))
        return None

    def _record_view(self, res: Resource, props: dict[str, Any], index: int | None, group: Resource | None) -> RecordSetView:
        alias = props.get("AliasTarget")
        alias_view = None
        if isinstance(alias, dict):
            alias_view = AliasTargetView(
                dns_name=_name_key(alias.get("DNSName")) if isinstance(alias.get("DNSName"), str) else alias.get("DNSName"),
                hosted_zone_id=alias.get("HostedZoneId"),
                evaluate_target_health=as_bool(alias.get("EvaluateTargetHealth")),
            )
        values = props.get("ResourceRecords")
        if not isinstance(values, list):
            values = [] if values is None else [values]
        zone_id = props.get("HostedZoneId")
        zone_name = props.get("HostedZoneName")
        if group is not None:
            zone_id = zone_id if zone_id is not None else group.properties.get("HostedZoneId")
            zone_name = zone_name if zone_name is not None else group.properties.get("HostedZoneName")
        marker = as_bool(res.metadata.get(GRPC_ORIGIN_METADATA_KEY)) is True
        hc_id = props.get("HealthCheckId")
        return RecordSetView(
            resource=res,
            member_index=index,
            name=_name_key(props.get("Name")),
            type=props.get("Type") if isinstance(props.get("Type"), str) else None,
            set_identifier=props.get("SetIdentifier"),
            routing_policy=_routing_policy(props),
            weight=as_int(props.get("Weight")),
            ttl=as_int(props.get("TTL")),
            values=values,
            alias_target=alias_view,
            health_check_id=hc_id,
            health_check=self.health_check(hc_id),
            hosted_zone=zone_id if zone_id is not None else zone_name,
            hosted_zone_name=self._hosted_zone_name(zone_id, zone_name),
            grpc_marker=marker,
            properties=props,
        )

    @cached_property
    def all_record_sets(self) -> list[RecordSetView]:
        """Every record set, RecordSetGroup members included, in template order."""
        views: list[RecordSetView] = []
        for res in self.resources:
            if res.type == RECORD_SET:
                views.append(self._record_view(res, res.properties, None, None))
            elif res.type == RECORD_SET_GROUP:
                members = res.properties.get("RecordSets") or []
                for i, member in enumerate(members if isinstance(members, list) else []):
                    if isinstance(member, dict):
                        views.append(self._record_view(res, member, i, res))
        return views

    @cached_property
    def _records_by_name(self) -> dict[Any, list[RecordSetView]]:
        index: dict[Any, list[RecordSetView]] = defaultdict(list)
        for view in self.all_record_sets:
            index[view.name].append(view)
        return index

    def record_sets(self, name: str | None = None) -> list[RecordSetView]:
        """All record sets, or those whose (normalized) name is ``name``."""
        if name is None:
            return list(self.all_record_sets)
        return list(self._records_by_name.get(normalize_name(name), ()))

    def record_names(self) -> list[Any]:
        """Distinct record names (normalized strings first, sorted), deterministic."""
        names = list(self._records_by_name)
        return sorted(n for n in names if isinstance(n, str)) + [n for n in names if not isinstance(n, str)]

    # --- EC2 / ELBv2 ------------------------------------------------------------------------------
    def _zone_of_subnet(self, subnet: Any) -> str | None:
        res = self.target(subnet)
        if res is None or res.type != SUBNET:
            return None
        zone = res.properties.get("AvailabilityZone")
        if zone is None:
            zone = res.properties.get("AvailabilityZoneId")
        if zone is None:
            return None
        return zone if isinstance(zone, str) else display_value(zone)

    @cached_property
    def _elb(self) -> tuple[list[LoadBalancerView], list[ListenerView], list[TargetGroupView], list[EipView]]:
        eips = {res.key: EipView(res) for res in self._by_type.get(EIP, ())}
        tgs = {}
        for res in self._by_type.get(TARGET_GROUP, ()):
            p = res.properties
            tgs[res.key] = TargetGroupView(
                resource=res,
                protocol=p.get("Protocol") if isinstance(p.get("Protocol"), str) else None,
                port=as_int(p.get("Port")),
                target_type=p.get("TargetType") if isinstance(p.get("TargetType"), str) else None,
                attributes=key_values(p.get("TargetGroupAttributes")),
                health_check_port=p.get("HealthCheckPort"),
                health_check_protocol=p.get("HealthCheckProtocol") if isinstance(p.get("HealthCheckProtocol"), str) else None,
            )
        lbs = {}
        for res in self._by_type.get(LOAD_BALANCER, ()):
            p = res.properties
            mappings = []
            for m in p.get("SubnetMappings") or []:
                if not isinstance(m, dict):
                    continue
                alloc = m.get("AllocationId")
                eip = eips.get((alloc.stack, alloc.logical_id)) if isinstance(alloc, ResourceRef) else None
                mappings.append(SubnetMappingView(m.get("SubnetId"), alloc, eip, self._zone_of_subnet(m.get("SubnetId"))))
            sgs = p.get("SecurityGroups")
            view = LoadBalancerView(
                resource=res,
                type=str(p.get("Type") or "application").lower(),
                scheme=str(p.get("Scheme") or "internet-facing").lower(),
                attributes=key_values(p.get("LoadBalancerAttributes")),
                security_groups=sgs if isinstance(sgs, list) else ([] if sgs is None else [sgs]),
                subnet_mappings=mappings,
            )
            lbs[res.key] = view
            for mapping in mappings:
                if mapping.eip is not None:
                    mapping.eip.attachments.append((view, mapping))
        listeners = []
        for res in self._by_type.get(LISTENER, ()):
            p = res.properties
            lb_ref = p.get("LoadBalancerArn")
            lb = lbs.get((lb_ref.stack, lb_ref.logical_id)) if isinstance(lb_ref, ResourceRef) else None
            refs: list[Any] = []
            for action in p.get("DefaultActions") or []:
                if not isinstance(action, dict):
                    continue
                if action.get("TargetGroupArn") is not None:
                    refs.append(action["TargetGroupArn"])
                forward = action.get("ForwardConfig")
                if isinstance(forward, dict):
                    for tg in forward.get("TargetGroups") or []:
                        if isinstance(tg, dict) and tg.get("TargetGroupArn") is not None:
                            refs.append(tg["TargetGroupArn"])
            attrs = key_values(p.get("ListenerAttributes"))
            view = ListenerView(
                resource=res,
                load_balancer=lb,
                protocol=str(p["Protocol"]).upper() if isinstance(p.get("Protocol"), str) else None,
                port=as_int(p.get("Port")),
                attributes=attrs,
                idle_timeout=as_int(attrs.get("tcp.idle_timeout.seconds")),
                target_groups=[tgs[(r.stack, r.logical_id)] for r in refs if isinstance(r, ResourceRef) and (r.stack, r.logical_id) in tgs],
                target_group_refs=refs,
            )
            listeners.append(view)
            if lb is not None:
                lb.listeners.append(view)
        return list(lbs.values()), listeners, list(tgs.values()), list(eips.values())

    @property
    def load_balancers(self) -> list[LoadBalancerView]:
        return self._elb[0]

    @property
    def listeners(self) -> list[ListenerView]:
        return self._elb[1]

    @property
    def target_groups(self) -> list[TargetGroupView]:
        return self._elb[2]

    @property
    def eips(self) -> list[EipView]:
        return self._elb[3]

    @cached_property
    def _views_by_key(self) -> dict[tuple[str, str], Any]:
        out: dict[tuple[str, str], Any] = {}
        for group in (self.load_balancers, self.target_groups, self.eips, self.security_groups, self.distributions):
            for view in group:
                out[view.resource.key] = view
        return out

    def view(self, ref: Any) -> Any:
        """The typed view (LoadBalancerView, EipView, ...) of the resource ``ref`` points at."""
        if isinstance(ref, ResourceRef):
            return self._views_by_key.get((ref.stack, ref.logical_id))
        return None

    def load_balancer(self, ref: Any) -> LoadBalancerView | None:
        view = self.view(ref)
        return view if isinstance(view, LoadBalancerView) else None

    def eip(self, ref: Any) -> EipView | None:
        view = self.view(ref)
        return view if isinstance(view, EipView) else None

    @cached_property
    def security_groups(self) -> list[SecurityGroupView]:
        """Security groups with inline and separate (``SecurityGroupIngress``) ingress rules."""
        groups = {}
        for res in self._by_type.get(SECURITY_GROUP, ()):
            view = SecurityGroupView(res)
            for rule in res.properties.get("SecurityGroupIngress") or []:
                if isinstance(rule, dict):
                    view.ingress.append(self._ingress(res, rule))
            groups[res.key] = view
        for res in self._by_type.get(SECURITY_GROUP_INGRESS, ()):
            group_ref = res.properties.get("GroupId")
            if isinstance(group_ref, ResourceRef) and (group_ref.stack, group_ref.logical_id) in groups:
                groups[(group_ref.stack, group_ref.logical_id)].ingress.append(self._ingress(res, res.properties))
        return list(groups.values())

    @staticmethod
    def _ingress(res: Resource, rule: dict[str, Any]) -> IngressRule:
        return IngressRule(
            source=res,
            protocol=str(rule.get("IpProtocol", "")).lower(),
            from_port=as_int(rule.get("FromPort")),
            to_port=as_int(rule.get("ToPort")),
            cidr_ip=rule.get("CidrIp"),
            cidr_ipv6=rule.get("CidrIpv6"),
            prefix_list_id=rule.get("SourcePrefixListId"),
            source_security_group=rule.get("SourceSecurityGroupId"),
        )

    # --- CloudFront -------------------------------------------------------------------------------
    @cached_property
    def distributions(self) -> list[DistributionView]:
        views = []
        for res in self._by_type.get(DISTRIBUTION, ()):
            cfg = res.properties.get("DistributionConfig") or {}
            if not isinstance(cfg, dict):
                cfg = {}
            origins = [self._origin(o) for o in cfg.get("Origins") or [] if isinstance(o, dict)]
            by_id = {o.id: o for o in origins}
            groups: dict[str, list[OriginView]] = {}
            og = cfg.get("OriginGroups")
            for item in (og.get("Items") or []) if isinstance(og, dict) else []:
                if isinstance(item, dict):
                    members = ((item.get("Members") or {}).get("Items") or []) if isinstance(item.get("Members"), dict) else []
                    groups[str(item.get("Id"))] = [by_id[m["OriginId"]] for m in members if isinstance(m, dict) and m.get("OriginId") in by_id]
            behaviors = []
            default = cfg.get("DefaultCacheBehavior")
            if isinstance(default, dict):
                behaviors.append(self._behavior(default, None, by_id, groups))
            for beh in cfg.get("CacheBehaviors") or []:
                if isinstance(beh, dict):
                    behaviors.append(self._behavior(beh, str(beh.get("PathPattern")), by_id, groups))
            views.append(
                DistributionView(
                    resource=res,
                    origins=origins,
                    behaviors=behaviors,
                    http_version=cfg.get("HttpVersion") if isinstance(cfg.get("HttpVersion"), str) else None,
                    enabled=as_bool(cfg.get("Enabled")),
                )
            )
        return views

    @staticmethod
    def _origin(o: dict[str, Any]) -> OriginView:
        custom = o.get("CustomOriginConfig")
        c = custom if isinstance(custom, dict) else {}
        domain = o.get("DomainName")
        return OriginView(
            id=str(o.get("Id")),
            domain_name=normalize_name(domain) if isinstance(domain, str) else domain,
            custom=isinstance(custom, dict),
            protocol_policy=c.get("OriginProtocolPolicy") if isinstance(c.get("OriginProtocolPolicy"), str) else None,
            keepalive_timeout=as_int(c.get("OriginKeepaliveTimeout")),
            read_timeout=as_int(c.get("OriginReadTimeout")),
            https_port=as_int(c.get("HTTPSPort")),
            http_port=as_int(c.get("HTTPPort")),
            raw=o,
        )

    @staticmethod
    def _behavior(b: dict[str, Any], pattern: str | None, by_id: dict[str, OriginView], groups: dict[str, list[OriginView]]) -> BehaviorView:
        target = b.get("TargetOriginId")
        origins = groups.get(str(target)) or ([by_id[target]] if isinstance(target, str) and target in by_id else [])
        grpc = b.get("GrpcConfig")
        methods = b.get("AllowedMethods")
        return BehaviorView(
            path_pattern=pattern,
            target_origin_id=target,
            origins=origins,
            grpc_enabled=isinstance(grpc, dict) and as_bool(grpc.get("Enabled")) is True,
            allowed_methods=[str(m).upper() for m in methods] if isinstance(methods, list) else None,
            cache_policy_id=b.get("CachePolicyId"),
            forwarded_values=b.get("ForwardedValues"),
            raw=b,
        )

    # --- origins and paths ---------------------------------------------------------------------
    def grpc_origins(self) -> list[tuple[DistributionView, BehaviorView, OriginView]]:
        """Every (distribution, gRPC behavior, origin) triple, in template order."""
        return [(d, b, o) for d in self.distributions for b in d.behaviors if b.grpc_enabled for o in b.origins]

    def grpc_origin_names(self) -> set[str]:
        """Names that are gRPC origins: (a) the DomainName of an origin used by a behavior with
        ``GrpcConfig.Enabled``; (b) names of record sets with the metadata marker
        ``edge-origin:grpc-origin: true``."""
        names = {o.domain_name for _, _, o in self.grpc_origins() if isinstance(o.domain_name, str)}
        names.update(r.name for r in self.all_record_sets if r.grpc_marker and isinstance(r.name, str))
        return names

    def cloudfront_origin_names(self) -> set[str]:
        """DomainNames (normalized literal strings) of every CloudFront origin."""
        return {o.domain_name for d in self.distributions for o in d.origins if isinstance(o.domain_name, str)}

    def long_lived_origin_names(self) -> set[str]:
        """CloudFront origin names (not gRPC) whose records point at NLBs: long-lived
        connections too, checked at warning level."""
        grpc = self.grpc_origin_names()
        return {n for n in self.cloudfront_origin_names() - grpc if self.load_balancers_for_name(n)}

    def origin_names(self) -> dict[str, str]:
        """``{name: "grpc" | "long-lived"}`` for every origin name the rules look at (sorted)."""
        return dict(self._origin_names)

    @cached_property
    def _origin_names(self) -> dict[str, str]:
        out = dict.fromkeys(sorted(self.long_lived_origin_names()), "long-lived")
        out.update(dict.fromkeys(sorted(self.grpc_origin_names()), "grpc"))
        return dict(sorted(out.items()))

    def record_load_balancers(self, record: RecordSetView) -> list[LoadBalancerView]:
        """NLBs a record leads to: values that are attached EIPs, or an alias to an LB's DNS name."""
        out: list[LoadBalancerView] = []
        for value in record.values:
            eip = self.eip(value)
            if eip is not None:
                out.extend(eip.load_balancers)
        if record.alias_target is not None:
            lb = self.load_balancer(record.alias_target.dns_name)
            if lb is not None:
                out.append(lb)
        return _unique(out)

    def load_balancers_for_name(self, name: str) -> list[LoadBalancerView]:
        """Load balancers behind a name: through its records, or the name is an LB's DNS name."""
        out: list[LoadBalancerView] = []
        for record in self.record_sets(name):
            out.extend(self.record_load_balancers(record))
        return _unique(out)

    def load_balancers_for_origin(self, origin: OriginView) -> list[LoadBalancerView]:
        """Load balancers an origin reaches: by its name's records, or directly (GetAtt DNSName)."""
        if isinstance(origin.domain_name, str):
            return self.load_balancers_for_name(origin.domain_name)
        lb = self.load_balancer(origin.domain_name)
        return [lb] if lb is not None else []


def _unique(items: Iterable[Any]) -> list[Any]:
    seen: set[int] = set()
    out = []
    for item in items:
        if id(item) not in seen:
            seen.add(id(item))
            out.append(item)
    return out


def load_model(paths: Sequence[str | Path]) -> TemplateModel:
    """Load template files (.json/.yaml/.yml/.template) and cdk.out directories as one model.

    For a cdk.out, findings CDK suppressed for the EdgeOrigin pack (``validation-report.json``,
    acknowledged with a reason) are kept in ``model.acknowledged_paths``.
    """
    model = TemplateModel(read_paths(paths))
    for raw in paths:
        if Path(raw).is_dir():
            for path, rules in read_validation_acknowledgements(Path(raw)).items():
                model.acknowledged_paths.setdefault(path, {}).update(rules)
    return model


def model_from_text(text: str, stack: str = "Stack", template: str = "<string>") -> TemplateModel:
    """A model from one template's text (JSON or YAML): handy in tests."""
    return TemplateModel([LoadedTemplate(stack, template, parse_template_text(text, template))])
