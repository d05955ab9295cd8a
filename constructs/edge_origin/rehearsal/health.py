"""Health checks for the rehearsal: TCP probes of the origins, Route 53 style.

Each check probes its origins every ``request_interval x time_scale`` seconds; after
``failure_threshold`` failures in a row it turns unhealthy, and after as many successes in a row
healthy again (Route 53 uses the threshold both ways). Route 53 asks many checkers and calls an
endpoint healthy when more than 18% of them say so; one local checker stands for all of them.
Probes come from their own source address so they are never counted as client connections.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Mapping

from edge_origin import _moved
from edge_origin.rehearsal.plan import DnsPlan


class HealthTracker:
    """Current status of every health check, with the times it changed."""

    def __init__(self, keys: list[str]) -> None:
        self._status = dict.fromkeys(keys, True)
        self.changes: list[tuple[float, str, bool]] = []
        self._lock = threading.Lock()

    def __call__(self, key: str) -> bool:
        return self._status.get(key, True)

    def set(self, key: str, healthy: bool) -> None:
        with self._lock:
            if self._status.get(key, True) != healthy:
                self._status[key] = healthy
                self.changes.append((time.monotonic(), key, healthy))

    def unhealthy_since(self, key: str) -> float | None:
        """When the check last turned unhealthy, if it is unhealthy now."""
        if self(key):
            return None
        return max((t for t, k, h in self.changes if k == key and not h), default=None)


PROBE_SOURCE_IP = "127.0.30.1"


def tcp_probe(ip: str, port: int, timeout: float = 0.5, source_ip: str | None = PROBE_SOURCE_IP) -> bool:
    """True when a TCP connection to ``ip:port`` opens."""
    try:
        source = (source_ip, 0) if source_ip else None
        with socket.create_connection((ip, port), timeout=timeout, source_address=source):
            return True
    except OSError:
        return False


class HealthChecker:
    """A thread probing every health check of the plan at its scaled interval.

    Probes go to the rehearsal's origin port (the template's health-check port names the real one).
    """

    def __init__(
        self,
        plan: DnsPlan,
        addresses: Mapping[str, str],
        port: int,
        state: HealthTracker,
        time_scale: float = 1.0,
        min_interval: float = 0.05,
    ) -> None:
        self.plan = plan
        self.addresses = dict(addresses)
        self.port = port
        self.state = state
        self.time_scale = time_scale
        self.min_interval = min_interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="health-checks", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        checks = self.plan.health_checks()
        failures = dict.fromkeys(checks, 0)
        successes = dict.fromkeys(checks, 0)
        due = dict.fromkeys(checks, time.monotonic())
        while not self._stop.is_set():
            now = time.monotonic()
            for key, spec in checks.items():
                if due[key] > now:
                    continue
                interval = max(self.min_interval, spec.request_interval * self.time_scale)
                due[key] = now + interval
                ok = all(tcp_probe(self.addresses[o], self.port, timeout=min(0.5, interval)) for o in self.plan.origins_of_check(key))
                failures[key] = 0 if ok else failures[key] + 1
                successes[key] = successes[key] + 1 if ok else 0
                if successes[key] >= spec.failure_threshold:
                    self.state.set(key, True)
                elif failures[key] >= spec.failure_threshold:
                    self.state.set(key, False)
            wait = min(due.values(), default=now + 1.0) - time.monotonic()
            self._stop.wait(timeout=max(0.01, min(1.0, wait)))


__getattr__ = _moved.old_names(__name__)  # old class names, until 0.3
