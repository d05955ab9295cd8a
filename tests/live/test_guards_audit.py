"""Issue 30: audit reports Route 53's own guards on each origin name (StrictRoute53 stands in for
Route 53: moto 5.2.5 has none of these operations), read-only, and an origin name with neither a
protection nor ACTIVE_RECORD_CHECK is an advisory finding."""

from __future__ import annotations

from typing import Any

from helpers import Clients

from edge_origin.core.findings import Severity
from edge_origin.live.audit import audit
from edge_origin.testing.route53 import StrictRoute53

ORIGIN = "origin.example.com"


def _zone() -> tuple[StrictRoute53, str]:
    r53 = StrictRoute53()
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="z")["HostedZone"]["Id"].split("/")[-1]
    r53.change_resource_record_sets(HostedZoneId=zone_id, ChangeBatch={"Changes": [{"Action": "CREATE", "ResourceRecordSet": {
        "Name": ORIGIN, "Type": "A", "TTL": 60, "SetIdentifier": f"s{n}", "MultiValueAnswer": True,
        "ResourceRecords": [{"Value": f"203.0.113.{10 + n}"}]}} for n in range(2)]})
    return r53, zone_id


def _guard_findings(result: Any) -> list[Any]:
    return [f for f in result.findings if f.rule == "EO-LIVE-GUARD"]


def test_an_unguarded_origin_name_is_an_advisory_finding(moto_session: Any) -> None:
    r53, zone_id = _zone()
    result = audit(Clients(moto_session, route53=r53), grpc_origins=[ORIGIN])
    [finding] = _guard_findings(result)
    assert finding.severity is Severity.INFO and "create-resource-record-set-protections" in finding.fix
    [guards] = result.guards
    assert guards.line().endswith("guardrails none on; change history off; protected: no"), guards.line()


def test_a_protected_or_guarded_name_is_not_a_finding_and_the_line_says_so(moto_session: Any) -> None:
    r53, zone_id = _zone()
    r53.create_resource_record_set_protections(HostedZoneId=zone_id, Protections=[{"RecordName": ORIGIN, "RecordType": "A"}])
    result = audit(Clients(moto_session, route53=r53), grpc_origins=[ORIGIN])
    assert not _guard_findings(result) and "protected: A" in result.guards[0].line()

    r53, zone_id = _zone()
    r53.update_hosted_zone_tier(HostedZoneId=zone_id, HostedZoneTier="ADVANCED")
    r53.update_hosted_zone_features(HostedZoneId=zone_id, ChangeGuardrails=[{"Name": "ACTIVE_RECORD_CHECK", "Status": "ENABLED"}])
    before = dict(r53.calls)
    result = audit(Clients(moto_session, route53=r53), grpc_origins=[ORIGIN])
    assert not _guard_findings(result)
    line = result.guards[0].line()
    assert "guardrails ACTIVE_RECORD_CHECK" in line and "change history on" in line
    called = {op for op, n in r53.calls.items() if n != before.get(op)}
    assert all(op.startswith(("List", "Get", "Describe", "Test")) for op in called), called
