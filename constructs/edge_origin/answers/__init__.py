"""The answer model: what a resolver receives for a name, from where. Pure, no I/O.

Input: a :class:`ZoneSet` (hosted zones, record sets keyed by zone + name + type + set id,
health checks, known alias targets such as load balancers), built from a template model
(``edge_origin.model.zones.zone_set``) or from an account. Question: :func:`resolve` (or
``ZoneSet.resolve``) for a name, a type and a :class:`Vantage` (``PUBLIC``: a public internet
resolver, which is what CloudFront uses; ``Vantage("vpc", vpc_id=...)``: a resolver in a VPC,
which sees the private zones associated with it). Answer: a :class:`Resolution` listing every
:class:`Answer` a resolver can receive, each with its probability (within its condition: e.g.
"resolver nearest eu-west-1"), its addresses or load balancers (with their zonal addresses), its
TTL and the chain of :class:`Hop` that led there.

Every routing policy (``select``: simple, weighted, multivalue, failover, latency, geolocation,
geoproximity, CIDR, AZ-affinity), read from a record set by the one table of routing elements
(``routing.read_routing``: unknown elements are not judged), aliases to load balancers, CloudFront and other records, CNAME chains
(bounded by ``MAX_CHAIN``), A and AAAA; health as Route 53 decides it (``health``). The
loopback DNS server and the rehearsal model draw answers with :func:`draw` from the same
outcomes (:func:`choices`) that :func:`resolve` lists.

Layer 1. May import: core, data, answers, profile.
"""

from edge_origin.answers.health import (
    ALL_HEALTHY,
    CHECKER_REGIONS,
    HEALTHY_CHECKER_SHARE,
    HealthCheck,
    HealthState,
    can_fail,
    can_succeed,
    check_healthy,
    probed_elsewhere,
    public_check_of_private_address,
    reachable_share,
    share_is_healthy,
    why_never_fails,
)
from edge_origin.answers.resolve import ZoneSet, resolve
from edge_origin.answers.routing import ROUTING_ELEMENTS, Routing, RoutingElement, read_routing
from edge_origin.answers.select import Choice, choices, draw, pick_choice, policy_of, values_of
from edge_origin.answers.types import (
    AZ_LOCATION_TYPES,
    GLOBAL,
    LOCATION_POLICIES,
    MAX_CHAIN,
    MULTIVALUE_MAX,
    POLICIES,
    PUBLIC,
    AliasTarget,
    Answer,
    AzLocation,
    CidrRouting,
    Geo,
    GeoProximity,
    Hop,
    HostedZone,
    LoadBalancer,
    Record,
    RecordKey,
    Resolution,
    Vantage,
    normalize,
)

__all__ = [
    "ALL_HEALTHY",
    "AZ_LOCATION_TYPES",
    "GLOBAL",
    "ROUTING_ELEMENTS",
    "AzLocation",
    "Routing",
    "RoutingElement",
    "read_routing",
    "CHECKER_REGIONS",
    "HEALTHY_CHECKER_SHARE",
    "LOCATION_POLICIES",
    "MAX_CHAIN",
    "MULTIVALUE_MAX",
    "POLICIES",
    "PUBLIC",
    "AliasTarget",
    "Answer",
    "Choice",
    "CidrRouting",
    "Geo",
    "GeoProximity",
    "HealthCheck",
    "HealthState",
    "Hop",
    "HostedZone",
    "LoadBalancer",
    "Record",
    "RecordKey",
    "Resolution",
    "Vantage",
    "ZoneSet",
    "can_fail",
    "can_succeed",
    "check_healthy",
    "choices",
    "draw",
    "normalize",
    "pick_choice",
    "policy_of",
    "probed_elsewhere",
    "public_check_of_private_address",
    "reachable_share",
    "resolve",
    "share_is_healthy",
    "values_of",
    "why_never_fails",
]
