"""A batch that loses a race under ``--unprotect`` (another writer's generation lands between the read
and the batch): what became of the protections is still said, on the stale-plan refusal or on the
result of the attempt planned again. It was dropped with the lost race (found by mutation testing,
issue 38): a put-back refused three times left the name unprotected with exit 0 and no word."""

from __future__ import annotations

import pytest

from edge_origin.live.enact import NotApplied, enact
from edge_origin.testing.faults import Faults
from tests.live_write.conftest import make_plan
from tests.live_write.test_enact_protection_notes import (
    IPS,
    KEYS,
    PUT_BACK,
    SHOWN,
    UNPROTECT,
    _clock,
    _denied,
    _protected_zone,
)


@pytest.mark.parametrize(("generation", "refusals"), [(2, 3), (4, 3), (4, 0)])
def test_a_lost_race_under_unprotect_still_says_what_became_of_the_protections(generation, refusals):
    """Another writer's generation 3 lands between the read and the batch: the batch is refused, the
    protections are put back (or not), and that is said whether the plan is then stale (generation 2:
    refused) or planned again and applied (generation 4)."""
    r53, zone_id = _protected_zone()
    client = Faults().deny("CreateResourceRecordSetProtections", times=refusals).attach(r53) if refusals else r53

    def other_writer(_prepared):
        enact(r53, make_plan(zone_id, 3, IPS[:1]), UNPROTECT)

    lost = (f"PROTECTION NOT RESTORED on {SHOWN} ({_denied('CreateResourceRecordSetProtections')}): run aws route53 "
            f"create-resource-record-set-protections --hosted-zone-id {zone_id} --protections {KEYS}")
    said = lost if refusals else PUT_BACK
    plan = make_plan(zone_id, generation, IPS[1:])
    hook = {"calls": 0}

    def once(prepared):
        hook["calls"] += 1
        if hook["calls"] == 1:
            other_writer(prepared)

    if generation == 2:
        with pytest.raises(NotApplied) as exc:
            enact(client, plan, UNPROTECT, clock=_clock().clock, after_read=once)
        assert str(exc.value) == f"stale plan: live generation is 3; {said}"
        return
    result = enact(client, plan, UNPROTECT, clock=_clock().clock, after_read=once)
    assert result.status == "applied" and result.attempts == 2
    assert said in result.notes


def test_a_stop_before_the_next_attempts_batch_still_says_what_became_of_the_protections():
    from edge_origin.live.guard import Stop

    r53, zone_id = _protected_zone()
    calls = {"n": 0}

    def race_then_stop(_prepared):
        calls["n"] += 1
        if calls["n"] <= 2:  # two races lost in a row: each attempt's note is said
            enact(r53, make_plan(zone_id, 2 + calls["n"], IPS[calls["n"] - 1:calls["n"]]), UNPROTECT)
        else:
            raise Stop("SIGINT", "interrupted by SIGINT")

    with pytest.raises(Stop) as exc:
        enact(r53, make_plan(zone_id, 6, IPS[1:]), UNPROTECT, clock=_clock().clock, after_read=race_then_stop)
    assert str(exc.value) == f"interrupted by SIGINT (before the batch was sent: nothing changed); {PUT_BACK}; {PUT_BACK}"
    assert exc.value.kind == "SIGINT"
