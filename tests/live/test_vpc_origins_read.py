"""Issue 31: the account reader (and so `audit`) reads CloudFront VPC origins: ListVpcOrigins and
GetVpcOrigin through a botocore Stubber (moto 5.2.5 has no VPC origins), ELB and EC2 from moto."""

from __future__ import annotations

import datetime as dt
from typing import Any

from botocore.stub import Stubber

from edge_origin.live.account import read_account
from edge_origin.live.audit import audit

NOW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


def _internal_nlb(session: Any, *, scheme: str = "internal") -> str:
    ec2, elbv2 = session.client("ec2"), session.client("elbv2")
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    subnets = [
        ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.0.{i}.0/24", AvailabilityZone=f"us-east-1{z}")["Subnet"]["SubnetId"]
        for i, z in enumerate("ab")
    ]
    sg = ec2.create_security_group(GroupName="vo", Description="vpc origin nlb", VpcId=vpc)["GroupId"]
    lb = elbv2.create_load_balancer(Name="vo-nlb", Type="network", Scheme=scheme, Subnets=subnets, SecurityGroups=[sg])
    arn = lb["LoadBalancers"][0]["LoadBalancerArn"]
    elbv2.modify_load_balancer_attributes(
        LoadBalancerArn=arn, Attributes=[{"Key": "load_balancing.cross_zone.enabled", "Value": "true"}]
    )
    return arn


def _stub(session: Any, nlb_arn: str, keepalive: int) -> Stubber:
    cf = session.client("cloudfront")
    stub = Stubber(cf)
    stub.add_response("list_vpc_origins", {"VpcOriginList": {
        "Marker": "", "MaxItems": 100, "IsTruncated": False, "Quantity": 1,
        "Items": [{"Id": "vo-1", "Name": "vo", "Status": "Deployed", "CreatedTime": NOW, "LastModifiedTime": NOW,
                   "Arn": "arn:aws:cloudfront::123456789012:vpcorigin/vo-1", "OriginEndpointArn": nlb_arn}],
    }})
    stub.add_response("get_vpc_origin", {"VpcOrigin": {
        "Id": "vo-1", "Arn": "arn:aws:cloudfront::123456789012:vpcorigin/vo-1", "Status": "Deployed",
        "CreatedTime": NOW, "LastModifiedTime": NOW,
        "VpcOriginEndpointConfig": {"Name": "vo", "Arn": nlb_arn, "HTTPPort": 80, "HTTPSPort": 443,
                                    "OriginProtocolPolicy": "https-only", "IpAddressType": "ipv4"},
    }}, {"Id": "vo-1"})
    origin = {"Id": "o", "DomainName": "origin.example.com", "OriginPath": "", "ConnectionAttempts": 3, "ConnectionTimeout": 10,
              "VpcOriginConfig": {"VpcOriginId": "vo-1", "OriginKeepaliveTimeout": keepalive, "OriginReadTimeout": 60}}
    behavior = {"TargetOriginId": "o", "ViewerProtocolPolicy": "https-only", "GrpcConfig": {"Enabled": True},
                "CachePolicyId": "4135ea2d-6df8-44a3-9df3-4b5a84be39ad",
                "AllowedMethods": {"Quantity": 7, "Items": ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"]}}
    dist = {"Id": "E1", "ARN": "arn:aws:cloudfront::123456789012:distribution/E1", "Status": "Deployed", "LastModifiedTime": NOW,
            "DomainName": "d1.cloudfront.net", "Aliases": {"Quantity": 0}, "Origins": {"Quantity": 1, "Items": [origin]},
            "DefaultCacheBehavior": behavior, "CacheBehaviors": {"Quantity": 0}, "CustomErrorResponses": {"Quantity": 0},
            "Comment": "", "PriceClass": "PriceClass_All", "Enabled": True,
            "ViewerCertificate": {"CloudFrontDefaultCertificate": True}, "Restrictions": {"GeoRestriction": {"RestrictionType": "none", "Quantity": 0}},
            "WebACLId": "", "HttpVersion": "http2", "IsIPV6Enabled": True, "Staging": False}
    stub.add_response("list_distributions", {"DistributionList": {
        "Marker": "", "MaxItems": 100, "IsTruncated": False, "Quantity": 1, "Items": [dist]}})
    stub.activate()
    return stub


def test_reader_joins_distribution_vpc_origin_and_nlb(moto_session: Any) -> None:
    arn = _internal_nlb(moto_session)
    with _stub(moto_session, arn, keepalive=60):
        account = read_account(moto_session)
    model = account.model()
    (vpc_origin,) = model.vpc_origins
    (origin,) = model.distributions[0].origins
    assert origin.vpc_origin is vpc_origin and origin.keepalive_timeout == 60 and origin.protocol_policy == "https-only"
    assert [lb.resource.properties["Name"] for lb in model.load_balancers_for_origin(origin)] == ["vo-nlb"]


def test_audit_catches_a_vpc_origin_keepalive_out_of_range(moto_session: Any) -> None:
    arn = _internal_nlb(moto_session)
    with _stub(moto_session, arn, keepalive=150):
        result = audit(moto_session)
    # above the default quota (120 s) is a warning naming the quota (issue 37), from the live read too
    vpc1 = [f for f in result.findings if f.rule == "EO-VPC1"]
    assert vpc1 and any("150 s is above the default CloudFront quota 'Keep-alive timeout per origin' (120 s)" in f.message for f in vpc1)
