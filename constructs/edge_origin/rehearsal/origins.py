"""Origins: one real gRPC server per loopback address, the standard health service as the RPC.

Each counts connections (distinct client peers, ``context.peer()``) and RPCs, and names itself
in the trailing metadata (``x-origin``) so clients know where they landed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import socket
import struct
import threading
import time
from collections import Counter
from typing import Any

import grpc
import grpc.aio
from grpc_health.v1 import health_pb2

from edge_origin.rehearsal.dns_server import PortInUseError
from edge_origin.rehearsal.health import PROBE_SOURCE_IP

ORIGIN_METADATA_KEY = "x-origin"


class OriginLoop:
    """One asyncio event loop thread serving every origin's ``grpc.aio`` server.

    Measured on a 1,000-client burst: the synchronous grpcio server (a polling thread per server
    handing each RPC to a thread pool) spent most of the parent's CPU on thread hand-offs and GIL
    contention; the asyncio server runs the handler on the loop that polled the call.
    """

    def __init__(self, name: str = "origins") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def call(self, coro: Any, timeout: float = 10.0) -> Any:
        """Run ``coro`` on the loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=timeout)

    def close(self) -> None:
        """Stop the loop thread (idempotent); stop the servers first."""
        if self.loop.is_closed():
            return
        if self._thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self.loop.close()


_SERVING = health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING).SerializeToString()


class _CountingHealth:
    """The standard health service's ``Check`` (the overall service, ``""``, is SERVING), counting
    peers and RPCs; request and response stay bytes (an empty request is ``service=""``)."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.peers: set[str] = set()
        self.rpcs = 0
        self.stopping = False  # set on the loop thread once the server has stopped
        self.rpcs_after_stop = 0  # RPCs whose handler began after that: a killed origin that still served
        self._trailer = ((ORIGIN_METADATA_KEY, key),)

    async def check(self, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        self.peers.add(context.peer())  # only the loop thread writes; readers copy
        self.rpcs += 1
        if self.stopping:
            self.rpcs_after_stop += 1
        context.set_trailing_metadata(self._trailer)
        if request:  # a named service: the origin registers none
            service = health_pb2.HealthCheckRequest.FromString(request).service
            if service:
                await context.abort(grpc.StatusCode.NOT_FOUND, f"unknown service {service!r}")
        return _SERVING

    def handler(self) -> grpc.GenericRpcHandler:
        return grpc.method_handlers_generic_handler(
            "grpc.health.v1.Health", {"Check": grpc.unary_unary_rpc_method_handler(self.check)}
        )


class OriginServer:
    """A gRPC server on ``ip:port`` standing in for one origin (an NLB's EIP).

    Runs on ``loop`` (shared by every origin; one of its own when None). ``workers`` is kept for
    callers of the earlier thread-pool server and ignored.
    """

    def __init__(
        self,
        key: str,
        ip: str,
        port: int,
        workers: int = 4,
        options: list[tuple[str, Any]] | None = None,
        loop: OriginLoop | None = None,
    ) -> None:
        self.key = key
        self.ip = ip
        self.port = port
        self.workers = workers
        # no BDP probing: see clients.channel_options
        self.options = [("grpc.so_reuseport", 0), ("grpc.http2.bdp_probe", 0), *(options or [])]
        self._service = _CountingHealth(key)
        self._loop = loop
        self._own_loop = loop is None
        self._server: grpc.aio.Server | None = None
        self.stopped_at: float | None = None

    async def _start(self) -> grpc.aio.Server:
        server = grpc.aio.server(options=self.options)
        server.add_generic_rpc_handlers((self._service.handler(),))
        try:
            bound = server.add_insecure_port(f"{self.ip}:{self.port}")
        except RuntimeError as exc:
            await server.stop(None)
            raise PortInUseError(f"cannot bind origin {self.key} on {self.ip}:{self.port}: {exc}") from exc
        if not bound:
            await server.stop(None)
            raise PortInUseError(f"cannot bind origin {self.key} on {self.ip}:{self.port}")
        await server.start()
        return server

    def start(self) -> None:
        if self._loop is None:
            self._loop = OriginLoop(f"origin-{self.key}")
        try:
            self._server = self._loop.call(self._start())
        except BaseException:
            if self._own_loop:
                self._loop.close()
            raise

    def stop(self, grace: float | None = None) -> None:
        """Stop serving (idempotent); open connections are closed."""
        if self._server is not None and self._loop is not None:
            self.stopped_at = time.monotonic()
            server, self._server = self._server, None
            service = self._service

            async def stop_on_the_loop() -> None:
                # set on the loop thread, where handlers run, once the server has stopped: an RPC the transport took
                # before the stop may still begin while it shuts down (the loop was busy, its handler queued), which
                # is served before the kill, not after it; once stopped, a handler that begins is a killed origin
                # that still serves
                await server.stop(grace)
                service.stopping = True

            with contextlib.suppress(TimeoutError, concurrent.futures.TimeoutError):
                self._loop.call(stop_on_the_loop(), timeout=10)
        if self._own_loop and self._loop is not None:
            self._loop.close()

    @property
    def rpcs_after_stop(self) -> int:
        """RPCs this origin began serving after :meth:`stop` had stopped its server (0 for one that stopped: an RPC
        the transport took before the stop may still run while the server shuts down, and counts before)."""
        return self._service.rpcs_after_stop

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def connections(self) -> int:
        """Distinct client connections that made an RPC here."""
        return len(self.peers)

    @property
    def peers(self) -> set[str]:
        """The client peers (``ipv4:ip:port``) that made an RPC here."""
        for _ in range(100):  # the loop thread may add a peer while we copy
            try:
                return set(self._service.peers)
            except RuntimeError:
                continue
        return set(self._service.peers)

    @property
    def rpcs(self) -> int:
        return self._service.rpcs


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


NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST_DUMP = 0x1 | 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
INET_DIAG_REQ_BYTECODE = 1
INET_DIAG_BC_S_COND = 7
TCP_ESTABLISHED = 1
_NLMSG = struct.Struct("=IHHII")
_DIAG_MSG_LEN = 72  # struct inet_diag_msg


def _diag_request(family: int, port: int, seq: int) -> bytes:
    """A sock_diag dump request: established TCP sockets of ``family`` whose source port is ``port``
    (the kernel filters with a one-op bytecode: S_COND, any address, that port)."""
    hostcond = struct.pack("=BBxxi", socket.AF_UNSPEC, 0, port)
    op = struct.pack("=BBH", INET_DIAG_BC_S_COND, 4 + len(hostcond), 4 + len(hostcond) + 4)
    bytecode = op + hostcond
    attr = struct.pack("=HH", 4 + len(bytecode), INET_DIAG_REQ_BYTECODE) + bytecode
    req = struct.pack("=BBBxI", family, socket.IPPROTO_TCP, 0, 1 << TCP_ESTABLISHED) + bytes(48)
    body = req + attr
    return _NLMSG.pack(_NLMSG.size + len(body), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST_DUMP, seq, 0) + body


def _ip_from(family: int, raw: bytes) -> str:
    if family == socket.AF_INET6:
        if raw[:12] != b"\0" * 10 + b"\xff\xff":
            return socket.inet_ntop(socket.AF_INET6, raw)
        raw = raw[12:16]
    return socket.inet_ntoa(raw[:4])


def diag_established(port: int, timeout: float = 2.0) -> list[tuple[str, str]] | None:
    """(local ``ip:port``, remote ``ip:port``) of every established TCP socket with local port
    ``port`` (IPv4 and v4-mapped IPv6), from the kernel's sock_diag netlink interface; None when it
    is not available. The kernel filters: unlike ``/proc/net/tcp`` it does not format every socket
    on the machine as text (measured at 5,000 clients: up to 0.8 s of CPU per /proc sample)."""
    try:
        sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG)
    except (OSError, AttributeError):
        return None
    out: list[tuple[str, str]] = []
    deadline = time.monotonic() + timeout
    with sock:
        sock.settimeout(timeout)
        for seq, family in enumerate((socket.AF_INET, socket.AF_INET6), start=1):
            try:
                sock.send(_diag_request(family, port, seq))
            except OSError:
                return None
            done = False
            for _ in range(1_000_000):  # bounded; NLMSG_DONE or the deadline ends it
                if done or time.monotonic() > deadline:
                    break
                try:
                    data = sock.recv(1 << 20)
                except OSError:
                    return None
                off = 0
                while off + _NLMSG.size <= len(data):
                    length, kind, _flags, _seq, _pid = _NLMSG.unpack_from(data, off)
                    if length < _NLMSG.size:
                        done = True
                        break
                    if kind == NLMSG_DONE:
                        done = True
                        break
                    if kind == NLMSG_ERROR:
                        return None
                    if kind == SOCK_DIAG_BY_FAMILY and length >= _NLMSG.size + _DIAG_MSG_LEN:
                        m = off + _NLMSG.size
                        fam = data[m]
                        sport, dport = struct.unpack_from("!HH", data, m + 4)
                        src = _ip_from(fam, data[m + 8 : m + 24])
                        dst = _ip_from(fam, data[m + 24 : m + 40])
                        out.append((f"{src}:{sport}", f"{dst}:{dport}"))
                    off += (length + 3) & ~3
            if not done:
                return None
    return out


class ConnectionSampler:
    """Counts TCP connections per origin from the kernel's socket table (Linux), RPC or not.

    gRPC's Python server does not report connections, and with round_robin a client connects to
    every origin but sends RPCs to some: sampling the kernel's table sees them all. Reads the
    sock_diag netlink interface filtered to the origins' port, else ``/proc/net/tcp``.
    """

    PROCS = ("/proc/net/tcp", "/proc/net/tcp6")  # gRPC listens on v4-mapped IPv6 sockets

    def __init__(self, origins: list[OriginServer], ignore_source: str = PROBE_SOURCE_IP) -> None:
        self.ignore_prefix = ignore_source + ":"
        self._by_endpoint: dict[str, str] = {}
        self._by_local: dict[str, str] = {f"{o.ip}:{o.port}": o.key for o in origins}
        self._ports = sorted({o.port for o in origins})
        for o in origins:
            v4 = _hex_endpoint(o.ip, o.port)
            self._by_endpoint[v4] = o.key
            self._by_endpoint[V4_MAPPED_PREFIX + v4] = o.key
        self.seen: dict[str, Counter[str]] = {o.key: Counter() for o in origins}
        self.netlink = True
        self.available = any(os.path.exists(p) for p in self.PROCS)

    def sample(self) -> None:
        """Record the remote endpoints of established connections to every origin."""
        if self.netlink:
            rows: list[tuple[str, str]] = []
            for port in self._ports:
                got = diag_established(port)
                if got is None:
                    self.netlink = False
                    break
                rows += got
            if self.netlink:
                found = set()
                for local, peer in rows:
                    key = self._by_local.get(local)
                    if key is not None and not peer.startswith(self.ignore_prefix):
                        found.add((key, peer))
                self._count(found)
                return
        self._count(self._sample_proc())

    def _count(self, found: set[tuple[str, str]]) -> None:
        # One sample counts a connection once. A table read is not atomic: /proc/net/tcp is read
        # a page at a time while the kernel's hash table changes, and a sock_diag dump can be
        # interrupted (NLM_F_DUMP_INTR), so one read may list the same socket twice.
        for key, peer in found:
            self.seen[key][peer] += 1

    def _sample_proc(self) -> set[tuple[str, str]]:
        found: set[tuple[str, str]] = set()
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
                            found.add((key, peer))
            except OSError:
                continue
        return found

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
