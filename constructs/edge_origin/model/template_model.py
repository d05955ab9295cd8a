"""``TemplateModel``: all given templates as one world, indexed once, with typed views."""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Any

from edge_origin.answers.routing import Routing, read_routing
from edge_origin.model.intrinsics import StackResolver
from edge_origin.model.loader import (
    LoadedTemplate,
    check_template_shape,
    check_values,
    parse_template_text,
    read_paths_result,
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
    Props,
    RecordSetView,
    Resource,
    SecurityGroupView,
    SubnetMappingView,
    TargetGroupView,
    VpcOriginView,
    as_bool,
    props_of,
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
#: Route 53's default quota of records in one hosted zone ("Records per hosted zone: 10,000",
#: Route 53 developer guide, Quotas; adjustable: ``GetHostedZoneLimit`` MAX_RRSETS_BY_ZONE).
ROUTE53_RECORDS_PER_ZONE = 10_000
#: Caps on what the review reads (bounded time and memory on untrusted templates): record sets of
#: one name and type, and in all templates together. Both are far past what Route 53 takes by
#: default; the check stays linear in records per name below them (benchmarks/bench_records_per_name.py).
MAX_RECORD_SETS_PER_NAME = 50_000
MAX_RECORD_SETS = 250_000
VPC_ORIGIN = "AWS::CloudFront::VpcOrigin"


#: Resource metadata an account reader sets when its botocore drops ``ResourceRecordSet.AZAffinity``.
SDK_DROPS_AZ_AFFINITY_KEY = "edge-origin:sdk-drops-azaffinity"


def _routing(p: Props, sdk_reads_az_affinity: bool = True) -> Routing:
    """The record set's routing, read by the answer model's one table (``answers.routing``)."""

    def truth(value: Any) -> bool | None:
        if isinstance(value, (ResourceRef, Unresolved)):
            return None  # multivalue or simple: decided at deploy time
        return p.bool("MultiValueAnswer")

    def literal(value: Any) -> str | None:
        return value if isinstance(value, str) else None

    return read_routing(p.data, truth=truth, literal=literal, sdk_reads_az_affinity=sdk_reads_az_affinity)


def _name_key(value: Any) -> Any:
    """Normalized str for literal names; the value itself (hashable) otherwise."""
    if isinstance(value, str):
        return normalize_name(value)
    if isinstance(value, (ResourceRef, Unresolved)):
        return value
    return None


#: Route 53's record types (ChangeResourceRecordSets: ResourceRecordSet.Type), case as the API wants.
ROUTE53_RECORD_TYPES = (
    "A", "AAAA", "CAA", "CNAME", "DS", "HTTPS", "MX", "NAPTR", "NS", "PTR", "SOA", "SPF", "SRV", "SSHFP", "SVCB",
    "TLSA", "TXT",
)

class TemplateModel:
    """Every resource of the given templates, indexed by stack/logical id and by type.

    Build with ``load_model(paths)`` or ``TemplateModel.from_templates({"Stack": dict})``.
    Construction resolves every resource's properties once (linear in the number of resources);
    the typed views are built on first use and cached.
    """

    def __init__(self, loaded: Sequence[LoadedTemplate], *, strict: bool = True) -> None:
        """``strict``: raise the first ModelError; otherwise drop a bad template and list it in
        ``unreadable`` (``[(file, message)]``), checking the rest."""
        #: ``{construct path: {rule id: reason}}`` acknowledged outside the templates (a cdk.out's
        #: validation-report.json); ``rules.run_rules`` honours them like template metadata.
        self.acknowledged_paths: dict[str, dict[str, str]] = {}
        #: ``[(file, message)]``: templates left out because they are bad input (non-strict only).
        self.unreadable: list[tuple[str, str]] = []
        good = list(loaded)
        for _ in range(len(good) + 1):
            try:
                self._build(good)
                self._check_views()
                return
            except ModelError as exc:
                if strict or not good:
                    raise
                bad = exc.template if exc.template in {t.template for t in good} else None
                if bad is None:
                    bad = next((t.template for t in good if str(exc).startswith(t.template + ":")), None)
                if bad is None:
                    raise
                self.unreadable.append((bad, str(exc)))
                good = [t for t in good if t.template != bad]
                if not good:
                    raise ModelError(str(exc), template=bad) from None
        raise ModelError("templates could not be read")  # pragma: no cover (bounded loop)

    def _build(self, loaded: Sequence[LoadedTemplate]) -> None:
        keep = {k: self.__dict__[k] for k in ("acknowledged_paths", "unreadable")}
        self.__dict__.clear()  # cached views of an earlier attempt
        self.__dict__.update(keep)
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
                raise ModelError(f"{item.template}: Outputs is not a mapping", template=item.template)
            for out_id, output in outputs.items():
                if not isinstance(output, dict) or not isinstance(output.get("Export"), dict):
                    continue
                name = _in_template(item.template, resolver.resolve, output["Export"].get("Name"), f"Outputs.{out_id}")
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
                condition = body.get("Condition") if isinstance(body.get("Condition"), str) else None
                if condition is not None and _in_template(item.template, resolver.condition_for, condition, logical_id) is False:
                    self.skipped.append((item.stack, logical_id))
                    continue  # not created with these parameter defaults
                props = _in_template(item.template, resolver.resolve, body.get("Properties") or {}, logical_id)
                unknown = None
                if isinstance(props, (Unresolved, ResourceRef)):
                    unknown = props if isinstance(props, Unresolved) else Unresolved("other", display_value(props))
                    props = {}
                elif not isinstance(props, dict):
                    raise ModelError(f"{item.template}: {logical_id}: Properties resolves to a {type(props).__name__}, not a mapping", template=item.template)
                metadata = body.get("Metadata") if isinstance(body.get("Metadata"), dict) else {}
                res = Resource(item.stack, item.template, logical_id, body["Type"], props, metadata, condition, unknown)
                self.resources.append(res)
                self._by_key[res.key] = res
                self._by_type[res.type].append(res)

    def _check_views(self) -> None:
        """Build every typed view once, so a shape CloudFormation refuses is found here (and its
        template named) rather than in a rule."""
        self.health_checks  # noqa: B018
        self._check_record_caps(self.all_record_sets)
        self._elb  # noqa: B018
        self.security_groups  # noqa: B018
        self.distributions  # noqa: B018

    @staticmethod
    def _check_record_caps(views: Sequence[Any]) -> None:
        """ModelError (naming the template) past MAX_RECORD_SETS or MAX_RECORD_SETS_PER_NAME."""
        quota = f"Route 53 takes {ROUTE53_RECORDS_PER_ZONE:,} records in a hosted zone by default (Quotas: records per hosted zone)"
        if len(views) > MAX_RECORD_SETS:
            last = views[MAX_RECORD_SETS].resource
            raise ModelError(
                f"{last.template}: more than {MAX_RECORD_SETS:,} record sets in the given templates ({len(views):,}): "
                f"over edge-origin's cap; {quota}", template=last.template,
            )
        counts: dict[tuple[str, Any], int] = defaultdict(int)
        for view in views:
            if isinstance(view.name, str):
                key = (normalize_name(view.name) or view.name, view.type)
                counts[key] += 1
                if counts[key] > MAX_RECORD_SETS_PER_NAME:
                    from edge_origin.core.escape import shorten

                    raise ModelError(
                        f"{view.resource.template}: more than {MAX_RECORD_SETS_PER_NAME:,} record sets of {shorten(view.name)!r} "
                        f"{shorten(view.type)}: over edge-origin's cap; {quota}", template=view.resource.template,
                    )

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
            check_values(body, where)
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
            cfg = props_of(res).mapping("HealthCheckConfig")
            views.append(
                HealthCheckView(
                    resource=res,
                    type=cfg.literal_str("Type"),
                    ip_address=cfg.str("IPAddress"),
                    fqdn=cfg.str("FullyQualifiedDomainName"),
                    port=cfg.int("Port"),
                    resource_path=cfg.str("ResourcePath"),
                    request_interval=cfg.int("RequestInterval"),
                    failure_threshold=cfg.int("FailureThreshold"),
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

    def record_name_of(self, value: Any) -> Any:
        """A ``Ref`` of an ``AWS::Route53::RecordSet`` is that record's name (CloudFormation: "Ref
        returns the domain name of the record set"; aws-cdk-lib's ``Route53RecordTarget`` writes it);
        anything else is returned as it is."""
        res = self.target(value) if isinstance(value, ResourceRef) and value.attribute is None else None
        if res is None or res.type != RECORD_SET or not isinstance(res.properties, dict):
            return value
        name = res.properties.get("Name")  # resolved already
        return normalize_name(name) if isinstance(name, str) else value

    def _hosted_zone_name(self, zone_id: Any, zone_name: Any) -> str | None:
        if isinstance(zone_name, str):
            return normalize_name(zone_name)
        res = self.target(zone_id)
        if res is not None and res.type == HOSTED_ZONE:
            return normalize_name(props_of(res).literal_str("Name"))
        return None

    def _record_view(self, res: Resource, p: Props, index: int | None, group: Props | None) -> RecordSetView:
        alias_view = None
        if p.has("AliasTarget"):
            alias = p.mapping("AliasTarget")
            dns = self.record_name_of(alias.str("DNSName"))
            alias_view = AliasTargetView(
                dns_name=_name_key(dns) if isinstance(dns, str) else dns,
                hosted_zone_id=alias.str("HostedZoneId"),
                evaluate_target_health=alias.bool("EvaluateTargetHealth"),
            )
        values = p.strs("ResourceRecords")
        if p.literal_str("Type") == "CNAME":
            values = [self.record_name_of(v) for v in values]
        zone_id = p.str("HostedZoneId")
        zone_name = p.str("HostedZoneName")
        if group is not None:
            zone_id = zone_id if zone_id is not None else group.str("HostedZoneId")
            zone_name = zone_name if zone_name is not None else group.str("HostedZoneName")
        marker = as_bool(res.metadata.get(GRPC_ORIGIN_METADATA_KEY)) is True
        hc_id = p.str("HealthCheckId")
        name = p.str("Name")
        rtype = p.literal_str("Type")
        routing = _routing(p, sdk_reads_az_affinity=res.metadata.get(SDK_DROPS_AZ_AFFINITY_KEY) is not True)
        if rtype is not None and rtype not in ROUTE53_RECORD_TYPES:
            # Route 53 refuses it at deploy; read as another type, a weighted gRPC record would pass unseen
            raise p._error(p._at("Type"), rtype, f"a Route 53 record type, upper case ({', '.join(ROUTE53_RECORD_TYPES)})")
        return RecordSetView(
            resource=res,
            member_index=index,
            name=_name_key(name) if name is not None else None,
            type=rtype,
            set_identifier=p.str("SetIdentifier"),
            routing_policy=routing.policy,
            weight=p.int("Weight"),
            ttl=p.int("TTL"),
            values=values,
            alias_target=alias_view,
            health_check_id=hc_id,
            health_check=self.health_check(hc_id),
            hosted_zone=zone_id if zone_id is not None else zone_name,
            hosted_zone_name=self._hosted_zone_name(zone_id, zone_name),
            grpc_marker=marker,
            properties=p.data,
            unknown=p.unknown,
            hosted_zone_id=zone_id,
            routing=routing,
        )

    @cached_property
    def all_record_sets(self) -> list[RecordSetView]:
        """Every record set, RecordSetGroup members included, in template order."""
        views: list[RecordSetView] = []
        for res in self.resources:
            if res.type == RECORD_SET:
                views.append(self._record_view(res, props_of(res), None, None))
            elif res.type == RECORD_SET_GROUP:
                group = props_of(res)
                for i, member in enumerate(group.mappings("RecordSets")):
                    views.append(self._record_view(res, member, i, group))
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
        p = props_of(res)
        zone = p.str("AvailabilityZone")
        if zone is None:
            zone = p.str("AvailabilityZoneId")
        if zone is None:
            return None
        return zone if isinstance(zone, str) else display_value(zone)

    @cached_property
    def _elb(self) -> tuple[list[LoadBalancerView], list[ListenerView], list[TargetGroupView], list[EipView]]:
        eips = {res.key: EipView(res) for res in self._by_type.get(EIP, ())}
        tgs = {}
        for res in self._by_type.get(TARGET_GROUP, ()):
            p = props_of(res)
            tgs[res.key] = TargetGroupView(
                resource=res,
                protocol=p.literal_str("Protocol"),
                port=p.int("Port"),
                target_type=p.literal_str("TargetType"),
                attributes=p.key_values("TargetGroupAttributes"),
                health_check_port=p.str("HealthCheckPort"),
                health_check_protocol=p.literal_str("HealthCheckProtocol"),
            )
        lbs = {}
        for res in self._by_type.get(LOAD_BALANCER, ()):
            p = props_of(res)
            mappings = []
            for m in p.mappings("SubnetMappings"):
                alloc = m.str("AllocationId")
                subnet = m.str("SubnetId")
                eip = eips.get((alloc.stack, alloc.logical_id)) if isinstance(alloc, ResourceRef) else None
                mappings.append(SubnetMappingView(subnet, alloc, eip, self._zone_of_subnet(subnet)))
            lb_type = p.str("Type")
            scheme = p.str("Scheme")
            view = LoadBalancerView(
                resource=res,
                type=lb_type.lower() if isinstance(lb_type, str) else "application" if lb_type is None else display_value(lb_type),
                scheme=scheme.lower() if isinstance(scheme, str) else "internet-facing" if scheme is None else display_value(scheme),
                attributes=p.key_values("LoadBalancerAttributes"),
                security_groups=p.items("SecurityGroups"),
                subnet_mappings=mappings,
                subnets=[SubnetMappingView(sn, None, None, self._zone_of_subnet(sn)) for sn in p.items("Subnets")],
            )
            capacity = p.mapping("MinimumLoadBalancerCapacity")
            view.capacity_units = capacity.int("CapacityUnits")
            view.capacity_unknown = p.has("MinimumLoadBalancerCapacity") and view.capacity_units is None
            lbs[res.key] = view
            for mapping in mappings:
                if mapping.eip is not None:
                    mapping.eip.attachments.append((view, mapping))
        listeners = []
        for res in self._by_type.get(LISTENER, ()):
            p = props_of(res)
            lb_ref = p.str("LoadBalancerArn")
            lb = lbs.get((lb_ref.stack, lb_ref.logical_id)) if isinstance(lb_ref, ResourceRef) else None
            refs: list[Any] = []
            for action in p.mappings("DefaultActions"):
                if action.has("TargetGroupArn"):
                    refs.append(action.str("TargetGroupArn"))
                for tg in action.mapping("ForwardConfig").mappings("TargetGroups"):
                    if tg.has("TargetGroupArn"):
                        refs.append(tg.str("TargetGroupArn"))
            attrs = p.key_values("ListenerAttributes")
            protocol = p.literal_str("Protocol")
            idle_raw = attrs.get("tcp.idle_timeout.seconds")
            view = ListenerView(
                resource=res,
                load_balancer=lb,
                protocol=protocol.upper() if protocol is not None else None,
                port=p.int("Port"),
                attributes=attrs,
                idle_timeout=_attribute_int(idle_raw),
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
        for group in (self.load_balancers, self.target_groups, self.eips, self.security_groups, self.distributions,
                      self.vpc_origins):
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
            p = props_of(res)
            view = SecurityGroupView(res, ingress_unknown=p.list_unknown("SecurityGroupIngress"))
            for rule in p.mappings("SecurityGroupIngress"):
                view.ingress.append(self._ingress(res, rule))
            groups[res.key] = view
        for res in self._by_type.get(SECURITY_GROUP_INGRESS, ()):
            p = props_of(res)
            group_ref = p.str("GroupId")
            rule = self._ingress(res, p)
            if isinstance(group_ref, ResourceRef) and (group_ref.stack, group_ref.logical_id) in groups:
                groups[(group_ref.stack, group_ref.logical_id)].ingress.append(rule)
        return list(groups.values())

    @staticmethod
    def _ingress(res: Resource, rule: Props) -> IngressRule:
        protocol = rule.str("IpProtocol")
        return IngressRule(
            source=res,
            protocol=protocol.lower() if isinstance(protocol, str) else "" if protocol is None else display_value(protocol),
            from_port=rule.int("FromPort"),
            to_port=rule.int("ToPort"),
            cidr_ip=rule.str("CidrIp"),
            cidr_ipv6=rule.str("CidrIpv6"),
            prefix_list_id=rule.str("SourcePrefixListId"),
            source_security_group=rule.str("SourceSecurityGroupId"),
            unknown=any(_deploy_time(rule.raw(k)) for k in ("IpProtocol", "FromPort", "ToPort")),
        )

    # --- CloudFront -------------------------------------------------------------------------------
    @cached_property
    def distributions(self) -> list[DistributionView]:
        views = []
        for res in self._by_type.get(DISTRIBUTION, ()):
            cfg = props_of(res).mapping("DistributionConfig")
            origins = [self._with_vpc_origin(self._origin(o)) for o in cfg.mappings("Origins")]
            by_id = {o.id: o for o in origins}
            groups: dict[str, list[OriginView]] = {}
            for item in cfg.mapping("OriginGroups").mappings("Items"):
                members = item.mapping("Members").mappings("Items")
                groups[display_value(item.str("Id"))] = [
                    by_id[m.str("OriginId")] for m in members if isinstance(m.str("OriginId"), str) and m.str("OriginId") in by_id
                ]
            behaviors = []
            if cfg.has("DefaultCacheBehavior"):
                behaviors.append(self._behavior(cfg.mapping("DefaultCacheBehavior"), None, by_id, groups))
            for beh in cfg.mappings("CacheBehaviors"):
                behaviors.append(self._behavior(beh, display_value(beh.str("PathPattern")), by_id, groups))
            views.append(
                DistributionView(
                    resource=res,
                    origins=origins,
                    behaviors=behaviors,
                    http_version=cfg.literal_str("HttpVersion"),
                    enabled=cfg.bool("Enabled"),
                    http_version_unknown=_deploy_time(cfg.raw("HttpVersion")) or cfg.unknown,
                )
            )
        return views

    @cached_property
    def vpc_origins(self) -> list[VpcOriginView]:
        """Every ``AWS::CloudFront::VpcOrigin`` (issue 31: CloudFront -> VPC origin -> internal NLB)."""
        views = []
        for res in self._by_type.get(VPC_ORIGIN, ()):
            cfg = props_of(res).mapping("VpcOriginEndpointConfig")
            address_type = cfg.literal_str("IpAddressType")
            views.append(VpcOriginView(
                resource=res,
                endpoint=cfg.str("Arn"),
                name=cfg.str("Name"),
                protocol_policy=cfg.literal_str("OriginProtocolPolicy"),
                https_port=cfg.int("HTTPSPort"),
                http_port=cfg.int("HTTPPort"),
                ip_address_type=address_type.lower() if address_type is not None else None,
                protocol_policy_unknown=cfg.unknown or _deploy_time(cfg.raw("OriginProtocolPolicy")),
            ))
        return views

    def _with_vpc_origin(self, origin: OriginView) -> OriginView:
        """A ``VpcOriginConfig`` origin joined to its ``AWS::CloudFront::VpcOrigin`` (when in the
        templates): protocol policy and port come from the VPC origin's endpoint config."""
        if origin.vpc_origin_id is None:
            return origin
        ref = origin.vpc_origin_id
        by_key = {v.resource.key: v for v in self.vpc_origins}
        view = by_key.get((ref.stack, ref.logical_id)) if isinstance(ref, ResourceRef) else None
        origin.vpc_origin = view
        origin.protocol_policy_unknown = view is None  # the policy lives in a VPC origin outside these templates
        if view is not None:
            origin.protocol_policy = view.protocol_policy
            origin.protocol_policy_unknown = view.protocol_policy_unknown
            origin.https_port = view.https_port
            origin.http_port = view.http_port
        return origin

    def vpc_origin_load_balancer(self, origin: OriginView) -> LoadBalancerView | None:
        """The load balancer a VPC origin's endpoint names (None: not a VPC origin, or not in the templates)."""
        view = origin.vpc_origin
        return self.load_balancer(view.endpoint) if view is not None else None

    @staticmethod
    def _origin(o: Props) -> OriginView:
        """An ``OriginView``; the members it reads are ``ORIGIN_KNOWN_MEMBERS`` and friends (module level)."""
        custom = o.mapping("CustomOriginConfig")
        domain = o.str("DomainName")
        vpc = o.mapping("VpcOriginConfig")
        if o.has("VpcOriginConfig") and not o.has("CustomOriginConfig"):
            custom = vpc  # the timeouts live in VpcOriginConfig (1..120 s, defaults 5 and 30)
        custom_config = o.mapping("CustomOriginConfig")
        ip_type = custom_config.str("IpAddressType")  # not a VpcOriginConfig member
        http_version = custom.str("OriginHttpVersion")  # CustomOriginConfig or VpcOriginConfig
        return OriginView(
            id=display_value(o.str("Id")),
            domain_name=normalize_name(domain) if isinstance(domain, str) else domain,
            custom=o.has("CustomOriginConfig"),
            protocol_policy=custom.literal_str("OriginProtocolPolicy"),
            keepalive_timeout=custom.int("OriginKeepaliveTimeout"),
            read_timeout=custom.int("OriginReadTimeout"),
            https_port=custom.int("HTTPSPort"),
            http_port=custom.int("HTTPPort"),
            raw=o.data,
            protocol_policy_unknown=custom.unknown or _deploy_time(custom.raw("OriginProtocolPolicy")),
            vpc_origin_id=vpc.str("VpcOriginId") if o.has("VpcOriginConfig") else None,
            response_completion_timeout=o.int("ResponseCompletionTimeout"),
            response_completion_timeout_unknown=_deploy_time(o.raw("ResponseCompletionTimeout")),
            ip_address_type=ip_type.lower() if isinstance(ip_type, str) else None,
            ip_address_type_unknown=custom_config.unknown or _deploy_time(ip_type)
            or (isinstance(ip_type, str) and ip_type.lower() not in ("ipv4", "ipv6", "dualstack")),
            http_version=http_version.lower() if isinstance(http_version, str) else None,
            http_version_unknown=_deploy_time(custom.raw("OriginHttpVersion")),
        )

    @staticmethod
    def _behavior(b: Props, pattern: str | None, by_id: dict[str, OriginView], groups: dict[str, list[OriginView]]) -> BehaviorView:
        target = b.str("TargetOriginId")
        origins = groups.get(target) if isinstance(target, str) else None
        origins = origins or ([by_id[target]] if isinstance(target, str) and target in by_id else [])
        methods = b.strs("AllowedMethods") if b.has("AllowedMethods") else None
        grpc = b.mapping("GrpcConfig")
        return BehaviorView(
            path_pattern=pattern,
            target_origin_id=target,
            origins=origins,
            grpc_enabled=grpc.bool("Enabled") is True,
            allowed_methods=[display_value(m).upper() for m in methods] if methods is not None else None,
            cache_policy_id=b.str("CachePolicyId"),
            forwarded_values=b.raw("ForwardedValues"),
            raw=b.data,
            grpc_unknown=grpc.unknown or _deploy_time(grpc.raw("Enabled")),
            methods_unknown=_deploy_time(b.raw("AllowedMethods"))
            or any(_deploy_time(m) for m in (methods or ())),
        )

    # --- origins and paths ---------------------------------------------------------------------
    def grpc_origins(self) -> list[tuple[DistributionView, BehaviorView, OriginView]]:
        """Every (distribution, gRPC behavior, origin) triple, in template order."""
        return [(d, b, o) for d in self.distributions for b in d.behaviors if b.grpc_enabled for o in b.origins]

    def grpc_origin_names(self) -> set[str]:
        """Names that are gRPC origins: (a) the DomainName of an origin used by a behavior with
        ``GrpcConfig.Enabled``; (b) names of record sets with the metadata marker
        ``edge-origin:grpc-origin: true``."""
        names = {o.domain_name for _, _, o in self.grpc_origins() if isinstance(o.domain_name, str) and o.vpc_origin_id is None}
        names.update(r.name for r in self.all_record_sets if r.grpc_marker and isinstance(r.name, str))
        return names

    def cloudfront_origin_names(self) -> set[str]:
        """DomainNames (normalized literal strings) of every CloudFront origin CloudFront resolves (a VPC
        origin's DomainName is its Host/SNI name: CloudFront reaches the VPC origin's endpoint)."""
        return {
            o.domain_name for d in self.distributions for o in d.origins
            if isinstance(o.domain_name, str) and o.vpc_origin_id is None
        }

    def long_lived_origin_names(self) -> set[str]:
        """CloudFront origin names (not gRPC) whose records point at NLBs: long-lived
        connections too, checked at warning level."""
        grpc = self.grpc_origin_names()
        return {n for n in self.cloudfront_origin_names() - grpc if self.load_balancers_for_name(n)}

    def cloudfront_origin_types(self, name: str) -> tuple[str, ...]:
        """The record types CloudFront asks for origin name ``name``: the union of
        ``OriginView.dns_types()`` over the origins (of every distribution) with that DomainName;
        ``("A",)`` when no origin names it."""
        wanted = {
            t for d in self.distributions for o in d.origins
            if o.domain_name == name and o.vpc_origin_id is None for t in o.dns_types()
        }
        return tuple(t for t in ("A", "AAAA") if t in wanted) or ("A",)

    def origin_names(self) -> dict[str, str]:
        """``{name: "grpc" | "long-lived"}`` for every origin name the rules look at (sorted)."""
        return dict(self._origin_names)

    @cached_property
    def _origin_names(self) -> dict[str, str]:
        out = dict.fromkeys(sorted(self.long_lived_origin_names()), "long-lived")
        out.update(dict.fromkeys(sorted(self.grpc_origin_names()), "grpc"))
        return dict(sorted(out.items()))

    def routing_choices(self) -> tuple[list[Any], int]:
        """Non-default ``AllowedValues`` of parameters that decide routing (``model.parameters``):
        ``([ParameterChoice], how many were left out over the bound)``."""
        from edge_origin.model.parameters import routing_choices

        return routing_choices(self.templates)

    def with_choice(self, choice: Any) -> TemplateModel:
        """The model of the same templates deployed with one ``ParameterChoice``."""
        from edge_origin.model.parameters import with_choice

        variant = TemplateModel(with_choice(self.templates, choice))
        variant.acknowledged_paths = self.acknowledged_paths
        return variant

    @cached_property
    def zones(self) -> Any:
        """The hosted zones, record sets and health checks as the answer model's input
        (``edge_origin.model.zones.TemplateZones``; ``model.zones.resolve(name)``)."""
        from edge_origin.model.zones import template_zones

        return template_zones(self)

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
        """Load balancers behind a name, chains followed (CNAME and alias, across records of every
        zone holding the name), as the answer model resolves it. Cached per name: every
        distribution of a name asks, and a name may hold thousands of records."""
        memo = self.__dict__.setdefault("_load_balancers_by_name", {})
        if name not in memo:
            memo[name] = self._load_balancers_for_name(name)
        return list(memo[name])

    def _load_balancers_for_name(self, name: str) -> list[LoadBalancerView]:
        zones = self.zones
        out: list[LoadBalancerView] = []
        for item in zones.name_resolutions(name, cloudfront=False):
            out.extend(zones.resolution_load_balancers(self, item.resolution))
        for record in self.record_sets(name):
            if zones.record(record) is None:  # a record the answer model cannot read (decided at deploy)
                out.extend(self.record_load_balancers(record))
        return _unique(out)

    def load_balancers_for_origin(self, origin: OriginView) -> list[LoadBalancerView]:
        """Load balancers an origin reaches: a VPC origin's endpoint, by its name's records, or
        directly (GetAtt DNSName)."""
        if origin.vpc_origin_id is not None:
            lb = self.vpc_origin_load_balancer(origin)
            if lb is not None:
                return [lb]
        if isinstance(origin.domain_name, str):
            return self.load_balancers_for_name(origin.domain_name)
        lb = self.load_balancer(origin.domain_name)
        return [lb] if lb is not None else []


#: CloudFront ``Origin`` members (botocore API names) ``_origin`` reads (``CustomHeaders`` is
#: CloudFormation's ``OriginCustomHeaders``; ``S3OriginConfig`` only as "not a custom origin");
#: benchmarks/aws_drift.py lists the documented members missing here and in the two below.
ORIGIN_KNOWN_MEMBERS = (
    "Id", "DomainName", "CustomHeaders", "S3OriginConfig", "CustomOriginConfig", "VpcOriginConfig",
    "ResponseCompletionTimeout",
)
CUSTOM_ORIGIN_CONFIG_KNOWN_MEMBERS = (
    "HTTPPort", "HTTPSPort", "OriginProtocolPolicy", "OriginReadTimeout", "OriginKeepaliveTimeout", "IpAddressType",
    "OriginHttpVersion",
)
VPC_ORIGIN_CONFIG_KNOWN_MEMBERS = ("VpcOriginId", "OriginReadTimeout", "OriginKeepaliveTimeout", "OriginHttpVersion")


def _deploy_time(value: Any) -> bool:
    """A value only known at deploy time (a reference or something the templates cannot resolve)."""
    return isinstance(value, (ResourceRef, Unresolved))


def _attribute_int(value: Any) -> int | None:
    """An attribute value as an int (attributes are strings); None when not decidable or not a number."""
    from edge_origin.model.views import as_int

    return as_int(value)


def _in_template(template: str, fn: Any, *args: Any) -> Any:
    """Call ``fn``; a ModelError without a file gets ``template`` as its file."""
    try:
        return fn(*args)
    except ModelError as exc:
        if exc.template is None:
            exc.template = template
        raise
    except RecursionError:
        raise ModelError(f"{template}: intrinsic functions nested too deeply", template=template) from None


def _unique(items: Iterable[Any]) -> list[Any]:
    seen: set[int] = set()
    out = []
    for item in items:
        if id(item) not in seen:
            seen.add(id(item))
            out.append(item)
    return out


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a model is built or judged: the build makes
    hundreds of thousands of objects and no cycles, so each collection would walk them all for
    nothing (about 15 % of a large check). Restored as it was, even on an error."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_model(paths: Sequence[str | Path], *, strict: bool = True) -> TemplateModel:
    """Load template files (.json/.yaml/.yml/.template), folders and cdk.out directories as one model.

    ``strict`` (default): the first bad file raises ModelError. ``strict=False``: bad files are
    listed in ``model.unreadable`` and the rest is checked; ModelError only when no file could
    be read. For a cdk.out, findings CDK suppressed for the EdgeOrigin pack
    (``validation-report.json``, acknowledged with a reason) are kept in ``model.acknowledged_paths``.
    """
    with collector_paused():
        result = read_paths_result(paths)
        if strict and result.unreadable:
            raise ModelError(result.unreadable[0][1])
        model = TemplateModel(result.templates, strict=strict)
    model.unreadable[:0] = result.unreadable
    for directory in result.assemblies:
        try:
            acks = read_validation_acknowledgements(Path(directory))
        except ModelError as exc:
            if strict:
                raise
            model.unreadable.append((str(Path(directory) / "validation-report.json"), str(exc)))
            continue
        for path, rules in acks.items():
            model.acknowledged_paths.setdefault(path, {}).update(rules)
    return model


def model_from_text(text: str, stack: str = "Stack", template: str = "<string>") -> TemplateModel:
    """A model from one template's text (JSON or YAML): handy in tests."""
    return TemplateModel([LoadedTemplate(stack, template, parse_template_text(text, template))])
