"""StrictRoute53's refusals at their bounds, both sides: the last accepted value and the first
refused one, with the error code and the message phrase (the Route 53 API reference, i.e. the
documentation strings of botocore's route53 service-2.json, and the Route 53 quotas, cited per test)."""

from __future__ import annotations

from typing import Any

import botocore.exceptions
import pytest

from edge_origin.testing.route53 import StrictRoute53
from tests.live_write.conftest import a_record, change

ZONE = "example.com."
NAME = "origin.example.com."


# r53 and zone_id: the fixtures of tests/live_write/conftest.py (a strict Route 53 holding example.com).


def apply(r53: StrictRoute53, zone_id: str, *changes: dict[str, Any]) -> dict[str, Any]:
    return r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": list(changes)})


def refusal(r53: StrictRoute53, zone_id: str, *changes: dict[str, Any]) -> tuple[str, str]:
    """(code, message) of a refused batch; the zone is left as it was."""
    before = r53.records(zone_id)
    with pytest.raises(botocore.exceptions.ClientError) as exc:
        apply(r53, zone_id, *changes)
    assert r53.records(zone_id) == before
    return exc.value.response["Error"]["Code"], exc.value.response["Error"]["Message"]


def txt(name: str, length: int) -> dict[str, Any]:
    """A TXT set whose one quoted value is ``length`` characters long."""
    return {"Name": name, "Type": "TXT", "TTL": 60, "ResourceRecords": [{"Value": '"' + "a" * (length - 2) + '"'}]}


def alias(name: str, target: str, hosted_zone_id: str = "Z26RNL4JYFTOTI", **extra: Any) -> dict[str, Any]:
    return {"Name": name, "Type": "A", **extra,
            "AliasTarget": {"DNSName": target, "HostedZoneId": hosted_zone_id, "EvaluateTargetHealth": False}}


def single(name: str, ip: str = "192.0.2.1") -> dict[str, Any]:
    return a_record(None, ip, name=name)


# --- quotas of a batch -----------------------------------------------------------------------------
def test_upsert_values_count_twice_towards_1000(r53, zone_id):
    """Quotas: "Maximum number of ResourceRecord elements in a ChangeResourceRecordSets request: 1,000
    ... if you're upserting, each ResourceRecord counts twice"."""
    upserts = [change("UPSERT", single(f"u{n}.example.com")) for n in range(501)]
    assert refusal(r53, zone_id, *upserts) == ("InvalidChangeBatch", "[Number of records limit of 1000 exceeded.]")
    apply(r53, zone_id, *upserts[:500])
    assert len(r53.records(zone_id)) == 502


def test_an_alias_counts_as_one_value_towards_1000(r53, zone_id):
    values = [change("CREATE", single(f"v{n}.example.com")) for n in range(999)]
    aliases = [change("CREATE", alias(f"a{n}.example.com", "lb.elb.amazonaws.com")) for n in range(2)]
    assert refusal(r53, zone_id, *values, *aliases) == ("InvalidChangeBatch", "[Number of records limit of 1000 exceeded.]")
    apply(r53, zone_id, *values, aliases[0])


def test_upsert_characters_count_twice_towards_32000(r53, zone_id):
    """Quotas: 32,000 characters in a ChangeResourceRecordSets request; an UPSERT counts twice."""
    four = [change("UPSERT", txt(f"t{n}.example.com", 4000)) for n in range(4)]
    one_more = change("CREATE", txt("x.example.com", 2))
    assert refusal(r53, zone_id, *four, one_more) == (
        "InvalidChangeBatch", "[Number of characters limit of 32000 exceeded: 32002.]")
    apply(r53, zone_id, *four)  # 4 x 4,000 x 2 = 32,000


# --- where a record may live -------------------------------------------------------------------------
def test_the_apex_is_in_the_zone_a_name_merely_ending_like_it_is_not(r53, zone_id):
    code, message = refusal(r53, zone_id, change("CREATE", single("badexample.com")))
    assert (code, message) == ("InvalidChangeBatch", "[RRSet with DNS name badexample.com. is not permitted in zone example.com.]")
    apply(r53, zone_id, change("CREATE", single("example.com")), change("CREATE", single("Deep.Sub.Example.COM.")))


def test_a_name_of_255_characters_is_accepted_256_refused(r53, zone_id):
    """Developer guide, DNS domain name format: "The total length of a domain name cannot exceed 255
    bytes, including the dots" (counted here with the trailing dot)."""
    def name_of(length: int) -> str:
        head = length - len("." + ZONE)  # one label of up to 63, the rest as 50-character labels
        labels = []
        while head > 63:
            labels.append("b" * 50)
            head -= 51
        return ".".join(["a" * head, *labels]) + "." + ZONE

    assert len(name_of(255)) == 255 and len(name_of(256)) == 256
    code, message = refusal(r53, zone_id, change("CREATE", single(name_of(256))))
    assert code == "InvalidChangeBatch" and "DomainNameTooLong (Domain name is too long)" in message
    apply(r53, zone_id, change("CREATE", single(name_of(255))))


# --- exactly one of alias or values --------------------------------------------------------------------
VALUES = {"TTL": 60, "ResourceRecords": [{"Value": "192.0.2.1"}]}
ALIAS = {"AliasTarget": {"DNSName": "lb.elb.amazonaws.com", "HostedZoneId": "Z26RNL4JYFTOTI", "EvaluateTargetHealth": False}}


@pytest.mark.parametrize(("fields", "found"), [
    ({}, "none"),
    ({"TTL": 60}, "none"),
    ({"ResourceRecords": [{"Value": "192.0.2.1"}]}, "none"),
    ({**ALIAS, "TTL": 60}, "both"),
    ({**ALIAS, "ResourceRecords": [{"Value": "192.0.2.1"}]}, "both"),
    ({**ALIAS, **VALUES}, "both"),
], ids=["nothing", "ttl-only", "values-only", "alias-ttl", "alias-values", "alias-ttl-values"])
def test_a_set_is_an_alias_or_has_a_ttl_and_values(r53, zone_id, fields, found):
    """ResourceRecordSet.AliasTarget / TTL / ResourceRecords: an alias omits TTL and ResourceRecords;
    a non-alias set needs both."""
    code, message = refusal(r53, zone_id, change("CREATE", {"Name": NAME, "Type": "A", **fields}))
    assert code == "InvalidInput"
    assert f"Expected exactly one of [AliasTarget, all of [TTL, and ResourceRecords], or TrafficPolicyInstanceId], but found {found}" in message


@pytest.mark.parametrize("fields", [VALUES, ALIAS], ids=["values", "alias"])
def test_an_alias_alone_or_a_ttl_with_values_is_accepted(r53, zone_id, fields):
    apply(r53, zone_id, change("CREATE", {"Name": NAME, "Type": "A", **fields}))
    assert [r["Name"] for r in r53.records(zone_id) if r["Type"] == "A"] == [NAME]


# --- routing fields and the set identifier ---------------------------------------------------------------
def test_a_set_identifier_needs_a_routing_policy_multivalue_false_is_none(r53, zone_id):
    """ResourceRecordSet.SetIdentifier: "Resource record sets that have a routing policy other than
    simple" carry one; MultiValueAnswer false is no routing policy."""
    record = {"Name": NAME, "Type": "A", "SetIdentifier": "s", "MultiValueAnswer": False, **VALUES}
    code, message = refusal(r53, zone_id, change("CREATE", record))
    assert code == "InvalidInput"
    assert "Expected exactly one of [Weight, Region, Failover, GeoLocation, MultiValueAnswer, GeoProximityLocation, or CidrRoutingConfig], but found none" in message
    apply(r53, zone_id, change("CREATE", {**record, "MultiValueAnswer": True}))


def test_a_simple_set_may_say_multivalue_false(r53, zone_id):
    apply(r53, zone_id, change("CREATE", {"Name": NAME, "Type": "A", "MultiValueAnswer": False, **VALUES}))
    [record] = [r for r in r53.records(zone_id) if r["Type"] == "A"]
    assert "MultiValueAnswer" not in record and "SetIdentifier" not in record


def test_weight_0_is_a_routing_policy_that_needs_a_set_identifier(r53, zone_id):
    """ResourceRecordSet.Weight: 0..255 (a weight of 0 is a weighted set that gets no traffic)."""
    record = {"Name": NAME, "Type": "A", "Weight": 0, **VALUES}
    code, message = refusal(r53, zone_id, change("CREATE", record))
    assert code == "InvalidInput" and "Missing field 'SetIdentifier'" in message
    apply(r53, zone_id, change("CREATE", {**record, "SetIdentifier": "w0"}))
    assert r53.records(zone_id)[-1]["Weight"] == 0


def test_a_multivalue_answer_set_cannot_be_an_alias(r53, zone_id):
    """ResourceRecordSet.MultiValueAnswer: "You can't create multivalue answer alias records"."""
    code, message = refusal(r53, zone_id, change("CREATE", alias(NAME, "lb.elb.amazonaws.com", SetIdentifier="m", MultiValueAnswer=True)))
    assert code == "InvalidInput" and "a multivalue answer record set cannot be an alias" in message
    apply(r53, zone_id, change("CREATE", alias(NAME, "lb.elb.amazonaws.com", SetIdentifier="w", Weight=1)))


@pytest.mark.parametrize("rtype", ["AAAA", "TXT", "MX"])
def test_multivalue_answer_takes_other_types(r53, zone_id, rtype):
    """Developer guide, multivalue answer records, Record type: "Select any value except NS or CNAME"."""
    value = {"AAAA": "2001:db8::1", "TXT": '"v"', "MX": "10 mail.example.net."}[rtype]
    apply(r53, zone_id, change("CREATE", {"Name": NAME, "Type": rtype, "SetIdentifier": "m", "MultiValueAnswer": True,
                                          "TTL": 60, "ResourceRecords": [{"Value": value}]}))
    assert [r["Type"] for r in r53.records(zone_id) if r["Name"] == NAME] == [rtype]


# --- health checks named by a record set ----------------------------------------------------------------
def test_an_unknown_health_check_is_refused_on_create_and_upsert_not_on_delete(r53, zone_id):
    """ResourceRecordSet.HealthCheckId names an existing health check; a DELETE only has to match
    the live set (ResourceRecord.Value: "In the case of a DELETE action, if the current value does
    not match the actual value, an error is returned")."""
    record = a_record("m", "192.0.2.1", multivalue=True, hc="no-such-check")
    for action in ("CREATE", "UPSERT"):
        assert refusal(r53, zone_id, change(action, record)) == (
            "NoSuchHealthCheck", "A health check with id no-such-check does not exist.")
    code, message = refusal(r53, zone_id, change("DELETE", record))
    assert code == "InvalidChangeBatch" and "but it was not found" in message


# --- values by type ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("rtype", "bad", "good", "phrase"), [
    ("A", "2001:db8::1", "192.0.2.1", "ARRDATAIllegalIPv4Address"),
    ("AAAA", "192.0.2.1", "2001:db8::1", "AAAARRDATAIllegalIPv6Address"),
    ("TXT", '"', '""', "Value should be enclosed in quotation marks"),
    ("TXT", 'v"', '"v"', "Value should be enclosed in quotation marks"),
    ("TXT", '"v', '"v"', "Value should be enclosed in quotation marks"),
    ("SPF", "v=spf1 -all", '"v=spf1 -all"', "Value should be enclosed in quotation marks"),
])
def test_values_must_suit_their_type(r53, zone_id, rtype, bad, good, phrase):
    """Developer guide, supported DNS record types: an A value is an IPv4 address, AAAA an IPv6
    address, a TXT/SPF value is enclosed in quotation marks."""
    record = {"Name": NAME, "Type": rtype, "TTL": 60, "ResourceRecords": [{"Value": bad}]}
    code, message = refusal(r53, zone_id, change("CREATE", record))
    assert code == "InvalidChangeBatch" and phrase in message and bad in message
    apply(r53, zone_id, change("CREATE", {**record, "ResourceRecords": [{"Value": good}]}))


def test_one_bad_value_among_good_ones_is_refused(r53, zone_id):
    record = {"Name": NAME, "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": "192.0.2.1"}, {"Value": "192.0.2.256"}]}
    code, message = refusal(r53, zone_id, change("CREATE", record))
    assert code == "InvalidChangeBatch" and "encountered with '192.0.2.256'" in message


def test_other_types_take_several_values_a_cname_one(r53, zone_id):
    """ResourceRecord.Value: "You can specify more than one value for all record types except CNAME and SOA"."""
    two = [{"Value": "a.example.net."}, {"Value": "b.example.net."}]
    apply(r53, zone_id, change("CREATE", {"Name": "ns.example.com", "Type": "NS", "TTL": 60, "ResourceRecords": two}))
    code, message = refusal(r53, zone_id, change("CREATE", {"Name": NAME, "Type": "CNAME", "TTL": 60, "ResourceRecords": two}))
    assert (code, message) == ("InvalidChangeBatch", f"[RRSet of type CNAME with DNS name {NAME} has more than one value]")


def test_the_soa_takes_one_value(r53, zone_id):
    """ResourceRecord.Value: "... for all record types except CNAME and SOA" (the apex SOA, upserted)."""
    soa = next(r for r in r53.records(zone_id) if r["Type"] == "SOA")
    serial_2 = soa["ResourceRecords"][0]["Value"].replace(" 1 7200", " 2 7200")
    code, message = refusal(r53, zone_id, change("UPSERT", {**soa, "ResourceRecords": [*soa["ResourceRecords"], {"Value": serial_2}]}))
    assert (code, message) == ("InvalidChangeBatch", f"[RRSet of type SOA with DNS name {ZONE} has more than one value]")
    apply(r53, zone_id, change("UPSERT", {**soa, "ResourceRecords": [{"Value": serial_2}]}))


# --- field limits of the model ---------------------------------------------------------------------------
@pytest.mark.parametrize(("field", "bad", "shown"), [
    ("SetIdentifier", "s" * 129, "Value length 129 at 'SetIdentifier' failed to satisfy constraint: Member must have length less than or equal to 128"),
    ("TTL", 2147483648, "Value 2147483648 at 'TTL' failed to satisfy constraint: Member must have value less than or equal to 2147483647"),
    ("Weight", 256, "Value 256 at 'Weight' failed to satisfy constraint: Member must have value less than or equal to 255"),
])
def test_field_limit_messages(r53, zone_id, field, bad, shown):
    """botocore's model: ResourceRecordSetIdentifier max 128, TTL max 2147483647, ResourceRecordSetWeight max 255."""
    record = a_record("w", "192.0.2.1", weight=1)
    assert refusal(r53, zone_id, change("CREATE", {**record, field: bad})) == ("InvalidInput", "1 validation error detected: " + shown)


@pytest.mark.parametrize(("field", "low"), [("SetIdentifier", ""), ("TTL", -1), ("Weight", -1)])
def test_field_minimums_are_botocores(r53, zone_id, field, low):
    """The model's minimums (SetIdentifier 1, TTL 0, Weight 0) are checked by botocore's validator."""
    record = a_record("w", "192.0.2.1", weight=1)
    with pytest.raises(botocore.exceptions.ParamValidationError):
        apply(r53, zone_id, change("CREATE", {**record, field: low}))
    apply(r53, zone_id, change("CREATE", {**record, "SetIdentifier": "w", "TTL": 0, "Weight": 0}))


def test_a_value_of_4001_characters_message(r53, zone_id):
    """RData: max 4,000 characters."""
    assert refusal(r53, zone_id, change("CREATE", txt(NAME, 4001))) == ("InvalidInput", (
        "1 validation error detected: a value of 4001 characters at 'ResourceRecords' failed to satisfy constraint: "
        "Member must have length less than or equal to 4000"))


def test_a_label_of_64_characters_anywhere_in_the_name(r53, zone_id):
    """Developer guide, DNS domain name format: "Each label can be up to 63 bytes long"."""
    code, message = refusal(r53, zone_id, change("CREATE", single("a." + "b" * 64 + ".example.com")))
    assert code == "InvalidChangeBatch" and "DomainLabelTooLong (Domain label is too long)" in message
    apply(r53, zone_id, change("CREATE", single("a." + "b" * 63 + ".example.com")))


# --- one name, one type: routing policies ------------------------------------------------------------------
def test_a_record_beside_a_cname_is_refused(r53, zone_id):
    """RFC 1034 3.6.2 as Route 53 applies it: a CNAME shares its name with no other record."""
    apply(r53, zone_id, change("CREATE", {"Name": NAME, "Type": "CNAME", "TTL": 60, "ResourceRecords": [{"Value": "x.example.net."}]}))
    code, message = refusal(r53, zone_id, change("CREATE", txt(NAME, 3)))
    assert code == "InvalidChangeBatch"
    assert f"RRSet of type TXT with DNS name {NAME} is not permitted because a conflicting RRSet of type CNAME" in message
    apply(r53, zone_id, change("CREATE", txt("other.example.com", 3)))


def test_one_secondary_failover_set(r53, zone_id):
    """ResourceRecordSet.Failover: one PRIMARY and one SECONDARY set of a name and type."""
    def failover(sid: str, role: str, ip: str) -> dict[str, Any]:
        return {"Name": NAME, "Type": "A", "SetIdentifier": sid, "Failover": role, "TTL": 60, "ResourceRecords": [{"Value": ip}]}

    apply(r53, zone_id, change("CREATE", failover("s", "SECONDARY", "192.0.2.1")))
    code, message = refusal(r53, zone_id, change("CREATE", failover("s2", "SECONDARY", "192.0.2.2")))
    assert code == "InvalidChangeBatch" and "more than one failover record set with Failover SECONDARY" in message
    apply(r53, zone_id, change("CREATE", failover("p", "PRIMARY", "192.0.2.2")))


@pytest.mark.parametrize(("policy", "fields"), [
    ("latency", {"Region": "us-east-1"}), ("failover", {"Failover": "PRIMARY"}),
    ("geolocation", {"GeoLocation": {"CountryCode": "DE"}}), ("IP-based", {"CidrRoutingConfig": {"CollectionId": "c", "LocationName": "l"}}),
])
def test_a_set_of_another_policy_beside_weighted_is_refused(r53, zone_id, policy, fields):
    """All record sets of one name and type share one routing policy."""
    apply(r53, zone_id, change("CREATE", a_record("w", "192.0.2.1", weight=1)))
    other = {"Name": NAME, "Type": "A", "SetIdentifier": "o", **fields, "TTL": 60, "ResourceRecords": [{"Value": "192.0.2.2"}]}
    code, message = refusal(r53, zone_id, change("CREATE", other))
    assert (code, message) == ("InvalidChangeBatch", f'[RRSet with DNS name {NAME}, type A, SetIdentifier "o" cannot be created '
                                                     f"because a non {policy} rrset exists with the same name and type.]")
    apply(r53, zone_id, change("CREATE", {**other, "Name": "other.example.com"}))


def test_one_of_two_fresh_sets_of_different_policies_is_named(r53, zone_id):
    """Two new sets of one name with different policies in one batch: the later one in listing
    order is the offender (judged against the first)."""
    code, message = refusal(r53, zone_id, change("CREATE", a_record("b", "192.0.2.2", weight=1)),
                            change("CREATE", a_record("a", "192.0.2.1", multivalue=True)))
    assert (code, message) == ("InvalidChangeBatch", f'[RRSet with DNS name {NAME}, type A, SetIdentifier "b" cannot be created '
                                                     "as a non-weighted set exists with the same name and type.]")


def test_two_fresh_simple_sets_cannot_share_a_name_and_type(r53, zone_id):
    """A simple record set stands alone at its name and type (one set, many values)."""
    code, message = refusal(r53, zone_id, change("CREATE", a_record("w", "192.0.2.2", weight=1)),
                            change("CREATE", single(NAME)))
    assert code == "InvalidChangeBatch"
    assert f"RRSet with DNS name {NAME}, type A cannot be created as other RRSets exist with the same name and type." in message


def test_same_policy_sets_of_one_name_are_accepted_across_types(r53, zone_id):
    apply(r53, zone_id, change("CREATE", a_record("w1", "192.0.2.1", weight=1)), change("CREATE", a_record("w2", "192.0.2.2", weight=2)),
          change("CREATE", {"Name": NAME, "Type": "AAAA", "TTL": 60, "ResourceRecords": [{"Value": "2001:db8::1"}]}))
    assert sorted((r["Type"], r.get("SetIdentifier")) for r in r53.records(zone_id) if r["Name"] == NAME) == [
        ("A", "w1"), ("A", "w2"), ("AAAA", None)]


# --- the zone's quota ---------------------------------------------------------------------------------------
def test_a_zone_over_its_quota_may_still_change_without_growing(r53, zone_id, monkeypatch):
    """Quotas: 10,000 records a hosted zone; the quota refuses growth, not a batch that keeps the count."""
    import edge_origin.testing.route53 as strict

    apply(r53, zone_id, change("CREATE", single("a.example.com")), change("CREATE", single("b.example.com")))
    monkeypatch.setattr(strict, "MAX_RECORDS_PER_ZONE", 3)  # the zone holds 4 (NS, SOA, a, b)
    apply(r53, zone_id, change("UPSERT", single("a.example.com", "192.0.2.9")))
    code, message = refusal(r53, zone_id, change("CREATE", single("c.example.com")))
    assert code == "InvalidChangeBatch" and "would hold 5 records: the limit is 3 records per hosted zone" in message


# --- aliases -----------------------------------------------------------------------------------------
def test_an_alias_into_its_own_zone_needs_a_target_of_its_type(r53, zone_id):
    """AliasTarget.DNSName: another record in the same hosted zone must exist (name and type)."""
    apply(r53, zone_id, change("CREATE", {"Name": "www.example.com", "Type": "AAAA", "TTL": 60, "ResourceRecords": [{"Value": "2001:db8::1"}]}))
    code, message = refusal(r53, zone_id, change("CREATE", alias(NAME, "www.example.com", f"/hostedzone/{zone_id}")))
    assert code == "InvalidChangeBatch" and f"Tried to create an alias that targets www.example.com., type A in zone {zone_id}" in message
    apply(r53, zone_id, change("CREATE", single("www.example.com")), change("CREATE", alias(NAME, "WWW.example.com", f"/hostedzone/{zone_id}")))


def test_an_alias_into_another_zone_is_not_looked_up(r53, zone_id):
    other = r53.create_hosted_zone(Name="example.org", CallerReference="o")["HostedZone"]["Id"].split("/")[-1]
    apply(r53, zone_id, change("CREATE", alias(NAME, "missing.example.org", other)))
    assert r53.records(zone_id)[-1]["AliasTarget"]["DNSName"] == "missing.example.org."


# --- health checks ----------------------------------------------------------------------------------------
ENDPOINT_TYPES = ["HTTP", "HTTPS", "HTTP_STR_MATCH", "HTTPS_STR_MATCH", "TCP"]
PUBLIC_IP = "198.51.100.7"


def create_check(r53: StrictRoute53, ref: str, **config: Any) -> dict[str, Any]:
    return r53.create_health_check(CallerReference=ref, HealthCheckConfig=config)["HealthCheck"]


def check_refusal(r53: StrictRoute53, **config: Any) -> tuple[str, str]:
    before = r53.list_health_checks()["HealthChecks"]
    with pytest.raises(botocore.exceptions.ClientError) as exc:
        create_check(r53, "refused", **config)
    assert r53.list_health_checks()["HealthChecks"] == before
    return exc.value.response["Error"]["Code"], exc.value.response["Error"]["Message"]


@pytest.mark.parametrize("kind", ENDPOINT_TYPES)
def test_an_endpoint_check_needs_an_address_or_a_domain_name(r53, kind):
    """HealthCheckConfig.IPAddress: "If you don't specify a value for IPAddress, Route 53 sends a DNS
    request to resolve the domain name that you specify in FullyQualifiedDomainName"."""
    port = {"Port": 443}
    assert check_refusal(r53, Type=kind, **port) == ("InvalidInput", "Invalid parameter: IPAddress or FullyQualifiedDomainName is required")
    assert create_check(r53, "fqdn", Type=kind, FullyQualifiedDomainName="origin.example.com", **port)["Id"]
    assert create_check(r53, "ip", Type=kind, IPAddress=PUBLIC_IP, **port)["Id"]


@pytest.mark.parametrize("ip", ["198.51.100.256", "not-an-ip", "2001:db8::g"])
def test_an_address_that_is_no_ip_address_is_refused(r53, ip):
    """HealthCheckConfig.IPAddress: an IPv4 address (four values between 0 and 255) or an IPv6 address."""
    code, message = check_refusal(r53, Type="TCP", IPAddress=ip, Port=443)
    assert (code, message) == ("InvalidInput", f"Invalid parameter: IPAddress {ip!r} is not a valid IP address")


@pytest.mark.parametrize("ip", [PUBLIC_IP, "2600:1f18::1"])
def test_a_public_ipv4_or_ipv6_address_is_accepted(r53, ip):
    assert create_check(r53, "ok", Type="TCP", IPAddress=ip, Port=443)["HealthCheckConfig"]["IPAddress"] == ip


def test_a_tcp_check_needs_a_port(r53):
    assert check_refusal(r53, Type="TCP", IPAddress=PUBLIC_IP) == ("InvalidInput", "Invalid parameter: Port is required for TCP health checks")


@pytest.mark.parametrize(("port", "accepted"), [(1, True), (65535, True), (65536, False), (100000, False)])
def test_port_is_1_to_65535(r53, port, accepted):
    """Model: Port 1..65535 (botocore's validator checks the minimum, StrictRoute53 the maximum)."""
    if accepted:
        assert create_check(r53, "p", Type="TCP", IPAddress=PUBLIC_IP, Port=port)["HealthCheckConfig"]["Port"] == port
    else:
        assert check_refusal(r53, Type="TCP", IPAddress=PUBLIC_IP, Port=port) == (
            "InvalidInput", f"Invalid parameter: Port {port} must be between 1 and 65535")


def test_port_0_is_botocores_refusal(r53):
    with pytest.raises(botocore.exceptions.ParamValidationError, match="Port, value: 0, valid min value: 1"):
        create_check(r53, "p", Type="TCP", IPAddress=PUBLIC_IP, Port=0)


@pytest.mark.parametrize(("threshold", "accepted"), [(1, True), (10, True), (11, False)])
def test_failure_threshold_is_1_to_10(r53, threshold, accepted):
    """Model: FailureThreshold 1..10."""
    config = {"Type": "TCP", "IPAddress": PUBLIC_IP, "Port": 443, "FailureThreshold": threshold}
    if accepted:
        assert create_check(r53, "f", **config)["HealthCheckConfig"]["FailureThreshold"] == threshold
    else:
        assert check_refusal(r53, **config) == ("InvalidInput", f"Invalid parameter: FailureThreshold {threshold} must be between 1 and 10")


@pytest.mark.parametrize(("interval", "accepted"), [(10, True), (30, True), (11, False), (29, False), (31, False)])
def test_request_interval_is_10_or_30(r53, interval, accepted):
    """Model: RequestInterval 10..30; Route 53 offers standard (30 s) and fast (10 s) intervals only."""
    config = {"Type": "TCP", "IPAddress": PUBLIC_IP, "Port": 443, "RequestInterval": interval}
    if accepted:
        assert create_check(r53, "i", **config)["HealthCheckConfig"]["RequestInterval"] == interval
    else:
        assert check_refusal(r53, **config) == ("InvalidInput", f"Invalid parameter: RequestInterval {interval} must be 10 or 30")


def test_defaults_are_30_seconds_3_failures_not_inverted_not_disabled(r53):
    """HealthCheckConfig.RequestInterval: "the default value is 30 seconds"; FailureThreshold: "the
    default value is three health checks"."""
    config = create_check(r53, "d", Type="TCP", IPAddress=PUBLIC_IP, Port=443)["HealthCheckConfig"]
    assert (config["RequestInterval"], config["FailureThreshold"], config["Inverted"], config["Disabled"]) == (30, 3, False, False)


@pytest.mark.parametrize(("threshold", "accepted"), [(0, True), (256, True), (257, False)])
def test_health_threshold_is_0_to_256(r53, threshold, accepted):
    """Model: HealthThreshold 0..256."""
    child = create_check(r53, "c", Type="TCP", IPAddress=PUBLIC_IP, Port=443)["Id"]
    config = {"Type": "CALCULATED", "ChildHealthChecks": [child], "HealthThreshold": threshold}
    if accepted:
        assert create_check(r53, "calc", **config)["HealthCheckConfig"]["HealthThreshold"] == threshold
    else:
        assert check_refusal(r53, **config) == ("InvalidInput", f"Invalid parameter: HealthThreshold {threshold} must be between 0 and 256")


def test_a_calculated_check_of_a_missing_child_is_refused(r53):
    child = create_check(r53, "c", Type="TCP", IPAddress=PUBLIC_IP, Port=443)["Id"]
    with pytest.raises(r53.exceptions.NoSuchHealthCheck) as exc:
        create_check(r53, "calc", Type="CALCULATED", ChildHealthChecks=[child, "gone"], HealthThreshold=1)
    assert exc.value.response["Error"]["Message"] == "A health check with id gone does not exist."
    assert exc.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


@pytest.mark.parametrize("member", [{"Port": 443}, {"IPAddress": PUBLIC_IP}])
def test_a_cloudwatch_metric_check_takes_no_port_or_address(r53, member):
    """HealthCheckConfig.Port: "Don't specify a value for Port when you specify a value for Type of
    CLOUDWATCH_METRIC or CALCULATED"; IPAddress: "When the value of Type is CALCULATED or
    CLOUDWATCH_METRIC, omit IPAddress"."""
    alarm = {"AlarmIdentifier": {"Region": "us-east-1", "Name": "a"}, "InsufficientDataHealthStatus": "Unhealthy"}
    field = next(iter(member))
    assert check_refusal(r53, Type="CLOUDWATCH_METRIC", **alarm, **member) == (
        "InvalidInput", f"Invalid parameter: {field} must not be specified for a CLOUDWATCH_METRIC health check")
    assert create_check(r53, "cw", Type="CLOUDWATCH_METRIC", **alarm)["Id"]


def test_max_health_checks_is_a_quota_of_that_many(r53):
    r53 = StrictRoute53(max_health_checks=1)
    create_check(r53, "one", Type="TCP", IPAddress=PUBLIC_IP, Port=443)
    assert check_refusal(r53, Type="TCP", IPAddress=PUBLIC_IP, Port=444) == (
        "TooManyHealthChecks", "This account has reached the limit of 1 health checks.")


# --- health as Route 53 computes it -------------------------------------------------------------------------
@pytest.mark.parametrize(("share", "healthy"), [(0.18, False), (0.1801, True)])
def test_healthy_takes_more_than_18_percent_of_the_checkers(r53, share, healthy):
    """Developer guide: "If more than 18% of health checkers report that an endpoint is healthy,
    Route 53 considers it healthy"."""
    hc = create_check(r53, "s", Type="TCP", IPAddress=PUBLIC_IP, Port=443)["Id"]
    r53.set_health(hc, share)
    assert r53.is_healthy(hc) is healthy


@pytest.mark.parametrize("share", [0.0, 1.0])
def test_set_health_takes_the_ends_of_0_to_1(r53, share):
    hc = create_check(r53, "s", Type="TCP", IPAddress=PUBLIC_IP, Port=443)["Id"]
    r53.set_health(hc, share)
    assert r53.is_healthy(hc) is bool(share)


def test_set_health_refuses_below_0_and_unknown_checks(r53):
    hc = create_check(r53, "s", Type="TCP", IPAddress=PUBLIC_IP, Port=443)["Id"]
    with pytest.raises(ValueError, match=r"healthy: -0.1 is out of range 0.0..1.0"):
        r53.set_health(hc, -0.1)
    with pytest.raises(KeyError):
        r53.set_health("no-such-check", True)


def test_a_calculated_threshold_above_its_children_is_never_healthy_0_always(r53):
    """HealthCheckConfig.HealthThreshold: "If you specify a number greater than the number of child
    health checks, Route 53 always considers this health check to be unhealthy. If you specify 0,
    Route 53 always considers this health check to be healthy"."""
    children = [create_check(r53, f"c{n}", Type="TCP", IPAddress=PUBLIC_IP, Port=440 + n)["Id"] for n in range(2)]
    above = create_check(r53, "above", Type="CALCULATED", ChildHealthChecks=children, HealthThreshold=3)["Id"]
    exactly = create_check(r53, "all", Type="CALCULATED", ChildHealthChecks=children, HealthThreshold=2)["Id"]
    zero = create_check(r53, "zero", Type="CALCULATED", ChildHealthChecks=children, HealthThreshold=0)["Id"]
    assert (r53.is_healthy(above), r53.is_healthy(exactly), r53.is_healthy(zero)) == (False, True, True)
    for child in children:
        r53.set_health(child, False)
    assert (r53.is_healthy(above), r53.is_healthy(exactly), r53.is_healthy(zero)) == (False, False, True)


def test_an_inverted_calculated_check(r53):
    """HealthCheckConfig.Inverted: "invert the status of a health check"."""
    child = create_check(r53, "c", Type="TCP", IPAddress=PUBLIC_IP, Port=443)["Id"]
    calc = create_check(r53, "calc", Type="CALCULATED", ChildHealthChecks=[child], HealthThreshold=1, Inverted=True)["Id"]
    assert not r53.is_healthy(calc)
    r53.set_health(child, False)
    assert r53.is_healthy(calc)


@pytest.mark.parametrize(("share", "succeeding"), [(0.0, 0), (0.3, 2), (0.5, 4), (0.9, 7), (1.0, 8)])
def test_status_reports_one_observation_a_checker_region(r53, share, succeeding):
    """GetHealthCheckStatus: one observation a checker region (the eight HealthCheckRegion values)."""
    hc = create_check(r53, "s", Type="HTTP", IPAddress=PUBLIC_IP, Port=80)["Id"]
    r53.set_health(hc, share)
    observations = r53.get_health_check_status(HealthCheckId=hc)["HealthCheckObservations"]
    assert len(observations) == 8 and len({o["Region"] for o in observations}) == 8
    assert sum(o["StatusReport"]["Status"] == "Success: HTTP Status Code 200, OK" for o in observations) == succeeding
    assert sum(o["StatusReport"]["Status"].startswith("Failure") for o in observations) == 8 - succeeding


# --- a refused change takes no further part in the batch ---------------------------------------------------
def test_a_set_with_a_bad_value_is_not_also_judged_against_its_neighbours(r53, zone_id):
    """The one message a set that is invalid on its own gets; it is not applied to the working zone,
    so it adds no policy conflict with the valid set beside it."""
    code, message = refusal(r53, zone_id, change("CREATE", a_record(None, "192.0.2.300")), change("CREATE", a_record("w", "192.0.2.1", weight=1)))
    assert (code, message) == ("InvalidChangeBatch", "[Invalid Resource Record: 'FATAL problem: ARRDATAIllegalIPv4Address "
                                                     "(Value is not a valid IPv4 address) encountered with '192.0.2.300'']")


def test_a_create_of_an_existing_set_does_not_replace_it_for_the_rest_of_the_batch(r53, zone_id):
    apply(r53, zone_id, change("CREATE", a_record("w1", "192.0.2.1", weight=1)), change("CREATE", a_record("w2", "192.0.2.2", weight=1)))
    code, message = refusal(r53, zone_id, change("CREATE", a_record("w1", "192.0.2.3", multivalue=True)))
    assert (code, message) == ("InvalidChangeBatch", f"[Tried to create resource record set [name='{NAME}', type='A', set-identifier='w1'] but it already exists]")


def test_a_delete_that_does_not_match_removes_nothing_for_the_rest_of_the_batch(r53, zone_id):
    soa = next(r for r in r53.records(zone_id) if r["Type"] == "SOA")
    code, message = refusal(r53, zone_id, change("DELETE", {**soa, "TTL": soa["TTL"] + 1}))
    assert (code, message) == ("InvalidChangeBatch", f"[Tried to delete resource record set [name='{ZONE}', type='SOA'] "
                                                     "but the values provided do not match the current values]")


def test_alias_problems_are_listed_in_name_type_and_set_identifier_order(r53, zone_id):
    def to_missing(name: str, rtype: str, sid: str) -> dict[str, Any]:
        record = alias(name, f"missing-{sid}.example.com", zone_id, SetIdentifier=sid, Weight=1)
        return change("CREATE", {**record, "Type": rtype})

    batch = [to_missing("b.example.com", "A", "a"), to_missing("a.example.com", "AAAA", "b"), to_missing("a.example.com", "A", "z"),
             *(to_missing("c.example.com", "A", sid) for sid in "fedcba")]
    code, message = refusal(r53, zone_id, *batch)
    assert code == "InvalidChangeBatch"
    targets = [part.split(" ")[0] for part in message.split("targets ")[1:]]
    assert targets == ["missing-z.example.com.,", "missing-b.example.com.,", "missing-a.example.com.,",
                       *(f"missing-{sid}.example.com.," for sid in "abcdef")]


# --- create_health_check's answers ------------------------------------------------------------------------
def test_create_health_check_answers_201_and_conflicts_409(r53):
    """The model: CreateHealthCheck's responseCode 201; HealthCheckAlreadyExists is httpStatusCode 409
    (a CallerReference reused with other settings, or of a deleted check)."""
    config = {"Type": "TCP", "IPAddress": PUBLIC_IP, "Port": 443}
    first = r53.create_health_check(CallerReference="r", HealthCheckConfig=config)
    again = r53.create_health_check(CallerReference="r", HealthCheckConfig=dict(config))
    assert [first["ResponseMetadata"]["HTTPStatusCode"], again["ResponseMetadata"]["HTTPStatusCode"]] == [201, 201]
    assert again["Location"] == first["Location"] == f"https://route53.amazonaws.com/2013-04-01/healthcheck/{first['HealthCheck']['Id']}"
    with pytest.raises(r53.exceptions.HealthCheckAlreadyExists) as different:
        r53.create_health_check(CallerReference="r", HealthCheckConfig={**config, "Port": 444})
    r53.delete_health_check(HealthCheckId=first["HealthCheck"]["Id"])
    with pytest.raises(r53.exceptions.HealthCheckAlreadyExists) as deleted:
        r53.create_health_check(CallerReference="r", HealthCheckConfig=config)
    assert [different.value.response["ResponseMetadata"]["HTTPStatusCode"], deleted.value.response["ResponseMetadata"]["HTTPStatusCode"]] == [409, 409]


def test_new_checks_can_start_unhealthy(r53):
    """``new_health_checks_healthy=False``: a new check reports failure until ``set_health``."""
    r53 = StrictRoute53(new_health_checks_healthy=False)
    hc = create_check(r53, "n", Type="TCP", IPAddress=PUBLIC_IP, Port=443)["Id"]
    assert not r53.is_healthy(hc)
    assert all(o["StatusReport"]["Status"].startswith("Failure") for o in r53.get_health_check_status(HealthCheckId=hc)["HealthCheckObservations"])


@pytest.mark.parametrize(("kind", "port"), [("HTTP", 80), ("HTTP_STR_MATCH", 80), ("HTTPS", 443), ("HTTPS_STR_MATCH", 443)])
def test_an_http_check_without_a_port_probes_the_protocols_port(r53, kind, port):
    """StrictRoute53 fills in the protocol's standard port (the ports HealthCheckConfig.FullyQualifiedDomainName
    names as the plain Host-header cases: 80 for HTTP/HTTP_STR_MATCH, 443 for HTTPS/HTTPS_STR_MATCH)."""
    extra = {"SearchString": "ok"} if kind.endswith("STR_MATCH") else {}
    assert create_check(r53, "p", Type=kind, IPAddress=PUBLIC_IP, **extra)["HealthCheckConfig"]["Port"] == port


@pytest.mark.parametrize(("kind", "sni"), [("HTTPS", True), ("HTTPS_STR_MATCH", True), ("HTTP", None), ("TCP", None)])
def test_sni_is_on_by_default_for_https_checks_only(r53, kind, sni):
    """EnableSNI (AWS' defaults, as the Terraform/Pulumi providers document them): true when the type
    is HTTPS, otherwise not enabled."""
    config = create_check(r53, "s", Type=kind, IPAddress=PUBLIC_IP, Port=443)["HealthCheckConfig"]
    assert config.get("EnableSNI") is sni
    assert create_check(r53, "off", Type=kind, IPAddress=PUBLIC_IP, Port=443, EnableSNI=False)["HealthCheckConfig"]["EnableSNI"] is False


def test_a_calculated_check_without_health_threshold_is_accepted(r53):
    child = create_check(r53, "c", Type="TCP", IPAddress=PUBLIC_IP, Port=443)["Id"]
    calc = create_check(r53, "calc", Type="CALCULATED", ChildHealthChecks=[child])["Id"]
    r53.set_health(child, False)
    assert r53.is_healthy(calc)  # no threshold: 0 children need to be healthy


def test_the_first_missing_child_is_named(r53):
    with pytest.raises(r53.exceptions.NoSuchHealthCheck, match="A health check with id first does not exist."):
        create_check(r53, "calc", Type="CALCULATED", ChildHealthChecks=["first", "second"], HealthThreshold=1)


def test_weighted_groups_of_different_names_keep_their_own_ttls_and_roles(r53, zone_id):
    """The one-TTL rule and the failover roles hold within one name and type, not across names."""
    def failover(name: str, role: str, ip: str) -> dict[str, Any]:
        return {"Name": name, "Type": "A", "SetIdentifier": role.lower(), "Failover": role, "TTL": 60, "ResourceRecords": [{"Value": ip}]}

    apply(r53, zone_id, change("CREATE", a_record("w", "192.0.2.1", weight=1, ttl=60, name="a.example.com")),
          change("CREATE", a_record("w", "192.0.2.2", weight=1, ttl=300, name="b.example.com")),
          change("CREATE", failover("c.example.com", "PRIMARY", "192.0.2.3")), change("CREATE", failover("d.example.com", "PRIMARY", "192.0.2.4")))
    assert len(r53.records(zone_id)) == 6


# --- deleting health checks ---------------------------------------------------------------------------------
def test_a_calculated_check_counts_the_children_that_remain_after_a_delete(r53):
    """DeleteHealthCheck does not prevent deleting a check other things refer to; a calculated
    parent is judged on the children that still exist."""
    kept, gone = (create_check(r53, ref, Type="TCP", IPAddress=PUBLIC_IP, Port=port)["Id"] for ref, port in (("k", 443), ("g", 444)))
    calc = create_check(r53, "calc", Type="CALCULATED", ChildHealthChecks=[kept, gone], HealthThreshold=1)["Id"]
    r53.delete_health_check(HealthCheckId=gone)
    assert r53.is_healthy(calc)
    r53.set_health(kept, False)
    assert not r53.is_healthy(calc)


def test_deleting_an_unknown_check_is_no_such_health_check(r53):
    with pytest.raises(r53.exceptions.NoSuchHealthCheck) as exc:
        r53.delete_health_check(HealthCheckId="nope")
    assert exc.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


# --- every call goes through botocore's validator ---------------------------------------------------------
@pytest.mark.parametrize(("method", "params"), [
    ("list_resource_record_sets", {"HostedZoneId": "Z1", "MaxItems": 5}),
    ("get_change", {}),
    ("get_health_check_status", {}),
    ("list_health_checks", {"MaxItems": 5}),
    ("delete_health_check", {}),
    ("get_health_check", {"HealthCheckId": 7}),
])
def test_parameters_are_validated_against_the_model(r53, method, params):
    """The model's shapes: a missing required member or a wrong type is botocore's ParamValidationError,
    before anything is looked up (and the call is still counted)."""
    with pytest.raises(botocore.exceptions.ParamValidationError):
        getattr(r53, method)(**params)
    operation = "".join(part.capitalize() for part in method.split("_"))
    assert r53.calls[operation] == 1


# --- listing records -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("params", "phrase"), [
    ({"StartRecordType": "A"}, "StartRecordType requires StartRecordName"),
    ({"StartRecordName": NAME, "StartRecordIdentifier": "s"}, "StartRecordIdentifier requires StartRecordType"),
])
def test_a_start_type_needs_a_name_and_a_start_identifier_a_type(r53, zone_id, params, phrase):
    """ListResourceRecordSets StartRecordType: "Specifying type without specifying name returns an
    InvalidInput error"; StartRecordIdentifier continues a name and type."""
    with pytest.raises(r53.exceptions.InvalidInput, match=phrase):
        r53.list_resource_record_sets(HostedZoneId=zone_id, **params)
    assert r53.list_resource_record_sets(HostedZoneId=zone_id, StartRecordName=NAME, StartRecordType="A", StartRecordIdentifier="s")["IsTruncated"] is False


def test_the_next_record_fields_name_the_first_set_of_the_next_page(r53, zone_id):
    """ListResourceRecordSets MaxItems: "the values of NextRecordName and NextRecordType ... identify
    the first resource record set in the next group"."""
    apply(r53, zone_id, change("CREATE", single("a.example.com")),
          change("CREATE", {**txt("b.example.com", 3), "SetIdentifier": "s1", "Weight": 1}),
          change("CREATE", single("c.example.com")), change("CREATE", single("d.example.com")))
    page = r53.list_resource_record_sets(HostedZoneId=zone_id, StartRecordName="a.example.com", MaxItems="1")
    assert [r["Name"] for r in page["ResourceRecordSets"]] == ["a.example.com."]
    assert (page["NextRecordName"], page["NextRecordType"], page["NextRecordIdentifier"]) == ("b.example.com.", "TXT", "s1")
    page = r53.list_resource_record_sets(HostedZoneId=zone_id, StartRecordName="b.example.com", MaxItems="1")
    assert (page["NextRecordName"], page["NextRecordType"], "NextRecordIdentifier" in page) == ("c.example.com.", "A", False)


# --- change batches: bookkeeping, observers, change info -----------------------------------------------------
def test_a_comment_too_long_counts_as_a_refused_batch(r53, zone_id):
    with pytest.raises(r53.exceptions.InvalidInput):
        r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Comment": "c" * 257, "Changes": [change("CREATE", single(NAME))]})
    assert (r53.batches_refused, r53.batches_applied) == (1, 0)


def test_observers_see_each_applied_batch_in_listing_order_and_no_refused_one(r53, zone_id):
    seen: list[tuple[str, list[str]]] = []
    r53.add_observer(lambda zone, records: seen.append((zone, [r["Name"] for r in records])))
    apply(r53, zone_id, change("CREATE", single("b.example.com")), change("CREATE", single("a.example.com")))
    refusal(r53, zone_id, change("CREATE", single("a.example.com")))
    assert seen == [(zone_id, [ZONE, ZONE, "a.example.com.", "b.example.com."])]


def test_change_info_carries_the_batch_comment(r53, zone_id):
    """ChangeInfo.Comment: "A comment you can provide" (the ChangeBatch's Comment), absent without one."""
    with_comment = r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Comment": "generation 2", "Changes": [change("CREATE", single(NAME))]})
    without = apply(r53, zone_id, change("DELETE", single(NAME)))
    assert with_comment["ChangeInfo"]["Comment"] == "generation 2" and "Comment" not in without["ChangeInfo"]
    assert r53.get_change(Id=with_comment["ChangeInfo"]["Id"])["ChangeInfo"]["Comment"] == "generation 2"


def test_an_unknown_change_is_no_such_change_404(r53):
    with pytest.raises(r53.exceptions.NoSuchChange) as exc:
        r53.get_change(Id="/change/CNOPE")
    assert exc.value.response["Error"]["Message"] == "A change with the specified change ID CNOPE does not exist."
    assert exc.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


# --- listing health checks -----------------------------------------------------------------------------------
def test_health_checks_page_by_marker_each_once(r53):
    """ListHealthChecks Marker: "specify the value of NextMarker from the previous response, which is
    the ID of the first health check that Amazon Route 53 will return"; Marker echoes the request."""
    ids = sorted(create_check(r53, f"h{n}", Type="TCP", IPAddress=PUBLIC_IP, Port=440 + n)["Id"] for n in range(5))
    first = r53.list_health_checks(MaxItems="2")
    assert first["Marker"] == "" and first["IsTruncated"] and first["NextMarker"] == ids[2]
    second = r53.list_health_checks(Marker=first["NextMarker"], MaxItems="2")
    third = r53.list_health_checks(Marker=second["NextMarker"], MaxItems="2")
    assert (second["Marker"], third["Marker"]) == (first["NextMarker"], second["NextMarker"])
    listed = [hc["Id"] for page in (first, second, third) for hc in page["HealthChecks"]]
    assert listed == ids and not third["IsTruncated"] and "NextMarker" not in third


def test_health_check_pages_hold_at_most_1000(r53):
    """ListHealthChecks MaxItems: "If you set MaxItems to a value greater than 1000, Route 53 returns
    only the first 1000 health checks"."""
    r53 = StrictRoute53(max_health_checks=1001)
    for n in range(1001):
        create_check(r53, f"h{n}", Type="TCP", IPAddress=f"198.51.{100 + n // 250}.{n % 250 + 1}", Port=443)
    page = r53.list_health_checks(MaxItems="5000")
    assert (len(page["HealthChecks"]), page["MaxItems"], page["IsTruncated"]) == (1000, "1000", True)
    assert len(r53.list_health_checks(MaxItems="1000")["HealthChecks"]) == 1000



@pytest.mark.parametrize("max_items", ["0", "-3"])
def test_a_page_size_below_one_still_lists_one_check_a_page(r53, max_items):
    """The model's PageMaxItems is a bare string: below 1 the double pages one at a time, so a caller
    following NextMarker always moves on (a page of none with NextMarker would never end)."""
    ids = sorted(create_check(r53, f"h{n}", Type="TCP", IPAddress=PUBLIC_IP, Port=440 + n)["Id"] for n in range(2))
    first = r53.list_health_checks(MaxItems=max_items)
    assert [hc["Id"] for hc in first["HealthChecks"]] == ids[:1] and first["NextMarker"] == ids[1]
    assert first["MaxItems"] == "1"

# --- answers are copies --------------------------------------------------------------------------------------
def test_what_a_call_returns_is_a_copy(r53, zone_id):
    """Changing an answer (its dicts or lists) changes nothing in the double, as with a real client."""
    apply(r53, zone_id, change("CREATE", {"Name": NAME, "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": "192.0.2.1"}]}))
    listed = r53.list_resource_record_sets(HostedZoneId=zone_id)["ResourceRecordSets"]
    listed[-1]["ResourceRecords"].append({"Value": "192.0.2.2"})
    listed[-1]["TTL"] = 1
    records = r53.records(zone_id)
    records[-1]["ResourceRecords"][0]["Value"] = "192.0.2.3"
    hc = create_check(r53, "c", Type="TCP", IPAddress=PUBLIC_IP, Port=443)
    hc["HealthCheckConfig"]["Port"] = 1
    assert r53.records(zone_id)[-1] == {"Name": NAME, "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": "192.0.2.1"}]}
    assert r53.get_health_check(HealthCheckId=hc["Id"])["HealthCheck"]["HealthCheckConfig"]["Port"] == 443


def test_a_delete_matches_values_in_any_order(r53, zone_id):
    """A record set's values are a set: a DELETE that lists them in another order matches."""
    record = {"Name": NAME, "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": "192.0.2.1"}, {"Value": "192.0.2.2"}]}
    apply(r53, zone_id, change("CREATE", record))
    apply(r53, zone_id, change("DELETE", {**record, "ResourceRecords": record["ResourceRecords"][::-1]}))
    assert [r for r in r53.records(zone_id) if r["Name"] == NAME] == []


# --- responses ---------------------------------------------------------------------------------------------
def test_responses_carry_status_request_id_and_no_retries(r53, zone_id):
    meta = r53.get_hosted_zone(Id=zone_id)["ResponseMetadata"]
    assert (meta["HTTPStatusCode"], meta["RetryAttempts"], len(meta["RequestId"])) == (200, 0, 36)


def test_an_unknown_zone_is_no_such_hosted_zone_404(r53):
    with pytest.raises(r53.exceptions.NoSuchHostedZone) as exc:
        r53.get_hosted_zone(Id="/hostedzone/ZNOPE")
    assert exc.value.response["Error"]["Message"] == "No hosted zone found with ID: ZNOPE"
    assert exc.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


@pytest.mark.parametrize(("method", "pages"), [
    ("list_resource_record_sets", True), ("list_health_checks", True), ("list_hosted_zones", True),
    ("list_hosted_zones_by_name", False), ("change_resource_record_sets", False), ("get_change", False),
])
def test_can_paginate_follows_botocores_paginator_model(r53, method, pages):
    """botocore's route53 paginators-1.json (ListHostedZonesByName has none)."""
    assert r53.can_paginate(method) is pages


# --- hosted zones ------------------------------------------------------------------------------------------
def test_create_hosted_zone_answers_201_with_the_default_ns_and_soa(r53):
    """The model: CreateHostedZone's responseCode 201; developer guide, "NS and SOA records that Amazon
    Route 53 creates for a public hosted zone": NS TTL 172800 (two days), SOA TTL 900, four name servers."""
    created = r53.create_hosted_zone(Name="example.net", CallerReference="n", HostedZoneConfig={"Comment": "test zone"})
    assert created["ResponseMetadata"]["HTTPStatusCode"] == 201
    zone_id = created["HostedZone"]["Id"]
    assert created["HostedZone"]["Config"] == {"PrivateZone": False, "Comment": "test zone"}
    ttls = {r["Type"]: r["TTL"] for r in r53.records(zone_id)}
    assert ttls == {"NS": 172800, "SOA": 900}
    servers = created["DelegationSet"]["NameServers"]
    assert len(set(servers)) == 4 and r53.get_hosted_zone(Id=zone_id)["DelegationSet"]["NameServers"] == servers
    ns = next(r for r in r53.records(zone_id) if r["Type"] == "NS")
    assert [v["Value"].rstrip(".") for v in ns["ResourceRecords"]] == servers


def test_a_zone_without_a_comment_has_none(r53, zone_id):
    assert r53.get_hosted_zone(Id=zone_id)["HostedZone"]["Config"] == {"PrivateZone": False}


def test_a_reused_zone_caller_reference_is_409(r53, zone_id):
    with pytest.raises(r53.exceptions.HostedZoneAlreadyExists) as exc:
        r53.create_hosted_zone(Name="example.net", CallerReference="z")
    assert exc.value.response["ResponseMetadata"]["HTTPStatusCode"] == 409
    assert exc.value.response["Error"]["Message"] == "A hosted zone has already been created with the specified caller reference z"


@pytest.mark.parametrize(("method", "params"), [
    ("create_hosted_zone", {"Name": "example.net"}),
    ("get_hosted_zone", {}),
    ("list_hosted_zones_by_name", {"MaxItems": 1}),
    ("test_dns_answer", {"HostedZoneId": "Z1", "RecordName": NAME}),
])
def test_zone_calls_are_validated_against_the_model(r53, method, params):
    with pytest.raises(botocore.exceptions.ParamValidationError):
        getattr(r53, method)(**params)


def test_hosted_zone_pages_hold_at_most_100_and_echo_the_marker(r53, zone_id):
    """ListHostedZones: "Amazon Route 53 returns a maximum of 100 items in each response"; the
    response's Marker is the request's (required: empty on a first page)."""
    for n in range(101):
        r53.create_hosted_zone(Name=f"z{n}.example.org", CallerReference=f"z{n}")
    first = r53.list_hosted_zones(MaxItems="500")
    assert (len(first["HostedZones"]), first["MaxItems"], first["IsTruncated"], first["Marker"]) == (100, "100", True, "")
    assert len(r53.list_hosted_zones()["HostedZones"]) == 100
    ids = sorted(z.split("/")[-1] for z in (zone["Id"] for zone in first["HostedZones"]))
    rest = r53.list_hosted_zones(Marker=first["NextMarker"])
    assert rest["Marker"] == first["NextMarker"] and not rest["IsTruncated"] and len(rest["HostedZones"]) == 2
    assert first["NextMarker"] == min(z["Id"].split("/")[-1] for z in rest["HostedZones"]) > ids[-1]
    by_name = r53.list_hosted_zones_by_name(MaxItems="500")
    assert (len(by_name["HostedZones"]), by_name["IsTruncated"], "DNSName" in by_name) == (100, True, False)
    assert len(r53.list_hosted_zones_by_name()["HostedZones"]) == 100


def test_hosted_zones_by_name_echo_the_name_and_need_it_with_an_id(r53, zone_id):
    """ListHostedZonesByName: DNSName in the response is "the value that you specified for the dnsname
    parameter"; HostedZoneId continues a listing and goes with dnsname."""
    assert r53.list_hosted_zones_by_name(DNSName="example.com")["DNSName"] == "example.com"
    with pytest.raises(r53.exceptions.InvalidInput, match="HostedZoneId requires DNSName"):
        r53.list_hosted_zones_by_name(HostedZoneId=zone_id)
    assert [z["Name"] for z in r53.list_hosted_zones_by_name(DNSName="example.com", HostedZoneId=zone_id)["HostedZones"]] == [ZONE]


def test_record_pages_hold_at_most_300(r53, zone_id):
    """ListResourceRecordSets "returns up to 300 resource record sets at a time"."""
    apply(r53, zone_id, *(change("CREATE", single(f"r{n}.example.com")) for n in range(299)))
    page = r53.list_resource_record_sets(HostedZoneId=zone_id, MaxItems="1000")
    assert (len(page["ResourceRecordSets"]), page["MaxItems"], page["IsTruncated"]) == (300, "300", True)
    assert len(r53.list_resource_record_sets(HostedZoneId=zone_id)["ResourceRecordSets"]) == 300


# --- the quotas at their real values -------------------------------------------------------------------------
def test_a_zone_holds_10000_records_not_10001(r53, zone_id):
    """Quotas: 10,000 records per hosted zone (the NS and SOA count)."""
    for start in range(0, 9998, 1000):
        apply(r53, zone_id, *(change("CREATE", single(f"r{n}.example.com")) for n in range(start, min(start + 1000, 9998))))
    assert len(r53.records(zone_id)) == 10000
    code, message = refusal(r53, zone_id, change("CREATE", single("one-more.example.com")))
    assert code == "InvalidChangeBatch" and "would hold 10001 records: the limit is 10000 records per hosted zone" in message


def test_the_default_health_check_quota_is_200(r53):
    """Quotas: 200 health checks per account (the default, adjustable; ``max_health_checks``)."""
    for n in range(200):
        create_check(r53, f"h{n}", Type="TCP", IPAddress=PUBLIC_IP, Port=1000 + n)
    assert check_refusal(r53, Type="TCP", IPAddress=PUBLIC_IP, Port=2000) == (
        "TooManyHealthChecks", "This account has reached the limit of 200 health checks.")


def test_weighted_groups_of_one_name_and_different_types_keep_their_own_ttls(r53, zone_id):
    """The one-TTL rule holds within one name and type: weighted A and weighted TXT sets of one name
    may differ."""
    apply(r53, zone_id, change("CREATE", a_record("w", "192.0.2.1", weight=1, ttl=60)),
          change("CREATE", {**txt(NAME, 3), "SetIdentifier": "w", "Weight": 1, "TTL": 300}))
    assert sorted(r["TTL"] for r in r53.records(zone_id) if r["Name"] == NAME) == [60, 300]


def test_hosted_zones_by_name_continue_at_the_first_zone_of_the_next_page(r53):
    """ListHostedZonesByName NextDNSName / NextHostedZoneId: "the name (the ID) of the first hosted zone
    in the next group of maxitems hosted zones"."""
    ids = {name: r53.create_hosted_zone(Name=name, CallerReference=name)["HostedZone"]["Id"].split("/")[-1]
           for name in ("a.com", "b.com", "c.com", "d.com")}
    page = r53.list_hosted_zones_by_name(MaxItems="1")
    assert (page["NextDNSName"], page["NextHostedZoneId"]) == ("b.com.", ids["b.com"])


def test_a_page_size_that_is_not_a_number_lists_the_default_page(r53):
    """PageMaxItems is a string in the model, so botocore lets "many" through: the double reads it as
    no MaxItems (a page of up to 100) rather than failing inside itself."""
    create_check(r53, "h0", Type="TCP", IPAddress=PUBLIC_IP, Port=440)
    page = r53.list_health_checks(MaxItems="many")
    assert (len(page["HealthChecks"]), page["MaxItems"], page["IsTruncated"]) == (1, "100", False)
