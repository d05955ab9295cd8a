"""EO-DNS3 beyond tests/conditions/test_rule_conditions_dns.py: load balancers whose zonal addresses are not
known (no subnet mapping, subnets by id only, two such NLBs) and a record of another name decided at deploy
(mutmut survivors, issue 38). Each edit of the quiet world asserts the whole finding or that none is made."""

from __future__ import annotations

from typing import Any

from worlds import findings, quiet, res, world

from edge_origin.core.findings import Severity
from edge_origin.rules.dns3_origin_spread import FIX


def _record(name: str, **props: Any) -> dict[str, Any]:
    return {"Type": "AWS::Route53::RecordSet", "Properties": {"HostedZoneName": "example.com.", "Name": name, "Type": "A", **props}}


def _alias(dns_name: Any, zone_id: Any = "Z26RNL4JYFTOTI") -> dict[str, Any]:
    return {"AliasTarget": {"DNSName": dns_name, "HostedZoneId": zone_id}}


def _nlb_alias(logical_id: str) -> dict[str, Any]:
    return _alias({"Fn::GetAtt": [logical_id, "DNSName"]}, {"Fn::GetAtt": [logical_id, "CanonicalHostedZoneID"]})


def _only(body: dict[str, Any], **resources: dict[str, Any]) -> dict[str, Any]:
    """The quiet world with its records and checks replaced by ``resources``."""
    for logical_id in ("RecordA", "RecordB", "CheckA", "CheckB"):
        del body["Resources"][logical_id]
    body["Resources"].update(resources)
    return body


def _seen(body: dict[str, Any]) -> list[tuple[str, str, Severity, str, str]]:
    return [(f.rule, f.resource, f.severity, f.message, f.fix) for f in findings(body, "EO-DNS3")]


def test_dns3_a_known_eip_beside_an_nlb_without_any_subnet_mapping_is_not_one_zone() -> None:
    # EipA is in us-east-1a (Nlb's mapping); Nlb2's zones are not known (no mapping at all): maybe two zones
    body = _only(world(), WeightedA=_record("o.example.com", TTL=60, SetIdentifier="a", Weight=1, ResourceRecords=[{"Ref": "EipA"}]),
                 WeightedZ=_record("o.example.com", SetIdentifier="z", Weight=1, **_nlb_alias("Nlb2")),
                 Nlb2={"Type": "AWS::ElasticLoadBalancingV2::LoadBalancer", "Properties": {"Type": "network", "SubnetMappings": []}})
    quiet(body, "EO-DNS3")
    body["Resources"]["Nlb2"]["Properties"]["SubnetMappings"] = [{"SubnetId": {"Ref": "SubnetA"}}]  # known: one zone
    assert _seen(body) == [("EO-DNS3", "WeightedA", Severity.WARNING,
                            "gRPC origin o.example.com (zone example.com): all 2 origin IPs are in one zone (us-east-1a)", FIX)]


def test_dns3_an_nlb_by_subnet_ids_counts_each_address_and_knows_no_zone() -> None:
    # two subnets given by id: two zonal addresses, their zones not known: neither "1 IP" nor "one zone (?)"
    body = _only(world(), Alias=_record("o.example.com", **_nlb_alias("Nlb")))
    nlb = res(body, "Nlb")
    del nlb["SubnetMappings"]
    nlb["Subnets"] = ["subnet-1", "subnet-2"]
    quiet(body, "EO-DNS3")
    nlb["Subnets"] = ["subnet-1"]
    assert _seen(body) == [("EO-DNS3", "Alias", Severity.WARNING,
                            "gRPC origin o.example.com (zone example.com) has 1 origin IP(s): one NLB takes every connection", FIX)]


def test_dns3_two_nlbs_outside_the_templates_are_two_destinations() -> None:
    body = _only(world(), **{
        f"Weighted{set_id}": _record("o.example.com", SetIdentifier=set_id, Weight=1,
                                     **_alias(f"nlb-{set_id}-0123456789.elb.us-east-1.amazonaws.com"))
        for set_id in ("a", "b")
    })
    quiet(body, "EO-DNS3")
    del body["Resources"]["Weightedb"]
    assert _seen(body) == [("EO-DNS3", "Weighteda", Severity.WARNING,
                            "gRPC origin o.example.com (zone example.com) has 1 origin IP(s): one NLB takes every connection", FIX)]


def test_dns3_a_record_of_another_name_decided_at_deploy_does_not_hide_this_names_one_ip() -> None:
    body = world()
    del body["Resources"]["RecordB"], body["Resources"]["CheckB"]
    body["Parameters"] = {"Multi": {"Type": "String"}}
    body["Resources"]["Other"] = _record("other.example.com", TTL=60, SetIdentifier="x", ResourceRecords=["192.0.2.7"],
                                         MultiValueAnswer={"Ref": "Multi"})
    assert _seen(body) == [("EO-DNS3", "RecordA", Severity.WARNING,
                            "gRPC origin o.example.com (zone example.com) has 1 origin IP(s): one NLB takes every connection", FIX)]
    res(body, "RecordA")["MultiValueAnswer"] = {"Ref": "Multi"}  # this name's own record decided at deploy: not judged
    quiet(body, "EO-DNS3")


def _multivalue(count: int) -> dict[str, Any]:
    return _only(world(), **{
        f"Record{i}": _record("o.example.com", TTL=60, SetIdentifier=f"s{i}", MultiValueAnswer=True, ResourceRecords=[f"192.0.2.{i}"])
        for i in range(1, count + 1)
    })


def test_dns3_more_than_eight_multivalue_records_and_past_the_zone_quota(monkeypatch) -> None:
    """Past eight healthy records Route 53 answers different resolvers with different combinations (API
    reference, MultiValueAnswer): no finding; only past the zone's record quota."""
    quiet(_multivalue(8), "EO-DNS3")
    quiet(_multivalue(9), "EO-DNS3")
    # the zone quota (10,000 records by default) lowered so a small template crosses it: 9 is at it, 10 past it
    monkeypatch.setattr("edge_origin.rules.dns3_origin_spread.ROUTE53_RECORDS_PER_ZONE", 9)
    quiet(_multivalue(9), "EO-DNS3")
    assert _seen(_multivalue(10)) == [(
        "EO-DNS3", "Record1", Severity.WARNING,
        "gRPC origin o.example.com (zone example.com) has 10 multivalue records: more than the 9 records a hosted zone "
        "takes by default (Route 53 quota): the deploy fails unless the zone's quota was raised",
        FIX,
    )]
