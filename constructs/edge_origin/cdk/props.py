"""The props ``GrpcEdgeToOrigin`` and ``InternalGrpcOrigin`` share: one frozen dataclass, checked once.

Both patterns build an ``OriginProps`` from their keyword arguments, call ``validate`` before
they make anything (a bad prop fails in about a millisecond, naming the pattern, the prop, the
value and what is allowed), and hand the parts their share with ``fleet_kwargs`` and
``binding_kwargs``. Defaults that differ between the two (ports, health check protocol, TTL,
connection profile preset) stay in each pattern's signature; what is shared is documented here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks as eks
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_s3 as s3
from constructs import Construct

from edge_origin.cdk.origin_fleet import OriginFleet, require_capacity_units
from edge_origin.cdk.origin_records import normalize_record_name
from edge_origin.cdk.quotas import AccountQuotas, account_quotas_from
from edge_origin.core.errors import (
    ConstructLabel,
    EdgeOriginPropError,
    require_bool,
    require_construct,
    require_int_range,
    require_port,
    require_seconds_range,
    require_str,
    require_tags,
)

K8S_NAME_PATTERN = r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?"
K8S_NAME_ALLOWED = "a DNS-1123 label: a-z, 0-9, '-', 1..63 chars"
TTL_RANGE = (0, 2147483647)


@dataclass(frozen=True)
class OriginProps:
    """What both patterns take (see each pattern's docstring for its own defaults).

    :param zone: hosted zone of ``origin_name`` (public for ``GrpcEdgeToOrigin``, private for
        ``InternalGrpcOrigin``).
    :param origin_name: the name clients (CloudFront, or in-VPC clients) resolve; inside ``zone``.
    :param service_name: the Kubernetes Service of the gRPC pods (DNS-1123 label).
    :param vpc: VPC of the NLBs. Default: the ``cluster``'s VPC, else a new VPC.
    :param cluster: imported EKS cluster with a kubectl provider: the bindings are applied and,
        without ``vpc``, its VPC holds the NLBs. Default: none.
    :param max_azs: zones of a new VPC (2..6). Default 3.
    :param nlb_count: NLBs (1..20). Default 2. Records: ``nlb_count`` x zones.
    :param listener_port: NLB TCP listener port.
    :param target_port: pod port.
    :param service_port: Service port in the TargetGroupBinding. Default: ``target_port``.
    :param namespace: namespace of the Service. Default ``default``.
    :param target_health_check_protocol: NLB check of the pods: HTTP, HTTPS or TCP.
    :param target_health_check_port: pod health port.
    :param target_health_check_path: pod health path (starts with ``/``). Default ``/healthz``.
    :param record_ttl: TTL of the origin records (0..2147483647 s; a warning above 60 s, AWS's advice for health-checked records).
    :param name_prefix: prefix of set identifiers and Name tags (``origin-nlb1-zone1``). Give each
        pattern its own when several write one name (one per region). Default ``origin``.
    :param tags: tags for the NLBs, target groups, EIPs, security groups and health checks.
    :param deletion_protection: NLB deletion protection. Default True.
    :param access_logs_bucket: S3 bucket for NLB access logs (TLS listeners only write them).
    :param export_prefix: export the stack outputs under ``<prefix>-...``. Default: no exports.
    :param account_quotas: the account's real quotas (``AccountQuotas``). Default: AWS defaults.
    :param capacity_units: LCUs reserved on each NLB (``OriginFleet(capacity_units=)``: each zone's
        share 2750..45000, 1 LCU = 2.2 Mbps). Default: no reservation.
    :param zone_required: False for ``GrpcEdgeToOrigin(origin_access="vpc-origin")``, which makes no
        records (``zone`` may then be None). Default True.
    """

    zone: route53.IHostedZone | None
    origin_name: str
    service_name: str
    listener_port: int
    target_port: int
    target_health_check_protocol: str
    target_health_check_port: int
    record_ttl: cdk.Duration | int
    vpc: ec2.IVpc | None = None
    cluster: eks.ICluster | None = None
    max_azs: int = 3
    nlb_count: int = 2
    service_port: int | None = None
    namespace: str = "default"
    target_health_check_path: str = "/healthz"
    name_prefix: str = "origin"
    tags: Mapping[str, str] | None = None
    deletion_protection: bool = True
    access_logs_bucket: s3.IBucket | None = None
    export_prefix: str | None = None
    account_quotas: AccountQuotas | Mapping[str, int] | None = None
    zone_required: bool = True
    capacity_units: int | None = None
    quotas: AccountQuotas | None = field(default=None, init=False)

    def validate(self, where: ConstructLabel) -> OriginProps:
        """Check every shared prop before anything is made; returns self."""
        if self.zone is not None or self.zone_required:  # a VPC-origin path publishes no records
            require_construct(where, "zone", self.zone, route53.IHostedZone, "a route53.IHostedZone", optional=False)
            normalize_record_name(where, self.origin_name, self.zone, "origin_name")
        for prop in ("service_name", "namespace"):
            require_str(where, prop, getattr(self, prop), K8S_NAME_PATTERN, K8S_NAME_ALLOWED)
        require_port(where, "listener_port", self.listener_port)
        require_port(where, "target_port", self.target_port)
        if self.service_port is not None:
            require_port(where, "service_port", self.service_port)
        require_port(where, "target_health_check_port", self.target_health_check_port)
        require_seconds_range(where, "record_ttl", self.record_ttl, *TTL_RANGE)
        require_int_range(where, "max_azs", self.max_azs, 2, 6)
        require_int_range(where, "nlb_count", self.nlb_count, 1, 20)
        if self.vpc is not None:
            require_construct(where, "vpc", self.vpc, ec2.IVpc, "an ec2.IVpc (Vpc or Vpc.from_vpc_attributes)")
        if self.cluster is not None:
            require_construct(where, "cluster", self.cluster, eks.ICluster, "an eks.ICluster")
            if self.cluster.kubectl_provider is None:
                raise EdgeOriginPropError(
                    where, "cluster", self.cluster.cluster_name,
                    "a cluster imported with eks.Cluster.from_cluster_attributes(..., kubectl_provider=...) "
                    "(an existing kubectl provider; edge-origin does not create one)",
                )
        if self.tags is not None:
            require_tags(where, "tags", self.tags)
        require_bool(where, "deletion_protection", self.deletion_protection)
        require_construct(where, "access_logs_bucket", self.access_logs_bucket, s3.IBucket, "an s3.IBucket")
        require_capacity_units(where, self.capacity_units, "TCP")  # the range needs the zones: OriginFleet
        object.__setattr__(self, "quotas", account_quotas_from(where, "account_quotas", self.account_quotas))
        return self

    def resolve_vpc(self, where: ConstructLabel) -> ec2.IVpc | None:
        """``vpc``, else the cluster's VPC (a clear error when an imported cluster has none), else None."""
        if self.vpc is not None or self.cluster is None:
            return self.vpc
        try:
            return self.cluster.vpc
        except Exception as exc:  # noqa: BLE001 - jsii: VpcDefinedImportedCluster
            raise EdgeOriginPropError(
                where, "cluster", self.cluster.cluster_name,
                "a cluster that knows its VPC (eks.Cluster.from_cluster_attributes(..., vpc=...)), or pass vpc= "
                "(never a new VPC unrelated to the pods)",
            ) from exc

    def fleet_kwargs(self, where: ConstructLabel) -> dict[str, Any]:
        """The ``OriginFleet`` share."""
        return {
            "vpc": self.resolve_vpc(where),
            "max_azs": self.max_azs,
            "nlb_count": self.nlb_count,
            "listener_port": self.listener_port,
            "target_port": self.target_port,
            "target_health_check_protocol": self.target_health_check_protocol,
            "target_health_check_port": self.target_health_check_port,
            "target_health_check_path": self.target_health_check_path,
            "name_prefix": self.name_prefix,
            "tags": self.tags,
            "deletion_protection": self.deletion_protection,
            "access_logs_bucket": self.access_logs_bucket,
            "export_prefix": self.export_prefix,
            "account_quotas": self.quotas,
            "capacity_units": self.capacity_units,
        }

    def make_fleet(self, scope: Construct, where: ConstructLabel, **extra: Any) -> OriginFleet:
        """The pattern's ``OriginFleet`` ("Fleet"); a VPC taken from ``cluster`` that cannot hold
        the NLBs is reported against ``cluster``, the prop the user gave."""
        kwargs = self.fleet_kwargs(where)
        try:
            return OriginFleet(scope, "Fleet", **kwargs, **extra)
        except EdgeOriginPropError as exc:
            if exc.prop == "capacity_units":  # its range depends on the zones the fleet found
                raise EdgeOriginPropError(where, exc.prop, exc.value, exc.allowed) from None
            if exc.prop != "vpc" or self.vpc is not None or self.cluster is None:
                raise
            raise EdgeOriginPropError(
                where, "cluster", f"{self.cluster.cluster_name} (its VPC: {exc.value})", f"{exc.allowed}; or pass vpc="
            ) from None

    def binding_kwargs(self) -> dict[str, Any]:
        """The ``bind_fleet`` share."""
        return {
            "service_name": self.service_name,
            "service_port": self.service_port if self.service_port is not None else self.target_port,
            "namespace": self.namespace,
            "cluster": self.cluster,
        }
