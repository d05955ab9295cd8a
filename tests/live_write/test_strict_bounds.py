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


@pytest.fixture()
def r53() -> StrictRoute53:
    return StrictRoute53()


@pytest.fixture()
def zone_id(r53: StrictRoute53) -> str:
    return r53.create_hosted_zone(Name=ZONE, CallerReference="z")["HostedZone"]["Id"].split("/")[-1]


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
