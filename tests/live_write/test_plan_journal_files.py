"""The plan store reads its own state files through the one safe reader (core.files.load_data_file): a FIFO, a
directory or an oversized file where a state file should be is "no state", never a hang or a traceback."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from edge_origin.core.limits import current
from edge_origin.live.plan_journal import LIFTED_FILE, lifted, read_state, state_path


def _read_bounded(fn, *args):
    out: list = []
    worker = threading.Thread(target=lambda: out.append(fn(*args)), daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "the read blocked"
    return out[0]


@pytest.mark.parametrize("kind", ["fifo", "directory", "oversized", "not json", "a list"])
def test_a_state_file_that_is_not_one_is_no_state(tmp_path: Path, kind: str) -> None:
    path = state_path(tmp_path, 7)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "oversized":
        path.write_text('{"state": "applied", "pad": "' + "x" * current().file_bytes + '"}')
    elif kind == "not json":
        path.write_text("{not json")
    else:
        path.write_text("[1, 2]")
    assert _read_bounded(read_state, tmp_path, 7) is None


def test_a_good_state_file_is_read(tmp_path: Path) -> None:
    state_path(tmp_path, 3).write_text('{"state": "applied", "digest": "d"}')
    assert read_state(tmp_path, 3) == {"state": "applied", "digest": "d"}


def test_a_lifted_file_that_is_a_fifo_is_none(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / LIFTED_FILE)
    assert _read_bounded(lifted, tmp_path) is None
