"""The CloudFront VPC-origin paths of a model, shared by the EO-VPC* rules (issue 31).

A distribution origin with ``VpcOriginConfig`` names an ``AWS::CloudFront::VpcOrigin`` whose
``VpcOriginEndpointConfig.Arn`` names the load balancer. What AWS documents about this path:

* CloudFront API reference, ``VpcOriginConfig`` (botocore 1.44.8 cloudfront ``service-2.json``):
  ``OriginKeepaliveTimeout`` 1..120 s, default 5; ``OriginReadTimeout`` 1..120 s, default 30.
* ``VpcOriginEndpointConfig.IpAddressType``: ``ipv4`` or ``dualstack`` ("IPv6-only is not
  supported for VPC origins").
* CloudFront Developer Guide, "Restrict access with VPC origins" (private-content-vpc-origins.html),
  as aws-cdk-lib 2.275's aws-cloudfront-origins README restates it: an NLB "must have a security
  group attached to it"; "Dual-stack Network Load Balancers and Network Load Balancers with TLS
  listeners can't be added as origins"; traffic is admitted with the managed prefix list
  ``com.amazonaws.global.cloudfront.origin-facing`` or the security group VPC origins create in the
  VPC, ``CloudFront-VPCOrigins-Service-SG`` (its id is not available to CloudFormation).
* Not documented: how CloudFront spreads its connections over the NLB's zonal nodes. It reaches
  the NLB by the NLB's own DNS name, so the NLB's DNS attributes decide what it gets.
"""

from __future__ import annotations

from collections.abc import Iterator

from edge_origin.core.fast_dataclass import dataclass
from edge_origin.model import DistributionView, LoadBalancerView, OriginView, TemplateModel


@dataclass(frozen=True)
class VpcOriginPath:
    distribution: DistributionView
    origin: OriginView
    load_balancer: LoadBalancerView | None
    """The endpoint's load balancer, when it is in the templates."""

    @property
    def label(self) -> str:
        vpc = self.origin.vpc_origin
        name = vpc.resource.logical_id if vpc is not None else "an external VPC origin"
        return f"{self.distribution.resource.logical_id} origin {self.origin.id} (VPC origin {name})"


def vpc_origin_paths(model: TemplateModel) -> Iterator[VpcOriginPath]:
    """Every distribution origin that is a VPC origin, once per (distribution, origin)."""
    for dist in model.distributions:
        for origin in dist.origins:
            if origin.vpc_origin_id is not None:
                yield VpcOriginPath(dist, origin, model.vpc_origin_load_balancer(origin))
