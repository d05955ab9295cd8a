"""``audit --test-dns-answer``: Route 53's own answer (TestDNSAnswer) against the answer model.

moto 5.2.5 does not implement TestDNSAnswer (``GET /2013-04-01/testdnsanswer`` answers 404), so
the tests answer it the way Route 53 does, from the records the setup made (not from the answer
model): a ``before-call`` handler returns the parsed response, shaped as the API reference
documents it (Nameserver, RecordName, RecordType, RecordData, ResponseCode, Protocol). The 404
itself is tested as moto gives it: one clear line, reported as not checked.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import accounts
import pytest
from botocore.awsrequest import AWSResponse
from helpers import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core.findings import Severity
from edge_origin.live.audit import audit
from edge_origin.live.route53_answer import RULE, AnswerCheck, _judge, matches

Answerer = Callable[[str, str, str], tuple[str, list[str]]]


def route53_answers(session: Any, answer: Answerer) -> list[tuple[str, str, str]]:
    """Answer TestDNSAnswer on ``session``'s route53 client with ``answer(zone, name, type)`` ->
    (ResponseCode, RecordData); returns the calls made."""
    calls: list[tuple[str, str, str]] = []

    def handler(params: dict[str, Any], **_: Any) -> tuple[AWSResponse, dict[str, Any]]:
        query = params["query_string"]
        zone, name, rtype = query["hostedzoneid"], query["recordname"], query["recordtype"]
        calls.append((zone, name, rtype))
        code, data = answer(zone, name, rtype)
        parsed = {"Nameserver": "ns-1.awsdns-01.org", "RecordName": name, "RecordType": rtype, "RecordData": data,
                  "ResponseCode": code, "Protocol": "UDP", "ResponseMetadata": {"HTTPStatusCode": 200}}
        return AWSResponse("https://route53.amazonaws.com", 200, {}, None), parsed

    session.client("route53").meta.events.register("before-call.route-53.TestDNSAnswer", handler)
    return calls


def nlb_addresses(built: accounts.Built, lb: accounts.Nlb) -> list[str]:
    return [a["IpAddress"] for addrs in built.lb_addresses[lb.arn].values() for a in addrs]


#: What Route 53 may answer for the origin, per setup, worked out from the records the setup made
#: (Route 53 API reference, ResourceRecordSet: a weighted/failover/latency/geolocation answer is
#: one record set; an alias to an NLB answers its addresses; multivalue: up to 8 healthy values;
#: a CNAME is answered as the CNAME).
def legitimate(setup: str, built: accounts.Built) -> list[list[str]]:
    if setup in ("incident", "alias to a weighted pool"):
        return [nlb_addresses(built, lb) for lb in built.nlbs]
    if setup == "multivalue":
        return [[r["ResourceRecords"][0]["Value"] for r in built.records]]
    if setup == "failover":  # the primary is healthy (moto's canned "Success")
        return [[built.records[0]["ResourceRecords"][0]["Value"]]]
    if setup in ("latency", "geolocation"):
        return [[r["ResourceRecords"][0]["Value"]] for r in built.records]
    if setup == "weighted CNAMEs":
        return [[lb.dns.lower()] for lb in built.nlbs]
    raise KeyError(setup)


SETUPS: dict[str, Callable[[Any], accounts.Built]] = {
    "incident": accounts.incident,
    "alias to a weighted pool": accounts.alias_chain,
    "multivalue": accounts.multivalue,
    "failover": accounts.failover,
    "latency": accounts.latency,
    "geolocation": accounts.geolocation,
    "weighted CNAMEs": accounts.weighted_cnames,
}


def _tda(result: Any) -> list[Any]:
    return [f for f in result.findings if f.rule == RULE]


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_route53s_answers_agree_with_the_model(setup: str, moto_session: Any) -> None:
    built = SETUPS[setup](moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    rng = random.Random(7)
    choices = legitimate(setup, built)
    calls = route53_answers(moto_session, lambda z, n, t: ("NOERROR", rng.choice(choices)))
    for _ in range(3):  # three draws of the policy
        result = audit(moto_session, test_dns_answer=True)
        assert _tda(result) == [], result.answers.summary()
        assert result.answers.checks and all(c.agrees for c in result.answers.checks)
    assert {z for z, _, _ in calls} == {built.zone_id}
    assert {n for _, n, _ in calls} == {accounts.ORIGIN}


@pytest.mark.parametrize(("setup", "wrong"), [
    ("incident", lambda built: nlb_addresses(built, built.nlbs[0]) + nlb_addresses(built, built.nlbs[1])),  # both pools at once
    ("incident", lambda built: nlb_addresses(built, built.nlbs[0])[:1]),  # one zonal address of an NLB alias
    ("multivalue", lambda built: ["192.0.2.77"]),  # an address no record holds
    ("failover", lambda built: [built.records[1]["ResourceRecords"][0]["Value"]]),  # the secondary while the primary is healthy
    ("weighted CNAMEs", lambda built: ["other.example.net"]),
])
def test_an_answer_the_model_does_not_allow_is_a_warning_naming_the_zone(setup: str, wrong: Any, moto_session: Any) -> None:
    built = SETUPS[setup](moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    route53_answers(moto_session, lambda z, n, t: ("NOERROR", wrong(built)))
    result = audit(moto_session, test_dns_answer=True)
    (finding, *more) = _tda(result)
    assert all(f.severity is Severity.WARNING for f in [finding, *more])
    assert f"in public zone example.com ({built.zone_id})" in finding.message
    assert finding.resource.startswith(f"hostedzone/{built.zone_id}/api.example.com/")
    assert "disagree" in result.answers.summary()


def test_an_empty_noerror_or_nxdomain_where_the_model_has_values_disagrees(moto_session: Any) -> None:
    built = accounts.multivalue(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    answers = iter([("NOERROR", []), ("NXDOMAIN", [])])
    route53_answers(moto_session, lambda z, n, t: next(answers))
    assert len(_tda(audit(moto_session, test_dns_answer=True))) == 1
    (nx,) = _tda(audit(moto_session, test_dns_answer=True))
    assert "(NXDOMAIN)" in nx.message


def test_private_zones_are_not_asked(moto_session: Any) -> None:
    """TestDNSAnswer "only supports querying public hosted zones"."""
    built = accounts.public_and_private(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    calls = route53_answers(moto_session, lambda z, n, t: ("NOERROR", nlb_addresses(built, built.nlbs[0])))
    result = audit(moto_session, test_dns_answer=True, grpc_origins=[accounts.ORIGIN])
    assert {z for z, _, _ in calls} == {built.zone_id}
    assert _tda(result) == []


def test_moto_404_is_one_not_checked_line(moto_session: Any) -> None:
    built = accounts.incident(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    result = audit(moto_session, test_dns_answer=True)
    (finding,) = _tda(result)
    assert finding.severity is Severity.NOT_CHECKED
    assert "not read: TestDNSAnswer (the endpoint does not offer it: HTTP 404" in finding.message
    assert "\n" not in result.answers.summary() and "does not offer it" in result.answers.summary()
    assert {f.rule for f in result.findings} == {"EO-DNS1", RULE}  # the rules still ran


def test_access_denied_is_not_checked(moto_session: Any) -> None:
    from botocore.exceptions import ClientError

    built = accounts.incident(moto_session)
    accounts.fill_moto_gaps(moto_session, built)

    def deny(**_: Any) -> None:
        raise ClientError({"Error": {"Code": "AccessDenied", "Message": "no"}}, "TestDNSAnswer")

    moto_session.client("route53").meta.events.register("before-call.route-53.TestDNSAnswer", deny)
    (finding,) = _tda(audit(moto_session, test_dns_answer=True))
    assert finding.severity is Severity.NOT_CHECKED and "route53 TestDNSAnswer denied: AccessDenied" in finding.message


def test_without_the_flag_route53_is_not_asked(moto_session: Any) -> None:
    built = accounts.incident(moto_session)
    accounts.fill_moto_gaps(moto_session, built)
    calls = route53_answers(moto_session, lambda z, n, t: ("NOERROR", []))
    result = audit(moto_session)
    assert calls == [] and result.answers is None and _tda(result) == []


def test_the_cli_flag_prints_one_line_and_counts_not_checked(server: Any) -> None:
    accounts.incident(server)
    code, _out, err = run_cli("audit", "--endpoint-url", server.endpoint_url, "--grpc-origin", accounts.ORIGIN, "--test-dns-answer",
                              "--format", "json")
    assert code == 1
    lines = err.splitlines()
    # the one line, then what audit read, then its notes on what moto does not have or return
    assert lines[0].startswith("--test-dns-answer: not read: TestDNSAnswer (the endpoint does not offer it"), err
    assert lines[1].startswith("audit: read ") and all(line.startswith("audit: ") for line in lines[1:]), err
    assert any(line.startswith("audit: CloudFront VPC origins: not read: ListVpcOrigins (") for line in lines), err
    assert any(line.startswith("audit: cloudfront CacheBehavior.GrpcConfig not returned") for line in lines), err


# --- the comparison itself, on generated answers -------------------------------------------------
addresses = st.lists(st.sampled_from([f"192.0.2.{i}" for i in range(1, 13)]), min_size=1, max_size=12, unique=True)


@settings(max_examples=200, deadline=None, database=None)
@given(pool=addresses, pick=st.integers(1, 8), seed=st.integers(0, 2**16))
def test_a_multivalue_draw_agrees_and_one_more_value_does_not(pool: list[str], pick: int, seed: int) -> None:
    """Above 8 healthy values Route 53 answers a random 8: any such draw agrees; a draw of another size
    or with a value outside the pool disagrees."""
    allowed = tuple(sorted(pool))
    limit = pick if pick < len(pool) else None
    drawn = tuple(sorted(random.Random(seed).sample(pool, min(pick, len(pool)))))
    assert matches(drawn, allowed, limit)
    assert not matches(tuple(sorted((*drawn, "198.51.100.1"))), allowed, limit)
    if len(drawn) > 1:
        assert not matches(drawn[1:], allowed, limit)


@settings(max_examples=100, deadline=None, database=None)
@given(sets=st.lists(addresses, min_size=1, max_size=4), seed=st.integers(0, 2**16))
def test_one_set_of_a_one_set_policy_agrees_and_a_union_does_not(sets: list[list[str]], seed: int) -> None:
    distinct = {tuple(sorted(s)) for s in sets}
    allowed = [(s, "", None) for s in distinct]
    chosen = sorted(distinct)[random.Random(seed).randrange(len(distinct))]
    check = AnswerCheck("api.example.com", "A", "Z1", "example.com", route53=chosen, response_code="NOERROR", allowed=allowed)
    _judge(check)
    assert check.agrees is True
    union = tuple(sorted({a for s in distinct for a in s}))
    if union not in distinct:
        check = AnswerCheck("api.example.com", "A", "Z1", "example.com", route53=union, response_code="NOERROR", allowed=allowed)
        _judge(check)
        assert check.agrees is False


def test_an_answer_the_model_cannot_spell_is_not_judged() -> None:
    """An NLB without known addresses: the model cannot say what Route 53 writes; neither agree nor disagree."""
    check = AnswerCheck("api.example.com", "A", "Z1", "example.com", route53=("192.0.2.1",), response_code="NOERROR",
                        allowed=[((), "?", -1)])
    _judge(check)
    assert check.agrees is None and "cannot name" in check.why


def test_a_name_given_with_name_is_asked_even_when_no_distribution_uses_it(moto_session: Any) -> None:
    built = accounts.Built()
    zid = accounts.zone(moto_session, built)
    accounts.change(moto_session, zid, [{"Name": "www.example.com", "Type": "A", "TTL": 60, "ResourceRecords": [{"Value": "192.0.2.5"}]}],
                    built)
    calls = route53_answers(moto_session, lambda z, n, t: ("NOERROR", ["192.0.2.5"]))
    result = audit(moto_session, names=["www.example.com"], test_dns_answer=True)
    assert calls == [(zid, "www.example.com", "A")]
    assert [c.agrees for c in result.answers.checks] == [True] and _tda(result) == []


def test_the_model_is_asked_with_the_health_route53_reports(moto_session: Any) -> None:
    """The primary's check failing (GetHealthCheckStatus: every checker "Failure"): Route 53 answers
    the secondary, and the model, asked with that health, allows it and no longer the primary."""
    built = accounts.failover(moto_session)
    accounts.fill_moto_gaps(moto_session, built)

    def failing(parsed: dict[str, Any], **_: Any) -> None:
        for observation in parsed.get("HealthCheckObservations", []):
            observation["StatusReport"]["Status"] = "Failure: Connection timed out."

    moto_session.client("route53").meta.events.register("after-call.route53.GetHealthCheckStatus", failing)
    primary, secondary = (r["ResourceRecords"][0]["Value"] for r in built.records)
    answer = {"value": secondary}
    route53_answers(moto_session, lambda z, n, t: ("NOERROR", [answer["value"]]))
    result = audit(moto_session, test_dns_answer=True)
    assert _tda(result) == [] and [c.agrees for c in result.answers.checks] == [True]
    answer["value"] = primary
    (finding,) = _tda(audit(moto_session, test_dns_answer=True))
    assert primary in finding.message and secondary in finding.message


def test_route53_unreadable_makes_the_comparison_not_checked(moto_session: Any) -> None:
    from botocore.exceptions import ClientError

    built = accounts.incident(moto_session)
    accounts.fill_moto_gaps(moto_session, built)

    def deny(**_: Any) -> None:
        raise ClientError({"Error": {"Code": "AccessDenied", "Message": "no"}}, "ListHostedZones")

    moto_session.client("route53").meta.events.register("before-call.route-53.ListHostedZones", deny)
    calls = route53_answers(moto_session, lambda z, n, t: ("NOERROR", []))
    result = audit(moto_session, test_dns_answer=True)
    (finding,) = _tda(result)
    assert finding.severity is Severity.NOT_CHECKED and "route53 could not be read" in finding.message
    assert calls == []
