"""enact's behaviours that surviving mutants of live/enact.py showed untested (benchmarks/mutate.py):
what the text lists for each change, what a caught StalePlan carries, and more, each asserted
as a user of the CLI or of the Python API sees it, on the strict Route 53."""

from __future__ import annotations

import pytest

from edge_origin.live.enact import EnactOptions, StalePlan, enact
from tests.live_write.conftest import (
    INCIDENT_IPS,
    NAME,
    FakeClock,
    incident_setup,
    make_plan,
    strict_zone,
    tcp_check,
)

FULL = EnactOptions(max_change_share=1.0, allow_full_change=True, wait_s=0)


def test_the_text_lists_each_change_with_its_value_or_alias_target(r53, zone_id):
    """The migration's text: the weighted aliases' DELETE lines name the NLB, the CREATE lines the IP."""
    incident_setup(r53, zone_id)
    text = enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), FULL).text()
    lines = text.splitlines()
    assert f"  DELETE {NAME}. A [nlb-1] nlb-1-abcdef.elb.us-east-1.amazonaws.com." in lines
    assert f"  DELETE {NAME}. A [nlb-2] nlb-2-ghijkl.elb.us-east-1.amazonaws.com." in lines
    assert f"  CREATE {NAME}. A [nlb-203-0-113-10] 203.0.113.10" in lines
    assert f"  CREATE {NAME}. A [nlb-203-0-113-11] 203.0.113.11" in lines


def test_a_caught_stale_plan_carries_the_live_generation(r53, zone_id):
    """docs/live.md: ``except StalePlan as exc`` -- the live generation is there to plan above it."""
    enact(r53, make_plan(zone_id, 7, INCIDENT_IPS[:3]), FULL)
    with pytest.raises(StalePlan) as exc:
        enact(r53, make_plan(zone_id, 3, INCIDENT_IPS[:3]), FULL)
    assert exc.value.live_generation == 7
    assert str(exc.value) == "stale plan: live generation is 7"


def test_the_text_counts_the_health_checks_to_create_or_created(r53, zone_id):
    """A dry run says how many it would create, an apply how many it created, a reuse says nothing."""
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:2])
    dry = enact(r53, plan, EnactOptions(dry_run=True, max_change_share=1.0)).text().splitlines()
    assert "  health checks to create: 2" in dry and not any("health checks created" in line for line in dry)
    applied = enact(r53, plan, FULL).text().splitlines()
    assert "  health checks created: 2" in applied and not any("to create" in line for line in applied)
    reused = enact(r53, make_plan(zone_id, 2, INCIDENT_IPS[:2]), FULL).text()
    assert "health checks" not in reused


def _change_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.startswith("  change /change/")]
    assert len(lines) == 1, text
    return lines[0].split(": ", 1)[1]


@pytest.mark.parametrize(("wait_s", "get_change_throttled", "said", "insync"), [
    (30.0, False, "INSYNC", True),                  # polled until INSYNC
    (0.0, False, "not yet INSYNC", False),          # --wait 0: not polled, the answer said PENDING
    (30.0, True, "INSYNC not confirmed", None),     # get_change failed every attempt
])
def test_the_change_line_says_whether_insync_was_seen(wait_s, get_change_throttled, said, insync):
    from edge_origin.testing.faults import Faults

    r53, zone_id = strict_zone(insync_after_polls=1)
    faults = Faults()
    if get_change_throttled:
        faults.throttle("GetChange", times=None)
    result = enact(faults.attach(r53), make_plan(zone_id, 1, INCIDENT_IPS[:2]),
                   EnactOptions(max_change_share=1.0, wait_s=wait_s), sleep=lambda _s: None)
    assert result.status == "applied" and result.insync is insync
    assert _change_line(result.text()) == said


def test_the_batch_comment_names_the_plan_and_keeps_route53s_256_characters(r53, zone_id):
    """The change's Comment (what the Route 53 console and get_change show): the plan's own
    comment after the digest, cut to the 256 characters Route 53 takes."""
    import dataclasses

    plain = make_plan(zone_id, 1, INCIDENT_IPS[:2])
    base = f"edge-origin enact {NAME}. generation 1 digest {plain.digest()}"
    result = enact(r53, plain, FULL)
    assert r53.get_change(Id=result.change_id)["ChangeInfo"]["Comment"] == base
    short = dataclasses.replace(make_plan(zone_id, 2, INCIDENT_IPS[:2]), comment="ticket OPS-42")
    result = enact(r53, short, FULL)
    assert r53.get_change(Id=result.change_id)["ChangeInfo"]["Comment"].endswith(" digest " + short.digest() + ": ticket OPS-42")
    long = dataclasses.replace(make_plan(zone_id, 3, INCIDENT_IPS[:2]), comment="x" * 300)
    result = enact(r53, long, FULL)
    comment = r53.get_change(Id=result.change_id)["ChangeInfo"]["Comment"]
    assert len(comment) == 256 and comment.startswith(f"edge-origin enact {NAME}. generation 3 digest {long.digest()}: xxx")


def test_allow_full_change_notes_the_share_it_let_through(r53, zone_id):
    """Above --max-change-share, --allow-full-change applies and says how much changed; below it, no such note."""
    incident_setup(r53, zone_id)
    result = enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), EnactOptions(allow_full_change=True, wait_s=0))
    assert "100% of the record sets change at once (--allow-full-change)" in result.notes
    assert "  note: 100% of the record sets change at once (--allow-full-change)" in result.text().splitlines()
    small = enact(r53, make_plan(zone_id, 2, INCIDENT_IPS[:3]), EnactOptions(allow_full_change=True, wait_s=0))
    assert small.added == ["nlb-203-0-113-12"] and not any("change at once" in n for n in small.notes)


def test_a_first_plan_on_an_empty_name_counts_as_a_full_change(r53, zone_id):
    """Nothing live: every record set is new (100 %), and no share guard applies to an empty name."""
    result = enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), EnactOptions(wait_s=0))
    assert result.status == "applied" and result.change_share == 1.0
    assert "(100% changed)" in result.text()


def test_the_migration_note_only_when_another_routing_policy_was_live(r53, zone_id):
    incident_setup(r53, zone_id)
    first = enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), FULL)
    assert "routing-policy migration: weighted -> multivalue in one batch" in first.notes
    second = enact(r53, make_plan(zone_id, 2, INCIDENT_IPS[:3]), FULL)
    assert second.added == ["nlb-203-0-113-12"] and not any("routing-policy migration" in n for n in second.notes)


def test_a_note_says_when_every_health_check_is_new(r53, zone_id):
    """Health is known for none of the records when all their checks are made by this run."""
    new = enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), FULL)
    assert "health is known for none of the records yet: 2 health checks are new" in new.notes
    known = {INCIDENT_IPS[0]: tcp_check(r53, INCIDENT_IPS[0], ref="known")}
    mixed = enact(r53, make_plan(zone_id, 2, INCIDENT_IPS[:3], health_check_ids=known), FULL)
    assert len(mixed.health_checks_created) == 1  # 203.0.113.12's; .11's check from generation 1 is reused
    assert not any("health is known for none" in n for n in mixed.notes)


@pytest.mark.parametrize(("live_values", "applied"), [(997, True), (998, False)])
def test_a_batch_above_route53s_1000_values_is_refused_before_anything_is_sent(r53, zone_id, live_values, applied):
    """The batch: CREATE the generation record (1) + DELETE the simple set (its values) + CREATE 2
    records. 1,000 values is Route 53's limit, and it is allowed; 1,001 is refused by enact itself."""
    from edge_origin.live.enact import Refusal

    values = [f"10.0.{n // 250}.{n % 250 + 1}" for n in range(live_values)]
    simple = {"Name": NAME, "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": v} for v in values]}
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": simple}]})
    batches = r53.batches_applied
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:2])
    if applied:
        result = enact(r53, plan, FULL)
        assert result.status == "applied" and len(result.change_batch["Changes"]) == 4
        assert r53.batches_applied == batches + 1
        return
    with pytest.raises(Refusal, match=r"^the batch would hold 1001 values, Route 53 takes at most 1000 in one batch$"):
        enact(r53, plan, FULL)
    assert r53.calls.get("CreateHealthCheck", 0) == 0 and r53.calls.get("ChangeResourceRecordSets") == 1
    assert r53.batches_applied == batches and r53.batches_refused == 0


def test_a_wait_that_ends_before_insync_is_noted_with_its_length():
    """--wait 1 and the change never INSYNC: applied, "not yet INSYNC", and a note naming the 1 s."""

    r53, zone_id = strict_zone(insync_after_polls=10**6)
    time = FakeClock()
    result = enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), EnactOptions(max_change_share=1.0, wait_s=1),
                   sleep=time.sleep, clock=time.clock)
    assert result.status == "applied" and result.insync is False and _change_line(result.text()) == "not yet INSYNC"
    assert f"change {result.change_id} applied but not INSYNC after 1 s" in result.notes
    unwaited = enact(r53, make_plan(zone_id, 2, INCIDENT_IPS[:2]), FULL)  # --wait 0: not waiting is no news
    assert unwaited.insync is False and not any("not INSYNC after" in n for n in unwaited.notes)


@pytest.mark.parametrize(("status", "code", "shown", "transient"), [
    (500, "InternalServerError", "InternalServerError: try later", True),  # any 5xx may pass, whatever its code
    (503, "", "HTTP 503", True),                                          # no code in the answer: its status
    (400, "ValidationError", "ValidationError: try later", False),
    (499, "ClientClosedRequest", "ClientClosedRequest: try later", False),  # below 5xx: not by status
])
def test_an_aws_error_before_the_batch_is_transient_by_code_or_5xx_status(r53, zone_id, status, code, shown, transient):
    """Exit 3 (TransientFailure) or exit 1 (EnactFailed), the error shown by its code or its HTTP status."""
    from edge_origin.live.enact import EnactFailed, TransientFailure
    from edge_origin.testing.faults import Fault, Faults

    faults = Faults().add(Fault("server_error", "ListHealthChecks", None, 0, status, code, "try later" if code else ""))
    expected = TransientFailure if transient else EnactFailed
    with pytest.raises(expected) as exc:
        enact(faults.attach(r53), make_plan(zone_id, 1, INCIDENT_IPS[:2]), FULL)
    assert type(exc.value) is expected
    assert str(exc.value) == f"reading the name: {shown} (before the batch was sent: nothing changed)"
    assert r53.batches_applied == 0


def test_insync_in_the_last_half_second_of_the_wait_is_seen():
    """--wait 16: polls at 0, 0.5, 1.5, 3.5, 7.5, 15.5 s and, with 0.5 s left, once more at 16 s."""

    r53, zone_id = strict_zone(insync_after_polls=6)
    time = FakeClock()
    result = enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), EnactOptions(max_change_share=1.0, wait_s=16),
                   sleep=time.sleep, clock=time.clock)
    assert result.insync is True and _change_line(result.text()) == "INSYNC"
    assert r53.calls["GetChange"] == 7 and time.now == 16.0


def test_without_options_enact_uses_the_defaults(r53, zone_id):
    """No options: --max-change-share 0.5 without --allow-full-change, so the migration is refused."""
    from edge_origin.live.enact import Refusal

    incident_setup(r53, zone_id)
    with pytest.raises(Refusal, match=r"above --max-change-share 0\.5; pass --allow-full-change"):
        enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]))
    assert r53.calls.get("CreateHealthCheck", 0) == 0


def test_a_dry_run_says_its_health_check_ids_are_placeholders_only_when_it_has_some(r53, zone_id):
    note = "HealthCheckId values in <...> are placeholders for the health checks in health_checks_to_create"
    dry = EnactOptions(dry_run=True, max_change_share=1.0)
    new = enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), dry)
    assert note in new.notes
    assert {c["ResourceRecordSet"].get("HealthCheckId") for c in new.change_batch["Changes"] if c["ResourceRecordSet"]["Type"] == "A"} == {
        "<created by enact: nlb-203-0-113-10>", "<created by enact: nlb-203-0-113-11>"}
    ids = {ip: tcp_check(r53, ip) for ip in INCIDENT_IPS[:2]}
    known = enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2], health_check_ids=ids), dry)
    assert not known.health_checks_to_create and note not in known.notes


@pytest.mark.parametrize(("other_generation", "retries"), [(9, 0), (4, 3)])
def test_losing_the_batch_to_a_generation_at_or_above_this_one_is_stale_whatever_the_retries(r53, zone_id, other_generation, retries):
    """Another writer lands generation 9 (above 4) or its own 4 while this plan 4 waits: never planned again."""
    from edge_origin.live.name_state import read_name

    enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:3]), FULL)

    def overtaken(_prepared) -> None:
        enact(r53, make_plan(zone_id, other_generation, INCIDENT_IPS[:5]), FULL)

    options = EnactOptions(max_change_share=1.0, allow_full_change=True, wait_s=0, retries=retries)
    with pytest.raises(StalePlan) as exc:
        enact(r53, make_plan(zone_id, 4, INCIDENT_IPS[1:3]), options, after_read=overtaken)
    assert str(exc.value) == f"stale plan: live generation is {other_generation}"
    live = read_name(r53, zone_id, NAME)
    assert live.live_generation == other_generation and len(live.records) == 5


def test_cleanup_of_a_name_never_enacted_and_keep_one(r53, zone_id, tmp_path):
    """No generation record: every stored plan is newer than live (0), none is removed. keep=1 keeps
    the newest stored plan even when it is neither the live nor the previous one."""
    from edge_origin.live.enact import PlanStore

    store = PlanStore(tmp_path)
    saved = store.save(make_plan(zone_id, 1, INCIDENT_IPS[:2]))
    assert saved == tmp_path / "origin.example.com" / "1.json" and saved.is_file()
    store.save(make_plan(zone_id, 2, INCIDENT_IPS[:2]))
    assert store.cleanup(r53, zone_id, NAME, keep=0) == [] and store.generations(NAME) == [1, 2]
    for gen in (1, 2, 3, 4, 5):
        plan = make_plan(zone_id, gen, INCIDENT_IPS[:2])
        if gen <= 3:
            store.save(plan)
        enact(r53, plan, FULL)
    # live 5 and previous 4 are not stored: keep=1 keeps 3, the newest stored one
    assert store.cleanup(r53, zone_id, NAME, keep=1) == [1, 2]
    assert store.generations(NAME) == [3]


class _BusyWriters:
    """A client behind which another writer lands the next generation after every A-record listing."""

    def __init__(self, r53, zone_id: str) -> None:
        self._r53, self._zone_id, self.generation = r53, zone_id, 1

    def __getattr__(self, name: str):
        return getattr(self._r53, name)

    def list_resource_record_sets(self, **kwargs):
        page = self._r53.list_resource_record_sets(**kwargs)
        if kwargs.get("StartRecordType") == "A":
            self.generation += 1
            enact(self._r53, make_plan(self._zone_id, self.generation, INCIDENT_IPS[:2]), FULL)
        return page


def test_a_name_whose_generation_moves_on_every_read_is_not_applied_and_safe_to_retry(r53, zone_id):
    """Exit 3: the view never settled, nothing of this plan was sent."""
    from edge_origin.live.enact import TransientFailure
    from edge_origin.live.name_state import CONSISTENT_READ_ATTEMPTS

    enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), FULL)
    client = _BusyWriters(r53, zone_id)
    with pytest.raises(TransientFailure) as exc:
        enact(client, make_plan(zone_id, 100, INCIDENT_IPS[:3]), FULL)
    assert exc.value.retry_safe
    assert str(exc.value) == (f"reading the name: {NAME}.: the generation record changed on each of {CONSISTENT_READ_ATTEMPTS} "
                              "reads (other writers are busy); try again")
    assert r53.batches_applied == client.generation  # generation 1 and the busy writers' batches, none of plan 100


def test_a_generation_record_deleted_by_hand_before_the_batch_makes_the_outcome_unknown(r53, zone_id):
    """Not another edge-origin writer (no generation landed), not the state read before: unknown, exit 4."""
    from edge_origin.live.enact import OutcomeUnknown, judge, prepare
    from edge_origin.live.name_state import read_name

    enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2]), FULL)
    plan = make_plan(zone_id, 2, INCIDENT_IPS[:3])

    def delete_generation_record(prepared) -> None:
        r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [
            {"Action": "DELETE", "ResourceRecordSet": prepared.live.generation_record}]})

    prepared = prepare(r53, plan, FULL)
    delete_generation_record(prepared)
    assert judge(read_name(r53, zone_id, NAME), prepared) == "unknown"
    enact(r53, make_plan(zone_id, 3, INCIDENT_IPS[:2]), FULL)  # a fresh generation record again
    with pytest.raises(OutcomeUnknown, match="holds neither generation 4 of this plan nor the state read before it"):
        enact(r53, make_plan(zone_id, 4, INCIDENT_IPS[:3]), FULL, after_read=delete_generation_record)
    live = read_name(r53, zone_id, NAME)
    assert live.generation is None and len(live.records) == 2
