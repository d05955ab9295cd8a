"""Reference app: a telemetry ingest path (long-lived gRPC streams from devices) built with edge-origin."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_s3 as s3
from constructs import Construct

from edge_origin import ConnectionProfile, GrpcEdgeToOrigin, OriginVerification
from edge_origin.core.errors import EdgeOriginPropError
from edge_origin.profile import PRESETS

CONTEXT_PREFIX = "edge-origin:"


@dataclass(frozen=True)
class ReferenceConfig:
    """What the reference app reads from ``cdk.json`` context (``edge-origin:<field>``)."""

    account: str = "123456789012"
    region: str = "us-east-1"
    zoneName: str = "example.com"  # noqa: N815 - context keys are camelCase, as in cdk.json
    zoneId: str = "Z0123456789EXAMPLE"  # noqa: N815
    originName: str = "origin.telemetry.example.com"  # noqa: N815
    nlbCount: int = 2  # noqa: N815
    listenerPort: int = 443  # noqa: N815
    targetPort: int = 8443  # noqa: N815
    healthCheckPort: int = 8081  # noqa: N815
    serviceName: str = "telemetry-ingest"  # noqa: N815
    namespace: str = "telemetry"
    accessLogs: bool = True  # noqa: N815
    profile: str = "streaming-telemetry"
    originVerifyVersionId: str = ""  # noqa: N815 - the secret version CloudFront pins ("" = AWSCURRENT); bump to rotate

    @classmethod
    def from_context(cls, node: Any) -> ReferenceConfig:
        """Read every field from context; a wrong type names the context key and the type wanted."""
        values: dict[str, Any] = {}
        context = node.get_all_context()
        for f in fields(cls):
            key = CONTEXT_PREFIX + f.name
            raw = context.get(key)
            if raw is None:
                continue
            wanted = type(f.default)
            if wanted is int and isinstance(raw, str) and raw.isdigit():
                raw = int(raw)
            if wanted is bool and isinstance(raw, str) and raw.lower() in ("true", "false"):
                raw = raw.lower() == "true"
            if not isinstance(raw, wanted) or (wanted is int and isinstance(raw, bool)):
                raise EdgeOriginPropError("cdk.json context", key, raw, f"a {wanted.__name__}")
            values[f.name] = raw
        return cls(**values)

    def connection_profile(self) -> ConnectionProfile:
        """The named preset of ``edge-origin:profile``."""
        if self.profile not in PRESETS:
            raise EdgeOriginPropError("cdk.json context", CONTEXT_PREFIX + "profile", self.profile, "one of " + ", ".join(repr(p) for p in PRESETS))
        return ConnectionProfile.preset(self.profile)


class TelemetryIngestStack(cdk.Stack):
    """Devices stream telemetry over gRPC: CloudFront -> multivalue records -> 2 NLBs x 3 zones -> EKS."""

    def __init__(
        self, scope: Construct, construct_id: str, *, config: ReferenceConfig, origin_access: str = "public-eip", **kwargs: Any
    ) -> None:
        """``origin_access="vpc-origin"``: the second topology (issue 31), CloudFront -> VPC origin ->
        one internal NLB -> EKS; no zone, EIPs, records or health checks."""
        super().__init__(scope, construct_id, **kwargs)
        vpc_origin = origin_access == "vpc-origin"
        zone = None if vpc_origin else route53.HostedZone.from_hosted_zone_attributes(
            self, "Zone", hosted_zone_id=config.zoneId, zone_name=config.zoneName
        )
        log_bucket = None
        if config.accessLogs:
            log_bucket = s3.Bucket(
                self,
                "EdgeLogs",
                encryption=s3.BucketEncryption.S3_MANAGED,
                block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
                enforce_ssl=True,
                object_ownership=s3.ObjectOwnership.OBJECT_WRITER,
                lifecycle_rules=[s3.LifecycleRule(expiration=cdk.Duration.days(30))],
                removal_policy=cdk.RemovalPolicy.RETAIN,
            )
        self.ingest = GrpcEdgeToOrigin(
            self,
            "Ingest",
            zone=zone,
            origin_name=config.originName,
            service_name=config.serviceName,
            namespace=config.namespace,
            origin_access=origin_access,
            nlb_count=None if vpc_origin else config.nlbCount,
            listener_port=config.listenerPort,
            target_port=config.targetPort,
            target_health_check_port=config.healthCheckPort,
            log_bucket=log_bucket,
            connection_profile=config.connection_profile(),
            origin_verification=OriginVerification(version_id=config.originVerifyVersionId or None),
        )
        if log_bucket is not None:
            self.ingest.fleet.vpc.add_flow_log(
                "FlowLogs", destination=ec2.FlowLogDestination.to_s3(log_bucket, "vpc-flow-logs/")
            )
        self.log_bucket = log_bucket
