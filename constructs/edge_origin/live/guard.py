"""How a live command stops: SIGINT, SIGTERM and its overall deadline, each naming the call in flight.

``RunGuard(command, deadline_s)`` is a context manager the CLI puts around every live command
(main thread only). Inside it:

* SIGINT and SIGTERM raise ``Stop`` wherever the command is;
* the deadline is one ``ITIMER_REAL`` timer for the WHOLE command, not a timeout per read: when it
  passes, ``Stop`` is raised even inside a blocking socket read (PEP 475: the signal handler
  runs and its exception leaves the read), so an endpoint that drips one byte every few seconds
  cannot keep a command running past it;
* a ``Stop`` from the timer can be lost: Python drops an exception a signal handler raises while
  a finalizer or ``__del__`` runs (it is "ignored", an unraisable exception), and a lost deadline
  once let a dripping endpoint keep ``audit`` running for minutes. So once the deadline has passed,
  the timer fires again every ``STOP_REPEAT_S`` until the command is out of the guard (or in its
  read-back grace), and every AWS call the command starts after it raises ``Stop`` at once;
* every client ``LiveSession`` makes reports the call it is making (``track_client``), so a
  ``Stop`` names the operation and the endpoint: ``deadline 120 s passed during
  ListResourceRecordSets to https://route53.amazonaws.com``;
* stdout and stderr pass ``edge_origin.live.redact`` (no secret reaches the terminal or a pipe).

``Stop`` is a ``BaseException`` (as ``KeyboardInterrupt``): botocore's and urllib3's ``except
Exception`` never swallow it. The change engine catches it once the batch may have been sent and
reads the name back (``grace``: a short new deadline for that read) before it reports.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from types import FrameType
from typing import Any

from edge_origin.live.redact import RedactingStream

DEFAULT_DEADLINE_S = 120.0
READ_BACK_GRACE_S = 15.0
STOP_REPEAT_S = 0.5  # a passed deadline fires again this often, in case its Stop was lost (see above)
DEADLINE_RANGE = (1.0, 86400.0)
EXIT_DEADLINE = 2
EXIT_SIGNAL = {"SIGINT": 130, "SIGTERM": 143}


class Stop(BaseException):
    """The command must stop now: ``kind`` is ``SIGINT``, ``SIGTERM`` or ``deadline``."""

    def __init__(self, kind: str, message: str) -> None:
        self.kind = kind
        super().__init__(message)

    @property
    def exit_code(self) -> int:
        return EXIT_DEADLINE if self.kind == "deadline" else EXIT_SIGNAL.get(self.kind, 130)


_active: RunGuard | None = None


def active() -> RunGuard | None:
    """The guard of the running command, if any."""
    return _active


def track_client(client: Any) -> Any:
    """Report each call of ``client`` (operation, endpoint) to the active guard (idempotent)."""
    if getattr(client, "_edge_origin_tracked", False):
        return client
    endpoint = getattr(getattr(client, "meta", None), "endpoint_url", None) or "?"

    def before(model: Any = None, **_: Any) -> None:
        guard = _active
        if guard is not None and model is not None:
            guard.current, guard.answered = (model.name, endpoint), False
            if guard.expired:  # the deadline passed and its Stop was lost on the way: no new call
                raise guard.deadline_stop()

    def after(model: Any = None, **_: Any) -> None:
        guard = _active
        if guard is not None and model is not None and guard.current == (model.name, endpoint):
            guard.answered = True

    client.meta.events.register("before-call", before)
    client.meta.events.register("after-call", after)
    client._edge_origin_tracked = True
    return client


class RunGuard:
    """Signals, the deadline and redacted output for one live command (see the module docstring)."""

    def __init__(self, command: str, deadline_s: float | None) -> None:
        self.command = command
        self.deadline_s = deadline_s
        self.current: tuple[str, str] | None = None
        self.answered = False  # the current call has its answer (the command is between calls)
        self.started = time.monotonic()
        self.in_grace = False
        self.expired = False  # the deadline (or the grace after it) has passed
        self._saved: dict[int, Any] = {}
        self._streams: tuple[Any, Any] | None = None
        self._signals = threading.current_thread() is threading.main_thread()

    # --- the call in flight -----------------------------------------------------------------
    def where(self) -> str:
        if self.current is None:
            return "before any AWS call"
        operation, endpoint = self.current
        return f"{'after' if self.answered else 'during'} {operation} to {endpoint}"

    # --- handlers ---------------------------------------------------------------------------
    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        raise Stop(name, f"interrupted by {name} {self.where()}")

    def deadline_stop(self) -> Stop:
        if self.in_grace:
            return Stop("deadline", f"the read-back after the deadline did not finish within {READ_BACK_GRACE_S:g} s ({self.where()})")
        return Stop("deadline", f"deadline {self.deadline_s:g} s passed {self.where()} (the whole command; --deadline)")

    def _on_alarm(self, _signum: int, _frame: FrameType | None) -> None:
        if _active is not self:  # a stray tick after the guard was left
            return
        self.expired = True
        signal.setitimer(signal.ITIMER_REAL, STOP_REPEAT_S)  # again, should this Stop be lost (a finalizer drops it)
        raise self.deadline_stop()

    def grace(self, seconds: float = READ_BACK_GRACE_S) -> None:
        """A short new deadline (for the read-back after a Stop); SIGINT/SIGTERM still stop it."""
        self.in_grace = True
        self.expired = False
        if self._signals:
            signal.setitimer(signal.ITIMER_REAL, seconds)

    def disarm(self) -> None:
        if self._signals:
            signal.setitimer(signal.ITIMER_REAL, 0)

    # --- context ----------------------------------------------------------------------------
    def __enter__(self) -> RunGuard:
        global _active
        self._previous = _active
        _active = self
        self._streams = (sys.stdout, sys.stderr)
        sys.stdout = RedactingStream(sys.stdout)  # type: ignore[assignment]
        sys.stderr = RedactingStream(sys.stderr)  # type: ignore[assignment]
        if self._signals:
            for signum, handler in ((signal.SIGINT, self._on_signal), (signal.SIGTERM, self._on_signal),
                                    (signal.SIGALRM, self._on_alarm)):
                self._saved[signum] = signal.signal(signum, handler)
            if self.deadline_s is not None:
                signal.setitimer(signal.ITIMER_REAL, self.deadline_s)
        return self

    def __exit__(self, *_: Any) -> None:
        global _active
        if self._signals:
            signal.setitimer(signal.ITIMER_REAL, 0)
            for signum, handler in self._saved.items():
                signal.signal(signum, handler)
        if self._streams is not None:
            sys.stdout, sys.stderr = self._streams
        _active = self._previous


def default_deadline(args: Any) -> float:
    """``--deadline`` when not given: 120 s, plus ``--wait`` (enact), the ``--follow`` rounds
    (watch) and ``--queries`` x ``--timeout`` (dns-spread)."""
    extra = float(getattr(args, "wait", 0.0) or 0.0)
    if getattr(args, "queries", None) and getattr(args, "timeout", None):  # dns-spread: every query may time out
        extra += float(args.queries) * float(args.timeout)
    follow = getattr(args, "follow", None)
    if follow:
        every = getattr(args, "every", None)
        extra += follow * float(every if every is not None else getattr(args, "period", 60))
    return DEFAULT_DEADLINE_S + extra
