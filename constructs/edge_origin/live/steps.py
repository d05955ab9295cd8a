"""Named steps of the change engine, and a drill that signals the process at one of them.

The engine calls ``reach(step)`` at each point where a kill or an interrupt means something
different: ``before-send``, ``after-send`` (the batch call answered), ``during-wait`` (each
``GetChange`` of the INSYNC wait), ``during-read-back`` and ``during-store-write`` (between the
temporary file and its rename). Nothing happens unless ``EDGE_ORIGIN_STEP_SIGNAL`` names the
step: ``after-send=SIGKILL``, ``during-store-write#3=SIGINT`` (the third time that step is
reached), several separated by commas. The process then signals itself there: deterministic
fault drills (the kill/interrupt harness in ``tests/live_write/test_interrupts.py``), no timing.
"""

from __future__ import annotations

import os
import signal

ENV = "EDGE_ORIGIN_STEP_SIGNAL"
STEPS = ("before-send", "after-send", "during-wait", "during-read-back", "during-store-write")
_counts: dict[str, int] = {}


def reach(step: str) -> None:
    """Mark ``step`` reached; signal this process if ``EDGE_ORIGIN_STEP_SIGNAL`` asks for it here."""
    spec = os.environ.get(ENV)
    if not spec:
        return
    _counts[step] = _counts.get(step, 0) + 1
    for item in spec.split(","):
        where, _, name = item.strip().partition("=")
        target, _, nth = where.partition("#")
        if target == step and (not nth or int(nth) == _counts[step]):
            os.kill(os.getpid(), getattr(signal, name.strip()))
