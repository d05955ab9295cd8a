"""Issue 38 (mutation testing of live/enact.py): the plan store's own steps as the user sees them. The
protections a stopped run lifted, put back by the next run (absent, already back, refused: each
note whole, and what is left for the run after); ``cleanup``'s default, and the journal entries of
plans never applied (the older ones go, the newer ones and pending ones stay); a clean-up racing
another one on the same store."""

from __future__ import annotations

import dataclasses

import pytest

import edge_origin.live.enact as enact_module
from edge_origin.live.enact import EnactOptions, PlanStore, enact
from edge_origin.live.name_state import generation_name
from edge_origin.live.plan_journal import note_lifted, write_state
from edge_origin.live.zone_guards import Protection
from edge_origin.testing.faults import Faults
from tests.live_write.conftest import NAME, make_plan, strict_zone

FULL = EnactOptions(allow_full_change=True, max_change_share=1.0, wait_s=0)
GEN = generation_name(NAME)
LIFTED = [Protection(GEN, "TXT"), Protection(f"{NAME}.", "A", "origin")]
SHOWN = f"{GEN} TXT, {NAME}. A"
IPS = [f"203.0.113.{n}" for n in range(10, 20)]


def _protected(r53, zone_id):
    return {(p["RecordName"], p["RecordType"], p.get("Comment"))
            for p in r53.list_resource_record_set_protections(HostedZoneId=zone_id)["ResourceRecordSetProtections"]}


def _store_with_lifted(tmp_path):
    """Generation 1 applied with a store, then a run 'killed' with the two protections lifted."""
    r53, zone_id = strict_zone()
    store = PlanStore(tmp_path / "store")
    plan = make_plan(zone_id, 1, IPS[:2])
    enact(r53, plan, FULL, journal=store.journal(plan))
    note_lifted(store.journal(plan).folder, zone_id, LIFTED)
    return r53, zone_id, store


@pytest.mark.parametrize("situation", ["lifted", "already back", "refused"])
def test_the_next_run_puts_back_what_a_stopped_run_lifted(tmp_path, situation):
    r53, zone_id, store = _store_with_lifted(tmp_path)
    client = r53
    if situation == "already back":  # someone ran the printed command first: Route 53 answers ProtectionAlreadyExists
        r53.create_resource_record_set_protections(HostedZoneId=zone_id, Protections=[
            {"RecordName": NAME, "RecordType": "A", "Comment": "origin"}, {"RecordName": GEN, "RecordType": "TXT"}])
    if situation == "refused":
        client = Faults().deny("CreateResourceRecordSetProtections", times=1).attach(r53)
    notes = store.reconcile(client, zone_id, NAME)
    if situation == "refused":
        assert notes == ["plan store: record set protections a stopped run lifted could not be put back (AccessDenied: User: "
                         "arn:aws:iam::123456789012:user/edge-origin-test is not authorized to perform: "
                         "CreateResourceRecordSetProtections)"]
        assert _protected(r53, zone_id) == set()
        notes = store.reconcile(client, zone_id, NAME)  # kept for the next run, which puts them back
    assert notes == [f"plan store: record set protections a stopped run lifted were put back: {SHOWN}"]
    assert _protected(r53, zone_id) == {(GEN, "TXT", None), (f"{NAME}.", "A", "origin")}
    assert store.reconcile(r53, zone_id, NAME) == []  # nothing left to put back


def _files(store):
    return sorted(p.name for p in (store.directory / NAME).iterdir())


def _applied(tmp_path, generations):
    r53, zone_id = strict_zone()
    store = PlanStore(tmp_path / "store")
    for n, gen in enumerate(generations):
        plan = make_plan(zone_id, gen, IPS[n:n + 2])
        enact(r53, plan, FULL, journal=store.journal(plan))
    return r53, zone_id, store


def test_cleanup_keeps_the_two_newest_plans_by_default(tmp_path):
    r53, zone_id, store = _applied(tmp_path, [1, 2, 3, 4, 5])
    assert store.cleanup(r53, zone_id, NAME) == [1, 2, 3]
    assert _files(store) == ["4.json", "4.state.json", "5.json", "5.state.json"]


@pytest.mark.parametrize(("keep", "removed", "left"), [
    (3, [], ["2.json", "2.state.json", "4.json", "4.state.json", "5.state.json", "6.json", "6.state.json", "7.state.json"]),
    (2, [2], ["4.json", "4.state.json", "5.state.json", "6.json", "6.state.json", "7.state.json"]),
])
def test_cleanup_drops_only_the_entries_of_unapplied_plans_older_than_every_kept_plan(tmp_path, keep, removed, left):
    """Applied: 2, 4, 6 (live 6, previous 4). Never applied: 1 (refused), 5 (refused), 7 (intent, a run
    under way): 1 goes, 5 is newer than a kept plan and 7 newer than the live one: both stay."""
    r53, zone_id, store = _applied(tmp_path, [2, 4, 6])
    folder = store.directory / NAME
    for gen, state in ((1, "not-applied"), (5, "not-applied"), (7, "intent")):
        write_state(folder, make_plan(zone_id, gen, IPS[:1]), state)
    assert store.cleanup(r53, zone_id, NAME, keep=keep) == removed
    assert _files(store) == left


def test_a_cleanup_racing_another_on_the_same_store_is_not_an_error(tmp_path, monkeypatch):
    """Two enactors clean one store at once: a plan or an entry the other removed between this one's
    listing and its unlink is simply gone."""
    r53, zone_id, store = _applied(tmp_path, [1, 2, 3, 4])
    folder = store.directory / NAME
    write_state(folder, make_plan(zone_id, 1, IPS[:1]), "not-applied")
    (folder / "1.json").unlink()  # generation 1: an entry only (never applied)

    class Racing(PlanStore):
        def generations(self, name):
            listed = super().generations(name)
            (folder / "2.json").unlink()  # the other clean-up got there first
            return listed

    listing = enact_module.state_generations

    def racing_entries(where):
        listed = listing(where)
        for gen in listed:
            if gen < 3:
                (where / f"{gen}.state.json").unlink(missing_ok=True)
        return listed

    monkeypatch.setattr(enact_module, "state_generations", racing_entries)
    assert Racing(store.directory).cleanup(r53, zone_id, NAME) == [2]
    assert _files(store) == ["3.json", "3.state.json", "4.json", "4.state.json"]


def test_cleanup_removes_a_stored_plan_with_its_entry_even_above_a_kept_one(tmp_path):
    """A plan saved in the store and never live (generation 3, refused after the batch: its entry says
    so) between the previous (2) and the live one (4): keep=0 removes the plan and its entry."""
    r53, zone_id, store = _applied(tmp_path, [2, 4])
    plan = make_plan(zone_id, 3, IPS[:1])
    store.save(plan)
    write_state(store.directory / NAME, plan, "not-applied")
    assert store.cleanup(r53, zone_id, NAME, keep=0) == [3]
    assert _files(store) == ["2.json", "2.state.json", "4.json", "4.state.json"]


def _refuse_write(monkeypatch, refused):
    """os.access says no to writing (W_OK/X_OK) in ``refused`` only; it still exists (F_OK)."""
    import os

    plain = os.access

    def access(path, mode, **kwargs):
        from pathlib import Path

        return False if Path(path) == refused and mode & (os.W_OK | os.X_OK) else plain(path, mode, **kwargs)

    monkeypatch.setattr(enact_module.os, "access", access)


def test_a_store_or_name_folder_that_exists_but_cannot_be_written_is_refused(tmp_path, monkeypatch):
    from edge_origin.live.plans import LivePlanError, shown_path

    store = tmp_path / "store"
    folder = store / NAME
    folder.mkdir(parents=True)
    _refuse_write(monkeypatch, folder)
    with pytest.raises(LivePlanError) as exc:
        PlanStore(store).check_writable(NAME, 1)
    assert str(exc.value) == f"--plan-store {shown_path(store)}: {shown_path(folder)} is not writable"
    monkeypatch.undo()
    _refuse_write(monkeypatch, store)
    with pytest.raises(LivePlanError) as exc:
        PlanStore(store).check_writable()
    assert str(exc.value) == f"--plan-store {shown_path(store)}: not writable"


def test_a_store_name_the_file_system_cannot_encode_is_refused_with_the_reason(tmp_path):
    from edge_origin.live.plans import LivePlanError, shown_path

    store = tmp_path / "\ud800"  # a lone surrogate: no file name in UTF-8 (only a library caller can pass it)
    with pytest.raises(LivePlanError) as exc:
        PlanStore(store).check_writable()
    assert str(exc.value) == (f"--plan-store {shown_path(store)}: cannot create ('utf-8' codec can't encode character '\\ud800' "
                              f"in position {len(str(tmp_path)) + 1}: surrogates not allowed)")


def test_a_name_with_or_without_its_trailing_dot_is_one_folder_of_the_store(tmp_path):
    store = PlanStore(tmp_path / "store")
    r53, zone_id = strict_zone()
    plan = make_plan(zone_id, 1, IPS[:1])
    path = store.save(dataclasses.replace(plan, name="Origin.Example.com."))
    assert path == tmp_path / "store" / NAME / "1.json"
    assert store.generations(NAME) == [1] == store.generations(f"{NAME}.")


def test_a_name_live_before_the_store_existed_is_recorded_by_the_first_run_with_it(tmp_path):
    r53, zone_id = strict_zone()
    enact(r53, make_plan(zone_id, 1, IPS[:2]), FULL)  # no store
    store = PlanStore(tmp_path / "store")
    assert store.reconcile(r53, zone_id, NAME) == [
        "plan store: generation 1 is live in Route 53 but was not recorded: recorded from the live records (change id unknown)"]
    assert _files(store) == ["1.json", "1.state.json"]


def test_protections_lifted_by_a_first_run_killed_before_its_batch_are_put_back(tmp_path):
    """The name has no generation yet (the first plan's batch never landed) but the store holds what
    the killed run lifted: the next run puts it back."""
    r53, zone_id = strict_zone()
    store = PlanStore(tmp_path / "store")
    note_lifted(store.directory / NAME, zone_id, LIFTED)
    assert store.reconcile(r53, zone_id, NAME) == [f"plan store: record set protections a stopped run lifted were put back: {SHOWN}"]
    assert _protected(r53, zone_id) == {(GEN, "TXT", None), (f"{NAME}.", "A", "origin")}
    assert PlanStore(tmp_path / "elsewhere").reconcile(r53, zone_id, NAME) == []  # no folder, no generation: nothing
