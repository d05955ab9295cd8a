"""Issue 38 (mutation testing of live/enact.py): ``--unprotect`` as the user reads it. The whole note
or message of every way out (put back after a timed window, refused lift, put-back refused once,
twice, three times, answered ProtectionAlreadyExists, cut by an interrupt, a listing that fails),
the exception shapes the note is added to, and the journal left for the next run (StrictRoute53,
faults from ``edge_origin.testing.faults``)."""

from __future__ import annotations

import botocore.exceptions
import botocore.parsers
import pytest

from edge_origin.live.enact import EnactFailed, EnactOptions, Interrupted, PlanStore, TransientFailure, enact
from edge_origin.live.guard import Stop
from edge_origin.live.name_state import generation_name, read_name
from edge_origin.testing.faults import Faults
from tests.live_write.conftest import NAME, FakeClock, make_plan, strict_zone

FULL = EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0)
UNPROTECT = EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0, unprotect=True)
UNPROTECT_WAIT = EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=30, unprotect=True)
IPS = ["203.0.113.10", "203.0.113.11", "203.0.113.12"]
GEN = generation_name(NAME)
SHOWN = f"{GEN} TXT, {NAME}. A"  # the two protections as every note names them (sorted: "_" before "o")
KEYS = f"RecordName={GEN},RecordType=TXT RecordName={NAME}.,RecordType=A"


def _denied(operation: str) -> str:
    return f"AccessDenied: User: arn:aws:iam::123456789012:user/edge-origin-test is not authorized to perform: {operation}"


def _protected_zone():
    """Generation 1 live, then the name (A, with a comment) and its generation record (TXT) protected."""
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, IPS[:2]), FULL)
    r53.create_resource_record_set_protections(HostedZoneId=zone_id, Protections=[
        {"RecordName": NAME, "RecordType": "A", "Comment": "origin"}, {"RecordName": GEN, "RecordType": "TXT"}])
    return r53, zone_id


def _protected(r53, zone_id):
    return {(p["RecordName"], p["RecordType"], p.get("Comment"))
            for p in r53.list_resource_record_set_protections(HostedZoneId=zone_id)["ResourceRecordSetProtections"]}


BEFORE = {(GEN, "TXT", None), (f"{NAME}.", "A", "origin")}


def _clock(now: float = 1000.0) -> FakeClock:
    clock = FakeClock()
    clock.now = now  # lifted at 1000.0: a window computed as now + lifted would read 2000.5 s
    return clock


class Raising:
    """``inner`` whose ``operation`` raises ``errors`` in turn (one a call) before calling through;
    ``after``: let the call through first and raise after it (the answer lost)."""

    def __init__(self, inner, operation, errors, *, after=False):
        self.inner, self.operation, self.errors, self.after = inner, operation, list(errors), after
        self.calls = 0

    def __getattr__(self, name):
        method = getattr(self.inner, name)
        if name != self.operation:
            return method

        def call(**params):
            self.calls += 1
            if not self.errors:
                return method(**params)
            error = self.errors.pop(0)
            if self.after:
                method(**params)
            raise error

        return call


def test_the_window_is_timed_on_the_given_clock_and_the_run_leaves_nothing_to_put_back(tmp_path):
    r53, zone_id = _protected_zone()
    store = PlanStore(tmp_path / "store")
    plan = make_plan(zone_id, 2, IPS[1:])
    clock = _clock()
    result = enact(r53, plan, UNPROTECT_WAIT, sleep=clock.sleep, clock=clock.clock, journal=store.journal(plan))
    # lifted at 1000.0, one GetChange PENDING, a 0.5 s sleep, INSYNC: put back at 1000.5
    assert result.status == "applied" and result.insync is True
    assert result.notes[-1] == f"record set protections lifted for the batch for 0.5 s and put back: {SHOWN}"
    assert _protected(r53, zone_id) == BEFORE
    assert store.state(NAME, 2)["state"] == "applied" and store.state(NAME, 2)["digest"] == plan.digest()
    assert store.reconcile(r53, zone_id, NAME) == []  # nothing left lifted for the next run
    assert "  change /change/" in result.text() and ": INSYNC\n" in result.text()


def test_a_refused_lift_sends_nothing_and_says_the_protections_stayed(tmp_path):
    """The lift refused (AccessDenied on the delete): the protections never left; the message says so (not "lifted
    and put back") and the journal keeps nothing for the next run to put back."""
    r53, zone_id = _protected_zone()
    sent = r53.calls.get("ChangeResourceRecordSets", 0)
    store = PlanStore(tmp_path / "store")
    plan = make_plan(zone_id, 2, IPS[1:])
    client = Faults().deny("DeleteResourceRecordSetProtections").attach(r53)
    with pytest.raises(EnactFailed) as exc:
        enact(client, plan, UNPROTECT, clock=_clock().clock, journal=store.journal(plan))
    assert str(exc.value) == (
        f"delete_resource_record_set_protections: {_denied('DeleteResourceRecordSetProtections')} (before the batch was sent: "
        f"nothing changed); record set protections still in place (the lift was refused): {SHOWN}")
    assert r53.calls.get("ChangeResourceRecordSets", 0) == sent and _protected(r53, zone_id) == BEFORE
    assert not any("protections" in line for line in store.reconcile(r53, zone_id, NAME))  # nothing left to put back


def test_a_lift_whose_answer_was_lost_is_put_back_and_said_so(tmp_path):
    """The delete applied but its answer was lost (a 500 after it landed): enact cannot know it lifted them; the
    put-back finds them gone, puts them back and says so."""
    r53, zone_id = _protected_zone()
    store = PlanStore(tmp_path / "store")
    plan = make_plan(zone_id, 2, IPS[1:])
    client = Faults().server_error_after_apply("DeleteResourceRecordSetProtections", times=None).attach(r53)
    with pytest.raises(TransientFailure) as exc:  # a 500: safe to run again
        enact(client, plan, UNPROTECT, clock=_clock().clock, journal=store.journal(plan))
    assert str(exc.value).endswith(f"; record set protections put back after a lift that failed: {SHOWN}"), str(exc.value)
    assert str(exc.value).startswith("delete_resource_record_set_protections: InternalFailure")
    assert _protected(r53, zone_id) == BEFORE
    assert not any("protections" in line for line in store.reconcile(r53, zone_id, NAME))


@pytest.mark.parametrize("refusals", [1, 2, 3])
def test_the_put_back_is_tried_three_times_then_says_the_command_to_run(tmp_path, refusals):
    r53, zone_id = _protected_zone()
    store = PlanStore(tmp_path / "store")
    plan = make_plan(zone_id, 2, IPS[1:])
    layer = Faults().deny("CreateResourceRecordSetProtections", times=refusals)
    result = enact(layer.attach(r53), plan, UNPROTECT, clock=_clock().clock, journal=store.journal(plan))
    assert result.status == "applied" and read_name(r53, zone_id, NAME).live_generation == 2
    assert [o for op, o in layer.log if op == "CreateResourceRecordSetProtections"] == ["deny"] * refusals + ["ok"] * (refusals < 3)
    if refusals < 3:
        assert result.notes[-1] == f"record set protections lifted for the batch for 0.0 s and put back: {SHOWN}"
        assert _protected(r53, zone_id) == BEFORE
        assert store.reconcile(r53, zone_id, NAME) == []
        return
    assert result.notes[-1] == (
        f"PROTECTION NOT RESTORED on {SHOWN} ({_denied('CreateResourceRecordSetProtections')}): run aws route53 "
        f"create-resource-record-set-protections --hosted-zone-id {zone_id} --protections {KEYS}")
    assert _protected(r53, zone_id) == set()
    # the journal keeps what was lifted: the next run with the store puts it back
    assert store.reconcile(r53, zone_id, NAME) == [f"plan store: record set protections a stopped run lifted were put back: {SHOWN}"]
    assert _protected(r53, zone_id) == BEFORE
    assert store.reconcile(r53, zone_id, NAME) == []


def test_a_put_back_whose_answer_was_lost_is_put_back():
    """The first CreateResourceRecordSetProtections lands and its answer is a 500; botocore resends it and
    Route 53 answers ProtectionAlreadyExists: the protections are back (not "refused", not tried again)."""
    r53, zone_id = _protected_zone()
    layer = Faults().server_error_after_apply("CreateResourceRecordSetProtections")
    result = enact(layer.attach(r53), make_plan(zone_id, 2, IPS[1:]), UNPROTECT, clock=_clock().clock)
    assert result.notes[-1] == f"record set protections lifted for the batch for 0.0 s and put back: {SHOWN}"
    assert [o for op, o in layer.log if op == "CreateResourceRecordSetProtections"] == ["server_error_after_apply", "ok"]
    assert _protected(r53, zone_id) == BEFORE


def test_a_refused_lift_and_a_refused_put_back_say_the_protections_are_still_in_place():
    r53, zone_id = _protected_zone()
    client = Faults().deny("DeleteResourceRecordSetProtections").deny("CreateResourceRecordSetProtections").attach(r53)
    with pytest.raises(EnactFailed) as exc:
        enact(client, make_plan(zone_id, 2, IPS[1:]), UNPROTECT)
    assert str(exc.value).endswith(
        f"(before the batch was sent: nothing changed); record set protections still in place (the put-back was refused: "
        f"{_denied('CreateResourceRecordSetProtections')}): {SHOWN}")
    assert _protected(r53, zone_id) == BEFORE


def test_a_put_back_that_cannot_be_checked_says_so():
    """Every put-back refused and ListResourceRecordSetProtections refused too: all of them are named."""
    r53, zone_id = _protected_zone()

    class ListingFailsOnceLifted(Raising):
        def __getattr__(self, name):
            if name == "list_resource_record_set_protections" and r53.calls.get("DeleteResourceRecordSetProtections"):
                raise r53._error("AccessDenied", "no listing", "ListResourceRecordSetProtections", 403)
            return super().__getattr__(name)

    denied = [r53._error("AccessDenied", "no create", "CreateResourceRecordSetProtections", 403) for _ in range(3)]
    client = ListingFailsOnceLifted(r53, "create_resource_record_set_protections", denied)
    result = enact(client, make_plan(zone_id, 2, IPS[1:]), UNPROTECT)
    assert result.notes[-1] == (
        f"PROTECTION NOT RESTORED on {SHOWN} (AccessDenied: no create; ListResourceRecordSetProtections could not tell which "
        f"are in place): run aws route53 create-resource-record-set-protections --hosted-zone-id {zone_id} --protections {KEYS}")


STOP = Stop("SIGINT", "interrupted by SIGINT during CreateResourceRecordSetProtections to https://route53.amazonaws.com")
GARBAGE = botocore.parsers.ResponseParserError("Unable to parse response (500):\n  b'<html>oops</html>'")


@pytest.mark.parametrize(("error", "said"), [
    (STOP, str(STOP)),
    (KeyboardInterrupt(), "interrupted"),
    (GARBAGE, "Unable to parse response (500): b'<html>oops</html>'"),
    (botocore.exceptions.ReadTimeoutError(endpoint_url="https://route53.amazonaws.com"),
     'Read timeout on endpoint URL: "https://route53.amazonaws.com"'),
])
@pytest.mark.parametrize("times", [1, 3])
def test_a_put_back_cut_by_an_interrupt_or_a_broken_answer_is_tried_again(error, said, times):
    """A second Ctrl-C (or a deadline, a broken answer) during the put-back does not stop it: it is tried
    three times; after three failures the last one is named."""
    r53, zone_id = _protected_zone()
    client = Raising(r53, "create_resource_record_set_protections", [error] * times)
    result = enact(client, make_plan(zone_id, 2, IPS[1:]), UNPROTECT, clock=_clock().clock)
    assert result.status == "applied"
    if times < 3:
        assert result.notes[-1] == f"record set protections lifted for the batch for 0.0 s and put back: {SHOWN}"
        assert _protected(r53, zone_id) == BEFORE and client.calls == times + 1
        return
    assert result.notes[-1] == (
        f"PROTECTION NOT RESTORED on {SHOWN} ({said}): run aws route53 "
        f"create-resource-record-set-protections --hosted-zone-id {zone_id} --protections {KEYS}")
    assert _protected(r53, zone_id) == set() and client.calls == 3


PUT_BACK = f"record set protections lifted for the batch for 0.0 s and put back: {SHOWN}"


@pytest.mark.parametrize(("make", "args"), [  # made afresh for each run: the note is added to the error itself
    (lambda: RuntimeError(), ()),  # nothing to add the note to: the error as raised
    (lambda: RuntimeError("boom"), (f"boom; {PUT_BACK}",)),
    (lambda: RuntimeError("boom", 7), (f"boom; {PUT_BACK}", 7)),  # the other arguments kept
    (lambda: OSError(5, "I/O error"), (5, "I/O error")),  # a first argument that is not text: left as it is
])
def test_any_error_out_of_the_send_leaves_with_the_protections_back(make, args):
    r53, zone_id = _protected_zone()
    error = make()
    client = Raising(r53, "change_resource_record_sets", [error])
    with pytest.raises(type(error)) as exc:
        enact(client, make_plan(zone_id, 2, IPS[1:]), UNPROTECT, clock=_clock().clock)
    assert exc.value.args == args
    assert _protected(r53, zone_id) == BEFORE and read_name(r53, zone_id, NAME).live_generation == 1


def test_a_guardrail_refusal_under_unprotect_says_both():
    r53, zone_id = _protected_zone()
    refusal = r53._error("InvalidChangeBatch", "[ChangeGuardrail ACTIVE_RECORD_CHECK: deleting origin.example.com. A would leave no record]",
                         "ChangeResourceRecordSets")
    client = Raising(r53, "change_resource_record_sets", [refusal])
    with pytest.raises(EnactFailed) as exc:
        enact(client, make_plan(zone_id, 2, IPS[1:]), UNPROTECT, clock=_clock().clock)
    assert str(exc.value) == (
        "refused by Route 53's guardrail ACTIVE_RECORD_CHECK, nothing applied (InvalidChangeBatch: [ChangeGuardrail "
        f"ACTIVE_RECORD_CHECK: deleting origin.example.com. A would leave no record]); {PUT_BACK}")
    assert _protected(r53, zone_id) == BEFORE


def test_an_interrupt_after_the_batch_under_unprotect_reads_back_records_and_puts_back(tmp_path):
    r53, zone_id = _protected_zone()
    store = PlanStore(tmp_path / "store")
    plan = make_plan(zone_id, 2, IPS[1:])
    stop = Stop("SIGTERM", "interrupted by SIGTERM during GetChange to https://route53.amazonaws.com")
    client = Raising(r53, "get_change", [stop])
    clock = _clock()
    with pytest.raises(Interrupted) as exc:
        enact(client, plan, UNPROTECT_WAIT, clock=clock.clock, sleep=clock.sleep, journal=store.journal(plan))
    change_id = store.state(NAME, 2)["change_id"]
    assert change_id.startswith("/change/")
    assert str(exc.value) == (
        f"{stop} after the batch may have been sent; read back: applied: generation 2 of this plan is "
        f"live (change {change_id}); see what is live: edge-origin plan show --name {NAME} --zone-id {zone_id}; {PUT_BACK}")
    assert (exc.value.outcome, exc.value.change_id) == ("applied", change_id)
    assert _protected(r53, zone_id) == BEFORE
    state = store.state(NAME, 2)
    assert state["state"] == "applied" and state["notes"] == [str(stop)]
    assert store.reconcile(r53, zone_id, NAME) == []



def test_a_lift_whose_answer_was_lost_and_a_put_back_refused_keeps_the_note_for_the_next_run(tmp_path):
    """The delete applied, its answer lost, and every put-back refused: PROTECTION NOT RESTORED with the command, and
    the journal keeps what was lifted, so the next run with the store puts the protections back."""
    r53, zone_id = _protected_zone()
    store = PlanStore(tmp_path / "store")
    plan = make_plan(zone_id, 2, IPS[1:])
    layer = Faults().server_error_after_apply("DeleteResourceRecordSetProtections", times=None)
    layer.deny("CreateResourceRecordSetProtections", times=3)
    with pytest.raises(TransientFailure) as exc:
        enact(layer.attach(r53), plan, UNPROTECT, clock=_clock().clock, journal=store.journal(plan))
    assert str(exc.value).endswith(
        f"; PROTECTION NOT RESTORED on {SHOWN} ({_denied('CreateResourceRecordSetProtections')}): run aws route53 "
        f"create-resource-record-set-protections --hosted-zone-id {zone_id} --protections {KEYS}"), str(exc.value)
    assert _protected(r53, zone_id) == set()
    assert f"plan store: record set protections a stopped run lifted were put back: {SHOWN}" in store.reconcile(r53, zone_id, NAME)
    assert _protected(r53, zone_id) == BEFORE
