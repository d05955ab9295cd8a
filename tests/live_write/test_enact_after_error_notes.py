"""Issue 38 (mutation testing of live/enact.py): what enact says after the batch call failed, whole: a
protection made after enact looked (and one made by another writer whose generation landed), a lost
answer read back as applied (from the one re-read), the change history saying "not applied" while
the name cannot be read, and a health check deleted between the health check and the batch (planned
again). StrictRoute53 with faults."""

from __future__ import annotations

import re

import pytest

from edge_origin.live.enact import (
    EnactFailed,
    EnactOptions,
    OutcomeUnknown,
    Refusal,
    StalePlan,
    TransientFailure,
    enact,
)
from edge_origin.live.name_state import read_name
from edge_origin.testing.faults import Faults
from tests.live_write.conftest import NAME, make_plan, strict_zone

FULL = EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0)
KEEP = EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0, keep_health_checks=True)
IPS = ["203.0.113.10", "203.0.113.11", "203.0.113.12"]
INTERNAL = "InternalFailure: We encountered an internal error. Please try again."
DENIED_LIST = "AccessDenied: not allowed to list"


class AfterTheBatch:
    """``inner`` whose ListResourceRecordSets is refused once the batch was sent and ``allowed`` more
    list calls were answered; ``before_batch`` runs just before the first batch call."""

    def __init__(self, inner, *, allowed=0, before_batch=None):
        self.inner, self.allowed, self.before_batch = inner, allowed, before_batch
        self.sent = False

    def __getattr__(self, name):
        method = getattr(self.inner, name)
        if name == "change_resource_record_sets":
            def send(**params):
                if not self.sent and self.before_batch is not None:
                    self.before_batch(params)
                self.sent = True
                return method(**params)
            return send
        if name == "list_resource_record_sets" and self.sent:
            def listing(**params):
                if self.allowed <= 0:
                    raise self.inner._error("AccessDenied", "not allowed to list", "ListResourceRecordSets", 403)
                self.allowed -= 1
                return method(**params)
            return listing
        return method


def _live(generation=1):
    r53, zone_id = strict_zone()
    for gen in range(1, generation + 1):
        enact(r53, make_plan(zone_id, gen, IPS[:2]), FULL)
    return r53, zone_id


def _protect(r53, zone_id):
    r53.create_resource_record_set_protections(HostedZoneId=zone_id, Protections=[{"RecordName": NAME, "RecordType": "A"}])


PROTECTED = (f"InvalidChangeBatch: [Tried to delete resource record set [name='{NAME}.', type='A'] but it is protected by a "
             "resource record set protection (DeleteResourceRecordSetProtections first)]")


def test_a_protection_made_after_enact_looked_is_named_with_what_to_do():
    r53, zone_id = _live()
    with pytest.raises(EnactFailed) as exc:
        enact(r53, make_plan(zone_id, 2, IPS[1:]), FULL, after_read=lambda _p: _protect(r53, zone_id))
    assert str(exc.value) == ("refused: a Route 53 record set protection covers the batch (made after enact looked), nothing "
                              f"applied ({PROTECTED}): remove the protection or pass --unprotect")
    assert read_name(r53, zone_id, NAME).live_generation == 1


@pytest.mark.parametrize("generation", [2, 4])
def test_another_writers_generation_and_protection_is_a_lost_race_not_a_refusal_of_this_batch(generation):
    """Another writer applied generation 3 and protected the name: this plan is stale (2) or planned
    again, where the protection is met before sending (4)."""
    r53, zone_id = _live()

    def other_writer(_prepared):
        if read_name(r53, zone_id, NAME).live_generation < 3:
            enact(r53, make_plan(zone_id, 3, IPS[:1]), FULL)
            _protect(r53, zone_id)

    plan = make_plan(zone_id, generation, IPS[1:])
    if generation == 2:
        with pytest.raises(StalePlan) as exc:
            enact(r53, plan, FULL, after_read=other_writer)
        assert str(exc.value) == "stale plan: live generation is 3"
        return
    with pytest.raises(Refusal) as exc:
        enact(r53, plan, FULL, after_read=other_writer)
    assert str(exc.value) == f"protected by Route 53 record set protections: {NAME}. A: remove the protection or pass --unprotect"


def test_a_lost_answer_is_read_back_as_applied_from_the_one_re_read():
    """The batch landed, every answer was a 500; the re-read finds this plan's digest and is the
    read-back too (a second read would be refused here)."""
    r53, zone_id = _live()
    before = r53.calls.get("ListResourceRecordSets", 0)
    read_name(r53, zone_id, NAME)
    one_read = r53.calls["ListResourceRecordSets"] - before
    client = AfterTheBatch(Faults().server_error_after_apply("ChangeResourceRecordSets", times=None).attach(r53), allowed=one_read)
    result = enact(client, make_plan(zone_id, 2, IPS[1:]), KEEP)
    assert result.status == "applied" and result.read_back == "matches" and result.insync is None
    assert result.notes[-1] == (f"the answer to the batch was lost ({INTERNAL}); re-read: the generation record holds this plan's "
                                "digest, so the batch is applied; INSYNC not confirmed (no change id)")
    assert not any(n.startswith("read back failed") for n in result.notes)


def test_the_change_history_says_not_applied_when_the_name_cannot_be_read():
    r53, zone_id = _live()
    r53.update_hosted_zone_tier(HostedZoneId=zone_id, HostedZoneTier="ADVANCED")
    client = AfterTheBatch(Faults().server_error("ChangeResourceRecordSets", times=3).attach(r53))
    with pytest.raises(TransientFailure) as exc:
        enact(client, make_plan(zone_id, 2, IPS[1:]), FULL)
    assert str(exc.value) == (
        f"change_resource_record_sets: {INTERNAL}; Route 53's change history holds no such batch: not applied (the name could "
        f"not be read back: {DENIED_LIST}); safe to run the same plan again")


def test_a_health_check_deleted_just_before_the_batch_makes_enact_plan_again():
    r53, zone_id = _live()

    def delete_one(params):
        created = [c["ResourceRecordSet"]["HealthCheckId"] for c in params["ChangeBatch"]["Changes"]
                   if c["Action"] == "CREATE" and c["ResourceRecordSet"]["Type"] == "A"]
        r53.delete_health_check(HealthCheckId=created[-1])

    result = enact(AfterTheBatch(r53, allowed=10**6, before_batch=delete_one), make_plan(zone_id, 2, IPS[1:]), FULL)
    assert result.status == "applied" and result.attempts == 2
    # generation 1 is still live (no other writer landed): the note names the deleted check, not a generation
    assert re.fullmatch(r"planned again 1 time\(s\) from fresh reads \(a health check of this plan was deleted while it "
                        r"waited \(NoSuchHealthCheck: A health check with id [0-9a-f-]+ does not exist\.\)\)", result.notes[-1])
    assert read_name(r53, zone_id, NAME).live_generation == 2


def test_a_protection_met_while_someone_else_changed_the_name_leaves_the_outcome_to_be_looked_at():
    """Between the read and the batch an outsider added a record set and protected the name: the batch is
    refused, but the name holds neither this plan nor the state read before: enact says look first
    (outcome unknown, exit 4), not "nothing applied"."""
    r53, zone_id = _live()

    def outsider(_prepared):
        r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": {
            "Name": NAME, "Type": "A", "SetIdentifier": "outsider", "MultiValueAnswer": True, "TTL": 60,
            "ResourceRecords": [{"Value": "198.51.100.7"}]}}]})
        _protect(r53, zone_id)

    with pytest.raises(OutcomeUnknown) as exc:
        enact(r53, make_plan(zone_id, 2, IPS[1:]), FULL, after_read=outsider)
    assert type(exc.value) is OutcomeUnknown
    assert str(exc.value) == (
        f"change_resource_record_sets failed ({PROTECTED}); re-read: {NAME}. holds neither generation 2 of this plan nor the "
        f"state read before it (generation 1); see what is live: edge-origin plan show --name {NAME} --zone-id {zone_id}")
