"""The client process: N gRPC channels released together by a barrier, doing RPCs for a bounded time.

Run as ``python path/to/clients.py`` (it imports nothing from edge_origin, whose package import
starts aws-cdk's jsii runtime) with a JSON config as the first line on stdin and
``GRPC_DNS_RESOLVER=ares`` in the environment (the runner starts it so: the resolver is chosen
when grpc initializes). Writes JSON lines to stdout: ``{"event": "ready"}`` once its channel
objects and tasks exist (nothing resolved or connected yet), then, after the runner writes a
second line (``go``; EOF works too) to stdin, ``{"event": "released", "t": ...}`` when the barrier
opens, then ``{"event": "result", ...}``. Several such processes can share one burst: the runner
sends ``go`` to each once all are ready; ``first_index``/``index_step`` say which clients of the
burst this process runs (client i uses edge i % E).
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any

LB_POLICIES = ("pick_first", "shuffle", "round_robin")
ERROR_LOG_CAP = 50


@dataclass
class ClientConfig:
    """What the client process does; ``edges`` are the resolver addresses, client i uses edge i % E."""

    name: str
    port: int
    dns_port: int
    edges: list[str]
    clients: int
    policy: str = "shuffle"
    duration: float = 3.0
    rpc_interval: float = 1.0
    rpc_timeout: float = 10.0
    max_seconds: float = 60.0
    min_resolution_ms: int = 500
    late_clients: int = 0
    late_at: float = 0.0
    first_index: int = 0  # this process runs clients first_index, first_index + index_step, ...
    index_step: int = 1
    seed: int | None = None  # the release order: the clients wait at the barrier in this seed's order


@dataclass
class ClientRecord:
    """One client: when its first RPC succeeded (s after release), the origins it used, its errors."""

    edge: str
    index: int = -1  # the client's number in the burst (client i uses edge i % E)
    start: float = 0.0  # s after the release when this client makes its first RPC (late wave)
    first_ok: float | None = None
    ok: int = 0
    origins: list[tuple[float, str]] = field(default_factory=list)  # (s after release, origin) on change
    errors: dict[str, int] = field(default_factory=dict)
    error_log: list[tuple[float, str]] = field(default_factory=list)  # (s after release, code), capped


def service_config(policy: str) -> str:
    """The gRPC service config selecting ``policy`` (``shuffle`` = pick_first with shuffleAddressList)."""
    if policy == "pick_first":
        lb: dict[str, Any] = {"pick_first": {}}
    elif policy == "shuffle":
        lb = {"pick_first": {"shuffleAddressList": True}}
    elif policy == "round_robin":
        lb = {"round_robin": {}}
    else:
        raise ValueError(f"lb policy {policy!r} is not one of {LB_POLICIES}")
    return json.dumps({"loadBalancingConfig": [lb]})


def channel_options(policy: str, min_resolution_ms: int, attempt_delay_ms: int = 2000) -> list[tuple[str, Any]]:
    """Channel arguments: the policy, a channel-local subchannel pool, quick re-resolution.

    ``attempt_delay_ms``: pick_first starts a parallel attempt to the next address when a connect
    takes longer than this (gRPC's "happy eyeballs", 250 ms by default, clamped by gRPC to
    100..2000 ms). Under a loopback burst connects take longer than 250 ms, and the extra
    connections (measured: 405 for 1,000 clients) load the machine and blur the counts; an edge
    host opens one connection. 2000 ms (the most gRPC allows) removes them up to ~1,000 clients;
    bigger bursts still open some, reported as transient connections. A refused connection (a dead
    origin) still moves on to the next address at once.

    No HTTP/2 BDP probing (``grpc.http2.bdp_probe``; the origins turn it off too): it tunes the
    flow-control window for bulk transfers, these RPCs are a few bytes, and its ping and ack on
    every new connection cost ~10% of a 2,000-client burst's CPU (measured: burst 3.2 -> 2.9 s).
    """
    return [
        ("grpc.service_config", service_config(policy)),
        ("grpc.service_config_disable_resolution", 1),
        ("grpc.use_local_subchannel_pool", 1),
        ("grpc.dns_min_time_between_resolutions_ms", min_resolution_ms),
        ("grpc.happy_eyeballs_connection_attempt_delay_ms", attempt_delay_ms),
        ("grpc.http2.bdp_probe", 0),
    ]


def release_order(records: list[ClientRecord], seed: int | None) -> list[ClientRecord]:
    """The order the clients wait at the barrier, and so the order they go when it opens (asyncio
    wakes an Event's waiters first come, first served): a permutation drawn from ``seed``."""
    if seed is None:
        return records
    import random

    order = list(records)
    random.Random(f"release/{seed}").shuffle(order)
    return order


def _emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


async def _run(cfg: ClientConfig) -> list[ClientRecord]:
    import grpc  # imported here: GRPC_DNS_RESOLVER must be set before grpc initializes
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    options = channel_options(cfg.policy, cfg.min_resolution_ms)
    step = max(1, cfg.index_step)
    records = [ClientRecord(edge=cfg.edges[i % len(cfg.edges)], index=i) for i in range(cfg.first_index, cfg.clients, step)]
    records += [
        ClientRecord(edge=cfg.edges[i % len(cfg.edges)], index=cfg.clients + i, start=cfg.late_at)
        for i in range(cfg.first_index, cfg.late_clients, step)
    ]
    records = release_order(records, cfg.seed)
    channels = [
        grpc.aio.insecure_channel(f"dns://{r.edge}:{cfg.dns_port}/{cfg.name}:{cfg.port}", options=options)
        for r in records
    ]
    stubs = [health_pb2_grpc.HealthStub(ch) for ch in channels]
    request = health_pb2.HealthCheckRequest(service="")
    barrier = asyncio.Event()
    released = 0.0

    async def client(rec: ClientRecord, stub: Any) -> None:
        await barrier.wait()
        if rec.start > 0:
            await asyncio.sleep(rec.start)
        deadline = released + max(cfg.duration, rec.start + cfg.rpc_interval)
        for _ in range(100_000):  # bounded; the deadline ends it first
            now = time.monotonic()
            # done after the duration; a client still without a first RPC tries one rpc_timeout longer
            if now >= deadline and (rec.first_ok is not None or now >= deadline + cfg.rpc_timeout):
                break
            call = stub.Check(request, timeout=cfg.rpc_timeout)
            try:
                await call
                metadata = await call.trailing_metadata()
                origin = dict(metadata or ()).get("x-origin", "?")
                t = time.monotonic() - released
                if rec.first_ok is None:
                    rec.first_ok = t
                if not rec.origins or rec.origins[-1][1] != origin:
                    rec.origins.append((round(t, 4), str(origin)))
                rec.ok += 1
            except grpc.aio.AioRpcError as exc:
                code = exc.code().name
                rec.errors[code] = rec.errors.get(code, 0) + 1  # kept even if the task is cancelled
                if len(rec.error_log) < ERROR_LOG_CAP:
                    rec.error_log.append((round(time.monotonic() - released, 4), exc.code().name))
            await asyncio.sleep(cfg.rpc_interval)

    tasks = [asyncio.ensure_future(client(r, s)) for r, s in zip(records, stubs, strict=True)]
    await asyncio.sleep(0)  # every task reaches the barrier
    _emit({"event": "ready"})
    # the runner's go line (or EOF); a blocking read in a thread keeps the loop free
    await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline), cfg.max_seconds)
    released = time.monotonic()
    _emit({"event": "released", "t": released})
    barrier.set()
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=cfg.max_seconds)
    except TimeoutError:
        for t in tasks:
            t.cancel()
    await asyncio.gather(*(ch.close(grace=None) for ch in channels), return_exceptions=True)
    return records


def main() -> int:
    """Read the config from stdin, run the clients, print the result line."""
    cfg = ClientConfig(**json.loads(sys.stdin.readline()))
    if os.environ.get("GRPC_DNS_RESOLVER") != "ares":
        print("clients: GRPC_DNS_RESOLVER=ares must be set before grpc starts", file=sys.stderr)
        return 2
    records = asyncio.run(_run(cfg))
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    _emit({"event": "result", "clients": [asdict(r) for r in records], "peak_rss_mb": round(rss_mb, 1)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
