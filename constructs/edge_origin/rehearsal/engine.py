"""What the runner and its client engines share: the run's config, its two errors, the client-engine
interface and the stop-by-PID helper (its own module, so the engines need not import the runner)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import subprocess
from dataclasses import dataclass
from typing import Any

from edge_origin.rehearsal.clients import ClientConfig


class RehearsalError(ValueError):
    """The rehearsal cannot run: bad input, not enough descriptors, a port in use."""


class RehearsalFailed(RuntimeError):
    """The rehearsal started but did not finish (``--max-seconds`` reached, the clients died)."""


@dataclass
class RehearsalConfig:
    """How to rehearse. ``time_scale`` compresses TTLs and health-check intervals (0.1: 60 s -> 6 s).

    ``late_clients`` join after the main burst, at ``late_at`` seconds after the release (default
    with ``kill``: once the health-check window and the edge caches' TTL have passed), to show
    where new connections go. ``seed`` (drawn when None, and recorded) seeds the DNS answers per
    querying address and the clients' release order. ``client_processes`` splits the clients over that many processes
    (client i in process i % P), each building its channel objects before a common release.
    """

    clients: int = 200
    edges: int = 1
    policy: str = "shuffle"
    edge_rotation: bool = False
    seed: int | None = None
    max_seconds: float = 60.0
    duration: float = 3.0
    rpc_interval: float = 1.0
    rpc_timeout: float = 10.0
    time_scale: float = 0.1
    kill: tuple[str, float] | None = None
    port: int = 0
    dns_port: int = 0
    origin_workers: int = 4
    min_resolution_ms: int = 500
    late_clients: int = 0
    late_at: float | None = None
    client_processes: int = 1
    engine: str = "builtin"
    workers: int = 2
    lose_worker_at: float | None = None  # tests: SIGKILL one Locust worker this long after the release
    locust_csv: str | None = None  # --engine locust: Locust's own --csv PREFIX (the master writes it)
    locust_html: str | None = None  # --engine locust: Locust's own --html FILE
    locust_command_form: str = "local"  # tests: "operator" runs the commands `rehearse --manifest` renders
    resolver: str = "builtin"  # "unbound": the edges forward to one real unbound, the shared cache


def stop_process(proc: subprocess.Popen[bytes] | None) -> None:
    """Stop the client process by its PID: SIGTERM, then SIGKILL."""
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=3)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)


@dataclass
class ClientOutcome:
    """What a client engine hands back: the client records on one release clock, and its figures."""

    clients: list[dict[str, Any]]
    released_at: float  # time.monotonic() of the release, on this process's clock
    resources: dict[str, Any]
    details: dict[str, Any] = dataclasses.field(default_factory=dict)
    notes: list[str] = dataclasses.field(default_factory=list)


class ClientEngine:
    """Runs the burst's clients: ``start`` -> ``wait_ready`` -> ``release`` -> ``finished`` -> ``results``.

    ``stop`` ends everything it started (by PID) and may be called at any point, more than once.
    """

    def start(self, client_cfg: ClientConfig, env: dict[str, str]) -> None:
        raise NotImplementedError

    def wait_ready(self, deadline: float) -> None:
        raise NotImplementedError

    def release(self) -> None:
        raise NotImplementedError

    def released_at(self) -> float | None:
        raise NotImplementedError

    def finished(self) -> bool:
        raise NotImplementedError

    def pids(self) -> list[int]:
        raise NotImplementedError

    def results(self) -> ClientOutcome:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError
