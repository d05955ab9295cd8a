"""edge_origin.testing.route53: one test per Route 53 rule, each with the case that passes."""

from __future__ import annotations

import threading

import botocore.exceptions
import pytest

from edge_origin.live.paging import list_record_sets, paginate
from edge_origin.testing.route53 import StrictRoute53
from tests.live_write.conftest import NAME, a_record, change, tcp_check, weighted_alias


def _apply(r53: StrictRoute53, zone_id: str, *changes: dict) -> dict:
    return r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": list(changes)})


def _error(exc: pytest.ExceptionInfo) -> tuple[str, str]:
    err = exc.value.response["Error"]
    return err["Code"], err["Message"]


def _names(r53: StrictRoute53, zone_id: str) -> list[tuple[str, str, str | None]]:
    return [(r["Name"], r["Type"], r.get("SetIdentifier")) for r in r53.records(zone_id) if r["Type"] not in ("NS", "SOA")]


def test_new_zone_has_soa_and_ns(r53, zone_id):
    types = [r["Type"] for r in r53.records(zone_id)]
    assert sorted(types) == ["NS", "SOA"]
    assert r53.get_hosted_zone(Id=f"/hostedzone/{zone_id}")["HostedZone"]["Name"] == "example.com."


def test_delete_must_match_exactly_ttl_values_and_health_check(r53, zone_id):
    hc = tcp_check(r53, "203.0.113.10")
    live = a_record("nlb-1", "203.0.113.10", multivalue=True, hc=hc)
    _apply(r53, zone_id, change("CREATE", live))
    for wrong in (
        {**live, "TTL": 300},
        {**live, "ResourceRecords": [{"Value": "203.0.113.11"}]},
        {k: v for k, v in live.items() if k != "HealthCheckId"},
        {**live, "HealthCheckId": tcp_check(r53, "203.0.113.99")},
    ):
        with pytest.raises(r53.exceptions.InvalidChangeBatch) as exc:
            _apply(r53, zone_id, change("DELETE", wrong))
        assert _error(exc) == (
            "InvalidChangeBatch",
            "[Tried to delete resource record set [name='origin.example.com.', type='A', set-identifier='nlb-1'] "
            "but the values provided do not match the current values]",
        )
    assert len(_names(r53, zone_id)) == 1
    _apply(r53, zone_id, change("DELETE", live))
    assert _names(r53, zone_id) == []


def test_delete_of_a_missing_set_identifier_is_not_found(r53, zone_id):
    _apply(r53, zone_id, change("CREATE", weighted_alias("nlb-1", "nlb-1.elb.amazonaws.com")))
    with pytest.raises(botocore.exceptions.ClientError) as exc:
        _apply(r53, zone_id, change("DELETE", weighted_alias("nlb-9", "nlb-1.elb.amazonaws.com")))
    assert _error(exc)[1] == (
        "[Tried to delete resource record set [name='origin.example.com.', type='A', set-identifier='nlb-9'] but it was not found]"
    )


def test_delete_matches_alias_target_and_weight(r53, zone_id):
    live = weighted_alias("nlb-1", "nlb-1.elb.amazonaws.com", weight=50)
    _apply(r53, zone_id, change("CREATE", live))
    with pytest.raises(r53.exceptions.InvalidChangeBatch):
        _apply(r53, zone_id, change("DELETE", {**live, "Weight": 10}))
    with pytest.raises(r53.exceptions.InvalidChangeBatch):
        _apply(r53, zone_id, change("DELETE", weighted_alias("nlb-1", "nlb-2.elb.amazonaws.com")))
    # Names compare case-insensitively, with or without the trailing dot.
    _apply(r53, zone_id, change("DELETE", weighted_alias("nlb-1", "NLB-1.elb.amazonaws.com.")))


def test_create_of_an_existing_set_fails(r53, zone_id):
    _apply(r53, zone_id, change("CREATE", a_record("nlb-1", "203.0.113.10", multivalue=True)))
    with pytest.raises(r53.exceptions.InvalidChangeBatch) as exc:
        _apply(r53, zone_id, change("CREATE", a_record("nlb-1", "203.0.113.11", multivalue=True)))
    assert _error(exc)[1] == "[Tried to create resource record set [name='origin.example.com.', type='A', set-identifier='nlb-1'] but it already exists]"
    _apply(r53, zone_id, change("UPSERT", a_record("nlb-1", "203.0.113.11", multivalue=True)))
    assert r53.records(zone_id)[-1]["ResourceRecords"] == [{"Value": "203.0.113.11"}]


def test_multivalue_beside_weighted_fails_with_route53s_message(r53, zone_id):
    _apply(r53, zone_id, change("CREATE", weighted_alias("nlb-1", "nlb-1.elb.amazonaws.com")))
    with pytest.raises(r53.exceptions.InvalidChangeBatch) as exc:
        _apply(r53, zone_id, change("CREATE", a_record("mv-1", "203.0.113.10", multivalue=True)))
    assert _error(exc)[1] == (
        '[RRSet with DNS name origin.example.com., type A, SetIdentifier "mv-1" cannot be created because a non '
        "multivalue answer rrset exists with the same name and type.]"
    )


def test_weighted_beside_multivalue_and_simple_beside_sets_fail(r53, zone_id):
    _apply(r53, zone_id, change("CREATE", a_record("mv-1", "203.0.113.10", multivalue=True)))
    with pytest.raises(r53.exceptions.InvalidChangeBatch) as exc:
        _apply(r53, zone_id, change("CREATE", a_record("w-1", "203.0.113.11", weight=1)))
    assert "cannot be created as a non-weighted set exists with the same name and type" in _error(exc)[1]
    with pytest.raises(r53.exceptions.InvalidChangeBatch) as exc:
        _apply(r53, zone_id, change("CREATE", a_record(None, "203.0.113.12")))
    assert "cannot be created as other RRSets exist with the same name and type" in _error(exc)[1]


def test_upsert_cannot_flip_one_of_two_weighted_records(r53, zone_id):
    _apply(r53, zone_id, change("CREATE", a_record("w-1", "203.0.113.10", weight=1)), change("CREATE", a_record("w-2", "203.0.113.11", weight=1)))
    with pytest.raises(r53.exceptions.InvalidChangeBatch):
        _apply(r53, zone_id, change("UPSERT", a_record("w-1", "203.0.113.10", multivalue=True)))


def test_policy_switch_in_one_batch_is_judged_on_the_final_state(r53, zone_id):
    old = [weighted_alias("nlb-1", "nlb-1.elb.amazonaws.com"), weighted_alias("nlb-2", "nlb-2.elb.amazonaws.com")]
    _apply(r53, zone_id, *(change("CREATE", r) for r in old))
    new = [a_record(f"mv-{n}", f"203.0.113.{n}", multivalue=True) for n in range(1, 4)]
    # Creates listed before the deletes: still one batch, still fine.
    _apply(r53, zone_id, *(change("CREATE", r) for r in new), *(change("DELETE", r) for r in old))
    assert [sid for _, _, sid in _names(r53, zone_id)] == ["mv-1", "mv-2", "mv-3"]


def test_a_failing_batch_applies_nothing(r53, zone_id):
    good = a_record("mv-1", "203.0.113.10", multivalue=True)
    outside = a_record("mv-2", "203.0.113.11", multivalue=True, name="origin.example.org")
    with pytest.raises(r53.exceptions.InvalidChangeBatch) as exc:
        _apply(r53, zone_id, change("CREATE", good), change("CREATE", outside))
    assert "RRSet with DNS name origin.example.org. is not permitted in zone example.com." in _error(exc)[1]
    assert _names(r53, zone_id) == []
    assert r53.batches_refused == 1 and r53.batches_applied == 0


def test_every_message_of_a_batch_is_listed(r53, zone_id):
    with pytest.raises(r53.exceptions.InvalidChangeBatch) as exc:
        _apply(r53, zone_id, change("DELETE", a_record("x", "203.0.113.1", multivalue=True)), change("DELETE", a_record("y", "203.0.113.2", multivalue=True)))
    message = _error(exc)[1]
    assert "set-identifier='x'" in message and "set-identifier='y'" in message


def test_at_most_1000_records_a_batch(r53, zone_id):
    def batch(n: int) -> list[dict]:
        return [change("CREATE", a_record(f"mv-{i}", f"10.0.{i // 250}.{i % 250}", multivalue=True)) for i in range(n)]

    with pytest.raises(r53.exceptions.InvalidChangeBatch) as exc:
        _apply(r53, zone_id, *batch(1001))
    assert _error(exc)[1] == "[Number of records limit of 1000 exceeded.]"
    _apply(r53, zone_id, *batch(1000))
    assert len(_names(r53, zone_id)) == 1000


def test_invalid_values_are_refused(r53, zone_id):
    with pytest.raises(r53.exceptions.InvalidChangeBatch) as exc:
        _apply(r53, zone_id, change("CREATE", a_record("mv-1", "203.0.113.300", multivalue=True)))
    assert "ARRDATAIllegalIPv4Address" in _error(exc)[1]
    txt = {"Name": "_g.origin.example.com", "Type": "TXT", "TTL": 60, "ResourceRecords": [{"Value": "generation=1"}]}
    with pytest.raises(r53.exceptions.InvalidChangeBatch) as exc:
        _apply(r53, zone_id, change("CREATE", txt))
    assert "Value should be enclosed in quotation marks" in _error(exc)[1]
    _apply(r53, zone_id, change("CREATE", {**txt, "ResourceRecords": [{"Value": '"generation=1"'}]}))


def test_routing_fields_and_alias_rules_are_input_errors(r53, zone_id):
    no_policy = {"Name": NAME, "Type": "A", "SetIdentifier": "x", "TTL": 60, "ResourceRecords": [{"Value": "203.0.113.1"}]}
    with pytest.raises(r53.exceptions.InvalidInput):
        _apply(r53, zone_id, change("CREATE", no_policy))
    no_sid = {"Name": NAME, "Type": "A", "MultiValueAnswer": True, "TTL": 60, "ResourceRecords": [{"Value": "203.0.113.1"}]}
    with pytest.raises(r53.exceptions.InvalidInput):
        _apply(r53, zone_id, change("CREATE", no_sid))
    alias_mv = {**weighted_alias("x", "nlb-1.elb.amazonaws.com"), "MultiValueAnswer": True}
    del alias_mv["Weight"]
    with pytest.raises(r53.exceptions.InvalidInput):
        _apply(r53, zone_id, change("CREATE", alias_mv))
    with pytest.raises(r53.exceptions.NoSuchHealthCheck):
        _apply(r53, zone_id, change("CREATE", a_record("mv", "203.0.113.1", multivalue=True, hc="nope")))
    assert _names(r53, zone_id) == []
    _apply(r53, zone_id, change("CREATE", {**no_policy, "MultiValueAnswer": True}))
    _apply(r53, zone_id, change("CREATE", weighted_alias("w", "nlb-1.elb.amazonaws.com", name="w.example.com")))
    assert len(_names(r53, zone_id)) == 2


def test_cname_shares_its_name_with_nothing(r53, zone_id):
    _apply(r53, zone_id, change("CREATE", a_record(None, "203.0.113.1")))
    cname = {"Name": NAME, "Type": "CNAME", "TTL": 60, "ResourceRecords": [{"Value": "other.example.net"}]}
    with pytest.raises(r53.exceptions.InvalidChangeBatch) as exc:
        _apply(r53, zone_id, change("CREATE", cname))
    assert "conflicts with other records with the same DNS name" in _error(exc)[1]
    _apply(r53, zone_id, change("CREATE", {**cname, "Name": "www.example.com"}))  # alone at its name: fine


def test_unknown_zone_and_bad_parameters(r53, zone_id):
    with pytest.raises(r53.exceptions.NoSuchHostedZone) as exc:
        _apply(r53, "ZNOPE", change("CREATE", a_record(None, "203.0.113.1")))
    assert _error(exc) == ("NoSuchHostedZone", "No hosted zone found with ID: ZNOPE")
    with pytest.raises(botocore.exceptions.ParamValidationError):
        r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [{"Action": "CREATE"}]})
    with pytest.raises(botocore.exceptions.ParamValidationError):
        r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": []})


def test_get_change_is_pending_then_insync(zone_id):
    r53 = StrictRoute53(insync_after_polls=2)
    zone = r53.create_hosted_zone(Name="example.net", CallerReference="z")["HostedZone"]["Id"]
    info = _apply(r53, zone, change("CREATE", a_record(None, "203.0.113.1", name="a.example.net")))["ChangeInfo"]
    assert info["Status"] == "PENDING" and info["Id"].startswith("/change/C")
    statuses = [r53.get_change(Id=info["Id"])["ChangeInfo"]["Status"] for _ in range(3)]
    assert statuses == ["PENDING", "PENDING", "INSYNC"]
    with pytest.raises(r53.exceptions.NoSuchChange):
        r53.get_change(Id="/change/CNOPE")


def test_get_change_insync_after_time():
    now = [0.0]
    r53 = StrictRoute53(insync_after_polls=10**6, insync_after_s=5.0, clock=lambda: now[0])
    zone = r53.create_hosted_zone(Name="example.net", CallerReference="z")["HostedZone"]["Id"]
    change_id = _apply(r53, zone, change("CREATE", a_record(None, "203.0.113.1", name="a.example.net")))["ChangeInfo"]["Id"]
    assert r53.get_change(Id=change_id)["ChangeInfo"]["Status"] == "PENDING"
    now[0] = 5.0
    assert r53.get_change(Id=change_id)["ChangeInfo"]["Status"] == "INSYNC"


def test_health_check_caller_reference_is_idempotent(r53):
    config = {"Type": "TCP", "IPAddress": "203.0.113.10", "Port": 443, "RequestInterval": 10, "FailureThreshold": 3}
    first = r53.create_health_check(CallerReference="ref-1", HealthCheckConfig=config)["HealthCheck"]
    again = r53.create_health_check(CallerReference="ref-1", HealthCheckConfig=dict(config))["HealthCheck"]
    assert first["Id"] == again["Id"]
    with pytest.raises(r53.exceptions.HealthCheckAlreadyExists):
        r53.create_health_check(CallerReference="ref-1", HealthCheckConfig={**config, "Port": 8443})
    assert len(r53.list_health_checks()["HealthChecks"]) == 1
    with pytest.raises(r53.exceptions.InvalidInput):
        r53.create_health_check(CallerReference="ref-2", HealthCheckConfig={**config, "RequestInterval": 20})


def test_health_status_is_settable_and_checks_in_use_can_go(r53, zone_id):
    hc = tcp_check(r53, "203.0.113.10")
    status = r53.get_health_check_status(HealthCheckId=hc)["HealthCheckObservations"]
    assert len(status) == 8 and all(o["StatusReport"]["Status"].startswith("Success") for o in status)
    r53.set_health(hc, False)
    status = r53.get_health_check_status(HealthCheckId=hc)["HealthCheckObservations"]
    assert all(o["StatusReport"]["Status"].startswith("Failure") for o in status)
    _apply(r53, zone_id, change("CREATE", a_record("mv-1", "203.0.113.10", multivalue=True, hc=hc)))
    r53.delete_health_check(HealthCheckId=hc)  # DeleteHealthCheck: Route 53 "does not prevent you"
    with pytest.raises(r53.exceptions.NoSuchHealthCheck):
        r53.get_health_check(HealthCheckId="nope")


def test_health_check_quota(zone_id):
    r53 = StrictRoute53(max_health_checks=2)
    tcp_check(r53, "203.0.113.1")
    tcp_check(r53, "203.0.113.2")
    with pytest.raises(r53.exceptions.TooManyHealthChecks):
        tcp_check(r53, "203.0.113.3")


def test_record_listing_pages_with_the_three_part_cursor(r53, zone_id):
    records = [a_record(f"mv-{i:02d}", f"203.0.113.{i}", multivalue=True) for i in range(25)]
    _apply(r53, zone_id, *(change("CREATE", r) for r in records), change("CREATE", a_record(None, "203.0.113.99", name="a.example.com")))
    page = r53.list_resource_record_sets(HostedZoneId=zone_id, StartRecordName=NAME, StartRecordType="A", MaxItems="10")
    assert page["IsTruncated"] and page["NextRecordIdentifier"] == "mv-10" and page["NextRecordName"] == "origin.example.com."
    # edge-origin's own guarded listing and botocore's paginator both walk it.
    mine = list_record_sets(r53, zone_id, NAME, "A")
    assert [r["SetIdentifier"] for r in mine] == [f"mv-{i:02d}" for i in range(25)]
    pages = list(paginate(r53, "list_resource_record_sets", HostedZoneId=zone_id, PaginationConfig={"PageSize": 7}))
    listed = [r for p in pages for r in p["ResourceRecordSets"]]
    assert len(pages) == 4 and len(listed) == 28
    # Order: name by reversed labels (a.example.com before origin.example.com), then type.
    assert [r["Name"] for r in listed[:3]] == ["example.com.", "example.com.", "a.example.com."]


def test_hosted_zone_listing(r53, zone_id):
    r53.create_hosted_zone(Name="example.org", CallerReference="zone-2")
    by_name = r53.list_hosted_zones_by_name(DNSName="example.org")["HostedZones"]
    assert [z["Name"] for z in by_name] == ["example.org."]
    assert len(r53.list_hosted_zones()["HostedZones"]) == 2
    with pytest.raises(r53.exceptions.HostedZoneAlreadyExists):
        r53.create_hosted_zone(Name="example.net", CallerReference="zone-2")


def test_concurrent_batches_are_serialized(r53, zone_id):
    """16 threads race CREATEs of one set identifier: exactly one wins, the rest fail whole."""
    results: list[str] = []
    lock = threading.Lock()

    def attempt(n: int) -> None:
        try:
            _apply(r53, zone_id, change("CREATE", a_record("only", f"203.0.113.{n + 1}", multivalue=True)))
            outcome = "ok"
        except r53.exceptions.InvalidChangeBatch:
            outcome = "refused"
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert sorted(results) == ["ok"] + ["refused"] * 15


def test_the_strict_route53_names_every_routing_element_of_the_one_table():
    # its refusals name the policy of a set by the element the answer model's table reads: an element added to
    # the table (answers.routing) without a name here would turn a refusal into a KeyError
    from edge_origin.answers.routing import ROUTING_ELEMENTS
    from edge_origin.testing import route53

    assert set(route53.POLICY_NAMES) == {e.member for e in ROUTING_ELEMENTS} == set(route53.ROUTING_FIELDS)
    assert route53.POLICY_NAMES["MultiValueAnswer"] == "multivalue answer" and route53.POLICY_NAMES["Weight"] == "weighted"
