"""Issue 38 (mutation testing of live/enact.py, fifth round): what enact records and calls after the batch
call failed or once it applied, as a user and the next run see it: the journal entry of a lost race
(its cause), Route 53's change history read only where the zone keeps one, the refusal after the history
says "not applied" and the name changed meanwhile, an AWS message shown as sent, and the health check
clean-up (this name's checks only, stopped when another generation lands, no zone lookup)."""

from __future__ import annotations

import dataclasses
import re

import pytest

from edge_origin.live.enact import (
    EnactFailed,
    EnactOptions,
    OutcomeUnknown,
    PlanStore,
    Refusal,
    StalePlan,
    TransientFailure,
    enact,
)
from edge_origin.live.health_owner import unused_owned
from edge_origin.live.name_state import read_name
from edge_origin.testing.faults import Fault, Faults
from tests.live_write.conftest import NAME, make_plan, strict_zone

FULL = EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0)
KEEP = EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0, keep_health_checks=True)
IPS = ["203.0.113.10", "203.0.113.11", "203.0.113.12", "203.0.113.13"]
INTERNAL = "InternalFailure: We encountered an internal error. Please try again."
OTHER = "other.example.com"
OTHER_IPS = ["198.51.100.20", "198.51.100.21", "198.51.100.22"]


class Hooked:
    """``inner`` with ``before_batch(params)`` run just before the first batch call, a count of each
    operation's calls made after that batch was sent (``after``), and ``on_call[operation]`` run once
    before the first such call after the batch."""

    def __init__(self, inner, *, before_batch=None, on_call=None):
        self.inner, self.before_batch, self.on_call = inner, before_batch, dict(on_call or {})
        self.sent = False
        self.after: dict[str, int] = {}

    def __getattr__(self, name):
        method = getattr(self.inner, name)
        if name == "change_resource_record_sets" and not self.sent:
            def send(**params):
                if self.before_batch is not None:
                    self.before_batch(params)
                self.sent = True
                return method(**params)
            return send
        if not self.sent:
            return method

        def call(*args, **params):
            self.after[name] = self.after.get(name, 0) + 1
            hook = self.on_call.pop(name, None)
            if hook is not None:
                hook()
            return method(*args, **params)
        return call


def _live(generation: int = 1, ips: list[str] | None = None):
    r53, zone_id = strict_zone()
    for gen in range(1, generation + 1):
        enact(r53, make_plan(zone_id, gen, ips or IPS[:2]), FULL)
    return r53, zone_id


def _protect(r53, zone_id):
    r53.create_resource_record_set_protections(HostedZoneId=zone_id, Protections=[{"RecordName": NAME, "RecordType": "A"}])


def _outsider(r53, zone_id):
    """An ``after_read`` hook: an outsider adds a record set of the name and protects it."""
    def outsider(_prepared):
        r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": {
            "Name": NAME, "Type": "A", "SetIdentifier": "outsider", "MultiValueAnswer": True, "TTL": 60,
            "ResourceRecords": [{"Value": "198.51.100.7"}]}}]})
        _protect(r53, zone_id)
    return outsider


def _delete_a_planned_check(r53):
    def delete(params):
        created = [c["ResourceRecordSet"]["HealthCheckId"] for c in params["ChangeBatch"]["Changes"]
                   if c["Action"] == "CREATE" and c["ResourceRecordSet"]["Type"] == "A"]
        r53.delete_health_check(HealthCheckId=created[-1])
    return delete


def test_a_race_lost_to_a_deleted_health_check_is_journaled_with_its_cause_and_reads_no_zone(tmp_path):
    """--retries 0: the lost race is the outcome; the journal says what Route 53 answered, and the re-read
    after the error uses the zone name already known (no GetHostedZone)."""
    r53, zone_id = _live()
    plan = make_plan(zone_id, 2, IPS[1:3])
    store = PlanStore(tmp_path / "store")
    client = Hooked(r53, before_batch=_delete_a_planned_check(r53))
    with pytest.raises(Refusal) as exc:
        enact(client, plan, EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0, retries=0),
              journal=store.journal(plan))
    # the live generation is still the one read before (1): no other writer landed; the cause is the deleted check
    deleted = r"a health check of this plan was deleted while it waited \(NoSuchHealthCheck: A health check with id [0-9a-f-]+ does not exist\.\)"
    assert re.fullmatch(rf"lost 1 races in a row \({deleted}\); not retrying further", str(exc.value)), str(exc.value)
    entry = store.state(NAME, 2)
    assert entry["state"] == "not-applied" and len(entry["notes"]) == 1
    assert re.fullmatch(deleted, entry["notes"][0]), entry["notes"]
    # one GetHostedZone after the batch: whether the zone keeps a change history; the re-read asks for none
    assert client.after.get("get_hosted_zone", 0) == 1 and client.after["list_resource_record_sets"] >= 1
    assert read_name(r53, zone_id, NAME).live_generation == 1


def test_a_batch_refused_because_another_writers_generation_landed_is_journaled_with_the_refusal(tmp_path):
    r53, zone_id = _live()
    plan = make_plan(zone_id, 2, IPS[1:3])
    store = PlanStore(tmp_path / "store")

    def other_writer(_params):
        enact(r53, make_plan(zone_id, 3, IPS[2:4]), FULL)

    client = Hooked(r53, before_batch=other_writer)
    with pytest.raises(StalePlan) as exc:
        enact(client, plan, FULL, journal=store.journal(plan))
    assert str(exc.value) == "stale plan: live generation is 3"
    entry = store.state(NAME, 2)
    assert entry["state"] == "not-applied" and len(entry["notes"]) == 1
    assert entry["notes"][0].startswith("another writer's generation 3 landed: InvalidChangeBatch: ")
    assert client.after.get("get_hosted_zone", 0) == 1  # the change history's probe; the re-read asks for no zone


def test_history_says_not_applied_and_the_name_changed_meanwhile_is_a_failure_naming_the_generation():
    """An ADVANCED zone (change history on): an outsider's record set and a protection land between the read
    and the batch; the batch is refused, the history holds no such batch: not applied, said whole."""
    r53, zone_id = _live()
    r53.update_hosted_zone_tier(HostedZoneId=zone_id, HostedZoneTier="ADVANCED")

    with pytest.raises(EnactFailed) as exc:
        enact(r53, make_plan(zone_id, 2, IPS[1:3]), FULL, after_read=_outsider(r53, zone_id))
    assert type(exc.value) is EnactFailed
    assert str(exc.value) == (
        f"change_resource_record_sets failed (InvalidChangeBatch: [Tried to delete resource record set [name='{NAME}.', "
        "type='A'] but it is protected by a resource record set protection (DeleteResourceRecordSetProtections first)]); "
        "Route 53's change history holds no such batch: not applied (the name changed meanwhile: generation 1)")


def test_a_zone_without_change_history_is_not_asked_for_it():
    """A STANDARD zone: after the batch failed and the name cannot be read back, the outcome is unknown
    (no history to decide it) and ListHostedZoneChangeBatches is never called."""
    r53, zone_id = _live()

    def refuse_listing():
        raise r53._error("AccessDenied", "not allowed to list", "ListResourceRecordSets", 403)

    faulty = Faults().server_error("ChangeResourceRecordSets", times=3).attach(r53)
    client = Hooked(faulty)
    client.on_call["list_resource_record_sets"] = refuse_listing
    with pytest.raises(OutcomeUnknown) as exc:
        enact(client, make_plan(zone_id, 2, IPS[1:3]), FULL)
    assert str(exc.value).startswith(f"change_resource_record_sets failed ({INTERNAL}) and the name could not be read "
                                     "back (AccessDenied: not allowed to list)")
    assert r53.calls.get("ListHostedZoneChangeBatches", 0) == 0 and r53.calls.get("GetHostedZoneChangeBatch", 0) == 0


@pytest.mark.parametrize(("message", "shown"), [
    ("Invalid value for PREFIX", "InvalidInput: Invalid value for PREFIX"),  # a message's last letters are its own
    ("", "InvalidInput"),                                                    # no message: the code alone
])
def test_an_aws_message_is_shown_as_sent(message, shown):
    r53, zone_id = _live()
    faults = Faults().add(Fault("server_error", "ListHealthChecks", None, 0, 400, "InvalidInput", message))
    with pytest.raises(EnactFailed) as exc:
        enact(faults.attach(r53), make_plan(zone_id, 2, IPS[1:3]), FULL)
    assert str(exc.value) == f"reading the name: {shown} (before the batch was sent: nothing changed)"


def test_a_message_without_a_code_is_shown_by_its_status_and_only_5xx_is_transient():
    r53, zone_id = _live()
    faults = Faults().add(Fault("server_error", "ListHealthChecks", None, 0, 502, "", ""))
    with pytest.raises(TransientFailure) as exc:
        enact(faults.attach(r53), make_plan(zone_id, 2, IPS[1:3]), FULL)
    assert str(exc.value) == "reading the name: HTTP 502 (before the batch was sent: nothing changed)"


def test_clean_up_deletes_this_names_unused_checks_only():
    """Another name in the zone keeps its unused checks (--keep-health-checks there): enacting this name
    deletes only this name's."""
    r53, zone_id = strict_zone()
    for gen in (1, 2):
        other = dataclasses.replace(make_plan(zone_id, gen, OTHER_IPS[gen - 1:gen + 1]), name=OTHER)
        enact(r53, other, KEEP)
    others = {c.id for c in unused_owned(r53, OTHER)}
    assert others, "the other name has unused checks of its own"
    for gen in (1, 2, 3):
        result = enact(r53, make_plan(zone_id, gen, IPS[gen - 1:gen + 1]), FULL)
    assert result.health_checks_deleted and not set(result.health_checks_deleted) & others
    assert result.notes[-1] == (f"deleted {len(result.health_checks_deleted)} health check(s) this name owned that no "
                                "record uses (--keep-health-checks keeps them)")
    assert {c.id for c in unused_owned(r53, OTHER)} == others and unused_owned(r53, NAME) == []


def test_clean_up_stops_when_another_generation_lands_and_looks_up_no_zone():
    """Between two deletions another writer applies generation 4: the clean-up stops and says so; while it
    ran, enact asked for no zone (the zone name is known from the read)."""
    r53, zone_id = strict_zone()
    for gen in (1, 2):
        enact(r53, make_plan(zone_id, gen, IPS[gen - 1:gen + 1]), KEEP)
    before = set(c.id for c in unused_owned(r53, NAME))

    def another_generation():
        enact(r53, make_plan(zone_id, 4, IPS[2:4]), KEEP)

    client = Hooked(r53, on_call={"list_tags_for_resource": another_generation})
    result = enact(client, make_plan(zone_id, 3, IPS[1:3]), FULL)
    assert result.status == "applied"
    assert "health check clean-up stopped: another generation became live meanwhile" in result.notes
    assert result.health_checks_deleted == [] and before <= {c.id for c in unused_owned(r53, NAME)}
    assert client.after.get("get_hosted_zone", 0) == 0


def test_clean_up_reads_no_zone_when_nothing_interferes():
    r53, zone_id = strict_zone()
    for gen in (1, 2):
        enact(r53, make_plan(zone_id, gen, IPS[gen - 1:gen + 1]), KEEP)
    client = Hooked(r53)
    result = enact(client, make_plan(zone_id, 3, IPS[2:4]), FULL)
    assert len(result.health_checks_deleted) == 2 and client.after.get("get_hosted_zone", 0) == 0
    assert client.after["list_resource_record_sets"] >= 2  # the read-back and the clean-up's still-live check


def test_a_clean_up_that_cannot_list_the_checks_says_so_and_the_plan_stands():
    r53, zone_id = strict_zone()
    for gen in (1, 2):
        enact(r53, make_plan(zone_id, gen, IPS[gen - 1:gen + 1]), KEEP)

    def denied():
        raise r53._error("AccessDenied", "not allowed to list health checks", "ListHealthChecks", 403)

    result = enact(Hooked(r53, on_call={"get_paginator": denied}), make_plan(zone_id, 3, IPS[2:4]), FULL)
    assert result.status == "applied" and result.read_back == "matches" and result.health_checks_deleted == []
    assert result.notes[-1] == ("unused health checks not cleaned (AccessDenied: not allowed to list health checks); "
                                "the plan is applied")
    assert len(unused_owned(r53, NAME)) == 2


def test_a_stop_during_the_read_back_of_an_applied_batch_says_applied(tmp_path, monkeypatch):
    """The drill signals at the read-back after a batch that was answered: the stop is reported with what
    the read-back after it found (the batch is live, its change id known)."""
    from edge_origin.live import steps
    from tests.live_write.test_enact_interrupt_notes import _drill

    r53, zone_id = _live()
    monkeypatch.setattr(steps, "_counts", {})  # "#1": the first read-back of this run, not the one after the stop
    exc = _drill(monkeypatch, "during-read-back#1", lambda: enact(r53, make_plan(zone_id, 2, IPS[1:3]), FULL))
    assert exc.outcome == "applied" and exc.change_id.startswith("/change/")
    assert str(exc).startswith("interrupted (KeyboardInterrupt) after the batch may have been sent; read back: applied: "
                               f"generation 2 of this plan is live (change {exc.change_id})")


def test_a_batch_refused_after_enact_looked_is_journaled_not_applied_with_the_message(tmp_path):
    r53, zone_id = _live()
    plan = make_plan(zone_id, 2, IPS[1:3])
    store = PlanStore(tmp_path / "store")

    with pytest.raises(EnactFailed) as exc:
        enact(r53, plan, FULL, after_read=lambda _p: _protect(r53, zone_id), journal=store.journal(plan))
    entry = store.state(NAME, 2)
    assert (entry["state"], entry["notes"]) == ("not-applied", [str(exc.value)])


def test_an_outcome_enact_cannot_tell_is_journaled_unknown_with_the_message(tmp_path):
    r53, zone_id = _live()
    plan = make_plan(zone_id, 2, IPS[1:3])
    store = PlanStore(tmp_path / "store")

    with pytest.raises(OutcomeUnknown) as exc:
        enact(r53, plan, FULL, after_read=_outsider(r53, zone_id), journal=store.journal(plan))
    entry = store.state(NAME, 2)
    assert (entry["state"], entry["notes"]) == ("unknown", [str(exc.value)])


def test_the_change_history_is_searched_from_the_utc_time_the_batch_was_sent(monkeypatch):
    """On a machine whose clock is set to Tokyo time the batch's send time is still taken in UTC: a local
    time would search the history nine hours ahead and miss the batch that landed."""
    import time

    r53, zone_id = _live()
    r53.update_hosted_zone_tier(HostedZoneId=zone_id, HostedZoneTier="ADVANCED")
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        client = Faults().server_error_after_apply("ChangeResourceRecordSets", times=None).attach(r53)
        result = enact(client, make_plan(zone_id, 2, IPS[1:3]), FULL)
    finally:
        monkeypatch.undo()
        time.tzset()
    assert result.status == "applied" and result.change_id is not None
    assert any("Route 53's change history holds it" in n for n in result.notes), result.notes


def _references(r53) -> list[str]:
    return sorted(hc["CallerReference"] for hc in r53.list_health_checks(MaxItems="1000")["HealthChecks"])


@pytest.mark.parametrize(("generation", "suffix"), [(1, "-1"), (35, "-z"), (36, "-10"), (1297, "-101")])
def test_a_new_checks_caller_reference_ends_with_its_generation_in_base_36(generation, suffix):
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, generation, IPS[:1]), KEEP)
    [reference] = _references(r53)
    assert reference.startswith("edge-origin-") and reference.endswith(suffix)
    assert len(reference) == len("edge-origin-") + 32 + len(suffix)


def test_a_check_created_after_a_lost_race_gets_a_reference_of_its_own_attempt():
    """A planned check was deleted while the plan waited: planning again creates the missing one with the
    attempt added ("-2"), so it never collides with the reference Route 53 saw first."""
    r53, zone_id = _live()
    before = set(_references(r53))
    client = Hooked(r53, before_batch=_delete_a_planned_check(r53))
    result = enact(client, make_plan(zone_id, 2, IPS[1:3]), KEEP)
    assert result.status == "applied" and result.attempts == 2
    new = [ref for ref in _references(r53) if ref not in before]
    assert new and all(ref.endswith(("-2", "-2-2")) for ref in new), new
    assert any(ref.endswith("-2-2") for ref in new), new


def test_a_reference_route_53_keeps_for_a_deleted_check_is_a_lost_race_planned_again():
    """Route 53 never takes the CallerReference of a deleted check again (HealthCheckAlreadyExists): a check
    made and deleted with the reference enact is about to use makes enact plan again with a fresh one."""
    from edge_origin.live.enact import creation_reference

    r53, zone_id = _live()
    plan = make_plan(zone_id, 2, IPS[1:3])

    taken: list[str] = []

    def take_the_reference(_prepared):  # once: the attempt after the lost race is left alone
        if taken:
            return
        record = next(r for r in plan.records if r.ip == IPS[2])
        made = r53.create_health_check(CallerReference=creation_reference(plan, record), HealthCheckConfig={
            "Type": "TCP", "IPAddress": record.ip, "Port": 443})
        r53.delete_health_check(HealthCheckId=made["HealthCheck"]["Id"])
        taken.append(made["HealthCheck"]["Id"])

    result = enact(r53, plan, KEEP, after_read=take_the_reference)
    assert result.status == "applied" and result.attempts == 2
    assert result.notes[-1] == (
        "planned again 1 time(s) from fresh reads (a health check was deleted while this plan waited (HealthCheckAlreadyExists: "
        f"A health check with caller reference {creation_reference(plan, next(r for r in plan.records if r.ip == IPS[2]))} "
        "was deleted; a new CallerReference is needed.))")


def test_new_checks_that_come_up_unhealthy_are_refused_without_planning_again():
    """Every new check reports unhealthy: a refusal on the first attempt (no check was deleted, so there is
    no race to plan again for)."""
    from edge_origin.live.enact import Refusal as Refused
    from edge_origin.testing.route53 import StrictRoute53

    r53 = StrictRoute53(new_health_checks_healthy=False)
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"].split("/")[-1]
    attempts: list[int] = []
    with pytest.raises(Refused) as exc:
        enact(r53, make_plan(zone_id, 1, IPS[:2]), FULL, after_read=lambda _p: attempts.append(1))
    assert r53.calls["ListHealthChecks"] == 1  # planned once: the checks listed once, not again to plan again
    assert str(exc.value) == ("no record of plan generation 1 is healthy now (Route 53 health checks): refusing to move "
                              f"{NAME}. onto them")
    assert attempts == [1] and r53.batches_applied == 0
