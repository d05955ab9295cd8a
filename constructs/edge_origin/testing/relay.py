"""A loopback TCP relay that behaves like an NLB listener, for rehearsing connection profiles.

* One balancing decision per TCP connection (round robin over the backends), as an L4 balancer.
* After ``idle_timeout_s`` without a byte in either direction a flow is *dropped*: the relay keeps
  both sockets open and silently discards whatever arrives, never sending FIN or RST, which is what
  an NLB does to an idle flow.
* It reads the plaintext HTTP/2 (h2c) frames going through, so tests can see PING, GOAWAY and
  HEADERS frames per connection without trusting logs.

Loopback only, one thread, every wait bounded; :meth:`Relay.stop` closes every socket it opened.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import struct
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
FRAME_TYPES = {
    0: "DATA",
    1: "HEADERS",
    2: "PRIORITY",
    3: "RST_STREAM",
    4: "SETTINGS",
    5: "PUSH_PROMISE",
    6: "PING",
    7: "GOAWAY",
    8: "WINDOW_UPDATE",
    9: "CONTINUATION",
}
ERROR_CODES = {0: "NO_ERROR", 2: "INTERNAL_ERROR", 7: "REFUSED_STREAM", 8: "CANCEL", 11: "ENHANCE_YOUR_CALM"}
MAX_EVENTS_PER_FLOW = 20_000


@dataclass(frozen=True)
class Frame:
    """One HTTP/2 frame seen by the relay. ``direction`` is ``c2s`` (client to server) or ``s2c``."""

    t: float
    direction: str
    type: str
    flags: int
    stream_id: int
    error: str = ""
    debug: bytes = b""

    @property
    def is_ack(self) -> bool:
        return bool(self.flags & 0x1) and self.type in ("PING", "SETTINGS")


class _FrameScanner:
    """Incremental HTTP/2 frame header reader for one direction of one flow."""

    def __init__(self, direction: str) -> None:
        self.direction = direction
        self.buf = bytearray()
        self.preface_left = len(PREFACE) if direction == "c2s" else 0

    def feed(self, data: bytes, now: float) -> list[Frame]:
        self.buf += data
        if self.preface_left:
            cut = min(self.preface_left, len(self.buf))
            del self.buf[:cut]
            self.preface_left -= cut
        frames: list[Frame] = []
        while len(self.buf) >= 9:
            length = int.from_bytes(self.buf[0:3], "big")
            if len(self.buf) < 9 + length:
                break
            ftype, flags = self.buf[3], self.buf[4]
            stream_id = struct.unpack(">I", bytes(self.buf[5:9]))[0] & 0x7FFFFFFF
            payload = bytes(self.buf[9 : 9 + length])
            del self.buf[: 9 + length]
            error, debug = "", b""
            if ftype == 7 and length >= 8:
                code = struct.unpack(">I", payload[4:8])[0]
                error, debug = ERROR_CODES.get(code, str(code)), payload[8:]
            elif ftype == 3 and length >= 4:
                code = struct.unpack(">I", payload[:4])[0]
                error = ERROR_CODES.get(code, str(code))
            frames.append(Frame(now, self.direction, FRAME_TYPES.get(ftype, str(ftype)), flags, stream_id, error, debug))
        return frames


@dataclass
class Flow:
    """One client connection through the relay and its backend connection."""

    id: int
    backend: tuple[str, int]
    opened_at: float
    last_activity: float
    dropped_at: float | None = None
    closed_at: float | None = None
    closed_by: str = ""
    bytes_forwarded: int = 0
    bytes_discarded: int = 0
    frames: list[Frame] = field(default_factory=list)

    @property
    def dropped(self) -> bool:
        return self.dropped_at is not None

    def pings(self, direction: str = "c2s") -> list[Frame]:
        """PING frames (not acks) sent in ``direction`` and forwarded."""
        return [f for f in self.frames if f.type == "PING" and not f.is_ack and f.direction == direction]

    def goaways(self) -> list[Frame]:
        return [f for f in self.frames if f.type == "GOAWAY"]

    def requests(self) -> int:
        """HEADERS frames from the client: RPCs started on this connection."""
        return sum(1 for f in self.frames if f.type == "HEADERS" and f.direction == "c2s")


class Relay:
    """An NLB-like TCP relay on loopback. Use as a context manager, or ``start()`` / ``stop()``."""

    def __init__(
        self,
        backends: Sequence[tuple[str, int]],
        *,
        host: str = "127.0.0.1",
        idle_timeout_s: float | None = None,
        connect_timeout_s: float = 2.0,
    ) -> None:
        if not backends:
            raise ValueError("backends: a relay needs at least one backend")
        self.backends = list(backends)
        self.idle_timeout_s = idle_timeout_s
        self.connect_timeout_s = connect_timeout_s
        self._listener = socket.create_server((host, 0))
        self._listener.setblocking(False)
        self.address: tuple[str, int] = self._listener.getsockname()[:2]
        self._sel = selectors.DefaultSelector()
        self._lock = threading.Lock()
        self._flows: list[Flow] = []
        self._socks: dict[socket.socket, tuple[Flow, socket.socket, _FrameScanner]] = {}
        self._next_backend = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="edge-origin-relay", daemon=True)
        self._blackhole_requested = False

    # --- public ----------------------------------------------------------------------------------
    @property
    def target(self) -> str:
        return f"{self.address[0]}:{self.address[1]}"

    def start(self) -> Relay:
        self._sel.register(self._listener, selectors.EVENT_READ, None)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        for sock in list(self._socks):
            _close(sock)
        self._socks.clear()
        _close(self._listener)
        self._sel.close()

    def __enter__(self) -> Relay:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def flows(self) -> list[Flow]:
        """A snapshot of every flow so far (the objects keep updating)."""
        with self._lock:
            return list(self._flows)

    def drop_all(self) -> None:
        """Drop every open flow now, as if each had gone idle past the timeout."""
        with self._lock:
            self._blackhole_requested = True

    def wait_for(self, predicate: Callable[[], bool], timeout_s: float, poll_s: float = 0.05) -> bool:
        """Poll ``predicate`` until it holds or ``timeout_s`` passes; returns whether it held."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(poll_s)
        return predicate()

    # --- loop --------------------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._sel.select(timeout=0.05):
                if key.fileobj is self._listener:
                    self._accept()
                else:
                    self._read(key.fileobj)  # type: ignore[arg-type]
            self._expire()

    def _accept(self) -> None:
        try:
            client, _ = self._listener.accept()
        except (BlockingIOError, OSError):
            return
        backend = self.backends[self._next_backend % len(self.backends)]
        self._next_backend += 1
        try:
            server = socket.create_connection(backend, timeout=self.connect_timeout_s)
        except OSError:
            _close(client)
            return
        for sock in (client, server):
            sock.setblocking(True)
            sock.settimeout(self.connect_timeout_s)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        now = time.monotonic()
        with self._lock:
            flow = Flow(id=len(self._flows), backend=backend, opened_at=now, last_activity=now)
            self._flows.append(flow)
        self._socks[client] = (flow, server, _FrameScanner("c2s"))
        self._socks[server] = (flow, client, _FrameScanner("s2c"))
        self._sel.register(client, selectors.EVENT_READ, None)
        self._sel.register(server, selectors.EVENT_READ, None)

    def _read(self, sock: socket.socket) -> None:
        entry = self._socks.get(sock)
        if entry is None:
            return
        flow, other, scanner = entry
        try:
            data = sock.recv(65536)
        except OSError:
            data = b""
        now = time.monotonic()
        if not data:
            self._close_flow(sock, other, flow, "client" if scanner.direction == "c2s" else "server", now)
            return
        with self._lock:
            if flow.dropped:
                flow.bytes_discarded += len(data)
                return
            flow.last_activity = now
            flow.bytes_forwarded += len(data)
            frames = scanner.feed(data, now)
            room = MAX_EVENTS_PER_FLOW - len(flow.frames)
            flow.frames.extend(frames[: max(room, 0)])
        try:
            other.sendall(data)
        except OSError:
            self._close_flow(sock, other, flow, "error", now)

    def _close_flow(self, sock: socket.socket, other: socket.socket, flow: Flow, by: str, now: float) -> None:
        for s in (sock, other):
            if s in self._socks:
                self._sel.unregister(s)
                del self._socks[s]
            _close(s)
        with self._lock:
            if flow.closed_at is None:
                flow.closed_at, flow.closed_by = now, by

    def _expire(self) -> None:
        now = time.monotonic()
        with self._lock:
            drop_all, self._blackhole_requested = self._blackhole_requested, False
            for flow in self._flows:
                if flow.dropped or flow.closed_at is not None:
                    continue
                idle = self.idle_timeout_s is not None and now - flow.last_activity >= self.idle_timeout_s
                if drop_all or idle:
                    flow.dropped_at = now


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.close()
