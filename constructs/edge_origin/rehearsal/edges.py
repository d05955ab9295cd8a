"""Edge resolvers: caching DNS resolvers on their own loopback addresses.

Each stands for a CloudFront edge host (or a recursive resolver): it asks the authoritative
server once per TTL and hands the cached answer to every client, in the order it received it,
or rotated per query with ``rotate=True``. Cache hits are served from prebuilt wire replies
(the query's id, RD bit and question patched in): dnspython takes ~0.9 ms to parse and build a
message, which made the edge the bottleneck of a 1,000-client burst.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import dns.flags
import dns.message
import dns.name
import dns.query
import dns.rcode
import dns.rdatatype
import dns.rrset

from edge_origin.rehearsal.dns_server import UDP_MAX, question_end


@dataclass
class _Entry:
    response: dns.message.Message
    expires: float
    ttl: int
    served: int = 0
    wires: list[bytes] = field(default_factory=list)  # one per rotation, for one remaining-TTL value
    wire_ttl: int = -1


@dataclass
class EdgeStats:
    """What one edge did: queries served and the answers it fetched (monotonic time, IPs)."""

    queries: int = 0
    fetches: list[tuple[float, tuple[str, ...]]] = field(default_factory=list)
    upstream_errors: int = 0


class EdgeResolver:
    """A caching resolver for one edge; ``time_scale`` compresses the TTL it caches for."""

    def __init__(
        self,
        ip: str,
        upstream: tuple[str, int],
        time_scale: float = 1.0,
        rotate: bool = False,
        upstream_timeout: float = 2.0,
        caching: bool = True,
    ) -> None:
        self.ip = ip
        self.caching = caching  # False: a forwarder (a real recursive resolver upstream holds the cache)
        self.upstream = upstream
        self.time_scale = time_scale
        self.rotate = rotate
        self.upstream_timeout = upstream_timeout
        self.stats = EdgeStats()
        self._cache: dict[tuple[bytes, bytes], _Entry] = {}
        self._lock = threading.Lock()

    def _fetch(self, name: dns.name.Name, rdtype: int) -> _Entry:
        upstream_query = dns.message.make_query(name, rdtype)
        host, port = self.upstream
        # asked from the edge's own address: the upstream tells the edges apart (and seeds per edge)
        response = dns.query.udp(upstream_query, host, port=port, timeout=self.upstream_timeout, source=self.ip)
        if response.flags & dns.flags.TC:
            response = dns.query.tcp(upstream_query, host, port=port, timeout=self.upstream_timeout, source=self.ip)
        ttls = [rr.ttl for rr in response.answer] or [rr.ttl for rr in response.authority] or [60]
        ttl = min(ttls)
        if rdtype == dns.rdatatype.A:
            ips = tuple(rd.address for rr in response.answer for rd in rr)
            self.stats.fetches.append((time.monotonic(), ips))
        return _Entry(response=response, expires=time.monotonic() + ttl * self.time_scale, ttl=ttl)

    def _build_wires(self, entry: _Entry, query: dns.message.Message, remaining: int) -> list[bytes]:
        """The replies for every rotation of the cached answer, with ``remaining`` as TTL."""
        cached = entry.response
        sizes = [len(list(rr)) for rr in cached.answer] or [1]
        rotations = max(sizes) if self.rotate else 1
        wires = []
        for shift in range(rotations):
            reply = dns.message.make_response(query)
            reply.flags |= dns.flags.RA
            reply.set_rcode(cached.rcode())
            for rrset in cached.answer:
                items = list(rrset)
                k = shift % len(items) if items else 0
                copy = dns.rrset.RRset(rrset.name, rrset.rdclass, rrset.rdtype)
                for rd in items[k:] + items[:k]:
                    copy.add(rd, remaining)
                reply.answer.append(copy)
            for rrset in cached.authority:
                reply.authority.append(rrset)
            wires.append(reply.to_wire(want_shuffle=False, max_size=UDP_MAX))
        return wires

    def respond_wire(self, data: bytes, udp: bool) -> bytes | None:
        """Answer a wire query from the cache (fetching upstream when empty or expired)."""
        qend = question_end(data)
        if qend is None:
            return None
        key = (data[12 : qend - 4].lower(), data[qend - 4 : qend])
        self.stats.queries += 1
        now = time.monotonic()
        with self._lock:
            entry = self._cache.get(key)
            if entry is None or entry.expires <= now or not self.caching:
                try:
                    query = dns.message.from_wire(data)
                    question = query.question[0]
                    entry = self._fetch(question.name, question.rdtype)
                except Exception:
                    self.stats.upstream_errors += 1
                    return _servfail(data, qend)
                self._cache[key] = entry
            remaining = max(1, int((entry.expires - now) / self.time_scale)) if self.time_scale > 0 else entry.ttl
            if remaining != entry.wire_ttl:
                entry.wires = self._build_wires(entry, dns.message.from_wire(data), remaining)
                entry.wire_ttl = remaining
            wire = entry.wires[entry.served % len(entry.wires)]
            entry.served += 1
        # the query's id, its RD bit, and its question (same name, maybe other letter case)
        flags = bytes([(wire[2] & 0xFE) | (data[2] & 0x01), wire[3]])
        return data[:2] + flags + wire[4:12] + data[12:qend] + wire[qend:]


def _servfail(data: bytes, qend: int) -> bytes:
    """SERVFAIL with the query's question."""
    header = data[:2] + bytes([0x80 | (data[2] & 0x01), 0x80 | 0x02]) + b"\x00\x01\x00\x00\x00\x00\x00\x00"
    return header + data[12:qend]
