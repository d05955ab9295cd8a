"""enact says what happened: applied, not applied, or unknown, decided by re-reading the name.

Every fault goes through edge_origin.testing.faults, on StrictRoute53 (behind the wrapper that
resends as botocore does) and on a moto server (the botocore hook). The property test draws the
fault point (operation x call index x fault x attempts) and checks the verdict against the
truth read afterwards by a client without faults.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from edge_origin.live.enact import (
    EnactFailed,
    EnactOptions,
    NotApplied,
    OutcomeUnknown,
    Refusal,
    TransientFailure,
    _same_state,
    enact,
    is_this_plan,
    wait_insync,
)
from edge_origin.live.name_state import read_name
from edge_origin.live.session import LiveSession
from edge_origin.testing.faults import KINDS, STALL_LANDS, Fault, Faults
from edge_origin.testing.route53 import StrictRoute53
from tests.live_write.conftest import INCIDENT_IPS, NAME, incident_setup, make_plan
from tests.live_write.moto_server import moto_server

OPTIONS = EnactOptions(max_change_share=1.0, allow_full_change=True, wait_s=30)
NO_SLEEP = {"sleep": lambda _s: None}
OPERATIONS = ("GetHostedZone", "ListResourceRecordSets", "ListHealthChecks", "CreateHealthCheck",
              "GetHealthCheckStatus", "ChangeResourceRecordSets", "GetChange")
_zones = itertools.count(1)


def _strict(insync_after_polls: int = 1) -> tuple[StrictRoute53, str]:
    r53 = StrictRoute53(insync_after_polls=insync_after_polls)
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"].split("/")[-1]
    incident_setup(r53, zone_id)
    return r53, zone_id


@pytest.fixture(scope="module")
def moto_url():
    with pytest.MonkeyPatch.context() as mp:
        for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
            mp.setenv(key, "testing")
        with moto_server() as url:
            yield url


def _moto(url: str) -> tuple[object, str]:
    r53 = LiveSession(endpoint_url=url).client("route53")
    n = next(_zones)
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference=f"outcomes-{n}")["HostedZone"]["Id"].split("/")[-1]
    incident_setup(r53, zone_id)
    return r53, zone_id


@pytest.fixture(params=["strict", "moto-server"])
def world(request):
    """(plain client, zone id, attach(faults) -> faulty client)."""
    if request.param == "strict":
        r53, zone_id = _strict()
        return r53, zone_id, lambda f: f.attach(r53)
    url = request.getfixturevalue("moto_url")
    r53, zone_id = _moto(url)
    return r53, zone_id, lambda f: f.attach(LiveSession(endpoint_url=url).client("route53"))


# --- the cases, one by one --------------------------------------------------------------
def test_its_own_batch_with_a_lost_answer_is_applied_not_stale(world):
    """The batch lands, the answer is a 500, botocore resends, Route 53 refuses the resend: applied."""
    r53, zone_id, attach = world
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:3])
    faults = Faults().server_error_after_apply("ChangeResourceRecordSets")
    result = enact(attach(faults), plan, OPTIONS, **NO_SLEEP)
    assert faults.hits() == 1
    assert result.status == "applied" and result.insync is None
    assert any("answer to the batch was lost" in n and "INSYNC not confirmed" in n for n in result.notes)
    assert result.read_back == "matches"
    assert is_this_plan(read_name(r53, zone_id, NAME), plan)


def test_reset_connection_after_the_batch_landed_is_applied(world):
    r53, zone_id, attach = world
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:3])
    faults = Faults().reset_after_apply("ChangeResourceRecordSets", times=None)
    result = enact(attach(faults), plan, OPTIONS, **NO_SLEEP)
    assert result.status == "applied" and "ConnectionClosed" not in result.status
    assert is_this_plan(read_name(r53, zone_id, NAME), plan)


def test_get_change_throttled_after_the_batch_landed_is_applied_insync_not_confirmed():
    r53, zone_id = _strict(insync_after_polls=5)
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:3])
    faults = Faults().throttle("GetChange", times=None)
    result = enact(faults.attach(r53), plan, OPTIONS, **NO_SLEEP)
    assert faults.hits("throttle") == 3  # every attempt of the first poll
    assert result.status == "applied" and result.insync is None and result.change_id
    assert any(n.startswith("applied; INSYNC not confirmed: get_change") and "Throttling" in n for n in result.notes)
    assert "INSYNC not confirmed" in result.text()


@pytest.mark.parametrize("attempts", [1, 3])
def test_a_stall_that_lands_later_is_applied(attempts):
    r53, zone_id = _strict()
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:3])
    faults = Faults().stall("ChangeResourceRecordSets", times=None, lands="later")
    result = enact(faults.attach(r53, max_attempts=attempts), plan, OPTIONS, **NO_SLEEP)
    assert result.status == "applied"
    assert any("Read timeout" in n for n in result.notes)


def test_a_stall_that_never_lands_is_not_applied_and_safe_to_retry(world):
    r53, zone_id, attach = world
    before = read_name(r53, zone_id, NAME)
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:3])
    with pytest.raises(TransientFailure, match="Read timeout.*nothing changed: safe to run the same plan again") as exc:
        enact(attach(Faults().stall("ChangeResourceRecordSets", times=None)), plan, OPTIONS, **NO_SLEEP)
    assert exc.value.retry_safe and isinstance(exc.value, NotApplied)
    assert _same_state(read_name(r53, zone_id, NAME), before)
    assert enact(r53, plan, OPTIONS, **NO_SLEEP).status == "applied"  # the retry it promised


def test_throttled_batch_is_not_applied_and_safe_to_retry(world):
    r53, zone_id, attach = world
    with pytest.raises(TransientFailure, match="Throttling"):
        enact(attach(Faults().throttle("ChangeResourceRecordSets", times=None)), make_plan(zone_id, 1, INCIDENT_IPS[:3]), OPTIONS, **NO_SLEEP)


def test_denied_batch_is_not_applied_and_not_called_transient(world):
    r53, zone_id, attach = world
    before = read_name(r53, zone_id, NAME)
    with pytest.raises(EnactFailed, match="AccessDenied") as exc:
        enact(attach(Faults().deny("ChangeResourceRecordSets")), make_plan(zone_id, 1, INCIDENT_IPS[:3]), OPTIONS, **NO_SLEEP)
    assert not exc.value.retry_safe
    assert _same_state(read_name(r53, zone_id, NAME), before)


def test_an_error_before_the_batch_says_nothing_was_sent():
    r53, zone_id = _strict()
    with pytest.raises(TransientFailure, match=r"before the batch was sent: nothing changed"):
        enact(Faults().throttle("ListHealthChecks", times=None).attach(r53), make_plan(zone_id, 1, INCIDENT_IPS[:3]), OPTIONS)
    with pytest.raises(EnactFailed, match=r"create_health_check for nlb-203-0-113-10: AccessDenied"):
        enact(Faults().deny("CreateHealthCheck").attach(r53), make_plan(zone_id, 1, INCIDENT_IPS[:3]), OPTIONS)


def test_a_hand_edit_between_read_and_send_makes_the_outcome_unknown():
    """The batch is refused (its DELETE no longer matches) and the name holds neither state."""
    r53, zone_id = _strict()
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:3])

    def hand_edit(_prepared) -> None:
        r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [{"Action": "UPSERT", "ResourceRecordSet": {
            "Name": NAME, "Type": "A", "SetIdentifier": "nlb-1", "Weight": 10,
            "AliasTarget": {"DNSName": "nlb-1-abcdef.elb.us-east-1.amazonaws.com", "HostedZoneId": "Z26RNL4JYFTOTI", "EvaluateTargetHealth": True}}}]})

    with pytest.raises(OutcomeUnknown) as exc:
        enact(r53, plan, OPTIONS, after_read=hand_edit)
    assert exc.value.show_command == f"edge-origin plan show --name {NAME} --zone-id {zone_id}"
    assert "holds neither generation 1 of this plan nor the state read before it" in str(exc.value)


def test_a_lost_answer_and_a_failed_re_read_is_unknown():
    r53, zone_id = _strict()
    faults = Faults().server_error_after_apply("ChangeResourceRecordSets")
    client = faults.attach(r53)
    with pytest.raises(OutcomeUnknown, match=r"could not be read back \(AccessDenied"):
        enact(client, make_plan(zone_id, 1, INCIDENT_IPS[:3]), OPTIONS, after_read=lambda _p: faults.deny("ListResourceRecordSets"))


def test_the_resend_of_an_applied_batch_on_the_next_run_is_a_no_op():
    r53, zone_id = _strict()
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:3])
    enact(Faults().server_error_after_apply("ChangeResourceRecordSets").attach(r53), plan, OPTIONS, **NO_SLEEP)
    assert enact(r53, plan, OPTIONS).status == "no-op"


def test_a_later_batch_over_this_one_still_counts_as_applied():
    """Lost answer, and before the re-read another writer applied the next generation on top."""
    r53, zone_id = _strict()
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:3])
    faults = Faults()
    client = faults.attach(r53)

    def next_writer_lands_first() -> None:
        enact(r53, make_plan(zone_id, 2, INCIDENT_IPS[:4]), OPTIONS, **NO_SLEEP)

    faults.stall("ChangeResourceRecordSets", times=None, lands="before")
    faults.add(Fault("deny", "NoSuchOperation"))  # not hit: only the ones above count
    result = enact(client, plan, OPTIONS, **NO_SLEEP, after_read=lambda _p: None)
    assert result.status == "applied"
    next_writer_lands_first()
    assert read_name(r53, zone_id, NAME).generation.previous == 1


def test_read_back_says_when_another_batch_landed_after_this_one():
    r53, zone_id = _strict(insync_after_polls=1)
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:3])
    calls = {"n": 0}
    real_get_change = r53.get_change

    def get_change(**params):
        calls["n"] += 1
        if calls["n"] == 1:
            enact(r53, make_plan(zone_id, 2, INCIDENT_IPS[:4]), EnactOptions(max_change_share=1.0, wait_s=0))
        return real_get_change(**params)

    r53.get_change = get_change  # type: ignore[method-assign]
    result = enact(r53, plan, OPTIONS, **NO_SLEEP)
    assert result.status == "applied" and result.read_back == "differs"
    assert any("live generation is now 2" in n for n in result.notes)


@pytest.mark.slow  # moto server, two threads
def test_two_concurrent_enacts_on_moto_both_applied_and_read_back_says_so(moto_url):
    """moto checks DELETEs against change history: both batches land. Read back names it."""
    r53, zone_id = _moto(moto_url)
    enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:3]), OPTIONS, **NO_SLEEP)
    results = {}

    def overtaken(_prepared) -> None:
        results["b"] = enact(r53, make_plan(zone_id, 5, INCIDENT_IPS[3:6]), OPTIONS, **NO_SLEEP)

    results["a"] = enact(r53, make_plan(zone_id, 3, INCIDENT_IPS[1:4]), OPTIONS, after_read=overtaken, **NO_SLEEP)
    assert results["a"].status == results["b"].status == "applied"
    assert results["a"].read_back == "differs"
    assert any("another writer's batch landed beside this one" in n for n in results["a"].notes), results["a"].notes


def test_insync_answer_short_circuits_the_wait():
    polled = []

    class Client:
        def get_change(self, **params):
            polled.append(params)
            return {"ChangeInfo": {"Status": "PENDING"}}

    assert wait_insync(Client(), {"Id": "c", "Status": "INSYNC"}, 60) is True and polled == []
    assert wait_insync(Client(), {"Id": "c", "Status": "PENDING"}, 0) is False and polled == []


# --- every fault point x outcome ------------------------------------------------------------------
@st.composite
def fault_points(draw):
    faults = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(KINDS))
        faults.append(Fault(
            kind, draw(st.sampled_from(OPERATIONS)), draw(st.one_of(st.none(), st.integers(1, 4))), draw(st.integers(0, 6)),
            lands=draw(st.sampled_from(STALL_LANDS)) if kind == "stall" else "never",
        ))
    return faults, draw(st.integers(1, 4)), draw(st.booleans())


def _install(faults: Faults, fault: Fault) -> None:
    builders = {
        "throttle": faults.throttle, "prior_request_not_complete": faults.prior_request_not_complete,
        "server_error": faults.server_error, "server_error_after_apply": faults.server_error_after_apply,
        "reset_after_apply": faults.reset_after_apply, "deny": faults.deny, "garbage": faults.garbage,
    }
    if fault.kind == "stall":
        faults.stall(fault.operation, fault.times, skip=fault.skip, lands=fault.lands)
    else:
        builders[fault.kind](fault.operation, fault.times, skip=fault.skip)


@settings(max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(fault_points())
def test_every_fault_point_gives_the_verdict_the_name_shows(drawn):
    """applied => this plan is live; not applied => the state read before; never the reverse."""
    spec, attempts, from_multivalue = drawn
    r53, zone_id = _strict(insync_after_polls=1)
    generation = 1
    if from_multivalue:  # start from an applied plan instead of the weighted records
        enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:3]), OPTIONS, **NO_SLEEP)
        generation = 2
    before = read_name(r53, zone_id, NAME)
    plan = make_plan(zone_id, generation, INCIDENT_IPS[1:5])
    faults = Faults()
    for fault in spec:
        _install(faults, fault)
    try:
        result = enact(faults.attach(r53, max_attempts=attempts), plan, OPTIONS, **NO_SLEEP)
        verdict = result.status
    except NotApplied as exc:
        verdict = "not-applied"
        assert not isinstance(exc, Refusal) or "healthy" in str(exc) or "stale" in str(exc), exc
    except OutcomeUnknown:
        verdict = "unknown"
    event(verdict)
    faults.release()  # a write still stalled lands now: the verdict must not have depended on it
    truth = read_name(r53, zone_id, NAME)
    assert truth.records, "the name lost every record"
    landed_now = is_this_plan(truth, plan)
    if verdict == "applied":
        assert landed_now
    elif verdict == "not-applied":
        assert _same_state(truth, before), faults.log
    else:
        # unknown only when the re-read itself failed after the batch call
        batch_at = [i for i, (op, _) in enumerate(faults.log) if op == "ChangeResourceRecordSets"]
        assert batch_at and any(k != "ok" for op, k in faults.log[batch_at[0]:] if op == "ListResourceRecordSets"), faults.log


def test_same_state_compares_the_generation_record_and_every_record_in_any_order():
    from edge_origin.live.name_state import LiveName

    gen = {"Name": "_edge-origin-generation.origin.example.com.", "Type": "TXT", "TTL": 60,
           "ResourceRecords": [{"Value": '"edge-origin generation=1 digest=ab"'}]}
    recs = [{"Name": NAME, "Type": "A", "SetIdentifier": s, "MultiValueAnswer": True, "TTL": 60,
             "ResourceRecords": [{"Value": ip}]} for s, ip in (("a", "192.0.2.1"), ("b", "192.0.2.2"))]

    def live(records, generation_record=gen):
        return LiveName(NAME, "Z1", "example.com.", records=records, generation_record=generation_record)

    assert _same_state(live(recs), live(list(reversed(recs))))
    assert not _same_state(live(recs), live(recs[:1]))
    assert not _same_state(live(recs), live([recs[0], {**recs[1], "TTL": 300}]))
    assert not _same_state(live(recs), live(recs, {**gen, "ResourceRecords": [{"Value": '"edge-origin generation=2 digest=cd"'}]}))
    assert not _same_state(live(recs), live(recs, None))


def test_judge_names_each_outcome():
    from edge_origin.live.enact import judge, prepare

    r53, zone_id = _strict()
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:3])
    prepared = prepare(r53, plan, OPTIONS)
    assert judge(read_name(r53, zone_id, NAME), prepared) == "not-applied"
    enact(r53, plan, OPTIONS, **NO_SLEEP)
    assert judge(read_name(r53, zone_id, NAME), prepared) == "applied"
    enact(r53, make_plan(zone_id, 2, INCIDENT_IPS[:4]), OPTIONS, **NO_SLEEP)
    assert judge(read_name(r53, zone_id, NAME), prepared) == "applied"  # generation 2 names 1 as its previous
    enact(r53, make_plan(zone_id, 3, INCIDENT_IPS[:5]), OPTIONS, **NO_SLEEP)
    assert judge(read_name(r53, zone_id, NAME), prepared) == "other-writer"
