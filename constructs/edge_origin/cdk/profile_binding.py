"""How the constructs apply a ConnectionProfile: check it, take its numbers, record it in the template."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_eks as eks
from constructs import Construct, IConstruct

from edge_origin.cdk.eks_binding import NetworkingIngress, TargetGroupBindings
from edge_origin.cdk.origin_fleet import OriginFleet
from edge_origin.core.errors import ConstructLabel, EdgeOriginPropError
from edge_origin.profile import PROFILE_METADATA_KEY, ConnectionProfile, ProfileError, configmap
from edge_origin.profile.rollout import rollout_configmap, rollout_plan

DEFAULT_PRESET = "streaming-telemetry"


def apply_profile_checks(where: str | ConstructLabel, profile: ConnectionProfile, *, cloudfront: bool) -> ConnectionProfile:
    """The profile, or an error listing every check it fails (synth stops here)."""
    if not isinstance(profile, ConnectionProfile):
        raise EdgeOriginPropError(where, "connection_profile", profile, "a ConnectionProfile")
    try:
        return profile.validate(cloudfront=cloudfront)
    except ProfileError as exc:
        fields = sorted({name.strip() for f in exc.findings for name in str(f.resource).split(",") if name.strip()})
        shown = {name: getattr(profile, name) for name in fields if hasattr(profile, name)}
        value = "ConnectionProfile(" + ", ".join(f"{k}={v!r}" for k, v in shown.items()) + ")" if shown else "ConnectionProfile(...)"
        raise EdgeOriginPropError(where, "connection_profile", _Shown(value), f"a profile that passes its checks; {exc}") from None


class _Shown(str):
    """A value shown as written (no quotes) in a prop error."""

    def __repr__(self) -> str:
        return str(self)


def whole_seconds(value: float) -> cdk.Duration:
    """A profile duration as a CDK Duration (CloudFormation takes whole seconds)."""
    return cdk.Duration.seconds(round(value))


def record_profile_on(construct: IConstruct, profile: ConnectionProfile) -> None:
    """Put the profile in the CloudFormation Metadata of the construct's L1 resource."""
    resource = construct.node.default_child
    if not isinstance(resource, cdk.CfnResource):
        raise TypeError(f"{construct.node.path} has no CloudFormation resource to carry the profile")
    resource.add_metadata(PROFILE_METADATA_KEY, profile.to_metadata())


def bind_fleet(
    scope: Construct,
    fleet: OriginFleet,
    *,
    profile: ConnectionProfile,
    service_name: str,
    service_port: int,
    namespace: str,
    cluster: eks.ICluster | None,
) -> TargetGroupBindings:
    """The fleet's TargetGroupBindings (with networking ingress from each NLB's security groups to
    the pod and health ports) plus the profile: Metadata on every listener (the EO-KA rules
    compare it with the template) and the ConfigMap beside the bindings."""
    pod_ports = tuple(sorted({fleet.target_port, fleet.target_health_check_port}))
    bindings = TargetGroupBindings(
        scope,
        "Bindings",
        target_groups={m.name.lower(): m.target_group for m in fleet.members},
        service_name=service_name,
        service_port=service_port,
        namespace=namespace,
        cluster=cluster,
        networking={m.name.lower(): NetworkingIngress(m.security_groups, pod_ports) for m in fleet.members},
    )
    for listener in fleet.listeners:
        record_profile_on(listener, profile)
    bindings.add_manifest(configmap(profile, f"{service_name}-connection-profile", namespace))
    plan = rollout_plan(profile, fleet.deregistration_delay_seconds)
    bindings.add_manifest(rollout_configmap(plan, f"{service_name}-rollout", namespace, service_name))
    for problem in plan.problems:
        cdk.Annotations.of(bindings).add_warning_v2(
            "edge-origin:rollout-not-hitless",
            f"{problem}. The pods' settings are in the ConfigMap {service_name}-rollout beside the bindings "
            "(deployment-patch.json: preStop and terminationGracePeriodSeconds).",
        )
    return bindings
