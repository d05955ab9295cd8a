"""PlanStore.check_writable: every way a --plan-store can be unusable gets its own line, checked
before the batch is sent (so a bad store never follows an apply), and every usable one passes.

Writability is decided by ``os.access``; the tests that need a folder it refuses patch it for
that one path, so they hold when the suite runs as root (where chmod refuses nothing)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import edge_origin.live.enact as enact_module
from edge_origin.live.enact import PlanStore
from edge_origin.live.plans import LivePlanError, shown_path
from tests.live_write.conftest import NAME


def _refuse_access_to(monkeypatch: pytest.MonkeyPatch, refused: Path) -> None:
    plain = os.access

    def access(path, mode, **kwargs):
        return False if Path(path) == refused else plain(path, mode, **kwargs)

    monkeypatch.setattr(enact_module.os, "access", access)


@pytest.mark.parametrize("given", ["", "   ", "store\x00x"])
def test_a_store_name_that_is_blank_or_holds_a_nul_is_not_a_folder_name(given):
    with pytest.raises(LivePlanError) as exc:
        PlanStore(given).check_writable(NAME, 1)
    assert str(exc.value) == f"--plan-store {given!r}: not a usable folder name"


def test_a_store_under_a_file_cannot_be_created_and_says_why(tmp_path):
    (tmp_path / "file").write_text("x")
    store = tmp_path / "file" / "store"
    with pytest.raises(LivePlanError) as exc:
        PlanStore(store).check_writable()
    assert str(exc.value) == f"--plan-store {shown_path(store)}: cannot create (Not a directory)"


def test_a_store_that_is_a_file_is_not_a_folder(tmp_path):
    store = tmp_path / "store"
    store.write_text("x")
    with pytest.raises(LivePlanError) as exc:
        PlanStore(store).check_writable()
    assert str(exc.value) == f"--plan-store {shown_path(store)}: exists and is not a folder"
    assert store.read_text() == "x"


def test_a_store_the_user_cannot_write_is_refused(tmp_path, monkeypatch):
    store = tmp_path / "store"
    _refuse_access_to(monkeypatch, store)
    with pytest.raises(LivePlanError) as exc:
        PlanStore(store).check_writable()
    assert str(exc.value) == f"--plan-store {shown_path(store)}: not writable"


def test_a_name_folder_the_user_cannot_write_is_refused(tmp_path, monkeypatch):
    store = tmp_path / "store"
    folder = store / NAME
    folder.mkdir(parents=True)
    _refuse_access_to(monkeypatch, folder)
    PlanStore(store).check_writable()  # the store itself is fine
    with pytest.raises(LivePlanError) as exc:
        PlanStore(store).check_writable(NAME, 1)
    assert str(exc.value) == f"--plan-store {shown_path(store)}: {shown_path(folder)} is not writable"


@pytest.mark.parametrize("occupant", ["folder", "dangling link"])
def test_a_generation_file_name_taken_by_something_else_is_refused(tmp_path, occupant):
    store = tmp_path / "store"
    target = store / NAME / "3.json"
    target.parent.mkdir(parents=True)
    if occupant == "folder":
        target.mkdir()
    else:
        target.symlink_to(tmp_path / "nowhere")
    with pytest.raises(LivePlanError) as exc:
        PlanStore(store).check_writable(NAME, 3)
    assert str(exc.value) == f"--plan-store {shown_path(store)}: {shown_path(target)} exists and is not a regular file"
    PlanStore(store).check_writable(NAME, 4)  # another generation's file is free
    PlanStore(store).check_writable(NAME)  # no generation: only the folders are checked


def test_a_usable_store_passes_whether_new_or_holding_this_generation(tmp_path):
    store = tmp_path / "a" / "new" / "store"
    PlanStore(store).check_writable(NAME, 1)
    assert store.is_dir()
    (store / NAME).mkdir()
    (store / NAME / "1.json").write_text("{}")  # a regular file: written over on save
    PlanStore(store).check_writable(NAME, 1)
    PlanStore(store).check_writable(NAME.upper() + ".", 1)  # names fold to one folder


@settings(max_examples=60, deadline=None)
@given(st.one_of(
    st.text(alphabet=" \t\n\r\x0b\x0c\x1c\x85\xa0\u2003\u3000", max_size=6),  # what str.strip() removes
    st.builds(lambda a, b: f"{a}\x00{b}", st.text(max_size=8), st.text(max_size=8)),
))
def test_every_blank_or_nul_holding_store_name_is_refused_before_the_disk_is_touched(given_name):
    with pytest.raises(LivePlanError) as exc:
        PlanStore(given_name).check_writable(NAME, 1)
    assert str(exc.value) == f"--plan-store {given_name!r}: not a usable folder name"


@settings(max_examples=30, deadline=None)
@given(st.text(alphabet=st.characters(categories=["L", "N"]) | st.sampled_from(" -_."), min_size=1, max_size=20)
       .filter(lambda s: s.strip() not in ("", ".", "..")))
def test_every_plain_store_name_under_a_writable_folder_is_usable(folder_name):
    with tempfile.TemporaryDirectory() as root:
        store = Path(root) / folder_name
        PlanStore(store).check_writable(NAME, 1)
        assert store.is_dir()
