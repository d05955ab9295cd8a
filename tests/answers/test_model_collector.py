"""The model build pauses the cyclic collector and always restores it."""

from __future__ import annotations

import gc

import pytest

from edge_origin.model import ModelError, load_model
from edge_origin.model.template_model import collector_paused


def test_collector_is_paused_inside_and_restored_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_collector_is_restored_after_bad_input(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ModelError):
        load_model([bad])
    assert gc.isenabled()


def test_a_caller_that_disabled_the_collector_keeps_it_disabled() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
