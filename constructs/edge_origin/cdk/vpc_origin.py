"""The VPC-origin topology (issue 31): CloudFront -> VPC origin -> internal NLB -> EKS pods.

``GrpcEdgeToOrigin(origin_access="vpc-origin")`` builds it from the same props as the public
path; the parts that do not apply are not made (no Elastic IPs, no public records, no Route 53
health checks), the ones that do (TargetGroupBindings, connection profile, OriginWatch, origin
verification) are the same code. What AWS documents and what it does not:

* ``VpcOriginConfig`` keepalive and read timeouts: 1..120 s, defaults 5 s and 30 s (CloudFront API
  reference; botocore 1.44.8 ``cloudfront`` ``VpcOriginConfig``; aws-cdk-lib 2.275's L1
  ``CfnDistribution.VpcOriginConfigProperty`` says the same). aws-cdk-lib's L2 ``VpcOrigin`` calls
  both adjustable quotas and checks only the minimum, so the range is checked here.
* An NLB as a VPC origin "must have a security group attached"; dual-stack NLBs and NLBs with TLS
  listeners "can't be added as origins" (CloudFront Developer Guide, Restrict access with VPC
  origins, as aws-cdk-lib's aws-cloudfront-origins README restates it). The fleet's NLBs are
  internal, IPv4, TCP listeners (TLS on the pods), with security groups.
* Who may connect: the guide and aws-cdk-lib document two ways: the managed prefix list
  ``com.amazonaws.global.cloudfront.origin-facing``, or the security group VPC origins create in
  the VPC, ``CloudFront-VPCOrigins-Service-SG``, whose id CloudFormation cannot read (aws-cdk-lib
  reads it with a custom resource after the distribution exists). The default is the prefix list;
  ``vpc_origin_security_group_id`` admits the service group instead (known after a first deploy).
* A distribution's gRPC behavior targets one origin, and a VPC origin names one load balancer;
  CloudFront origin groups fail over only GET, HEAD and OPTIONS. So the path has one NLB
  (``nlb_count=1``) spread over the zones; the spread over its zonal nodes is the NLB's DNS and
  cross-zone behaviour (not documented for CloudFront: rule EO-VPC3).
"""

from __future__ import annotations

from typing import Any

from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_elasticloadbalancingv2 as elbv2
from constructs import Construct

from edge_origin.cdk.edge import GrpcEdgeDistribution, l2_timeout
from edge_origin.core.errors import (
    ConstructLabel,
    EdgeOriginPropError,
    require_construct,
    require_seconds_range,
)
from edge_origin.profile.hops import CF_TIMEOUT_CEILING_S, CF_VPC_ORIGIN_TIMEOUT_RANGE

ORIGIN_ACCESS = ("public-eip", "vpc-origin")
"""``GrpcEdgeToOrigin(origin_access=...)``: EIPs + multivalue records (default), or a VPC origin."""
PUBLIC_EIP, VPC_ORIGIN = ORIGIN_ACCESS


class GrpcVpcOriginDistribution(GrpcEdgeDistribution):
    """``GrpcEdgeDistribution`` whose origin is a CloudFront VPC origin to an internal NLB.

    Same props as ``GrpcEdgeDistribution`` plus ``load_balancer``; ``origin_name`` is the name
    CloudFront sends as Host and SNI (the pods' certificate must cover it), not a name it resolves.
    ``keepalive_timeout`` and ``read_timeout``: 1..120 s (the VPC origin range).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        load_balancer: elbv2.INetworkLoadBalancer,
        vpc_origin_name: str | None = None,
        **kwargs: Any,
    ) -> None:
        where = f"GrpcVpcOriginDistribution {scope.node.path}/{construct_id}"
        require_construct(where, "load_balancer", load_balancer, elbv2.INetworkLoadBalancer, "an elbv2.INetworkLoadBalancer",
                          optional=False)
        for prop in ("keepalive_timeout", "read_timeout"):
            if prop in kwargs:
                # an adjustable quota (hops.CF_ORIGIN_TIMEOUTS): above the default a synth warning, from GrpcEdgeDistribution
                require_seconds_range(where, prop, kwargs[prop], CF_VPC_ORIGIN_TIMEOUT_RANGE[0], CF_TIMEOUT_CEILING_S)
        if kwargs.get("origin_ip_address_type") is not None:
            # botocore 1.44.8 cloudfront VpcOriginConfig has no IpAddressType (the VPC origin's own
            # VpcOriginEndpointConfig.IpAddressType is "ipv4" or "dualstack": "IPv6-only is not supported")
            raise EdgeOriginPropError(where, "origin_ip_address_type", kwargs["origin_ip_address_type"],
                                      "None for a VPC origin (VpcOriginConfig has no IpAddressType)")
        self._load_balancer = load_balancer
        self._vpc_origin_name = vpc_origin_name
        self._origin_port = kwargs.get("origin_port", 443)
        super().__init__(scope, construct_id, **kwargs)

    ORIGIN_CONFIG_KEY = "VpcOriginConfig"

    def _chosen_origin(self, http_origin: cloudfront.IOrigin) -> cloudfront.IOrigin:
        # the newer prop only when set: the floor aws-cdk-lib (pyproject) may not know it
        newer = {"response_completion_timeout": self._response_completion_duration()} if self._response_completion_duration() else {}
        return origins.VpcOrigin.with_network_load_balancer(
            self._load_balancer,
            domain_name=self.origin_name,
            protocol_policy=cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
            https_port=self._origin_port,
            origin_ssl_protocols=[cloudfront.OriginSslPolicy.TLS_V1_2],
            keepalive_timeout=l2_timeout(self.keepalive_timeout_seconds),
            read_timeout=l2_timeout(self.read_timeout_seconds),
            custom_headers=self.origin_verification.custom_headers if self.origin_verification else None,
            vpc_origin_name=self._vpc_origin_name,
            **newer,
        )


def build_vpc_origin_path(pattern: Any, where: ConstructLabel, *, edge_kwargs: dict[str, Any],
                          cloudfront_prefix_list_id: str | None, vpc_origin_security_group_id: str | None) -> None:
    """Set ``pattern.fleet`` (one internal NLB), ``pattern.records`` (None) and ``pattern.edge``
    (a ``GrpcVpcOriginDistribution``) from the pattern's validated props and connection profile."""
    pattern._make_fleet(  # the pattern's shared step: NLB idle timeout from its connection profile
        where,
        internet_facing=False,
        vpc_origin=True,
        cloudfront_prefix_list_id=cloudfront_prefix_list_id,
        vpc_origin_security_group_id=vpc_origin_security_group_id,
    )
    pattern.records = None
    pattern.edge = GrpcVpcOriginDistribution(pattern, "Edge", load_balancer=pattern.fleet.load_balancers[0], **edge_kwargs)
