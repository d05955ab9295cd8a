"""The account reader keys records by zone + name + type + set id, marks zones private or public as
Route 53 reports them (``Config.PrivateZone``), and reads whole health-check configs.

moto 5.2.5: ``CreateHostedZone`` with a VPC gives ``Config.PrivateZone: False`` and no ``VPCs``
(Route 53's API reference, CreateHostedZone: a private zone is made by specifying the VPC), and it
keeps neither ``GeoProximityLocation`` nor ``CidrRoutingConfig`` of a record set (accepted, then
dropped). The tests use ``accounts.fill_moto_gaps`` (after-call handlers putting Route 53's answer
back) or botocore Stubber responses shaped as the API reference documents them.
"""

from __future__ import annotations

import itertools
from typing import Any

import accounts
import botocore.session
import pytest
from botocore.stub import Stubber
from helpers import Clients
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.live.account import VPC_NOT_READ, ZONE_KEY, read_account
from edge_origin.live.audit import audit
from edge_origin.model import normalize_name

COUNTER = itertools.count()


def _zone_meta(account: Any) -> dict[str, dict[str, Any]]:
    return {r["Metadata"][ZONE_KEY]["id"]: r for r in account.resources("AWS::Route53::HostedZone").values()}


def test_a_private_zone_of_the_same_name_does_not_hide_the_public_incident(moto_session: Any) -> None:
    built = accounts.public_and_private(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    public, private = list(built.zones)
    result = audit(moto_session)
    records = result.account.resources("AWS::Route53::RecordSet")
    assert len([r for r in records.values() if r["Properties"]["Name"] == "api.example.com."]) == 4
    dns1 = {f.resource for f in result.findings if f.rule == "EO-DNS1"}
    assert dns1 == {f"hostedzone/{public}/api.example.com/A/w-{lb.name}" for lb in built.nlbs}
    for f in result.findings:
        zone = public if f"/{public}/" in f.resource else private
        kind = "public" if zone == public else "private"
        assert f"{kind} zone example.com ({zone})" in f.message, f
        assert "Live/" not in f.message + f.fix and not any(lid in f.message + f.fix for lid in result.account.ids)
        assert f.message.count(f"({zone})") == 1  # named once, not once by the rule and once by the audit
    zones = _zone_meta(result.account)
    assert zones[public]["Metadata"][ZONE_KEY]["private"] is False and "VPCs" not in zones[public]["Properties"]
    assert zones[private]["Metadata"][ZONE_KEY]["private"] is True
    assert zones[private]["Properties"]["VPCs"] == [{"VPCId": built.zones[private].vpc[0], "VPCRegion": "us-east-1"}]


def test_moto_as_it_is_reads_both_zones_public_yet_hides_nothing(moto_session: Any) -> None:
    """Without the gap filler moto says both zones are public (its departure): the zone ids still
    keep the four records apart."""
    built = accounts.public_and_private(moto_session)
    accounts.fill_moto_gaps(moto_session, accounts.Built(lb_addresses=built.lb_addresses, grpc_distributions=built.grpc_distributions))
    account = read_account(moto_session)
    assert len(account.resources("AWS::Route53::RecordSet")) == 4 + 2 * 2  # + NS and SOA of each zone
    assert {r["Metadata"][ZONE_KEY]["private"] for r in account.resources("AWS::Route53::HostedZone").values()} == {False}


@settings(max_examples=10, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(zones=st.lists(
    st.tuples(st.booleans(), st.lists(st.tuples(st.sampled_from(["api", "www"]), st.sampled_from(["s0", "s1", "s2"])),
                                      min_size=1, max_size=4, unique=True)),
    min_size=1, max_size=4,
))
def test_every_record_of_every_zone_of_one_name_is_read_once(moto_session: Any, zones: list[tuple[bool, list[tuple[str, str]]]]) -> None:
    """Zones of one name, public or private, reusing names and set identifiers: one resource per
    (zone, name, type, set id), each with its own zone's value."""
    name = f"z{next(COUNTER)}.example.org"
    built = accounts.Built()
    vpc_id = moto_session.client("ec2").create_vpc(CidrBlock="10.1.0.0/16")["Vpc"]["VpcId"]
    expected: dict[tuple[str, str, str], str] = {}
    for n, (private, records) in enumerate(zones):
        zid = accounts.zone(moto_session, built, name, vpc_id=vpc_id if private else None)
        batch = []
        for label, set_id in records:
            value = f"192.0.2.{n * 10 + int(set_id[1])}"
            expected[(zid, f"{label}.{name}", set_id)] = value
            batch.append({"Name": f"{label}.{name}", "Type": "A", "SetIdentifier": set_id, "MultiValueAnswer": True, "TTL": 60,
                          "ResourceRecords": [{"Value": value}]})
        accounts.change(moto_session, zid, batch, built)
    accounts.fill_moto_gaps(moto_session, built)
    account = read_account(moto_session, names=[f"api.{name}", f"www.{name}"])
    zone_of = {lid: r["Metadata"][ZONE_KEY] for lid, r in account.resources("AWS::Route53::HostedZone").items()}
    seen = {}
    for r in account.resources("AWS::Route53::RecordSet").values():
        p = r["Properties"]
        key = (zone_of[p["HostedZoneId"]["Ref"]]["id"], normalize_name(p["Name"]), p["SetIdentifier"])
        assert key not in seen
        seen[key] = p["ResourceRecords"][0]
    assert seen == expected
    assert {z["id"]: z["private"] for z in zone_of.values()} == {
        zid: made.vpc is not None for zid, made in built.zones.items()}


def _stubbed(service: str) -> tuple[Any, Stubber]:
    client = botocore.session.get_session().create_client(service, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    return client, Stubber(client)


def _route53_stub(records: list[dict[str, Any]], *, private: bool = False, get_zone: dict[str, Any] | None = None,
                  checks: list[dict[str, Any]] | None = None) -> tuple[Any, Stubber]:
    route53, stub = _stubbed("route53")
    stub.add_response("list_health_checks", {"HealthChecks": checks or [], "Marker": "", "IsTruncated": False, "MaxItems": "100"})
    stub.add_response("list_hosted_zones", {"HostedZones": [{
        "Id": "/hostedzone/Z0PRIVATE000001", "Name": "example.com.", "CallerReference": "r",
        "Config": {"PrivateZone": private}, "ResourceRecordSetCount": len(records)}],
        "Marker": "", "IsTruncated": False, "MaxItems": "100"})
    stub.add_response("list_resource_record_sets", {"ResourceRecordSets": records, "IsTruncated": False, "MaxItems": "300"})
    if private:
        if get_zone is None:
            stub.add_client_error("get_hosted_zone", service_error_code="AccessDenied", http_status_code=403)
        else:
            stub.add_response("get_hosted_zone", get_zone)
    return route53, stub


def test_a_private_zone_whose_vpcs_cannot_be_read_still_reads_private(moto_session: Any) -> None:
    route53, stub = _route53_stub([{"Name": "api.example.com.", "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": "10.0.0.1"}]}],
                                  private=True)
    with stub:
        account = read_account(Clients(moto_session, route53=route53))
        stub.assert_no_pending_responses()
    (zone,) = account.resources("AWS::Route53::HostedZone").values()
    assert zone["Metadata"][ZONE_KEY] == {"id": "Z0PRIVATE000001", "name": "example.com", "private": True}
    assert zone["Properties"]["VPCs"] == [{"VPCId": VPC_NOT_READ, "VPCRegion": "us-east-1"}]


def test_a_private_zone_carries_the_vpcs_route53_names(moto_session: Any) -> None:
    get_zone = {"HostedZone": {"Id": "/hostedzone/Z0PRIVATE000001", "Name": "example.com.", "CallerReference": "r",
                               "Config": {"PrivateZone": True}},
                "VPCs": [{"VPCRegion": "eu-west-1", "VPCId": "vpc-0abc"}]}
    route53, stub = _route53_stub([{"Name": "api.example.com.", "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": "10.0.0.1"}]}],
                                  private=True, get_zone=get_zone)
    with stub:
        account = read_account(Clients(moto_session, route53=route53))
    (zone,) = account.resources("AWS::Route53::HostedZone").values()
    assert zone["Properties"]["VPCs"] == [{"VPCId": "vpc-0abc", "VPCRegion": "eu-west-1"}]
    assert account.model().resource("Live", next(iter(account.resources("AWS::Route53::HostedZone")))).properties["VPCs"]


def test_a_public_zone_is_never_asked_for_vpcs(moto_session: Any) -> None:
    route53, stub = _route53_stub([{"Name": "api.example.com.", "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": "192.0.2.1"}]}])
    with stub:
        account = read_account(Clients(moto_session, route53=route53))
        stub.assert_no_pending_responses()  # no GetHostedZone queued, none made
    (zone,) = account.resources("AWS::Route53::HostedZone").values()
    assert "VPCs" not in zone["Properties"] and zone["Metadata"][ZONE_KEY]["private"] is False


@pytest.mark.parametrize(("field", "value"), [
    ("GeoProximityLocation", {"AWSRegion": "us-east-1", "Bias": 10}),
    ("GeoProximityLocation", {"Coordinates": {"Latitude": "49.22", "Longitude": "-74.01"}}),
    ("CidrRoutingConfig", {"CollectionId": "c8c02a84-aaaa-4e4b-9d2e-8f0f2d4d9a11", "LocationName": "office"}),
])
def test_routing_fields_moto_drops_are_read(moto_session: Any, field: str, value: dict[str, Any]) -> None:
    """moto accepts geoproximity and CIDR record sets and drops the routing field; Route 53 returns it."""
    record = {"Name": "api.example.com.", "Type": "A", "SetIdentifier": "s0", "TTL": 60,
              "ResourceRecords": [{"Value": "192.0.2.1"}], field: value}
    route53, stub = _route53_stub([record])
    with stub:
        account = read_account(Clients(moto_session, route53=route53))
    (rec,) = [r for r in account.resources("AWS::Route53::RecordSet").values()]
    assert rec["Properties"][field] == value
    view = account.model().record_sets("api.example.com")[0]
    assert view.routing_policy == ("geoproximity" if field.startswith("Geo") else "cidr")


def test_health_check_configs_are_read_whole(moto_session: Any) -> None:
    built = accounts.health_rules(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    account = read_account(moto_session)
    by_id = {account.ids[lid][1]: r["Properties"]["HealthCheckConfig"] for lid, r in account.resources("AWS::Route53::HealthCheck").items()}
    lid_of = {account.ids[lid][1]: lid for lid in account.resources("AWS::Route53::HealthCheck")}
    disabled, inverted, regions, calculated = built.health_checks
    assert by_id[disabled]["Disabled"] is True and by_id[disabled].get("Inverted") is False
    assert by_id[inverted]["Inverted"] is True and by_id[inverted].get("Disabled") is False
    assert by_id[regions]["Regions"] == ["us-east-1", "eu-west-1", "ap-southeast-1"]
    assert by_id[calculated]["Type"] == "CALCULATED" and by_id[calculated]["HealthThreshold"] == 0
    assert by_id[calculated]["ChildHealthChecks"] == [{"Ref": lid_of[disabled]}, {"Ref": lid_of[inverted]}]
    assert "Regions" not in by_id[disabled]  # moto's null Regions is left out, as a template leaves it
    records = account.resources("AWS::Route53::RecordSet")
    used = {r["Properties"]["HealthCheckId"]["Ref"] for r in records.values() if "HealthCheckId" in r["Properties"]}
    assert used == set(lid_of.values())


def test_an_alias_names_the_zone_it_points_into(moto_session: Any) -> None:
    """Of a public and a private zone of one name, an alias' HostedZoneId says which: a Ref to it."""
    built = accounts.Built()
    vpc_id = moto_session.client("ec2").create_vpc(CidrBlock="10.2.0.0/16")["Vpc"]["VpcId"]
    public = accounts.zone(moto_session, built)
    private = accounts.zone(moto_session, built, vpc_id=vpc_id)
    for zid in (public, private):
        accounts.change(moto_session, zid, [{"Name": f"pool.{accounts.HOSTED_ZONE}", "Type": "A", "TTL": 60,
                                             "ResourceRecords": [{"Value": "192.0.2.9"}]}], built)
    accounts.change(moto_session, public, [{"Name": accounts.ORIGIN, "Type": "A", "AliasTarget": {
        "HostedZoneId": private, "DNSName": f"pool.{accounts.HOSTED_ZONE}", "EvaluateTargetHealth": False}}], built)
    accounts.fill_moto_gaps(moto_session, built)
    account = read_account(moto_session)
    zone_lid = {r["Metadata"][ZONE_KEY]["id"]: lid for lid, r in account.resources("AWS::Route53::HostedZone").items()}
    (alias,) = [r for r in account.resources("AWS::Route53::RecordSet").values() if "AliasTarget" in r["Properties"]]
    assert alias["Properties"]["AliasTarget"]["HostedZoneId"] == {"Ref": zone_lid[private]}
    assert alias["Properties"]["HostedZoneId"] == {"Ref": zone_lid[public]}


def test_a_cname_to_an_nlb_refers_to_the_nlb(moto_session: Any) -> None:
    built = accounts.cname_to_nlb(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    account = read_account(moto_session)
    (cname,) = [r for r in account.resources("AWS::Route53::RecordSet").values() if r["Properties"]["Type"] == "CNAME"]
    (nlb_lid,) = [lid for lid, (_, arn) in account.ids.items() if arn == built.nlbs[0].arn]
    assert cname["Properties"]["ResourceRecords"] == [{"Fn::GetAtt": [nlb_lid, "DNSName"]}]


def test_zone_names_do_not_collide_across_callers() -> None:
    """Two zones' records with the same name/type/set id get distinct logical ids (the digest is of
    the zone-qualified id)."""
    from edge_origin.live.account import logical_id

    a = logical_id("Record", "hostedzone/ZA/api.example.com/A/s0", "api.example.com/A/s0")
    b = logical_id("Record", "hostedzone/ZB/api.example.com/A/s0", "api.example.com/A/s0")
    assert a != b and a.startswith("RecordApiExampleComAS0")
