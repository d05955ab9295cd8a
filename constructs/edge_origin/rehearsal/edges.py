"""Edge resolvers: caching DNS resolvers on their own loopback addresses.

Each stands for a CloudFront edge host (or a recursive resolver): it asks the authoritative
server once per TTL and hands the cached answer to every client, in the order it received it,
or rotated per query with ``rotate=True``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import dns.flags
import dns.message
import dns.query
import dns.rcode
import dns.rdatatype
import dns.rrset


@dataclass
class _Entry:
    response: dns.message.Message
    expires: float
    ttl: int
    served: int = 0


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
    ) -> None:
        self.ip = ip
        self.upstream = upstream
        self.time_scale = time_scale
        self.rotate = rotate
        self.upstream_timeout = upstream_timeout
        self.stats = EdgeStats()
        self._cache: dict[tuple[str, int], _Entry] = {}
        self._lock = threading.Lock()

    def _fetch(self, query: dns.message.Message) -> _Entry:
        question = query.question[0]
        upstream_query = dns.message.make_query(question.name, question.rdtype)
        response = dns.query.udp(upstream_query, self.upstream[0], port=self.upstream[1], timeout=self.upstream_timeout)
        if response.flags & dns.flags.TC:
            response = dns.query.tcp(upstream_query, self.upstream[0], port=self.upstream[1], timeout=self.upstream_timeout)
        ttls = [rr.ttl for rr in response.answer] or [rr.ttl for rr in response.authority] or [60]
        ttl = min(ttls)
        if question.rdtype == dns.rdatatype.A:
            ips = tuple(rd.address for rr in response.answer for rd in rr)
            self.stats.fetches.append((time.monotonic(), ips))
        return _Entry(response=response, expires=time.monotonic() + ttl * self.time_scale, ttl=ttl)

    def respond(self, query: dns.message.Message) -> dns.message.Message:
        reply = dns.message.make_response(query)
        reply.flags |= dns.flags.RA
        if not query.question:
            reply.set_rcode(dns.rcode.FORMERR)
            return reply
        question = query.question[0]
        key = (question.name.to_text().lower(), question.rdtype)
        self.stats.queries += 1
        now = time.monotonic()
        with self._lock:
            entry = self._cache.get(key)
            if entry is None or entry.expires <= now:
                try:
                    entry = self._fetch(query)
                except Exception:
                    self.stats.upstream_errors += 1
                    reply.set_rcode(dns.rcode.SERVFAIL)
                    return reply
                self._cache[key] = entry
            served = entry.served
            entry.served += 1
        cached = entry.response
        remaining = max(1, int((entry.expires - now) / self.time_scale)) if self.time_scale > 0 else entry.ttl
        reply.set_rcode(cached.rcode())
        for rrset in cached.answer:
            items = list(rrset)
            if self.rotate and items:
                shift = served % len(items)
                items = items[shift:] + items[:shift]
            copy = dns.rrset.RRset(rrset.name, rrset.rdclass, rrset.rdtype)
            for rd in items:
                copy.add(rd, remaining)
            reply.answer.append(copy)
        for rrset in cached.authority:
            reply.authority.append(rrset)
        return reply
