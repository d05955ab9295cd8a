"""OriginFleet: N Network Load Balancers, one address per NLB per zone, TCP listeners, IP target groups."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_elasticloadbalancingv2 as elbv2
from aws_cdk import aws_s3 as s3
from constructs import Construct

from edge_origin import data as published
from edge_origin.cdk.quotas import AccountQuotas, QuotaLedger, account_quotas_from
from edge_origin.core.errors import (
    ConstructLabel,
    EdgeOriginPropError,
    PropCheck,
    check_props,
    each,
    is_token,
    require_bool,
    require_construct,
    require_int_range,
    require_one_of,
    require_path,
    require_port,
    require_seconds_range,
    require_str,
    require_str_list,
    require_tags,
    suggest_props,
)
from edge_origin.core.facts import value as fact_value
from edge_origin.model import ROUTE53_PREFIX_LIST_METADATA_KEY
from edge_origin.model.nlb_capacity import (  # noqa: F401 - LCU_MBPS stays importable from here
    CAPACITY_TLS_REASON,
    CAPACITY_UNITS_PER_ZONE_RANGE,
    LCU_MBPS,
)

NLB_IDLE_TIMEOUT_RANGE = (60, 6000)
"""``tcp.idle_timeout.seconds`` of an NLB TCP listener (AWS and CDK: 60..6000 s, default 350 s)."""
DEREGISTRATION_DELAY_RANGE = (0, 3600)
DEFAULT_IDLE_TIMEOUT_S = 350  # explicit, and no more than the targets' connection tracking (350 s on Nitro v6, 432,000 s others)
TLS_IDLE_TIMEOUT_S = 350
"""AWS fixes a TLS listener's idle timeout at 350 s; it cannot be set."""
TARGET_HEALTH_PROTOCOLS = ("HTTP", "HTTPS", "TCP")
LISTENER_PROTOCOLS = ("TCP", "TLS")
EIP_REMOVAL_POLICIES = (cdk.RemovalPolicy.RETAIN, cdk.RemovalPolicy.DESTROY, cdk.RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)
EXPORT_PREFIX_PATTERN = r"[A-Za-z][A-Za-z0-9-]{0,99}"
NAME_PREFIX_PATTERN = r"[a-z0-9][a-z0-9-]{0,40}"
HEALTH_PATH_MAX = 1024
MAX_SECURITY_GROUPS_PER_NLB = 5
PREFIX_LIST_MAPPING_ID = "EdgeOriginCloudFrontOriginFacing"


UNHEALTHY_TERMINATION = "target_health_state.unhealthy.connection_termination.enabled"
"""Set false on every target group (the facts table: ``elbv2.tg.unhealthy_connection_termination``, default true)."""


@dataclass(frozen=True)
class ZonalAddress:
    """One address of one NLB in one zone: what a multivalue record points at."""

    nlb_name: str
    zone: str
    """The zone's name (a token in an environment-agnostic stack)."""
    subnet: ec2.ISubnet
    ip_address: str
    """A literal IP (internal NLBs), the EIP's ``Ref`` token (internet-facing NLBs), or "" (VPC-origin
    NLBs: no address is published)."""
    eip: ec2.CfnEIP | None
    set_identifier: str
    """``<name_prefix>-nlb<i>-zone<k>``: k is the zone's 1-based position in the VPC's zone order."""
    zone_index: int = 0


@dataclass(frozen=True)
class FleetMember:
    """One NLB of the fleet and everything made for it."""

    name: str
    load_balancer: elbv2.NetworkLoadBalancer
    listener: elbv2.NetworkListener
    target_group: elbv2.NetworkTargetGroup
    security_groups: tuple[ec2.SecurityGroup, ...]
    addresses: tuple[ZonalAddress, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class _IngressRule:
    peer: ec2.IPeer
    port: int
    weight: int
    description: str


@suggest_props
class OriginFleet(Construct):
    """Network Load Balancers for long-lived gRPC connections, one address per NLB per zone.

    Internet-facing NLBs get one ``AWS::EC2::EIP`` per zone, attached through
    ``SubnetMappings`` so each NLB has stable, known addresses that Route 53 multivalue
    records can name one by one. Internal NLBs get fixed private addresses instead.

    Each NLB has a TCP listener (TLS terminates on the pods: a TLS listener's idle timeout is
    fixed at 350 s) with ``tcp_idle_timeout`` set explicitly, and its own IP target group with
    connection termination on deregistration. Its security groups admit, on the listener port,
    only CloudFront's origin-facing prefix list, and on the port Route 53 checks, the Route 53
    health checker ranges (without them every health check fails and Route 53 fails open).

    Names do not depend on whether the zone names are known at synth: NLB ``i`` in the ``k``-th
    zone of the VPC is ``Nlb<i>EipZone<k>`` (logical id) and ``<name_prefix>-nlb<i>-zone<k>``
    (set identifier, EIP Name tag), so adding an explicit ``env`` to an environment-agnostic
    stack with the same zones replaces nothing. Add zones at the end of the VPC's zone list.

    Stack outputs: each EIP's address and allocation id, each NLB's ARN and DNS name (export
    names ``<export_prefix>-<Nlb1>-...`` when ``export_prefix`` is set).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        vpc: ec2.IVpc | None = None,
        max_azs: int = 3,
        nlb_count: int = 2,
        internet_facing: bool = True,
        listener_port: int = 443,
        target_port: int = 8443,
        listener_protocol: str = "TCP",
        listener_certificate_arns: Sequence[str] | None = None,
        idle_timeout: cdk.Duration | int | None = None,
        cross_zone_enabled: bool = True,
        deregistration_delay: cdk.Duration | int = cdk.Duration.seconds(30),
        target_health_check_protocol: str = "HTTP",
        target_health_check_port: int = 8081,
        target_health_check_path: str = "/healthz",
        health_checked_port: int | None = None,
        cloudfront_prefix_list_id: str | None = None,
        route53_health_checker_cidrs: Sequence[str] | None = None,
        route53_health_checker_prefix_list_id: str | None = None,
        client_cidrs: Sequence[str] | None = None,
        private_ip_offset: int = 200,
        vpc_origin: bool = False,
        vpc_origin_security_group_id: str | None = None,
        rules_per_security_group: int = 60,
        name_prefix: str = "origin",
        tags: Mapping[str, str] | None = None,
        deletion_protection: bool = True,
        eip_removal_policy: cdk.RemovalPolicy = cdk.RemovalPolicy.RETAIN,
        access_logs_bucket: s3.IBucket | None = None,
        access_logs_prefix: str | None = None,
        export_prefix: str | None = None,
        account_quotas: AccountQuotas | Mapping[str, int] | None = None,
        capacity_units: int | None = None,
        expected_targets: int | None = None,
        unhealthy_connection_termination: bool = False,
    ) -> None:
        """
        :param vpc: VPC whose public subnets (private, for internal NLBs) hold the NLBs. Default: a
            new VPC with public and isolated subnets in ``max_azs`` zones, no NAT gateways.
        :param max_azs: zones of the new VPC (2..6). Default 3. Ignored when ``vpc`` is given.
        :param nlb_count: number of NLBs (1..20). Default 2.
        :param internet_facing: internet-facing NLBs with EIPs (True, default) or internal NLBs with
            fixed private addresses (False).
        :param listener_port: listener port (1..65535). Default 443.
        :param target_port: pod port the target group sends to (1..65535). Default 8443.
        :param listener_protocol: ``TCP`` (default: TLS on the pods, idle timeout settable) or
            ``TLS`` (the NLB terminates TLS with ``listener_certificate_arns``; AWS fixes the idle
            timeout at 350 s, so ``idle_timeout`` must stay unset).
        :param listener_certificate_arns: ACM certificate ARNs of a TLS listener (required for TLS,
            refused for TCP). Default: none.
        :param idle_timeout: TCP listener ``tcp.idle_timeout.seconds`` (60..6000 s). Default 350 s,
            set explicitly: above the targets' connection tracking (``TcpEstablishedTimeout``: by default
            350 s on Nitro v6 instance types, 432,000 s on the others) idle flows are dropped silently
            (EO-NLB1). An error with a TLS listener.
        :param cross_zone_enabled: cross-zone load balancing. Default True.
        :param deregistration_delay: target group deregistration delay (0..3600 s). Default 30 s.
        :param target_health_check_protocol: the target group's check of the pods: HTTP, HTTPS or
            TCP. Default HTTP.
        :param target_health_check_port: pod port of that check. Default 8081.
        :param target_health_check_path: path for HTTP(S) checks (starts with ``/``, <= 1024
            chars). Default ``/healthz``.
        :param health_checked_port: the NLB port Route 53 health checks connect to. Default: the
            listener port.
        :param cloudfront_prefix_list_id: id of ``com.amazonaws.global.cloudfront.origin-facing``.
            Default: the shipped per-region table (a CfnMapping when the region is a token).
        :param route53_health_checker_cidrs: Route 53 health checker IPv4 ranges. Default: the
            shipped ``ROUTE53_HEALTHCHECKS`` ranges (see ``edge_origin/data``).
        :param route53_health_checker_prefix_list_id: the id of the AWS-managed prefix list
            ``com.amazonaws.<region>.route53-healthchecks`` (``aws ec2 describe-managed-prefix-lists``): the
            checkers are admitted by it (one rule of weight 25, kept current by AWS) instead of the shipped
            ranges. Not with ``route53_health_checker_cidrs``. Default: none (the shipped ranges).
        :param client_cidrs: internal NLBs only: who may connect. Default: the VPC CIDR.
        :param private_ip_offset: internal NLBs only: host offset of NLB ``i``'s address in each
            subnet is ``private_ip_offset + i`` (4..250). Default 200.
        :param vpc_origin: internal NLBs for a CloudFront VPC origin (requires ``internet_facing=False``
            and a TCP listener: CloudFront refuses NLBs with TLS listeners as VPC origins): no fixed
            addresses, and the security groups admit, on the listener port, only CloudFront's VPC
            origin service (the origin-facing prefix list, or ``vpc_origin_security_group_id``).
            Default False.
        :param vpc_origin_security_group_id: with ``vpc_origin``: admit this security group (the
            ``CloudFront-VPCOrigins-Service-SG`` VPC origins create in the VPC; CloudFormation cannot
            read its id, so it is known only after a first deploy) instead of the prefix list.
            Default: the prefix list.
        :param rules_per_security_group: inbound-rule quota per security group, the prefix list
            counting as its weight (max entries). Default 60 (the AWS default quota).
        :param name_prefix: prefix of the set identifiers and Name tags (``<prefix>-nlb1-zone1``;
            1..41 of a-z 0-9 -). Default ``origin``.
        :param tags: tags for everything the fleet makes (NLBs, target groups, EIPs, security
            groups); each NLB, target group and EIP gets its own Name tag (a ``Name`` here is
            not used). Default: none.
        :param deletion_protection: NLB deletion protection. Default True, as in the patterns (an origin NLB
            deleted by accident takes its EIPs' traffic with it; ``cdk destroy`` needs False first).
        :param eip_removal_policy: what a stack delete or replacement does to the EIPs: RETAIN
            (default: a released address is gone for good), DESTROY or RETAIN_ON_UPDATE_OR_DELETE.
        :param access_logs_bucket: S3 bucket for NLB access logs (the stack needs a concrete
            region). NLBs write access logs for TLS listeners only: with TCP a warning says so.
            Default: no access logs.
        :param access_logs_prefix: key prefix of the access logs. Default: none.
        :param export_prefix: export the outputs as ``<prefix>-<Nlb1>-<Output>`` (a letter, then
            letters, digits, '-'; <= 100). Default: outputs without exports.
        :param account_quotas: the account's real quotas (``AccountQuotas`` or a mapping), so
            raised quotas give no warning. Default: the AWS defaults (or cdk.json context
            ``edge-origin:accountQuotas``).
        :param expected_targets: the most pods (targets) one NLB's target group holds, a rollout's surge
            included (1..100000). With cross-zone load balancing on an NLB takes at most 500 targets (per zone
            without it, 3,000 in all; the facts table's ``elbv2.nlb.targets_per_zone``, ``elbv2.nlb.targets_max``): above, a warning (raise the
            quota, or more NLBs with ``nlb_count``). Default: not stated (not judged).
        :param unhealthy_connection_termination: the target groups'
            ``target_health_state.unhealthy.connection_termination.enabled``. Default False, written explicitly:
            AWS's default (unset) is true, and then the NLB resets every connection to a pod whose health check
            fails once, every gRPC stream pinned to it (EO-NLB3); zonal shift on a cross-zone NLB requires false
            (EO-NLB4). True keeps AWS's behaviour (EO-NLB3 warns).
        :param capacity_units: LCUs reserved on each NLB (``MinimumLoadBalancerCapacity.CapacityUnits``),
            for a burst from zero: ELB spreads them evenly over the NLB's zones, and each zone's
            share must be 2750..45000 (so 5500..90000 with 2 zones; a warning when the total does
            not divide evenly). 1 LCU is 2.2 Mbps of throughput. Refused with a TLS listener
            (capacity reservations are not supported on NLBs using TLS listeners). AWS fulfils a
            reservation typically within an hour, up to a few hours, and allows at most two
            decreases a day: check it with ``edge-origin ready`` before the event. Default: no
            reservation.
        """
        props = {k: v for k, v in locals().items() if k not in ("self", "scope", "construct_id", "__class__")}
        super().__init__(scope, construct_id)
        where = ConstructLabel("OriginFleet", self)
        checked = check_props(where, FLEET_PROP_CHECKS, props)  # every prop, in order, before anything is made
        self.idle_timeout_seconds = checked["idle_timeout"]
        dereg = checked["deregistration_delay"]
        self.deregistration_delay_seconds: int = dereg
        """The target groups' deregistration delay (the rollout plan holds it against the pods' preStop + grace)."""
        self.health_checked_port = checked["health_checked_port"]
        certificate_arns = checked["listener_certificate_arns"]
        self.vpc_origin = vpc_origin
        self._vpc_origin_sg = vpc_origin_security_group_id
        self.tags = checked["tags"]
        quotas = checked["account_quotas"]

        stack = cdk.Stack.of(self)
        self._region = stack.region
        self.vpc = vpc = vpc if vpc is not None else self._new_vpc(max_azs)
        self._ports: dict[int, ec2.Port] = {}
        self.vpc_cidr_block = _vpc_cidr(where, vpc)
        self._vpc_peer = ec2.Peer.ipv4(self.vpc_cidr_block)
        self.internet_facing = internet_facing
        self.listener_port = listener_port
        self.target_port = target_port
        self.listener_protocol = listener_protocol
        self.target_health_check_port = target_health_check_port
        self.name_prefix = name_prefix
        self.export_prefix = export_prefix
        self.subnets: list[ec2.ISubnet] = _one_subnet_per_zone(where, vpc, internet_facing)
        self._zones = [subnet.availability_zone for subnet in self.subnets]
        self.capacity_units = capacity_units
        self._warn_target_cap(expected_targets, cross_zone_enabled)
        self.unhealthy_connection_termination: bool = unhealthy_connection_termination
        """What the target groups write for ``target_health_state.unhealthy.connection_termination.enabled``."""
        """LCUs reserved on each NLB, or None (no reservation)."""
        self.capacity_units_per_zone = _capacity_per_zone(self, where, capacity_units, len(self.subnets))
        """Each zone's share of ``capacity_units`` (ELB spreads a reservation evenly), or None."""
        packed = _security_groups_of(where, self._ingress_rules(
            where, internet_facing, cloudfront_prefix_list_id, route53_health_checker_cidrs, client_cidrs,
            route53_health_checker_prefix_list_id,
        ), rules_per_security_group)
        health_check = _target_health_check(target_health_check_protocol, target_health_check_port, target_health_check_path)
        idle = cdk.Duration.seconds(self.idle_timeout_seconds) if listener_protocol == "TCP" else None
        delay = cdk.Duration.seconds(dereg)
        self.members: list[FleetMember] = [
            self._make_member(
                index=i,
                packed_rules=packed,
                idle_timeout=idle,
                certificate_arns=certificate_arns,
                cross_zone_enabled=cross_zone_enabled,
                deregistration_delay=delay,
                health_check=health_check,
                private_ip_offset=private_ip_offset,
                deletion_protection=deletion_protection,
                eip_removal_policy=eip_removal_policy,
                access_logs=(access_logs_bucket, access_logs_prefix) if access_logs_bucket is not None else None,
            )
            for i in range(nlb_count)
        ]
        self._tag_and_warn(access_logs_bucket is not None and listener_protocol == "TCP")
        QuotaLedger.of(self, stack).track(
            self,
            where,
            {
                "network_load_balancers": nlb_count,
                "elastic_ips": nlb_count * len(self.subnets) if internet_facing else 0,
            },
            declared=quotas,
            stack=stack,
        )

    # -- the construct steps of __init__ -------------------------------------------------------
    def _new_vpc(self, max_azs: int) -> ec2.Vpc:
        """A VPC of ``max_azs`` zones: public subnets for the NLBs, isolated ones for the pods, no NAT."""
        return ec2.Vpc(
            self,
            "Vpc",
            max_azs=max_azs,
            nat_gateways=0,
            subnet_configuration=[
                ec2.SubnetConfiguration(name="Public", subnet_type=ec2.SubnetType.PUBLIC, cidr_mask=24),
                ec2.SubnetConfiguration(name="Pods", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED, cidr_mask=20),
            ],
        )

    def _tag_and_warn(self, tcp_access_logs: bool) -> None:
        """The user's tags on every resource (not ``Name``: each NLB, target group and EIP is named;
        the rest stay unnamed), and a warning for access logs no TCP listener writes."""
        for key, value in self.tags.items():
            if key != "Name":
                cdk.Tags.of(self).add(key, value)
        if tcp_access_logs:
            cdk.Annotations.of(self).add_warning_v2(
                "edge-origin:nlb-access-logs-tcp",
                "access_logs_bucket is set, but NLBs write access logs only for TLS listeners: these TCP "
                "listeners log nothing there. Use VPC flow logs for connection records.",
            )

    # -- public views -------------------------------------------------------------------------
    @property
    def addresses(self) -> list[ZonalAddress]:
        """Every address of every NLB, in NLB then zone order."""
        return [a for m in self.members for a in m.addresses]

    @property
    def load_balancers(self) -> list[elbv2.NetworkLoadBalancer]:
        return [m.load_balancer for m in self.members]

    @property
    def target_groups(self) -> list[elbv2.NetworkTargetGroup]:
        return [m.target_group for m in self.members]

    @property
    def listeners(self) -> list[elbv2.NetworkListener]:
        return [m.listener for m in self.members]

    def _warn_target_cap(self, expected: int | None, cross_zone: bool) -> None:
        """More targets than an NLB takes: 500 with cross-zone on, 500 a zone and 3,000 in all without (ELB quotas)."""
        cap, most = fact_value("elbv2.nlb.targets_per_zone"), fact_value("elbv2.nlb.targets_max")
        zones = max(1, len(self._zones))
        if expected is None or expected <= (cap if cross_zone else min(cap * zones, most)):
            return
        where = ("an NLB with cross-zone load balancing on" if cross_zone
                 else f"an NLB over {zones} zones without cross-zone load balancing ({cap} a zone, {most} in all)")
        cdk.Annotations.of(self).add_warning_v2(
            "edge-origin:targets-per-nlb",
            f"expected_targets {expected}: {where} takes at most {cap if cross_zone else min(cap * zones, most)} "
            "targets (ELB quota 'Targets per Availability Zone per Network Load Balancer', load-balancer-limits.html; "
            "adjustable): the controller cannot register the rest. Raise the quota, or spread the pods over more "
            "NLBs (nlb_count) with a Service each.",
        )

    # -- construction ---------------------------------------------------------------------------
    def _ingress_rules(
        self,
        where: str,
        internet_facing: bool,
        prefix_list_id: str | None,
        r53_cidrs: Sequence[str] | None,
        client_cidrs: Sequence[str] | None,
        r53_prefix_list: str | None = None,
    ) -> list[_IngressRule]:
        if self.vpc_origin:
            if client_cidrs is not None:
                raise EdgeOriginPropError(where, "client_cidrs", list(client_cidrs), "unset with vpc_origin=True (only CloudFront)")
            if self._vpc_origin_sg is not None:
                peer = ec2.Peer.security_group_id(self._vpc_origin_sg)
                return [_IngressRule(peer, self.listener_port, 1, "CloudFront VPC origin service")]
            return [
                _IngressRule(
                    ec2.Peer.prefix_list(self._prefix_list_id(where, prefix_list_id)), self.listener_port,
                    self._prefix_list_weight(), "CloudFront origin-facing (VPC origin)",
                )
            ]
        if not internet_facing:
            cidrs = list(client_cidrs) if client_cidrs is not None else [self.vpc_cidr_block]
            for cidr in cidrs:
                _require_cidr(where, "client_cidrs", cidr)
            return [_IngressRule(ec2.Peer.ipv4(c), self.listener_port, 1, "gRPC clients") for c in cidrs]
        if client_cidrs is not None:
            raise EdgeOriginPropError(where, "client_cidrs", list(client_cidrs), "only with internet_facing=False")
        if r53_prefix_list is not None:
            if r53_cidrs is not None:
                raise EdgeOriginPropError(where, "route53_health_checker_prefix_list_id", r53_prefix_list,
                                          "unset when route53_health_checker_cidrs is given (one way to admit the checkers)")
            return [
                _IngressRule(ec2.Peer.prefix_list(self._prefix_list_id(where, prefix_list_id)), self.listener_port,
                             self._prefix_list_weight(), "CloudFront origin-facing"),
                _IngressRule(ec2.Peer.prefix_list(r53_prefix_list), self.health_checked_port,
                             fact_value("route53.health.checker_prefix_list_weight"), "Route 53 health checkers (managed prefix list)"),
            ]
        cidrs = list(r53_cidrs) if r53_cidrs is not None else published.route53_health_checker_cidrs()
        if not cidrs:
            raise EdgeOriginPropError(where, "route53_health_checker_cidrs", cidrs, "at least one CIDR")
        for cidr in cidrs:
            _require_cidr(where, "route53_health_checker_cidrs", cidr)
        rules = [
            _IngressRule(
                ec2.Peer.prefix_list(self._prefix_list_id(where, prefix_list_id)),
                self.listener_port,
                self._prefix_list_weight(),
                "CloudFront origin-facing",
            )
        ]
        rules += [
            _IngressRule(ec2.Peer.ipv4(c), self.health_checked_port, 1, "Route 53 health checkers") for c in cidrs
        ]
        return rules

    def _prefix_list_id(self, where: str, given: str | None) -> str:
        if given is not None:
            return given
        table = {region: entry["id"] for region, entry in published.cloudfront_origin_facing_prefix_lists().items()}
        stack = cdk.Stack.of(self)
        if not is_token(self._region):
            if self._region not in table:
                raise EdgeOriginPropError(
                    where,
                    "cloudfront_prefix_list_id",
                    None,
                    f"an explicit id: region {self._region} is not in the shipped table ({', '.join(sorted(table))})",
                )
            return table[self._region]
        mapping = stack.node.try_find_child(PREFIX_LIST_MAPPING_ID)
        if mapping is None:
            mapping = cdk.CfnMapping(
                stack, PREFIX_LIST_MAPPING_ID, mapping={r: {"PrefixListId": pl} for r, pl in sorted(table.items())}
            )
        return mapping.find_in_map(cdk.Aws.REGION, "PrefixListId")

    def _port(self, port: int) -> ec2.Port:
        """One ``ec2.Port`` per port number (each is a jsii object: build it once)."""
        if port not in self._ports:
            self._ports[port] = ec2.Port.tcp(port)
        return self._ports[port]

    def _prefix_list_weight(self) -> int:
        """Rule slots the prefix list takes: its region's max entries, or the largest known."""
        table = published.cloudfront_origin_facing_prefix_lists()
        if not is_token(self._region) and self._region in table:
            return int(table[self._region]["weight"])
        return max(int(entry["weight"]) for entry in table.values())

    def _make_member(
        self,
        *,
        index: int,
        packed_rules: list[list[_IngressRule]],
        idle_timeout: cdk.Duration | None,
        certificate_arns: list[str],
        cross_zone_enabled: bool,
        deregistration_delay: cdk.Duration,
        health_check: elbv2.HealthCheck,
        private_ip_offset: int,
        deletion_protection: bool,
        eip_removal_policy: cdk.RemovalPolicy,
        access_logs: tuple[s3.IBucket, str | None] | None,
    ) -> FleetMember:
        name = f"Nlb{index + 1}"
        label = f"{self.name_prefix}-{name.lower()}"
        groups = []
        for k, rules in enumerate(packed_rules, start=1):
            sg = ec2.SecurityGroup(
                self,
                f"{name}SecurityGroup{k}",
                vpc=self.vpc,
                allow_all_outbound=False,
                description=f"edge-origin {name} ingress {k}/{len(packed_rules)}",
            )
            for rule in rules:
                sg.add_ingress_rule(rule.peer, self._port(rule.port), rule.description)
                if rule.description.endswith("(managed prefix list)"):  # EO-SG1 reads which list it is
                    sg.node.default_child.add_metadata(ROUTE53_PREFIX_LIST_METADATA_KEY, rule.peer.unique_id)
            for port in sorted({self.target_port, self.target_health_check_port}):
                sg.add_egress_rule(self._vpc_peer, self._port(port), "to pods")
            groups.append(sg)

        addresses: list[ZonalAddress] = []
        mappings: list[elbv2.SubnetMapping] = []
        for zone_index, (subnet, zone) in enumerate(zip(self.subnets, self._zones, strict=True)):
            zone_label = f"zone{zone_index + 1}"
            set_id = f"{label}-{zone_label}"
            if self.internet_facing:
                eip = ec2.CfnEIP(
                    self, f"{name}EipZone{zone_index + 1}", domain="vpc",
                    tags=[cdk.CfnTag(key="Name", value=set_id)],
                )
                eip.apply_removal_policy(eip_removal_policy)
                allocation_id = eip.attr_allocation_id
                address = eip.ref
                mappings.append(elbv2.SubnetMapping(subnet=subnet, allocation_id=allocation_id))
                addresses.append(ZonalAddress(name, zone, subnet, address, eip, set_id, zone_index))
                self._output(f"{name}EipZone{zone_index + 1}Address", address, f"Elastic IP of {set_id}")
                self._output(f"{name}EipZone{zone_index + 1}AllocationId", allocation_id, f"allocation id of {set_id}")
            elif self.vpc_origin:  # no published address: CloudFront reaches the NLB through the VPC origin
                mappings.append(elbv2.SubnetMapping(subnet=subnet))
                addresses.append(ZonalAddress(name, zone, subnet, "", None, set_id, zone_index))
            else:
                ip = _host_in(subnet, private_ip_offset + index, self.node.path)
                mappings.append(elbv2.SubnetMapping(subnet=subnet, private_ipv4_address=ip))
                addresses.append(ZonalAddress(name, zone, subnet, ip, None, set_id, zone_index))

        nlb = elbv2.NetworkLoadBalancer(
            self,
            name,
            vpc=self.vpc,
            internet_facing=self.internet_facing,
            subnet_mappings=mappings,
            cross_zone_enabled=cross_zone_enabled,
            security_groups=groups,
            deletion_protection=deletion_protection or None,
            minimum_capacity_unit=self.capacity_units,  # MinimumLoadBalancerCapacity.CapacityUnits
        )
        if access_logs is not None:
            if is_token(self._region):
                raise EdgeOriginPropError(
                    ConstructLabel("OriginFleet", self), "access_logs_bucket", "set in an environment-agnostic stack",
                    "a stack with a concrete region (env=...): NLB access logs need the region's ELB account",
                )
            nlb.log_access_logs(access_logs[0], access_logs[1])
        target_group = elbv2.NetworkTargetGroup(
            self,
            f"{name}Targets",
            vpc=self.vpc,
            port=self.target_port,
            protocol=elbv2.Protocol.TCP,
            target_type=elbv2.TargetType.IP,
            connection_termination=True,
            deregistration_delay=deregistration_delay,
            health_check=health_check,
        )
        # An NLB resets every connection to a target that turns unhealthy unless told not to (API default true):
        # one failed pod health check would end every gRPC stream pinned to that pod. Off here; the pods' own
        # draining (max connection age, preStop) ends them; zonal shift on a cross-zone NLB requires it off too.
        target_group.set_attribute(UNHEALTHY_TERMINATION, "true" if self.unhealthy_connection_termination else "false")
        cdk.Tags.of(nlb).add("Name", label)
        cdk.Tags.of(target_group).add("Name", f"{label}-targets")
        if idle_timeout is not None:
            listener = nlb.add_listener(
                "Tcp",
                port=self.listener_port,
                protocol=elbv2.Protocol.TCP,
                tcp_idle_timeout=idle_timeout,
                default_target_groups=[target_group],
            )
        else:
            listener = nlb.add_listener(
                "Tls",
                port=self.listener_port,
                protocol=elbv2.Protocol.TLS,
                certificates=[elbv2.ListenerCertificate.from_arn(arn) for arn in certificate_arns],
                ssl_policy=elbv2.SslPolicy.RECOMMENDED_TLS,
                alpn_policy=elbv2.AlpnPolicy.HTTP2_PREFERRED,
                default_target_groups=[target_group],
            )
        self._output(f"{name}Arn", nlb.load_balancer_arn, f"ARN of {label}")
        self._output(f"{name}DnsName", nlb.load_balancer_dns_name, f"DNS name of {label}")
        return FleetMember(name, nlb, listener, target_group, tuple(groups), tuple(addresses))

    def _output(self, output_id: str, value: str, description: str) -> cdk.CfnOutput:
        export = f"{self.export_prefix}-{output_id}" if self.export_prefix else None
        return cdk.CfnOutput(self, output_id, value=value, description=description, export_name=export)


def _shown(value: object) -> object:
    if isinstance(value, cdk.Duration):
        return value.to_string()
    return value


def require_capacity_units(where: ConstructLabel, units: object, listener_protocol: str) -> None:
    """``capacity_units``: None, or a positive whole number of LCUs on an NLB without a TLS listener."""
    if units is None:
        return
    low, high = CAPACITY_UNITS_PER_ZONE_RANGE
    if isinstance(units, bool) or not isinstance(units, int) or is_token(units) or units < 1:
        raise EdgeOriginPropError(
            where, "capacity_units", units, f"an integer number of LCUs, {low}..{high} per zone (aws-cdk-lib's range), or None",
        )
    if listener_protocol == "TLS":
        raise EdgeOriginPropError(
            where, "capacity_units", units, f"unset with listener_protocol='TLS' ({CAPACITY_TLS_REASON}); use a TCP listener",
        )


def _capacity_per_zone(fleet: Construct, where: ConstructLabel, units: int | None, zones: int) -> float | None:
    """Each zone's share of the reservation; an error outside 2750..45000 a zone, a warning when uneven."""
    if units is None:
        return None
    low, high = CAPACITY_UNITS_PER_ZONE_RANGE
    share = units / zones
    if not low <= share <= high:
        raise EdgeOriginPropError(
            where, "capacity_units", units,
            f"{low * zones}..{high * zones} with {zones} zones (ELB spreads a reservation evenly over the "
            f"NLB's zones; each zone's share must be {low}..{high}: aws-cdk-lib's NetworkLoadBalancer range, which "
            "it enforces; AWS states none)",
        )
    if units % zones:
        cdk.Annotations.of(fleet).add_warning_v2(
            "edge-origin:capacity-units-uneven",
            f"capacity_units={units} does not divide evenly over {zones} zones ({share:.2f} LCUs a zone): ELB "
            f"spreads a reservation evenly across zones, so reserve a multiple of {zones} "
            f"(e.g. {units - units % zones} or {units - units % zones + zones}) to know each zone's share.",
        )
    return share


def _certificate_arns(where: ConstructLabel, protocol: str, arns: Sequence[str] | None) -> list[str]:
    if protocol == "TCP":
        if arns is not None:
            raise EdgeOriginPropError(where, "listener_certificate_arns", arns, "only with listener_protocol='TLS'")
        return []
    if arns is None:
        raise EdgeOriginPropError(where, "listener_certificate_arns", None, "ACM certificate ARNs for a TLS listener")
    items = require_str_list(where, "listener_certificate_arns", arns, allow_empty=False)
    for arn in items:
        if not is_token(arn) and not re.fullmatch(r"arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate/[A-Za-z0-9-]+", arn):
            raise EdgeOriginPropError(where, "listener_certificate_arns", arn, "ACM certificate ARNs (arn:aws:acm:...)")
    return items


def _vpc_cidr(where: ConstructLabel, vpc: ec2.IVpc) -> str:
    try:
        return vpc.vpc_cidr_block
    except Exception as exc:  # noqa: BLE001 - jsii: CannotPerformOperationVpcCidr
        raise EdgeOriginPropError(
            where, "vpc", "an imported VPC without vpc_cidr_block",
            "a VPC whose CIDR is known: pass vpc_cidr_block to Vpc.from_vpc_attributes (the NLB security "
            "groups reach the pods by it)",
        ) from exc


def _pack_rules(rules: list[_IngressRule], capacity: int) -> list[list[_IngressRule]]:
    """First-fit of rules into security groups of ``capacity`` rule slots each, in order."""
    groups: list[list[_IngressRule]] = []
    loads: list[int] = []
    for rule in rules:
        if rule.weight > capacity:
            raise EdgeOriginPropError(
                "OriginFleet", "rules_per_security_group", capacity, f">= {rule.weight} ({rule.description} weight)"
            )
        for i, load in enumerate(loads):
            if load + rule.weight <= capacity:
                groups[i].append(rule)
                loads[i] += rule.weight
                break
        else:
            groups.append([rule])
            loads.append(rule.weight)
    return groups


def _require_cidr(where: str, prop: str, cidr: str) -> None:
    if is_token(cidr):
        return
    try:
        ipaddress.IPv4Network(cidr)
    except ValueError as exc:
        raise EdgeOriginPropError(where, prop, cidr, "IPv4 CIDRs like 203.0.113.0/24") from exc


def _host_in(subnet: ec2.ISubnet, offset: int, where: str) -> str:
    cidr = subnet.ipv4_cidr_block
    if is_token(cidr):
        raise EdgeOriginPropError(
            f"OriginFleet {where}", "vpc", "subnets with unknown CIDRs", "a VPC whose subnet CIDRs are known at synth"
        )
    network = ipaddress.IPv4Network(cidr)
    if offset >= network.num_addresses - 1:
        raise EdgeOriginPropError(f"OriginFleet {where}", "private_ip_offset", offset, f"< {network.num_addresses - 1} for {cidr}")
    return str(network.network_address + offset)


def _one_subnet_per_zone(where: ConstructLabel, vpc: ec2.IVpc, internet_facing: bool) -> list[ec2.ISubnet]:
    """The NLBs' subnets: public ones for internet-facing NLBs, else private (or isolated); one a
    zone, at least two zones."""
    candidates = vpc.public_subnets if internet_facing else (vpc.private_subnets or vpc.isolated_subnets)
    selection = vpc.select_subnets(subnets=candidates, one_per_az=True) if candidates else None
    subnets = list(selection.subnets) if selection else []
    if len(subnets) < 2:
        kind = "public" if internet_facing else "private"
        raise EdgeOriginPropError(where, "vpc", f"{len(subnets)} zone(s) with {kind} subnets", "at least 2 zones")
    return subnets


def _security_groups_of(where: ConstructLabel, ingress: list[_IngressRule], per_group: int) -> list[list[_IngressRule]]:
    """The ingress rules packed into security groups of ``per_group`` rule slots, at most
    ``MAX_SECURITY_GROUPS_PER_NLB`` of them."""
    packed = _pack_rules(ingress, per_group)
    if len(packed) > MAX_SECURITY_GROUPS_PER_NLB:
        raise EdgeOriginPropError(
            where,
            "rules_per_security_group",
            per_group,
            f"a quota that fits the {sum(r.weight for r in ingress)} rule slots into "
            f"{MAX_SECURITY_GROUPS_PER_NLB} security groups",
        )
    return packed


def _target_health_check(protocol: str, port: int, path: str) -> elbv2.HealthCheck:
    """The target groups' check of the pods: every 10 s, 3 to turn either way; a path unless TCP."""
    return elbv2.HealthCheck(
        protocol=elbv2.Protocol(protocol),
        port=str(port),
        path=path if protocol != "TCP" else None,
        interval=cdk.Duration.seconds(10),
        healthy_threshold_count=3,
        unhealthy_threshold_count=3,
    )


# --- the props, validation as data ----------------------------------------------------------------
def _idle_timeout(where: ConstructLabel, prop: str, props: Mapping[str, Any]) -> int:
    """The NLB idle timeout in seconds: AWS fixes a TLS listener's; a TCP listener's is the prop's."""
    if props["listener_protocol"] == "TLS":
        if props[prop] is not None:
            raise EdgeOriginPropError(
                where, prop, _shown(props[prop]),
                f"unset with listener_protocol='TLS' (AWS fixes a TLS listener's idle timeout at "
                f"{TLS_IDLE_TIMEOUT_S} s); use a TCP listener with TLS on the pods to set it",
            )
        return TLS_IDLE_TIMEOUT_S
    value = DEFAULT_IDLE_TIMEOUT_S if props[prop] is None else props[prop]
    return require_seconds_range(where, prop, value, *NLB_IDLE_TIMEOUT_RANGE)


def _vpc_origin(where: ConstructLabel, prop: str, props: Mapping[str, Any]) -> bool:
    """``vpc_origin`` and what it constrains: an internal NLB, TCP listeners, its security group id."""
    vpc_origin = require_bool(where, prop, props[prop])
    if vpc_origin and props["internet_facing"]:
        raise EdgeOriginPropError(where, "internet_facing", props["internet_facing"], "False with vpc_origin=True (an internal NLB)")
    if vpc_origin and props["listener_protocol"] != "TCP":
        raise EdgeOriginPropError(
            where, "listener_protocol", props["listener_protocol"],
            "'TCP' with vpc_origin=True (NLBs with TLS listeners can't be VPC origins)",
        )
    sg = props["vpc_origin_security_group_id"]
    if sg is not None:
        if not vpc_origin:
            raise EdgeOriginPropError(where, "vpc_origin_security_group_id", sg, "only with vpc_origin=True")
        require_str(where, "vpc_origin_security_group_id", sg, r"sg-[0-9a-f]{8,17}",
                    "a security group id sg-xxxxxxxx (CloudFront-VPCOrigins-Service-SG)")
    return vpc_origin


def _eip_removal_policy(where: ConstructLabel, prop: str, props: Mapping[str, Any]) -> cdk.RemovalPolicy:
    policy = props[prop]
    if not isinstance(policy, cdk.RemovalPolicy) or policy not in EIP_REMOVAL_POLICIES:
        raise EdgeOriginPropError(where, prop, policy, "RemovalPolicy.RETAIN, DESTROY or RETAIN_ON_UPDATE_OR_DELETE")
    return policy


def _access_logs_prefix(where: ConstructLabel, prop: str, props: Mapping[str, Any]) -> str | None:
    prefix = props[prop]
    if prefix is not None:
        require_str(where, prop, prefix, r"[A-Za-z0-9!_.*'()/-]{1,200}", "1..200 of letters, digits and !_.*'()/- (no AWSLogs)")
        if props["access_logs_bucket"] is None:
            raise EdgeOriginPropError(where, prop, prefix, "only with access_logs_bucket")
    return prefix


#: ``OriginFleet``'s props, checked in this order (the first bad one is reported); a row's answer
#: is the value the fleet uses.
FLEET_PROP_CHECKS: tuple[PropCheck, ...] = (
    ("vpc", each(require_construct, ec2.IVpc, "an ec2.IVpc (Vpc or Vpc.from_vpc_attributes)", skip_none=True)),
    ("max_azs", each(require_int_range, 2, 6)),
    ("nlb_count", each(require_int_range, 1, 20)),
    ("internet_facing", each(require_bool)),
    ("listener_port", each(require_port)),
    ("target_port", each(require_port)),
    ("listener_protocol", each(require_one_of, LISTENER_PROTOCOLS)),
    ("listener_certificate_arns", lambda where, prop, p: _certificate_arns(where, p["listener_protocol"], p[prop])),
    ("idle_timeout", _idle_timeout),
    ("cross_zone_enabled", each(require_bool)),
    ("deregistration_delay", each(require_seconds_range, *DEREGISTRATION_DELAY_RANGE)),
    ("target_health_check_protocol", each(require_one_of, TARGET_HEALTH_PROTOCOLS)),
    ("target_health_check_port", each(require_port)),
    ("target_health_check_path", each(require_path, HEALTH_PATH_MAX)),
    ("health_checked_port",
     lambda where, prop, p: require_port(where, prop, p["listener_port"] if p[prop] is None else p[prop])),
    ("cloudfront_prefix_list_id",
     each(require_str, r"pl-[0-9a-f]{8,17}", "a prefix list id pl-xxxxxxxx", skip_none=True)),
    ("route53_health_checker_cidrs", each(require_str_list, skip_none=True)),
    ("route53_health_checker_prefix_list_id",
     each(require_str, r"pl-[0-9a-f]{8,17}", "a prefix list id pl-xxxxxxxx", skip_none=True)),
    ("client_cidrs", each(require_str_list, allow_empty=False, skip_none=True)),
    ("private_ip_offset", each(require_int_range, 4, 250)),
    ("vpc_origin", _vpc_origin),
    ("rules_per_security_group", each(require_int_range, 1, 1000)),
    ("name_prefix", each(require_str, NAME_PREFIX_PATTERN, "1..41 of a-z, 0-9, '-'")),
    ("tags", lambda where, prop, p: require_tags(where, prop, p[prop]) if p[prop] is not None else {}),
    ("deletion_protection", each(require_bool)),
    ("eip_removal_policy", _eip_removal_policy),
    ("access_logs_bucket", each(require_construct, s3.IBucket, "an s3.IBucket")),
    ("access_logs_prefix", _access_logs_prefix),
    ("export_prefix",
     each(require_str, EXPORT_PREFIX_PATTERN, "a letter, then letters, digits or '-' (<= 100 chars)", skip_none=True)),
    ("account_quotas", lambda where, prop, p: account_quotas_from(where, prop, p[prop])),
    ("capacity_units", lambda where, prop, p: require_capacity_units(where, p[prop], p["listener_protocol"])),
    ("expected_targets", each(require_int_range, 1, 100_000, skip_none=True)),
    ("unhealthy_connection_termination", each(require_bool)),
)
