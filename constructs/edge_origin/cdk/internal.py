"""InternalGrpcOrigin: the same fleet, records and target groups for service-to-service gRPC, no CloudFront."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks as eks
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_s3 as s3
from constructs import Construct

from edge_origin.cdk._pattern_base import _OriginPattern
from edge_origin.cdk.origin_records import (
    tag_health_check,
    zone_name_of,
    zone_privacy,
)
from edge_origin.cdk.private_checks import (
    PrivateHealthChecks,
    check_private_health_checks,
    make_source,
    private_check,
)
from edge_origin.cdk.quotas import AccountQuotas, QuotaLedger
from edge_origin.cdk.watch import DEFAULT_WATCH, WatchOptions
from edge_origin.core.errors import ConstructLabel, EdgeOriginPropError, suggest_props
from edge_origin.profile import ConnectionProfile


@suggest_props
class InternalGrpcOrigin(_OriginPattern):
    """Internal NLBs with fixed private addresses behind multivalue records in a private zone.

    Route 53's internet checkers cannot reach private addresses. By default each record's health check
    is a CloudWatch-alarm check on its NLB's target group (``HealthyHostCount`` below 1 = unhealthy): it
    follows the whole NLB, not one zone's address (a zone whose address is dead while the NLB has
    healthy targets elsewhere stays healthy). With ``private_health_checks`` (opt-in) each address gets
    its own Route 53 private endpoint health check (``HealthCheckConfig.EndpointType`` PRIVATE, TCP on
    the listener port, sent from a health check source in the VPC: ``AWS::Route53::HealthCheckSource``;
    the facts table's ``route53.health.cfn_private``): a dead zone's address leaves the answers. The
    pinned aws-cdk-lib (2.275) and cfn-lint (1.58) do not know these yet: the source is a
    ``CfnResource``, the check's members are overrides, and cfn-lint's unknown-type/property codes are
    ignored on exactly those resources (:mod:`edge_origin.cdk.private_checks`). A public endpoint
    check of a private address is an EO-DNS2 finding.
    In-VPC clients should resolve with ``dns:///`` and use ``round_robin`` over the answer (the
    connection profile renders that service config) so one channel spreads over every NLB.
    The records carry ``edge-origin:grpc-origin`` Metadata, so the rules and ``edge-origin
    report`` see this path although no CloudFront distribution names it.
    """

    KIND = "InternalGrpcOrigin"

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
        listener_port: int = 50051,
        target_port: int = 50051,
        service_port: int | None = None,
        namespace: str = "default",
        client_cidrs: Sequence[str] | None = None,
        connection_profile: ConnectionProfile | None = None,
        target_health_check_protocol: str = "TCP",
        target_health_check_port: int | None = None,
        target_health_check_path: str = "/healthz",
        record_ttl: cdk.Duration | int = cdk.Duration.seconds(30),
        private_ip_offset: int = 200,
        cluster: eks.ICluster | None = None,
        name_prefix: str = "origin",
        tags: Mapping[str, str] | None = None,
        deletion_protection: bool = True,
        access_logs_bucket: s3.IBucket | None = None,
        export_prefix: str | None = None,
        account_quotas: AccountQuotas | Mapping[str, int] | None = None,
        monitoring: WatchOptions | None = DEFAULT_WATCH,
        allow_public_zone: bool = False,
        capacity_units: int | None = None,
        private_health_checks: PrivateHealthChecks | None = None,
    ) -> None:
        """
        :param zone: private hosted zone of ``origin_name``. A zone known to be public
            (``PublicHostedZone``, new or imported) is an error unless ``allow_public_zone``: it
            would publish the private addresses on the internet. A zone imported as plain
            ``HostedZone`` cannot be told apart: a warning says so.
        :param origin_name: the name in-VPC clients dial, inside ``zone``.
        :param service_name: the Kubernetes Service of the gRPC pods.
        :param vpc: VPC with private subnets in >= 2 zones. Default: the ``cluster``'s VPC, else a
            new VPC.
        :param max_azs: zones of a new VPC (2..6). Default 3.
        :param nlb_count: internal NLBs (1..20). Default 2.
        :param listener_port: TCP listener port. Default 50051.
        :param target_port: pod port. Default 50051.
        :param service_port: Service port in the TargetGroupBinding. Default: ``target_port``.
        :param namespace: namespace of the Service. Default ``default``.
        :param client_cidrs: who may connect (IPv4 CIDRs). Default: the VPC CIDR.
        :param connection_profile: source of the NLB idle timeout and the rendered gRPC settings
            (checked without CloudFront). Default: the ``internal-unary`` preset.
        :param target_health_check_protocol: NLB check of the pods: TCP (default), HTTP, HTTPS.
        :param target_health_check_port: pod health port. Default: ``target_port``.
        :param target_health_check_path: path of an HTTP(S) check. Default ``/healthz``.
        :param record_ttl: TTL of the records. Default 30 s.
        :param private_ip_offset: NLB ``i`` gets host ``offset + i`` of each subnet (4..250). Default 200.
        :param cluster: imported EKS cluster with a kubectl provider (bindings applied; its VPC
            when ``vpc`` is not given). Default: none.
        :param name_prefix: prefix of the set identifiers and Name tags. Default ``origin``.
        :param tags: tags for NLBs, target groups, security groups and health checks. Default: none.
        :param deletion_protection: NLB deletion protection. Default True.
        :param access_logs_bucket: NLB access logs bucket (TLS listeners only). Default: none.
        :param export_prefix: export the stack outputs as ``<prefix>-...``. Default: no exports.
        :param account_quotas: the account's real quotas (``AccountQuotas``). Default: AWS defaults.
        :param monitoring: dashboard and alarms (``OriginWatch`` as ``self.watch``, no CloudFront
            parts). Default: on, ``WatchOptions()`` defaults. ``None`` turns it off.
        :param allow_public_zone: accept a public ``zone`` on purpose (split-horizon names, a
            public name for private addresses): the records go in, with a warning. Default False.
        :param capacity_units: LCUs reserved on each NLB (``MinimumLoadBalancerCapacity``; each
            zone's share 2750..45000; 1 LCU = 2.2 Mbps). Default: no reservation.
        :param private_health_checks: one Route 53 private endpoint health check per address (TCP on
            ``listener_port``, ``EndpointType`` PRIVATE) from a health check source: an existing one
            (``PrivateHealthChecks(health_check_source_id=...)``) or a new one in 2 or 3 subnets of
            distinct zones (``PrivateHealthChecks(subnets=..., security_groups=...)``; the groups are
            admitted on the NLBs' listener port). Default: one CloudWatch-alarm check per NLB.
        """
        super().__init__(scope, construct_id)
        where = self._label()
        props = self._checked_props(
            where, zone=zone, origin_name=origin_name, service_name=service_name, vpc=vpc, cluster=cluster,
            max_azs=max_azs, nlb_count=nlb_count, listener_port=listener_port, target_port=target_port,
            service_port=service_port, namespace=namespace,
            target_health_check_protocol=target_health_check_protocol,
            target_health_check_port=target_port if target_health_check_port is None else target_health_check_port,
            target_health_check_path=target_health_check_path, record_ttl=record_ttl, name_prefix=name_prefix,
            tags=tags, deletion_protection=deletion_protection, access_logs_bucket=access_logs_bucket,
            export_prefix=export_prefix, account_quotas=account_quotas, capacity_units=capacity_units,
        )
        self._check_zone_privacy(where, zone, origin_name, allow_public_zone)
        private = check_private_health_checks(where, private_health_checks)
        self.props = props
        self._check_profile(where, connection_profile, "internal-unary", cloudfront=False)
        self._make_fleet(where, internet_facing=False, client_cidrs=client_cidrs, private_ip_offset=private_ip_offset)
        if private is None:
            checks = self._alarm_health_checks(origin_name, name_prefix, tags)
            per_address = [checks[a.nlb_name] for a in self.fleet.addresses]
        else:
            per_address = self._private_health_checks(private, origin_name, name_prefix, tags, listener_port)
        QuotaLedger.of(self).track(
            self, where, {"health_checks": len(set(map(id, per_address)))}, declared=props.quotas
        )
        self._make_records(zone, origin_name, ttl=record_ttl, health_checks=per_address, grpc_origin=True)
        self._finish(where, monitoring, export_prefix)

    def _alarm_health_checks(
        self, origin_name: str, name_prefix: str, tags: Mapping[str, str] | None
    ) -> dict[str, route53.HealthCheck]:
        """Per NLB: an alarm on its target group's ``HealthyHostCount`` (``self.alarms``) and a
        CloudWatch-alarm health check on it (the default; ``private_health_checks`` checks each address)."""
        region = cdk.Stack.of(self).region
        self.alarms: dict[str, cloudwatch.Alarm] = {}
        checks: dict[str, route53.HealthCheck] = {}
        user_tags = [(k, v) for k, v in (tags or {}).items() if k != "Name"]
        for member in self.fleet.members:
            alarm = cloudwatch.Alarm(
                self,
                f"{member.name}NoHealthyTargets",
                metric=member.target_group.metrics.healthy_host_count(period=cdk.Duration.minutes(1)),
                threshold=1,
                comparison_operator=cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
                evaluation_periods=1,
                treat_missing_data=cloudwatch.TreatMissingData.BREACHING,
                alarm_description=f"{member.name} of {origin_name} has no healthy targets",
            )
            self.alarms[member.name] = alarm
            check = route53.HealthCheck(
                self,
                f"{member.name}Health",
                type=route53.HealthCheckType.CLOUDWATCH_METRIC,
                alarm_identifier=route53.AlarmIdentifier(name=alarm.alarm_name, region=region),
                insufficient_data_health_status=route53.InsufficientDataHealthStatusEnum.LAST_KNOWN_STATUS,
            )
            tag_health_check(check, [("Name", f"{origin_name} {name_prefix}-{member.name.lower()}"), *user_tags])
            checks[member.name] = check
        return checks

    def _private_health_checks(
        self, private: PrivateHealthChecks, origin_name: str, name_prefix: str, tags: Mapping[str, str] | None, port: int
    ) -> list[route53.HealthCheck]:
        """One private endpoint check per fleet address (``self.health_check_source_id``: the source's id); a new
        source's security groups are admitted on each NLB's listener port."""
        self.alarms = {}
        self.health_check_source_id = make_source(self, private, self.fleet.vpc, tags)
        for group in private.security_groups or ():
            for member in self.fleet.members:
                member.security_groups[0].add_ingress_rule(
                    ec2.Peer.security_group_id(group.security_group_id), ec2.Port.tcp(port),
                    "Route 53 private endpoint health checks (health check source)",
                )
        user_tags = [(k, v) for k, v in (tags or {}).items() if k != "Name"]
        checks = []
        for address in self.fleet.addresses:
            check = private_check(self, f"{address.set_identifier}PrivateHealth", address.ip_address, port,
                                  self.health_check_source_id)
            tag_health_check(check, [("Name", f"{origin_name} {address.set_identifier}"), *user_tags])
            checks.append(check)
        return checks

    def _check_zone_privacy(self, where: ConstructLabel, zone: route53.IHostedZone, origin_name: str, allowed: bool) -> None:
        """A public zone publishes the NLBs' private addresses to every resolver on the internet
        (and clients outside the VPC get addresses they cannot reach): an error unless meant."""
        if not isinstance(allowed, bool):
            raise EdgeOriginPropError(where, "allow_public_zone", allowed, "True or False")
        privacy = zone_privacy(zone)
        if privacy == "public" and not allowed:
            raise EdgeOriginPropError(
                where, "zone", zone_name_of(zone),
                f"a private hosted zone (route53.PrivateHostedZone): a public zone publishes the private addresses of "
                f"{origin_name} on the internet; pass allow_public_zone=True to mean it",
            )
        if privacy == "public":
            cdk.Annotations.of(self).add_warning_v2(
                "edge-origin:internal-origin-public-zone",
                f"zone {zone_name_of(zone)} is public (allow_public_zone=True): the private addresses of {origin_name} "
                "are published on the internet, and clients outside the VPC resolve addresses they cannot reach.",
            )
        elif privacy is None:
            cdk.Annotations.of(self).add_warning_v2(
                "edge-origin:internal-origin-zone-unknown",
                f"zone {zone_name_of(zone)} is imported as a plain HostedZone: edge-origin cannot tell whether it is "
                "private. Import it with route53.PrivateHostedZone.from_hosted_zone_attributes (or from_lookup with "
                "private_zone=True) so a public zone is caught at synth.",
            )
