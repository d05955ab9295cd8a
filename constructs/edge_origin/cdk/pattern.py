"""GrpcEdgeToOrigin: CloudFront -> multivalue Route 53 -> NLBs with EIPs -> EKS pods, from one set of props."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks as eks
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_route53_targets as route53_targets
from aws_cdk import aws_s3 as s3
from constructs import Construct

from edge_origin.cdk._pattern_base import _OriginPattern
from edge_origin.cdk.edge import GrpcEdgeDistribution, normalized_domain_name, validate_distribution_props
from edge_origin.cdk.origin_records import (
    FAILURE_THRESHOLD_RANGE,
    HEALTH_PATH_MAX,
    REQUEST_INTERVALS,
    zone_name_of,
    zone_privacy,
)
from edge_origin.cdk.profile_binding import (
    DEFAULT_PRESET,
    record_profile_on,
)
from edge_origin.cdk.quotas import AccountQuotas
from edge_origin.cdk.watch import DEFAULT_WATCH, WatchOptions
from edge_origin.core.dns_names import canonical_name
from edge_origin.core.errors import (
    ConstructLabel,
    EdgeOriginPropError,
    is_token,
    require_construct,
    require_int_range,
    require_one_of,
    require_path,
    seconds_of,
    suggest_props,
)
from edge_origin.core.origin_verification import DEFAULT_ORIGIN_VERIFICATION, OriginVerification, checked_prop
from edge_origin.profile import ConnectionProfile


@suggest_props
class GrpcEdgeToOrigin(_OriginPattern):
    """The whole edge-to-origin path for a gRPC service on EKS.

    Composes :class:`OriginFleet` (NLBs, one EIP per NLB per zone, TCP listeners, IP target
    groups, security groups), :class:`MultivalueOriginRecords` (one health-checked multivalue A
    record per EIP), :class:`GrpcEdgeDistribution` (CloudFront with gRPC on) and
    :class:`TargetGroupBindings` (the manifests that put the pods into the target groups).
    Every part is exposed as an attribute, so it can be adjusted without forking.

    Stack outputs: the distribution id and domain name, the origin name, the custom domains,
    each EIP's address and allocation id, each NLB's ARN and DNS name, each target group ARN,
    each NLB security group id, the origin-verification secret ARN; with ``export_prefix`` each
    is exported as ``<prefix>-<output id>`` (``self.exports``: export name -> output). The pods'
    certificate must cover ``origin_name`` and be publicly trusted: CloudFront sends the origin
    name as SNI and Host and refuses a self-signed or private-CA certificate.
    """

    KIND = "GrpcEdgeToOrigin"

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        zone: route53.IHostedZone | None = None,
        origin_name: str,
        service_name: str,
        origin_access: str = "public-eip",
        vpc: ec2.IVpc | None = None,
        max_azs: int = 3,
        nlb_count: int | None = None,
        listener_port: int = 443,
        target_port: int = 8443,
        service_port: int | None = None,
        namespace: str = "default",
        target_health_check_protocol: str = "HTTP",
        target_health_check_port: int = 8081,
        target_health_check_path: str = "/healthz",
        origin_health_check_type: str = "TCP",
        origin_health_check_path: str = "/",
        origin_health_check_interval: cdk.Duration | int = cdk.Duration.seconds(10),
        origin_health_check_failure_threshold: int = 3,
        record_ttl: cdk.Duration | int = cdk.Duration.seconds(60),
        connection_profile: ConnectionProfile | None = None,
        http_version: str = "http2and3",
        domain_names: Sequence[str] | None = None,
        certificate: acm.ICertificate | None = None,
        domain_zone: route53.IHostedZone | None = None,
        web_acl_id: str | None = None,
        log_bucket: s3.IBucket | None = None,
        price_class: cloudfront.PriceClass = cloudfront.PriceClass.PRICE_CLASS_ALL,
        cluster: eks.ICluster | None = None,
        cloudfront_prefix_list_id: str | None = None,
        route53_health_checker_cidrs: Sequence[str] | None = None,
        route53_health_checker_prefix_list_id: str | None = None,
        vpc_origin_security_group_id: str | None = None,
        name_prefix: str = "origin",
        tags: Mapping[str, str] | None = None,
        deletion_protection: bool = True,
        eip_removal_policy: cdk.RemovalPolicy = cdk.RemovalPolicy.RETAIN,
        access_logs_bucket: s3.IBucket | None = None,
        export_prefix: str | None = None,
        account_quotas: AccountQuotas | Mapping[str, int] | None = None,
        origin_verification: OriginVerification | None = DEFAULT_ORIGIN_VERIFICATION,
        monitoring: WatchOptions | None = DEFAULT_WATCH,
        response_completion_timeout: cdk.Duration | int | None = None,
        origin_ip_address_type: str | None = None,
        capacity_units: int | None = None,
    ) -> None:
        """
        :param zone: public hosted zone of ``origin_name`` (``HostedZone.from_hosted_zone_attributes``
            needs no lookup; a private zone is refused: CloudFront could not resolve the name).
            Required with ``origin_access="public-eip"``; unset with ``"vpc-origin"`` (no records).
        :param origin_name: the origin DNS name CloudFront connects to, inside ``zone``; with
            ``"vpc-origin"`` the name CloudFront sends as Host and SNI (the pods' certificate name).
        :param service_name: the Kubernetes Service of the gRPC pods.
        :param origin_access: how CloudFront reaches the NLBs: ``"public-eip"`` (default:
            internet-facing NLBs, one EIP per zone, health-checked multivalue records) or
            ``"vpc-origin"`` (a CloudFront VPC origin to one internal NLB in private subnets: no
            EIPs, records or Route 53 health checks; the NLB admits only CloudFront's VPC-origin
            traffic; timeouts 1..120 s). See README "Choosing a topology" and
            ``edge_origin.cdk.vpc_origin``.
        :param vpc: VPC for the NLBs (public subnets in >= 2 zones). Default: the ``cluster``'s
            VPC, else a new VPC.
        :param max_azs: zones of a new VPC (2..6). Default 3.
        :param nlb_count: NLBs (1..20). Default 2 (``"vpc-origin"``: 1, the only value). Records and
            EIPs: ``nlb_count`` x zones (the default EIP quota is 5 per region: 2 x 3 needs a raise,
            or ``nlb_count=1``).
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
        :param domain_names: custom domains of the distribution (a list; needs ``certificate``).
        :param certificate: ACM certificate in us-east-1 for ``domain_names``.
        :param domain_zone: public hosted zone for ``domain_names``: an alias A and AAAA record per
            name points at the distribution. Default: no records (point them yourself).
        :param web_acl_id: WAFv2 web ACL ARN. Default: none.
        :param log_bucket: CloudFront access logs bucket. Default: no logs.
        :param price_class: CloudFront price class. Default: all edge locations.
        :param cluster: imported EKS cluster with a kubectl provider: the bindings are applied and,
            without ``vpc``, the NLBs go into its VPC. Default: none (manifests written to cdk.out).
        :param cloudfront_prefix_list_id: override of the per-region CloudFront prefix list id.
        :param route53_health_checker_cidrs: override of the shipped Route 53 checker ranges
            (``"public-eip"`` only).
        :param route53_health_checker_prefix_list_id: admit the checkers by the AWS-managed prefix list
            ``com.amazonaws.<region>.route53-healthchecks`` (its id; weight 25) instead of the shipped ranges
            (``"public-eip"`` only; see ``OriginFleet``). Default: the shipped ranges.
        :param vpc_origin_security_group_id: ``"vpc-origin"`` only: admit the VPC origins' service
            security group (``CloudFront-VPCOrigins-Service-SG``, known after a first deploy)
            instead of the origin-facing prefix list. Default: the prefix list.
        :param name_prefix: prefix of the set identifiers and Name tags. Default ``origin``.
        :param tags: tags for NLBs, target groups, EIPs, security groups and health checks.
        :param deletion_protection: NLB deletion protection. Default True.
        :param eip_removal_policy: EIPs on stack delete or replacement. Default RETAIN.
        :param access_logs_bucket: NLB access logs bucket (written for TLS listeners only; these
            are TCP: a warning says so). Default: none.
        :param export_prefix: export the stack outputs as ``<prefix>-...``. Default: no exports.
        :param account_quotas: the account's real quotas (``AccountQuotas``), so raised quotas
            give no warning. Default: the AWS defaults, or context ``edge-origin:accountQuotas``.
        :param origin_verification: the secret header CloudFront adds so the pods serve only this
            distribution (value from Secrets Manager via a dynamic reference; the pods' interceptors
            and config go into a ConfigMap ``<service>-origin-verify`` beside the bindings). Default:
            on, ``x-origin-verify`` from a new secret. ``None`` turns it off.
        :param monitoring: the path's dashboard and alarms (``OriginWatch`` as ``self.watch``;
            ``WatchOptions`` configures thresholds, SNS topic, additional CloudFront metrics).
            Default: on, ``WatchOptions()`` defaults, no alarm actions. ``None`` turns it off.
        :param response_completion_timeout: the origin's ``ResponseCompletionTimeout`` (whole seconds
            1..3600, at least the profile's ``cloudfront_read_timeout_s``): CloudFront ends every gRPC
            stream still open at this age (botocore 1.44.8 cloudfront ``Origin``: "If the complete
            response isn't received from the origin by this time, CloudFront ends the connection").
            EO-CF3 judges it against the connection profile (a warning below the longest stream the
            servers keep). Default None: unset, "CloudFront doesn't enforce a maximum value".
        :param origin_ip_address_type: ``"ipv4"``, ``"ipv6"`` or ``"dualstack"``
            (``CustomOriginConfig.IpAddressType``); the NLBs' EIPs are IPv4 and the records A, so only
            ``ipv4`` reaches them. Not with ``"vpc-origin"``. Default None: unset (IPv4).
        :param capacity_units: LCUs reserved on each NLB for a burst from zero
            (``MinimumLoadBalancerCapacity``; ELB spreads them evenly over the zones, each zone's
            share 2750..45000; 1 LCU = 2.2 Mbps; fulfilled typically within an hour, up to a few
            hours: check with ``edge-origin ready``). Default: no reservation.
        """
        super().__init__(scope, construct_id)
        where = self._label()
        vpc_path = _validate_origin_access(
            where, origin_access, zone, nlb_count, route53_health_checker_cidrs, vpc_origin_security_group_id,
            route53_health_checker_prefix_list_id,
        )
        props = self._checked_props(
            where, zone=zone, origin_name=origin_name, service_name=service_name, vpc=vpc, cluster=cluster,
            max_azs=max_azs, nlb_count=nlb_count if nlb_count is not None else 1 if vpc_path else 2,
            listener_port=listener_port, target_port=target_port, service_port=service_port, namespace=namespace,
            target_health_check_protocol=target_health_check_protocol,
            target_health_check_port=target_health_check_port, target_health_check_path=target_health_check_path,
            record_ttl=record_ttl, name_prefix=name_prefix, tags=tags, deletion_protection=deletion_protection,
            access_logs_bucket=access_logs_bucket, export_prefix=export_prefix, account_quotas=account_quotas,
            zone_required=not vpc_path, capacity_units=capacity_units,
        )
        _validate_edge_props(
            where, origin_health_check_type, origin_health_check_path, origin_health_check_interval,
            origin_health_check_failure_threshold, http_version, domain_names, certificate, domain_zone,
            web_acl_id, log_bucket, price_class,
        )
        _refuse_private_zone(where, zone)
        self.props, self.origin_access = props, origin_access
        verification = checked_prop(where, origin_verification)
        self._check_profile(where, connection_profile, DEFAULT_PRESET, cloudfront=True)
        self._domain_zone, self._domain_names = domain_zone, domain_names
        edge = self._edge_kwargs(
            listener_port, http_version, domain_names, certificate, web_acl_id, log_bucket, price_class,
            verification, response_completion_timeout=response_completion_timeout, origin_ip_address_type=origin_ip_address_type,
        )
        if vpc_path:
            self._create_vpc_origin_path(where, edge, cloudfront_prefix_list_id, vpc_origin_security_group_id)
        else:
            self._make_fleet(
                where, cloudfront_prefix_list_id=cloudfront_prefix_list_id,
                route53_health_checker_cidrs=route53_health_checker_cidrs, eip_removal_policy=eip_removal_policy,
                route53_health_checker_prefix_list_id=route53_health_checker_prefix_list_id,
            )
            self._create_records(
                zone, origin_name, origin_health_check_type, origin_health_check_path, origin_health_check_interval,
                origin_health_check_failure_threshold, record_ttl, tags,
            )
            self._create_edge(edge)
        self._finish(where, monitoring, export_prefix)

    def _edge_kwargs(self, listener_port: int, http_version: str, domain_names: Sequence[str] | None,
                     certificate: acm.ICertificate | None, web_acl_id: str | None, log_bucket: s3.IBucket | None,
                     price_class: cloudfront.PriceClass, origin_verification: OriginVerification | None,
                     **origin_extras: Any) -> dict:
        """The distribution's props from the pattern's and the profile (its origin name comes later: the
        records' name on the public path, ``origin_name`` on the VPC-origin path)."""
        return {
            "origin_port": listener_port,
            "keepalive_timeout": round(self.profile.cloudfront_keepalive_timeout_s),
            "read_timeout": round(self.profile.cloudfront_read_timeout_s),
            "http_version": http_version,
            "domain_names": list(domain_names) if domain_names is not None else None,
            "certificate": certificate,
            "web_acl_id": web_acl_id,
            "log_bucket": log_bucket,
            "price_class": price_class,
            "origin_verification": origin_verification,
            **origin_extras,
        }

    def _create_vpc_origin_path(self, where: ConstructLabel, edge: dict, cloudfront_prefix_list_id: str | None,
                                vpc_origin_security_group_id: str | None) -> None:
        """``origin_access="vpc-origin"``: one internal NLB behind a CloudFront VPC origin (no EIPs, no records)."""
        from edge_origin.cdk.vpc_origin import build_vpc_origin_path

        build_vpc_origin_path(
            self, where, edge_kwargs={"origin_name": self.props.origin_name, **edge},
            cloudfront_prefix_list_id=cloudfront_prefix_list_id,
            vpc_origin_security_group_id=vpc_origin_security_group_id,
        )

    def _create_records(self, zone: route53.IHostedZone, origin_name: str, check_type: str, check_path: str,
                        interval: cdk.Duration | int, failure_threshold: int, ttl: cdk.Duration | int,
                        tags: Mapping[str, str] | None) -> None:
        """One health-checked multivalue record per EIP of the fleet (``self.records``); an HTTPS check of the
        gRPC port is a warning (Route 53's HTTPS checks are not documented to speak HTTP/2: EO-DNS2)."""
        if check_type == "HTTPS" and self.fleet.health_checked_port == self.fleet.listener_port:
            cdk.Annotations.of(self).add_warning_v2(
                "edge-origin:https-check-of-grpc-port",
                f"origin_health_check_type='HTTPS' probes port {self.fleet.listener_port}, the gRPC pods' HTTP/2 port: "
                "Route 53's HTTPS checks speak TLS 1.0-1.2 and HTTP/1.1 and are not documented to speak HTTP/2, so "
                "every check can fail and Route 53 then answers with every record (fail-open). Use 'TCP' (the default).",
            )
        self._make_records(
            zone, origin_name, health_check_type=check_type, health_check_port=self.fleet.health_checked_port,
            health_check_path=check_path, health_check_fqdn=origin_name if check_type == "HTTPS" else None,
            request_interval=interval, failure_threshold=failure_threshold, ttl=ttl, tags=tags,
            account_quotas=self.props.quotas,
        )

    def _create_edge(self, edge: dict) -> None:
        """The distribution (``self.edge``), created or updated only after its origin's records exist: renaming
        the origin in one deploy never points CloudFront at a name without records (EO-CHG3)."""
        self.edge = GrpcEdgeDistribution(self, "Edge", origin_name=self.records.record_name, **edge)
        self.edge.distribution.node.add_dependency(self.records)

    # --- this pattern's share of the shared tail (``_OriginPattern._finish``) ---------------------
    def _edge_parts(self) -> None:
        """The profile on the distribution's metadata, the pods' verification ConfigMap, the
        custom-domain aliases."""
        record_profile_on(self.edge.distribution, self.profile)
        if self.edge.origin_verification is not None:  # the pods' half of origin verification
            from edge_origin.profile.interceptors import verification_configmap

            self.bindings.add_manifest(verification_configmap(
                self.edge.origin_verification.verification, f"{self.props.service_name}-origin-verify", self.props.namespace
            ))
        self.aliases = self._aliases(self._domain_zone, list(self._domain_names or ()))

    def _origin_name(self) -> str:
        return self.records.record_name if self.records is not None else self.edge.origin_name

    def _watched_edge(self) -> tuple[cloudfront.IDistribution, str]:
        return (self.edge.distribution, self._origin_name())

    def _edge_outputs(self) -> None:
        """Distribution id and domain name."""
        distribution = self.edge.distribution
        for output_id, value, text in (
            ("DistributionId", distribution.distribution_id, "CloudFront distribution id"),
            ("DistributionDomainName", distribution.distribution_domain_name, "CloudFront domain name (*.cloudfront.net)"),
        ):
            cdk.CfnOutput(self, output_id, value=value, description=text)

    def _origin_output(self) -> tuple[str, list[str]]:
        """The origin name and the custom domains; with ``export_prefix`` every output of the
        pattern (fleet, bindings, secret too) is exported as ``<prefix>-<id>``."""
        return (self._origin_name(), [canonical_name(n) for n in self._domain_names or ()])

    def _export_names(self) -> dict[str, Any]:
        secret_output = getattr(self.edge.origin_verification, "secret_arn_output", None)
        return {"names": {secret_output.node.path: "OriginVerifySecretArn"} if secret_output is not None else {}}

    def _aliases(self, domain_zone: route53.IHostedZone | None, names: list[str]) -> list[route53.IRecordSet]:
        """Alias A and AAAA records in ``domain_zone`` for each custom domain (ids from the name, so
        reordering ``domain_names`` replaces nothing)."""
        if domain_zone is None:
            return []
        target = route53.RecordTarget.from_alias(route53_targets.CloudFrontTarget(self.edge.distribution))
        made: list[route53.IRecordSet] = []
        for name in names:
            fqdn = canonical_name(name)
            label = "".join(p[:1].upper() + p[1:] for p in re.split(r"[^a-z0-9]+", fqdn.replace("*", "wildcard")) if p)
            made.append(route53.ARecord(self, f"Alias{label}A", zone=domain_zone, record_name=fqdn + ".", target=target))
            made.append(route53.AaaaRecord(self, f"Alias{label}Aaaa", zone=domain_zone, record_name=fqdn + ".", target=target))
        return made

    @property
    def distribution(self) -> cloudfront.Distribution:
        return self.edge.distribution

    @property
    def load_balancers(self):  # noqa: ANN201 - list of NetworkLoadBalancer
        return self.fleet.load_balancers

    @property
    def target_groups(self):  # noqa: ANN201 - list of NetworkTargetGroup
        return self.fleet.target_groups


ORIGIN_HEALTH_CHECK_TYPES = ("TCP", "HTTPS")


def _refuse_private_zone(where: ConstructLabel, zone: route53.IHostedZone | None) -> None:
    """CloudFront resolves ``origin_name`` on the internet: a private zone's records never reach it."""
    if zone is not None and zone_privacy(zone) == "private":
        raise EdgeOriginPropError(
            where, "zone", zone_name_of(zone), "a public hosted zone (CloudFront resolves origin_name on the internet)"
        )


def _validate_origin_access(
    where: ConstructLabel, origin_access: object, zone: object, nlb_count: object, r53_cidrs: object, vpc_sg: object,
    r53_prefix_list: object = None,
) -> bool:
    """``origin_access`` and the props that depend on it; True for the VPC-origin path."""
    from edge_origin.cdk.vpc_origin import ORIGIN_ACCESS, VPC_ORIGIN

    require_one_of(where, "origin_access", origin_access, ORIGIN_ACCESS)
    if origin_access != VPC_ORIGIN:
        if zone is None:
            raise EdgeOriginPropError(where, "zone", None, "a public route53.IHostedZone with origin_access='public-eip'")
        if vpc_sg is not None:
            raise EdgeOriginPropError(where, "vpc_origin_security_group_id", vpc_sg, "only with origin_access='vpc-origin'")
        return False
    for prop, value in (("zone", zone), ("route53_health_checker_cidrs", r53_cidrs),
                        ("route53_health_checker_prefix_list_id", r53_prefix_list)):
        if value is not None:
            shown = zone_name_of(value) if prop == "zone" else value
            raise EdgeOriginPropError(where, prop, shown, "unset with origin_access='vpc-origin' (no records, no Route 53 health checks)")
    if nlb_count not in (None, 1):
        raise EdgeOriginPropError(
            where, "nlb_count", nlb_count,
            "1 with origin_access='vpc-origin' (a gRPC behavior targets one origin, a VPC origin names one NLB, and "
            "origin groups fail over only GET/HEAD/OPTIONS)",
        )
    return True


def _validate_edge_props(
    where: ConstructLabel,
    health_check_type: object,
    health_check_path: object,
    health_check_interval: object,
    failure_threshold: object,
    http_version: object,
    domain_names: object,
    certificate: object,
    domain_zone: object,
    web_acl_id: object,
    log_bucket: object,
    price_class: object,
) -> None:
    """The pattern's CloudFront and Route 53 props, checked before anything is made."""
    require_one_of(where, "origin_health_check_type", health_check_type, ORIGIN_HEALTH_CHECK_TYPES)
    require_path(where, "origin_health_check_path", health_check_path, HEALTH_PATH_MAX)
    interval = seconds_of(where, "origin_health_check_interval", health_check_interval)
    require_one_of(where, "origin_health_check_interval", interval, REQUEST_INTERVALS)
    require_int_range(where, "origin_health_check_failure_threshold", failure_threshold, *FAILURE_THRESHOLD_RANGE)
    names = validate_distribution_props(
        where, http_version=http_version, domain_names=domain_names, certificate=certificate, web_acl_id=web_acl_id,
        log_bucket=log_bucket, price_class=price_class,
    )
    if domain_zone is not None:
        require_construct(where, "domain_zone", domain_zone, route53.IHostedZone, "a route53.IHostedZone")
        if not names:
            raise EdgeOriginPropError(where, "domain_zone", zone_name_of(domain_zone), "only with domain_names")
        if zone_privacy(domain_zone) == "private":
            raise EdgeOriginPropError(where, "domain_zone", zone_name_of(domain_zone), "a public hosted zone")
        zone_name = zone_name_of(domain_zone)
        if zone_name is not None and not is_token(zone_name):
            suffix = canonical_name(zone_name)
            for name in names:
                norm = normalized_domain_name(name)
                if not is_token(name) and norm != suffix and not norm.endswith("." + suffix):
                    raise EdgeOriginPropError(where, "domain_names", name, f"names inside domain_zone {suffix}")
