"""``dns-spread``: ask a resolver N times for a name and report how the answers spread.

Distinct addresses, how often each comes first (a gRPC client's pick_first connects there), the
answer sizes, the TTLs, and a verdict: every answer holding one address is the weighted (or lone
simple record) shape that piles every client of a resolver onto one NLB; answers of several
addresses whose first position moves are the multivalue spread. Needs dnspython (the
``rehearsal`` extra). Queries go over UDP (TCP when truncated), each bounded by ``timeout``.
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

DEFAULT_PORT = 53
DEFAULT_TIMEOUT_S = 2.0
PILE_UP = "pile-up"
SPREAD = "spread"
STUCK = "stuck-first"


class SpreadError(ValueError):
    """The resolver cannot be asked, or does not answer, or the name has no A records: one line."""


def parse_resolver(text: str) -> tuple[str, int]:
    """``IP`` or ``IP:PORT`` (IPv6 as ``[IP]:PORT``) -> (ip, port); SpreadError naming the flag."""
    host, port = text, DEFAULT_PORT
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if rest:
            if not rest.startswith(":"):
                raise SpreadError(f"--resolver {text!r}: expected [IPv6]:PORT")
            port = _port(rest[1:], text)
    elif text.count(":") == 1:
        host, _, raw = text.partition(":")
        port = _port(raw, text)
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise SpreadError(f"--resolver {text!r}: not an IP address (IP or IP:PORT)") from None
    return host, port


def _port(raw: str, text: str) -> int:
    if not raw.isdigit() or not 1 <= int(raw) <= 65535:
        raise SpreadError(f"--resolver {text!r}: port must be 1..65535")
    return int(raw)


@dataclass
class SpreadReport:
    name: str
    resolver: str
    queries: int
    answered: int = 0
    timeouts: int = 0
    empty: int = 0
    rcodes: Counter[str] = field(default_factory=Counter)
    addresses: Counter[str] = field(default_factory=Counter)
    first: Counter[str] = field(default_factory=Counter)
    sizes: Counter[int] = field(default_factory=Counter)
    ttls: Counter[int] = field(default_factory=Counter)

    @property
    def verdict(self) -> str:
        """``pile-up``: one address per answer; ``stuck-first``: several, same first every time; ``spread``."""
        if self.sizes and set(self.sizes) == {1}:
            return PILE_UP
        if len(self.first) == 1 and self.answered > 1:
            return STUCK
        return SPREAD

    def explanation(self) -> str:
        return {
            PILE_UP: "one address per answer: the weighted/simple shape, every client of a resolver lands on one NLB",
            STUCK: "several addresses per answer but always the same first: pick_first clients pile onto it",
            SPREAD: "several addresses per answer and the first one moves: multivalue spread",
        }[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "resolver": self.resolver,
            "queries": self.queries,
            "answered": self.answered,
            "timeouts": self.timeouts,
            "empty": self.empty,
            "rcodes": dict(self.rcodes),
            "distinct_addresses": len(self.addresses),
            "addresses": dict(sorted(self.addresses.items())),
            "first": dict(sorted(self.first.items())),
            "answer_sizes": {str(k): v for k, v in sorted(self.sizes.items())},
            "ttls": {str(k): v for k, v in sorted(self.ttls.items())},
            "verdict": self.verdict,
            "explanation": self.explanation(),
        }

    def text(self) -> str:
        lines = [
            f"{self.name} via {self.resolver}: {self.answered} of {self.queries} queries answered"
            + (f" ({self.timeouts} timed out)" if self.timeouts else ""),
            f"distinct addresses: {len(self.addresses)}",
        ]
        for address in sorted(self.addresses, key=lambda a: (-self.first[a], a)):
            share = self.first[address] / self.answered if self.answered else 0.0
            lines.append(f"  {address:<40} first {self.first[address]:>6} ({share:6.1%}), in {self.addresses[address]} answer(s)")
        lines.append("answer sizes: " + ", ".join(f"{k} address(es) x{v}" for k, v in sorted(self.sizes.items())))
        lines.append("TTLs: " + ", ".join(f"{k} s x{v}" for k, v in sorted(self.ttls.items())))
        lines.append(f"verdict: {self.verdict}: {self.explanation()}")
        return "\n".join(lines) + "\n"


def probe(name: str, resolver: str, queries: int = 20, timeout: float = DEFAULT_TIMEOUT_S) -> SpreadReport:
    """Ask ``resolver`` (``IP[:PORT]``) ``queries`` times for ``name``'s A records.

    SpreadError when no query is answered (every one timed out), or when no answer holds an address.
    """
    import dns.exception
    import dns.flags
    import dns.message
    import dns.name
    import dns.query
    import dns.rcode
    import dns.rdatatype

    ip, port = parse_resolver(resolver)
    try:
        qname = dns.name.from_text(name)
    except dns.exception.DNSException as exc:
        raise SpreadError(f"NAME {name!r}: not a DNS name ({exc})") from None
    report = SpreadReport(name=qname.to_text(omit_final_dot=True), resolver=f"{ip}:{port}", queries=queries)
    for _ in range(queries):
        query = dns.message.make_query(qname, dns.rdatatype.A)
        try:
            reply = dns.query.udp(query, ip, port=port, timeout=timeout)
            if reply.flags & dns.flags.TC:
                reply = dns.query.tcp(query, ip, port=port, timeout=timeout)
        except (dns.exception.Timeout, ConnectionError, OSError):
            report.timeouts += 1
            if report.timeouts >= 3 and report.answered == 0:
                break  # a resolver that does not answer three times in a row will not: stop early
            continue
        except dns.exception.DNSException:
            report.timeouts += 1
            continue
        report.answered += 1
        report.rcodes[dns.rcode.to_text(reply.rcode())] += 1
        addresses = [rdata.address for rrset in reply.answer if rrset.rdtype == dns.rdatatype.A for rdata in rrset]
        ttl = [rrset.ttl for rrset in reply.answer if rrset.rdtype == dns.rdatatype.A]
        if not addresses:
            report.empty += 1
            continue
        report.sizes[len(addresses)] += 1
        report.first[addresses[0]] += 1
        report.addresses.update(set(addresses))
        report.ttls.update(ttl[:1])
    if report.answered == 0:
        raise SpreadError(f"--resolver {ip}:{port}: no answer to {report.timeouts} quer(ies) within {timeout:g} s each")
    if not report.addresses:
        codes = ", ".join(sorted(report.rcodes))
        raise SpreadError(f"NAME {report.name}: no A records at {ip}:{port} (answers: {codes})")
    return report
