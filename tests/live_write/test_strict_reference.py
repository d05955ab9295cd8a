"""StrictRoute53 refuses what the Route 53 API reference (botocore's route53 service-2.json
documentation, cited per test) and the Route 53 quotas refuse, with Route 53's error code; each
refusal has a neighbour that is accepted, so the test fails if the rule fires too widely.
Also: health as Route 53 computes it, PrivateZone for VPC zones, ``\\052`` in listings."""

from __future__ import annotations

import pytest

from edge_origin.testing.route53 import CLOUDFRONT_ZONE_ID
from tests.live_write.conftest import a_record, change

ZONE = "example.com."
NAME = "origin.example.com."


# r53 and zone_id: the fixtures of tests/live_write/conftest.py (a strict Route 53 holding example.com).


def batch(r53, zone_id, *changes, comment=None):
    body = {"Changes": list(changes)}
    if comment is not None:
        body["Comment"] = comment
    return r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=body)


def refused(r53, zone_id, code: str, match: str, *changes, comment=None) -> None:
    before = r53.records(zone_id)
    with pytest.raises(r53.exceptions.ClientError) as exc:
        batch(r53, zone_id, *changes, comment=comment)
    assert exc.value.response["Error"]["Code"] == code, exc.value
    assert match in exc.value.response["Error"]["Message"], exc.value.response["Error"]["Message"]
    assert r53.records(zone_id) == before  # all or nothing


def weighted(sid: str, ips: list[str], weight: int = 10, ttl: int = 60, name: str = NAME) -> dict:
    return {"Name": name, "Type": "A", "SetIdentifier": sid, "Weight": weight, "TTL": ttl, "ResourceRecords": [{"Value": ip} for ip in ips]}


def tcp_check(r53, ip: str, ref: str, **extra) -> str:
    config = {"Type": "TCP", "IPAddress": ip, "Port": 443, **extra}
    return r53.create_health_check(CallerReference=ref, HealthCheckConfig=config)["HealthCheck"]["Id"]


# --- one value a set for the policies that answer with one set ---------------------------------------
@pytest.mark.parametrize(("policy", "extra"), [
    ("weighted", {"Weight": 10}), ("latency", {"Region": "us-east-1"}), ("failover", {"Failover": "PRIMARY"}),
    ("geolocation", {"GeoLocation": {"CountryCode": "*"}}),
])
def test_a_weighted_latency_failover_or_geo_set_takes_one_value(r53, zone_id, policy, extra):
    """ResourceRecordSet.Weight/Region: "You can only specify one ResourceRecord per weighted
    (latency) resource record set"."""
    two = {"Name": NAME, "Type": "A", "SetIdentifier": "s", "TTL": 60, **extra,
           "ResourceRecords": [{"Value": "192.0.2.1"}, {"Value": "192.0.2.2"}]}
    refused(r53, zone_id, "InvalidChangeBatch", "can have only one ResourceRecord", change("CREATE", two))
    batch(r53, zone_id, change("CREATE", {**two, "ResourceRecords": [{"Value": "192.0.2.1"}]}))


def test_at_most_100_weighted_sets_of_a_name_and_type(r53, zone_id):
    """ResourceRecordSet.Weight: "a maximum of 100 weighted resource record sets that have the same
    values for the Name and Type elements"."""
    sets = [change("CREATE", weighted(f"w{n}", [f"192.0.2.{n % 250 + 1}"])) for n in range(100)]
    batch(r53, zone_id, *sets)
    refused(r53, zone_id, "InvalidChangeBatch", "101 weighted record sets, at most 100", change("CREATE", weighted("w100", ["192.0.2.9"])))


def test_weighted_sets_share_one_ttl(r53, zone_id):
    """ResourceRecordSet.TTL: "All of the resource record sets in a group of weighted resource
    record sets must have the same value for TTL"."""
    batch(r53, zone_id, change("CREATE", weighted("a", ["192.0.2.1"], ttl=60)))
    refused(r53, zone_id, "InvalidChangeBatch", "must have the same TTL (found 60, 300)", change("CREATE", weighted("b", ["192.0.2.2"], ttl=300)))
    batch(r53, zone_id, change("CREATE", weighted("b", ["192.0.2.2"], ttl=60)))


def test_one_primary_and_one_secondary_failover_set(r53, zone_id):
    """ResourceRecordSet.Failover: "For one resource record set, you specify PRIMARY ...; for the
    other resource record set, you specify SECONDARY"."""
    def failover(sid, role, ip):
        return {"Name": NAME, "Type": "A", "SetIdentifier": sid, "Failover": role, "TTL": 60, "ResourceRecords": [{"Value": ip}]}
    batch(r53, zone_id, change("CREATE", failover("p", "PRIMARY", "192.0.2.1")), change("CREATE", failover("s", "SECONDARY", "192.0.2.2")))
    refused(r53, zone_id, "InvalidChangeBatch", "more than one failover record set with Failover PRIMARY",
            change("CREATE", failover("p2", "PRIMARY", "192.0.2.3")))


def test_one_latency_set_a_region_and_only_known_regions(r53, zone_id):
    """ResourceRecordSet.Region: "You can only create one latency resource record set for each
    Amazon EC2 Region"; its values are the ResourceRecordSetRegion enum of the model."""
    def latency(sid, region, ip):
        return {"Name": NAME, "Type": "A", "SetIdentifier": sid, "Region": region, "TTL": 60, "ResourceRecords": [{"Value": ip}]}
    batch(r53, zone_id, change("CREATE", latency("a", "us-east-1", "192.0.2.1")))
    refused(r53, zone_id, "InvalidChangeBatch", "more than one latency record set for region us-east-1",
            change("CREATE", latency("b", "us-east-1", "192.0.2.2")))
    refused(r53, zone_id, "InvalidInput", "'mars-north-1' is not a valid latency region", change("CREATE", latency("c", "mars-north-1", "192.0.2.3")))
    batch(r53, zone_id, change("CREATE", latency("b", "eu-west-1", "192.0.2.2")))


# --- field limits of the model ------------------------------------------------------------------------
@pytest.mark.parametrize(("field", "bad", "good"), [
    ("SetIdentifier", "s" * 129, "s" * 128),
    ("TTL", 2147483648, 2147483647),
    ("Weight", 256, 255),
])
def test_field_limits_of_the_model(r53, zone_id, field, bad, good):
    """botocore's model: ResourceRecordSetIdentifier max 128, TTL max 2147483647, Weight max 255."""
    record = weighted("x", ["192.0.2.1"])
    refused(r53, zone_id, "InvalidInput", "failed to satisfy constraint", change("CREATE", {**record, field: bad}))
    batch(r53, zone_id, change("CREATE", {**record, field: good}))


def test_a_value_over_4000_characters(r53, zone_id):
    """ResourceRecord.Value: "not to exceed 4,000 characters"."""
    def txt(n):
        return {"Name": NAME, "Type": "TXT", "TTL": 60, "ResourceRecords": [{"Value": '"' + "a" * (n - 2) + '"'}]}
    refused(r53, zone_id, "InvalidInput", "must have length less than or equal to 4000", change("CREATE", txt(4001)))
    batch(r53, zone_id, change("CREATE", txt(4000)))


def test_a_comment_over_256_characters(r53, zone_id):
    """ChangeBatch.Comment is a ResourceDescription: max 256."""
    refused(r53, zone_id, "InvalidInput", "changeBatch.comment", change("CREATE", a_record(None, "192.0.2.1")), comment="c" * 257)
    batch(r53, zone_id, change("CREATE", a_record(None, "192.0.2.1")), comment="c" * 256)


def test_a_batch_over_32000_characters_of_values_upsert_counting_twice(r53, zone_id):
    """Route 53 quotas: 32,000 characters in a ChangeResourceRecordSets request (UPSERT counts twice)."""
    def txt(sid, n):
        return {"Name": f"{sid}.example.com", "Type": "TXT", "TTL": 60, "ResourceRecords": [{"Value": '"' + "a" * (n - 2) + '"'}]}
    eight = [change("CREATE", txt(f"t{i}", 4000)) for i in range(8)]  # 32,000
    batch(r53, zone_id, *eight)
    refused(r53, zone_id, "InvalidChangeBatch", "Number of characters limit of 32000 exceeded",
            *[change("UPSERT", txt(f"u{i}", 4000)) for i in range(4)], change("CREATE", txt("v", 10)))


def test_labels_over_63_and_names_over_255_characters(r53, zone_id):
    long_label = "a" * 64 + ".example.com"
    refused(r53, zone_id, "InvalidChangeBatch", "DomainLabelTooLong", change("CREATE", a_record(None, "192.0.2.1", name=long_label)))
    long_name = ".".join(["a" * 60] * 4) + ".example.com"  # 256 + characters
    refused(r53, zone_id, "InvalidChangeBatch", "DomainNameTooLong", change("CREATE", a_record(None, "192.0.2.1", name=long_name)))
    batch(r53, zone_id, change("CREATE", a_record(None, "192.0.2.1", name="a" * 63 + ".example.com")))


# --- names and types ------------------------------------------------------------------------------------
def test_wildcard_ns_is_refused(r53, zone_id):
    """ResourceRecordSet.Name: "You can't use the * wildcard for resource records sets that have a type of NS"."""
    ns = {"Name": "*.example.com", "Type": "NS", "TTL": 60, "ResourceRecords": [{"Value": "ns1.example.net."}]}
    refused(r53, zone_id, "InvalidChangeBatch", "NS records cannot be wildcards", change("CREATE", ns))
    batch(r53, zone_id, change("CREATE", {**ns, "Name": "sub.example.com"}))


def test_wildcards_are_listed_as_octal_052(r53, zone_id):
    batch(r53, zone_id, change("CREATE", a_record(None, "192.0.2.1", name="*.example.com")))
    names = [r["Name"] for r in r53.list_resource_record_sets(HostedZoneId=zone_id)["ResourceRecordSets"]]
    assert "\\052.example.com." in names and "*.example.com." not in names


@pytest.mark.parametrize("rtype", ["CNAME", "NS"])
def test_multivalue_cname_and_ns_are_refused(r53, zone_id, rtype):
    """Developer guide, multivalue answer records: any record type except NS and CNAME."""
    record = {"Name": NAME, "Type": rtype, "SetIdentifier": "m", "MultiValueAnswer": True, "TTL": 60,
              "ResourceRecords": [{"Value": "target.example.net."}]}
    refused(r53, zone_id, "InvalidChangeBatch", f"multivalue answer routing is not supported for {rtype} records", change("CREATE", record))


def test_cname_with_two_values_and_unknown_actions_are_refused(r53, zone_id):
    """ResourceRecord.Value: "You can specify more than one value for all record types except CNAME and SOA"."""
    cname = {"Name": NAME, "Type": "CNAME", "TTL": 60, "ResourceRecords": [{"Value": "a.example.net."}, {"Value": "b.example.net."}]}
    refused(r53, zone_id, "InvalidChangeBatch", "has more than one value", change("CREATE", cname))
    refused(r53, zone_id, "InvalidInput", "Unknown action 'MERGE'", change("MERGE", a_record(None, "192.0.2.1")))
    batch(r53, zone_id, change("CREATE", {**cname, "ResourceRecords": cname["ResourceRecords"][:1]}))


def test_the_apex_soa_and_ns_cannot_be_deleted(r53, zone_id):
    for rtype, message in (("SOA", "exactly one SOA record"), ("NS", "at least one NS record for the zone itself")):
        apex = next(r for r in r53.records(zone_id) if r["Type"] == rtype)
        refused(r53, zone_id, "InvalidChangeBatch", message, change("DELETE", apex))


def test_at_most_10000_records_in_a_zone(r53, zone_id, monkeypatch):
    """Route 53 quotas: 10,000 records per hosted zone (lowered here to keep the test fast)."""
    import edge_origin.testing.route53 as strict

    monkeypatch.setattr(strict, "MAX_RECORDS_PER_ZONE", 4)  # NS + SOA + 2
    batch(r53, zone_id, change("CREATE", a_record(None, "192.0.2.1", name="a.example.com")),
          change("CREATE", a_record(None, "192.0.2.2", name="b.example.com")))
    refused(r53, zone_id, "InvalidChangeBatch", "the limit is 4 records per hosted zone",
            change("CREATE", a_record(None, "192.0.2.3", name="c.example.com")))


# --- aliases ------------------------------------------------------------------------------------------
def _alias(zone_id: str, target: str, alias_zone: str) -> dict:
    return {"Name": NAME, "Type": "A", "AliasTarget": {"DNSName": target, "HostedZoneId": alias_zone, "EvaluateTargetHealth": False}}


def test_an_alias_to_cloudfront_in_a_private_zone_is_refused(r53):
    """AliasTarget.HostedZoneId: "Alias resource record sets for CloudFront can't be created in a private zone"."""
    private = r53.create_hosted_zone(Name=ZONE, CallerReference="p", VPC={"VPCRegion": "us-east-1", "VPCId": "vpc-1"})["HostedZone"]
    assert private["Config"]["PrivateZone"] is True
    zone_id = private["Id"].split("/")[-1]
    refused(r53, zone_id, "InvalidChangeBatch", "alias to a CloudFront distribution cannot be created in a private hosted zone",
            change("CREATE", _alias(zone_id, "d111111abcdef8.cloudfront.net", CLOUDFRONT_ZONE_ID)))
    public = r53.create_hosted_zone(Name=ZONE, CallerReference="q")["HostedZone"]
    assert public["Config"]["PrivateZone"] is False
    batch(r53, public["Id"].split("/")[-1], change("CREATE", _alias("", "d111111abcdef8.cloudfront.net", CLOUDFRONT_ZONE_ID)))


def test_an_alias_to_a_missing_record_of_the_zone_is_refused(r53, zone_id):
    refused(r53, zone_id, "InvalidChangeBatch", "alias target name does not lie within the target zone or does not exist",
            change("CREATE", _alias(zone_id, "www.example.com", zone_id)))
    batch(r53, zone_id, change("CREATE", a_record(None, "192.0.2.1", name="www.example.com")),
          change("CREATE", _alias(zone_id, "www.example.com", zone_id)))


# --- health checks ------------------------------------------------------------------------------------
@pytest.mark.parametrize("ip", ["10.0.0.1", "127.0.0.1", "192.168.1.1", "169.254.169.254", "::1", "fd00::1"])
def test_health_checks_of_private_or_loopback_addresses_are_refused(r53, ip):
    """HealthCheckConfig.IPAddress: "Route 53 can't check the health of endpoints for which the IP
    address is in local, private, non-routable, or multicast ranges"."""
    with pytest.raises(r53.exceptions.InvalidInput, match="can't check the health of local, private"):
        tcp_check(r53, ip, "r")
    assert tcp_check(r53, "198.51.100.1", "ok")


def test_a_reused_caller_reference_of_a_deleted_check_is_refused(r53):
    """CreateHealthCheck CallerReference: "the same CallerReference as a deleted health check,
    regardless of the settings, Route 53 returns a HealthCheckAlreadyExists error"."""
    hc = tcp_check(r53, "198.51.100.1", "ref-1")
    assert tcp_check(r53, "198.51.100.1", "ref-1") == hc  # same settings, check exists: the same one
    r53.delete_health_check(HealthCheckId=hc)
    with pytest.raises(r53.exceptions.HealthCheckAlreadyExists, match="was deleted"):
        tcp_check(r53, "198.51.100.1", "ref-1")


@pytest.mark.parametrize("member", [{"Port": 443}, {"IPAddress": "198.51.100.1"}])
def test_calculated_checks_take_no_port_or_address(r53, member):
    """HealthCheckConfig.Port: "Don't specify a value for Port when you specify a value for Type of
    CLOUDWATCH_METRIC or CALCULATED"; IPAddress: "omit IPAddress"."""
    child = tcp_check(r53, "198.51.100.1", "c")
    config = {"Type": "CALCULATED", "ChildHealthChecks": [child], "HealthThreshold": 1}
    with pytest.raises(r53.exceptions.InvalidInput, match="must not be specified for a CALCULATED health check"):
        r53.create_health_check(CallerReference="calc-bad", HealthCheckConfig={**config, **member})
    assert r53.create_health_check(CallerReference="calc", HealthCheckConfig=config)["HealthCheck"]["Id"]


@pytest.mark.parametrize(("field", "bad", "good"), [("FailureThreshold", 11, 10), ("Port", 65536, 65535)])
def test_failure_threshold_and_port_ranges(r53, field, bad, good):
    """HealthCheckConfig.FailureThreshold 1..10; Port 1..65535."""
    with pytest.raises(r53.exceptions.ClientError) as exc:
        tcp_check(r53, "198.51.100.1", f"bad-{field}", **{field: bad})
    assert exc.value.response["Error"]["Code"] == "InvalidInput" and field in exc.value.response["Error"]["Message"]
    assert tcp_check(r53, "198.51.100.1", f"good-{field}", **{field: good})


def test_failure_threshold_below_1_is_botocores_own_refusal(r53):
    import botocore.exceptions

    with pytest.raises(botocore.exceptions.ParamValidationError, match="FailureThreshold, value: 0, valid min value: 1"):
        tcp_check(r53, "198.51.100.1", "zero", FailureThreshold=0)
    assert tcp_check(r53, "198.51.100.1", "one", FailureThreshold=1)


# --- health as Route 53 computes it ----------------------------------------------------------------------
def _status(r53, hc) -> list[str]:
    return [o["StatusReport"]["Status"] for o in r53.get_health_check_status(HealthCheckId=hc)["HealthCheckObservations"]]


@pytest.mark.parametrize(("share", "healthy"), [(0.0, False), (0.125, False), (0.25, True), (1.0, True)])
def test_health_follows_the_checker_share_above_18_percent(r53, share, healthy):
    hc = tcp_check(r53, "198.51.100.1", "s")
    r53.set_health(hc, share)
    assert r53.is_healthy(hc) is healthy
    reports = _status(r53, hc)
    assert sum(s.startswith("Success") for s in reports) == round(share * 8)
    from edge_origin.live.enact import health_state

    assert health_state(r53, hc) == ("healthy" if healthy else "unhealthy")  # enact reads it the same way


def test_disabled_checks_are_healthy_and_inverted_ones_inverted(r53):
    disabled = tcp_check(r53, "198.51.100.1", "d", Disabled=True)
    r53.set_health(disabled, False)
    assert r53.is_healthy(disabled) and all(s.startswith("Success") for s in _status(r53, disabled))
    inverted = tcp_check(r53, "198.51.100.2", "i", Inverted=True)
    r53.set_health(inverted, False)
    assert r53.is_healthy(inverted)
    r53.set_health(inverted, True)
    assert not r53.is_healthy(inverted) and not any(s.startswith("Success") for s in _status(r53, inverted))


def test_calculated_checks_use_the_health_threshold(r53):
    children = [tcp_check(r53, f"198.51.100.{n}", f"c{n}") for n in (1, 2, 3)]
    calc = r53.create_health_check(CallerReference="calc", HealthCheckConfig={
        "Type": "CALCULATED", "ChildHealthChecks": children, "HealthThreshold": 2})["HealthCheck"]["Id"]
    assert r53.is_healthy(calc)
    r53.set_health(children[0], False)
    assert r53.is_healthy(calc)
    r53.set_health(children[1], False)
    assert not r53.is_healthy(calc)


def test_set_health_share_out_of_range(r53):
    hc = tcp_check(r53, "198.51.100.1", "x")
    with pytest.raises(ValueError, match=r"healthy: 1.5 is out of range 0.0..1.0"):
        r53.set_health(hc, 1.5)


# --- edges found by mutants of testing/route53.py -------------------------------------------------------
def test_changes_carry_their_submission_time(r53, zone_id):
    from datetime import datetime

    info = batch(r53, zone_id, change("CREATE", a_record(None, "192.0.2.1")))["ChangeInfo"]
    assert isinstance(info["SubmittedAt"], datetime) and info["SubmittedAt"].tzinfo is not None
    assert isinstance(r53.get_change(Id=info["Id"])["ChangeInfo"]["SubmittedAt"], datetime)


def test_list_hosted_zones_validates_counts_and_pages(r53):
    import botocore.exceptions

    ids = sorted(r53.create_hosted_zone(Name=f"z{n}.example.com", CallerReference=f"z{n}")["HostedZone"]["Id"].split("/")[-1]
                 for n in range(3))
    with pytest.raises(botocore.exceptions.ParamValidationError):
        r53.list_hosted_zones(MaxItems=2)  # the model wants a string
    first = r53.list_hosted_zones(MaxItems="2")
    assert r53.calls["ListHostedZones"] == 2
    assert first["IsTruncated"] and first["NextMarker"] == ids[2]
    rest = r53.list_hosted_zones(Marker=first["NextMarker"], MaxItems="2")
    assert [z["Id"].split("/")[-1] for z in first["HostedZones"] + rest["HostedZones"]] == ids
    assert not rest["IsTruncated"] and "NextMarker" not in rest


def test_list_hosted_zones_by_name_starts_at_the_name_and_pages(r53):
    for name in ("a.com", "b.com", "c.com"):
        r53.create_hosted_zone(Name=name, CallerReference=name)
    page = r53.list_hosted_zones_by_name(DNSName="b.com", MaxItems="1")
    assert [z["Name"] for z in page["HostedZones"]] == ["b.com."]
    assert page["IsTruncated"] and page["NextDNSName"] == "c.com." and page["NextHostedZoneId"]


def test_create_of_an_existing_set_is_one_message(r53, zone_id):
    batch(r53, zone_id, change("CREATE", a_record(None, "192.0.2.1")))
    with pytest.raises(r53.exceptions.InvalidChangeBatch) as exc:
        batch(r53, zone_id, change("CREATE", a_record(None, "192.0.2.2")))
    assert exc.value.response["Error"]["Message"] == f"[Tried to create resource record set [name='{NAME}', type='A'] but it already exists]"


def test_new_health_checks_are_version_1(r53):
    hc = tcp_check(r53, "198.51.100.1", "v")
    assert r53.get_health_check(HealthCheckId=hc)["HealthCheck"]["HealthCheckVersion"] == 1


def test_a_health_check_in_use_can_be_deleted_like_an_unused_one(r53, zone_id):
    """DeleteHealthCheck: "Amazon Route 53 does not prevent you from deleting a health check even if
    the health check is associated with one or more resource record sets"."""
    used, unused = tcp_check(r53, "198.51.100.1", "used"), tcp_check(r53, "198.51.100.2", "unused")
    batch(r53, zone_id, change("CREATE", a_record("m", "192.0.2.1", multivalue=True, hc=used)))
    kept = tcp_check(r53, "198.51.100.3", "kept")
    assert r53.delete_health_check(HealthCheckId=used)["ResponseMetadata"]["HTTPStatusCode"] == 200
    r53.delete_health_check(HealthCheckId=unused)
    assert [hc["Id"] for hc in r53.list_health_checks()["HealthChecks"]] == [kept]
    assert [r.get("HealthCheckId") for r in r53.records(zone_id) if r["Type"] == "A"] == [used]  # the record still names it


def test_list_hosted_zones_by_name_resumes_at_the_next_zone_itself(r53):
    for name in ("a.com", "b.com", "c.com"):
        r53.create_hosted_zone(Name=name, CallerReference=name)
    first = r53.list_hosted_zones_by_name(DNSName="a.com", MaxItems="1")
    second = r53.list_hosted_zones_by_name(DNSName=first["NextDNSName"], HostedZoneId=first["NextHostedZoneId"], MaxItems="1")
    assert [z["Name"] for z in second["HostedZones"]] == ["b.com."]
