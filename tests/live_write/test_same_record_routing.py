"""enact's "already as planned" test reads a live record's policy from the one table of routing elements
(answers.routing): any element besides MultiValueAnswer, or a member the table does not know, means the
record is not the one enact writes, and the batch rewrites it (AZAffinity was missing from a hand list)."""

from __future__ import annotations

import pytest

from edge_origin.answers.routing import ROUTING_ELEMENTS
from edge_origin.live.enact import _same_record

WANT = {"Name": "origin.example.com.", "Type": "A", "SetIdentifier": "a", "MultiValueAnswer": True, "TTL": 60,
        "ResourceRecords": [{"Value": "203.0.113.10"}], "HealthCheckId": "hc-1"}
VALUES = {"Weight": 10, "Failover": "PRIMARY", "Region": "us-east-1", "GeoLocation": {"CountryCode": "*"},
          "GeoProximityLocation": {"AWSRegion": "us-east-1"}, "CidrRoutingConfig": {"CollectionId": "c", "LocationName": "l"},
          "AZAffinity": {"LocationType": "Global"}}


def test_the_planned_record_is_the_same() -> None:
    assert _same_record(dict(WANT), WANT)


@pytest.mark.parametrize("member", [e.member for e in ROUTING_ELEMENTS if e.member != "MultiValueAnswer"])
def test_any_other_routing_element_is_not_the_same(member: str) -> None:
    assert member in VALUES, f"a routing element this test has no value for: {member}"
    assert not _same_record({**WANT, member: VALUES[member]}, WANT)


@pytest.mark.parametrize("extra", [{"FutureRouting": {"X": 1}}, {"MultiValueAnswer": False}, {"AliasTarget": {"DNSName": "x"}}])
def test_an_unknown_member_a_simple_set_or_an_alias_is_not_the_same(extra: dict) -> None:
    assert not _same_record({**WANT, **extra}, WANT)
