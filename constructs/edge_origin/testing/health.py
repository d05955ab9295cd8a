"""gRPC health servers and clients on loopback: the RPC the rehearsals use (no protoc needed)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc


class CountingHealth(health.HealthServicer):
    """The standard health service, counting the Check RPCs it answers."""

    def __init__(self) -> None:
        super().__init__()
        self._count_lock = threading.Lock()
        self.checks = 0

    def Check(self, request, context):  # noqa: N802 (gRPC method name)
        with self._count_lock:
            self.checks += 1
        return super().Check(request, context)


@dataclass
class HealthServer:
    server: grpc.Server
    address: tuple[str, int]
    servicer: CountingHealth

    @property
    def target(self) -> str:
        return f"{self.address[0]}:{self.address[1]}"


@contextmanager
def health_servers(
    count: int, options: Sequence[tuple[str, int]] = (), hosts: Sequence[str] = ("127.0.0.1",)
) -> Iterator[list[HealthServer]]:
    """``count`` health servers on loopback with ``options`` (plus ``grpc.so_reuseport=0``), stopped on exit."""
    started: list[HealthServer] = []
    try:
        for i in range(count):
            host = hosts[i % len(hosts)]
            server = grpc.server(
                futures.ThreadPoolExecutor(max_workers=8), options=[*options, ("grpc.so_reuseport", 0)]
            )
            servicer = CountingHealth()
            health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
            port = server.add_insecure_port(f"{host}:0")
            server.start()
            started.append(HealthServer(server, (host, port), servicer))
        yield started
    finally:
        for s in started:
            s.server.stop(grace=None).wait(timeout=5)


@dataclass(frozen=True)
class CallResult:
    ok: bool
    code: str
    elapsed_s: float
    details: str = ""


def health_check(channel: grpc.Channel, timeout_s: float, wait_for_ready: bool = False) -> CallResult:
    """One unary Check RPC with a deadline; never raises for an RPC error."""
    stub = health_pb2_grpc.HealthStub(channel)
    start = time.monotonic()
    try:
        stub.Check(health_pb2.HealthCheckRequest(), timeout=timeout_s, wait_for_ready=wait_for_ready)
        return CallResult(True, "OK", time.monotonic() - start)
    except grpc.RpcError as exc:
        code = exc.code().name if exc.code() is not None else "UNKNOWN"
        return CallResult(False, code, time.monotonic() - start, exc.details() or "")
