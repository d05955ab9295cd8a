"""Typed, read-only views of the resources the rules, the report and the rehearsal read.

Every view keeps its ``resource`` (stack, template file, logical id, resolved properties), so a
finding can always name where it comes from. Values are resolved: ``str``/``int``/``bool``,
``ResourceRef`` (deploy-time values: an EIP's IP, an NLB's DNS name) or ``Unresolved``.
"""

from __future__ import annotations

from collections.abc import Callable

from edge_origin.core.fast_dataclass import dataclass, field
from edge_origin.model.values import ModelError, ResourceRef, Unresolved

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any


class Resource:
    """One resource: ``properties`` has every intrinsic resolved as far as the templates allow.

    A model's resources resolve their ``Properties`` on first read, once (``_settle``, set by the model): a
    resource no view or rule reads costs no evaluation. An error of that evaluation (bad input, the
    ``--max-eval-*`` budgets) is raised by the first read, as a ``ModelError`` naming the file and
    the resource."""

    __slots__ = ("stack", "template", "logical_id", "type", "_properties", "metadata", "condition", "_unknown", "_settle",
                 "__dict__")  # rules keep per-resource memos in __dict__

    def __init__(
        self,
        stack: str,
        template: str,
        logical_id: str,
        type: str,  # noqa: A002 (the CloudFormation name, as before)
        properties: dict[str, Any],
        metadata: dict[str, Any],
        condition: str | None = None,
        unknown_properties: Unresolved | None = None,
    ) -> None:
        self.stack = stack
        self.template = template
        self.logical_id = logical_id
        self.type = type
        self._properties = properties
        self.metadata = metadata
        self.condition = condition
        self._unknown = unknown_properties
        self._settle: Callable[[], tuple[dict[str, Any], Unresolved | None]] | None = None

    def _settled(self) -> None:
        settle = self._settle
        if settle is not None:
            self._properties, self._unknown = settle()  # an error leaves it unsettled: raised again
            self._settle = None

    def check_deferred(self) -> None:
        """Raise now what the first read of ``properties`` would raise (``ModelError``), without
        resolving them; a resource whose ``Properties`` is itself an intrinsic is resolved."""
        settle = self._settle
        if settle is not None:
            check = getattr(settle, "check", None)
            if check is not None:
                check()
            if not getattr(settle, "checked", False):
                self._settled()

    @property
    def settled(self) -> bool:
        """Whether ``properties`` has been resolved (always, for a resource made with its properties)."""
        return self._settle is None

    @property
    def properties(self) -> dict[str, Any]:
        if self._settle is not None:
            self._settled()
        return self._properties

    @property
    def unknown_properties(self) -> Unresolved | None:
        """Set when the whole Properties is an undecidable ``Fn::If`` (``properties`` is then empty)."""
        if self._settle is not None:
            self._settled()
        return self._unknown

    def __repr__(self) -> str:
        return f"Resource({self.stack!r}, {self.logical_id!r}, {self.type!r})"

    @property
    def path(self) -> str:
        """The ``aws:cdk:path`` metadata, or "" for hand-written templates."""
        value = self.metadata.get("aws:cdk:path")
        return value if isinstance(value, str) else ""

    @property
    def ref(self) -> ResourceRef:
        return ResourceRef(self.stack, self.logical_id, None)

    @property
    def key(self) -> tuple[str, str]:
        return (self.stack, self.logical_id)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


_DEPLOY_TIME = (ResourceRef, Unresolved)
_STR_OR_DEPLOY_TIME = (str, *_DEPLOY_TIME)
#: Set in an attributes dict whose list is (partly) decided at deploy time.
UNKNOWN_ATTRIBUTES = "<unknown attributes>"


def attribute_known(attributes: dict[str, Any], key: str) -> bool:
    """Whether ``attributes`` decides ``key``: a literal value, or surely absent."""
    if key in attributes:
        return not isinstance(attributes[key], _DEPLOY_TIME)
    return UNKNOWN_ATTRIBUTES not in attributes


class Props:
    """Typed access to one mapping of resolved properties, the one place shapes are checked.

    Each accessor returns the typed value, a deploy-time value (``ResourceRef``/``Unresolved``)
    where one is allowed, or None when absent; a value of a JSON type CloudFormation would
    refuse there raises ``ModelError`` naming the file, the resource and the property path.
    An ``Unresolved`` mapping (an undecidable ``Fn::If``) reads as empty with ``unknown`` set.
    """

    __slots__ = ("_data", "resource", "_path", "unknown")

    def __init__(self, data: Any, resource: Resource, path: str | tuple[Props, str, int | None] = "Properties") -> None:
        """``path``: the property path, or ``(parent, key, index)`` spelled only when an error names it."""
        self.resource = resource
        self._path = path
        if type(data) is dict:  # the common case, as below: neither deploy-time nor refused
            self.unknown = path == "Properties" and resource.unknown_properties is not None
            self._data: dict[str, Any] = data
            return
        self.unknown = isinstance(data, _DEPLOY_TIME) or (path == "Properties" and resource.unknown_properties is not None)
        if data is None or isinstance(data, _DEPLOY_TIME):
            data = {}
        if data.__class__ is not dict and not isinstance(data, dict):
            raise self._error(self.path, data, "a mapping")
        self._data = data

    @property
    def path(self) -> str:
        """The property path (``Properties.Listeners[0].Port``)."""
        path = self._path
        if path.__class__ is str:
            return path  # type: ignore[return-value]
        parent, key, index = path  # type: ignore[misc]
        return f"{parent.path}.{key}" if index is None else f"{parent.path}.{key}[{index}]"

    def _error(self, path: str, value: Any, wanted: str) -> ModelError:
        res = self.resource
        return ModelError(
            f"{res.template}: {res.logical_id}: {path} is {_kind(value)} ({_short(value)}), expected {wanted}",
            template=res.template,
        )

    def _at(self, key: str) -> str:
        return f"{self.path}.{key}"

    @property
    def data(self) -> dict[str, Any]:
        return self._data

    def has(self, key: str) -> bool:
        return self._data.get(key) is not None

    def raw(self, key: str) -> Any:
        return self._data.get(key)

    def str(self, key: str) -> Any:
        """A string (numbers become their text, as CloudFormation does), a deploy-time value, or None."""
        value = self._data.get(key)
        if value is None or isinstance(value, _STR_OR_DEPLOY_TIME):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return str(value)
        raise self._error(self._at(key), value, "a string")

    def literal_str(self, key: str) -> str | None:
        """Only a literal string (None for absent or deploy-time values); shapes checked as ``str``."""
        value = self.str(key)
        return value if isinstance(value, str) else None

    def int(self, key: str) -> int | None:
        """An integer (or numeric string); None when absent or deploy-time."""
        value = self._data.get(key)
        if value is None or isinstance(value, _DEPLOY_TIME):
            return None
        number = as_int(value)
        if number is None:
            raise self._error(self._at(key), value, "an integer")
        return number

    def bool(self, key: str) -> bool | None:
        """true/false (or their strings); None when absent or deploy-time."""
        value = self._data.get(key)
        if value is None or isinstance(value, _DEPLOY_TIME):
            return None
        flag = as_bool(value)
        if flag is None:
            raise self._error(self._at(key), value, "true or false")
        return flag

    def mapping(self, key: str) -> Props:
        """A nested mapping (empty when absent; ``unknown`` when deploy-time)."""
        return Props(self._data.get(key), self.resource, (self, key, None))

    def list(self, key: str) -> list[Any]:
        """A list ([] when absent or deploy-time)."""
        value = self._data.get(key)
        if value is None or isinstance(value, _DEPLOY_TIME):
            return []
        if not isinstance(value, list):
            raise self._error(self._at(key), value, "a list")
        return value

    def items(self, key: str) -> list[Any]:
        """A list or one value standing for a list of one (CloudFormation coerces e.g. SecurityGroups)."""
        value = self._data.get(key)
        if value is None:
            return []
        if isinstance(value, list):
            return value
        if isinstance(value, dict):
            raise self._error(self._at(key), value, "a list")
        return [value]

    def mappings(self, key: str) -> list[Props]:
        """A list of mappings; deploy-time items are skipped (not decidable), other kinds refused."""
        out = []
        for i, item in enumerate(self.list(key)):
            if isinstance(item, _DEPLOY_TIME):
                continue
            if not isinstance(item, dict):
                raise self._error(f"{self._at(key)}[{i}]", item, "a mapping")
            out.append(Props(item, self.resource, (self, key, i)))
        return out

    def strs(self, key: str) -> list[Any]:
        """A list of strings / deploy-time values."""
        items = self.list(key)
        for i, item in enumerate(items):
            if isinstance(item, (dict, list)) or item is None:
                raise self._error(f"{self._at(key)}[{i}]", item, "a string")
        return items

    def list_unknown_itself(self, key: str) -> bool:
        """The list at ``key`` is decided at deploy time as a whole (an intrinsic the templates cannot decide):
        how many items it holds is not known."""
        return isinstance(self._data.get(key), _DEPLOY_TIME)

    def list_unknown(self, key: str) -> bool:
        """The list at ``key`` (or one of its items) is decided at deploy time."""
        value = self._data.get(key)
        if isinstance(value, _DEPLOY_TIME):
            return True
        return isinstance(value, list) and any(isinstance(item, _DEPLOY_TIME) for item in value)

    def key_values(self, key: str) -> dict[str, Any]:
        """``[{"Key": k, "Value": v}, ...]`` (LB/listener/target group attributes) as a dict; when the
        list, an entry or an entry's ``Key`` is decided at deploy time (or the properties holding the
        list are), the key ``UNKNOWN_ATTRIBUTES`` is set: any attribute may be in it."""
        items = self._data.get(key)
        if not self.unknown and type(items) is list:
            out = {}
            for item in items:  # literal keys and values: read as below, in one pass
                if type(item) is not dict:
                    break
                name, value = item.get("Key"), item.get("Value")
                if type(name) is not str or type(value) is not str:
                    break
                out[name] = value
            else:
                return out
        return self.read_key_values(key)

    def read_key_values(self, key: str) -> dict[str, Any]:
        """``key_values`` through the typed accessors: any list (deploy-time entries, numbers, booleans)."""
        out: dict[str, Any] = {UNKNOWN_ATTRIBUTES: True} if self.unknown or self.list_unknown(key) else {}
        for item in self.mappings(key):
            name = item.str("Key")
            if isinstance(name, str):
                out[name] = item.str("Value")
            elif name is not None:  # a Key decided at deploy time
                out[UNKNOWN_ATTRIBUTES] = True
        return out


def props_of(resource: Resource) -> Props:
    """Typed access to a resource's Properties."""
    settle = resource._settle
    if settle is not None:  # Resource._settled, inlined
        resource._properties, resource._unknown = settle()  # an error leaves it unsettled: raised again
        resource._settle = None
    data = resource._properties
    if type(data) is not dict:
        return Props(data, resource)
    p = _new_props(Props)  # Props.__init__'s common case: a settled resource's mapping
    p.resource, p._path, p._data, p.unknown = resource, "Properties", data, resource._unknown is not None
    return p


_new_props = object.__new__


def as_int(value: Any) -> int | None:
    """An int from an int or a numeric string (CloudFormation allows both); else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 20:
            return None
        try:
            return int(text)
        except ValueError:
            return None
    return None


def as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def key_values(items: Any) -> dict[str, Any]:
    """``[{"Key": k, "Value": v}, ...]`` (LB/listener/target group attributes) as a dict."""
    out: dict[str, Any] = {}
    if isinstance(items, list):
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("Key"), str):
                out[item["Key"]] = item.get("Value")
    return out


@dataclass(eq=False)
class HealthCheckView:
    """An ``AWS::Route53::HealthCheck``: ``HealthCheckConfig`` fields."""

    resource: Resource
    type: str | None
    ip_address: Any
    fqdn: Any
    port: int | None
    resource_path: Any
    request_interval: int | None
    failure_threshold: int | None


@dataclass(eq=False)
class AliasTargetView:
    dns_name: Any
    hosted_zone_id: Any
    evaluate_target_health: bool | None


@dataclass(eq=False)
class RecordSetView:
    """One record set: an ``AWS::Route53::RecordSet`` or a member of a ``RecordSetGroup``.

    ``member_index`` is the position inside the group (None for a plain RecordSet).
    ``name`` is normalized (str) or the raw Unresolved/ResourceRef when not a literal.
    ``routing_policy``: ``weighted`` | ``multivalue`` | ``failover`` | ``latency`` |
    ``geolocation`` | ``geoproximity`` | ``cidr`` | ``azaffinity`` | ``simple`` | ``unknown``
    (not judged: see ``routing.reason``).
    ``grpc_marker`` is True when the record (or its group) has the metadata key
    ``edge-origin:grpc-origin`` set to true.
    """

    resource: Resource
    member_index: int | None
    name: Any
    type: str | None
    set_identifier: Any
    routing_policy: str
    weight: int | None
    ttl: int | None
    values: list[Any]
    alias_target: AliasTargetView | None
    health_check_id: Any
    health_check: HealthCheckView | None
    hosted_zone: Any
    hosted_zone_name: str | None
    grpc_marker: bool
    properties: dict[str, Any] = field(repr=False, default_factory=dict)
    #: The record's properties are (partly) an undecidable ``Fn::If``: what it is is not known.
    unknown: bool = False
    #: ``HostedZoneId`` as written (the record's, else its group's), or None.
    hosted_zone_id: Any = None
    #: The routing as ``edge_origin.answers.read_routing`` reads it (policy, AZ location, and why
    #: it is not judged when ``routing_policy`` is ``unknown``).
    routing: Any = None

    @property
    def zone_key(self) -> tuple[Any, ...]:
        """Which hosted zone the record is in, by identity: the zone resource it refers to, the
        literal zone id, else (only the name is known) the normalized ``HostedZoneName``."""
        zone_id = self.hosted_zone_id
        if isinstance(zone_id, ResourceRef):
            return ("zone", zone_id.stack, zone_id.logical_id)
        if isinstance(zone_id, str):
            return ("id", zone_id.strip().removeprefix("/hostedzone/").upper())
        if zone_id is not None:
            return ("unknown", repr(zone_id))
        return ("name", self.hosted_zone_name)

    @property
    def stack(self) -> str:
        return self.resource.stack

    @property
    def template(self) -> str:
        return self.resource.template

    @property
    def logical_id(self) -> str:
        return self.resource.logical_id

    @property
    def label(self) -> str:
        """Logical id, with ``[i]`` for a group member."""
        if self.member_index is None:
            return self.logical_id
        return f"{self.logical_id}[{self.member_index}]"


@dataclass(eq=False)
class SubnetMappingView:
    subnet: Any
    allocation: Any
    eip: EipView | None
    zone: str | None


@dataclass(eq=False)
class EipView:
    """An ``AWS::EC2::EIP`` and the NLB subnet mappings that attach it (normally one)."""

    resource: Resource
    attachments: list[tuple[LoadBalancerView, SubnetMappingView]] = field(default_factory=list)

    @property
    def zone(self) -> str | None:
        for _, mapping in self.attachments:
            if mapping.zone:
                return mapping.zone
        return None

    @property
    def load_balancers(self) -> list[LoadBalancerView]:
        return [lb for lb, _ in self.attachments]


@dataclass(eq=False)
class TargetGroupView:
    resource: Resource
    protocol: str | None
    port: int | None
    target_type: str | None
    attributes: dict[str, Any]
    health_check_port: Any
    health_check_protocol: str | None
    #: ``Protocol`` is decided at deploy time (``protocol`` is then None): a TCP/TLS target group or not.
    protocol_undecided: bool = False

    @property
    def connection_termination(self) -> bool | None:
        return as_bool(self.attributes.get("deregistration_delay.connection_termination.enabled"))


@dataclass(eq=False)
class ListenerView:
    """``idle_timeout`` is ``tcp.idle_timeout.seconds`` from ListenerAttributes (None if absent or decided at
    deploy time)."""

    resource: Resource
    load_balancer: LoadBalancerView | None
    protocol: str | None
    port: int | None
    attributes: dict[str, Any]
    idle_timeout: int | None
    target_groups: list[TargetGroupView]
    target_group_refs: list[Any]
    #: ``Protocol`` when it is decided at deploy time (``protocol`` is then None): the value as resolved.
    protocol_undecided: Any = None


@dataclass(eq=False)
class IngressRule:
    """One ingress permission; ``source`` is the resource it was written in."""

    source: Resource
    protocol: str
    from_port: int | None
    to_port: int | None
    cidr_ip: Any = None
    cidr_ipv6: Any = None
    prefix_list_id: Any = None
    source_security_group: Any = None
    #: Protocol or ports are decided at deploy time: whether it covers a port is not known.
    unknown: bool = False
    #: The first of IpProtocol, FromPort, ToPort decided at deploy time, as resolved (None: all decided).
    undecided: Any = None
    #: IpProtocol is decided at deploy time (``protocol`` then shows it as written).
    protocol_unknown: bool = False

    def covers_port(self, port: int) -> bool:
        if self.protocol in ("-1", "all"):
            return True
        if self.protocol not in ("tcp", "6"):
            return False
        if self.from_port is None or self.to_port is None:
            return False
        if self.from_port == -1 and self.to_port == -1:
            return True
        return self.from_port <= port <= self.to_port


ATTRIBUTES_NOT_RETURNED_KEY = "edge-origin:attributes-not-returned"
"""Resource Metadata of an account read: the known attribute keys a Describe*Attributes call did not return (AWS
returns every attribute; moto omits those never set), so a rule says "not returned", not "unset"."""

ROUTE53_PREFIX_LIST_METADATA_KEY = "edge-origin:route53-healthchecks-prefix-list"
"""Security group Metadata: the id of the AWS-managed prefix list ``com.amazonaws.<region>.route53-healthchecks``
an ingress rule of the group names (the constructs write it; EO-SG1 reads it as admitting every checker)."""


@dataclass(eq=False)
class SecurityGroupView:
    resource: Resource
    ingress: list[IngressRule] = field(default_factory=list)
    #: The inline ingress list (or an entry of it) is decided at deploy time.
    ingress_unknown: bool = False


#: ELBv2 attribute keys the model and rules read (botocore elbv2 ``LoadBalancerAttribute`` /
#: ``ListenerAttribute`` / ``TargetGroupAttribute`` ``Key`` docs): EO-NLB3/EO-VPC3/EO-NLB4 read the load
#: balancer's, EO-NLB1/EO-CF2/EO-KA1 the listener's, EO-NLB3/EO-NLB4 the target group's.
#: benchmarks/aws_drift.py lists the documented keys missing here.
LOAD_BALANCER_KNOWN_ATTRIBUTES = (
    "load_balancing.cross_zone.enabled", "dns_record.client_routing_policy", "zonal_shift.config.enabled",
)
LISTENER_KNOWN_ATTRIBUTES = ("tcp.idle_timeout.seconds",)
TARGET_GROUP_KNOWN_ATTRIBUTES = (
    "deregistration_delay.connection_termination.enabled",
    "deregistration_delay.timeout_seconds",
    "target_health_state.unhealthy.connection_termination.enabled",
    "load_balancing.cross_zone.enabled",
    "target_group_health.unhealthy_state_routing.minimum_healthy_targets.count",
    "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage",
    "target_group_health.dns_failover.minimum_healthy_targets.count",
    "target_group_health.dns_failover.minimum_healthy_targets.percentage",
)


@dataclass(eq=False)
class LoadBalancerView:
    """An ``AWS::ElasticLoadBalancingV2::LoadBalancer``; ``type`` defaults to ``application``."""

    resource: Resource
    type: str
    scheme: str
    attributes: dict[str, Any]
    security_groups: list[Any]
    subnet_mappings: list[SubnetMappingView]
    listeners: list[ListenerView] = field(default_factory=list)
    #: ``Subnets`` (the form aws-cdk-lib writes without EIPs): one zonal node, with an address of
    #: AWS's choosing, per subnet.
    subnets: list[SubnetMappingView] = field(default_factory=list)
    #: ``MinimumLoadBalancerCapacity.CapacityUnits``: LCUs reserved (botocore elbv2: "The minimum
    #: capacity for a load balancer."); None when absent or decided at deploy time.
    capacity_units: int | None = None
    #: ``MinimumLoadBalancerCapacity`` is present but its value is decided at deploy time.
    capacity_unknown: bool = False
    #: ``Type`` is decided at deploy time (a parameter without Default, an import, an undecidable condition;
    #: ``type`` then holds its text): a network load balancer or not. Rules that judge NLBs say not judged.
    type_undecided: bool = False

    @property
    def zone_count(self) -> int:
        """Zonal nodes: one per subnet mapping (or per subnet)."""
        return len(self.subnet_mappings) or len(self.subnets)

    @property
    def capacity_per_zone(self) -> float | None:
        """Each zone's share: a reservation is "evenly distributed across all active Availability
        Zones" (aws-cdk-lib 2.275 elbv2 README); None without a reservation or zones."""
        if self.capacity_units is None or not self.zone_count:
            return None
        return self.capacity_units / self.zone_count

    @property
    def is_network(self) -> bool:
        return self.type == "network"

    @property
    def may_be_network(self) -> bool:
        """A network load balancer, or one whose ``Type`` is decided at deploy time."""
        return self.type == "network" or self.type_undecided

    @property
    def cross_zone(self) -> bool:
        """``load_balancing.cross_zone.enabled`` (NLB default: off)."""
        return as_bool(self.attributes.get("load_balancing.cross_zone.enabled")) is True

    @property
    def zones(self) -> list[str]:
        return sorted({m.zone for m in self.subnet_mappings if m.zone})


@dataclass(eq=False)
class OriginView:
    """A CloudFront origin; ``domain_name`` normalized when it is a literal string."""

    id: str
    domain_name: Any
    custom: bool
    protocol_policy: str | None
    keepalive_timeout: int | None
    read_timeout: int | None
    https_port: int | None
    http_port: int | None
    raw: dict[str, Any] = field(repr=False, default_factory=dict)
    #: ``OriginProtocolPolicy`` is not decidable from the templates.
    protocol_policy_unknown: bool = False
    #: ``VpcOriginConfig.VpcOriginId`` (a CloudFront VPC origin: ``keepalive_timeout`` and
    #: ``read_timeout`` then come from ``VpcOriginConfig``; ``protocol_policy`` and ``https_port``
    #: from the VPC origin's endpoint config when it is in the templates). None: not a VPC origin.
    vpc_origin_id: Any = None
    #: The ``AWS::CloudFront::VpcOrigin`` it names, when that is in the templates.
    vpc_origin: VpcOriginView | None = None
    #: ``Origin.ResponseCompletionTimeout`` (botocore 1.44.8 cloudfront ``Origin``: "If the complete
    #: response isn't received from the origin by this time, CloudFront ends the connection. [...] If
    #: you don't set a value for ResponseCompletionTimeout, CloudFront doesn't enforce a maximum
    #: value."). None: unset (no maximum) or, with ``response_completion_timeout_unknown``, deploy-time.
    response_completion_timeout: int | None = None
    response_completion_timeout_unknown: bool = False
    #: ``CustomOriginConfig.IpAddressType`` (botocore 1.44.8: ``ipv4`` | ``ipv6`` | ``dualstack``,
    #: "Specifies which IP protocol CloudFront uses when connecting to your origin"), lower-cased.
    #: None: unset (IPv4, see :meth:`dns_types`) or, with ``ip_address_type_unknown``, deploy-time.
    ip_address_type: str | None = None
    ip_address_type_unknown: bool = False
    #: ``CustomOriginConfig``/``VpcOriginConfig.OriginHttpVersion`` (botocore 1.44.8: ``http1.1`` |
    #: ``http2``; "If you don't specify a value, CloudFront uses HTTP/1.1"), lower-cased; None: unset
    #: or, with ``http_version_unknown``, deploy-time. Read by ``verify``; no rule judges it.
    http_version: str | None = None
    http_version_unknown: bool = False
    #: ``Id`` is decided at deploy time (``id`` then shows the expression).
    id_undecided: bool = False

    def dns_types(self) -> tuple[str, ...]:
        """The record types CloudFront's resolver asks for this origin's name, as the DNS rules judge
        them: ``("A",)`` for ``ipv4`` or unset (CloudFront connects over IPv4 only, so an AAAA set of
        the name never reaches it); ``("A", "AAAA")`` for ``dualstack`` and ``ipv6`` (CloudFront
        connects over IPv6 too and asks AAAA; ``ipv6`` also keeps A, fail closed: whether an IPv6-only
        origin's A set is ever asked is not documented), and for a deploy-time or unknown value."""
        if self.ip_address_type_unknown or self.ip_address_type not in (None, "ipv4"):
            return ("A", "AAAA")
        return ("A",)

    @property
    def custom_headers(self) -> dict[str, Any]:
        """``OriginCustomHeaders`` as ``{lowercase name: resolved value}`` (values may be secrets:
        show names only)."""
        out: dict[str, Any] = {}
        items = self.raw.get("OriginCustomHeaders")
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and isinstance(item.get("HeaderName"), str):
                out[item["HeaderName"].strip().lower()] = item.get("HeaderValue")
        return out


@dataclass(eq=False)
class VpcOriginView:
    """An ``AWS::CloudFront::VpcOrigin``: CloudFront's way into a private ALB, NLB or EC2 instance.

    ``endpoint`` is ``VpcOriginEndpointConfig.Arn`` (a load balancer ``Ref`` or an ARN);
    ``ip_address_type`` ``ipv4`` (the API's default) or ``dualstack`` (botocore 1.44.8
    ``VpcIpAddressType``: "IPv6-only is not supported for VPC origins")."""

    resource: Resource
    endpoint: Any
    name: Any
    protocol_policy: str | None
    https_port: int | None
    http_port: int | None
    ip_address_type: str | None
    #: ``OriginProtocolPolicy`` is decided at deploy time.
    protocol_policy_unknown: bool = False


@dataclass(eq=False)
class BehaviorView:
    """A cache behavior; ``path_pattern`` is None for the default behavior."""

    path_pattern: str | None
    target_origin_id: Any
    origins: list[OriginView]
    grpc_enabled: bool
    allowed_methods: list[str] | None
    cache_policy_id: Any
    forwarded_values: Any
    raw: dict[str, Any] = field(repr=False, default_factory=dict)
    #: ``GrpcConfig`` (or its ``Enabled``) is not decidable from the templates.
    grpc_unknown: bool = False
    #: ``AllowedMethods`` is not decidable from the templates.
    methods_unknown: bool = False
    #: When the origin this behavior targets is decided at deploy time (its ``TargetOriginId``, or the ``Id``
    #: of the origins it may name): every origin it may target (``origins`` is then empty); else empty.
    target_candidates: list[OriginView] = field(default_factory=list)

    @property
    def label(self) -> str:
        return "default behavior" if self.path_pattern is None else f"behavior {self.path_pattern}"


@dataclass(eq=False)
class DistributionView:
    resource: Resource
    origins: list[OriginView]
    behaviors: list[BehaviorView]
    http_version: str | None
    enabled: bool | None
    #: ``HttpVersion`` is not decidable from the templates.
    http_version_unknown: bool = False
    #: What of the distribution's origins the templates do not decide (``Properties``,
    #: ``DistributionConfig``, ``Origins``, ``Origins[1]``: a deploy-time value there, e.g. an
    #: ``AWS::Include`` or an ``Fn::ImportValue``), with its value; "" when every origin is read.
    origins_undecided: str = ""


# CloudFront managed cache policy ids that do not cache.
CACHING_DISABLED_POLICY_ID = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
