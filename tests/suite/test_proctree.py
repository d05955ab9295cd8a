"""The process-tree walk tolerates tasks and processes that vanish between listing and reading."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import proctree
import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")


@pytest.mark.parametrize("error", [FileNotFoundError, ProcessLookupError, PermissionError, OSError])
def test_a_task_that_vanishes_between_listing_and_reading_is_skipped(monkeypatch, error) -> None:
    real = Path.read_bytes
    calls: list[str] = []

    def flaky(self: Path) -> bytes:
        if self.name == "children":
            calls.append(str(self))
            if len(calls) == 1:  # the first task listed exits before its file is opened
                raise error(3, "No such process")
        return real(self)

    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)  # a second task, so there is one left to read
    worker.start()
    try:
        monkeypatch.setattr(Path, "read_bytes", flaky)
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        try:
            pids = proctree.child_pids()
        finally:
            child.kill()
            child.wait(timeout=10)
    finally:
        stop.set()
        worker.join(timeout=10)
    assert len(calls) >= 2, calls  # both tasks were read, the first one raised
    assert isinstance(pids, list)


def test_a_child_that_exits_before_its_cmdline_is_read_is_skipped(monkeypatch) -> None:
    monkeypatch.setattr(proctree, "child_pids", lambda pid=None: [999_999_999])
    assert proctree.cmdline(999_999_999) == b""
    assert proctree.children_running(b"python") == []


def test_a_process_that_is_gone_has_no_children() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(timeout=30)
    assert proctree.child_pids(proc.pid) == []


def test_a_live_child_is_found_by_its_command_line() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "proctree-marker"])
    try:
        assert proc.pid in proctree.child_pids(os.getpid())
        found: list[int] = []
        for _ in range(200):  # bounded wait for the exec (until then the child shows our command line)
            found = proctree.children_running(b"proctree-marker")
            if found:
                break
            time.sleep(0.05)
        assert found == [proc.pid]
    finally:
        proc.kill()
        proc.wait(timeout=10)
    assert proctree.children_running(b"proctree-marker") == []
