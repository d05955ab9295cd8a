"""The authoritative DNS server and the edge caches over real UDP/TCP on loopback."""

from __future__ import annotations

import random
from collections.abc import Iterator

import dns.message
import dns.query
import dns.rcode
import dns.rdatatype
import pytest

from edge_origin.rehearsal.dns_server import (
    AuthoritativeServer,
    DnsLoop,
    PortInUseError,
    bind_dns_sockets,
    message_responder,
)
from edge_origin.rehearsal.edges import EdgeResolver
from edge_origin.rehearsal.health import HealthTracker
from edge_origin.rehearsal.plan import reference_plan

pytestmark = pytest.mark.slow
NAME = "origin.example.com"
ADDRESSES = {f"Nlb{n}Eip{z}": f"127.0.10.{(n - 1) * 3 + z}" for n in (1, 2) for z in (1, 2, 3)}


@pytest.fixture()
def servers() -> Iterator[tuple[AuthoritativeServer, int, list[EdgeResolver], HealthTracker]]:
    plan = reference_plan()
    state = HealthTracker(list(plan.health_checks()))
    auth = AuthoritativeServer(plan, ADDRESSES, state, rng=random.Random(1))
    auth_loop, edge_loop = DnsLoop("auth"), DnsLoop("edges")
    udp, tcp = bind_dns_sockets("127.0.0.1", 0)
    port = udp.getsockname()[1]
    auth_loop.add(udp, tcp, message_responder(auth.respond))
    edges = [
        EdgeResolver("127.0.20.1", ("127.0.0.1", port)),
        EdgeResolver("127.0.20.2", ("127.0.0.1", port), rotate=True),
    ]
    for edge in edges:
        eu, et = bind_dns_sockets(edge.ip, port)
        edge_loop.add(eu, et, edge.respond_wire)
    auth_loop.start()
    edge_loop.start()
    try:
        yield auth, port, edges, state
    finally:
        auth_loop.stop()
        edge_loop.stop()


def _ask(ip: str, port: int, rdtype: str = "A", name: str = NAME, tcp: bool = False) -> dns.message.Message:
    query = dns.message.make_query(name, rdtype)
    send = dns.query.tcp if tcp else dns.query.udp
    return send(query, ip, port=port, timeout=2)


def _ips(response: dns.message.Message) -> list[str]:
    return [rd.address for rrset in response.answer for rd in rrset]


def test_answer_order_is_the_selection_order(servers) -> None:
    auth, port, _edges, _state = servers
    for _ in range(20):
        response = _ask("127.0.0.1", port)
        _t, keys = auth.answers[-1]
        assert _ips(response) == [ADDRESSES[k] for k in keys]  # want_shuffle=False keeps our order
        assert response.answer[0].ttl == 60
    orders = {tuple(_ips(_ask("127.0.0.1", port))) for _ in range(20)}
    assert len(orders) > 1


def test_tcp_answers_too(servers) -> None:
    _auth, port, _edges, _state = servers
    assert sorted(_ips(_ask("127.0.0.1", port, tcp=True))) == sorted(ADDRESSES.values())


def test_aaaa_and_other_types_get_noerror_empty_with_soa(servers) -> None:
    _auth, port, _edges, _state = servers
    for rdtype in ("AAAA", "TXT", "MX"):
        response = _ask("127.0.0.1", port, rdtype)
        assert response.rcode() == dns.rcode.NOERROR
        assert response.answer == []
        assert response.authority[0].rdtype == dns.rdatatype.SOA


def test_other_names_get_nxdomain(servers) -> None:
    _auth, port, _edges, _state = servers
    response = _ask("127.0.0.1", port, name="other.example.com")
    assert response.rcode() == dns.rcode.NXDOMAIN


def test_unhealthy_record_is_left_out(servers) -> None:
    _auth, port, _edges, state = servers
    state.set("Nlb1Eip1HealthCheck", False)
    for _ in range(10):
        assert ADDRESSES["Nlb1Eip1"] not in _ips(_ask("127.0.0.1", port))


def test_edge_resolves_once_per_ttl_and_serves_the_cached_order(servers) -> None:
    _auth, port, edges, _state = servers
    answers = [_ips(_ask(edges[0].ip, port)) for _ in range(10)]
    assert len(edges[0].stats.fetches) == 1
    assert all(a == answers[0] for a in answers)


def test_rotating_edge_rotates_per_query(servers) -> None:
    _auth, port, edges, _state = servers
    firsts = [_ips(_ask(edges[1].ip, port))[0] for _ in range(6)]
    assert len(edges[1].stats.fetches) == 1
    assert sorted(firsts) == sorted(ADDRESSES.values())


def test_port_in_use_is_a_clear_error(servers) -> None:
    _auth, port, _edges, _state = servers
    with pytest.raises(PortInUseError, match=f"cannot bind DNS on 127.0.0.1:{port}"):
        bind_dns_sockets("127.0.0.1", port)


def test_edge_reply_carries_the_query_id_and_its_letter_case(servers) -> None:
    _auth, port, edges, _state = servers
    first = _ask(edges[0].ip, port)
    query = dns.message.make_query("ORIGIN.Example.COM", "A")
    reply = dns.query.udp(query, edges[0].ip, port=port, timeout=2)  # dnspython checks the id and question
    assert reply.id == query.id
    assert reply.question[0].name.to_text() == "ORIGIN.Example.COM."
    assert _ips(reply) == _ips(first)
    assert len(edges[0].stats.fetches) == 1


def test_garbage_is_ignored_and_the_server_keeps_answering(servers) -> None:
    import socket

    _auth, port, _edges, _state = servers
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(b"\x00\x01garbage", ("127.0.0.1", port))
        s.sendto(b"\x00\x01garbage", ("127.0.20.1", port))
    assert _ips(_ask("127.0.0.1", port))
    assert _ips(_ask("127.0.20.1", port))
