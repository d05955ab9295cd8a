"""The answer model's data: zones, record sets, load balancers, vantages, answers.

Every record set is identified by :class:`RecordKey` (zone id + name + type + set id): a public
and a private zone of the same name that reuse set identifiers hold different records.
"""

from __future__ import annotations

from edge_origin.core.dns_names import canonical_name
from edge_origin.core.facts import value
from edge_origin.core.fast_dataclass import SPEC, dataclass, field
from edge_origin.core.lazy_re import lazy

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

#: Every Route 53 routing policy (ChangeResourceRecordSets: ResourceRecordSet members).
POLICIES = ("simple", "weighted", "multivalue", "failover", "latency", "geolocation", "geoproximity", "cidr", "azaffinity")
#: Policies whose answer depends on where the query comes from.
LOCATION_POLICIES = ("latency", "geolocation", "geoproximity", "cidr", "azaffinity")
#: AZAffinity.LocationType values, "from most to least specific" (AZAffinityLocationType).
AZ_LOCATION_TYPES = ("AvailabilityZone", "AvailabilityZoneGroup", "Region", "Partition", "Global")
#: The one location a query whose AZ Route 53 does not know matches: "If Route 53 doesn't know
#: which AZ a query came from, the query matches only the record for the Global location type".
GLOBAL_LOCATION_ID = "global"
#: "Route 53 responds to DNS queries with up to eight healthy records" (MultiValueAnswer; the facts table).
MULTIVALUE_MAX: int = value("route53.multivalue.max_answers")
#: How many CNAME/alias hops a resolution follows before it stops (a loop, or a chain too long).
MAX_CHAIN = 8


def fills_dict(cls: type) -> type:
    """A frozen dataclass given an ``__init__`` that stores each field straight into the instance's
    ``__dict__`` (the generated one calls ``object.__setattr__`` per field, about 3x slower: the answer
    model makes thousands of records, checks, hops and answers per template). Same parameters, defaults
    and ``__post_init__``; the instance stays frozen (assignment still raises). A frozen class made by
    ``edge_origin.core.fast_dataclass`` has that ``__init__`` already: it is returned as it is."""
    spec = cls.__dict__.get(SPEC)
    if spec is not None and spec.frozen:
        return cls
    from dataclasses import MISSING, fields

    params: list[str] = []
    defaults: dict[str, Any] = {}
    for f in fields(cls):
        if not f.init or f.kw_only or f.default_factory is not MISSING:
            raise TypeError(f"{cls.__name__}.{f.name}: fills_dict takes positional fields with plain defaults only")
        if f.default is MISSING:
            params.append(f.name)
        else:
            defaults[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
    body = "".join(f"    d[{f.name!r}] = {f.name}\n" for f in fields(cls))
    post = "    self.__post_init__()\n" if hasattr(cls, "__post_init__") else ""
    source = f"def __init__(self, {', '.join(params)}):\n    d = self.__dict__\n{body}{post}"
    namespace: dict[str, Any] = {}
    exec(source, defaults, namespace)  # what dataclasses itself does to make __init__
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[misc]
    return cls


def normalize(name: str) -> str:
    """A DNS name in Route 53's one spelling (:func:`edge_origin.core.dns_names.canonical_name`), each
    spelling worked out once (every resolution, zone and alias target asks)."""
    found = _NORMALIZED.get(name)
    if found is None:
        if len(_NORMALIZED) >= 65536:
            _NORMALIZED.clear()  # a long-lived process (the synth plugin, a rehearsal) meets name after name
        found = _NORMALIZED[name] = canonical_name(name)
    return found


_NORMALIZED: dict[str, str] = {}


@fills_dict
@dataclass(frozen=True, order=True)
class RecordKey:
    """Which record set: the hosted zone id, the name, the type and the set identifier."""

    zone: str
    name: str
    type: str
    set_id: str | None = None

    def __hash__(self) -> int:  # dataclasses' own (a check hashes RecordKeys ~50k times): compiled, not a closure
        return hash((self.zone, self.name, self.type, self.set_id))

    def __str__(self) -> str:
        ident = f" [{self.set_id}]" if self.set_id is not None else ""
        return f"{self.name} {self.type}{ident} in zone {self.zone}"


@fills_dict
@dataclass(frozen=True)
class HostedZone:
    """A hosted zone: public (``private`` False) or private, associated with ``vpcs``."""

    id: str
    name: str
    private: bool = False
    vpcs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", normalize(self.name))

    @property
    def label(self) -> str:
        if self.id == f"name:{self.name}":
            return f"zone {self.name}"  # known by name only (HostedZoneName): read as public
        return f"{'private' if self.private else 'public'} zone {self.name} ({self.id})"


@dataclass(frozen=True)
class Geo:
    """A geolocation: continent code, country code (``*`` = default), subdivision code."""

    continent: str | None = None
    country: str | None = None
    subdivision: str | None = None

    @property
    def is_default(self) -> bool:
        return self.country == "*"

    @property
    def specificity(self) -> int:
        """3 subdivision, 2 country, 1 continent, 0 the ``*`` default."""
        if self.subdivision:
            return 3
        if self.country and self.country != "*":
            return 2
        if self.continent:
            return 1
        return 0

    def covers(self, where: Geo) -> bool:
        """Whether a query from ``where`` falls inside this record's location."""
        if self.is_default:
            return True
        if self.subdivision:
            return where.country == self.country and where.subdivision == self.subdivision
        if self.country:
            return where.country == self.country
        if self.continent:
            return where.continent == self.continent
        return False

    def __str__(self) -> str:
        if self.is_default:
            return "* (default)"
        return "/".join(p for p in (self.continent, self.country, self.subdivision) if p)


@dataclass(frozen=True)
class GeoProximity:
    """Where a geoproximity record's resource is (AWS region, local zone group or coordinates)."""

    region: str | None = None
    local_zone_group: str | None = None
    coordinates: tuple[str, str] | None = None
    bias: int = 0

    def __str__(self) -> str:
        where = self.region or self.local_zone_group or (",".join(self.coordinates) if self.coordinates else "?")
        return f"{where} (bias {self.bias})" if self.bias else where


@dataclass(frozen=True)
class CidrRouting:
    """A CIDR record's collection and location (``*``: the default for unmatched clients)."""

    collection_id: str
    location_name: str


@dataclass(frozen=True)
class AzLocation:
    """An AZ-affinity record's location: ``type`` (``AZ_LOCATION_TYPES``) and ``id`` (lower case:
    "Specify the ID in lowercase": ``use1-az1``, ``us-east-1-zg-1``, ``us-east-1``, ``aws``,
    ``global``)."""

    type: str
    id: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", self.id.strip().lower())

    @property
    def is_global(self) -> bool:
        return self.type == "Global"

    def __str__(self) -> str:
        return "Global" if self.is_global else f"{self.type} {self.id}"


#: The Global location (what a query Route 53 cannot place in an AZ matches).
GLOBAL = AzLocation("Global", GLOBAL_LOCATION_ID)


@fills_dict
@dataclass(frozen=True)
class AliasTarget:
    """Where an alias points: ``dns_name`` (a load balancer, a distribution or another record)."""

    dns_name: str
    evaluate_target_health: bool = False
    hosted_zone_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "dns_name", normalize(self.dns_name))


@fills_dict
@dataclass(frozen=True)
class Record:
    """One record set, with exactly the routing fields its policy uses.

    ``values`` are the ResourceRecords (addresses for A/AAAA, a name for CNAME); ``source`` is
    the caller's own object (a template view, an account record) for findings; it is opaque here.
    """

    key: RecordKey
    policy: str = "simple"
    values: tuple[str, ...] = ()
    ttl: int | None = None
    alias: AliasTarget | None = None
    health_check_id: str | None = None
    weight: int | None = None
    failover: str | None = None
    region: str | None = None
    geo: Geo | None = None
    geoproximity: GeoProximity | None = None
    cidr: CidrRouting | None = None
    az: AzLocation | None = None
    source: Any = field(default=None, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"{self.key}: routing policy {self.policy!r} is not one of {', '.join(POLICIES)}")

    @property
    def routing_detail(self) -> str:
        """The routing field that distinguishes this set (for messages)."""
        if self.policy == "weighted":
            return f"weight {self.weight}"
        if self.policy == "failover":
            return f"{self.failover}"
        if self.policy == "latency":
            return f"region {self.region}"
        if self.policy == "geolocation":
            return f"location {self.geo}"
        if self.policy == "geoproximity":
            return f"geoproximity {self.geoproximity}"
        if self.policy == "cidr" and self.cidr is not None:
            return f"CIDR location {self.cidr.location_name}"
        if self.policy == "azaffinity" and self.az is not None:
            return f"AZ-affinity {self.az}"
        return ""


#: Elastic Load Balancing's public DNS names (ELB guide, "DNS name"): an NLB's is
#: ``<name>-<id>.elb.<region>.amazonaws.com``; an ALB's or Classic Load Balancer's
#: ``<name>-<id>.<region>.elb.amazonaws.com``. A name of that form is a load balancer even when no
#: template declares it (its addresses are then unknown).
NLB_DNS_NAME = lazy(r"(^|\.)elb\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$")
ALB_DNS_NAME = lazy(r"\.[a-z0-9-]+\.elb\.amazonaws\.com(\.cn)?$")


def undeclared_load_balancer(dns_name: str) -> LoadBalancer | None:
    """A load balancer known only by its ELB DNS name (``dualstack.``/``ipv6.`` prefix ignored)."""
    name = normalize(dns_name)
    for prefix in ("dualstack.", "ipv6."):
        name = name.removeprefix(prefix)
    if NLB_DNS_NAME.search(name):
        return LoadBalancer(name, "network", label=f"{name} (not in these templates)")
    if ALB_DNS_NAME.search(name):
        return LoadBalancer(name, "application", label=f"{name} (not in these templates)")
    return None


@fills_dict
@dataclass(frozen=True)
class LoadBalancer:
    """An alias target that answers with addresses of its own: ``kind`` network | application |
    cloudfront | other; ``zonal_addresses`` ``((zone, address), ...)`` (may be empty: unknown)."""

    dns_name: str
    kind: str = "network"
    zonal_addresses: tuple[tuple[str, str], ...] = ()
    label: str = ""
    source: Any = field(default=None, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "dns_name", normalize(self.dns_name))

    @property
    def addresses(self) -> tuple[str, ...]:
        return tuple(a for _, a in self.zonal_addresses)

    @property
    def zones(self) -> tuple[str, ...]:
        return tuple(sorted({z for z, _ in self.zonal_addresses}))

    @property
    def kind_label(self) -> str:
        return {"network": "NLB", "application": "ALB", "cloudfront": "CloudFront distribution"}.get(self.kind, "alias target")

    def __str__(self) -> str:
        return f"{self.kind_label} {self.label or self.dns_name}"


@dataclass(frozen=True)
class Vantage:
    """Where the query comes from. ``internet``: a public resolver (what CloudFront uses), which
    sees public zones only; ``vpc``: a resolver in ``vpc_id``, which sees the private zones
    associated with it first. ``region``/``location``/``client_ip`` pin the location-dependent
    policies; None means any (every location's answer is listed).

    AZ-affinity: "A query matches a location when Route 53 VPC Resolver reports that the query
    came from an Availability Zone (AZ) in that location. If Route 53 doesn't know which AZ a
    query came from, the query matches only the record for the Global location type". A public
    resolver (``internet``, CloudFront's) never carries an AZ; a VPC resolver carries ``az`` (an
    AZ id such as ``use1-az1``) with its ``zone_group`` (default ``<region>-zg-1``, the API
    reference's example), ``region`` and ``partition`` (from the region). A VPC vantage without
    ``az`` lists every location's answer."""

    kind: str = "internet"
    vpc_id: str | None = None
    region: str | None = None
    location: Geo | None = None
    cidr_location: str | None = None
    az: str | None = None
    zone_group: str | None = None
    partition: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("internet", "vpc"):
            raise ValueError(f"vantage kind {self.kind!r} is not one of internet, vpc")
        if self.kind == "vpc" and not self.vpc_id:
            raise ValueError("a vpc vantage needs vpc_id")
        if self.az is not None and self.kind != "vpc":
            raise ValueError("only a VPC resolver reports an AZ (a public resolver's queries match Global only)")
        if self.az is not None and not self.region:
            raise ValueError("a vantage with an AZ needs its region")

    @property
    def az_locations(self) -> tuple[AzLocation, ...] | None:
        """The AZ-affinity locations a query from here matches, most specific first (None: a VPC
        resolver in any AZ, every location listed)."""
        if self.kind != "vpc":
            return (GLOBAL,)
        if self.az is None:
            return None
        region = self.region or ""
        partition = self.partition or ("aws-cn" if region.startswith("cn-") else "aws-us-gov" if region.startswith("us-gov-") else "aws")
        return (
            AzLocation("AvailabilityZone", self.az),
            AzLocation("AvailabilityZoneGroup", self.zone_group or f"{region}-zg-1"),
            AzLocation("Region", region),
            AzLocation("Partition", partition),
            GLOBAL,
        )

    @property
    def label(self) -> str:
        if self.kind == "internet":
            return "public internet resolver"
        return f"resolver in VPC {self.vpc_id}" + (f" ({self.az})" if self.az else "")


#: A public resolver anywhere: what CloudFront uses to resolve an origin.
PUBLIC = Vantage()


@fills_dict
@dataclass(frozen=True)
class Hop:
    """One step of a resolution: the record set answered and how it was reached."""

    key: RecordKey
    policy: str
    via: str = "query"  # query | alias | cname
    detail: str = ""
    #: The record set itself (its ``source`` leads back to the caller's object).
    record: Record | None = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        how = "" if self.via == "query" else f"{self.via} -> "
        detail = f", {self.detail}" if self.detail else ""
        return f"{how}{self.key.name} {self.key.type} ({self.policy}{detail}, zone {self.key.zone})"


@fills_dict
@dataclass(frozen=True)
class Answer:
    """One answer a resolver can receive, with its probability (within ``condition``: "" for any
    resolver, else e.g. "resolver nearest eu-west-1"), what it holds and how it was reached.

    ``pick``: a resolver gets a random ``pick`` of ``addresses`` (multivalue above 8), else all.
    ``end``: the chain left the known zones at this name (a CNAME to an outside name), or None.
    ``empty``: NOERROR without records (e.g. geolocation without a ``*`` default).
    """

    probability: float
    addresses: tuple[str, ...] = ()
    load_balancers: tuple[LoadBalancer, ...] = ()
    pick: int | None = None
    ttl: int | None = None
    chain: tuple[Hop, ...] = ()
    records: tuple[RecordKey, ...] = ()
    condition: str = ""
    end: str | None = None
    empty: bool = False

    @property
    def size(self) -> int:
        """How many addresses one resolver receives (load balancers count their addresses, or 1)."""
        lb_addresses = sum(max(1, len(lb.addresses)) for lb in self.load_balancers)
        total = len(self.addresses) + lb_addresses
        return min(total, self.pick) if self.pick is not None else total

    @property
    def targets(self) -> int:
        """Distinct destinations one resolver receives: addresses plus load balancers (as one each)."""
        count = len(self.addresses) + len(self.load_balancers)
        return min(count, self.pick) if self.pick is not None else count

    @property
    def policy(self) -> str:
        return self.chain[0].policy if self.chain else "none"

    @property
    def chain_text(self) -> str:
        return " -> ".join(str(h) for h in self.chain) + (f" -> {self.end}" if self.end else "")


@fills_dict
@dataclass(frozen=True)
class Resolution:
    """Every answer a resolver at ``vantage`` can receive for ``name``/``type``.

    ``zone`` is the hosted zone that answers (None: no visible zone holds the name);
    ``problems`` lists what stopped the resolution (a chain too long, a loop, mixed policies);
    ``stopped``, the ones where the model gave up (a loop, a chain longer than ``MAX_CHAIN``, health
    checks nested deeper than ``health.MAX_DEPTH``): the answers there are not judged, never "fine".
    """

    name: str
    type: str
    vantage: Vantage
    answers: tuple[Answer, ...] = ()
    zone: HostedZone | None = None
    policy: str | None = None
    problems: tuple[str, ...] = ()
    stopped: tuple[str, ...] = ()

    @property
    def all_addresses(self) -> tuple[str, ...]:
        """Every address (and load balancer, by DNS name) any answer holds, sorted (made on the first read, kept)."""
        found = self.__dict__.get("_all_addresses")
        if found is None:
            out = {a for ans in self.answers for a in ans.addresses}
            out.update(lb.dns_name for ans in self.answers for lb in ans.load_balancers)
            found = self.__dict__["_all_addresses"] = tuple(sorted(out))
        return found

    @property
    def load_balancers(self) -> tuple[LoadBalancer, ...]:
        seen: dict[str, LoadBalancer] = {}
        for ans in self.answers:
            for lb in ans.load_balancers:
                seen.setdefault(lb.dns_name, lb)
        return tuple(seen.values())

    @property
    def record_keys(self) -> tuple[RecordKey, ...]:
        """Every record set an answer holds or passes through, in order (made on the first read, kept:
        several rules ask each resolution)."""
        found = self.__dict__.get("_record_keys")
        if found is None:
            # each key once, the first of equal keys kept: keyed by its fields' tuple (what RecordKey's eq and hash
            # compare), hashed in C where the key's own __hash__ is a Python call
            out: dict[tuple[str, str, str, str | None], RecordKey] = {}
            for ans in self.answers:
                for hop in ans.chain:
                    key = hop.key
                    out.setdefault((key.zone, key.name, key.type, key.set_id), key)
                for key in ans.records:
                    out.setdefault((key.zone, key.name, key.type, key.set_id), key)
            found = self.__dict__["_record_keys"] = tuple(out.values())
        return found

    @property
    def max_size(self) -> int:
        return max((a.size for a in self.answers), default=0)

    @property
    def min_size(self) -> int:
        return min((a.size for a in self.answers), default=0)

    @property
    def found(self) -> bool:
        return self.zone is not None and bool(self.answers)
