"""Issue 38 (mutation testing of live/enact.py): a stop (Ctrl-C, SIGTERM, the deadline) once the batch may
have been sent, in process: the whole message for every read-back verdict (applied with and without a
change id, not applied, another writer's generation, neither, a read-back that does not finish), the
``Interrupted`` fields, the journal entry the next run reconciles, and the read-back's own grace under
a ``RunGuard`` (the subprocess drills are in test_interrupts.py, marked slow)."""

from __future__ import annotations

import signal
import time

import pytest

from edge_origin.live import steps
from edge_origin.live.enact import EnactOptions, Interrupted, PlanStore, enact
from edge_origin.live.guard import RunGuard, Stop
from edge_origin.live.name_state import read_name
from tests.live_write.conftest import NAME, FakeClock, a_record, change, make_plan, strict_zone

FULL = EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0)
WAIT = EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=30)
IPS = ["203.0.113.10", "203.0.113.11", "203.0.113.12"]
SIGTERM = Stop("SIGTERM", "interrupted by SIGTERM during ChangeResourceRecordSets to https://route53.amazonaws.com")


class Interrupting:
    """``inner`` whose ``operation`` raises ``stop`` once: after running ``meanwhile`` (another writer)
    and, with ``deliver``, after the call went through (its answer lost to the stop). Then
    ``read_back`` (if given) replaces ListResourceRecordSets."""

    def __init__(self, inner, operation, stop, *, deliver=False, meanwhile=None, read_back=None):
        self.inner, self.operation, self.stop = inner, operation, stop
        self.deliver, self.meanwhile, self.read_back = deliver, meanwhile, read_back
        self.stopped = False
        self.calls_at_stop: dict[str, int] = {}

    def __getattr__(self, name):
        method = getattr(self.inner, name)
        if name == "list_resource_record_sets" and self.stopped and self.read_back is not None:
            return self.read_back
        if name != self.operation or self.stopped:
            return method

        def call(**params):
            if self.deliver:
                method(**params)
            if self.meanwhile is not None:
                self.meanwhile()
            self.stopped = True
            self.calls_at_stop = dict(self.inner.calls)
            raise self.stop

        return call


def _setup(tmp_path):
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, IPS[:2]), FULL)
    store = PlanStore(tmp_path / "store")
    return r53, zone_id, store, make_plan(zone_id, 2, IPS[1:])


def _show(zone_id):
    return f"see what is live: edge-origin plan show --name {NAME} --zone-id {zone_id}"


def _outsider(r53, zone_id):
    """Someone else's record set on the name, written without a generation (not edge-origin)."""
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [
        change("CREATE", a_record("outsider", "198.51.100.7", multivalue=True))]})


@pytest.mark.parametrize("case", ["applied, change answered", "applied, answer lost", "not applied", "another writer",
                                  "neither", "read-back refused"])
def test_a_stop_after_the_batch_may_have_been_sent_says_what_the_read_back_found(tmp_path, case):
    r53, zone_id, store, plan = _setup(tmp_path)
    what, outcome, state = str(SIGTERM), None, None
    if case == "applied, change answered":  # Ctrl-C during the INSYNC wait
        client = Interrupting(r53, "get_change", KeyboardInterrupt())
        what = "interrupted (KeyboardInterrupt)"
    elif case == "applied, answer lost":
        client = Interrupting(r53, "change_resource_record_sets", SIGTERM, deliver=True)
    elif case == "not applied":
        client = Interrupting(r53, "change_resource_record_sets", SIGTERM)
    elif case == "another writer":
        client = Interrupting(r53, "change_resource_record_sets", SIGTERM,
                              meanwhile=lambda: enact(r53, make_plan(zone_id, 3, IPS[:1]), FULL))
    elif case == "neither":
        client = Interrupting(r53, "change_resource_record_sets", SIGTERM, meanwhile=lambda: _outsider(r53, zone_id))
    else:
        def refused(**_):
            raise r53._error("AccessDenied", "no listing", "ListResourceRecordSets", 403)

        client = Interrupting(r53, "change_resource_record_sets", SIGTERM, deliver=True, read_back=refused)
    clock = FakeClock()
    with pytest.raises(Interrupted) as exc:
        enact(client, plan, WAIT, sleep=clock.sleep, clock=clock.clock, journal=store.journal(plan))
    entry = store.state(NAME, 2)
    change_id = entry["change_id"]
    found = {
        "applied, change answered": (f"read back: applied: generation 2 of this plan is live (change {change_id})", "applied", "applied"),
        "applied, answer lost": ("read back: applied: generation 2 of this plan is live", "applied", "applied"),
        "not applied": ("read back: not applied: the name holds the state read before", "not-applied", "not-applied"),
        "another writer": ("read back: not applied: another writer's generation 3 is live", "other-writer", "not-applied"),
        "neither": (f"read back: {NAME}. holds neither this plan nor the state read before (generation 1): outcome unknown",
                    None, "unknown"),
        "read-back refused": ("the read-back did not finish: outcome unknown", None, "intent"),  # the next run reconciles it
    }
    said, outcome, state = found[case]
    assert str(exc.value) == f"{what} after the batch may have been sent; {said}; {_show(zone_id)}"
    assert exc.value.outcome == outcome and exc.value.change_id == change_id
    assert exc.value.show_command == _show(zone_id).removeprefix("see what is live: ")
    assert (change_id is not None) == (case == "applied, change answered")
    assert entry["state"] == state and entry["notes"] == ([what] if state != "intent" else [])
    # the read-back reads the name only: the zone's name is already known (no GetHostedZone in the grace)
    assert r53.calls.get("GetHostedZone", 0) == client.calls_at_stop.get("GetHostedZone", 0)
    if case == "read-back refused":
        assert read_name(r53, zone_id, NAME).live_generation == 2
        assert store.reconcile(r53, zone_id, NAME) == [
            "plan store: generation 2 was intent in the store and is live in Route 53: recorded as applied"]


def _drill(monkeypatch, step, run):
    """Run ``run()`` with the step drill signalling SIGUSR1 at ``step``, handled as a Ctrl-C."""

    def ctrl_c(_signum, _frame):
        raise KeyboardInterrupt

    monkeypatch.setenv(steps.ENV, f"{step}=SIGUSR1")
    previous = signal.signal(signal.SIGUSR1, ctrl_c)
    try:
        with pytest.raises(Interrupted) as exc:
            run()
    finally:
        signal.signal(signal.SIGUSR1, previous)
    return exc.value


def test_a_second_stop_during_the_read_back_leaves_the_outcome_unknown(tmp_path, monkeypatch):
    """The drill (EDGE_ORIGIN_STEP_SIGNAL) signals at the read-back after a stop: that read-back is
    cut short, and the message says the outcome is unknown (the batch did land)."""
    r53, zone_id, store, plan = _setup(tmp_path)
    exc = _drill(monkeypatch, "during-read-back", lambda: enact(
        Interrupting(r53, "change_resource_record_sets", SIGTERM, deliver=True), plan, FULL, journal=store.journal(plan)))
    assert str(exc) == (f"{SIGTERM} after the batch may have been sent; the read-back did not finish: outcome unknown; "
                        f"{_show(zone_id)}")
    assert exc.outcome is None and read_name(r53, zone_id, NAME).live_generation == 2


def test_the_drill_reaches_the_insync_wait(tmp_path, monkeypatch):
    r53, zone_id, store, plan = _setup(tmp_path)
    clock = FakeClock()
    exc = _drill(monkeypatch, "during-wait", lambda: enact(r53, plan, WAIT, sleep=clock.sleep, clock=clock.clock))
    assert exc.outcome == "applied" and exc.change_id.startswith("/change/")
    assert str(exc).startswith(f"interrupted (KeyboardInterrupt) after the batch may have been sent; read back: applied: "
                               f"generation 2 of this plan is live (change {exc.change_id})")


class ShortGrace(RunGuard):
    def grace(self, seconds: float = 0.0) -> None:
        super().grace(0.05)


def test_the_read_back_after_a_stop_runs_under_the_grace_deadline_and_leaves_no_timer(tmp_path):
    """The deadline passed in flight: the read-back gets a short deadline of its own (a hung endpoint
    cannot hold the command), and no timer is left to go off after the command has said its outcome."""
    r53, zone_id, store, plan = _setup(tmp_path)

    def hung(**_):
        time.sleep(3)  # SIGALRM from the grace ends this
        raise AssertionError("the grace deadline did not end the read-back")

    deadline = Stop("deadline", "deadline 120 s passed during ChangeResourceRecordSets to https://route53.amazonaws.com (the whole command; --deadline)")
    client = Interrupting(r53, "change_resource_record_sets", deadline, deliver=True, read_back=hung)
    started = time.monotonic()
    with ShortGrace("enact", None) as guard, pytest.raises(Interrupted) as exc:
        enact(client, plan, FULL)
    assert guard.in_grace
    assert str(exc.value) == (f"{deadline} after the batch may have been sent; the read-back did not finish: outcome unknown; "
                              f"{_show(zone_id)}")
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert time.monotonic() - started < 2.5


def test_with_a_guard_that_is_not_needed_the_read_back_finishes_and_the_guard_is_disarmed(tmp_path):
    r53, zone_id, store, plan = _setup(tmp_path)
    client = Interrupting(r53, "change_resource_record_sets", SIGTERM, deliver=True)
    with RunGuard("enact", None) as guard:
        with pytest.raises(Interrupted) as exc:
            enact(client, plan, FULL)
        assert guard.in_grace and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert exc.value.outcome == "applied"
