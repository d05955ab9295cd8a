"""``dns-spread``: ask a resolver N times for a name and report how the answers spread.

Distinct addresses, how often each comes first (a gRPC client's pick_first connects there), the
answer sizes, the TTLs, and a verdict: every answer holding one address is the weighted (or lone
simple record) shape that piles every client of a resolver onto one NLB; a NOERROR answer with no
address (geolocation without a ``*`` default, a CNAME to nothing) leaves that client with nowhere
to connect, and is counted and judged (``empty``), never read as spread; answers of several
addresses whose first position moves are the multivalue spread. Needs dnspython (the
``rehearsal`` extra). Queries go over UDP (TCP when truncated), each bounded by ``timeout``.

With ``expected`` (the answer model's answers for the name, from templates or from the account:
``expected_answers``) each measured answer is checked against them: an answer the model does not
allow (another size, another address, empty where the model always answers) is a disagreement.
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

DEFAULT_PORT = 53
DEFAULT_TIMEOUT_S = 2.0
PILE_UP = "pile-up"
SPREAD = "spread"
STUCK = "stuck-first"
EMPTY = "empty-answers"


@dataclass(frozen=True)
class ExpectedAnswer:
    """One answer the model allows: its addresses (sorted; None when the model cannot name them,
    e.g. an EIP's address in a template), how many a resolver receives, and where it holds."""

    addresses: tuple[str, ...] | None
    size: int
    pick: int | None = None
    empty: bool = False
    condition: str = ""
    policy: str = ""

    def allows(self, measured: tuple[str, ...]) -> bool:
        if not measured:
            return self.empty or self.size == 0
        if self.empty or len(measured) != self.size:
            return False
        if self.addresses is None:
            return True  # the size is all the model knows
        if self.pick is not None and self.pick < len(self.addresses):
            return set(measured) <= set(self.addresses)
        return measured == self.addresses


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
    #: NOERROR answers without an A record
    empty: int = 0
    #: answers with another rcode (NXDOMAIN, SERVFAIL, REFUSED)
    failed: int = 0
    #: each distinct measured answer (sorted addresses; () for an empty NOERROR) -> how often
    answer_sets: Counter[tuple[str, ...]] = field(default_factory=Counter)
    #: the answer model's answers for the name (None: not compared)
    expected: Sequence[ExpectedAnswer] | None = None
    rcodes: Counter[str] = field(default_factory=Counter)
    addresses: Counter[str] = field(default_factory=Counter)
    first: Counter[str] = field(default_factory=Counter)
    sizes: Counter[int] = field(default_factory=Counter)
    ttls: Counter[int] = field(default_factory=Counter)

    @property
    def verdict(self) -> str:
        """``pile-up``: one address per answer; ``empty-answers``: some NOERROR answers hold no
        address; ``stuck-first``: several, same first every time; ``spread``."""
        if self.sizes and set(self.sizes) == {1}:
            return PILE_UP
        if self.empty:
            return EMPTY
        if len(self.first) == 1 and self.answered > 1:
            return STUCK
        return SPREAD

    def explanation(self) -> str:
        return {
            PILE_UP: "one address per answer: the weighted/simple shape, every client of a resolver lands on one NLB",
            EMPTY: f"{self.empty} of {self.answered} answer(s) were NOERROR with no address: those clients have nowhere to connect",
            STUCK: "several addresses per answer but always the same first: pick_first clients pile onto it",
            SPREAD: "several addresses per answer and the first one moves: multivalue spread",
        }[self.verdict]

    @property
    def unexpected(self) -> Counter[tuple[str, ...]]:
        """Measured answers no expected answer allows (empty when not compared)."""
        if self.expected is None:
            return Counter()
        return Counter({a: n for a, n in self.answer_sets.items() if not any(e.allows(a) for e in self.expected)})

    @property
    def agrees(self) -> bool | None:
        """Whether every measured answer is one the model allows (None: not compared)."""
        return None if self.expected is None else not self.unexpected

    @property
    def ok(self) -> bool:
        return self.verdict == SPREAD and self.agrees is not False

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "resolver": self.resolver,
            "queries": self.queries,
            "answered": self.answered,
            "timeouts": self.timeouts,
            "empty": self.empty,
            "failed": self.failed,
            "rcodes": dict(self.rcodes),
            "distinct_addresses": len(self.addresses),
            "addresses": dict(sorted(self.addresses.items())),
            "first": dict(sorted(self.first.items())),
            "answer_sizes": {str(k): v for k, v in sorted(self.sizes.items())},
            "ttls": {str(k): v for k, v in sorted(self.ttls.items())},
            "verdict": self.verdict,
            "explanation": self.explanation(),
            **({} if self.expected is None else {"model": {
                "agrees": self.agrees,
                "answers": [{"addresses": list(e.addresses) if e.addresses is not None else None, "size": e.size, "pick": e.pick,
                             "empty": e.empty, "condition": e.condition, "policy": e.policy} for e in self.expected],
                "unexpected": [{"addresses": list(a), "count": n} for a, n in sorted(self.unexpected.items())],
            }}),
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
        lines.append(f"empty NOERROR answers: {self.empty}" + (f"; other rcodes: {self.failed}" if self.failed else ""))
        lines.append("TTLs: " + ", ".join(f"{k} s x{v}" for k, v in sorted(self.ttls.items())))
        lines.append(f"verdict: {self.verdict}: {self.explanation()}")
        if self.expected is not None:
            lines.append(self._model_text())
        return "\n".join(lines) + "\n"

    def _model_text(self) -> str:
        assert self.expected is not None
        shapes = sorted({(e.size, e.policy, e.empty) for e in self.expected})
        said = ", ".join("empty" if empty else f"{size} address(es)" + (f" ({policy})" if policy else "") for size, policy, empty in shapes)
        if not self.expected:
            said = "no answer (no zone of the model holds the name)"
        if self.agrees:
            return f"model: answers of {said}; every measured answer is one the model allows"
        bad = "; ".join(f"[{', '.join(a) or 'empty'}] x{n}" for a, n in sorted(self.unexpected.items())[:5])
        return f"model: answers of {said}; {sum(self.unexpected.values())} measured answer(s) the model does not allow: {bad}"


def probe(
    name: str, resolver: str, queries: int = 20, timeout: float = DEFAULT_TIMEOUT_S, expected: Sequence[ExpectedAnswer] | None = None
) -> SpreadReport:
    """Ask ``resolver`` (``IP[:PORT]``) ``queries`` times for ``name``'s A records.

    SpreadError when no query is answered (every one timed out), or when every answer is an
    error rcode (NXDOMAIN, SERVFAIL); all empty NOERROR answers are a report (verdict ``empty-answers``). ``expected``: the model's
    answers to compare each measured one with.
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
    report = SpreadReport(name=qname.to_text(omit_final_dot=True), resolver=f"{ip}:{port}", queries=queries, expected=expected)
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
        rcode = dns.rcode.to_text(reply.rcode())
        report.rcodes[rcode] += 1
        addresses = [rdata.address for rrset in reply.answer if rrset.rdtype == dns.rdatatype.A for rdata in rrset]
        ttl = [rrset.ttl for rrset in reply.answer if rrset.rdtype == dns.rdatatype.A]
        if not addresses:
            if rcode == "NOERROR":
                report.empty += 1
                report.answer_sets[()] += 1
            else:
                report.failed += 1
            continue
        report.answer_sets[tuple(sorted(addresses))] += 1
        report.sizes[len(addresses)] += 1
        report.first[addresses[0]] += 1
        report.addresses.update(set(addresses))
        report.ttls.update(ttl[:1])
    if report.answered == 0:
        raise SpreadError(f"--resolver {ip}:{port}: no answer to {report.timeouts} quer(ies) within {timeout:g} s each")
    if not report.addresses and report.empty == 0:
        codes = ", ".join(sorted(report.rcodes))
        raise SpreadError(f"NAME {report.name}: no A records at {ip}:{port} (answers: {codes})")
    return report


def expected_answers(model: Any, name: str, values: Any = None) -> list[ExpectedAnswer]:
    """The answer model's answers for ``name`` A from a public resolver (every location's), as
    ``ExpectedAnswer``s. ``values`` names the addresses (``AccountValues`` for an account; a
    template's literal addresses otherwise)."""
    from edge_origin.answers import PUBLIC
    from edge_origin.live.route53_answer import LiteralValues, answer_values

    lookup = values if values is not None else LiteralValues()
    resolution = model.zones.resolve(name, "A", PUBLIC)
    out = []
    for answer in resolution.answers:
        addresses = answer_values(answer, lookup)
        size = answer.size if addresses is None else (min(len(addresses), answer.pick) if answer.pick else len(addresses))
        out.append(ExpectedAnswer(addresses, size, answer.pick, answer.empty, answer.condition, answer.policy))
    return out
