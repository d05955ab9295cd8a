"""``rehearse --engine locust``: the burst's clients as a Locust master and N worker processes.

The runner still owns the origins, the DNS server, the edge resolvers and the health checker on
127.0.0.x; this engine replaces its client processes with ``locust --master`` and ``locust
--worker`` processes running the shipped locustfile (:data:`LOCUSTFILE`), on 127.0.0.1. It never
imports Locust itself (Locust's import patches the standard library with gevent): it only starts
the processes, reads the master's status and result files, and stops every process by PID.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from edge_origin.rehearsal.clients import ClientConfig
from edge_origin.rehearsal.engine import ClientEngine, ClientOutcome, RehearsalFailed
from edge_origin.rehearsal.engine import stop_process as _stop_process
from edge_origin.rehearsal.locust_config import LOCUSTFILE, validate_config

MASTER_HOST = "127.0.0.1"
SPAWN_RATE = 1000  # users a second: every edge's user exists within the first second
#: What Locust 2.47's ``--csv PREFIX`` writes (locust/stats.py ``StatsCSVFileWriter``).
LOCUST_CSV_FILES = ("_stats.csv", "_stats_history.csv", "_failures.csv", "_exceptions.csv")


def _free_port(ip: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((ip, 0))
        return int(s.getsockname()[1])


def run_config(client_cfg: ClientConfig, workdir: Path) -> dict[str, Any]:
    """The master's configuration file for a loopback run (what a multi-machine run writes by hand)."""
    return {
        "name": client_cfg.name,
        "port": client_cfg.port,
        "resolvers": [f"{ip}:{client_cfg.dns_port}" for ip in client_cfg.edges],
        "edges": len(client_cfg.edges),
        "clients": client_cfg.clients,
        "policy": client_cfg.policy,
        "duration": client_cfg.duration,
        "rpc_interval": client_cfg.rpc_interval,
        "rpc_timeout": client_cfg.rpc_timeout,
        "max_seconds": client_cfg.max_seconds,
        "min_resolution_ms": client_cfg.min_resolution_ms,
        "allow_remote": False,
        "status_path": str(workdir / "status.json"),
        "result_path": str(workdir / "result.json"),
    }


def master_command(
    locustfile: str, port: int, workers: int, users: int, run_seconds: float,
    csv_prefix: str | None = None, html_file: str | None = None,
) -> list[str]:
    """``locust --master`` for a headless run that starts once ``workers`` workers are connected;
    ``--csv`` / ``--html`` passed through (Locust's own statistics, written by the master)."""
    cmd = [
        sys.executable, "-m", "locust", "-f", locustfile, "--master", "--headless",
        "--master-bind-host", MASTER_HOST, "--master-bind-port", str(port),
        "--expect-workers", str(workers), "--expect-workers-max-wait", str(max(1, int(run_seconds))),
        "-u", str(users), "-r", str(SPAWN_RATE), "--run-time", f"{max(1, int(run_seconds)) + 5}s",
        "--only-summary", "--loglevel", "WARNING",
    ]
    if csv_prefix is not None:
        cmd += ["--csv", csv_prefix]
    if html_file is not None:
        cmd += ["--html", html_file]
    return cmd


def operator_form_commands(locustfile: str, port: int, web_port: int, workers: int, users: int, run_seconds: float) -> tuple[list[str], list[str]]:
    """The master's and a worker's commands as the Locust operator builds them from the manifest's
    seeds (:func:`edge_origin.rehearsal.locust_manifest.operator_commands`: ``--autostart`` and
    ``--autoquit``, not ``--headless``), bound to 127.0.0.1 by ``extraArgs`` (the last flag wins):
    the same run ``rehearse --manifest`` renders, on loopback."""
    from edge_origin.rehearsal import locust_manifest as lm

    spec = {
        "master": {
            "command": lm.master_seed(locustfile, users, run_seconds),
            "autostart": True,
            "autoquit": {"enabled": True, "timeout": lm.AUTOQUIT_TIMEOUT_S},
            "extraArgs": ["--master-bind-host", MASTER_HOST, "--master-bind-port", str(port),
                          "--web-host", MASTER_HOST, "--web-port", str(web_port), "--loglevel", "WARNING"],
        },
        "worker": {
            "command": lm.worker_seed(locustfile),
            "replicas": workers,
            "extraArgs": [f"--master-port={port}", "--loglevel", "WARNING"],
        },
    }
    master, worker = lm.operator_commands(spec, MASTER_HOST)
    prefix = [sys.executable, "-m", "locust"]
    return prefix + master, prefix + worker


def locust_outputs(csv_prefix: str | None, html_file: str | None) -> dict[str, Any]:
    """Which of Locust's own outputs exist after the run (the files Locust's ``--csv`` and ``--html`` write)."""
    out: dict[str, Any] = {}
    if csv_prefix is not None:
        out["csv"] = [f"{csv_prefix}{tail}" for tail in LOCUST_CSV_FILES if Path(f"{csv_prefix}{tail}").is_file()]
    if html_file is not None:
        out["html"] = html_file if Path(html_file).is_file() else None
    return out


def worker_command(locustfile: str, port: int) -> list[str]:
    """``locust --worker`` connecting to the local master."""
    return [
        sys.executable, "-m", "locust", "-f", locustfile, "--worker",
        "--master-host", MASTER_HOST, "--master-port", str(port), "--loglevel", "WARNING",
    ]


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 4)


def per_worker_figures(workers: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per worker: edges, clients, connected, failed RPCs, first landings per origin, first-RPC p50/p99."""
    figures: dict[str, dict[str, Any]] = {}
    for i, (wid, w) in enumerate(sorted(workers.items())):
        clients = w["clients"]
        firsts = [c["first_ok"] for c in clients if c["first_ok"] is not None]
        figures[f"worker{i}"] = {
            "id": wid,
            "edges": w["edges"],
            "clients": len(clients),
            "connected": len(firsts),
            "failed_rpcs": sum(sum(c["errors"].values()) for c in clients),
            "landed": dict(Counter(c["origins"][0][1] for c in clients if c["origins"])),
            "first_rpc_seconds": {"p50": _quantile(firsts, 0.5), "p99": _quantile(firsts, 0.99)},
        }
    return figures


class LocustClients(ClientEngine):
    """A local Locust master and ``workers`` worker processes playing the plan's edges."""

    def __init__(
        self, workers: int, stderr_file: Any, lose_worker_at: float | None = None,
        csv_prefix: str | None = None, html_file: str | None = None, command_form: str = "local",
    ) -> None:
        self.workers = workers
        self.command_form = command_form
        self.csv_prefix = csv_prefix
        self.html_file = html_file
        self.stderr_file = stderr_file
        self.lose_worker_at = lose_worker_at
        self.tmp = tempfile.TemporaryDirectory(prefix="edge-origin-locust-")
        self.workdir = Path(self.tmp.name)
        self.master: subprocess.Popen[bytes] | None = None
        self.worker_procs: list[subprocess.Popen[bytes]] = []
        self.cfg: dict[str, Any] = {}
        self._released: float | None = None
        self.lost_by_us: int | None = None
        self.log = open(self.workdir / "locust.log", "wb")  # noqa: SIM115 - closed in stop()

    def _spawn(self, cmd: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, env=env, start_new_session=True
        )

    def start(self, client_cfg: ClientConfig, env: dict[str, str]) -> None:
        raw = run_config(client_cfg, self.workdir)
        self.cfg = validate_config(raw)  # the master checks it again: one line, before any process starts
        config_path = self.workdir / "config.json"
        config_path.write_text(json.dumps(raw), encoding="utf-8")
        env = {**env, "EDGE_ORIGIN_LOCUST_CONFIG": str(config_path), "PYTHONUNBUFFERED": "1"}
        port = _free_port(MASTER_HOST)
        users = self.cfg["edges"]
        if self.command_form == "operator":  # tests: the commands `rehearse --manifest` makes the operator run
            master, worker = operator_form_commands(LOCUSTFILE, port, _free_port(MASTER_HOST), self.workers, users, client_cfg.max_seconds)
            master += [*(["--csv", self.csv_prefix] if self.csv_prefix else []), *(["--html", self.html_file] if self.html_file else [])]
        else:
            master = master_command(LOCUSTFILE, port, self.workers, users, client_cfg.max_seconds, self.csv_prefix, self.html_file)
            worker = worker_command(LOCUSTFILE, port)
        self.master = self._spawn(master, env)
        for _ in range(self.workers):
            self.worker_procs.append(self._spawn(worker, env))

    def _status(self) -> dict[str, Any]:
        with contextlib.suppress(OSError, ValueError):
            return json.loads(Path(self.cfg["status_path"]).read_text(encoding="utf-8"))
        return {}

    def wait_ready(self, deadline: float) -> None:
        """Until the master has opened the start (every edge built) or a process died (bounded)."""
        for _ in range(1_000_000):  # bounded by the deadline
            if self.released_at() is not None or time.monotonic() >= deadline:
                return
            if self.master is None or self.master.poll() is not None:
                return
            time.sleep(0.02)

    def release(self) -> None:
        """Nothing to send: the master broadcasts one start time once every edge is built."""

    def released_at(self) -> float | None:
        if self._released is None:
            status = self._status()
            if status.get("event") == "released":
                # the master's wall-clock start time on this process's monotonic clock
                self._released = time.monotonic() + (float(status["start_at"]) - time.time())
        return self._released

    def _maybe_lose_worker(self) -> None:
        """Test hook: SIGKILL the first worker ``lose_worker_at`` seconds after the release."""
        release = self.released_at()
        if self.lose_worker_at is None or self.lost_by_us is not None or release is None:
            return
        if time.monotonic() >= release + self.lose_worker_at and self.worker_procs:
            victim = self.worker_procs[0]
            with contextlib.suppress(ProcessLookupError):
                os.kill(victim.pid, signal.SIGKILL)
            victim.wait(timeout=5)
            self.lost_by_us = victim.pid

    def finished(self) -> bool:
        self._maybe_lose_worker()
        return self.master is not None and self.master.poll() is not None

    def pids(self) -> list[int]:
        return [p.pid for p in [self.master, *self.worker_procs] if p is not None and p.poll() is None]

    def _log_tail(self) -> str:
        with contextlib.suppress(OSError):
            lines = (self.workdir / "locust.log").read_text(errors="replace").strip().splitlines()
            return lines[-1] if lines else ""
        return ""

    def results(self) -> ClientOutcome:
        try:
            result = json.loads(Path(self.cfg["result_path"]).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            code = None if self.master is None else self.master.returncode
            tail = self._log_tail()
            raise RehearsalFailed(
                f"the Locust master exited with {code} and no result" + (f": {tail}" if tail else "")
            ) from None
        if result.get("start_at") is None:
            raise RehearsalFailed("the Locust workers never started the burst (no edge was built)")
        clients = [{**c, "worker": wid} for wid, w in result["workers"].items() for c in w["clients"]]
        lost_edges = result["edges_lost"]
        clients.sort(key=lambda c: c["index"])
        released = self.released_at()
        if released is None:  # the status file was replaced by the result before we read it
            released = time.monotonic() + (float(result["start_at"]) - time.time())
        notes = []
        if result["lost_workers"]:
            notes.append(
                f"{len(result['lost_workers'])} Locust worker(s) lost mid-run: their {result['clients_lost']} "
                f"clients (edges {', '.join(map(str, lost_edges))}) are counted as lost"
            )
        if result.get("timed_out"):
            notes.append("the Locust master reached its deadline before every edge reported")
        outputs = locust_outputs(self.csv_prefix, self.html_file)
        if self.csv_prefix is not None and not outputs["csv"]:
            notes.append(f"Locust wrote no CSV statistics at --csv {self.csv_prefix}")
        if self.html_file is not None and outputs["html"] is None:
            notes.append(f"Locust wrote no HTML report at --html {self.html_file}")
        return ClientOutcome(
            clients=clients,
            released_at=released,
            resources={"client_processes": 1 + len(self.worker_procs), "locust_workers": self.workers},
            details={
                "engine": "locust",
                "locust": {
                    "workers": self.workers,
                    "per_worker": per_worker_figures(result["workers"]),
                    "lost_workers": len(result["lost_workers"]),
                    "clients_lost": result["clients_lost"],
                    "edges_lost": lost_edges,
                    "outputs": outputs,
                },
            },
            notes=notes,
        )

    def stop(self) -> None:
        for p in [*self.worker_procs, self.master]:
            _stop_process(p)
        with contextlib.suppress(OSError):
            self.log.close()
        with contextlib.suppress(OSError):
            self.tmp.cleanup()
