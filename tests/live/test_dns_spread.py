"""dns-spread against the rehearsal's authoritative DNS server on loopback (multivalue and weighted plans)."""

from __future__ import annotations

import contextlib
import json
import random
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.live.dns_spread import (
    EMPTY,
    PILE_UP,
    SPREAD,
    ExpectedAnswer,
    SpreadError,
    expected_answers,
    parse_resolver,
    probe,
)
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


# --- empty NOERROR answers and the answer model ------------------------------------------------
class Scripted:
    """A loopback DNS server answering NAME A with the next of ``answers`` (a list of addresses;
    [] is NOERROR with no record, None is NXDOMAIN), cycling."""

    def __init__(self, answers: list[list[str] | None]) -> None:
        self.answers = answers
        self.count = 0

    def respond(self, query: Any) -> Any:
        import dns.flags
        import dns.message
        import dns.rcode
        import dns.rrset

        from edge_origin.rehearsal.dns_server import soa_rrset

        response = dns.message.make_response(query)
        response.flags |= dns.flags.AA
        name = query.question[0].name
        answer = self.answers[self.count % len(self.answers)]
        self.count += 1
        if answer is None:
            response.set_rcode(dns.rcode.NXDOMAIN)
        elif answer:
            response.answer.append(dns.rrset.from_text_list(name, 60, "IN", "A", answer))
        if not answer:
            response.authority.append(soa_rrset(name.parent()))
        return response


@contextlib.contextmanager
def scripted(answers: list[list[str] | None]) -> Iterator[int]:
    loop = DnsLoop("dns-spread-scripted")
    udp, tcp = bind_dns_sockets("127.0.0.1", 0)
    loop.add(udp, tcp, message_responder(Scripted(answers).respond))
    loop.start()
    try:
        yield udp.getsockname()[1]
    finally:
        loop.stop()


MULTI = ["127.0.10.1", "127.0.10.2", "127.0.10.3"]


def test_empty_noerror_answers_are_counted_and_never_spread() -> None:
    with scripted([MULTI, MULTI[1:] + MULTI[:1], []]) as port:
        report = probe(NAME, f"127.0.0.1:{port}", queries=9, timeout=1.0)
    assert (report.answered, report.empty, report.failed) == (9, 3, 0)
    assert report.verdict == EMPTY and not report.ok
    assert "empty NOERROR answers: 3" in report.text() and "3 of 9 answer(s) were NOERROR with no address" in report.text()
    assert report.to_dict()["empty"] == 3


def test_the_same_answers_without_empty_ones_are_spread() -> None:
    with scripted([MULTI, MULTI[1:] + MULTI[:1]]) as port:
        report = probe(NAME, f"127.0.0.1:{port}", queries=6, timeout=1.0)
    assert report.verdict == SPREAD and report.empty == 0 and report.ok


def test_only_empty_answers_are_a_report_not_bad_input() -> None:
    with scripted([[]]) as port:
        code, out, err = run_cli("dns-spread", NAME, "--resolver", f"127.0.0.1:{port}", "--queries", "4", "--json")
    assert code == 1, err
    assert json.loads(out)["verdict"] == EMPTY and json.loads(out)["empty"] == 4


def test_nxdomain_is_counted_apart_from_empty() -> None:
    with scripted([MULTI, None]) as port:
        report = probe(NAME, f"127.0.0.1:{port}", queries=4, timeout=1.0)
    assert (report.empty, report.failed, report.rcodes["NXDOMAIN"]) == (0, 2, 2)


def _template(records: list[dict[str, Any]]) -> dict[str, Any]:
    res: dict[str, Any] = {"Zone": {"Type": "AWS::Route53::HostedZone", "Properties": {"Name": "example.com"}}}
    for i, r in enumerate(records):
        res[f"R{i}"] = {"Type": "AWS::Route53::RecordSet", "Properties": {"HostedZoneId": {"Ref": "Zone"}, "Name": NAME, "Type": "A",
                                                                            "TTL": 60, **r}}
    return {"Resources": res}


WEIGHTED = [{"SetIdentifier": f"w{i}", "Weight": 10, "ResourceRecords": [ip]} for i, ip in enumerate(MULTI)]
MULTIVALUE = [{"SetIdentifier": f"m{i}", "MultiValueAnswer": True, "ResourceRecords": [ip]} for i, ip in enumerate(MULTI)]


def _expected(records: list[dict[str, Any]]) -> list[ExpectedAnswer]:
    from edge_origin.model import TemplateModel

    return expected_answers(TemplateModel.from_templates({"T": _template(records)}), NAME)


@pytest.mark.parametrize(("records", "answers", "agrees"), [
    (WEIGHTED, [[ip] for ip in MULTI], True),  # one set an answer: the model's pile-up, measured
    (WEIGHTED, [MULTI], False),  # every address at once: not what weighted sets answer
    (WEIGHTED, [["127.0.10.9"]], False),  # an address no record holds
    (MULTIVALUE, [MULTI, list(reversed(MULTI))], True),
    (MULTIVALUE, [MULTI[:2]], False),  # a healthy record left out
    (MULTIVALUE, [MULTI, []], False),  # empty NOERROR where the model always answers
])
def test_measured_answers_against_the_model(records: list[dict[str, Any]], answers: list[list[str]], agrees: bool) -> None:
    with scripted(answers) as port:
        report = probe(NAME, f"127.0.0.1:{port}", queries=6, timeout=1.0, expected=_expected(records))
    assert report.agrees is agrees
    assert ("every measured answer is one the model allows" in report.text()) is agrees
    if not agrees:
        assert not report.ok and report.to_dict()["model"]["unexpected"]


def test_a_geolocation_name_without_default_lets_the_model_allow_empty() -> None:
    records = [{"SetIdentifier": "us", "GeoLocation": {"CountryCode": "US"}, "ResourceRecords": [MULTI[0]]}]
    expected = _expected(records)
    assert any(e.empty for e in expected)  # "no answer" for queries from other locations
    with scripted([[MULTI[0]], []]) as port:
        report = probe(NAME, f"127.0.0.1:{port}", queries=4, timeout=1.0, expected=expected)
    assert report.agrees is True and report.verdict == PILE_UP


def test_template_addresses_it_cannot_name_are_compared_by_size() -> None:
    records = [{"SetIdentifier": f"m{i}", "MultiValueAnswer": True, "ResourceRecords": [{"Fn::GetAtt": [f"Eip{i}", "PublicIp"]}]}
               for i in range(3)]
    template = _template(records)
    for i in range(3):
        template["Resources"][f"Eip{i}"] = {"Type": "AWS::EC2::EIP", "Properties": {"Domain": "vpc"}}
    from edge_origin.model import TemplateModel

    expected = expected_answers(TemplateModel.from_templates({"T": template}), NAME)
    assert [e.addresses for e in expected] == [None] and expected[0].size == 3
    assert expected[0].allows(tuple(MULTI)) and not expected[0].allows(tuple(MULTI[:1]))


@settings(max_examples=200, deadline=None, database=None)
@given(pool=st.lists(st.integers(1, 20), min_size=1, max_size=12, unique=True), pick=st.integers(1, 8), seed=st.integers(0, 2**16))
def test_a_draw_of_up_to_eight_is_allowed_and_others_are_not(pool: list[int], pick: int, seed: int) -> None:
    addresses = tuple(sorted(f"127.0.20.{i}" for i in pool))
    limit = pick if pick < len(addresses) else None
    expected = ExpectedAnswer(addresses, min(pick, len(addresses)), limit)
    drawn = tuple(sorted(random.Random(seed).sample(addresses, expected.size)))
    assert expected.allows(drawn)
    assert not expected.allows(tuple(sorted((*drawn[1:], "127.0.99.1"))))
    assert not expected.allows(())
    if expected.size > 1:
        assert not expected.allows(drawn[1:])


def test_cli_expect_template(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_template(MULTIVALUE)))
    with scripted([MULTI, MULTI[1:] + MULTI[:1]]) as port:
        code, out, err = run_cli("dns-spread", NAME, "--resolver", f"127.0.0.1:{port}", "--queries", "4", "--expect", str(path))
    assert code == 0, err
    assert "model: answers of 3 address(es) (multivalue); every measured answer is one the model allows" in out
    with scripted([MULTI[:1]]) as port:
        code, out, _ = run_cli("dns-spread", NAME, "--resolver", f"127.0.0.1:{port}", "--queries", "4", "--expect", str(path), "--json")
    assert code == 1 and json.loads(out)["model"]["agrees"] is False


def test_cli_expect_and_expect_account_are_exclusive(tmp_path: Path) -> None:
    code, out, err = run_cli("dns-spread", NAME, "--resolver", "127.0.0.1:5353", "--expect", "x.json", "--expect-account")
    assert code == 2 and out == "" and "--expect and --expect-account" in err


def test_cli_expect_account_reads_the_answer_model_of_the_account(server: Any) -> None:
    import accounts

    built = accounts.Built()
    zid = accounts.zone(server, built)
    accounts.change(server, zid, [{"Name": NAME.replace("origin", "api"), "Type": "A", "SetIdentifier": f"m{i}", "MultiValueAnswer": True,
                                   "TTL": 60, "ResourceRecords": [{"Value": ip}]} for i, ip in enumerate(MULTI)])
    name = NAME.replace("origin", "api")
    with scripted([MULTI, MULTI[1:] + MULTI[:1]]) as port:
        code, out, err = run_cli("dns-spread", name, "--resolver", f"127.0.0.1:{port}", "--queries", "4", "--expect-account",
                                 "--endpoint-url", server.endpoint_url)
    assert code == 0, err + out
    assert "every measured answer is one the model allows" in out
    with scripted([MULTI[:1]]) as port:
        code, out, _ = run_cli("dns-spread", name, "--resolver", f"127.0.0.1:{port}", "--queries", "3", "--expect-account",
                               "--endpoint-url", server.endpoint_url)
    assert code == 1 and "3 measured answer(s) the model does not allow: [127.0.10.1] x3" in out


def test_cli_expect_a_bad_template_is_one_line_before_any_query(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"Resources": 5}')
    code, out, err = run_cli("dns-spread", NAME, "--resolver", "127.0.0.1:1", "--expect", str(bad))
    assert code == 2 and out == "" and err.strip().count("\n") == 0 and "Resources is a number" in err
