"""For any mix of record sets for a gRPC origin name (routing policy, TTL, health check, alias or
values), audit on the account and check on the same records as a template agree (hypothesis, bounded)."""

from __future__ import annotations

import itertools
import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_origin.live.account import logical_id
from edge_origin.live.audit import audit
from edge_origin.live.dns_spread import parse_resolver
from edge_origin.model import TemplateModel, normalize_name
from edge_origin.rules import run_rules

COUNTER = itertools.count()
record_spec = st.fixed_dictionaries({
    "routing": st.sampled_from(["weighted", "multivalue"]),
    "ttl": st.sampled_from([30, 60, 300, 301, 3600]),
    "health": st.booleans(),
    "values": st.integers(1, 3),
})


def _records(name: str, specs: list[dict[str, Any]], checks: list[str]) -> list[dict[str, Any]]:
    out = []
    for i, spec in enumerate(specs):
        record: dict[str, Any] = {"Name": name, "Type": "A", "SetIdentifier": f"s{i}", "TTL": spec["ttl"],
                                  "ResourceRecords": [{"Value": f"192.0.2.{10 * i + v}"} for v in range(spec["values"])]}
        if spec["routing"] == "weighted":
            record["Weight"] = 10
        else:
            record["MultiValueAnswer"] = True
        if spec["health"]:
            record["HealthCheckId"] = checks[i]
        out.append(record)
    return out


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(specs=st.lists(record_spec, min_size=1, max_size=4))
def test_audit_and_check_agree_on_any_record_mix(moto_session: Any, specs: list[dict[str, Any]]) -> None:
    route53 = moto_session.client("route53")
    zone_name = f"z{next(COUNTER)}.example.org"
    name = f"o.{zone_name}"
    zone = route53.create_hosted_zone(Name=zone_name, CallerReference=str(uuid.uuid4()))["HostedZone"]["Id"]
    checks = [route53.create_health_check(CallerReference=str(uuid.uuid4()), HealthCheckConfig={
        "Type": "TCP", "IPAddress": "192.0.2.200", "Port": 443})["HealthCheck"]["Id"] for _ in specs]
    records = _records(name + ".", specs, checks)
    route53.change_resource_record_sets(HostedZoneId=zone, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": r} for r in records]})
    live = audit(moto_session, names=[name], grpc_origins=[name])
    live_found = {(f.rule, f.severity.value, f.resource) for f in live.findings}

    resources: dict[str, Any] = {"Zone": {"Type": "AWS::Route53::HostedZone", "Properties": {"Name": zone_name}}}
    for i, record in enumerate(records):
        props = {k: v for k, v in record.items() if k not in ("ResourceRecords", "HealthCheckId")}
        props.update(HostedZoneId={"Ref": "Zone"}, ResourceRecords=[r["Value"] for r in record["ResourceRecords"]])
        if "HealthCheckId" in record:
            resources[f"Check{i}"] = {"Type": "AWS::Route53::HealthCheck", "Properties": {"HealthCheckConfig": {
                "Type": "TCP", "IPAddress": "192.0.2.200", "Port": 443}}}
            props["HealthCheckId"] = {"Ref": f"Check{i}"}
        resources[f"Record{i}"] = {"Type": "AWS::Route53::RecordSet", "Metadata": {"edge-origin:grpc-origin": True}, "Properties": props}
    model = TemplateModel.from_templates({"Plan": {"Resources": resources}})

    def live_id(logical: str) -> str:
        p = model.resource("Plan", logical).properties
        return f"hostedzone/{zone.split('/')[-1]}/{normalize_name(p['Name'])}/A/{p['SetIdentifier']}"

    template_found = {(f.rule, f.severity.value, live_id(f.resource)) for f in run_rules(model)}
    assert live_found == template_found


@given(raw=st.lists(st.text(min_size=1, max_size=80), min_size=2, max_size=20, unique=True))
@settings(max_examples=50, deadline=None)
def test_logical_ids_are_alphanumeric_and_distinct(raw: list[str]) -> None:
    ids = [logical_id("Record", r) for r in raw]
    assert len(set(ids)) == len(ids)
    assert all(i.isascii() and i.isalnum() and len(i) <= 255 for i in ids)


@given(octets=st.tuples(*[st.integers(0, 255)] * 4), port=st.integers(1, 65535))
@settings(max_examples=50, deadline=None)
def test_resolver_round_trip(octets: tuple[int, ...], port: int) -> None:
    ip = ".".join(map(str, octets))
    assert parse_resolver(f"{ip}:{port}") == (ip, port)
