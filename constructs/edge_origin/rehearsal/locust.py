"""The flash-crowd rehearsal as Locust users: one :class:`EdgeUser` plays one CloudFront edge.

Import this module only inside a Locust process: ``import locust`` monkey-patches the standard
library with gevent. The package ships a locustfile that imports it
(:data:`edge_origin.rehearsal.locust_engine.LOCUSTFILE`); ``edge-origin rehearse --engine locust``
runs a local master and workers with it, and the same file runs on many machines with
``locust --master`` / ``locust --worker``.

The protocol (Locust custom messages, https://docs.locust.io/en/stable/running-distributed.html):

* the master reads the run's configuration (JSON, path in ``EDGE_ORIGIN_LOCUST_CONFIG``) and
  spawns one user per edge (``-u EDGES``);
* each user sends ``eo_claim``; the master answers ``eo_assign`` with an edge index, the clients
  of that edge (client ``i`` uses edge ``i % E``, as the built-in engine) and the configuration,
  so workers need nothing but the master's address;
* once a user has built its channels it sends ``eo_built``; when every edge is built the master
  broadcasts ``eo_start`` with one wall-clock start time, so the burst is one burst across machines;
* each user runs its clients until the duration ends and sends ``eo_records``; every RPC is also a
  Locust request event (``grpc`` / the origin it landed on), so Locust's own statistics and web UI
  show the landings;
* the master ends the run when every edge has reported or belongs to a worker Locust marked
  missing (its clients are counted as lost), or at the configuration's deadline, writes the merged
  result (``result_path``) and quits.

grpcio under gevent: ``grpc.experimental.gevent.init_gevent()`` after the standard library is
patched (Locust does that on import) and before any gRPC object exists, as grpcio's documentation
of that function says; the blocking stubs then yield to the gevent hub instead of blocking it.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from typing import Any

os.environ.setdefault("GRPC_DNS_RESOLVER", "ares")  # before grpc initializes: dns://SERVER/ targets

from gevent import monkey  # noqa: E402

if not monkey.is_module_patched("socket"):  # Locust patches on import: `locust -f` / `python -m locust`
    raise ImportError("edge_origin.rehearsal.locust runs inside a Locust process (its import patches the standard library)")

import gevent  # noqa: E402
import grpc  # noqa: E402
from gevent.event import AsyncResult, Event  # noqa: E402
from grpc.experimental import gevent as grpc_gevent  # noqa: E402
from locust import User, between, events, task  # noqa: E402
from locust.exception import StopUser  # noqa: E402
from locust.runners import STATE_MISSING, MasterRunner, WorkerRunner  # noqa: E402

grpc_gevent.init_gevent()

from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402

from edge_origin.rehearsal.clients import ERROR_LOG_CAP, channel_options  # noqa: E402
from edge_origin.rehearsal.locust_config import LocustConfigError, clients_of_edge, load_config, target_of  # noqa: E402

CONFIG_ENV = "EDGE_ORIGIN_LOCUST_CONFIG"
START_LEAD_SECONDS = 1.0  # the start time is this far ahead of the last edge's "built"
ASSIGN_TIMEOUT_SECONDS = 30.0


class _Coordinator:
    """The master's side: edge indexes, the start barrier, the records, the end of the run."""

    def __init__(self, environment: Any, cfg: dict[str, Any]) -> None:
        self.env = environment
        self.cfg = cfg
        self.edges = int(cfg["edges"])
        self.next_edge = 0
        self.owner: dict[int, str] = {}  # edge -> worker id
        self.built: set[int] = set()
        self.records: dict[int, dict[str, Any]] = {}
        self.start_at: float | None = None
        self.deadline = time.time() + float(cfg["max_seconds"])
        self.done = Event()

    def on_claim(self, environment: Any, msg: Any, **_: Any) -> None:
        token = msg.data["token"]
        if self.next_edge >= self.edges or self.start_at is not None:
            environment.runner.send_message("eo_assign", {"token": token, "edge": None}, client_id=msg.node_id)
            return
        edge = self.next_edge
        self.next_edge += 1
        self.owner[edge] = msg.node_id
        data = {
            "token": token,
            "edge": edge,
            "clients": clients_of_edge(edge, self.edges, int(self.cfg["clients"])),
            "cfg": self.cfg,
        }
        environment.runner.send_message("eo_assign", data, client_id=msg.node_id)

    def on_built(self, environment: Any, msg: Any, **_: Any) -> None:
        self.built.add(int(msg.data["edge"]))
        if len(self.built) == self.edges and self.start_at is None:
            self.open_start()

    def open_start(self) -> None:
        """One wall-clock start time for every worker: the burst is one burst across machines."""
        self.start_at = time.time() + START_LEAD_SECONDS
        self.env.runner.send_message("eo_start", {"start_at": self.start_at})
        self._write_status({"event": "released", "start_at": self.start_at})

    def on_records(self, environment: Any, msg: Any, **_: Any) -> None:
        self.records[int(msg.data["edge"])] = {"worker": msg.node_id, **msg.data}
        self._check_done()

    def lost_edges(self) -> list[int]:
        """Edges whose worker Locust marked missing (or removed) before they reported."""
        runner = self.env.runner
        alive = {c.id for c in runner.clients.all if c.state != STATE_MISSING}
        return sorted(e for e, w in self.owner.items() if e not in self.records and w not in alive)

    def _check_done(self) -> None:
        if len(self.records) + len(self.lost_edges()) >= self.edges:
            self.done.set()

    def watch(self) -> None:
        """Bounded by the deadline: end the run when every edge reported or was lost.

        A worker lost before the start does not hold the others back: the start opens once every
        edge is built or lost (with at least one built).
        """
        for _ in range(1_000_000):
            if self.start_at is None and self.built and len(self.built | set(self.lost_edges())) >= self.edges:
                self.open_start()
            self._check_done()
            if self.done.is_set() or time.time() >= self.deadline:
                break
            gevent.sleep(0.2)
        self.finish()

    def finish(self) -> None:
        lost = [e for e in range(self.edges) if e not in self.records]
        workers: dict[str, dict[str, Any]] = {}
        for rec in self.records.values():
            w = workers.setdefault(rec["worker"], {"edges": 0, "clients": []})
            w["edges"] += 1
            w["clients"].extend(rec["clients"])
        lost_workers = sorted({self.owner[e] for e in lost if e in self.owner})
        result = {
            "event": "result",
            "name": self.cfg["name"],
            "remote": self.cfg["remote"],
            "start_at": self.start_at,
            "edges_reported": len(self.records),
            "edges_lost": lost,
            "clients_lost": sum(len(clients_of_edge(e, self.edges, int(self.cfg["clients"]))) for e in lost),
            "lost_workers": lost_workers,
            "workers": workers,
            "timed_out": not self.done.is_set(),
        }
        path = self.cfg.get("result_path")
        if path == "-":  # a pod: the result is one log line (`kubectl logs job/NAME-master`)
            print("edge-origin result: " + json.dumps(result, sort_keys=True), flush=True)
        elif path:
            tmp = f"{path}.tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(result, fh)
            os.replace(tmp, path)
        if self.env.web_ui is not None:
            # --autostart (how the Locust operator runs the master): as Locust's own end of an autostart
            # run (locust/main.py stop_and_optionally_quit): stop, quit the workers, stop the web UI,
            # whose greenlet is the main one; Locust then writes --html / --csv and exits
            self.env.runner.stop()
            self.env.runner.quit()
            self.env.web_ui.stop()
        else:  # --headless: the runner's greenlet is the main one
            self.env.runner.quit()

    def _write_status(self, obj: dict[str, Any]) -> None:
        path = self.cfg.get("status_path")
        if path:
            tmp = f"{path}.tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(obj, fh)
            os.replace(tmp, path)


class _WorkerMailbox:
    """The worker's side: assignments by token, the start time."""

    def __init__(self) -> None:
        self.assignments: dict[str, AsyncResult] = {}
        self.start = AsyncResult()

    def on_assign(self, environment: Any, msg: Any, **_: Any) -> None:
        slot = self.assignments.get(msg.data["token"])
        if slot is not None:
            slot.set(msg.data)

    def on_start(self, environment: Any, msg: Any, **_: Any) -> None:
        self.start.set(float(msg.data["start_at"]))


_mailbox = _WorkerMailbox()


@events.init.add_listener
def _on_init(environment: Any, **_: Any) -> None:
    runner = environment.runner
    if isinstance(runner, MasterRunner):
        path = os.environ.get(CONFIG_ENV)
        if not path:
            raise SystemExit(f"edge-origin locust master: set {CONFIG_ENV} to the rehearsal configuration file")
        try:
            cfg = load_config(path)
        except LocustConfigError as exc:
            raise SystemExit(f"edge-origin locust master: {exc}") from None
        coordinator = _Coordinator(environment, cfg)
        runner.register_message("eo_claim", coordinator.on_claim)
        runner.register_message("eo_built", coordinator.on_built)
        runner.register_message("eo_records", coordinator.on_records)
        environment.eo_coordinator = coordinator
        coordinator._write_status({"event": "master_up"})
        gevent.spawn(coordinator.watch)
    elif isinstance(runner, WorkerRunner):
        runner.register_message("eo_assign", _mailbox.on_assign)
        runner.register_message("eo_start", _mailbox.on_start)


def _client(stub: Any, request: Any, record: dict[str, Any], start_at: float, cfg: dict[str, Any], fire: Any) -> None:
    """One long-lived channel's RPCs from the start time until the duration ends (bounded)."""
    duration = float(cfg["duration"])
    interval = float(cfg["rpc_interval"])
    timeout = float(cfg["rpc_timeout"])
    deadline = start_at + duration
    for _ in range(100_000):  # bounded; the deadline ends it first
        now = time.time()
        if now >= deadline and (record["first_ok"] is not None or now >= deadline + timeout):
            break
        t0 = time.time()
        try:
            _, call = stub.Check.with_call(request, timeout=timeout)
            origin = dict(call.trailing_metadata() or ()).get("x-origin", "?")
            t = time.time() - start_at
            if record["first_ok"] is None:
                record["first_ok"] = round(t, 4)
            if not record["origins"] or record["origins"][-1][1] != origin:
                record["origins"].append((round(t, 4), str(origin)))
            record["ok"] += 1
            fire(request_type="grpc", name=str(origin), response_time=1000 * (time.time() - t0),
                 response_length=0, exception=None, context={})
        except grpc.RpcError as exc:
            code = exc.code().name if hasattr(exc, "code") else "UNKNOWN"
            record["errors"][code] = record["errors"].get(code, 0) + 1
            if len(record["error_log"]) < ERROR_LOG_CAP:
                record["error_log"].append((round(time.time() - start_at, 4), code))
            fire(request_type="grpc", name=f"failed {code}", response_time=1000 * (time.time() - t0),
                 response_length=0, exception=exc, context={})
        gevent.sleep(interval)


class EdgeUser(User):
    """One CloudFront edge of the plan: its clients' long-lived channels through its resolver."""

    wait_time = between(3600, 3600)  # one task a run; the user then waits to be stopped

    def on_start(self) -> None:
        runner = self.environment.runner
        if not isinstance(runner, WorkerRunner):
            raise StopUser()  # the rehearsal runs on workers only (use --master / --worker)
        self.token = uuid.uuid4().hex
        slot = _mailbox.assignments[self.token] = AsyncResult()
        runner.send_message("eo_claim", {"token": self.token})
        assignment = slot.get(timeout=ASSIGN_TIMEOUT_SECONDS)
        if assignment.get("edge") is None:
            raise StopUser()  # more users than edges (a rebalance after a lost worker)
        self.assignment = assignment

    def _run(self) -> None:
        runner = self.environment.runner
        a = self.assignment
        cfg, edge = a["cfg"], int(a["edge"])
        options = channel_options(cfg["policy"], int(cfg["min_resolution_ms"]))
        target, resolver = target_of(cfg, edge)
        channels = [grpc.insecure_channel(target, options=options) for _ in a["clients"]]
        try:
            stubs = [health_pb2_grpc.HealthStub(ch) for ch in channels]
            request = health_pb2.HealthCheckRequest(service="")
            records = [
                {"index": i, "edge": resolver, "start": 0.0, "first_ok": None, "ok": 0,
                 "origins": [], "errors": {}, "error_log": []}
                for i in a["clients"]
            ]
            runner.send_message("eo_built", {"edge": edge})
            start_at = _mailbox.start.get(timeout=float(cfg["max_seconds"]))
            gevent.sleep(max(0.0, start_at - time.time()))
            fire = self.environment.events.request.fire
            greenlets = [gevent.spawn(_client, s, request, r, start_at, cfg, fire) for s, r in zip(stubs, records, strict=True)]
            gevent.joinall(greenlets, timeout=float(cfg["max_seconds"]))
            gevent.killall([g for g in greenlets if not g.dead], block=False)
            # Locust's statistics first, on the same connection: every RPC of this edge is in the
            # master's stats (its --csv / --html) before the master can end the run on the records.
            runner._send_stats()
            runner.send_message("eo_records", {"edge": edge, "clients": records})
        finally:
            for ch in channels:
                ch.close()

    @task
    def rehearse(self) -> None:
        self._run()
        raise StopUser()
