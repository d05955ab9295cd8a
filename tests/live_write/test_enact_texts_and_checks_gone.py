"""What enact says, whole, where a user reads it: the refusals that name what stays (another address
type, a policy migration, protections, a stale generation), and the health checks that vanish under
it (a reused check deleted before its status is read; a new check deleted before the batch). Also the
CallerReference an earlier release wrote, found again, and the named step before the batch.

Found by mutation testing (issue 38): each of these texts or paths could change with every test green.
"""

from __future__ import annotations

import re
import signal

import pytest
from botocore.stub import Stubber

from edge_origin.live.enact import EnactFailed, EnactOptions, Refusal, StalePlan, enact, health_state
from edge_origin.live.name_state import read_name
from edge_origin.live.plans import LiveHealthCheckSpec, LivePlanRecord, Plan
from edge_origin.live.session import LiveSession
from edge_origin.live.steps import ENV as STEP_SIGNAL
from edge_origin.testing.faults import Faults
from tests.live_write.conftest import NAME, a_record, change, make_plan, strict_zone

FULL = EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0)
KEEP = EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0, keep_health_checks=True)
IPS = ["203.0.113.10", "203.0.113.11", "203.0.113.12"]
V6 = ["2001:db8:1::10", "2001:db8:2::10"]
FQDN = NAME + "."


class Counting:
    """``inner`` with a count of each operation called and ``before[operation](params)`` run before
    each call of it (the hook returns False to stop being called)."""

    def __init__(self, inner, before=None):
        self.inner, self.before, self.calls = inner, dict(before or {}), {}

    def __getattr__(self, name):
        method = getattr(self.inner, name)
        if not callable(method):
            return method

        def call(*args, **params):
            self.calls[name] = self.calls.get(name, 0) + 1
            hook = self.before.get(name)
            if hook is not None and hook(params) is False:
                del self.before[name]
            return method(*args, **params)
        return call


def _dual_stack_plan(zone_id: str, generation: int) -> Plan:
    records = [LivePlanRecord(f"v4-{n}", ip, "us-east-1a", None, LiveHealthCheckSpec("TCP", 443)) for n, ip in enumerate(IPS[:2])]
    records += [LivePlanRecord(f"v6-{n}", ip, "us-east-1a", None, LiveHealthCheckSpec("TCP", 443)) for n, ip in enumerate(V6)]
    return Plan(NAME, zone_id, generation, 60, tuple(records))


def _aaaa(sid: str | None, ip: str, weight: int | None = None) -> dict:
    record = {"Name": NAME, "Type": "AAAA", "TTL": 60, "ResourceRecords": [{"Value": ip}]}
    if sid is not None:
        record["SetIdentifier"] = sid
    if weight is not None:
        record["Weight"] = weight
    return record


def test_an_ipv4_plan_over_a_name_holding_aaaa_is_refused_in_one_whole_line():
    r53, zone_id = strict_zone()
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [
        change("CREATE", a_record("w1", IPS[0], weight=1)), change("CREATE", _aaaa("w1", V6[0], weight=1))]})
    with pytest.raises(Refusal) as exc:
        enact(r53, make_plan(zone_id, 1, IPS[:2]), FULL)
    assert str(exc.value) == (
        f"{FQDN} also holds AAAA record sets (w1 (AAAA) (weighted)) and plan generation 1 has no AAAA records: "
        "migrating only A would leave them as they are. Add the IPv6 addresses (--address 2001:db8::10@us-east-1a, "
        "or --from-load-balancers with dualstack NLBs) so every address type moves in the same batch")


def test_a_migration_from_two_policies_names_both_in_the_refusal_and_in_the_note():
    """Route 53 allows one routing policy per name and type, so A and AAAA may differ: weighted A, simple AAAA."""
    r53, zone_id = strict_zone()
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [
        change("CREATE", a_record("w1", IPS[0], weight=1)), change("CREATE", a_record("w2", IPS[1], weight=1)),
        change("CREATE", _aaaa(None, V6[0]))]})
    plan = _dual_stack_plan(zone_id, 1)
    with pytest.raises(Refusal) as exc:
        enact(r53, plan, EnactOptions(wait_s=0))
    assert str(exc.value) == (
        f"moving {FQDN} from simple/weighted to multivalue replaces every record set in one batch (Route 53 lets one "
        "name and type hold only one routing policy): 100% changed is above --max-change-share 0.5; pass "
        "--allow-full-change to apply it")
    result = enact(r53, plan, FULL)
    assert result.status == "applied"
    assert "routing-policy migration: simple/weighted -> multivalue in one batch" in result.notes


def test_protections_on_both_address_types_are_both_named():
    r53, zone_id = strict_zone()
    enact(r53, _dual_stack_plan(zone_id, 1), FULL)
    r53.create_resource_record_set_protections(HostedZoneId=zone_id, Protections=[
        {"RecordName": NAME, "RecordType": "A"}, {"RecordName": NAME, "RecordType": "AAAA"}])
    with pytest.raises(Refusal) as exc:  # a new TTL: every set of both types changes
        enact(r53, Plan(NAME, zone_id, 2, 30, _dual_stack_plan(zone_id, 2).records), FULL)
    assert str(exc.value) == (
        f"protected by Route 53 record set protections: {FQDN} A, {FQDN} AAAA: remove the protection or pass --unprotect")


def test_a_plan_of_the_live_generation_with_other_records_says_to_give_it_a_new_generation():
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 3, IPS[:2]), FULL)
    with pytest.raises(StalePlan) as exc:
        enact(r53, make_plan(zone_id, 3, IPS[1:]), FULL)
    assert str(exc.value) == ("stale plan: live generation is 3 (same generation, different records: give the plan "
                              "a new generation)")
    with pytest.raises(StalePlan) as exc:
        enact(r53, make_plan(zone_id, 2, IPS[1:]), FULL)
    assert str(exc.value) == "stale plan: live generation is 3"


def test_a_check_an_earlier_release_created_is_found_again_by_its_caller_reference():
    """The CallerReference is how checks made by any earlier run (and release) are found again: its value
    is a contract. edge-origin 0.1 made this check for generation 2 of this record."""
    r53, zone_id = strict_zone()
    made = r53.create_health_check(CallerReference="edge-origin-5fe1354627c36b9addf48130014a43e0-2", HealthCheckConfig={
        "Type": "TCP", "IPAddress": IPS[0], "Port": 443, "RequestInterval": 10, "FailureThreshold": 3})["HealthCheck"]["Id"]
    result = enact(r53, make_plan(zone_id, 3, IPS[:1]), FULL)
    assert result.status == "applied" and result.health_checks_created == {}
    assert [r["HealthCheckId"] for r in read_name(r53, zone_id, NAME).records] == [made]


def test_a_reused_check_deleted_before_its_status_is_read_is_made_anew():
    """Another enactor's clean-up deletes a check this plan found by CallerReference between the listing and
    the status read: that record gets a new check; the others keep theirs, and health is known for them."""
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, IPS[:2]), FULL)
    enact(r53, make_plan(zone_id, 2, IPS[2:]), KEEP)  # generation 1's checks are no longer used ...
    kept = {r53.get_health_check(HealthCheckId=h["Id"])["HealthCheck"]["HealthCheckConfig"]["IPAddress"]: h["Id"]
            for h in r53.list_health_checks()["HealthChecks"]}
    assert set(kept) >= set(IPS[:2])  # ... but kept: found again by CallerReference
    gone = kept[IPS[0]]

    def delete_first(params):
        r53.delete_health_check(HealthCheckId=gone)
        return False

    client = Counting(r53, before={"get_health_check_status": delete_first})
    result = enact(client, make_plan(zone_id, 3, IPS[:2]), FULL)
    assert result.status == "applied" and result.attempts == 1
    assert list(result.health_checks_created) == ["nlb-203-0-113-10"]
    assert not any(n.startswith("health is known for none") for n in result.notes)
    live = {r["ResourceRecords"][0]["Value"]: r["HealthCheckId"] for r in read_name(r53, zone_id, NAME).records}
    assert live == {IPS[0]: result.health_checks_created["nlb-203-0-113-10"], IPS[1]: kept[IPS[1]]}
    assert live[IPS[0]] != gone


def test_every_reused_check_deleted_leaves_health_unknown_and_says_so():
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, IPS[:2]), FULL)
    enact(r53, make_plan(zone_id, 2, IPS[2:]), KEEP)
    ids = [h["Id"] for h in r53.list_health_checks()["HealthChecks"]
           if r53.get_health_check(HealthCheckId=h["Id"])["HealthCheck"]["HealthCheckConfig"]["IPAddress"] in IPS[:2]]

    def delete_all(params):
        for hc in ids:
            r53.delete_health_check(HealthCheckId=hc)
        return False

    result = enact(Counting(r53, before={"get_health_check_status": delete_all}), make_plan(zone_id, 3, IPS[:2]), FULL)
    assert result.status == "applied"
    assert sorted(result.health_checks_created) == ["nlb-203-0-113-10", "nlb-203-0-113-11"]
    assert "health is known for none of the records yet: 2 health checks are new" in result.notes


def test_new_checks_deleted_before_the_batch_are_a_lost_race_said_as_such():
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, IPS[:1]), FULL)
    before = read_name(r53, zone_id, NAME).records
    r53_checks = {h["Id"] for h in r53.list_health_checks()["HealthChecks"]}
    client = Counting(r53, before={"get_health_check_status": lambda p: _delete_others(r53, r53_checks)})
    with pytest.raises(Refusal) as exc:
        enact(client, make_plan(zone_id, 2, IPS[1:3]), EnactOptions(allow_full_change=True, max_change_share=1.0,
                                                                  wait_s=0, retries=0))
    assert str(exc.value) == ("lost 1 races in a row (a health check of this plan was deleted while it waited); "
                              "not retrying further")
    assert read_name(r53, zone_id, NAME).records == before  # nothing sent
    assert client.calls.get("get_hosted_zone") == 1  # the re-read after the race uses the zone name it has
    assert client.calls.get("change_resource_record_sets") is None


def _delete_others(r53, keep: set[str]) -> bool:
    for hc in r53.list_health_checks()["HealthChecks"]:
        if hc["Id"] not in keep:
            r53.delete_health_check(HealthCheckId=hc["Id"])
    return False


def test_new_checks_deleted_once_before_the_batch_are_planned_again_and_applied():
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, IPS[:1]), FULL)
    first = {h["Id"] for h in r53.list_health_checks()["HealthChecks"]}
    client = Counting(r53, before={"get_health_check_status": lambda p: _delete_others(r53, first)})
    result = enact(client, make_plan(zone_id, 2, IPS[1:3]), FULL)
    assert result.status == "applied" and result.attempts == 2
    assert result.notes[-1] == ("planned again 1 time(s) from fresh reads (a health check of this plan was deleted "
                                "while it waited)")
    # the second attempt's checks carry the attempt in their CallerReference
    refs = {r53.get_health_check(HealthCheckId=hc)["HealthCheck"]["CallerReference"]
            for hc in result.health_checks_created.values()}
    assert all(re.fullmatch(r"edge-origin-[0-9a-f]{32}-2-2", ref) for ref in refs), refs


def test_a_status_read_refused_before_the_batch_names_the_call_and_changes_nothing():
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, IPS[:1]), FULL)
    before = read_name(r53, zone_id, NAME).records
    client = Faults().deny("GetHealthCheckStatus").attach(r53)
    with pytest.raises(EnactFailed) as exc:
        enact(client, make_plan(zone_id, 2, IPS[1:3]), FULL)
    assert str(exc.value) == (
        "get_health_check_status: AccessDenied: User: arn:aws:iam::123456789012:user/edge-origin-test is not authorized "
        "to perform: GetHealthCheckStatus (before the batch was sent: nothing changed)")
    assert read_name(r53, zone_id, NAME).records == before


def test_a_tag_refused_on_a_new_check_names_the_call_and_the_record():
    r53, zone_id = strict_zone()
    client = Faults().deny("ChangeTagsForResource").attach(r53)
    with pytest.raises(EnactFailed) as exc:
        enact(client, make_plan(zone_id, 1, IPS[:1]), FULL)
    assert str(exc.value) == (
        "change_tags_for_resource for nlb-203-0-113-10: AccessDenied: User: arn:aws:iam::123456789012:user/edge-origin-test "
        "is not authorized to perform: ChangeTagsForResource (before the batch was sent: nothing changed)")
    assert read_name(r53, zone_id, NAME).records == []


def test_the_re_read_after_a_check_lost_at_creation_names_what_failed():
    """Route 53 keeps the CallerReference of a deleted check (HealthCheckAlreadyExists): enact reads the name
    again to plan again, asking for no zone; when that read is refused, the message says it was that read."""
    from edge_origin.live.enact import creation_reference

    def lost_reference():
        r53, zone_id = strict_zone()
        plan = make_plan(zone_id, 1, IPS[:1])
        made = r53.create_health_check(CallerReference=creation_reference(plan, plan.records[0]), HealthCheckConfig={
            "Type": "TCP", "IPAddress": IPS[0], "Port": 443})
        r53.delete_health_check(HealthCheckId=made["HealthCheck"]["Id"])
        return r53, plan

    r53, plan = lost_reference()
    listed_before_creation: list[int] = []
    counted = Counting(r53, before={"create_health_check": lambda p: listed_before_creation.append(
        counted.calls.get("list_resource_record_sets", 0)) and False})
    result = enact(counted, plan, FULL)
    assert result.status == "applied" and result.attempts == 2
    assert counted.calls["get_hosted_zone"] == 1  # the re-read after the race asks for no zone
    # the same again, with the first ListResourceRecordSets after the refused creation denied
    r53, plan = lost_reference()
    client = Faults().deny("ListResourceRecordSets", skip=listed_before_creation[0], times=1).attach(r53)
    with pytest.raises(EnactFailed) as exc:
        enact(client, plan, FULL)
    assert re.fullmatch(r"reading the name: AccessDenied: User: \S+ is not authorized to perform: ListResourceRecordSets "
                        r"\(before the batch was sent: nothing changed\)", str(exc.value)), str(exc.value)
    assert client.target.list_health_checks()["HealthChecks"] == []  # nothing created, nothing sent


def _client():
    return LiveSession(region="us-east-1").client("route53")


def test_health_state_reads_route_53s_status_shapes(monkeypatch):
    """GetHealthCheckStatus: InvalidInput and NoSuchHealthCheck are no such check (None); an observation
    without a StatusReport is a checker that did not report success; none at all is pending."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    client = _client()
    hc = "11111111-2222-3333-4444-555555555555"
    ok = {"Region": "us-east-1", "IPAddress": "15.177.2.1",
          "StatusReport": {"Status": "Success: HTTP Status Code 200, OK", "CheckedTime": "2026-12-04T00:00:00Z"}}
    bare = {"Region": "eu-west-1", "IPAddress": "15.177.62.1"}
    with Stubber(client) as stub:
        stub.add_client_error("get_health_check_status", "InvalidInput", "not a valid id", 400)
        stub.add_client_error("get_health_check_status", "NoSuchHealthCheck", "no such", 404)
        stub.add_client_error("get_health_check_status", "AccessDenied", "denied", 403)
        stub.add_response("get_health_check_status", {"HealthCheckObservations": [ok, bare]})
        stub.add_response("get_health_check_status", {"HealthCheckObservations": [ok, ok, ok, ok, bare]})
        stub.add_response("get_health_check_status", {"HealthCheckObservations": [bare]})
        stub.add_response("get_health_check_status", {"HealthCheckObservations": []})
        assert health_state(client, hc) is None
        assert health_state(client, hc) is None
        with pytest.raises(Exception, match="AccessDenied"):
            health_state(client, hc)
        assert health_state(client, hc) == "healthy"  # 1 of 2 is more than 18 %
        assert health_state(client, hc) == "healthy"
        assert health_state(client, hc) == "unhealthy"
        assert health_state(client, hc) == "pending"


@pytest.mark.parametrize(("step", "records_then"), [("before-send", 0), ("after-send", 2)])
def test_the_steps_around_the_batch_are_named(monkeypatch, step: str, records_then: int):
    """EDGE_ORIGIN_STEP_SIGNAL=<step>=SIGUSR1 signals enact there (the kill drills): before-send with nothing sent
    yet, after-send once Route 53 has answered the batch (applied)."""
    r53, zone_id = strict_zone()
    seen: list[int] = []

    class Stopped(Exception):
        pass

    def stop(signum, frame):
        seen.append(len(read_name(r53, zone_id, NAME).records))
        raise Stopped

    previous = signal.signal(signal.SIGUSR1, stop)
    monkeypatch.setenv(STEP_SIGNAL, f"{step}=SIGUSR1")
    try:
        with pytest.raises(Stopped):
            enact(r53, make_plan(zone_id, 1, IPS[:2]), FULL)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert seen == [records_then]
    assert len(read_name(r53, zone_id, NAME).records) == records_then


def test_a_dry_run_shows_a_new_check_in_place_of_a_reused_one_deleted_meanwhile():
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, IPS[:2]), FULL)
    enact(r53, make_plan(zone_id, 2, IPS[2:]), KEEP)
    gone = next(h["Id"] for h in r53.list_health_checks()["HealthChecks"]
                if r53.get_health_check(HealthCheckId=h["Id"])["HealthCheck"]["HealthCheckConfig"]["IPAddress"] == IPS[0])

    def delete_first(params):
        r53.delete_health_check(HealthCheckId=gone)
        return False

    result = enact(Counting(r53, before={"get_health_check_status": delete_first}), make_plan(zone_id, 3, IPS[:2]),
                   EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0, dry_run=True))
    assert result.status == "dry-run"
    created = {c["ResourceRecordSet"]["SetIdentifier"]: c["ResourceRecordSet"]["HealthCheckId"]
               for c in result.change_batch["Changes"] if c["Action"] == "CREATE" and c["ResourceRecordSet"]["Type"] == "A"}
    assert created["nlb-203-0-113-10"] == "<created by enact: nlb-203-0-113-10>"
    assert not created["nlb-203-0-113-11"].startswith("<")


def test_a_check_taken_up_again_carries_the_new_generation():
    """Another enactor's clean-up deletes the checks of generations below the live one: a check a plan takes up
    again (found by CallerReference) is re-tagged with that plan's generation before the batch."""
    from edge_origin.live.health_owner import owned_checks

    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, IPS[:2]), FULL)
    enact(r53, make_plan(zone_id, 2, IPS[2:]), KEEP)
    result = enact(r53, make_plan(zone_id, 3, IPS[:2]), FULL)
    assert result.status == "applied" and result.health_checks_created == {}
    in_use = {r["HealthCheckId"] for r in read_name(r53, zone_id, NAME).records}
    assert {c.id: c.generation for c in owned_checks(r53, NAME) if c.id in in_use} == dict.fromkeys(in_use, 3)


def test_an_already_live_plan_is_a_no_op_with_empty_lists():
    r53, zone_id = strict_zone()
    plan = make_plan(zone_id, 1, IPS[:2])
    enact(r53, plan, FULL)
    result = enact(r53, plan, FULL)
    assert result.status == "no-op"
    shown = result.to_json()
    assert {k: shown[k] for k in ("health_checks_to_create", "added", "modified", "removed", "kept")} == {
        "health_checks_to_create": [], "added": [], "modified": [], "removed": [], "kept": []}
    assert shown["change_batch"]["Changes"] == []
    assert result.notes == ["generation 1 is already live with the same digest: nothing to do"]


def test_a_plan_giving_every_check_id_needs_no_health_check_listing():
    """No record asks for a new check, so enact does not list the account's checks (an IAM policy without
    route53:ListHealthChecks is enough)."""
    r53, zone_id = strict_zone()
    ids = {ip: r53.create_health_check(CallerReference=f"given-{ip}", HealthCheckConfig={
        "Type": "TCP", "IPAddress": ip, "Port": 443})["HealthCheck"]["Id"] for ip in IPS[:2]}
    client = Faults().deny("ListHealthChecks").attach(r53)
    result = enact(client, make_plan(zone_id, 1, IPS[:2], health_check_ids=ids), FULL)
    assert result.status == "applied" and result.health_checks_created == {}


def test_prepare_and_pair_records_plan_a_first_attempt_by_default():
    """Called as a library (a dry run of one's own): a new check's CallerReference has no attempt suffix."""
    from edge_origin.live.enact import creation_reference, pair_records, prepare

    r53, zone_id = strict_zone()
    plan = make_plan(zone_id, 4, IPS[:1])
    prepared = prepare(r53, plan, FULL)
    assert [c["CallerReference"] for c in prepared.health_checks_to_create] == [creation_reference(plan, plan.records[0])]
    assert prepared.health_checks_to_create[0]["CallerReference"].endswith("-4")
    pairing = pair_records(plan, read_name(r53, zone_id, NAME), {})
    assert [c["CallerReference"] for c in pairing.to_create] == [creation_reference(plan, plan.records[0])]


def test_the_re_read_after_new_checks_vanished_names_what_failed():
    def started():
        r53, zone_id = strict_zone()
        enact(r53, make_plan(zone_id, 1, IPS[:1]), FULL)
        return r53, zone_id, {h["Id"] for h in r53.list_health_checks()["HealthChecks"]}

    r53, zone_id, first = started()
    listed: list[int] = []

    def vanish(params):
        listed.append(counted.calls.get("list_resource_record_sets", 0))
        return _delete_others(r53, first)

    counted = Counting(r53, before={"get_health_check_status": vanish})
    assert enact(counted, make_plan(zone_id, 2, IPS[1:3]), FULL).attempts == 2
    r53, zone_id, first = started()
    faulty = Faults().deny("ListResourceRecordSets", skip=listed[0], times=1).attach(r53)
    client = Counting(faulty, before={"get_health_check_status": lambda p: _delete_others(r53, first)})
    with pytest.raises(EnactFailed) as exc:
        enact(client, make_plan(zone_id, 2, IPS[1:3]), FULL)
    assert re.fullmatch(r"reading the name: AccessDenied: User: \S+ is not authorized to perform: ListResourceRecordSets "
                        r"\(before the batch was sent: nothing changed\)", str(exc.value)), str(exc.value)


def test_an_applied_batch_is_journaled_with_what_enact_said_about_it(tmp_path):
    """The plan store's entry of an applied batch keeps enact's notes up to the outcome (the clean-up's note comes
    after it): the answer lost but the batch applied, and a plain applied batch."""
    from edge_origin.live.enact import PlanStore

    r53, zone_id = strict_zone()
    store = PlanStore(tmp_path / "store")
    enact(r53, make_plan(zone_id, 1, IPS[:1]), FULL)
    plan = make_plan(zone_id, 2, IPS[1:])
    result = enact(r53, plan, FULL, journal=store.journal(plan))
    assert store.state(NAME, 2)["notes"] == ["health is known for none of the records yet: 2 health checks are new"]
    assert result.notes[0] == store.state(NAME, 2)["notes"][0]
    plan = make_plan(zone_id, 3, IPS[:2])
    lost = Faults().server_error_after_apply("ChangeResourceRecordSets", times=3).attach(r53)
    result = enact(lost, plan, FULL, journal=store.journal(plan))
    entry = store.state(NAME, 3)
    assert (result.status, entry["state"], entry["change_id"]) == ("applied", "applied", None)
    assert entry["notes"] == [
        "the answer to the batch was lost (InternalFailure: We encountered an internal error. Please try again.); re-read: "
        "the generation record holds this plan's digest, so the batch is applied; INSYNC not confirmed (no change id)"]


def test_a_zone_that_cannot_be_read_names_the_call():
    r53, zone_id = strict_zone()
    with pytest.raises(EnactFailed) as exc:
        enact(Faults().deny("GetHostedZone").attach(r53), make_plan(zone_id, 1, IPS[:1]), FULL)
    assert str(exc.value) == (
        "get_hosted_zone: AccessDenied: User: arn:aws:iam::123456789012:user/edge-origin-test is not authorized to "
        "perform: GetHostedZone (before the batch was sent: nothing changed)")
