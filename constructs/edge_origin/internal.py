"""InternalGrpcOrigin: the same fleet, records and target groups for service-to-service gRPC, no CloudFront."""

from __future__ import annotations

from collections.abc import Sequence

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks as eks
from aws_cdk import aws_route53 as route53
from constructs import Construct

from edge_origin.errors import ConstructLabel
from edge_origin.origin_fleet import OriginFleet
from edge_origin.origin_records import MultivalueOriginRecords, OriginAddress
from edge_origin.profile import ConnectionProfile
from edge_origin.profile_binding import apply_profile_checks, bind_fleet, whole_seconds


class InternalGrpcOrigin(Construct):
    """Internal NLBs with fixed private addresses behind multivalue records in a private zone.

    Route 53 health checkers cannot reach private addresses, so each record's health check is a
    CloudWatch-alarm check on its NLB's target group (``HealthyHostCount`` below 1 = unhealthy).
    In-VPC clients should resolve with ``dns:///`` and use ``round_robin`` over the answer (the
    connection profile renders that service config) so one channel spreads over every NLB.
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
        listener_port: int = 50051,
        target_port: int = 50051,
        service_port: int | None = None,
        namespace: str = "default",
        client_cidrs: Sequence[str] | None = None,
        connection_profile: ConnectionProfile | None = None,
        target_health_check_protocol: str = "TCP",
        target_health_check_port: int | None = None,
        target_health_check_path: str = "/healthz",
        record_ttl: cdk.Duration = cdk.Duration.seconds(30),
        private_ip_offset: int = 200,
        cluster: eks.ICluster | None = None,
    ) -> None:
        """
        :param zone: private hosted zone of ``origin_name``.
        :param origin_name: the name in-VPC clients dial, inside ``zone``.
        :param service_name: the Kubernetes Service of the gRPC pods.
        :param vpc: VPC with private subnets in >= 2 zones. Default: a new VPC.
        :param max_azs: zones of a new VPC (2..6). Default 3.
        :param nlb_count: internal NLBs (1..20). Default 2.
        :param listener_port: TCP listener port. Default 50051.
        :param target_port: pod port. Default 50051.
        :param service_port: Service port in the TargetGroupBinding. Default: ``target_port``.
        :param namespace: namespace of the Service. Default ``default``.
        :param client_cidrs: who may connect. Default: the VPC CIDR.
        :param connection_profile: source of the NLB idle timeout and the rendered gRPC settings
            (checked without CloudFront). Default: the ``internal-unary`` preset.
        :param target_health_check_protocol: NLB check of the pods: TCP (default), HTTP, HTTPS.
        :param target_health_check_port: pod health port. Default: ``target_port``.
        :param target_health_check_path: path of an HTTP(S) check. Default ``/healthz``.
        :param record_ttl: TTL of the records. Default 30 s.
        :param private_ip_offset: NLB ``i`` gets host ``offset + i`` of each subnet. Default 200.
        :param cluster: imported EKS cluster with a kubectl provider (bindings applied). Default: none.
        """
        super().__init__(scope, construct_id)
        self.profile = apply_profile_checks(
            ConstructLabel("InternalGrpcOrigin", self),
            connection_profile or ConnectionProfile.preset("internal-unary"),
            cloudfront=False,
        )
        self.fleet = OriginFleet(
            self,
            "Fleet",
            vpc=vpc,
            max_azs=max_azs,
            nlb_count=nlb_count,
            internet_facing=False,
            listener_port=listener_port,
            target_port=target_port,
            idle_timeout=whole_seconds(self.profile.nlb_idle_timeout_s),
            target_health_check_protocol=target_health_check_protocol,
            target_health_check_port=target_health_check_port or target_port,
            target_health_check_path=target_health_check_path,
            client_cidrs=client_cidrs,
            private_ip_offset=private_ip_offset,
        )
        region = cdk.Stack.of(self).region
        self.alarms: dict[str, cloudwatch.Alarm] = {}
        checks: dict[str, route53.HealthCheck] = {}
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
            checks[member.name] = route53.HealthCheck(
                self,
                f"{member.name}Health",
                type=route53.HealthCheckType.CLOUDWATCH_METRIC,
                alarm_identifier=route53.AlarmIdentifier(name=alarm.alarm_name, region=region),
                insufficient_data_health_status=route53.InsufficientDataHealthStatusEnum.LAST_KNOWN_STATUS,
            )
        addresses = self.fleet.addresses
        self.records = MultivalueOriginRecords(
            self,
            "Records",
            zone=zone,
            record_name=origin_name,
            addresses=[OriginAddress(a.ip_address, a.set_identifier) for a in addresses],
            ttl=record_ttl,
            health_checks=[checks[a.nlb_name] for a in addresses],
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
