"""The loopback rehearsal: origins, an authoritative DNS server, edge resolvers and a client process.

:func:`rehearse` starts everything on 127.0.0.x, releases the clients, optionally kills one origin,
and returns a :class:`RehearsalResult`. Everything it starts is stopped in ``finally``: servers by
their handles, the client process by its PID (also on Ctrl-C and on error).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import random
import resource
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from edge_origin.rehearsal import clients as clients_module
from edge_origin.rehearsal.clients import LB_POLICIES, ClientConfig
from edge_origin.rehearsal.dns_server import (
    AuthoritativeServer,
    DnsLoop,
    PortInUseError,
    bind_dns_sockets,
    sourced_message_responder,
)
from edge_origin.rehearsal.edges import EdgeResolver
from edge_origin.rehearsal.engine import (
    ClientEngine,
    ClientOutcome,
    RehearsalConfig,
    RehearsalError,
    RehearsalFailed,
)
from edge_origin.rehearsal.engine import stop_process as _stop_process
from edge_origin.rehearsal.health import HealthChecker, HealthTracker
from edge_origin.rehearsal.metrics import RehearsalResult, summarize
from edge_origin.rehearsal.origins import ConnectionSampler, OriginLoop, OriginServer
from edge_origin.rehearsal.plan import DnsPlan

DNS_IP = "127.0.0.1"
ORIGIN_NET = "127.0.10."  # origins: 127.0.10.1 .. 127.0.10.254
EDGE_NET = "127.0.20."  # edges: 127.0.20.1 .. 127.0.20.254
MAX_ORIGINS = 254
MAX_EDGES = 254
TICK_SECONDS = 0.05
MAX_CLIENT_PROCESSES = 64
MAX_KILL_SECONDS = 86400.0
MONITOR_EVERY_TICKS = 10  # sample connections and descriptors every 0.5 s


def parse_kill(text: str) -> tuple[str, float]:
    """``ORIGIN@SECONDS`` -> (origin, seconds after the release)."""
    origin, sep, seconds = text.rpartition("@")
    if not sep or not origin:
        raise RehearsalError(f"--kill must be ORIGIN@SECONDS (got {text!r})")
    try:
        at = float(seconds) if len(seconds) <= 40 else math.nan
    except ValueError:
        raise RehearsalError(f"--kill: {seconds[:40]!r} is not a number of seconds") from None
    if not math.isfinite(at):
        raise RehearsalError(f"--kill: {seconds[:40]!r} is not a finite number of seconds (allowed: 0..{MAX_KILL_SECONDS:g})")
    if not 0 <= at <= MAX_KILL_SECONDS:
        raise RehearsalError(f"--kill: seconds must be 0..{MAX_KILL_SECONDS:g} (got {at:g})")
    return origin, at


def resolve_origin(plan: DnsPlan, text: str) -> str:
    """An origin key from its key, its logical id (``Stack/Id`` -> ``Id``) or a unique part of it."""
    from edge_origin.rehearsal.plan import match_origin_key

    try:
        return match_origin_key(plan.origin_keys, text)
    except LookupError as exc:
        raise RehearsalError(f"--kill: {exc.args[0]}") from None


ENGINES = ("builtin", "locust")
RESOLVERS = ("builtin", "unbound")
SEED_BITS = 32  # a drawn seed: short enough to type back
MAX_WORKERS = 32


def origin_addresses(plan: DnsPlan) -> dict[str, str]:
    """Each distinct origin gets its own loopback address, in plan order."""
    keys = plan.origin_keys
    if len(keys) > MAX_ORIGINS:
        raise RehearsalError(
            f"{len(keys)} origins but only {MAX_ORIGINS} loopback addresses are planned ({ORIGIN_NET}1-254)"
        )
    return {k: f"{ORIGIN_NET}{i}" for i, k in enumerate(keys, start=1)}


def descriptors_needed(cfg: RehearsalConfig, origins: int) -> int:
    """Descriptors one process needs: a connection per client (per origin with round_robin) plus slack."""
    per_client = origins if cfg.policy == "round_robin" else 1
    if cfg.kill:
        per_client += 1
    clients = cfg.clients + cfg.late_clients
    # measured: ~1 descriptor per connection on each side, a few transient DNS sockets per client
    return clients * per_client + clients // 10 + 16 * origins + 4 * cfg.edges + 256


def ensure_descriptors(needed: int) -> int:
    """Raise the soft ``ulimit -n`` up to the hard limit if needed; error if that is not enough."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        return soft
    target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        raise RehearsalError(
            f"needs {needed} file descriptors per process but `ulimit -n` is {soft}; "
            f"run `ulimit -n {needed}` or use fewer clients"
        )
    return soft


def validate(plan: DnsPlan, cfg: RehearsalConfig) -> None:
    """Check the input before anything starts."""
    if cfg.clients < 1:
        raise RehearsalError(f"--clients must be at least 1 (got {cfg.clients})")
    if cfg.late_clients < 0:
        raise RehearsalError(f"--late-clients must not be negative (got {cfg.late_clients})")
    if not 1 <= cfg.client_processes <= MAX_CLIENT_PROCESSES:
        raise RehearsalError(f"--client-processes must be 1..{MAX_CLIENT_PROCESSES} (got {cfg.client_processes})")
    if cfg.engine not in ENGINES:
        raise RehearsalError(f"--engine must be one of {', '.join(ENGINES)} (got {cfg.engine!r})")
    if cfg.engine == "locust" and cfg.late_clients:
        raise RehearsalError("--late-clients is not supported with --engine locust (every edge starts at the release)")
    if cfg.engine == "locust" and cfg.client_processes != 1:
        raise RehearsalError("--client-processes is for the builtin engine; with --engine locust use --workers")
    if cfg.locust_command_form not in ("local", "operator"):
        raise RehearsalError(f"locust_command_form must be local or operator (got {cfg.locust_command_form!r})")
    for flag, value in (("--csv", cfg.locust_csv), ("--html", cfg.locust_html)):
        if value is not None and cfg.engine != "locust":
            raise RehearsalError(f"{flag} writes Locust's own output: it needs --engine locust")
    if not 1 <= cfg.workers <= MAX_WORKERS:
        raise RehearsalError(f"--workers must be 1..{MAX_WORKERS} (got {cfg.workers})")
    if cfg.resolver not in RESOLVERS:
        raise RehearsalError(f"--resolver must be one of {', '.join(RESOLVERS)} (got {cfg.resolver!r})")
    if cfg.resolver == "unbound":
        from edge_origin.rehearsal.unbound import require_unbound

        require_unbound()
    if cfg.seed is not None and not 0 <= cfg.seed < 2**63:
        raise RehearsalError(f"--seed must be 0..{2**63 - 1} (got {cfg.seed})")
    if not 1 <= cfg.edges <= MAX_EDGES:
        raise RehearsalError(f"--edges must be 1..{MAX_EDGES} (got {cfg.edges})")
    if cfg.policy not in LB_POLICIES:
        raise RehearsalError(f"--lb-policy must be one of {', '.join(LB_POLICIES)} (got {cfg.policy!r})")
    if cfg.max_seconds <= 0 or cfg.duration <= 0 or cfg.time_scale <= 0:
        raise RehearsalError("--max-seconds, duration and --time-scale must be positive")
    if cfg.kill is not None:
        key, at = cfg.kill
        cfg.kill = (resolve_origin(plan, key), at)
        if at < 0:
            raise RehearsalError("--kill: seconds must be >= 0")
    origin_addresses(plan)


def _late_at(plan: DnsPlan, cfg: RehearsalConfig) -> float:
    """When the late clients join: as given, or after the kill's health-check window plus the TTL."""
    if cfg.late_at is not None:
        return cfg.late_at
    if cfg.kill is None:
        return cfg.duration / 2
    key, at = cfg.kill
    # the failure window, one more check interval (probes are not aligned with the kill), the TTL
    windows = [
        r.health_check.window_seconds + r.health_check.request_interval
        for r in plan.records
        if r.health_check and key in r.values
    ]
    return at + (max(windows, default=0.0) + plan.ttl) * cfg.time_scale + 0.5


def _free_port(ip: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((ip, 0))
        return int(s.getsockname()[1])


def _count_fds(pid: int | None = None) -> int:
    try:
        return len(os.listdir(f"/proc/{pid or 'self'}/fd"))
    except OSError:
        return 0


def _shift_times(clients: list[dict[str, Any]], offset: float) -> list[dict[str, Any]]:
    """A client process's records on the common release clock (``offset``: its release - the first)."""
    if not offset:
        return clients
    for c in clients:
        if c["first_ok"] is not None:
            c["first_ok"] = round(c["first_ok"] + offset, 4)
        c["origins"] = [(round(t + offset, 4), o) for t, o in c["origins"]]
        c["error_log"] = [(round(t + offset, 4), code) for t, code in c["error_log"]]
    return clients


def _trap_sigterm() -> Any:
    """In the main thread, turn SIGTERM into KeyboardInterrupt so cleanup runs; returns the old handler."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def _raise(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, _raise)


class _ChildReader(threading.Thread):
    """Reads the client process's JSON lines."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        super().__init__(name="clients-reader", daemon=True)
        self.proc = proc
        self.ready = threading.Event()
        self.released = threading.Event()
        self.released_at = 0.0
        self.result: dict[str, Any] | None = None

    def run(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            if msg.get("event") == "ready":
                self.ready.set()
            elif msg.get("event") == "released":
                self.released_at = float(msg["t"])
                self.released.set()
            elif msg.get("event") == "result":
                self.result = msg


class ProcessClients(ClientEngine):
    """The built-in engine: ``client_processes`` asyncio client processes (clients.py) with one barrier."""

    def __init__(self, processes: int, stderr_file: Any) -> None:
        self.processes = processes
        self.stderr_file = stderr_file
        self.procs: list[subprocess.Popen[bytes]] = []
        self.readers: list[_ChildReader] = []

    def start(self, client_cfg: ClientConfig, env: dict[str, str]) -> None:
        nprocs = min(self.processes, client_cfg.clients)
        for j in range(nprocs):
            # run by path: clients.py needs only grpc, and `import edge_origin` would start aws-cdk's jsii runtime
            proc = subprocess.Popen(
                [sys.executable, str(Path(clients_module.__file__).resolve())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr_file,
                env=env,
                start_new_session=True,  # Ctrl-C reaches us; we stop the child by PID
            )
            self.procs.append(proc)  # appended first so it is stopped whatever happens next
            reader = _ChildReader(proc)
            reader.start()
            self.readers.append(reader)
            assert proc.stdin is not None
            one = dataclasses.replace(client_cfg, first_index=j, index_step=nprocs)
            proc.stdin.write(json.dumps(one.__dict__).encode() + b"\n")
            proc.stdin.flush()

    def wait_ready(self, deadline: float) -> None:
        # the release: once every process has built its channels, all get their go line together
        for _ in range(1_000_000):  # bounded by the deadline
            if all(r.ready.is_set() for r in self.readers) or time.monotonic() >= deadline:
                break
            if any(p.poll() is not None for p in self.procs):
                break
            time.sleep(0.01)

    def release(self) -> None:
        for p in self.procs:
            assert p.stdin is not None
            with contextlib.suppress(OSError):
                p.stdin.write(b"go\n")
                p.stdin.close()

    def released_at(self) -> float | None:
        if not all(r.released.is_set() for r in self.readers):
            return None
        return min(r.released_at for r in self.readers)

    def finished(self) -> bool:
        return all(p.poll() is not None for p in self.procs)

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def results(self) -> ClientOutcome:
        for reader in self.readers:
            reader.join(timeout=5)
        failed = next((p for p, r in zip(self.procs, self.readers, strict=True) if r.result is None), None)
        if failed is not None:
            self.stderr_file.seek(0)
            tail = self.stderr_file.read()[-2000:].decode(errors="replace").strip().splitlines()
            raise RehearsalFailed(
                f"the client process exited with {failed.returncode} and no result"
                + (f": {tail[-1]}" if tail else "")
            )
        release = min(r.released_at for r in self.readers)
        clients = [
            c for r in self.readers for c in _shift_times(r.result["clients"], r.released_at - release)  # type: ignore[index]
        ]
        rss = [r.result.get("peak_rss_mb") for r in self.readers]  # type: ignore[union-attr]
        return ClientOutcome(
            clients=clients,
            released_at=release,
            resources={
                "peak_rss_mb_clients": round(sum(x for x in rss if x is not None), 1),
                "client_processes": len(self.procs),
                # how far apart the processes' barriers opened (their records are on the first one's clock)
                "release_spread_ms": round(1000 * (max(r.released_at for r in self.readers) - release), 2),
            },
        )

    def stop(self) -> None:
        for p in self.procs:
            _stop_process(p)


def make_engine(cfg: RehearsalConfig, stderr_file: Any) -> ClientEngine:
    """The client engine ``cfg.engine`` names: ``builtin`` (client processes) or ``locust``."""
    if cfg.engine == "locust":
        from edge_origin.rehearsal.locust_engine import LocustClients

        return LocustClients(
            workers=cfg.workers, stderr_file=stderr_file, lose_worker_at=cfg.lose_worker_at,
            csv_prefix=cfg.locust_csv, html_file=cfg.locust_html, command_form=cfg.locust_command_form,
        )
    return ProcessClients(cfg.client_processes, stderr_file)


def rehearse(plan: DnsPlan, cfg: RehearsalConfig) -> RehearsalResult:
    """Run the rehearsal on loopback and return its figures.

    Named start steps on one ``ExitStack``: the origins, the DNS (authoritative server and edge
    resolvers), the health checker, the clients; each registers its own stop as it starts, so
    whatever started is stopped, last started first (clients, checker, DNS, origins), whatever fails.
    """
    cfg = dataclasses.replace(cfg)  # validate() resolves the --kill origin in place
    validate(plan, cfg)
    if cfg.seed is None:
        cfg.seed = secrets.randbits(SEED_BITS)  # drawn, then recorded: every run can be replayed
    start = time.monotonic()
    hard_deadline = start + cfg.max_seconds
    addresses = origin_addresses(plan)
    needed = descriptors_needed(cfg, len(addresses))
    ensure_descriptors(needed)
    rng = random.Random(cfg.seed)
    try:
        with contextlib.ExitStack() as stack:
            _restore_sigterm_on_exit(stack)
            stderr_file = stack.enter_context(tempfile.TemporaryFile())
            port = cfg.port or _free_port(next(iter(addresses.values())))
            origins = _start_origins(stack, addresses, port, cfg)
            state = HealthTracker(list(plan.health_checks()))
            auth, edges, loops, dns_port, unbound = _start_dns(stack, plan, addresses, state, cfg, rng)
            _start_health_checker(stack, plan, addresses, port, state, cfg)
            sampler = ConnectionSampler(origins)
            engine = _start_clients(stack, plan, cfg, port, dns_port, edges, hard_deadline, stderr_file)
            killed, peak_fds = _run_until_done(engine, cfg, origins, sampler, hard_deadline)
            outcome = engine.results()
            release = outcome.released_at
            client_records = outcome.clients
            result = summarize(
                plan=plan,
                cfg=cfg,
                addresses=addresses,
                origins=origins,
                sampler=sampler,
                clients=client_records,
                released_at=release,
                auth=auth,
                edges=edges,
                health=state,
                killed=killed,
                resources={
                    "peak_rss_mb_parent": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                    **outcome.resources,
                    "descriptors_parent": peak_fds["parent"],
                    "descriptors_clients": peak_fds["clients"],
                    "descriptors_needed": needed,
                    "dns_errors": dict(sum((lp.errors for lp in loops), Counter())),
                },
                wall_seconds=time.monotonic() - start,
                extra={**outcome.details, **_resolver_details(unbound, auth, edges, addresses, plan, cfg)},
            )
            result.details["notes"].extend(outcome.notes)
            return result
    except PortInUseError as exc:
        raise RehearsalError(str(exc)) from exc


def _restore_sigterm_on_exit(stack: contextlib.ExitStack) -> None:
    """SIGTERM becomes KeyboardInterrupt for the run (so every stop runs); the old handler after."""
    previous = _trap_sigterm()
    if previous is not None:
        stack.callback(signal.signal, signal.SIGTERM, previous)


def _start_origins(stack: contextlib.ExitStack, addresses: dict[str, str], port: int, cfg: RehearsalConfig) -> list[OriginServer]:
    """One gRPC origin server an origin address, on one event loop; stopped in start order, then the loop."""
    origin_loop = OriginLoop()
    stack.callback(origin_loop.close)
    origins: list[OriginServer] = []
    stack.callback(_stop_each, origins, lambda server: server.stop(grace=None))
    for key, ip in addresses.items():
        server = OriginServer(key, ip, port, workers=cfg.origin_workers, loop=origin_loop)
        origins.append(server)  # appended first so a failed start is still stopped
        server.start()
    return origins


def _start_dns(stack: contextlib.ExitStack, plan: DnsPlan, addresses: dict[str, str], state: HealthTracker,
               cfg: RehearsalConfig, rng: random.Random) -> tuple[AuthoritativeServer, list[EdgeResolver], list[DnsLoop], int, Any]:
    """The authoritative server of the plan, the edge resolvers in front of it (each on its loop), and with
    ``resolver="unbound"`` a real unbound between them (started and stopped by PID; the edges forward to it)."""
    loops: list[DnsLoop] = []
    stack.callback(_stop_each, loops, lambda loop: loop.stop())
    unbound_mode = cfg.resolver == "unbound"
    # a real resolver caches for the TTL it is sent: the plan's, compressed like every plan time
    ttl = max(1, round(plan.ttl * cfg.time_scale)) if unbound_mode else None
    auth = AuthoritativeServer(plan, addresses, state, rng=random.Random(rng.random()), seed=cfg.seed, ttl=ttl)
    auth_loop = DnsLoop("dns-authoritative")
    loops.append(auth_loop)
    udp, tcp = bind_dns_sockets(DNS_IP, cfg.dns_port)
    dns_port = udp.getsockname()[1]
    auth_loop.add(udp, tcp, sourced_message_responder(auth.respond_from), sourced=True)
    auth_loop.start()
    upstream: tuple[str, int] = (DNS_IP, dns_port)
    unbound = None
    if unbound_mode:
        from edge_origin.rehearsal.unbound import Unbound

        unbound = Unbound(auth.zone.to_text(omit_final_dot=True), upstream)
        stack.callback(unbound.stop)  # registered first: stopped by PID whatever happens next
        unbound.start()
        upstream = unbound.address
    edge_loop = DnsLoop("dns-edges")
    loops.append(edge_loop)
    edges = [
        EdgeResolver(f"{EDGE_NET}{i}", upstream, time_scale=1.0 if unbound_mode else cfg.time_scale,
                     rotate=cfg.edge_rotation, caching=not unbound_mode)
        for i in range(1, cfg.edges + 1)
    ]
    for edge in edges:
        eu, et = bind_dns_sockets(edge.ip, dns_port)
        edge_loop.add(eu, et, edge.respond_wire)
    edge_loop.start()
    return auth, edges, loops, dns_port, unbound


def _resolver_details(unbound: Any, auth: AuthoritativeServer, edges: list[EdgeResolver], addresses: dict[str, str],
                      plan: DnsPlan, cfg: RehearsalConfig) -> dict[str, Any]:
    """The replay record (the answers each querying address drew, in order) and, with unbound, its report."""
    out: dict[str, Any] = {
        "resolver": cfg.resolver,
        "dns_answers": {src: [list(a) for a in answers] for src, answers in sorted(auth.answers_to.items())},
    }
    if unbound is not None:
        from edge_origin.rehearsal.unbound import UNBOUND_IP, resolver_report

        keys_of = {ip: key for key, ip in addresses.items()}
        fetches = [f for e in edges for f in e.stats.fetches]
        out["unbound"] = resolver_report(unbound.stats(), fetches, keys_of, auth.queries_from.get(UNBOUND_IP, 0),
                                         auth.ttl)
    return out


def _start_health_checker(stack: contextlib.ExitStack, plan: DnsPlan, addresses: dict[str, str], port: int,
                          state: HealthTracker, cfg: RehearsalConfig) -> HealthChecker:
    checker = HealthChecker(plan, addresses, port, state, time_scale=cfg.time_scale)
    stack.callback(checker.stop)
    checker.start()
    return checker


def _start_clients(stack: contextlib.ExitStack, plan: DnsPlan, cfg: RehearsalConfig, port: int, dns_port: int,
                   edges: list[EdgeResolver], hard_deadline: float, stderr_file: Any) -> ClientEngine:
    """The client engine, started, ready and released (its barrier open) within the deadline."""
    budget = hard_deadline - time.monotonic() - 1.0
    if budget <= 1.0:
        raise RehearsalFailed("--max-seconds is too short to start the clients")
    client_cfg = ClientConfig(
        name=plan.name,
        port=port,
        dns_port=dns_port,
        edges=[e.ip for e in edges],
        clients=cfg.clients,
        policy=cfg.policy,
        duration=cfg.duration,
        rpc_interval=cfg.rpc_interval,
        rpc_timeout=cfg.rpc_timeout,
        max_seconds=budget,
        min_resolution_ms=cfg.min_resolution_ms,
        late_clients=cfg.late_clients,
        late_at=_late_at(plan, cfg),
        seed=cfg.seed,
    )
    env = dict(os.environ)
    env["GRPC_DNS_RESOLVER"] = "ares"
    env.setdefault("GRPC_VERBOSITY", "ERROR")
    engine = make_engine(cfg, stderr_file)
    engine.start(client_cfg, env)
    stack.callback(engine.stop)
    engine.wait_ready(hard_deadline)
    engine.release()
    return engine


def _run_until_done(engine: ClientEngine, cfg: RehearsalConfig, origins: list[OriginServer], sampler: ConnectionSampler,
                    hard_deadline: float) -> tuple[dict[str, Any], dict[str, int]]:
    """Tick until the clients finish (or the deadline): ``--kill`` an origin on time, sample the
    kernel tables sparingly. Returns what was killed and the peak descriptor counts."""
    killed: dict[str, Any] = {}
    peak_fds = {"parent": 0, "clients": 0}
    for ticks in range(1_000_000):  # bounded by the deadline
        if engine.finished() or time.monotonic() >= hard_deadline:
            break
        release = engine.released_at()
        if cfg.kill and not killed and release is not None:
            key, at = cfg.kill
            if time.monotonic() >= release + at:
                victim = next(o for o in origins if o.key == key)
                victim.stop(grace=None)
                killed = {"origin": key, "stopped_at": victim.stopped_at, "victim": victim}
        if ticks % MONITOR_EVERY_TICKS == 0:  # the kernel tables cost CPU the burst needs: sample sparingly
            sampler.sample()
            peak_fds["parent"] = max(peak_fds["parent"], _count_fds())
            peak_fds["clients"] = max(peak_fds["clients"], sum(_count_fds(pid) for pid in engine.pids()))
        time.sleep(TICK_SECONDS)
    if not engine.finished():
        engine.stop()
        raise RehearsalFailed(f"--max-seconds {cfg.max_seconds:g} reached before the clients finished")
    if killed:  # counted by the origin itself: what clients read after the kill includes answers sent before it
        killed["served_after_stop"] = killed.pop("victim").rpcs_after_stop
    return killed, peak_fds


def _stop_each(items: list[Any], stop: Any) -> None:
    """Stop every item in start order (the list fills as they start)."""
    for item in items:
        stop(item)
