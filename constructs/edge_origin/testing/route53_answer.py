"""``StrictRoute53.test_dns_answer``: Route 53's TestDNSAnswer answered from the answer model.

TestDNSAnswer (Route 53 API reference, ``GET /2013-04-01/testdnsanswer``): "Gets the value that
Amazon Route 53 returns in response to a DNS request for a specified record name and type";
"This call only supports querying public hosted zones"; without ``ResolverIP`` it simulates "a DNS
resolver in the Amazon Web Services US East (N. Virginia) Region". One call is one draw of the
routing policy, so the double draws one of the answers :func:`edge_origin.answers.resolve`
lists, with the health each check has in the double (one health computation: the double's
``is_healthy``, which applies Disabled, Inverted, HealthThreshold and the checkers' share).
A CNAME is returned as the CNAME (the resolver follows it, not Route 53); an alias is resolved.
AZ-affinity: TestDNSAnswer names a resolver by IP, never an AZ, so the query matches "only the
record for the Global location type" (no Global record: NOERROR with no data). What a resolver in
a VPC receives (the AZ Route 53 VPC Resolver reports) cannot be asked of Route 53's API;
:func:`resolver_answer` (``StrictRoute53.answer_from``) answers it from the same model.
"""

from __future__ import annotations

import random
from typing import Any

from edge_origin.answers import HealthCheck, HealthState, ZoneSet
from edge_origin.answers.routing import read_routing
from edge_origin.answers.types import (
    AliasTarget,
    CidrRouting,
    Geo,
    GeoProximity,
    HostedZone,
    Record,
    RecordKey,
    Vantage,
    normalize,
)

DEFAULT_RESOLVER_REGION = "us-east-1"  # "a DNS resolver in ... US East (N. Virginia)"


class UnreadRouting(ValueError):
    """A stored record set whose routing the answer model's table does not read (not answered)."""


def answer_record(zone_id: str, rrset: dict[str, Any]) -> Record:
    """One API-shaped record set as the answer model's :class:`Record` (its routing read by the
    one table, ``answers.routing``; :class:`UnreadRouting` when the table does not judge it)."""
    routing = read_routing(rrset)
    if not routing.judged:
        raise UnreadRouting(f"{rrset.get('Name')} {rrset.get('Type')}: not judged: {routing.element} ({routing.reason})")
    geo = rrset.get("GeoLocation")
    prox = rrset.get("GeoProximityLocation")
    cidr = rrset.get("CidrRoutingConfig")
    alias = rrset.get("AliasTarget")
    coordinates = (prox or {}).get("Coordinates")
    return Record(
        key=RecordKey(zone=zone_id, name=normalize(rrset["Name"]), type=rrset["Type"], set_id=rrset.get("SetIdentifier")),
        policy=routing.policy,
        values=tuple(rr["Value"] for rr in rrset.get("ResourceRecords", ())),
        ttl=rrset.get("TTL"),
        alias=None if alias is None else AliasTarget(
            dns_name=normalize(alias["DNSName"]),
            evaluate_target_health=bool(alias.get("EvaluateTargetHealth")),
            hosted_zone_id=alias.get("HostedZoneId"),
        ),
        health_check_id=rrset.get("HealthCheckId"),
        weight=rrset.get("Weight"),
        failover=rrset.get("Failover"),
        region=rrset.get("Region"),
        geo=None if geo is None else Geo(
            continent=geo.get("ContinentCode"), country=geo.get("CountryCode"), subdivision=geo.get("SubdivisionCode")
        ),
        geoproximity=None if prox is None else GeoProximity(
            region=prox.get("AWSRegion"),
            local_zone_group=prox.get("LocalZoneGroup"),
            coordinates=None if not coordinates else (coordinates["Latitude"], coordinates["Longitude"]),
            bias=int(prox.get("Bias", 0)),
        ),
        cidr=None if cidr is None else CidrRouting(collection_id=cidr["CollectionId"], location_name=cidr["LocationName"]),
        az=routing.az,
    )


def test_dns_answer(double: Any, params: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The TestDNSAnswer response for ``params`` (already validated against the service model)."""
    zone = double._zone(params["HostedZoneId"], "TestDNSAnswer")
    if zone.private:
        raise double._error("InvalidInput", "TestDNSAnswer only supports public hosted zones", "TestDNSAnswer")
    return _answer(double, zone, params, Vantage(region=DEFAULT_RESOLVER_REGION), rng)


def resolver_answer(double: Any, params: dict[str, Any], vantage: Vantage, rng: random.Random) -> dict[str, Any]:
    """What a resolver at ``vantage`` receives, in TestDNSAnswer's shape (``StrictRoute53.
    answer_from``: a test helper, not an API operation). A public vantage is TestDNSAnswer's own
    answer; a VPC vantage may ask a private zone (the double does not record zone-VPC
    associations: the caller names the zone its VPC sees)."""
    zone = double._zone(params["HostedZoneId"], "TestDNSAnswer")
    if zone.private and vantage.kind != "vpc":
        raise double._error("InvalidInput", "a public resolver does not see a private hosted zone", "TestDNSAnswer")
    if vantage.kind != "vpc":
        vantage = Vantage(region=vantage.region or DEFAULT_RESOLVER_REGION)
    return _answer(double, zone, params, vantage, rng)


def _answer(double: Any, zone: Any, params: dict[str, Any], vantage: Vantage, rng: random.Random) -> dict[str, Any]:
    name, rtype = normalize(params["RecordName"]), params["RecordType"]
    rrsets = list(double.records(zone.id))
    try:
        records = [answer_record(zone.id, r) for r in rrsets]
    except UnreadRouting as exc:  # fail closed: never answer as if the element were absent
        raise double._error("InvalidInput", f"StrictRoute53 cannot answer: {exc}", "TestDNSAnswer") from None
    check_ids = {r.health_check_id for r in records if r.health_check_id}
    zones = ZoneSet(
        [HostedZone(id=zone.id, name=normalize(zone.name))],
        records,
        health_checks=[HealthCheck(id=c) for c in sorted(check_ids)],  # their status comes from the double
    )
    state = HealthState(checker_shares={c: 1.0 if double.is_healthy(c) else 0.0 for c in check_ids})
    base = {"Nameserver": f"ns-1.{zone.name.rstrip('.')}", "RecordName": params["RecordName"], "RecordType": rtype, "Protocol": "UDP"}
    own = [r for r in records if r.key.name == name]
    cname = [r for r in own if r.key.type == "CNAME"]
    if cname and rtype != "CNAME":  # the authoritative answer is the CNAME itself
        return {**base, "RecordType": "CNAME", "RecordData": list(cname[0].values), "ResponseCode": "NOERROR"}
    if not own and not any(r.key.name.endswith("." + name) for r in records):
        return {**base, "RecordData": [], "ResponseCode": "NXDOMAIN"}
    resolution = zones.resolve(name, rtype, vantage, state, zone_id=zone.id)
    answers = [a for a in resolution.answers if a.probability > 0]
    if not answers:
        return {**base, "RecordData": [], "ResponseCode": "NOERROR"}
    chosen = rng.choices(answers, weights=[a.probability for a in answers], k=1)[0]
    values = list(chosen.addresses) or [addr for lb in chosen.load_balancers for _zone, addr in lb.zonal_addresses]
    rng.shuffle(values)
    if chosen.pick is not None:
        values = values[: chosen.pick]
    return {**base, "RecordData": values, "ResponseCode": "NOERROR"}
