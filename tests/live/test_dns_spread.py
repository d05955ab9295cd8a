"""dns-spread against the rehearsal's authoritative DNS server on loopback (multivalue and weighted plans)."""

from __future__ import annotations

import json
import random
import socket
import sys
from collections.abc import Iterator

import pytest
from helpers import run_cli

from edge_origin.live.dns_spread import PILE_UP, SPREAD, SpreadError, parse_resolver, probe
from edge_origin.rehearsal.dns_server import AuthoritativeServer, DnsLoop, bind_dns_sockets, message_responder
from edge_origin.rehearsal.plan import reference_plan

NAME = "origin.example.com"
ADDRESSES = {f"Nlb{n}Eip{z}": f"127.0.10.{(n - 1) * 3 + z}" for n in (1, 2) for z in (1, 2, 3)}


@pytest.fixture(params=["multivalue", "weighted"])
def dns_server(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    plan = reference_plan(name=NAME, routing=request.param)
    auth = AuthoritativeServer(plan, ADDRESSES, lambda key: True, rng=random.Random(7))
    loop = DnsLoop("dns-spread-test")
    udp, tcp = bind_dns_sockets("127.0.0.1", 0)
    port = udp.getsockname()[1]
    loop.add(udp, tcp, message_responder(auth.respond))
    loop.start()
    try:
        yield request.param, port
    finally:
        loop.stop()


def test_spread_and_pile_up(dns_server: tuple[str, int]) -> None:
    routing, port = dns_server
    report = probe(NAME, f"127.0.0.1:{port}", queries=60, timeout=1.0)
    assert report.answered == 60 and set(report.ttls) == {60}
    if routing == "multivalue":
        assert report.verdict == SPREAD and set(report.sizes) == {6}
        assert len(report.first) >= 4  # the first address moves between answers
    else:
        assert report.verdict == PILE_UP and set(report.sizes) == {1}
    assert set(report.addresses) <= set(ADDRESSES.values())


def test_cli_json_and_exit_codes(dns_server: tuple[str, int]) -> None:
    routing, port = dns_server
    code, out, err = run_cli("dns-spread", NAME, "--resolver", f"127.0.0.1:{port}", "--queries", "20", "--json")
    data = json.loads(out)
    assert data["verdict"] == (SPREAD if routing == "multivalue" else PILE_UP)
    assert code == (0 if routing == "multivalue" else 1), err
    code, out, _ = run_cli("dns-spread", NAME, "--resolver", f"127.0.0.1:{port}", "--queries", "5")
    assert "verdict:" in out and "distinct addresses:" in out


def test_a_name_with_no_records(dns_server: tuple[str, int]) -> None:
    _, port = dns_server
    with pytest.raises(SpreadError, match="NAME nothing.example.com: no A records"):
        probe("nothing.example.com", f"127.0.0.1:{port}", queries=3, timeout=1.0)


def test_a_resolver_that_does_not_answer_fails_fast() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:  # bound, never answers
        silent.bind(("127.0.0.1", 0))
        port = silent.getsockname()[1]
        code, out, err = run_cli("dns-spread", NAME, "--resolver", f"127.0.0.1:{port}", "--queries", "50", "--timeout", "0.1")
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0 and "no answer to 3 quer(ies)" in err


@pytest.mark.parametrize("text", ["localhost", "127.0.0.1:0", "127.0.0.1:99999", "1.2.3.4.5", "[::1]x", "[::1]:0"])
def test_bad_resolver(text: str) -> None:
    with pytest.raises(SpreadError, match="--resolver"):
        parse_resolver(text)


def test_resolver_forms() -> None:
    assert parse_resolver("127.0.0.1") == ("127.0.0.1", 53)
    assert parse_resolver("127.0.0.1:5353") == ("127.0.0.1", 5353)
    assert parse_resolver("[::1]:5353") == ("::1", 5353)
    assert parse_resolver("::1") == ("::1", 53)


def test_a_core_install_says_which_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "dns.resolver", None)  # as if dnspython were not installed
    code, out, err = run_cli("dns-spread", NAME, "--resolver", "127.0.0.1")
    assert code == 2 and out == ""
    assert "dns-spread needs the 'rehearsal' extra" in err and "pip install 'edge-origin[rehearsal]'" in err
