"""The one process-tree walk of the suite: child PIDs of a process from ``/proc``, tolerating tasks
and processes that vanish between listing and reading (a thread that exits after the glob and before
the open, a child that exits before its cmdline is read)."""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")
VANISHED = (FileNotFoundError, ProcessLookupError, NotADirectoryError, PermissionError)


def _read(path: Path) -> bytes | None:
    """The file's bytes, or None when the task or process it belongs to is gone."""
    try:
        return path.read_bytes()
    except VANISHED:
        return None
    except OSError:  # ESRCH and the like from a dying task
        return None


def child_pids(pid: int | None = None) -> list[int]:
    """PIDs of the children of every thread of ``pid`` (this process by default), in order seen."""
    tasks_dir = PROC / str(pid or os.getpid()) / "task"
    try:
        tasks = sorted(os.listdir(tasks_dir))
    except OSError:
        return []  # the process itself is gone
    out: list[int] = []
    for tid in tasks:
        raw = _read(tasks_dir / tid / "children")
        for token in (raw or b"").split():
            if int(token) not in out:
                out.append(int(token))
    return out


def cmdline(pid: int) -> bytes:
    """The process's command line (NUL-separated), or b"" when it is gone."""
    return _read(PROC / str(pid) / "cmdline") or b""


def children_running(marker: bytes, pid: int | None = None) -> list[int]:
    """Children of ``pid`` whose command line contains ``marker``."""
    return [child for child in child_pids(pid) if marker in cmdline(child)]
