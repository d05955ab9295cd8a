"""EO-DNS1, EO-DNS2 and EO-DNS3 conditions: one edit of the quiet world (two health-checked multivalue
records -> two EIPs -> one NLB in two zones) makes exactly one finding per named resource, with the
phrase the user reads; each boundary is tested on both sides."""

from __future__ import annotations

from typing import Any

import pytest
from worlds import behavior, dist_config, findings, one, origin, quiet, res, world

from edge_origin.core.findings import Severity


def _drop(body: dict[str, Any], *logical_ids: str) -> None:
    for logical_id in logical_ids:
        del body["Resources"][logical_id]


def _record(name: str, **props: Any) -> dict[str, Any]:
    return {"Type": "AWS::Route53::RecordSet", "Properties": {"HostedZoneName": "example.com.", "Name": name, "Type": "A", **props}}


def _alias_to_nlb(mappings: int = 2) -> dict[str, Any]:
    """o.example.com as one simple alias record to the NLB, which keeps its first ``mappings`` subnet mappings."""
    body = world()
    _drop(body, "RecordA", "RecordB", "CheckA", "CheckB")
    body["Resources"]["Alias"] = _record(
        "o.example.com",
        AliasTarget={"DNSName": {"Fn::GetAtt": ["Nlb", "DNSName"]}, "HostedZoneId": {"Fn::GetAtt": ["Nlb", "CanonicalHostedZoneID"]}},
    )
    nlb = res(body, "Nlb")
    nlb["SubnetMappings"] = nlb["SubnetMappings"][:mappings]
    return body


# --- EO-DNS1: a lone record: an A record or an alias, and what the alias's NLB has ---------------------------
def test_dns1_a_lone_simple_a_record_is_named_as_an_a_record() -> None:
    body = world()
    _drop(body, "RecordB", "CheckB")
    for key in ("SetIdentifier", "MultiValueAnswer", "HealthCheckId"):
        del res(body, "RecordA")[key]
    f = one(body, "EO-DNS1", "RecordA", Severity.WARNING, "RecordA: a lone simple A record", "one address (S/EipA) takes every connection")
    assert "alias" not in f.message


@pytest.mark.parametrize(
    ("mappings", "shown"), [(1, "one NLB (Nlb) with 1 zonal address(es)"), (0, "one NLB (Nlb) with no known zonal address(es)")]
)
def test_dns1_a_lone_alias_to_an_nlb_with_fewer_than_two_addresses(mappings: int, shown: str) -> None:
    one(_alias_to_nlb(mappings), "EO-DNS1", "Alias", Severity.WARNING, "Alias: a lone simple alias record", f"{shown} takes every connection")


def test_dns1_a_lone_alias_to_an_nlb_with_two_zonal_addresses_is_quiet() -> None:
    # an alias to a load balancer answers with every zonal address it has
    quiet(_alias_to_nlb(2), "EO-DNS1")


def test_dns1_a_simple_record_of_both_addresses_warns_without_health_checks() -> None:
    body = world()
    _drop(body, "RecordB", "CheckB")
    record = res(body, "RecordA")
    for key in ("SetIdentifier", "MultiValueAnswer", "HealthCheckId"):
        del record[key]
    record["ResourceRecords"] = [{"Ref": "EipA"}, {"Ref": "EipB"}]
    one(
        body, "EO-DNS1", "RecordA", Severity.WARNING,
        "RecordA: a lone simple A record in zone example.com for gRPC origin o.example.com: its 2 addresses are "
        "answered without health checks",
    )


# --- EO-DNS1: a pile-up is located at the record set the policy chose, not at the end of its chain ----------
def _weighted_aliases() -> dict[str, Any]:
    """o.example.com: two weighted aliases (a, b), each to a simple record of one EIP (a.o / b.o.example.com)."""
    body = world()
    _drop(body, "RecordA", "RecordB", "CheckA", "CheckB")
    for set_id, eip in (("a", "EipA"), ("b", "EipB")):
        body["Resources"][f"Target{set_id.upper()}"] = _record(f"{set_id}.o.example.com", TTL=60, ResourceRecords=[{"Ref": eip}])
        body["Resources"][f"Weighted{set_id.upper()}"] = _record(
            "o.example.com", SetIdentifier=set_id, Weight=1, AliasTarget={"DNSName": f"{set_id}.o.example.com", "HostedZoneId": "Z1"}
        )
    return body


def test_dns1_weighted_aliases_to_one_address_each_fire_on_the_weighted_sets() -> None:
    found = sorted(findings(_weighted_aliases(), "EO-DNS1"), key=lambda f: f.resource)
    assert [(f.resource, f.severity) for f in found] == [("WeightedA", Severity.ERROR), ("WeightedB", Severity.ERROR)]
    for f, set_id in zip(found, "ab", strict=True):
        assert f"weighted record (weight 1, SetIdentifier {set_id})" in f.message, f.message
        assert f"one address (S/Eip{set_id.upper()})" in f.message and "while the name has 2" in f.message, f.message


def test_dns1_weighted_aliases_to_a_pool_of_both_addresses_are_quiet() -> None:
    body = _weighted_aliases()
    for target in ("TargetA", "TargetB"):
        res(body, target)["ResourceRecords"] = [{"Ref": "EipA"}, {"Ref": "EipB"}]
    quiet(body, "EO-DNS1")  # each answer holds both addresses


# --- EO-DNS2: a record reached through two origin names is judged once ----------------------------------------
def _second_name_aliasing_the_first() -> dict[str, Any]:
    """A second origin p.example.com (its own gRPC behavior), an alias (EvaluateTargetHealth) of o.example.com."""
    body = world()
    cfg = dist_config(body)
    cfg["Origins"].append({**origin(body), "Id": "p", "DomainName": "p.example.com"})
    cfg["CacheBehaviors"] = [{**behavior(body), "PathPattern": "/p/*", "TargetOriginId": "p"}]
    body["Resources"]["AliasP"] = _record(
        "p.example.com", AliasTarget={"DNSName": "o.example.com", "HostedZoneId": "Z1", "EvaluateTargetHealth": True}
    )
    return body


def test_dns2_the_second_name_alone_is_quiet() -> None:
    quiet(_second_name_aliasing_the_first(), "EO-DNS2")


def test_dns2_a_record_without_health_check_under_two_names_gives_one_finding() -> None:
    body = _second_name_aliasing_the_first()
    del res(body, "RecordA")["HealthCheckId"]
    one(body, "EO-DNS2", "RecordA", Severity.ERROR, "RecordA: multivalue record", "has no HealthCheckId")


# --- EO-DNS2: a check probing another record's address is named by its logical id -----------------------------
def test_dns2_a_check_probing_the_other_records_address_is_named() -> None:
    body = world()
    res(body, "CheckA")["HealthCheckConfig"]["IPAddress"] = {"Ref": "EipB"}
    one(
        body, "EO-DNS2", "RecordA", Severity.ERROR,
        "health check CheckA probes S/EipB (another record's address), not this record's address (S/EipA)",
    )


# --- EO-DNS3: the zones of an alias target's zonal addresses -------------------------------------------------
def test_dns3_an_alias_to_an_nlb_in_one_zone_fires() -> None:
    body = _alias_to_nlb(2)
    res(body, "SubnetB")["AvailabilityZone"] = "us-east-1a"
    one(body, "EO-DNS3", "Alias", Severity.WARNING, "all 2 origin IPs are in one zone (us-east-1a)")


def test_dns3_an_alias_to_an_nlb_in_two_zones_is_quiet() -> None:
    quiet(_alias_to_nlb(2), "EO-DNS3")


def test_dns3_an_alias_to_an_nlb_with_a_zone_not_known_is_not_judged_one_zone() -> None:
    # SubnetB's zone is decided at deploy time: the addresses may well be in two zones
    body = _alias_to_nlb(2)
    del res(body, "SubnetB")["AvailabilityZone"]
    quiet(body, "EO-DNS3")


# --- EO-DNS3: destinations whose zone is not known keep "all in one zone" quiet -----------------------------
def _weighted_pair(second: dict[str, Any], *, record_type: str = "A") -> dict[str, Any]:
    """o.example.com: weighted set ``a`` (EipA, zone us-east-1a, directly or through a CNAME) and ``second``."""
    body = world()
    _drop(body, "RecordA", "RecordB", "CheckA", "CheckB")
    if record_type == "CNAME":
        body["Resources"]["TargetA"] = _record("a.o.example.com", TTL=60, ResourceRecords=[{"Ref": "EipA"}])
        first: dict[str, Any] = {"Type": "CNAME", "ResourceRecords": ["a.o.example.com"]}
    else:
        first = {"ResourceRecords": [{"Ref": "EipA"}]}
    body["Resources"]["WeightedA"] = _record("o.example.com", TTL=60, SetIdentifier="a", Weight=1, **first)
    body["Resources"]["WeightedZ"] = _record("o.example.com", SetIdentifier="z", Weight=1, **second)
    return body


def _with_nlb_of_unknown_subnets(body: dict[str, Any]) -> dict[str, Any]:
    body["Parameters"] = {"Subnets": {"Type": "List<AWS::EC2::Subnet::Id>"}}
    body["Resources"]["Nlb2"] = {
        "Type": "AWS::ElasticLoadBalancingV2::LoadBalancer",
        "Properties": {"Type": "network", "Subnets": {"Ref": "Subnets"}},
    }
    return body


NLB2_ALIAS = {"AliasTarget": {"DNSName": {"Fn::GetAtt": ["Nlb2", "DNSName"]}, "HostedZoneId": {"Fn::GetAtt": ["Nlb2", "CanonicalHostedZoneID"]}}}
OUTSIDE_CNAME = {"Type": "CNAME", "TTL": 60, "ResourceRecords": ["api.example.net"]}


def test_dns3_an_nlb_without_known_zonal_addresses_next_to_a_known_eip_is_quiet() -> None:
    # 2 destinations, one in us-east-1a, the other's zones not known: not "all in one zone"
    quiet(_with_nlb_of_unknown_subnets(_weighted_pair(NLB2_ALIAS)), "EO-DNS3")


def test_dns3_an_nlb_without_known_zonal_addresses_alone_counts_as_one_ip() -> None:
    body = _with_nlb_of_unknown_subnets(_weighted_pair(NLB2_ALIAS))
    _drop(body, "WeightedA")
    one(body, "EO-DNS3", "WeightedZ", Severity.WARNING, "has 1 origin IP(s): one NLB takes every connection")


def test_dns3_a_cname_leaving_the_zones_next_to_a_known_eip_is_quiet() -> None:
    # api.example.net is one more destination, of a zone not known: 2 IPs, not "all in one zone"
    quiet(_weighted_pair(OUTSIDE_CNAME, record_type="CNAME"), "EO-DNS3")


def test_dns3_a_cname_leaving_the_zones_alone_is_not_judged_not_one_ip() -> None:
    # what api.example.net answers is not in the templates: EO-NJ1 names it, EO-DNS3 does not count it (issue 36)
    body = _weighted_pair(OUTSIDE_CNAME, record_type="CNAME")
    _drop(body, "WeightedA", "TargetA")
    one(body, "EO-NJ1", "WeightedZ", Severity.WARNING, "not judged: WeightedZ: CNAME value of")
    assert findings(body, "EO-DNS3") == []


def test_dns3_a_known_eip_and_an_nlb_in_its_zone_are_one_zone() -> None:
    # the other side of the two tests above: both destinations' zones known, both us-east-1a
    body = _weighted_pair(NLB2_ALIAS)
    body["Resources"]["Nlb2"] = {
        "Type": "AWS::ElasticLoadBalancingV2::LoadBalancer",
        "Properties": {"Type": "network", "SubnetMappings": [{"SubnetId": {"Ref": "SubnetA"}}]},
    }
    one(body, "EO-DNS3", "WeightedA", Severity.WARNING, "all 2 origin IPs are in one zone (us-east-1a)")


# --- EO-DNS4: the zone the message names ------------------------------------------------------------------
def test_dns4_names_the_hosted_zone_of_the_record() -> None:
    body = world()
    res(body, "RecordA")["TTL"] = 301
    one(body, "EO-DNS4", "RecordA", Severity.WARNING, "RecordA: TTL 301 s in zone example.com for gRPC origin o.example.com")


def test_dns4_a_record_the_answer_model_cannot_read_names_no_zone() -> None:
    # MultiValueAnswer decided at deploy: the answer model has no zone for the record, the TTL still counts
    body = world()
    body["Parameters"] = {"Multi": {"Type": "String"}}
    res(body, "RecordA")["TTL"] = 301
    res(body, "RecordA")["MultiValueAnswer"] = {"Ref": "Multi"}
    f = one(body, "EO-DNS4", "RecordA", Severity.WARNING, "RecordA: TTL 301 s for gRPC origin o.example.com")
    assert " in zone" not in f.message


# --- EO-DNS5: one name and one type; each record type is its own set ----------------------------------------
def _aaaa_weighted(body: dict[str, Any]) -> dict[str, Any]:
    for set_id, address in (("x", "2001:db8::1"), ("y", "2001:db8::2")):
        body["Resources"][f"Six{set_id}"] = _record(
            "o.example.com", Type="AAAA", TTL=60, SetIdentifier=set_id, Weight=1, ResourceRecords=[address]
        )
    return body


def test_dns5_weighted_aaaa_beside_multivalue_a_is_quiet() -> None:
    quiet(_aaaa_weighted(world()), "EO-DNS5")


def test_dns5_a_weighted_a_record_among_multivalue_a_names_the_name_and_type() -> None:
    body = world()
    body["Resources"]["Extra"] = _record(
        "o.example.com", TTL=60, SetIdentifier="w", Weight=1, ResourceRecords=["192.0.2.9"]
    )
    one(body, "EO-DNS5", "RecordA", Severity.ERROR, "o.example.com A: mixed routing policies (multivalue, weighted)")
