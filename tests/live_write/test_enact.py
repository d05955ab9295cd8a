"""The change engine on the strict Route 53: the migration, every guard, idempotence, clean-up."""

from __future__ import annotations

import dataclasses
import json

import pytest

from edge_origin.live.enact import EnactOptions, PlanStore, Refusal, StalePlan, enact, wait_insync
from edge_origin.live.name_state import read_name
from edge_origin.live.plans import LivePlanError
from edge_origin.testing.route53 import StrictRoute53
from tests.live_write.conftest import (
    INCIDENT_IPS,
    NAME,
    a_record,
    change,
    incident_setup,
    make_plan,
    tcp_check,
)

FULL = EnactOptions(allow_full_change=True, wait_s=5)
NO_SLEEP = {"sleep": lambda s: None}


def _a_records(r53: StrictRoute53, zone_id: str) -> list[dict]:
    return [r for r in r53.records(zone_id) if r["Name"] == "origin.example.com." and r["Type"] == "A"]


def test_incident_migration_is_one_batch(r53, zone_id):
    incident_setup(r53, zone_id)
    before = r53.batches_applied
    result = enact(r53, make_plan(zone_id, 1), FULL, **NO_SLEEP)
    assert result.status == "applied" and result.insync
    assert r53.batches_applied == before + 1 and r53.calls["ChangeResourceRecordSets"] == 2
    records = _a_records(r53, zone_id)
    assert len(records) == 6 and all(r["MultiValueAnswer"] and r["HealthCheckId"] for r in records)
    assert sorted(r["ResourceRecords"][0]["Value"] for r in records) == INCIDENT_IPS
    assert len(r53.list_health_checks()["HealthChecks"]) == 6
    assert result.removed == ["nlb-1", "nlb-2"] and len(result.added) == 6
    assert any("weighted -> multivalue" in n for n in result.notes)
    assert read_name(r53, zone_id, NAME).live_generation == 1


def test_migration_needs_allow_full_change_and_says_why(r53, zone_id):
    incident_setup(r53, zone_id)
    with pytest.raises(Refusal) as exc:
        enact(r53, make_plan(zone_id, 1), EnactOptions(), **NO_SLEEP)
    message = str(exc.value)
    assert "from weighted to multivalue replaces every record set in one batch" in message
    assert "--allow-full-change" in message
    assert r53.calls.get("CreateHealthCheck", 0) == 0 and len(_a_records(r53, zone_id)) == 2


def test_the_guides_two_steps_fail_on_route53(r53, zone_id):
    """Guide step 3 (create the multivalue records first, then delete the weighted ones) is refused."""
    incident_setup(r53, zone_id)
    hcs = [tcp_check(r53, "198.51.100.100"), tcp_check(r53, "198.51.100.101")]
    # Exactly the guide's batch: its set identifiers are the weighted records' own.
    guide = {"Changes": [
        change("CREATE", a_record("nlb-1", "198.51.100.100", multivalue=True, hc=hcs[0])),
        change("CREATE", a_record("nlb-2", "198.51.100.101", multivalue=True, hc=hcs[1])),
    ]}
    with pytest.raises(r53.exceptions.InvalidChangeBatch) as exc:
        r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=guide)
    assert "Tried to create resource record set [name='origin.example.com.', type='A', set-identifier='nlb-1'] but it already exists" in exc.value.response["Error"]["Message"]
    # With new set identifiers: the one-routing-policy rule.
    renamed = {"Changes": [change("CREATE", a_record("mv-1", "198.51.100.100", multivalue=True, hc=hcs[0]))]}
    with pytest.raises(r53.exceptions.InvalidChangeBatch) as exc:
        r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=renamed)
    assert exc.value.response["Error"]["Message"] == (
        '[RRSet with DNS name origin.example.com., type A, SetIdentifier "mv-1" cannot be created because a non '
        "multivalue answer rrset exists with the same name and type.]"
    )
    assert [r.get("Weight") for r in _a_records(r53, zone_id)] == [50, 50]


def test_deleting_first_instead_empties_the_name(r53, zone_id):
    """The other two-step order works on Route 53 but leaves the name with no address between steps."""
    incident_setup(r53, zone_id)
    counts: list[int] = []
    r53.add_observer(lambda zid, recs: counts.append(sum(1 for r in recs if r["Name"] == "origin.example.com." and r["Type"] == "A")))
    for record in list(_a_records(r53, zone_id)):
        r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [change("DELETE", record)]})
    assert counts[-1] == 0
    counts.clear()
    incident_setup(r53, zone_id)
    counts.clear()
    enact(r53, make_plan(zone_id, 1), FULL, **NO_SLEEP)
    assert counts == [6]


def test_dry_run_prints_route53s_batch_and_changes_nothing(r53, zone_id):
    incident_setup(r53, zone_id)
    result = enact(r53, make_plan(zone_id, 1), dataclasses.replace(FULL, dry_run=True))
    out = json.loads(json.dumps(result.to_json(), default=str))
    assert set(out) >= {"change_batch", "health_checks_to_create"} and out["status"] == "dry-run"
    actions = [(c["Action"], c["ResourceRecordSet"]["Type"]) for c in out["change_batch"]["Changes"]]
    assert actions == [("CREATE", "TXT"), ("DELETE", "A"), ("DELETE", "A")] + [("CREATE", "A")] * 6
    assert len(out["health_checks_to_create"]) == 6
    assert out["health_checks_to_create"][0]["HealthCheckConfig"]["Type"] == "TCP"
    assert r53.calls.get("CreateHealthCheck", 0) == 0 and r53.batches_applied == 1
    assert len(_a_records(r53, zone_id)) == 2


def test_dry_run_batch_applies_verbatim(r53, zone_id):
    """With existing health checks the dry run's batch is what a reviewer can send as is."""
    ids = {ip: tcp_check(r53, ip) for ip in INCIDENT_IPS[:3]}
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:3], health_check_ids=ids)
    batch = enact(r53, plan, EnactOptions(dry_run=True)).change_batch
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch=batch)
    assert read_name(r53, zone_id, NAME).live_generation == 1 and len(_a_records(r53, zone_id)) == 3
    assert enact(r53, plan, EnactOptions()).status == "no-op"


def test_rerun_of_the_same_generation_is_a_no_op(r53, zone_id):
    plan = make_plan(zone_id, 3)
    enact(r53, plan, FULL, **NO_SLEEP)
    batches, checks = r53.batches_applied, len(r53.list_health_checks()["HealthChecks"])
    again = enact(r53, plan, FULL, **NO_SLEEP)
    assert again.status == "no-op" and "already live" in again.notes[0]
    assert r53.batches_applied == batches and len(r53.list_health_checks()["HealthChecks"]) == checks


def test_next_generation_with_the_same_records_reuses_health_checks(r53, zone_id):
    enact(r53, make_plan(zone_id, 1), FULL, **NO_SLEEP)
    result = enact(r53, make_plan(zone_id, 2), EnactOptions(), **NO_SLEEP)
    assert result.status == "applied" and len(result.kept) == 6 and result.change_share == 0
    assert [c["ResourceRecordSet"]["Type"] for c in result.change_batch["Changes"]] == ["TXT", "TXT"]
    assert len(r53.list_health_checks()["HealthChecks"]) == 6
    live = read_name(r53, zone_id, NAME)
    assert (live.generation.number, live.generation.previous) == (2, 1)


def test_one_new_address_and_a_ttl_change(r53, zone_id):
    enact(r53, make_plan(zone_id, 1), FULL, **NO_SLEEP)
    ips = INCIDENT_IPS[:5] + ["198.51.100.7"]
    result = enact(r53, make_plan(zone_id, 2, ips), EnactOptions(), **NO_SLEEP)
    assert result.added == ["nlb-198-51-100-7"] and result.removed == ["nlb-203-0-113-15"] and len(result.kept) == 5
    assert sorted(r["ResourceRecords"][0]["Value"] for r in _a_records(r53, zone_id)) == sorted(ips)
    result = enact(r53, make_plan(zone_id, 3, ips, ttl=30), EnactOptions(max_change_share=1.0), **NO_SLEEP)
    assert len(result.modified) == 6
    actions = [c["Action"] for c in result.change_batch["Changes"] if c["ResourceRecordSet"]["Type"] == "A"]
    assert actions == ["DELETE"] * 6 + ["CREATE"] * 6
    assert {r["TTL"] for r in _a_records(r53, zone_id)} == {30}


def test_refuses_a_generation_not_above_the_live_one(r53, zone_id):
    enact(r53, make_plan(zone_id, 5), FULL, **NO_SLEEP)
    with pytest.raises(StalePlan, match="stale plan: live generation is 5$"):
        enact(r53, make_plan(zone_id, 4), FULL)
    with pytest.raises(StalePlan, match="same generation, different records"):
        enact(r53, make_plan(zone_id, 5, INCIDENT_IPS[:4]), FULL)


def test_refuses_a_plan_without_records(r53, zone_id):
    enact(r53, make_plan(zone_id, 1), FULL, **NO_SLEEP)
    with pytest.raises(Refusal, match="has no records: enact never leaves origin.example.com. without addresses"):
        enact(r53, make_plan(zone_id, 2, []), FULL)


def test_refuses_when_no_record_is_healthy_now(r53, zone_id):
    ids = {ip: tcp_check(r53, ip) for ip in INCIDENT_IPS[:2]}
    for hc in ids.values():
        r53.set_health(hc, False)
    batches = r53.batches_applied
    with pytest.raises(Refusal, match="no record of plan generation 1 is healthy now"):
        enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2], health_check_ids=ids), FULL)
    assert r53.batches_applied == batches
    r53.set_health(ids[INCIDENT_IPS[0]], True)
    assert enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2], health_check_ids=ids), FULL, **NO_SLEEP).status == "applied"


def test_refuses_new_health_checks_that_come_up_unhealthy(zone_id):
    r53 = StrictRoute53(new_health_checks_healthy=False)
    zid = r53.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"].split("/")[-1]
    with pytest.raises(Refusal, match="is healthy now"):
        enact(r53, make_plan(zid, 1, INCIDENT_IPS[:2]), FULL, **NO_SLEEP)
    assert r53.batches_applied == 0


def test_refuses_more_than_the_change_share(r53, zone_id):
    enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:4]), FULL, **NO_SLEEP)
    plan = make_plan(zone_id, 2, ["198.51.100.1", "198.51.100.2", "198.51.100.3", INCIDENT_IPS[3]])
    with pytest.raises(Refusal, match=r"6 of 7 record sets would change at once: 86% changed is above --max-change-share 0.5"):
        enact(r53, plan, EnactOptions())
    assert enact(r53, plan, EnactOptions(max_change_share=0.9), **NO_SLEEP).status == "applied"


def test_refuses_a_foreign_record_at_the_generation_label(r53, zone_id):
    txt = {"Name": "_edge-origin-generation.origin.example.com", "Type": "TXT", "TTL": 60, "ResourceRecords": [{"Value": '"hello"'}]}
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [change("CREATE", txt)]})
    with pytest.raises(Refusal, match="edge-origin did not write"):
        enact(r53, make_plan(zone_id, 1), FULL)


def test_unknown_zone_and_name_outside_the_zone_are_bad_input(r53, zone_id):
    with pytest.raises(LivePlanError, match="hosted_zone_id: 'ZNOSUCHZONE1': no such hosted zone"):
        enact(r53, make_plan("ZNOSUCHZONE1", 1), FULL)
    plan = dataclasses.replace(make_plan(zone_id, 1), name="origin.example.org")
    with pytest.raises(LivePlanError, match="name: 'origin.example.org' is not inside the hosted zone example.com"):
        enact(r53, plan, FULL)
    assert r53.batches_applied == 0 and r53.calls.get("CreateHealthCheck", 0) == 0


def test_stale_writer_loses_atomically_and_reports_the_live_generation(r53, zone_id):
    enact(r53, make_plan(zone_id, 1), FULL, **NO_SLEEP)

    def overtaken(_prepared) -> None:
        enact(r53, make_plan(zone_id, 9, INCIDENT_IPS[:5]), EnactOptions(), **NO_SLEEP)

    with pytest.raises(StalePlan, match="^stale plan: live generation is 9$"):
        enact(r53, make_plan(zone_id, 4, INCIDENT_IPS[1:]), EnactOptions(), after_read=overtaken, **NO_SLEEP)
    assert read_name(r53, zone_id, NAME).live_generation == 9 and len(_a_records(r53, zone_id)) == 5


def test_a_newer_writer_that_lost_to_an_older_one_plans_again(r53, zone_id):
    enact(r53, make_plan(zone_id, 1), FULL, **NO_SLEEP)
    fired = []

    def older_wins(_prepared) -> None:
        if not fired:
            fired.append(1)
            enact(r53, make_plan(zone_id, 2, INCIDENT_IPS[:5]), EnactOptions(), **NO_SLEEP)

    result = enact(r53, make_plan(zone_id, 3, INCIDENT_IPS[1:]), EnactOptions(), after_read=older_wins, **NO_SLEEP)
    assert result.status == "applied" and result.attempts == 2 and result.live_generation == 2
    assert read_name(r53, zone_id, NAME).live_generation == 3


def test_wait_insync_backs_off_and_is_bounded():
    r53 = StrictRoute53(insync_after_polls=3)
    zid = r53.create_hosted_zone(Name="example.net", CallerReference="z")["HostedZone"]["Id"]
    info = r53.change_resource_record_sets(HostedZoneId=zid, ChangeBatch={"Changes": [change("CREATE", a_record(None, "203.0.113.1", name="a.example.net"))]})["ChangeInfo"]
    slept: list[float] = []
    assert wait_insync(r53, info, 60, sleep=slept.append) is True
    assert slept == [0.5, 1.0, 2.0]
    now = [0.0]

    def sleep(s: float) -> None:
        now[0] += s

    info2 = r53.change_resource_record_sets(HostedZoneId=zid, ChangeBatch={"Changes": [change("CREATE", a_record(None, "203.0.113.2", name="b.example.net"))]})["ChangeInfo"]
    r53.insync_after_polls = 10**6
    assert wait_insync(r53, info2, 20, sleep=sleep, clock=lambda: now[0]) is False
    assert now[0] == 20


def test_cleanup_keeps_the_live_and_previous_generations(r53, zone_id, tmp_path):
    store = PlanStore(tmp_path)
    for gen in (1, 2, 3, 5, 8):
        plan = make_plan(zone_id, gen)
        store.save(plan)
        if gen in (1, 2, 3):
            enact(r53, plan, FULL, **NO_SLEEP)
    # Live is 3 (previous 2); 5 and 8 are newer, not yet applied.
    assert store.cleanup(r53, zone_id, NAME, keep=0) == [1]
    assert store.generations(NAME) == [2, 3, 5, 8]
    enact(r53, store.load(NAME, 8), FULL, **NO_SLEEP)
    assert store.cleanup(r53, zone_id, NAME, keep=0) == [2, 5]
    assert store.generations(NAME) == [3, 8]


def test_options_are_checked():
    for bad in ({"max_change_share": 0}, {"max_change_share": 1.5}, {"wait_s": -1}, {"retries": -1}):
        with pytest.raises(LivePlanError):
            EnactOptions(**bad)


def test_a_health_check_id_that_does_not_exist_is_bad_input(r53, zone_id):
    ids = {INCIDENT_IPS[0]: tcp_check(r53, INCIDENT_IPS[0]), INCIDENT_IPS[1]: "0000-no-such-check"}
    with pytest.raises(LivePlanError, match=r"records\[1\].health_check_id: '0000-no-such-check': no such health check"):
        enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2], health_check_ids=ids), FULL)
    assert r53.batches_applied == 0


def test_a_new_check_without_reports_counts_as_healthy_an_unhealthy_one_does_not(r53, zone_id, monkeypatch):
    """Real Route 53 may have no observations for a check created a moment ago: 'pending'."""
    from edge_origin.live import enact as engine

    hc = tcp_check(r53, INCIDENT_IPS[0])
    real = r53.get_health_check_status
    monkeypatch.setattr(r53, "get_health_check_status", lambda **kw: {**real(**kw), "HealthCheckObservations": []})
    assert engine.health_state(r53, hc) == "pending" and engine.is_healthy(r53, hc)
    assert enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:1], health_check_ids={INCIDENT_IPS[0]: hc}), FULL, **NO_SLEEP).status == "applied"
    monkeypatch.setattr(r53, "get_health_check_status", real)
    r53.set_health(hc, False)
    assert engine.health_state(r53, hc) == "unhealthy"


def test_iam_policy_matches_the_shipped_document_and_every_change_enact_sends(r53, zone_id):
    from pathlib import Path

    from edge_origin.live.enact import iam_policy

    doc = json.loads((Path(__file__).resolve().parents[2] / "docs" / "iam" / "enact-policy.json").read_text())
    assert iam_policy("Z1234567890ABC", "Origin.Example.com.") == doc
    policy = iam_policy(zone_id, NAME)
    allowed = next(st for st in policy["Statement"] if "Condition" in st)["Condition"]["ForAllValues:StringEquals"]
    incident_setup(r53, zone_id)
    for plan in (make_plan(zone_id, 1), make_plan(zone_id, 2, INCIDENT_IPS[:5])):
        result = enact(r53, plan, FULL, **NO_SLEEP)
        for c in result.change_batch["Changes"]:
            rr = c["ResourceRecordSet"]
            assert rr["Name"].rstrip(".") in allowed["route53:ChangeResourceRecordSetsNormalizedRecordNames"]
            assert rr["Type"] in allowed["route53:ChangeResourceRecordSetsRecordTypes"]
            assert c["Action"] in allowed["route53:ChangeResourceRecordSetsActions"]
