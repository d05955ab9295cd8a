"""GrpcEdgeToOrigin: CloudFront -> multivalue Route 53 -> NLBs with EIPs -> EKS pods, from one set of props."""

from __future__ import annotations

from collections.abc import Sequence

import aws_cdk as cdk
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks as eks
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_s3 as s3
from constructs import Construct

from edge_origin.edge import GrpcEdgeDistribution
from edge_origin.errors import ConstructLabel
from edge_origin.origin_fleet import OriginFleet
from edge_origin.origin_records import MultivalueOriginRecords, OriginAddress
from edge_origin.origin_verification import DEFAULT_ORIGIN_VERIFICATION, OriginVerification, checked_prop
from edge_origin.profile import ConnectionProfile
from edge_origin.profile_binding import (
    DEFAULT_PRESET,
    apply_profile_checks,
    bind_fleet,
    record_profile_on,
    whole_seconds,
)


class GrpcEdgeToOrigin(Construct):
    """The whole edge-to-origin path for a gRPC service on EKS.

    Composes :class:`OriginFleet` (NLBs, one EIP per NLB per zone, TCP listeners, IP target
    groups, security groups), :class:`MultivalueOriginRecords` (one health-checked multivalue A
    record per EIP), :class:`GrpcEdgeDistribution` (CloudFront with gRPC on) and
    :class:`TargetGroupBindings` (the manifests that put the pods into the target groups).
    Every part is exposed as an attribute, so it can be adjusted without forking.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        zone: route53.IHostedZone,
        origin_name: str,
        service_name: str,
        vpc: ec2.IVpc | None = None,
        max_azs: int = 3,
        nlb_count: int = 2,
        listener_port: int = 443,
        target_port: int = 8443,
        service_port: int | None = None,
        namespace: str = "default",
        target_health_check_protocol: str = "HTTP",
        target_health_check_port: int = 8081,
        target_health_check_path: str = "/healthz",
        origin_health_check_type: str = "TCP",
        origin_health_check_path: str = "/",
        origin_health_check_interval: cdk.Duration = cdk.Duration.seconds(10),
        origin_health_check_failure_threshold: int = 3,
        record_ttl: cdk.Duration = cdk.Duration.seconds(60),
        connection_profile: ConnectionProfile | None = None,
        http_version: str = "http2and3",
        domain_names: Sequence[str] | None = None,
        certificate: acm.ICertificate | None = None,
        web_acl_id: str | None = None,
        log_bucket: s3.IBucket | None = None,
        price_class: cloudfront.PriceClass = cloudfront.PriceClass.PRICE_CLASS_ALL,
        cluster: eks.ICluster | None = None,
        cloudfront_prefix_list_id: str | None = None,
        route53_health_checker_cidrs: Sequence[str] | None = None,
        origin_verification: OriginVerification | None = DEFAULT_ORIGIN_VERIFICATION,
    ) -> None:
        """
        :param zone: hosted zone of ``origin_name`` (``HostedZone.from_hosted_zone_attributes``
            needs no lookup).
        :param origin_name: the origin DNS name CloudFront connects to, inside ``zone``.
        :param service_name: the Kubernetes Service of the gRPC pods.
        :param vpc: VPC for the NLBs (public subnets in >= 2 zones). Default: a new VPC.
        :param max_azs: zones of a new VPC (2..6). Default 3.
        :param nlb_count: NLBs (1..20). Default 2. Records: ``nlb_count`` x zones.
        :param listener_port: NLB TCP listener port, also what CloudFront and Route 53 connect to.
            Default 443.
        :param target_port: pod port (TLS and HTTP/2 terminate on the pods). Default 8443.
        :param service_port: Service port in the TargetGroupBinding. Default: ``target_port``.
        :param namespace: namespace of the Service. Default ``default``.
        :param target_health_check_protocol: NLB check of the pods: HTTP (default), HTTPS, TCP.
        :param target_health_check_port: pod health port. Default 8081.
        :param target_health_check_path: pod health path. Default ``/healthz``.
        :param origin_health_check_type: Route 53 check of each EIP: TCP (default) or HTTPS.
        :param origin_health_check_path: path of an HTTPS Route 53 check. Default ``/``.
        :param origin_health_check_interval: 10 s (default) or 30 s.
        :param origin_health_check_failure_threshold: 1..10. Default 3.
        :param record_ttl: TTL of the origin records. Default 60 s.
        :param connection_profile: the one source of the NLB idle timeout, the CloudFront origin
            keepalive and read timeouts, and the gRPC keepalive/age settings rendered for the pods
            (ConfigMap beside the bindings). Checked here: an inconsistent profile fails synth.
            Default: the ``streaming-telemetry`` preset.
        :param http_version: ``http2and3`` (default) or ``http2``.
        :param domain_names: custom domains of the distribution (needs ``certificate``).
        :param certificate: ACM certificate in us-east-1 for ``domain_names``.
        :param web_acl_id: WAFv2 web ACL ARN. Default: none.
        :param log_bucket: CloudFront access logs bucket. Default: no logs.
        :param price_class: CloudFront price class. Default: all edge locations.
        :param cluster: imported EKS cluster with a kubectl provider: the bindings are applied.
            Default: none (manifests written to cdk.out only).
        :param cloudfront_prefix_list_id: override of the per-region CloudFront prefix list id.
        :param route53_health_checker_cidrs: override of the shipped Route 53 checker ranges.
        :param origin_verification: the secret header CloudFront adds so the pods serve only this
            distribution (value from Secrets Manager via a dynamic reference; the pods' interceptors
            and config go into a ConfigMap ``<service>-origin-verify`` beside the bindings). Default:
            on, ``x-origin-verify`` from a new secret. ``None`` turns it off.
        """
        super().__init__(scope, construct_id)
        origin_verification = checked_prop(ConstructLabel("GrpcEdgeToOrigin", self), origin_verification)
        self.profile = apply_profile_checks(
            ConstructLabel("GrpcEdgeToOrigin", self),
            connection_profile or ConnectionProfile.preset(DEFAULT_PRESET),
            cloudfront=True,
        )
        self.fleet = OriginFleet(
            self,
            "Fleet",
            vpc=vpc,
            max_azs=max_azs,
            nlb_count=nlb_count,
            listener_port=listener_port,
            target_port=target_port,
            idle_timeout=whole_seconds(self.profile.nlb_idle_timeout_s),
            target_health_check_protocol=target_health_check_protocol,
            target_health_check_port=target_health_check_port,
            target_health_check_path=target_health_check_path,
            cloudfront_prefix_list_id=cloudfront_prefix_list_id,
            route53_health_checker_cidrs=route53_health_checker_cidrs,
        )
        self.records = MultivalueOriginRecords(
            self,
            "Records",
            zone=zone,
            record_name=origin_name,
            addresses=[OriginAddress(a.ip_address, a.set_identifier) for a in self.fleet.addresses],
            health_check_type=origin_health_check_type,
            health_check_port=self.fleet.health_checked_port,
            health_check_path=origin_health_check_path,
            health_check_fqdn=origin_name if origin_health_check_type == "HTTPS" else None,
            request_interval=origin_health_check_interval,
            failure_threshold=origin_health_check_failure_threshold,
            ttl=record_ttl,
        )
        self.edge = GrpcEdgeDistribution(
            self,
            "Edge",
            origin_name=self.records.record_name,
            origin_port=listener_port,
            keepalive_timeout=whole_seconds(self.profile.cloudfront_keepalive_timeout_s),
            read_timeout=whole_seconds(self.profile.cloudfront_read_timeout_s),
            http_version=http_version,
            domain_names=domain_names,
            certificate=certificate,
            web_acl_id=web_acl_id,
            log_bucket=log_bucket,
            price_class=price_class,
            origin_verification=origin_verification,
        )
        self.bindings = bind_fleet(
            self,
            self.fleet,
            profile=self.profile,
            service_name=service_name,
            service_port=service_port if service_port is not None else target_port,
            namespace=namespace,
            cluster=cluster,
        )
        record_profile_on(self.edge.distribution, self.profile)
        if self.edge.origin_verification is not None:  # the pods' half of origin verification
            from edge_origin.profile.interceptors import verification_configmap

            self.bindings.add_manifest(
                verification_configmap(self.edge.origin_verification.verification, f"{service_name}-origin-verify", namespace)
            )

    @property
    def distribution(self) -> cloudfront.Distribution:
        return self.edge.distribution

    @property
    def load_balancers(self):  # noqa: ANN201 - list of NetworkLoadBalancer
        return self.fleet.load_balancers

    @property
    def target_groups(self):  # noqa: ANN201 - list of NetworkTargetGroup
        return self.fleet.target_groups
