"""Route 53 private endpoint health checks for ``InternalGrpcOrigin``: one check per private address.

A private endpoint check (``HealthCheckConfig.EndpointType`` PRIVATE) is sent from a health check source:
network interfaces Route 53 creates in the VPC (``AWS::Route53::HealthCheckSource``; route53
``HealthCheckSourceConfig.SubnetConfigurationList``: "two or three ``SubnetConfiguration`` elements, one in
each Availability Zone ... The Availability Zones must be distinct"; facts ``route53.health.cfn_private``).
The pinned aws-cdk-lib (2.275) has no ``CfnHealthCheckSource`` and its ``CfnHealthCheck`` no ``EndpointType``:
the source is a plain ``CfnResource`` and the check's two members are property overrides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_route53 as route53
from constructs import Construct

from edge_origin.core.errors import ConstructLabel, EdgeOriginPropError, implements, is_token

SOURCE_TYPE = "AWS::Route53::HealthCheckSource"
CFN_REFERENCE = "https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-route53-healthchecksource.html"
#: cfn-lint 1.58's bundled schemas (standalone, and aws-cdk-lib's "CloudFormation Validate" at synth, a warning or,
#: with ``@aws-cdk/core:validateAgainstDefaultRules``, an error) predate the health check source and the check's
#: private members: E3006/F3006 (unknown resource type) on the source, E3002/F3002 (unexpected property
#: EndpointType / HealthCheckSourceId) on each check. CloudFormation declares both (CFN_REFERENCE; and
#: aws-properties-route53-healthcheck-healthcheckconfig.html, EndpointType and HealthCheckSourceId): only these
#: codes are ignored, only on these resources.
CFN_LINT_LAG = {"source": "3006", "check": "3002"}
PROP = "private_health_checks"
ALLOWED = (
    "PrivateHealthChecks(health_check_source_id='<id of an existing source>') or PrivateHealthChecks(subnets=[2 or 3 "
    "subnets of the VPC in distinct Availability Zones], security_groups=[1..5 security groups])"
)


@dataclass(frozen=True)
class PrivateHealthChecks:
    """Where ``InternalGrpcOrigin``'s private endpoint health checks come from: an existing health check source
    (``health_check_source_id``), or a new ``AWS::Route53::HealthCheckSource`` in ``subnets`` (2 or 3, distinct
    Availability Zones: the zones Route 53 probes from in the region) with ``security_groups`` (they must allow
    outbound traffic to the NLBs' listener port)."""

    health_check_source_id: str | None = None
    subnets: Sequence[ec2.ISubnet] | None = None
    security_groups: Sequence[ec2.ISecurityGroup] | None = None
    availability_zone_ids: Sequence[str] | None = None
    """The zone ids (``use1-az1``) of ``subnets``, in order. Default: each new subnet's ``AvailabilityZoneId``
    attribute (an imported subnet needs them given)."""


def check_private_health_checks(where: ConstructLabel, value: Any) -> PrivateHealthChecks | None:
    """``value`` as a valid ``PrivateHealthChecks`` (None passes), else one error naming the prop and the range."""
    if value is None:
        return None
    if not isinstance(value, PrivateHealthChecks):
        raise EdgeOriginPropError(where, PROP, value, ALLOWED)
    source_id, subnets, groups = value.health_check_source_id, value.subnets, value.security_groups
    if source_id is not None:
        if subnets is not None or groups is not None or value.availability_zone_ids is not None:
            raise EdgeOriginPropError(where, PROP, value, f"either an existing source or subnets to make one: {ALLOWED}")
        if not isinstance(source_id, str) or not (is_token(source_id) or 1 <= len(source_id) <= 64):
            raise EdgeOriginPropError(where, f"{PROP}.health_check_source_id", source_id,
                                      "a health check source id, 1..64 characters (route53 HealthCheckSourceId)")
        return value
    if subnets is None or groups is None:
        raise EdgeOriginPropError(where, PROP, value, ALLOWED)
    _check_subnets(where, subnets, value.availability_zone_ids)
    if not 1 <= len(list(groups)) <= 5 or not all(implements(g, ec2.ISecurityGroup) for g in groups):
        raise EdgeOriginPropError(where, f"{PROP}.security_groups", groups, "1..5 ec2.ISecurityGroup")
    return value


def _check_subnets(where: ConstructLabel, subnets: Any, zone_ids: Any) -> None:
    prop = f"{PROP}.subnets"
    if isinstance(subnets, (str, bytes)) or not isinstance(subnets, Sequence) or not 2 <= len(subnets) <= 3 \
            or not all(implements(s, ec2.ISubnet) for s in subnets):
        raise EdgeOriginPropError(where, prop, subnets, "2 or 3 ec2.ISubnet in distinct Availability Zones "
                                  "(route53 HealthCheckSourceConfig.SubnetConfigurationList: min 2, max 3)")
    zones = [s.availability_zone for s in subnets]
    known = [z for z in zones if not is_token(z)]
    if len(set(known)) < len(known):
        raise EdgeOriginPropError(where, prop, zones, "2 or 3 subnets in distinct Availability Zones (one a zone)")
    if zone_ids is not None:
        ids = list(zone_ids) if isinstance(zone_ids, Sequence) and not isinstance(zone_ids, str) else None
        literal = [z for z in ids or [] if isinstance(z, str) and not is_token(z)]
        if ids is None or len(ids) != len(subnets) or not all(isinstance(z, str) and z for z in ids) \
                or len(set(literal)) < len(literal):
            raise EdgeOriginPropError(where, f"{PROP}.availability_zone_ids", zone_ids,
                                      f"{len(subnets)} distinct zone ids (use1-az1), one per subnet, in order")
        return
    for subnet in subnets:
        if not isinstance(subnet.node.default_child, ec2.CfnSubnet):
            raise EdgeOriginPropError(where, f"{PROP}.availability_zone_ids", None, "the zone ids (use1-az1) of "
                                      "the subnets, one per subnet: an imported subnet does not carry its zone id")


def make_source(scope: Construct, checks: PrivateHealthChecks, vpc: ec2.IVpc, tags: Mapping[str, str] | None) -> str:
    """The health check source id: the given one, or a new ``AWS::Route53::HealthCheckSource``'s."""
    if checks.health_check_source_id is not None:
        return checks.health_check_source_id
    subnets = list(checks.subnets or ())
    zone_ids = list(checks.availability_zone_ids) if checks.availability_zone_ids is not None else [
        s.node.default_child.attr_availability_zone_id for s in subnets]
    group_ids = [g.security_group_id for g in checks.security_groups or ()]
    properties: dict[str, Any] = {"HealthCheckSourceConfig": {
        "VpcId": vpc.vpc_id,
        "SubnetConfigurationList": [
            {"SubnetId": s.subnet_id, "AvailabilityZoneId": z, "SecurityGroupIdList": group_ids}
            for s, z in zip(subnets, zone_ids, strict=True)
        ],
    }}
    if tags:
        properties["Tags"] = [{"Key": k, "Value": v} for k, v in tags.items()]
    source = cdk.CfnResource(scope, "HealthCheckSource", type=SOURCE_TYPE, properties=properties)
    _tool_lag(source, CFN_LINT_LAG["source"], f"{SOURCE_TYPE} is a CloudFormation resource type ({CFN_REFERENCE}); cfn-lint 1.58 predates it")
    # aws-cdk-lib 2.278's HealthCheckSourceReference names the ARN as the primary identifier, so Ref is taken to give
    # the ARN; the id is read as Fn::GetAtt HealthCheckSourceId (route53's member name; CFN_REFERENCE, Return values).
    # Not yet confirmed by a deploy: the place to change if CloudFormation names the attribute otherwise.
    return source.get_att("HealthCheckSourceId").to_string()


def private_check(scope: Construct, construct_id: str, ip_address: str, port: int, source_id: str) -> route53.HealthCheck:
    """A TCP check of ``ip_address``:``port`` from the health check source (TCP: a Route 53 HTTPS check is
    not documented to speak HTTP/2, facts ``route53.health.https_tls``, so it can fail against a gRPC port)."""
    check = route53.HealthCheck(scope, construct_id, type=route53.HealthCheckType.TCP, ip_address=ip_address, port=port)
    resource = check.node.default_child
    resource.add_property_override("HealthCheckConfig.EndpointType", "PRIVATE")
    resource.add_property_override("HealthCheckConfig.HealthCheckSourceId", source_id)
    _tool_lag(resource, CFN_LINT_LAG["check"], "HealthCheckConfig.EndpointType / HealthCheckSourceId are CloudFormation "
              f"properties (private endpoint checks, {CFN_REFERENCE}); cfn-lint 1.58 predates them")
    return check


def _tool_lag(resource: cdk.CfnResource, code: str, reason: str) -> None:
    """Ignore cfn-lint's ``E<code>`` (standalone: resource Metadata) and ``F<code>`` (aws-cdk-lib's CloudFormation
    Validate at synth: an acknowledgement) on ``resource`` alone: the tools' lag, not a template defect."""
    resource.add_metadata("cfn-lint", {"config": {"ignore_checks": [f"E{code}"]}})
    cdk.Validations.of(resource).acknowledge(cdk.Acknowledgment(id=f"CloudFormation-Validate::F{code}", reason=reason))
