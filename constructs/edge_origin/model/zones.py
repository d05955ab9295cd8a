"""The template model's hosted zones, record sets and health checks as the answer model's input.

``template_zones(model)`` (cached as ``model.zones``) builds one :class:`~edge_origin.answers.ZoneSet`:
records keyed by zone + name + type + set id (the zone: the HostedZone resource a record refers
to, the literal zone id, else the zone name); zones private when their ``AWS::Route53::HostedZone``
has ``VPCs`` (CloudFormation: "If you specify VPCs, the hosted zone is private"); load balancers
with their zonal addresses (an EIP each, or the subnet); health checks with every field that
decides their status. The routing element of each record comes from the answer model's one table
(``answers.routing.read_routing``, read once by the template model into ``RecordSetView.routing``);
a record it does not judge stays out of the zone set (``undecided`` names it).
"""

from __future__ import annotations

from edge_origin.answers import (
    PUBLIC,
    AliasTarget,
    Answer,
    CidrRouting,
    Geo,
    GeoProximity,
    HealthCheck,
    HostedZone,
    LoadBalancer,
    Record,
    RecordKey,
    Resolution,
    Routing,
    Vantage,
    ZoneSet,
    read_routing,
)
from edge_origin.core.fast_dataclass import dataclass, field
from edge_origin.model.values import ResourceRef, Unresolved, display_value, normalize_name
from edge_origin.model.views import LoadBalancerView, RecordSetView, as_bool, as_int, props_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

HOSTED_ZONE = "AWS::Route53::HostedZone"
#: Load balancer metadata an account reader sets: its DNS name as aliases and CNAMEs name it.
LIVE_DNS_NAME_KEY = "edge-origin:dns-name"


def _routing(view: RecordSetView) -> Routing:
    """The view's routing as the answer model's one table read it (``answers.routing``)."""
    if isinstance(view.routing, Routing):
        return view.routing
    return read_routing(view.properties, truth=as_bool)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else display_value(value)


def _geo(value: Any) -> Geo | None:
    if not isinstance(value, dict):
        return None
    return Geo(_text(value.get("ContinentCode")), _text(value.get("CountryCode")), _text(value.get("SubdivisionCode")))


def _geoproximity(value: Any) -> GeoProximity | None:
    if not isinstance(value, dict):
        return None
    coords = value.get("Coordinates")
    coordinates = (_text(coords.get("Latitude")) or "?", _text(coords.get("Longitude")) or "?") if isinstance(coords, dict) else None
    return GeoProximity(_text(value.get("AWSRegion")), _text(value.get("LocalZoneGroup")), coordinates, as_int(value.get("Bias")) or 0)


def _cidr(value: Any) -> CidrRouting | None:
    if not isinstance(value, dict):
        return None
    return CidrRouting(_text(value.get("CollectionId")) or "?", _text(value.get("LocationName")) or "?")


@dataclass(frozen=True)
class OriginResolution:
    """One zone's answers for an origin name, from the vantage that sees the zone."""

    name: str
    zone: HostedZone
    vantage: Vantage
    resolution: Resolution


@dataclass
class TemplateZones:
    """A template model's zones as the answer model's input, with the way back to the views."""

    zone_set: ZoneSet
    views: dict[RecordKey, list[RecordSetView]] = field(default_factory=dict)
    zone_of: dict[int, HostedZone] = field(default_factory=dict)
    by_view: dict[int, Record] = field(default_factory=dict)
    _resolutions: dict[tuple[str, bool, tuple[str, ...] | None], list[OriginResolution]] = field(
        default_factory=dict, repr=False
    )
    _unnamed_stacks: set[str] | None = field(default=None, repr=False)
    #: ``{value key: the model's value}`` (``ResourceRef`` of an EIP, a literal address).
    values: dict[str, Any] = field(default_factory=dict)
    _eips: dict[str, Any] = field(default_factory=dict, repr=False)
    _undecided: dict[tuple[str, str], bool] = field(default_factory=dict, repr=False)
    _zone_unnamed: dict[str, bool] = field(default_factory=dict, repr=False)
    _marked_names: set[tuple[str, str]] | None = field(default=None, repr=False)
    #: ``views`` by the identity of each record's own key (``{id(record.key): views[record.key]}``): a resolution's
    #: keys are those objects, found without RecordKey's Python-level hash (the records hold them: ids stay theirs).
    views_by_key_id: dict[int, list[RecordSetView]] = field(default_factory=dict, repr=False)
    #: ``key_views`` by the record-key tuple it was asked for: ``{id(keys): (keys, triples)}``.
    key_views_memo: dict[int, tuple[Any, list[Any]]] = field(default_factory=dict, repr=False)

    def resolve(self, name: str, rtype: str = "A", vantage: Vantage = PUBLIC, zone_id: str | None = None) -> Resolution:
        return self.zone_set.resolve(name, rtype, vantage, zone_id=zone_id)

    def answer_load_balancers(self, model: Any, answer: Answer) -> list[LoadBalancerView]:
        """The load balancer views an answer leads to: alias targets, and NLBs holding its EIPs."""
        out: list[LoadBalancerView] = [lb.source for lb in answer.load_balancers if isinstance(lb.source, LoadBalancerView)]
        for address in answer.addresses:
            eip = self.eip_of(model, address)
            if eip is not None:
                out.extend(eip.load_balancers)
        return list({id(lb): lb for lb in out}.values())

    def eip_of(self, model: Any, address: str) -> Any:
        """The ``EipView`` behind an answer's address key (None: a literal address, or an EIP not in the
        templates); ``model`` is the model these zones were built from. Looked up once per address."""
        memo = self._eips
        if address in memo:
            return memo[address]
        found = memo[address] = model.eip(self.values.get(address))
        return found

    def resolution_load_balancers(self, model: Any, resolution: Resolution) -> list[LoadBalancerView]:
        """``answer_load_balancers`` of every answer, each load balancer once, in the order met (one pass)."""
        out: dict[int, LoadBalancerView] = {}
        memo = self._eips
        for answer in resolution.answers:
            for lb in answer.load_balancers:
                if isinstance(lb.source, LoadBalancerView):
                    out.setdefault(id(lb.source), lb.source)
            for address in answer.addresses:
                eip = memo[address] if address in memo else self.eip_of(model, address)  # eip_of, its memo read here
                if eip is not None:
                    for view, _mapping in eip.attachments:  # eip.load_balancers, without the list
                        out.setdefault(id(view), view)
        return list(out.values())

    def name_resolutions(self, name: str, *, cloudfront: bool, types: tuple[str, ...] | None = None) -> list[OriginResolution]:
        """See ``_name_resolutions`` (cached per name)."""
        key = (normalize_name(name) or name, cloudfront, types)
        found = self._resolutions.get(key)
        if found is None:
            found = self._resolutions[key] = self._name_resolutions(name, cloudfront=cloudfront, types=types)
        return list(found)

    def _name_resolutions(self, name: str, *, cloudfront: bool, types: tuple[str, ...] | None = None) -> list[OriginResolution]:
        """How each zone holding ``name`` answers it, from the vantage that sees that zone.

        Public zones: a public resolver (CloudFront's). Private zones: a resolver in an
        associated VPC; when ``cloudfront`` (the name is a CloudFront origin) and the private
        zone's records carry no gRPC marker, the zone is left out: CloudFront resolves on the
        public internet and never sees a private zone.

        Record types: without ``types``, A always and AAAA when it has answers. With ``types`` (the
        types CloudFront asks for an origin name, ``OriginView.dns_types``: A for an ``ipv4`` origin,
        A and AAAA for ``dualstack``/``ipv6``, botocore 1.44.8 cloudfront ``IpAddressType``: "which IP
        protocol CloudFront uses when connecting to your origin"), a public zone answers exactly those
        types, each judged alike (answers or problems): an AAAA set CloudFront never asks is left out.
        Private zones keep the default (in-VPC clients ask both).
        """
        out = []
        for zone in self.zone_set.zones_holding(name):
            if zone.private:
                marked = (zone.id, normalize_name(name)) in self._marked()  # a record of it carries the gRPC marker
                if cloudfront and not marked:
                    continue
                vantage = Vantage("vpc", vpc_id=zone.vpcs[0] if zone.vpcs else "?")
            else:
                vantage = PUBLIC
            asked = types if types is not None and not zone.private else None
            for rtype in asked or ("A", "AAAA"):
                if asked is None and rtype == "AAAA" and not self.zone_set.holds(zone.id, name, ("AAAA", "CNAME")):
                    continue  # no AAAA or CNAME set of the name in the zone: no answers (and AAAA's problems are not judged)
                resolution = self.zone_set.resolve(name, rtype, vantage, zone_id=zone.id, scenarios=True)
                judged = rtype == "A" if asked is None else True
                if resolution.answers or (judged and resolution.problems):
                    out.append(OriginResolution(name, zone, vantage, resolution))
        return out

    def _marked(self) -> set[tuple[str, str]]:
        """``{(zone id, name)}`` of the record sets with a view that carries the gRPC marker (built once)."""
        if self._marked_names is None:
            self._marked_names = {(key.zone, key.name) for key, views in self.views.items() if any(v.grpc_marker for v in views)}
        return self._marked_names

    def key_views(self, keys: tuple[RecordKey, ...]) -> list[tuple[RecordKey, RecordSetView, Record | None]]:
        """``(key, view_of(key), record_by_key(key))`` for each key with a view, in order; worked out once per
        tuple (a resolution's ``record_keys``: EO-DNS1, EO-DNS2 and ``rules.base.answer_views`` each walk it).
        The list is shared: read it, do not change it."""
        kept = self.key_views_memo.get(id(keys))
        if kept is not None and kept[0] is keys:
            return kept[1]
        out = []
        views, by_id, by_view = self.views, self.views_by_key_id, self.by_view
        for key in keys:
            found = by_id.get(id(key))
            if found is None:
                found = views.get(key)  # a key made elsewhere (equal to a record's, or to none)
            if found:
                view = found[0]
                out.append((key, view, by_view.get(id(view))))
        self.key_views_memo[id(keys)] = (keys, out)  # keeps the tuple: its id names it while the memo lives
        return out

    def view_of(self, key: RecordKey) -> RecordSetView | None:
        found = self.views.get(key)
        return found[0] if found else None

    def zone(self, view: RecordSetView) -> HostedZone | None:
        """The hosted zone of a record view (None: a record the answer model cannot read)."""
        return self.zone_of.get(id(view))

    def record(self, view: RecordSetView) -> Record | None:
        """The answer model's record for a view (None: a record it cannot read, e.g. unknown)."""
        return self.by_view.get(id(view))

    def undecided(self, model: Any, name: str, zone: HostedZone) -> bool:
        """Whether ``zone`` may hold records of ``name`` the answer model cannot read: one of the
        name decided at deploy, or one whose name itself is (an undecidable Fn::If) in a stack
        that holds records of the zone. Judged once per name and zone."""
        key = (name, zone.id)
        found = self._undecided.get(key)
        if found is None:
            found = self._undecided[key] = self._judge_undecided(model, name, zone)
        return found

    def _judge_undecided(self, model: Any, name: str, zone: HostedZone) -> bool:
        views = model.record_sets(name)
        by_view = self.by_view  # self.record(v), inlined
        if any(by_view.get(id(v)) is None and zone_id_of(v) == zone.id for v in views):
            return True
        if zone_apart(views):
            return True  # a record of the name whose zone is decided at deploy may be in this zone (or this one in its)
        if self._unnamed_stacks is None:  # stacks with a record whose name is decided at deploy
            self._unnamed_stacks = {v.stack for v in model.all_record_sets if not isinstance(v.name, str)}
        if not self._unnamed_stacks:
            return False
        found = self._zone_unnamed.get(zone.id)  # the same for every name of the zone
        if found is None:
            unnamed = self._unnamed_stacks
            found = self._zone_unnamed[zone.id] = any(
                v.stack in unnamed for key, views in self.views.items() if key.zone == zone.id for v in views
            )
        return found

    def policy(self, view: RecordSetView) -> str:
        """The routing policy of a record view ("unknown": decided at deploy time)."""
        record = self.record(view)
        return record.policy if record is not None else "unknown"

    def sets_of(self, key: RecordKey) -> list[Record]:
        """Every record set of the same zone, name and type as ``key``."""
        return self.zone_set.record_sets(key.zone, key.name, key.type)

    def record_by_key(self, key: RecordKey) -> Record | None:
        """The first record set of ``key``: the record of its first view (``views`` is in record order)."""
        found = self.views.get(key)
        return self.by_view.get(id(found[0])) if found else None


def value_key(value: Any) -> str:
    """The answer model's key for a record value or alias target (a deploy-time value's text)."""
    if isinstance(value, ResourceRef):
        # Ref and GetAtt of one resource name one thing (an EIP's address, a check's id), except
        # a load balancer's DNS name
        return f"{value.stack}/{value.logical_id}" + (".dnsname" if value.attribute == "DNSName" else "")
    if isinstance(value, str):
        return normalize_name(value) or value
    return display_value(value)


def zone_undecided(view: RecordSetView) -> bool:
    """The record's hosted zone is decided at deploy time (a HostedZoneId or HostedZoneName that is a parameter
    without Default, an import no given template declares, an undecidable Fn::If)."""
    # view.zone_key's kind, without the key: "unknown" for a HostedZoneId neither a reference nor a text; "name"
    # (no HostedZoneId) with no literal HostedZoneName
    zone_id = view.hosted_zone_id
    if zone_id is not None:
        return not isinstance(zone_id, (ResourceRef, str))
    return view.hosted_zone_name is None and isinstance(view.hosted_zone, (ResourceRef, Unresolved))


def zone_apart(views: list[RecordSetView]) -> bool:
    """Record sets of one name in more than one zone, one of them decided at deploy time: that one may be in the
    others' zone (one expression in every set is one zone: the sets share a key and are not apart)."""
    if len(views) < 2:
        return False
    # the zone key is made of HostedZoneId and HostedZoneName: sets that write the same ones share it (nearly always)
    zone_id, zone_name = views[0].hosted_zone_id, views[0].hosted_zone_name
    for view in views:
        if view.hosted_zone_id != zone_id or view.hosted_zone_name != zone_name:
            break
    else:
        return False
    # each view's zone key once; whether one is decided at deploy is asked only of sets that are apart (rarely)
    keys = [view.zone_key for view in views]
    first = keys[0]
    if all(key == first for key in keys):
        return False
    return any(zone_undecided(view) for view in views)


def zone_id_of(view: RecordSetView) -> str:
    """The answer model's zone id of a record view: ``stack/ZoneLogicalId`` for a zone resource,
    the literal id, else ``name:<zone name>``."""
    kind, *rest = view.zone_key
    if kind == "zone":
        return f"{rest[0]}/{rest[1]}"
    return str(rest[0]) if kind in ("id", "unknown") else f"name:{rest[0]}"


def _zone_name(records: list[RecordSetView]) -> str:
    # each distinct name once (a zone's sets repeat their names): the common suffix and the shortest are the same
    names = [n.split(".") for n in dict.fromkeys(r.name for r in records if isinstance(r.name, str))]
    if not names:
        return "?"
    common: list[str] = []
    for labels in zip(*(list(reversed(n)) for n in names), strict=False):
        if len(set(labels)) != 1:
            break
        common.append(labels[0])
    if len(common) == len(min(names, key=len)) and len(common) > 2:
        common = common[:-1]  # the zone is above the record's own name
    return ".".join(reversed(common)) or "?"


def template_zones(model: Any) -> TemplateZones:
    """The answer model's input from a template model (see the module docstring)."""
    out = TemplateZones(ZoneSet((), ()))
    zone_resources: dict[str, HostedZone] = {}
    for res in model.of_type(HOSTED_ZONE):
        p = props_of(res)
        vpcs = [v for v in p.list("VPCs") if isinstance(v, dict)]
        zone_resources[f"{res.stack}/{res.logical_id}"] = HostedZone(
            f"{res.stack}/{res.logical_id}",
            normalize_name(p.literal_str("Name")) or "?",
            private=bool(vpcs) or p.list_unknown("VPCs"),
            vpcs=tuple(value_key(v.get("VPCId")) for v in vpcs),
        )
    by_zone: dict[str, list[RecordSetView]] = {}
    literal_ids: dict[str, str] = {}  # zone_id_of a view whose HostedZoneId is a literal: that text's alone
    for view in model.all_record_sets:
        if not isinstance(view.name, str) or view.type is None or view.unknown or view.routing_policy == "unknown":
            continue
        written = view.hosted_zone_id
        if written.__class__ is str:
            zone_id = literal_ids.get(written)
            if zone_id is None:
                zone_id = literal_ids[written] = zone_id_of(view)
        else:
            zone_id = zone_id_of(view)
        by_zone.setdefault(zone_id, []).append(view)
    zones = dict(zone_resources)
    for zone_id, views in by_zone.items():
        if zone_id not in zones:
            name = views[0].hosted_zone_name or _zone_name(views)
            zones[zone_id] = HostedZone(zone_id, name)
    lbs: list[LoadBalancer] = []
    for lb in model.load_balancers:
        zonal = []
        for mapping in lb.subnet_mappings or lb.subnets:
            # an EIP's key is the one its records hold (Ref EIP); else the NLB's address in that subnet
            if mapping.eip is not None:
                eip = mapping.eip.resource
                address = f"{eip.stack}/{eip.logical_id}"  # value_key(eip.ref): what its records hold (Ref EIP)
            else:
                address = f"{lb.resource.logical_id}:{display_value(mapping.subnet)}"
            zonal.append((mapping.zone or "?", address))
        key = f"{lb.resource.stack}/{lb.resource.logical_id}.dnsname"
        names = [key]
        live_name = lb.resource.metadata.get(LIVE_DNS_NAME_KEY)  # an account read: the name Route 53 shows
        if isinstance(live_name, str) and live_name.strip():
            names.append(live_name)
        for dns_name in names:
            lbs.append(LoadBalancer(dns_name, lb.type, tuple(zonal), lb.resource.logical_id, lb))
    for dist in model.of_type("AWS::CloudFront::Distribution"):
        # an alias to GetAtt Distribution.DomainName (aws-cdk-lib's CloudFrontTarget) ends at CloudFront
        key = value_key(ResourceRef(dist.stack, dist.logical_id, "DomainName"))
        lbs.append(LoadBalancer(key, "cloudfront", label=f"{dist.stack}/{dist.logical_id}"))
    checks = [_health_check(hc.resource) for hc in model.health_checks]
    records = []
    views_by_key, by_key_id, zone_of, by_view, values = out.views, out.views_by_key_id, out.zone_of, out.by_view, out.values
    for zone_id, views in by_zone.items():
        zone = zones[zone_id]
        for view in views:
            record = _record(zone_id, view, values)
            records.append(record)
            key = record.key
            found = by_key_id[id(key)] = views_by_key.setdefault(key, [])
            found.append(view)  # in record order: the first view is the first record's
            zone_of[id(view)] = zone
            by_view[id(view)] = record
    out.zone_set = ZoneSet(zones.values(), records, checks, lbs)
    return out


def _record(zone_id: str, view: RecordSetView, values: dict[str, Any]) -> Record:
    get = view.properties.get
    target = view.alias_target
    alias = None
    if target is not None:
        alias = AliasTarget(value_key(target.dns_name), target.evaluate_target_health is True, _text(target.hosted_zone_id))
    keys = []
    for value in view.values:
        # value_key(value), with an EIP's Ref (nearly every origin record's value) worked out here
        key = f"{value.stack}/{value.logical_id}" if value.__class__ is ResourceRef and value.attribute != "DNSName" \
            else value_key(value)
        values.setdefault(key, value)
        keys.append(key)
    set_id = view.set_identifier
    if set_id is not None and set_id.__class__ is not str:
        set_id = _text(set_id)
    hc = view.health_check_id
    routing = view.routing
    if routing.__class__ is not Routing:
        routing = _routing(view)
    weight = view.weight
    # the routing members most records lack are read only when present (each reader takes None to None)
    failover, region = get("Failover"), get("Region")
    geo, proximity, cidr = get("GeoLocation"), get("GeoProximityLocation"), get("CidrRoutingConfig")
    return Record(  # every field in order, by position (a call of 14 keywords costs twice as much: 936 at 10k)
        RecordKey(zone_id, view.name, view.type or "A", set_id),  # key
        routing.policy,  # policy
        tuple(keys),  # values
        view.ttl,  # ttl
        alias,  # alias
        # health_check_id: value_key(hc), a check's Ref worked out here
        None if hc is None else f"{hc.stack}/{hc.logical_id}" if hc.__class__ is ResourceRef and hc.attribute != "DNSName"
        else value_key(hc),
        # weight; a Weight decided at deploy time: some weight (1), so the set counts among the answers
        weight if weight is not None else (1 if get("Weight") is not None else None),
        None if failover is None else _text(failover),  # failover
        None if region is None else _text(region),  # region
        None if geo is None else _geo(geo),  # geo
        None if proximity is None else _geoproximity(proximity),  # geoproximity
        None if cidr is None else _cidr(cidr),  # cidr
        routing.az,  # az
        view,  # source
    )


#: ``HealthCheckConfig`` members (botocore route53 ``HealthCheckConfig``) the answer model and the
#: views read (:func:`_health_check`, ``TemplateModel.health_checks``); benchmarks/aws_drift.py
#: lists the documented members missing here.
HEALTH_CHECK_KNOWN_MEMBERS = (
    "Type", "IPAddress", "FullyQualifiedDomainName", "Port", "ResourcePath", "RequestInterval", "FailureThreshold",
    "Disabled", "Inverted", "ChildHealthChecks", "HealthThreshold", "Regions", "AlarmIdentifier",
    "InsufficientDataHealthStatus", "EndpointType", "HealthCheckSourceId",
)


def _health_check(res: Any) -> HealthCheck:
    """The answer model's health check (shapes were checked when the model built its views)."""
    cfg = res.properties.get("HealthCheckConfig")
    get = cfg.get if isinstance(cfg, dict) else {}.get
    alarm = get("AlarmIdentifier")
    children = get("ChildHealthChecks")
    regions = get("Regions")
    kind = get("Type")
    ip = get("IPAddress")
    fqdn = get("FullyQualifiedDomainName")
    insufficient = get("InsufficientDataHealthStatus")
    endpoint = get("EndpointType")  # the API's (a live read); CloudFormation has no such property yet
    threshold = get("HealthThreshold")
    port = get("Port")
    # _flag(value), without the call for a JSON boolean or an absent value (nearly every check's)
    disabled, inverted = get("Disabled"), get("Inverted")
    return HealthCheck(  # every field in order, by position (a call of 14 keywords costs twice as much)
        f"{res.stack}/{res.logical_id}",  # id: value_key(res.ref)
        kind.upper() if isinstance(kind, str) else "TCP",  # type
        disabled if disabled is True or disabled is False else disabled is not None and _flag(disabled),  # disabled
        inverted if inverted is True or inverted is False else inverted is not None and _flag(inverted),  # inverted
        tuple(value_key(c) for c in children) if isinstance(children, list) else (),  # children
        None if threshold is None else as_int(threshold),  # health_threshold
        tuple(_text(r) or "?" for r in regions) if isinstance(regions, list) else (),  # regions
        # ip_address: value_key(ip), an EIP's Ref (nearly every endpoint check's) worked out here
        None if ip is None else f"{ip.stack}/{ip.logical_id}" if ip.__class__ is ResourceRef and ip.attribute != "DNSName"
        else value_key(ip),
        value_key(fqdn) if fqdn is not None else None,  # fqdn
        port if port.__class__ is int else None if port is None else as_int(port),  # port (as_int: an int as it is)
        _text(alarm.get("Name")) if isinstance(alarm, dict) else None,  # alarm
        insufficient if isinstance(insufficient, str) else None,  # insufficient_data
        res.logical_id,  # label
        endpoint.upper() if isinstance(endpoint, str) else "PUBLIC",  # endpoint_type
    )


def _flag(value: Any) -> bool:
    """``as_bool(value) is True``, without the call for a JSON boolean or an absent value."""
    if value is True:
        return True
    if value is None or value is False:
        return False
    return as_bool(value) is True


__all__ = ["OriginResolution", "TemplateZones", "template_zones", "value_key", "zone_apart", "zone_id_of", "zone_undecided"]
