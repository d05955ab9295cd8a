"""Issue 41: health checks the enactor creates are owned (tagged name + generation) and deleted once
no record uses them; never one any record references; ``keep_health_checks`` opts out."""

from __future__ import annotations

import boto3
import pytest
from moto import mock_aws

from edge_origin.live.enact import EnactOptions, enact
from edge_origin.live.health_owner import GENERATION_TAG, OWNER_TAG, owned_checks, unused_owned
from edge_origin.live.name_state import read_name
from tests.live_write.conftest import NAME, a_record, change, create_zone, make_plan, strict_zone

FULL = EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0)
POOL = [f"203.0.113.{n}" for n in range(10, 40)]


def _plans(zone_id: str, count: int = 20):
    for gen in range(1, count + 1):
        yield make_plan(zone_id, gen, [POOL[(gen + k) % len(POOL)] for k in range(3)])


def _used(r53, zone_id: str) -> set[str]:
    return {r["HealthCheckId"] for r in read_name(r53, zone_id, NAME).records}


def _all_checks(r53) -> set[str]:
    return {hc["Id"] for hc in r53.list_health_checks(MaxItems="1000")["HealthChecks"]}


def test_twenty_plans_leave_only_the_checks_live_records_use():
    r53, zone_id = strict_zone()
    for plan in _plans(zone_id):
        result = enact(r53, plan, FULL)
        assert result.status == "applied" and result.read_back == "matches"
    assert _all_checks(r53) == _used(r53, zone_id) and len(_used(r53, zone_id)) == 3
    owned = owned_checks(r53, NAME)
    assert {c.id for c in owned} == _used(r53, zone_id) and all(c.owner == NAME + "." for c in owned)


def test_twenty_plans_on_moto_too():
    with mock_aws():
        r53 = boto3.client("route53", region_name="us-east-1")
        zone_id = create_zone(r53)
        for plan in _plans(zone_id):
            assert enact(r53, plan, FULL).status == "applied"
        assert _all_checks(r53) == _used(r53, zone_id)


def test_keep_health_checks_keeps_them_and_audit_sees_the_unused_ones():
    r53, zone_id = strict_zone()
    for plan in _plans(zone_id, 5):
        enact(r53, plan, EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0, keep_health_checks=True))
    unused = unused_owned(r53, NAME)
    assert len(_all_checks(r53)) == 7 and {c.id for c in unused} == _all_checks(r53) - _used(r53, zone_id)


def test_a_check_another_record_references_is_never_deleted():
    r53, zone_id = strict_zone()
    plans = list(_plans(zone_id, 2))
    enact(r53, plans[0], FULL)
    borrowed = sorted(_used(r53, zone_id))[0]
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [
        change("CREATE", a_record("other", "198.51.100.1", multivalue=True, hc=borrowed, name="other.example.com"))]})
    other_zone = r53.create_hosted_zone(Name="example.net", CallerReference="n")["HostedZone"]["Id"].split("/")[-1]
    second = sorted(_used(r53, zone_id))[1]
    r53.change_resource_record_sets(HostedZoneId=other_zone, ChangeBatch={"Changes": [
        change("CREATE", a_record("x", "198.51.100.2", multivalue=True, hc=second, name="www.example.net"))]})
    enact(r53, make_plan(zone_id, 2, ["203.0.113.50", "203.0.113.51"]), FULL)
    assert {borrowed, second} <= _all_checks(r53)
    assert _all_checks(r53) == _used(r53, zone_id) | {borrowed, second}


def test_a_newer_generations_check_is_not_deleted_by_an_older_clean_up():
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, POOL[:2]), FULL)
    hc = r53.create_health_check(CallerReference="future", HealthCheckConfig={
        "Type": "TCP", "IPAddress": "203.0.113.99", "Port": 443, "RequestInterval": 10, "FailureThreshold": 3})["HealthCheck"]["Id"]
    r53.change_tags_for_resource(ResourceType="healthcheck", ResourceId=hc, AddTags=[
        {"Key": OWNER_TAG, "Value": NAME + "."}, {"Key": GENERATION_TAG, "Value": "9"}])
    enact(r53, make_plan(zone_id, 2, POOL[2:4]), FULL)
    assert hc in _all_checks(r53)


def test_a_reused_address_after_its_check_was_deleted_gets_a_fresh_check():
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, POOL[:2]), FULL)
    enact(r53, make_plan(zone_id, 2, POOL[2:4]), FULL)  # POOL[:2]'s checks deleted
    result = enact(r53, make_plan(zone_id, 3, POOL[:2]), FULL)  # their CallerReferences are spent
    assert result.status == "applied" and len(_all_checks(r53)) == 2


@pytest.mark.parametrize("command", ["audit"])
def test_unused_owned_is_read_only(command):
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, POOL[:2]), FULL)
    before = dict(r53.calls)
    unused_owned(r53)
    assert {k for k in r53.calls if r53.calls[k] != before.get(k)} <= {"ListHealthChecks", "ListTagsForResources", "ListHostedZones", "ListResourceRecordSets"}


def test_every_call_enact_makes_is_in_its_iam_policy():
    """Recorded through botocore's events on moto: three plans, health checks created, tagged,
    reused and cleaned; every operation is an action of ``iam_policy`` (docs/iam/enact-policy.json)."""
    from edge_origin.live.enact import iam_policy

    seen: set[str] = set()
    with mock_aws():
        r53 = boto3.client("route53", region_name="us-east-1")
        zone_id = create_zone(r53)
        r53.meta.events.register("before-call.*.*", lambda model, **_: seen.add(f"route53:{model.name}"))
        for plan in _plans(zone_id, 3):
            enact(r53, plan, FULL)
    allowed = set()
    for statement in iam_policy(zone_id, NAME)["Statement"]:
        allowed.update([statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"])
    assert {"route53:DeleteHealthCheck", "route53:ChangeTagsForResource"} <= seen
    assert seen - allowed == set()


def test_audit_reports_each_unused_owned_check_as_info():
    from edge_origin.core.findings import Severity
    from edge_origin.live.health_owner import AUDIT_RULE, audit_findings

    r53, zone_id = strict_zone()
    assert audit_findings(r53, "account") == []
    for plan in _plans(zone_id, 3):
        enact(r53, plan, EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0, keep_health_checks=True))
    findings = audit_findings(r53, "account")
    assert len(findings) == 2 and {f.rule for f in findings} == {AUDIT_RULE} and {f.severity for f in findings} == {Severity.INFO}
    assert all("delete-health-check" in f.fix and NAME in f.message for f in findings)
