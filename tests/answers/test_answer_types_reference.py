"""The answer model's data as findings and reports print it (answers/types.py).

Names are compared in one spelling (DNS names are case-insensitive, a trailing dot is the root);
record sets, hops, load balancers and locations read the same in every message. Together with the
other tests of tests/answers these kill the mutants of ``make mutate MODULE=answers/types.py`` that
are not listed as equivalent in docs/mutation-equivalent.txt.
"""

from __future__ import annotations

import pytest

from edge_origin.answers import (
    Geo,
    GeoProximity,
    Hop,
    HostedZone,
    LoadBalancer,
    Record,
    RecordKey,
    Vantage,
    normalize,
)


def test_names_in_one_spelling() -> None:
    assert normalize(" Origin.Example.COM. ") == "origin.example.com"
    assert HostedZone("Z1", "Example.COM.").name == "example.com"


def test_record_key_reads_with_and_without_a_set_identifier() -> None:
    assert str(RecordKey("Z1", "o.example.com", "A", "blue")) == "o.example.com A [blue] in zone Z1"
    assert str(RecordKey("Z1", "o.example.com", "A")) == "o.example.com A in zone Z1"


def test_hop_reads_how_it_was_reached_and_its_routing_detail() -> None:
    key = RecordKey("Z1", "o.example.com", "A", "blue")
    assert str(Hop(key, "weighted", "alias", "weight 3")) == "alias -> o.example.com A (weighted, weight 3, zone Z1)"
    assert str(Hop(key, "simple")) == "o.example.com A (simple, zone Z1)"


def test_load_balancer_reads_its_kind_and_label() -> None:
    assert str(LoadBalancer("nlb-1.elb.amazonaws.com", "network", label="Nlb")) == "NLB Nlb"
    assert str(LoadBalancer("alb-1.elb.amazonaws.com", "application")) == "ALB alb-1.elb.amazonaws.com"


def test_locations_read_as_route53_names_them() -> None:
    # GeoLocation: "The value * in the CountryCode element matches all geographic locations that
    # aren't specified in other geolocation resource record sets".
    assert str(Geo(country="*")) == "* (default)"
    assert str(Geo(continent="NA", country="US", subdivision="CA")) == "NA/US/CA"
    # GeoProximityLocation: an AWS Region, a Local Zone group or coordinates, and a bias.
    assert str(GeoProximity(region="us-east-1")) == "us-east-1"
    assert str(GeoProximity(local_zone_group="us-west-2-lax-1")) == "us-west-2-lax-1"
    assert str(GeoProximity(coordinates=("49.22", "-74.01"), bias=-20)) == "49.22,-74.01 (bias -20)"
    assert str(GeoProximity()) == "?"


def test_a_location_without_any_code_covers_nothing() -> None:
    empty = Geo()
    assert empty.covers(Geo(continent="EU", country="DE")) is False
    assert empty.specificity == 0 and Geo(country="*").covers(Geo(continent="EU", country="DE")) is True


def test_bad_input_messages_name_what_is_allowed() -> None:
    with pytest.raises(ValueError) as bad_policy:
        Record(RecordKey("Z1", "o.example.com", "A"), "nope")
    assert str(bad_policy.value) == ("o.example.com A in zone Z1: routing policy 'nope' is not one of simple, weighted, "
                                     "multivalue, failover, latency, geolocation, geoproximity, cidr, azaffinity")
    with pytest.raises(ValueError) as bad_kind:
        Vantage("lan")
    assert str(bad_kind.value) == "vantage kind 'lan' is not one of internet, vpc"
    with pytest.raises(ValueError) as no_vpc:
        Vantage("vpc")
    assert str(no_vpc.value) == "a vpc vantage needs vpc_id"
