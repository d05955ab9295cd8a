"""Template builders for the answer-model rule tests: a gRPC distribution in front of
``o.example.com``, two NLBs (one EIP per zone each) and whatever records a test adds."""

from __future__ import annotations

import copy
from typing import Any

from edge_origin.model import TemplateModel

NAME = "o.example.com"


def base(grpc: bool = True) -> dict[str, Any]:
    behavior: dict[str, Any] = {
        "TargetOriginId": "o",
        "ViewerProtocolPolicy": "https-only",
        "CachePolicyId": "4135ea2d-6df8-44a3-9df3-4b5a84be39ad",
        "AllowedMethods": ["GET", "HEAD", "OPTIONS", "PUT", "PATCH", "POST", "DELETE"],
    }
    if grpc:
        behavior["GrpcConfig"] = {"Enabled": True}
    resources: dict[str, Any] = {
        "Dist": {
            "Type": "AWS::CloudFront::Distribution",
            "Properties": {
                "DistributionConfig": {
                    "Enabled": True,
                    "HttpVersion": "http2",
                    "Origins": [
                        {"Id": "o", "DomainName": NAME, "CustomOriginConfig": {"OriginProtocolPolicy": "https-only", "OriginKeepaliveTimeout": 30}}
                    ],
                    "DefaultCacheBehavior": behavior,
                }
            },
        },
        "Zone": {"Type": "AWS::Route53::HostedZone", "Properties": {"Name": "example.com"}},
    }
    for i, az in enumerate(("us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d")):
        resources[f"Subnet{i}"] = {"Type": "AWS::EC2::Subnet", "Properties": {"VpcId": "vpc-1", "CidrBlock": f"10.0.{i}.0/24", "AvailabilityZone": az}}
    for lb, subnets in (("NlbA", (0, 1)), ("NlbB", (2, 3))):
        mappings = []
        for i in subnets:
            resources[f"Eip{i}"] = {"Type": "AWS::EC2::EIP", "Properties": {"Domain": "vpc"}}
            resources[f"Check{i}"] = {
                "Type": "AWS::Route53::HealthCheck",
                "Properties": {"HealthCheckConfig": {"Type": "TCP", "IPAddress": {"Ref": f"Eip{i}"}, "Port": 443}},
            }
            mappings.append({"SubnetId": {"Ref": f"Subnet{i}"}, "AllocationId": {"Fn::GetAtt": [f"Eip{i}", "AllocationId"]}})
        resources[lb] = {
            "Type": "AWS::ElasticLoadBalancingV2::LoadBalancer",
            "Properties": {
                "Type": "network",
                "SubnetMappings": mappings,
                "LoadBalancerAttributes": [{"Key": "load_balancing.cross_zone.enabled", "Value": "true"}],
            },
        }
    return {"Resources": resources}


def record(name: str = NAME, rtype: str = "A", **props: Any) -> dict[str, Any]:
    body = {"HostedZoneId": {"Ref": "Zone"}, "Name": name, "Type": rtype, "TTL": 60, **props}
    if "AliasTarget" in body:
        body.pop("TTL")
    return {"Type": "AWS::Route53::RecordSet", "Properties": body}


def eip(i: int) -> dict[str, Any]:
    return {"Ref": f"Eip{i}"}


def nlb_dns(lb: str) -> dict[str, Any]:
    return {"Fn::GetAtt": [lb, "DNSName"]}


def nlb_alias(lb: str, evaluate: bool = True) -> dict[str, Any]:
    return {"DNSName": nlb_dns(lb), "HostedZoneId": {"Fn::GetAtt": [lb, "CanonicalHostedZoneID"]}, "EvaluateTargetHealth": evaluate}


def model(body: dict[str, Any], **records: dict[str, Any]) -> TemplateModel:
    body = copy.deepcopy(body)
    body["Resources"].update(records)
    return TemplateModel.from_templates({"S": body})


def one_per_set(policy_props: list[dict[str, Any]], values: list[list[Any]] | None = None) -> dict[str, dict[str, Any]]:
    """Record sets of ``o.example.com``, one address (EIP i) each, with the routing fields given."""
    out = {}
    for i, props in enumerate(policy_props):
        vals = values[i] if values else [eip(i)]
        out[f"Rec{i}"] = record(SetIdentifier=f"s{i}", ResourceRecords=vals, HealthCheckId={"Ref": f"Check{i}"}, **props)
    return out
