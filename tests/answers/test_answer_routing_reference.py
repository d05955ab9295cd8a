"""The one reader of a record set's routing elements (answers/routing.py), as every reader gets it:
templates, an account's listed records and the strict Route 53 double. Each member set is read to the
whole ``Routing`` (policy, element, reason, AZ location, extra elements); a set the table does not judge
says why, in the words EO-NJ2 prints (mutmut, issue 38)."""

from __future__ import annotations

from typing import Any

import pytest

from edge_origin.answers.routing import (
    AZ_AFFINITY_BOTOCORE,
    KNOWN_MEMBERS,
    ROUTING_ELEMENTS,
    Routing,
    read_routing,
    routing_elements,
    routing_policy,
)
from edge_origin.answers.types import AzLocation

BASE = {"Name": "o.example.com", "Type": "A", "TTL": 60, "ResourceRecords": ["192.0.2.1"], "HealthCheckId": "hc-1",
        "HostedZoneId": "Z1", "HostedZoneName": "example.com.", "Comment": "c"}
AZ = {"LocationType": "AvailabilityZone", "LocationId": "use1-az1"}
ELEMENTS = "Weight, MultiValueAnswer, Failover, Region, GeoLocation, GeoProximityLocation, CidrRoutingConfig, AZAffinity"


@pytest.mark.parametrize(("members", "routing"), [
    ({}, Routing("simple")),
    ({"AliasTarget": {"DNSName": "a.example.com"}}, Routing("simple")),
    ({"Weight": 0}, Routing("weighted", "Weight")),
    ({"MultiValueAnswer": True}, Routing("multivalue", "MultiValueAnswer")),
    ({"MultiValueAnswer": "TRUE"}, Routing("multivalue", "MultiValueAnswer")),
    ({"MultiValueAnswer": False}, Routing("simple")),
    ({"MultiValueAnswer": "false", "Weight": 1}, Routing("weighted", "Weight")),
    ({"MultiValueAnswer": {"Ref": "Multi"}}, Routing("unknown", "MultiValueAnswer")),  # decided at deploy: no reason
    ({"MultiValueAnswer": "yes"}, Routing("unknown", "MultiValueAnswer")),
    ({"Failover": "PRIMARY"}, Routing("failover", "Failover")),
    ({"Region": "us-east-1"}, Routing("latency", "Region")),
    ({"GeoLocation": {"ContinentCode": "EU"}}, Routing("geolocation", "GeoLocation")),
    ({"GeoProximityLocation": {"AWSRegion": "us-east-1"}}, Routing("geoproximity", "GeoProximityLocation")),
    ({"CidrRoutingConfig": {"CollectionId": "c", "LocationName": "*"}}, Routing("cidr", "CidrRoutingConfig")),
    ({"AZAffinity": AZ}, Routing("azaffinity", "AZAffinity", az=AzLocation("AvailabilityZone", "use1-az1"))),
    ({"AZAffinity": {"LocationType": "Global", "LocationId": "global"}, "Weight": 1},
     Routing("weighted", "Weight", extra=("AZAffinity",))),
    ({"Region": "us-east-1", "Weight": 2, "Failover": "PRIMARY", "MultiValueAnswer": True},
     Routing("weighted", "Weight", extra=("MultiValueAnswer", "Failover", "Region"))),
    ({"MultiValueAnswer": True, "Weight": None}, Routing("multivalue", "MultiValueAnswer")),
])
def test_each_member_set_reads_to_its_routing(members: dict[str, Any], routing: Routing) -> None:
    got = read_routing({**BASE, **members})
    assert got == routing
    assert got.judged is (routing.policy != "unknown")
    assert routing_policy({**BASE, **members}) == routing.policy


@pytest.mark.parametrize(("members", "element", "reason"), [
    ({"Frob": 1, "Zap": 2, "Weight": 1}, "Frob",
     "ResourceRecordSet member(s) Frob, Zap not in edge-origin's table of Route 53 routing elements: what Route 53 "
     "answers for this set is not known"),
    ({"TrafficPolicyInstanceId": "tp-1", "Weight": 1}, "TrafficPolicyInstanceId",
     "a traffic policy instance decides this record's answers; edge-origin does not read traffic policies"),
    ({"SetIdentifier": "a"}, "SetIdentifier",
     f"a SetIdentifier with no routing element edge-origin knows ({ELEMENTS}): Route 53 refuses a set id without "
     "one, so an element edge-origin does not read may be missing here"),
    ({"SetIdentifier": "a", "MultiValueAnswer": False}, "SetIdentifier",
     f"a SetIdentifier with no routing element edge-origin knows ({ELEMENTS}): Route 53 refuses a set id without "
     "one, so an element edge-origin does not read may be missing here"),
    ({"AZAffinity": "use1-az1"}, "AZAffinity", "AZAffinity is not a mapping of LocationType and LocationId"),
    ({"AZAffinity": {**AZ, "Foo": 1, "Bar": 2}}, "AZAffinity", "AZAffinity member(s) Bar, Foo unknown to edge-origin"),
    ({"AZAffinity": {"LocationType": "AvailabilityZone"}}, "AZAffinity",
     "AZAffinity LocationType and LocationId must both be literal ('You must specify both LocationType and LocationId')"),
    ({"AZAffinity": {"LocationId": "use1-az1"}}, "AZAffinity",
     "AZAffinity LocationType and LocationId must both be literal ('You must specify both LocationType and LocationId')"),
    ({"AZAffinity": {"LocationType": "Planet", "LocationId": "earth"}}, "AZAffinity",
     "AZAffinity LocationType 'Planet' is not one of AvailabilityZone, AvailabilityZoneGroup, Region, Partition, Global"),
])
def test_a_set_not_judged_says_which_element_and_why(members: dict[str, Any], element: str, reason: str) -> None:
    assert read_routing({**BASE, **members}) == Routing("unknown", element, reason)


def test_a_set_id_without_element_listed_by_an_old_botocore_names_the_release() -> None:
    assert AZ_AFFINITY_BOTOCORE == "1.44"
    assert read_routing({"SetIdentifier": "a"}, sdk_reads_az_affinity=False) == Routing(
        "unknown", "SetIdentifier",
        "a SetIdentifier with no routing element, read with a botocore older than 1.44 that drops AZAffinity: the "
        "routing element was not read")
    assert read_routing({}, sdk_reads_az_affinity=False) == Routing("simple")  # no set id: simple whatever the release
    assert read_routing({"SetIdentifier": "a", "Weight": 1}, sdk_reads_az_affinity=False) == Routing("weighted", "Weight")


def test_the_callers_readers_of_booleans_and_literals_decide() -> None:
    # an account's listing gives real booleans; a template's reader may resolve a parameter
    assert read_routing({"MultiValueAnswer": {"Ref": "M"}}, truth=lambda v: True) == Routing("multivalue", "MultiValueAnswer")
    assert read_routing({"MultiValueAnswer": True}, truth=lambda v: False) == Routing("simple")
    literal = {"LocationType": {"Ref": "T"}, "LocationId": {"Ref": "I"}}
    assert read_routing({"AZAffinity": literal}, literal=lambda v: "Region" if v == {"Ref": "T"} else "us-east-1") == Routing(
        "azaffinity", "AZAffinity", az=AzLocation("Region", "us-east-1"))
    assert read_routing({"AZAffinity": literal}).reason == (
        "AZAffinity LocationType and LocationId must both be literal ('You must specify both LocationType and LocationId')")


def test_routing_elements_in_the_tables_order() -> None:
    every = {e.member: True for e in ROUTING_ELEMENTS}
    assert routing_elements(every) == tuple(ELEMENTS.split(", "))
    assert routing_elements({"MultiValueAnswer": "false", "Weight": None, "Region": "eu-west-1"}) == ("Region",)
    assert routing_elements({"MultiValueAnswer": {"Ref": "M"}}) == ("MultiValueAnswer",)  # decided at deploy: carried
    assert routing_elements({"MultiValueAnswer": True}, truth=lambda v: False) == ()
    assert [(e.member, e.policy, e.botocore) for e in ROUTING_ELEMENTS][-1] == ("AZAffinity", "azaffinity", "1.44")
    assert {"HostedZoneId", "HostedZoneName", "Comment", "TrafficPolicyInstanceId", "SetIdentifier"} <= KNOWN_MEMBERS
    assert "Frob" not in KNOWN_MEMBERS


def test_routing_policy_passes_the_readers_on() -> None:
    assert routing_policy({"MultiValueAnswer": {"Ref": "M"}}, truth=lambda v: True) == "multivalue"
    assert routing_policy({"SetIdentifier": "a"}, sdk_reads_az_affinity=False) == "unknown"
