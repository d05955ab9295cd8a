"""enact's read back and its defaults, as benchmarks/mutate.py found them untested: what the read
back says for each way the name departs from the plan, what a failed read back says, the default
wait (300 s) and retries (3), and a run that finds its plan already applied by a twin run."""

from __future__ import annotations

import copy
import dataclasses

import botocore.exceptions
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import edge_origin.live.enact as enact_module
from edge_origin.live.enact import EnactOptions, OutcomeUnknown, Refusal, enact, prepare, read_back
from edge_origin.live.name_state import read_name
from tests.live_write.conftest import INCIDENT_IPS, NAME, FakeClock, make_plan, strict_zone

FULL = EnactOptions(max_change_share=1.0, allow_full_change=True, wait_s=0)
SHOW = "edge-origin plan show --name " + NAME + " --zone-id {zone_id}"


def _applied(r53, zone_id):
    """Plan generation 2 over two addresses, applied over generation 1 (so its health checks exist
    when prepare runs); (what prepare computed, the name read after)."""
    enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), FULL)
    plan = make_plan(zone_id, 2, INCIDENT_IPS[:2])
    prepared = prepare(r53, plan, FULL)
    enact(r53, plan, FULL)
    return prepared, read_name(r53, zone_id, NAME)


def _set_ids(fresh) -> list[str]:
    return sorted(r["SetIdentifier"] for r in fresh.records)


def test_the_name_exactly_as_planned_reads_back_with_no_notes(r53, zone_id):
    prepared, fresh = _applied(r53, zone_id)
    assert read_back(fresh, prepared) == []


def test_a_later_generation_is_the_only_read_back_note(r53, zone_id):
    """Another batch landed after this one: its records are not this plan's, so nothing else is compared."""
    prepared, _ = _applied(r53, zone_id)
    enact(r53, make_plan(zone_id, 3, INCIDENT_IPS[2:5]), FULL)
    later = read_name(r53, zone_id, NAME)
    assert read_back(later, prepared) == [
        "read back: live generation is now 3 (another batch landed after this one)"]


def test_a_record_set_beside_the_plans_is_named(r53, zone_id):
    prepared, fresh = _applied(r53, zone_id)
    extra = copy.deepcopy(fresh.records[0])
    extra["SetIdentifier"] = "hand-made"
    fresh = dataclasses.replace(fresh, records=[*fresh.records, extra])
    assert read_back(fresh, prepared) == [
        f"read back: {NAME}. also holds record sets this plan does not: hand-made "
        "(another writer's batch landed beside this one; Route 53 refuses that, moto does not)"]


def test_a_missing_record_set_is_named(r53, zone_id):
    prepared, fresh = _applied(r53, zone_id)
    gone = _set_ids(fresh)[0]
    fresh = dataclasses.replace(fresh, records=[r for r in fresh.records if r["SetIdentifier"] != gone])
    assert read_back(fresh, prepared) == [f"read back: record sets of this plan missing: {gone}"]


@pytest.mark.parametrize("field", ["ResourceRecords", "TTL", "HealthCheckId"])
def test_a_record_set_with_another_value_ttl_or_health_check_is_named(r53, zone_id, field):
    prepared, fresh = _applied(r53, zone_id)
    records = copy.deepcopy(fresh.records)
    changed = records[0]
    changed[field] = {"ResourceRecords": [{"Value": "198.51.100.7"}], "TTL": 61, "HealthCheckId": "hc-by-hand"}[field]
    fresh = dataclasses.replace(fresh, records=records)
    assert read_back(fresh, prepared) == [f"read back: record sets that differ from the plan: {changed['SetIdentifier']}"]


def test_a_failed_read_back_says_the_batch_is_applied_and_how_to_look(r53, zone_id):
    """The batch is sent, then ListResourceRecordSets is denied: applied, "not read", and one note."""
    sent = r53.change_resource_record_sets
    denied = botocore.exceptions.ClientError(
        {"Error": {"Code": "AccessDenied", "Message": "not route53:ListResourceRecordSets"},
         "ResponseMetadata": {"HTTPStatusCode": 403}}, "ListResourceRecordSets")

    def send_then_deny(**kwargs):
        answer = sent(**kwargs)

        def deny(**_kwargs):
            raise denied

        r53.list_resource_record_sets = deny
        return answer

    r53.change_resource_record_sets = send_then_deny
    result = enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), FULL)
    assert result.status == "applied" and result.read_back == "not read"
    assert result.notes[-1] == ("read back failed (AccessDenied: not route53:ListResourceRecordSets): "
                                f"the batch is applied; check with {SHOW.format(zone_id=zone_id)}")


def test_outcome_unknown_says_where_to_look():
    exc = OutcomeUnknown("the batch may be applied", "edge-origin plan show --name a.example.com --zone-id Z1")
    assert str(exc) == "the batch may be applied; see what is live: edge-origin plan show --name a.example.com --zone-id Z1"
    assert exc.show_command == "edge-origin plan show --name a.example.com --zone-id Z1"


def test_without_a_wait_given_enact_waits_300_seconds_for_insync():
    r53, zone_id = strict_zone(insync_after_polls=10**6)
    time = FakeClock()
    result = enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), EnactOptions(max_change_share=1.0),
                   sleep=time.sleep, clock=time.clock)
    assert result.insync is False and time.now == 300.0
    assert f"change {result.change_id} applied but not INSYNC after 300 s" in result.notes


def test_without_retries_given_enact_plans_again_three_times_then_refuses(r53, zone_id):
    """A lower generation lands between each read and each batch: 1 attempt + 3 retries, then refused."""
    landed = []

    def another_writer_lands(_prepared) -> None:
        landed.append(len(landed) + 2)
        enact(r53, make_plan(zone_id, landed[-1], INCIDENT_IPS[:2]), FULL)

    enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), FULL)
    with pytest.raises(Refusal, match=r"^lost 4 races in a row \(generation 5 was applied while this plan waited\); "
                                      r"not retrying further$"):
        enact(r53, make_plan(zone_id, 100, INCIDENT_IPS[:3]), EnactOptions(max_change_share=1.0, wait_s=0),
              after_read=another_writer_lands)
    assert landed == [2, 3, 4, 5]


def test_a_twin_run_that_applies_this_plan_first_makes_the_retry_a_no_op(r53, zone_id, monkeypatch):
    """Lost a race to generation 2; before the fresh read, a twin run of this same plan landed it:
    no-op, on the second attempt."""
    plain_prepare = enact_module.prepare
    plan = make_plan(zone_id, 5, INCIDENT_IPS[:3])
    reads = []

    def prepare_after_the_twin(client, plan_, options, *, zone=None, **kw):
        if plan_ is not plan:  # the lower generation's own run
            return plain_prepare(client, plan_, options, zone=zone, **kw)
        reads.append(plan_.generation)
        if len(reads) == 2:
            monkeypatch.setattr(enact_module, "prepare", plain_prepare)
            enact(r53, plan, FULL)  # the twin
        return plain_prepare(client, plan_, options, zone=zone, **kw)

    def lower_generation_lands(_prepared) -> None:
        enact(r53, make_plan(zone_id, 2, INCIDENT_IPS[:2]), FULL)

    enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), FULL)
    monkeypatch.setattr(enact_module, "prepare", prepare_after_the_twin)
    result = enact(r53, plan, FULL, after_read=lower_generation_lands)
    assert result.status == "no-op" and result.attempts == 2
    assert reads == [5, 5]


def test_a_dry_run_and_a_first_try_count_one_attempt(r53, zone_id):
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:2])
    dry = enact(r53, plan, EnactOptions(dry_run=True, max_change_share=1.0))
    assert dry.status == "dry-run" and dry.to_json()["attempts"] == 1
    applied = enact(r53, plan, FULL)
    assert applied.to_json()["attempts"] == 1 and not any("planned again" in n for n in applied.notes)


_EDITS = {
    "ResourceRecords": [{"Value": "198.51.100.7"}],
    "TTL": 61,
    "HealthCheckId": "hc-by-hand",
}


@settings(max_examples=40, deadline=None)
@example(count=4, edits=["drop", "drop", "TTL", "HealthCheckId"], extras=2)  # each note lists two or more
@given(count=st.integers(2, 4), edits=st.lists(st.sampled_from(["keep", "drop", *_EDITS]), min_size=4, max_size=4),
       extras=st.integers(0, 2))
def test_read_back_names_exactly_the_sets_that_depart_from_the_plan(count, edits, extras):
    """Whatever mix of dropped, changed and added record sets the name holds, the read back names
    each in its note (added, then missing, then differing) and no other."""
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:count]), FULL)
    plan = make_plan(zone_id, 2, INCIDENT_IPS[:count])
    prepared = prepare(r53, plan, FULL)
    enact(r53, plan, FULL)
    fresh = read_name(r53, zone_id, NAME)
    records, missing, differ = [], [], []
    for record, edit in zip(copy.deepcopy(fresh.records), edits[:count], strict=True):
        if edit == "drop":
            missing.append(record["SetIdentifier"])
            continue
        if edit != "keep":
            record[edit] = _EDITS[edit]
            differ.append(record["SetIdentifier"])
        records.append(record)
    added = [f"hand-made-{n}" for n in range(extras)]
    records += [{**copy.deepcopy(fresh.records[0]), "SetIdentifier": sid} for sid in added]
    expected = []
    if added:
        expected.append(f"read back: {NAME}. also holds record sets this plan does not: {', '.join(added)} "
                        "(another writer's batch landed beside this one; Route 53 refuses that, moto does not)")
    if missing:
        expected.append(f"read back: record sets of this plan missing: {', '.join(sorted(missing))}")
    if differ:
        expected.append(f"read back: record sets that differ from the plan: {', '.join(sorted(differ))}")
    assert read_back(dataclasses.replace(fresh, records=records), prepared) == expected


def test_a_record_set_without_a_set_identifier_is_named_simple_with_its_type():
    """Beside the plan's multivalue A records the name holds a simple AAAA record (Route 53 allows it: another
    type): the read-back names it "(simple) (AAAA)"."""
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), FULL)
    plan = make_plan(zone_id, 2, INCIDENT_IPS[:2])
    prepared = prepare(r53, plan, FULL)
    enact(r53, plan, FULL)
    fresh = read_name(r53, zone_id, NAME)
    simple = {"Name": NAME + ".", "Type": "AAAA", "TTL": 60, "ResourceRecords": [{"Value": "2001:db8::7"}]}
    assert read_back(dataclasses.replace(fresh, records=[*fresh.records, simple]), prepared) == [
        f"read back: {NAME}. also holds record sets this plan does not: (simple) (AAAA) "
        "(another writer's batch landed beside this one; Route 53 refuses that, moto does not)"]
