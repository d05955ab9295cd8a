"""Issue 34: a live account read with a botocore that drops AZAffinity says "not read" for those record
sets (EO-NJ2, not-checked), never judges them as simple records."""

from __future__ import annotations

from typing import Any
from unittest import mock

from edge_origin.core.findings import Severity
from edge_origin.live import name_state
from edge_origin.live.audit import audit

#: ResourceRecordSet members a botocore older than 1.44 knows (no AZAffinity).
OLD_BOTOCORE_MEMBERS = frozenset({
    "Name", "Type", "SetIdentifier", "Weight", "Region", "GeoLocation", "Failover", "MultiValueAnswer", "TTL",
    "ResourceRecords", "AliasTarget", "HealthCheckId", "TrafficPolicyInstanceId", "CidrRoutingConfig", "GeoProximityLocation",
})


def _az_records_as_an_old_botocore_lists_them(session: Any) -> None:
    """What ListResourceRecordSets gives an SDK without AZAffinity: set ids with no routing element
    (moto stores them as given; Route 53 itself would hold AZAffinity on each)."""
    r53 = session.client("route53")
    zone = r53.create_hosted_zone(Name="example.com", CallerReference="az")["HostedZone"]["Id"]
    changes = [{"Action": "CREATE", "ResourceRecordSet": {
        "Name": "origin.example.com", "Type": "A", "SetIdentifier": az, "TTL": 60, "ResourceRecords": [{"Value": f"192.0.2.{i + 1}"}],
    }} for i, az in enumerate(("use1-az1", "use1-az2", "global"))]
    r53.change_resource_record_sets(HostedZoneId=zone, ChangeBatch={"Changes": changes})


def test_an_sdk_without_az_affinity_reads_those_sets_as_not_judged(moto_session: Any) -> None:
    _az_records_as_an_old_botocore_lists_them(moto_session)
    with mock.patch.object(name_state, "_record_members", return_value=OLD_BOTOCORE_MEMBERS):
        result = audit(moto_session, names=["origin.example.com"], grpc_origins=["origin.example.com"])
    nj2 = [f for f in result.findings if f.rule == "EO-NJ2"]
    assert len(nj2) == 3 and all(f.severity is Severity.NOT_CHECKED for f in nj2)
    assert all("botocore older than 1.44 that drops AZAffinity" in f.message for f in nj2)
    # nothing judges the name as lone simple records
    assert not [f for f in result.findings if f.rule in ("EO-DNS1", "EO-DNS3") and "simple" in f.message]


def test_with_az_affinity_known_a_set_id_alone_is_still_not_judged(moto_session: Any) -> None:
    _az_records_as_an_old_botocore_lists_them(moto_session)
    result = audit(moto_session, names=["origin.example.com"], grpc_origins=["origin.example.com"])
    nj2 = [f for f in result.findings if f.rule == "EO-NJ2"]
    assert len(nj2) == 3 and all("Route 53 refuses a set id without one" in f.message for f in nj2)
