"""Issue 34: what the live commands say with a botocore older than the fields and operations they read
(docs/aws-today.md). botocore parses responses by its own service model, so an older SDK drops a newer
member silently and has no method for a newer operation: the commands say "not read (botocore X < Y)"
or "not checked", never judge the dropped value as unset, never crash. Older SDKs are simulated by
patching the member/operation tables (``edge_origin.live.sdk_members``) over moto's account.

Release numbers, measured in botocore's git history (service-2.json at each tag): VpcOriginConfig,
ListVpcOrigins and DescribeCapacityReservation first in 1.35.66; Origin.ResponseCompletionTimeout in
1.39.17; CustomOriginConfig.IpAddressType in 1.40.23; AZAffinity, OriginHttpVersion and
ListResourceRecordSetProtections absent from 1.43.67 and present in 1.44.8.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest

from edge_origin.core.findings import Severity
from edge_origin.live import sdk_members
from edge_origin.live.account import VPC_ORIGINS_SERVICE, LiveAccount
from edge_origin.live.audit import audit, sdk_gap_findings
from edge_origin.live.ready import NOT_READ, capacity_lines
from edge_origin.live.zone_guards import protections

MEMBERS, OPERATIONS = sdk_members.shape_members, sdk_members.service_operations
#: What botocore 1.35.10 lacks of what the live commands read.
DROPPED = {("cloudfront", "Origin"): {"VpcOriginConfig", "ResponseCompletionTimeout"},
           ("cloudfront", "CustomOriginConfig"): {"IpAddressType", "OriginHttpVersion"},
           ("cloudfront", "VpcOriginConfig"): {"OriginHttpVersion"},
           ("route53", "ResourceRecordSet"): {"AZAffinity"}}
MISSING_OPERATIONS = {"ListVpcOrigins", "GetVpcOrigin", "DescribeCapacityReservation", "ListResourceRecordSetProtections"}


@pytest.fixture()
def botocore_1_35_10() -> Iterator[None]:
    with mock.patch.object(sdk_members, "shape_members", lambda service, shape: MEMBERS(service, shape) - DROPPED.get((service, shape), set())), \
            mock.patch.object(sdk_members, "service_operations", lambda service: OPERATIONS(service) - MISSING_OPERATIONS), \
            mock.patch.object(sdk_members, "installed_botocore", return_value="1.35.10"):
        yield


def _grpc_distribution(session: Any, response_completion_timeout: int | None = None) -> str:
    """A gRPC distribution in moto (which drops GrpcConfig and ResponseCompletionTimeout: put back on read)."""
    origin = {"Id": "o1", "DomainName": "o1.example.com", "CustomOriginConfig": {
        "HTTPPort": 80, "HTTPSPort": 443, "OriginProtocolPolicy": "https-only", "OriginKeepaliveTimeout": 30, "OriginReadTimeout": 30}}
    cfg = {"CallerReference": str(uuid.uuid4()), "Comment": "edge", "Enabled": True, "HttpVersion": "http2",
           "Origins": {"Quantity": 1, "Items": [origin]},
           "DefaultCacheBehavior": {"TargetOriginId": "o1", "ViewerProtocolPolicy": "https-only",
                                    "CachePolicyId": "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"}}
    cloudfront = session.client("cloudfront")
    dist_id = cloudfront.create_distribution(DistributionConfig=cfg)["Distribution"]["Id"]

    def put_back(parsed: dict[str, Any], **_: Any) -> None:
        for dist in (parsed.get("DistributionList") or {}).get("Items") or []:
            dist["DefaultCacheBehavior"]["GrpcConfig"] = {"Enabled": True}
            if response_completion_timeout is not None:
                dist["Origins"]["Items"][0]["ResponseCompletionTimeout"] = response_completion_timeout

    cloudfront.meta.events.register("after-call.cloudfront.ListDistributions", put_back)
    return dist_id


def test_audit_reads_response_completion_timeout_from_the_account(moto_session: Any) -> None:
    _grpc_distribution(moto_session, response_completion_timeout=60)
    cf3 = [f for f in audit(moto_session).findings if f.rule == "EO-CF3"]
    assert cf3 and "ResponseCompletionTimeout 60 s on a gRPC origin ends every stream longer than 60 s" in cf3[0].message


def test_an_older_botocore_makes_the_dropped_members_not_checked_and_does_not_crash(moto_session: Any, botocore_1_35_10: None) -> None:
    dist = _grpc_distribution(moto_session)
    result = audit(moto_session)
    gaps = {f.rule: f for f in result.findings if f.severity is Severity.NOT_CHECKED and f.stack == "cloudfront"}
    assert set(gaps) == {"EO-CF3", "EO-DNS1"}  # no origin of no known kind: nothing said about VpcOriginConfig
    assert gaps["EO-CF3"].message.startswith(
        "not checked: cloudfront Origin.ResponseCompletionTimeout not read (botocore 1.35.10 < 1.39.17: the SDK drops "
        f"ResponseCompletionTimeout from every response; upgrade botocore to read it) for origin(s) {dist}/o1: ")
    assert "the AAAA set of its name, which CloudFront then asks, is not judged" in gaps["EO-DNS1"].message
    assert gaps["EO-DNS1"].fix == "Upgrade botocore to 1.40.23 or later (pip install -U boto3) and audit again."
    assert result.account.unavailable[VPC_ORIGINS_SERVICE].startswith("not read: ListVpcOrigins (botocore 1.35.10 < 1.35.66: the SDK has no ListVpcOrigins")
    assert "CloudFront VPC origins: not read: ListVpcOrigins (botocore 1.35.10 < 1.35.66: the SDK has no ListVpcOrigins; upgrade botocore to read it)" in result.notes
    assert any("OriginHttpVersion not read (botocore 1.35.10 < 1.44" in line for line in result.origin_http)


def test_an_origin_of_no_known_kind_names_vpc_origin_config(botocore_1_35_10: None) -> None:
    """What an SDK without VpcOriginConfig lists for a VPC origin: neither config."""
    dist = {"Type": "AWS::CloudFront::Distribution", "Metadata": {"edge-origin:distribution-id": "E9"},
            "Properties": {"DistributionConfig": {"Origins": [{"Id": "vo", "DomainName": "internal.example.com"}]}}}
    account = LiveAccount(region="us-east-1", template={"Resources": {"Dist": dist}})
    rules = {f.rule: f.message for f in sdk_gap_findings(account)}
    assert "cloudfront Origin.VpcOriginConfig not read (botocore 1.35.10 < 1.35.66" in rules["EO-VPC1"]
    assert "for origin(s) E9/vo: a VPC origin reads as an origin of no known kind" in rules["EO-VPC1"]


def test_with_this_botocore_nothing_is_said() -> None:
    dist = {"Type": "AWS::CloudFront::Distribution", "Metadata": {"edge-origin:distribution-id": "E9"},
            "Properties": {"DistributionConfig": {"Origins": [{"Id": "o", "DomainName": "o.example.com", "CustomOriginConfig": {}}]}}}
    assert sdk_gap_findings(LiveAccount(region="us-east-1", template={"Resources": {"Dist": dist}})) == []


def test_ready_says_capacity_not_read_without_the_operation(botocore_1_35_10: None) -> None:
    [line] = capacity_lines(object(), "edge-nlb", "arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/net/edge/1")
    assert line.status == NOT_READ
    assert line.detail == ("not read: DescribeCapacityReservation (botocore 1.35.10 < 1.35.66: the SDK has no DescribeCapacityReservation; "
                           "upgrade botocore to read it)")


def test_protections_cannot_be_told_without_the_operation(botocore_1_35_10: None) -> None:
    assert protections(object(), "Z1", [("origin.example.com", "A")]) is None  # the client is never called


def test_between_1_35_66_and_1_35_83_a_vpc_origins_timeouts_are_not_checked() -> None:
    dropped = {("cloudfront", "VpcOriginConfig"): {"OriginKeepaliveTimeout", "OriginReadTimeout", "OriginHttpVersion"}}
    dist = {"Type": "AWS::CloudFront::Distribution", "Metadata": {"edge-origin:distribution-id": "E9"},
            "Properties": {"DistributionConfig": {"Origins": [
                {"Id": "vo", "DomainName": "internal.example.com", "VpcOriginConfig": {"VpcOriginId": "vo-1"}}]}}}
    account = LiveAccount(region="us-east-1", template={"Resources": {"Dist": dist}})
    with mock.patch.object(sdk_members, "shape_members", lambda s, shape: MEMBERS(s, shape) - dropped.get((s, shape), set())), \
            mock.patch.object(sdk_members, "installed_botocore", return_value="1.35.70"):
        [gap] = sdk_gap_findings(account)
    assert gap.rule == "EO-VPC1" and gap.severity is Severity.NOT_CHECKED
    assert gap.message.startswith("not checked: cloudfront VpcOriginConfig.OriginKeepaliveTimeout not read (botocore 1.35.70 < 1.35.83")
    assert "for origin(s) E9/vo: a VPC origin's OriginKeepaliveTimeout and OriginReadTimeout read as CloudFront's defaults" in gap.message
