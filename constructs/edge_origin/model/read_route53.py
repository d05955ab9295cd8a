"""The Route 53 readers of :class:`~edge_origin.model.template_model.TemplateModel`: health checks and
record sets (RecordSetGroup members included) as typed views, and the caps on how many are read.

Functions of the model (its resources by type, ``target``, ``health_check``, ``record_name_of``); the
model calls them once and caches the views.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from edge_origin.answers.routing import Routing, read_routing
from edge_origin.core.facts import value
from edge_origin.model.values import ModelError, ResourceRef, Unresolved, normalize_name
from edge_origin.model.views import (
    AliasTargetView,
    HealthCheckView,
    Props,
    RecordSetView,
    Resource,
    as_bool,
    props_of,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

    from edge_origin.model.template_model import TemplateModel

#: Metadata key that marks a record set (or a RecordSetGroup) as a gRPC origin name.
GRPC_ORIGIN_METADATA_KEY = "edge-origin:grpc-origin"

RECORD_SET = "AWS::Route53::RecordSet"
RECORD_SET_GROUP = "AWS::Route53::RecordSetGroup"
HEALTH_CHECK = "AWS::Route53::HealthCheck"
HOSTED_ZONE = "AWS::Route53::HostedZone"
#: Route 53's default quota of records in one hosted zone ("Records per hosted zone: 10,000",
#: Route 53 developer guide, Quotas; adjustable: ``GetHostedZoneLimit`` MAX_RRSETS_BY_ZONE).
ROUTE53_RECORDS_PER_ZONE: int = value("route53.records_per_zone")
#: Caps on what the review reads (bounded time and memory on untrusted templates): record sets of
#: one name and type, and in all templates together. Both are far past what Route 53 takes by
#: default; the check stays linear in records per name below them (benchmarks/bench_records_per_name.py).
MAX_RECORD_SETS_PER_NAME = 50_000
MAX_RECORD_SETS = 250_000


#: Resource metadata an account reader sets when its botocore drops ``ResourceRecordSet.AZAffinity``.
SDK_DROPS_AZ_AFFINITY_KEY = "edge-origin:sdk-drops-azaffinity"


def _routing(p: Props, sdk_reads_az_affinity: bool = True) -> Routing:
    """The record set's routing, read by the answer model's one table (``answers.routing``)."""

    data = p.data

    def truth(value: Any) -> bool | None:
        if (value is True or value is False) and data.get("MultiValueAnswer") is value:
            return value  # what p.bool("MultiValueAnswer") returns for it, without the accessor
        if isinstance(value, (ResourceRef, Unresolved)):
            return None  # multivalue or simple: decided at deploy time
        return p.bool("MultiValueAnswer")

    return read_routing(data, truth=truth, literal=_literal, sdk_reads_az_affinity=sdk_reads_az_affinity)


def _literal(value: Any) -> str | None:
    return value if isinstance(value, str) else None


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


#: What ``Props.str`` returns as it is (a string, a deploy-time value, None).
_AS_IS = frozenset({str, ResourceRef, Unresolved, type(None)})
#: What ``Props.literal_str`` returns as it is (a string, None); ``Props.int``: an int, None.
_STR_OR_NONE = frozenset({str, type(None)})
_INT_OR_NONE = frozenset({int, type(None)})
#: The items ``Props.strs`` returns as they are, without a look at each (strings, deploy-time values).
_STR_OR_DEPLOY_TIME = frozenset({str, ResourceRef, Unresolved})


def health_check_views(model: TemplateModel) -> list[HealthCheckView]:
    views = []
    for res in model.of_type(HEALTH_CHECK):
        p = props_of(res)
        cfg = p.data.get("HealthCheckConfig")
        if type(cfg) is dict:  # the common shape, each value as its accessor below returns it: read in place
            kind, address, fqdn, path = cfg.get("Type"), cfg.get("IPAddress"), cfg.get("FullyQualifiedDomainName"), cfg.get("ResourcePath")
            port, interval, threshold = cfg.get("Port"), cfg.get("RequestInterval"), cfg.get("FailureThreshold")
            if (type(kind) in _STR_OR_NONE and type(address) in _AS_IS and type(fqdn) in _AS_IS and type(path) in _AS_IS
                    and type(port) in _INT_OR_NONE and type(interval) in _INT_OR_NONE and type(threshold) in _INT_OR_NONE):
                views.append(HealthCheckView(res, kind, address, fqdn, port, path, interval, threshold))
                continue
        cfg = p.mapping("HealthCheckConfig")
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


def check_record_caps(views: Sequence[Any]) -> None:
    """ModelError (naming the template) past MAX_RECORD_SETS or MAX_RECORD_SETS_PER_NAME."""
    quota = f"Route 53 takes {ROUTE53_RECORDS_PER_ZONE:,} records in a hosted zone by default (Quotas: records per hosted zone)"
    if len(views) > MAX_RECORD_SETS:
        last = views[MAX_RECORD_SETS].resource
        raise ModelError(
            f"{last.template}: more than {MAX_RECORD_SETS:,} record sets in the given templates ({len(views):,}): "
            f"over edge-origin's cap; {quota}", template=last.template,
        )
    if len(views) <= MAX_RECORD_SETS_PER_NAME:
        return  # no name and type can hold more record sets than there are
    counts: dict[tuple[str, Any], int] = defaultdict(int)
    spelled: dict[str, str] = {}  # normalize_name(name) or name, once per name
    for view in views:
        name = view.name
        if isinstance(name, str):
            normal = spelled.get(name)
            if normal is None:
                normal = spelled[name] = normalize_name(name) or name
            key = (normal, view.type)
            counts[key] += 1
            if counts[key] > MAX_RECORD_SETS_PER_NAME:
                from edge_origin.core.escape import shorten

                raise ModelError(
                    f"{view.resource.template}: more than {MAX_RECORD_SETS_PER_NAME:,} record sets of {shorten(view.name)!r} "
                    f"{shorten(view.type)}: over edge-origin's cap; {quota}", template=view.resource.template,
                )


def _hosted_zone_name(model: TemplateModel, zone_id: Any, zone_name: Any) -> str | None:
    if isinstance(zone_name, str):
        return normalize_name(zone_name)
    res = model.target(zone_id)
    if res is not None and res.type == HOSTED_ZONE:
        return normalize_name(props_of(res).literal_str("Name"))
    return None


def _str_of(data: dict[str, Any], p: Props, key: str) -> Any:
    """``p.str(key)``: the value read in place when it is one the accessor returns as it is (``_AS_IS``)."""
    value = data.get(key)
    return value if type(value) in _AS_IS else p.str(key)


def _record_view(model: TemplateModel, res: Resource, p: Props, index: int | None, group: Props | None,
                 names: dict[str, Any] | None = None) -> RecordSetView:
    """One record set's view; ``names`` keeps ``_name_key`` of each literal name read (one reading:
    a name is spelled alike by many record sets). A value its accessor returns as it is (a string,
    a deploy-time value, an int, None) is read in place; any other through the accessor."""
    data = p.data
    alias_view = None
    if data.get("AliasTarget") is not None:
        alias = p.mapping("AliasTarget")
        dns = model.record_name_of(alias.str("DNSName"))
        alias_view = AliasTargetView(
            dns_name=_name_key(dns) if isinstance(dns, str) else dns,
            hosted_zone_id=alias.str("HostedZoneId"),
            evaluate_target_health=alias.bool("EvaluateTargetHealth"),
        )
    records = values = data.get("ResourceRecords")
    if type(values) is not list or not _STR_OR_DEPLOY_TIME.issuperset(map(type, values)):
        values = p.strs("ResourceRecords")  # else a list of strings and deploy-time values: as strs returns it
    rtype = data.get("Type")
    if type(rtype) not in _STR_OR_NONE:
        rtype = p.literal_str("Type")
    if rtype == "CNAME":
        values = [model.record_name_of(v) for v in values]
    zone_id = _str_of(data, p, "HostedZoneId")
    zone_name = _str_of(data, p, "HostedZoneName")
    if group is not None:
        zone_id = zone_id if zone_id is not None else group.str("HostedZoneId")
        zone_name = zone_name if zone_name is not None else group.str("HostedZoneName")
    metadata = res.metadata
    marker = metadata.get(GRPC_ORIGIN_METADATA_KEY)
    marker = marker is True or (marker is not None and as_bool(marker) is True)
    hc_id = _str_of(data, p, "HealthCheckId")
    name = _str_of(data, p, "Name")
    routing = _routing(p, sdk_reads_az_affinity=metadata.get(SDK_DROPS_AZ_AFFINITY_KEY) is not True)
    if rtype is not None and rtype not in ROUTE53_RECORD_TYPES:
        # Route 53 refuses it at deploy; read as another type, a weighted gRPC record would pass unseen
        raise p._error(p._at("Type"), rtype, f"a Route 53 record type, upper case ({', '.join(ROUTE53_RECORD_TYPES)})")
    if name is None:
        key = None
    elif names is None or name.__class__ is not str:
        key = _name_key(name)
    else:
        key = names.get(name)
        if key is None:
            key = names[name] = _name_key(name)
    set_id = data.get("SetIdentifier")
    if type(set_id) not in _AS_IS:
        set_id = p.str("SetIdentifier")
    weight = data.get("Weight")
    if type(weight) not in _INT_OR_NONE:
        weight = p.int("Weight")
    return RecordSetView(  # by position (RECORD_SET_VIEW_FIELDS: a test holds the order to the class's)
        res,  # resource
        index,  # member_index
        key,  # name
        rtype,  # type
        set_id,  # set_identifier
        routing.policy,  # routing_policy
        weight,  # weight
        _ttl(p),  # ttl
        values,  # values
        alias_view,  # alias_target
        hc_id,  # health_check_id
        model.health_check(hc_id),  # health_check
        zone_id if zone_id is not None else zone_name,  # hosted_zone
        _hosted_zone_name(model, zone_id, zone_name),  # hosted_zone_name
        marker,  # grpc_marker
        data,  # properties
        p.unknown or isinstance(records, (ResourceRef, Unresolved)),  # unknown (p.list_unknown_itself("ResourceRecords"))
        zone_id,  # hosted_zone_id
        routing,  # routing
    )


#: ``{TTL text: its int}``, each text read once (CDK writes TTLs as strings, alike in many records); bounded.
_TTL_TEXTS: dict[str, int] = {}


def _ttl(p: Props) -> int | None:
    """``p.int("TTL")``, a text read once (``_TTL_TEXTS``)."""
    value = p.data.get("TTL")
    if type(value) is str:
        number = _TTL_TEXTS.get(value)
        if number is None:
            number = p.int("TTL")  # None (never for a text) or raised: not kept
            if number is not None and len(_TTL_TEXTS) < 4096:
                _TTL_TEXTS[value] = number
        return number
    if type(value) is int or value is None:
        return value
    return p.int("TTL")


#: RecordSetView's fields in the order ``_record_view`` passes them.
RECORD_SET_VIEW_FIELDS = (
    "resource", "member_index", "name", "type", "set_identifier", "routing_policy", "weight", "ttl", "values",
    "alias_target", "health_check_id", "health_check", "hosted_zone", "hosted_zone_name", "grpc_marker", "properties",
    "unknown", "hosted_zone_id", "routing",
)


def record_set_views(model: TemplateModel) -> list[RecordSetView]:
    """Every record set, RecordSetGroup members included, in template order."""
    views: list[RecordSetView] = []
    names: dict[str, Any] = {}
    if not model.of_type(RECORD_SET_GROUP):  # record sets only: of_type keeps template order
        return [_record_view(model, res, props_of(res), None, None, names) for res in model.of_type(RECORD_SET)]
    for res in model.resources:
        if res.type == RECORD_SET:
            views.append(_record_view(model, res, props_of(res), None, None, names))
        elif res.type == RECORD_SET_GROUP:
            group = props_of(res)
            for i, member in enumerate(group.mappings("RecordSets")):
                views.append(_record_view(model, res, member, i, group, names))
    return views
