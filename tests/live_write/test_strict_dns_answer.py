"""StrictRoute53.test_dns_answer: Route 53's TestDNSAnswer answered from the answer model."""

from __future__ import annotations

import botocore.exceptions
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.testing.route53 import StrictRoute53
from tests.live_write.conftest import NAME, a_record, change, tcp_check

IPS = [f"203.0.113.{10 + n}" for n in range(12)]


def _apply(r53: StrictRoute53, zone_id: str, *records: dict) -> None:
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [change("CREATE", r) for r in records]})


def _ask(r53: StrictRoute53, zone_id: str, name: str = NAME, rtype: str = "A") -> dict:
    return r53.test_dns_answer(HostedZoneId=zone_id, RecordName=name, RecordType=rtype)


def test_weighted_sets_answer_one_address_each_time(r53, zone_id) -> None:
    _apply(r53, zone_id, *(a_record(f"w{i}", ip, weight=1) for i, ip in enumerate(IPS[:4])))
    seen = set()
    for _ in range(40):
        answer = _ask(r53, zone_id)
        assert answer["ResponseCode"] == "NOERROR" and len(answer["RecordData"]) == 1
        seen.add(answer["RecordData"][0])
    assert seen <= set(IPS[:4]) and len(seen) > 1


def test_multivalue_answers_up_to_eight_healthy_and_never_an_unhealthy_one(r53, zone_id) -> None:
    checks = [tcp_check(r53, ip) for ip in IPS]
    _apply(r53, zone_id, *(a_record(f"m{i}", ip, multivalue=True, hc=hc) for i, (ip, hc) in enumerate(zip(IPS, checks, strict=True))))
    r53.set_health(checks[0], False)
    for _ in range(10):
        data = _ask(r53, zone_id)["RecordData"]
        assert len(data) == 8 and len(set(data)) == 8
        assert IPS[0] not in data and set(data) <= set(IPS)


def test_every_multivalue_record_unhealthy_fails_open(r53, zone_id) -> None:
    checks = [tcp_check(r53, ip) for ip in IPS[:3]]
    _apply(r53, zone_id, *(a_record(f"m{i}", ip, multivalue=True, hc=hc) for i, (ip, hc) in enumerate(zip(IPS, checks, strict=False))))
    for hc in checks:
        r53.set_health(hc, False)
    assert sorted(_ask(r53, zone_id)["RecordData"]) == sorted(IPS[:3])


def test_failover_answers_the_secondary_once_the_primary_is_unhealthy(r53, zone_id) -> None:
    hc = tcp_check(r53, IPS[0])
    primary = {**a_record("p", IPS[0], hc=hc), "Failover": "PRIMARY"}
    secondary = {**a_record("s", IPS[1]), "Failover": "SECONDARY"}
    _apply(r53, zone_id, primary, secondary)
    assert _ask(r53, zone_id)["RecordData"] == [IPS[0]]
    r53.set_health(hc, False)
    assert _ask(r53, zone_id)["RecordData"] == [IPS[1]]


def test_a_cname_is_answered_as_the_cname(r53, zone_id) -> None:
    _apply(r53, zone_id, {"Name": NAME, "Type": "CNAME", "TTL": 60, "ResourceRecords": [{"Value": "nlb-1.elb.example.net"}]})
    answer = _ask(r53, zone_id)
    assert answer["RecordType"] == "CNAME" and answer["RecordData"] == ["nlb-1.elb.example.net"]


def test_unknown_name_is_nxdomain_and_another_type_is_empty_noerror(r53, zone_id) -> None:
    _apply(r53, zone_id, a_record(None, IPS[0]))
    assert _ask(r53, zone_id, name="nothing.example.com")["ResponseCode"] == "NXDOMAIN"
    aaaa = _ask(r53, zone_id, rtype="AAAA")
    assert aaaa["ResponseCode"] == "NOERROR" and aaaa["RecordData"] == []
    assert _ask(r53, zone_id)["RecordData"] == [IPS[0]]


def test_private_zones_are_refused_as_route53_documents(r53) -> None:
    zone = r53.create_hosted_zone(
        Name="example.com", CallerReference="private", VPC={"VPCRegion": "us-east-1", "VPCId": "vpc-1"}
    )["HostedZone"]["Id"].split("/")[-1]
    with pytest.raises(botocore.exceptions.ClientError) as exc:
        _ask(r53, zone)
    assert "only supports public hosted zones" in exc.value.response["Error"]["Message"]


@settings(max_examples=30, database=None, deadline=None)
@given(st.integers(1, 12), st.sets(st.integers(0, 11)))
def test_multivalue_answer_size_is_min_of_eight_and_the_healthy_count(count: int, down: set[int]) -> None:
    r53 = StrictRoute53()
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"].split("/")[-1]
    checks = [tcp_check(r53, ip) for ip in IPS[:count]]
    _apply(r53, zone_id, *(a_record(f"m{i}", IPS[i], multivalue=True, hc=checks[i]) for i in range(count)))
    for i in down & set(range(count)):
        r53.set_health(checks[i], False)
    healthy = [IPS[i] for i in range(count) if i not in down]
    data = _ask(r53, zone_id)["RecordData"]
    if healthy:
        assert len(data) == min(8, len(healthy)) and set(data) <= set(healthy)
    else:  # fail-open: up to eight unhealthy
        assert len(data) == min(8, count)
