"""Origins: one real gRPC server per loopback address, the standard health service as the RPC.

Each counts connections (distinct client peers, ``context.peer()``) and RPCs, and names itself
in the trailing metadata (``x-origin``) so clients know where they landed.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from concurrent import futures
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from edge_origin.rehearsal.dns_server import PortInUseError
from edge_origin.rehearsal.health import PROBE_SOURCE_IP

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
    def peers(self) -> set[str]:
        """The client peers (``ipv4:ip:port``) that made an RPC here."""
        return set(self._servicer.peers)

    @property
    def rpcs(self) -> int:
        return self._servicer.rpcs


def _hex_endpoint(ip: str, port: int) -> str:
    """``/proc/net/tcp`` spelling of an IPv4 endpoint (little-endian address, hex port)."""
    packed = bytes(int(p) for p in ip.split("."))
    return f"{int.from_bytes(packed, 'little'):08X}:{port:04X}"


V4_MAPPED_PREFIX = "0000000000000000FFFF0000"  # ::ffff:a.b.c.d in /proc/net/tcp6


def _endpoint_from_hex(text: str) -> str:
    addr, port = text.split(":")
    addr = addr.removeprefix(V4_MAPPED_PREFIX)
    raw = int(addr, 16).to_bytes(len(addr) // 2, "little")
    return f"{'.'.join(str(b) for b in raw)}:{int(port, 16)}"


class ConnectionSampler:
    """Counts TCP connections per origin from ``/proc/net/tcp`` (Linux), RPC or not.

    gRPC's Python server does not report connections, and with round_robin a client connects to
    every origin but sends RPCs to some: sampling the kernel's table sees them all.
    """

    PROCS = ("/proc/net/tcp", "/proc/net/tcp6")  # gRPC listens on v4-mapped IPv6 sockets

    def __init__(self, origins: list[OriginServer], ignore_source: str = PROBE_SOURCE_IP) -> None:
        self.ignore_prefix = ignore_source + ":"
        self._by_endpoint: dict[str, str] = {}
        for o in origins:
            v4 = _hex_endpoint(o.ip, o.port)
            self._by_endpoint[v4] = o.key
            self._by_endpoint[V4_MAPPED_PREFIX + v4] = o.key
        self.seen: dict[str, Counter[str]] = {o.key: Counter() for o in origins}
        self.available = any(os.path.exists(p) for p in self.PROCS)

    def sample(self) -> None:
        """Record the remote endpoints of established connections to every origin."""
        for path in self.PROCS:
            try:
                with open(path) as fh:
                    next(fh, None)
                    for line in fh:
                        parts = line.split(None, 4)
                        if len(parts) < 4 or parts[3] != "01":  # 01 = ESTABLISHED
                            continue
                        key = self._by_endpoint.get(parts[1])
                        if key is None:
                            continue
                        peer = _endpoint_from_hex(parts[2])
                        if not peer.startswith(self.ignore_prefix):  # health-check probes
                            self.seen[key][peer] += 1
            except OSError:
                continue


    def peers(self, key: str) -> set[str]:
        """Every peer seen established to the origin."""
        return set(self.seen.get(key, ()))


def connection_counts(
    origins: list[OriginServer], sampler: ConnectionSampler | None, count_idle: bool
) -> tuple[dict[str, int], dict[str, int]]:
    """(held, transient) connections per origin.

    Held: peers that made an RPC, plus (``count_idle``, for round_robin whose idle subchannels
    stay connected) every peer seen in the TCP table. Transient: peers seen in the table that are
    not held: with pick_first these are parallel connection attempts (the "happy eyeballs" delay
    passed under load) closed when another address won.
    """
    held: dict[str, int] = {}
    transient: dict[str, int] = {}
    for o in origins:
        peers = {p.removeprefix("ipv4:") for p in o.peers}
        sampled = sampler.peers(o.key) if sampler is not None else set()
        if count_idle:
            peers |= sampled
        held[o.key] = len(peers)
        transient[o.key] = len(sampled - peers)
    return held, transient
