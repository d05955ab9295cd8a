"""enact's edges that single-point mutants of live/enact.py found untested (benchmarks/mutate.py):
option bounds, the result's text and JSON, the 18 % boundary, dry-run refusals, the re-plan count,
the plan store's folder checks."""

from __future__ import annotations

import pytest

from edge_origin.live.enact import (
    EnactOptions,
    PlanStore,
    Refusal,
    caller_reference,
    enact,
    health_state,
)
from edge_origin.live.plans import LivePlanError
from tests.live_write.conftest import INCIDENT_IPS, NAME, a_record, change, make_plan, tcp_check

FULL = EnactOptions(max_change_share=1.0, allow_full_change=True, wait_s=0)


@pytest.mark.parametrize(("kwargs", "ok"), [
    ({"wait_s": 3600.0}, True), ({"wait_s": 3600.5}, False), ({"wait_s": 0.0}, True), ({"wait_s": -0.1}, False),
    ({"retries": 0}, True), ({"retries": -1}, False), ({"retries": 100}, True), ({"retries": 101}, False),
    ({"max_change_share": 1.0}, True), ({"max_change_share": 0.0}, False), ({"max_change_share": 1.01}, False),
])
def test_option_bounds_are_inclusive_where_documented(kwargs, ok):
    if ok:
        EnactOptions(**kwargs)
    else:
        with pytest.raises(LivePlanError, match="out of range"):
            EnactOptions(**kwargs)


def test_result_json_rounds_the_change_share_and_text_lists_every_change(r53, zone_id):
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [
        change("CREATE", a_record(f"mv-{n}", ip, multivalue=True, hc=tcp_check(r53, ip))) for n, ip in enumerate(INCIDENT_IPS[:2])]})
    plan = make_plan(zone_id, 1, INCIDENT_IPS[:3])
    result = enact(r53, plan, FULL)
    assert result.to_json()["change_share"] == round(result.change_share, 4) and len(str(result.to_json()["change_share"])) <= 6
    text = result.text()
    assert text.startswith(f"{NAME}. generation 1: applied (live generation was 0)")
    creates = [c for c in result.change_batch["Changes"] if c["Action"] == "CREATE"]
    for c in creates:
        rr = c["ResourceRecordSet"]
        assert f"CREATE {rr['Name']} {rr['Type']}" in text
    assert f"{len(result.change_batch['Changes'])} changes in one batch" in text
    noop = enact(r53, plan, FULL)
    assert noop.text().startswith(f"{NAME}. generation 1: nothing to do") and "changes in one batch" not in noop.text()
    assert noop.change_share == 0.0 and noop.to_json()["change_batch"]["Changes"] == []


def test_caller_reference_is_stable_and_52_characters():
    plan = make_plan("Z1", 1, INCIDENT_IPS[:1])
    ref = caller_reference(plan, plan.records[0])
    assert ref == caller_reference(make_plan("Z1", 7, INCIDENT_IPS[:1]), plan.records[0])
    assert ref.startswith("edge-origin-") and len(ref) == len("edge-origin-") + 40


@pytest.mark.parametrize(("ok", "total", "state"), [(9, 50, "unhealthy"), (10, 50, "healthy"), (0, 0, "pending")])
def test_health_state_is_healthy_strictly_above_18_percent(ok, total, state):
    class Client:
        def get_health_check_status(self, **_):
            return {"HealthCheckObservations": [
                {"StatusReport": {"Status": "Success: ok" if n < ok else "Failure: timed out"}} for n in range(total)]}

    assert health_state(Client(), "hc") == state  # 9/50 = 18 %: not above it


def test_a_dry_run_refuses_when_no_record_is_healthy(r53, zone_id):
    ids = {ip: tcp_check(r53, ip) for ip in INCIDENT_IPS[:2]}
    for hc in ids.values():
        r53.set_health(hc, False)
    with pytest.raises(Refusal, match="no record of plan generation 1 is healthy now"):
        enact(r53, make_plan(zone_id, 1, INCIDENT_IPS[:2], health_check_ids=ids), EnactOptions(dry_run=True, max_change_share=1.0))


def test_retries_counts_the_plans_again_after_lost_races(r53, zone_id):
    """retries=1: one lost race is planned again (and said so); a second one is refused."""
    enact(r53, make_plan(zone_id, 1), FULL)
    generations = iter([2, 12, 13])

    def lower_writer_wins(times: int):
        fired = []

        def hook(_prepared) -> None:
            if len(fired) < times:
                fired.append(1)
                enact(r53, make_plan(zone_id, next(generations), INCIDENT_IPS[:5]), FULL)
        return hook

    options = EnactOptions(max_change_share=1.0, allow_full_change=True, wait_s=0, retries=1)
    result = enact(r53, make_plan(zone_id, 10, INCIDENT_IPS[1:]), options, after_read=lower_writer_wins(1))
    assert result.attempts == 2
    assert "planned again 1 time(s) from fresh reads (generation 2 was applied while this plan waited)" in result.notes
    first = enact(r53, make_plan(zone_id, 11, INCIDENT_IPS[:4]), FULL)
    assert not any(n.startswith("planned again") for n in first.notes) and first.attempts == 1
    with pytest.raises(Refusal, match=r"^lost 2 races in a row \(generation 13 was applied while this plan waited\)"):
        enact(r53, make_plan(zone_id, 20, INCIDENT_IPS[2:]), options, after_read=lower_writer_wins(2))


def test_the_store_refuses_a_name_folder_that_is_a_file(tmp_path):
    store = PlanStore(tmp_path / "store")
    store.check_writable(NAME, 1)
    (tmp_path / "store" / "origin.example.com").write_text("not a folder")
    with pytest.raises(LivePlanError, match=r"origin.example.com exists and is not a folder"):
        store.check_writable(NAME, 1)
    assert store.generations("other.example.com") == []


def test_result_json_keeps_four_decimals_of_the_share():
    from edge_origin.live.enact import EnactResult

    result = EnactResult("applied", NAME, "Z1", 2, 1, {"Changes": []}, [], change_share=1 / 3)
    assert result.to_json()["change_share"] == 0.3333


def test_wait_insync_polls_once_for_any_positive_wait_and_caps_the_backoff_at_8_s():
    from edge_origin.live.enact import wait_insync
    from edge_origin.testing.route53 import StrictRoute53

    r53 = StrictRoute53(insync_after_polls=10**6)
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="w")["HostedZone"]["Id"]
    info = r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [
        change("CREATE", a_record(None, "192.0.2.1"))]})["ChangeInfo"]
    now = [0.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    assert wait_insync(r53, info, 0.5, sleep=sleep, clock=lambda: now[0]) is False
    assert r53.calls["GetChange"] >= 1
    slept.clear()
    assert wait_insync(r53, info, 120, sleep=sleep, clock=lambda: now[0]) is False
    assert slept[:5] == [0.5, 1.0, 2.0, 4.0, 8.0] and max(slept) == 8.0


def test_read_back_names_missing_and_differing_record_sets(r53, zone_id):
    import copy

    from edge_origin.live.enact import prepare, read_back
    from edge_origin.live.name_state import read_name

    plan = make_plan(zone_id, 1, INCIDENT_IPS[:3])
    prepared = prepare(r53, plan, FULL)
    enact(r53, plan, FULL)
    fresh = read_name(r53, zone_id, NAME)
    prepared.changes = [c for c in prepared.changes if c["Action"] != "CREATE" or c["ResourceRecordSet"]["Type"] == "TXT"]
    prepared.changes += [{"Action": "CREATE", "ResourceRecordSet": r} for r in fresh.records]
    assert read_back(fresh, prepared) == []
    changed = copy.deepcopy(fresh)
    changed.records[0]["TTL"] = 300
    dropped = copy.deepcopy(fresh)
    gone = dropped.records.pop()
    assert read_back(changed, prepared) == [f"read back: record sets that differ from the plan: {fresh.records[0]['SetIdentifier']}"]
    assert read_back(dropped, prepared) == [f"read back: record sets of this plan missing: {gone['SetIdentifier']}"]


def test_store_generations_are_numbered_files_only(tmp_path):
    store = PlanStore(tmp_path)
    folder = tmp_path / "origin.example.com"
    folder.mkdir()
    (folder / "3.json").write_text("{}")
    (folder / "7.json").mkdir()
    (folder / "notes.json").write_text("{}")
    assert store.generations(NAME) == [3]
