"""Origins: one real gRPC server per loopback address, the standard health service as the RPC.

Each counts connections (distinct client peers, ``context.peer()``) and RPCs, and names itself
in the trailing metadata (``x-origin``) so clients know where they landed.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from concurrent import futures
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from edge_origin.rehearsal.dns_server import PortInUseError

ORIGIN_METADATA_KEY = "x-origin"


class _CountingHealthServicer(health.HealthServicer):
    """The standard health service, counting peers and RPCs."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key
        self.peers: set[str] = set()
        self.rpcs = 0
        self._lock = threading.Lock()

    def Check(self, request: health_pb2.HealthCheckRequest, context: grpc.ServicerContext) -> Any:  # noqa: N802
        peer = context.peer()
        with self._lock:
            self.peers.add(peer)
            self.rpcs += 1
        context.set_trailing_metadata(((ORIGIN_METADATA_KEY, self.key),))
        return super().Check(request, context)


class OriginServer:
    """A gRPC server on ``ip:port`` standing in for one origin (an NLB's EIP)."""

    def __init__(self, key: str, ip: str, port: int, workers: int = 4, options: list[tuple[str, Any]] | None = None) -> None:
        self.key = key
        self.ip = ip
        self.port = port
        self.workers = workers
        self.options = [("grpc.so_reuseport", 0), *(options or [])]
        self._servicer = _CountingHealthServicer(key)
        self._server: grpc.Server | None = None
        self.stopped_at: float | None = None

    def start(self) -> None:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=self.workers), options=self.options)
        health_pb2_grpc.add_HealthServicer_to_server(self._servicer, server)
        self._servicer.set("", health_pb2.HealthCheckResponse.SERVING)
        try:
            bound = server.add_insecure_port(f"{self.ip}:{self.port}")
        except RuntimeError as exc:
            server.stop(None)
            raise PortInUseError(f"cannot bind origin {self.key} on {self.ip}:{self.port}: {exc}") from exc
        if not bound:
            server.stop(None)
            raise PortInUseError(f"cannot bind origin {self.key} on {self.ip}:{self.port}")
        server.start()
        self._server = server

    def stop(self, grace: float | None = None) -> None:
        """Stop serving (idempotent); open connections are closed."""
        if self._server is not None:
            self.stopped_at = time.monotonic()
            self._server.stop(grace).wait(timeout=10)
            self._server = None

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def connections(self) -> int:
        """Distinct client connections that made an RPC here."""
        return len(self._servicer.peers)

    @property
    def rpcs(self) -> int:
        return self._servicer.rpcs


def counters(origins: list[OriginServer]) -> tuple[Counter[str], Counter[str]]:
    """(connections, rpcs) per origin key."""
    return (
        Counter({o.key: o.connections for o in origins}),
        Counter({o.key: o.rpcs for o in origins}),
    )
