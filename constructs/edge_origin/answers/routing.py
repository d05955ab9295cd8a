"""THE one reader of a record set's routing elements: one table of every element Route 53 documents.

Every reader that needs a record set's routing policy asks :func:`read_routing` (templates:
``model.template_model``, ``model.zones``; accounts: ``live.name_state``; the strict double:
``testing.route53``, ``testing.route53_answer``). Fail closed: a member the table does not know,
a ``SetIdentifier`` with no routing element, or a traffic-policy record is **not judged**
(``Routing.policy == "unknown"`` with ``Routing.reason``), never read as simple.

Source: botocore's Route 53 service model (``botocore/data/route53/2013-04-01/service-2.json``,
``ResourceRecordSet`` members), 1.44.8. ``python benchmarks/aws_drift.py`` lists members a newer
botocore knows and this table does not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from edge_origin.answers.types import AZ_LOCATION_TYPES, AzLocation
from edge_origin.core.fast_dataclass import dataclass

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class RoutingElement:
    """One routing element of ``ResourceRecordSet``: its member name, the policy it declares, the
    botocore version that first reads it and the API reference sentence that defines it."""

    member: str
    policy: str
    #: The botocore release that first reads it ("": before 1.44, not recorded which).
    botocore: str
    source: str


#: Every routing element ``ResourceRecordSet`` documents, in the order a set with several is read
#: (Route 53 refuses such a set: "Expected exactly one of [Weight, Region, Failover, GeoLocation,
#: MultiValueAnswer, GeoProximityLocation, or CidrRoutingConfig]"; AZAffinity: "you can't specify
#: another routing policy element, such as Weight, in the same resource record set").
ROUTING_ELEMENTS: tuple[RoutingElement, ...] = (
    RoutingElement("Weight", "weighted", "", "Weighted resource record sets only: Among resource record sets that have the same combination of DNS name and type, a value that determines the proportion of DNS queries that Amazon Route 53 responds to using the current resource record set."),
    RoutingElement("MultiValueAnswer", "multivalue", "", "Multivalue answer resource record sets only: To route traffic approximately randomly to multiple resources, such as web servers, create one multivalue answer record for each resource and specify true for MultiValueAnswer."),
    RoutingElement("Failover", "failover", "", "Failover resource record sets only: To configure failover, you add the Failover element to two resource record sets."),
    RoutingElement("Region", "latency", "", "Latency-based resource record sets only: The Amazon EC2 Region where you created the resource that this resource record set refers to."),
    RoutingElement("GeoLocation", "geolocation", "", "Geolocation resource record sets only: A complex type that lets you control how Amazon Route 53 responds to DNS queries based on the geographic origin of the query."),
    RoutingElement("GeoProximityLocation", "geoproximity", "", "GeoproximityLocation resource record sets only: A complex type that lets you control how Route 53 responds to DNS queries based on the geographic origin of the query and your resources."),
    RoutingElement("CidrRoutingConfig", "cidr", "", "The object that is specified in resource record set object when you are linking a resource record set to a CIDR location."),
    RoutingElement("AZAffinity", "azaffinity", "1.44", "AZ-affinity resource record sets only: The location that this resource record set answers DNS queries from, such as an Availability Zone (AZ) or an Amazon Web Services Region."),
)
ROUTING_ELEMENTS_BY_MEMBER: dict[str, RoutingElement] = {e.member: e for e in ROUTING_ELEMENTS}
#: The other ``ResourceRecordSet`` members (none of them chooses among sets).
RECORD_MEMBERS = ("Name", "Type", "SetIdentifier", "TTL", "ResourceRecords", "AliasTarget", "HealthCheckId", "TrafficPolicyInstanceId")
#: CloudFormation-only properties (``AWS::Route53::RecordSet``; ``RecordSetGroup`` members take none).
TEMPLATE_MEMBERS = ("HostedZoneId", "HostedZoneName", "Comment")
#: Every member the table knows.
KNOWN_MEMBERS = frozenset((*RECORD_MEMBERS, *TEMPLATE_MEMBERS, *ROUTING_ELEMENTS_BY_MEMBER))
#: The botocore release that first reads AZAffinity (older ones drop it from a listed record).
AZ_AFFINITY_BOTOCORE = "1.44"


@dataclass(frozen=True)
class Routing:
    """How a record set routes: ``policy`` (one of ``answers.POLICIES``, or ``"unknown"``),
    ``element`` (the member that declares it, or the one that stops judging), ``reason`` (why it is
    not judged; None for a judged set, or for a value decided at deploy time, which other rules
    name), ``az`` (the AZ-affinity location), ``extra`` (further routing elements: Route 53 refuses
    such a set)."""

    policy: str
    element: str | None = None
    reason: str | None = None
    az: AzLocation | None = None
    extra: tuple[str, ...] = ()

    @property
    def judged(self) -> bool:
        return self.policy != "unknown"


def _default_truth(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


def _az_location(value: Any, literal: Callable[[Any], str | None]) -> AzLocation | str:
    """The AZ-affinity location, or why it cannot be read."""
    if not isinstance(value, Mapping):
        return "AZAffinity is not a mapping of LocationType and LocationId"
    kind, ident = literal(value.get("LocationType")), literal(value.get("LocationId"))
    extra = sorted(k for k in value if k not in ("LocationType", "LocationId"))
    if extra:
        return f"AZAffinity member(s) {', '.join(extra)} unknown to edge-origin"
    if kind is None or ident is None:
        return "AZAffinity LocationType and LocationId must both be literal ('You must specify both LocationType and LocationId')"
    if kind not in AZ_LOCATION_TYPES:
        return f"AZAffinity LocationType {kind!r} is not one of {', '.join(AZ_LOCATION_TYPES)}"
    return AzLocation(kind, ident)


def _literal(value: Any) -> str | None:
    return value if isinstance(value, str) else None


#: The members of ``ROUTING_ELEMENTS``, in its order.
_ELEMENT_MEMBERS = tuple(e.member for e in ROUTING_ELEMENTS)
#: ``read_routing``'s answer for a set whose first carried element is neither AZAffinity nor a
#: deploy-time MultiValueAnswer, by the carried elements (a tuple in the table's order: at most
#: 2**8 keys): it depends on nothing else, and a frozen Routing can be shared.
_BY_ELEMENTS: dict[tuple[str, ...], Routing] = {}
_SIMPLE = Routing("simple")


def routing_elements(members: Mapping[str, Any], truth: Callable[[Any], bool | None] = _default_truth) -> tuple[str, ...]:
    """The routing elements a record set carries, in the table's order (``MultiValueAnswer`` only
    when true; one decided at deploy time counts as carried)."""
    get = members.get
    out = [m for m in _ELEMENT_MEMBERS if get(m) is not None]
    if "MultiValueAnswer" in out and truth(members["MultiValueAnswer"]) is False:
        out.remove("MultiValueAnswer")
    return tuple(out)


def read_routing(
    members: Mapping[str, Any],
    *,
    truth: Callable[[Any], bool | None] = _default_truth,
    literal: Callable[[Any], str | None] = _literal,
    sdk_reads_az_affinity: bool = True,
) -> Routing:
    """The routing of one record set, from its members (API response, change request or the
    properties of a CloudFormation record set; ``truth`` reads a boolean, None when it is decided
    at deploy time; ``literal`` a string). ``sdk_reads_az_affinity`` False: the record was listed
    by a botocore that drops AZAffinity, so a set id without an element says so."""
    if not KNOWN_MEMBERS.issuperset(members):
        unknown = sorted(k for k in members if k not in KNOWN_MEMBERS)
        return Routing(
            "unknown", unknown[0],
            f"ResourceRecordSet member(s) {', '.join(unknown)} not in edge-origin's table of Route 53 routing elements: "
            "what Route 53 answers for this set is not known",
        )
    if members.get("TrafficPolicyInstanceId") is not None:
        return Routing("unknown", "TrafficPolicyInstanceId", "a traffic policy instance decides this record's answers; edge-origin does not read traffic policies")
    carried = routing_elements(members, truth)
    if carried and carried[0] != "AZAffinity":
        if carried[0] == "MultiValueAnswer" and truth(members["MultiValueAnswer"]) is None:
            return Routing("unknown", "MultiValueAnswer")  # multivalue or simple: decided at deploy time
        routing = _BY_ELEMENTS.get(carried)
        if routing is None:  # the first carried element's policy, as below
            first = ROUTING_ELEMENTS_BY_MEMBER[carried[0]]
            routing = _BY_ELEMENTS[carried] = Routing(first.policy, first.member, extra=carried[1:])
        return routing
    present = [ROUTING_ELEMENTS_BY_MEMBER[m] for m in carried]
    if not present:
        if members.get("SetIdentifier") is not None:
            if not sdk_reads_az_affinity:
                return Routing(
                    "unknown", "SetIdentifier",
                    f"a SetIdentifier with no routing element, read with a botocore older than {AZ_AFFINITY_BOTOCORE} "
                    "that drops AZAffinity: the routing element was not read",
                )
            names = ", ".join(e.member for e in ROUTING_ELEMENTS)
            return Routing(
                "unknown", "SetIdentifier",
                f"a SetIdentifier with no routing element edge-origin knows ({names}): Route 53 refuses a set id "
                "without one, so an element edge-origin does not read may be missing here",
            )
        return _SIMPLE
    first = present[0]
    extra = tuple(e.member for e in present[1:])
    if first.member == "AZAffinity":
        az = _az_location(members["AZAffinity"], literal)
        if isinstance(az, str):
            return Routing("unknown", "AZAffinity", az)
        return Routing("azaffinity", "AZAffinity", az=az, extra=extra)
    return Routing(first.policy, first.member, extra=extra)


def routing_policy(members: Mapping[str, Any], **kwargs: Any) -> str:
    """``read_routing(members).policy``."""
    return read_routing(members, **kwargs).policy


__all__ = [
    "AZ_AFFINITY_BOTOCORE",
    "KNOWN_MEMBERS",
    "RECORD_MEMBERS",
    "ROUTING_ELEMENTS",
    "ROUTING_ELEMENTS_BY_MEMBER",
    "TEMPLATE_MEMBERS",
    "Routing",
    "RoutingElement",
    "read_routing",
    "routing_elements",
    "routing_policy",
]
