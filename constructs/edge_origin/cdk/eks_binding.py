"""TargetGroupBindings: bind each NLB target group to a Kubernetes Service's pods (IP targets)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import yaml
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks as eks
from aws_cdk import aws_elasticloadbalancingv2 as elbv2
from constructs import Construct

from edge_origin.cdk.quotas import QuotaLedger
from edge_origin.core.errors import (
    ConstructLabel,
    EdgeOriginPropError,
    require_construct,
    require_port,
    suggest_props,
)

K8S_NAME = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
_YAML_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml when present: ~10x faster
MANIFEST_DIR = "k8s"
"""Folder in the cloud assembly (``cdk.out/k8s/<stack>/<construct>.yaml``) the manifests go to."""


@dataclass(frozen=True)
class NetworkingIngress:
    """Who may reach the pods of one binding: the controller opens ``ports`` (TCP) on the pods'
    security group to ``security_groups`` (the NLB's), so the pods need no hand-edited rules."""

    security_groups: tuple[ec2.ISecurityGroup, ...]
    ports: tuple[int, ...]

    def __post_init__(self) -> None:
        groups, ports = self.security_groups, self.ports
        if isinstance(groups, (str, bytes)) or not isinstance(groups, Sequence) or not groups:
            raise EdgeOriginPropError("NetworkingIngress", "security_groups", groups, "a non-empty list of ec2.ISecurityGroup")
        for group in groups:
            require_construct("NetworkingIngress", "security_groups", group, ec2.ISecurityGroup,
                              "ec2.ISecurityGroup entries", optional=False)
        if isinstance(ports, (str, bytes)) or not isinstance(ports, Sequence) or not ports:
            raise EdgeOriginPropError("NetworkingIngress", "ports", ports, "a non-empty list of TCP ports")
        for port in ports:
            require_port("NetworkingIngress", "ports", port)
        object.__setattr__(self, "security_groups", tuple(groups))
        object.__setattr__(self, "ports", tuple(ports))


def target_group_binding(
    *,
    name: str,
    namespace: str,
    service_name: str,
    service_port: int,
    target_group_arn: str,
    ingress_group_ids: Sequence[str] = (),
    ingress_ports: Sequence[int] = (),
) -> dict[str, Any]:
    """The AWS Load Balancer Controller ``TargetGroupBinding`` for one target group, IP targets,
    with ``spec.networking.ingress`` from ``ingress_group_ids`` on ``ingress_ports`` when given."""
    spec: dict[str, Any] = {
        "serviceRef": {"name": service_name, "port": service_port},
        "targetGroupARN": target_group_arn,
        "targetType": "ip",
    }
    if ingress_group_ids and ingress_ports:
        spec["networking"] = {
            "ingress": [
                {
                    "from": [{"securityGroup": {"groupID": group}} for group in ingress_group_ids],
                    "ports": [{"protocol": "TCP", "port": port} for port in ingress_ports],
                }
            ]
        }
    return {
        "apiVersion": "elbv2.k8s.aws/v1beta1",
        "kind": "TargetGroupBinding",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app.kubernetes.io/managed-by": "edge-origin"}},
        "spec": spec,
    }


@suggest_props
class TargetGroupBindings(Construct):
    """Manifests that bind target groups to a Service, written into the cloud assembly.

    For each target group: a ``TargetGroupBinding`` (``elbv2.k8s.aws/v1beta1``, ``targetType: ip``)
    and a stack output with its ARN; with ``networking`` for that key, ``spec.networking.ingress``
    from the given security groups (the NLB's) to the given pod ports, and an output with each
    security group id. The controller then adds those rules to the pods' security group. The manifests are written as YAML to
    ``cdk.out/k8s/<stack>/<construct id>.yaml`` during synth (the ARN as a ``${Output}``
    placeholder naming the stack output to fill in). They are applied to a cluster with ``add_manifest`` only when
    ``cluster`` is given, and it must be an imported cluster with an existing kubectl provider, so
    no kubectl Lambda is created behind your back.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        target_groups: Mapping[str, elbv2.INetworkTargetGroup],
        service_name: str,
        service_port: int,
        namespace: str = "default",
        cluster: eks.ICluster | None = None,
        networking: Mapping[str, NetworkingIngress] | None = None,
    ) -> None:
        """
        :param target_groups: binding name suffix (``nlb1``) -> target group. At least one.
        :param service_name: Kubernetes Service whose endpoints become the targets (DNS-1123 label).
        :param service_port: the Service port (1..65535).
        :param namespace: namespace of the Service. Default ``default``.
        :param cluster: an imported cluster with ``kubectl_provider`` set; the manifests are then
            applied with ``add_manifest``. Default: none (manifests are only written to cdk.out).
        :param networking: binding name suffix -> ``NetworkingIngress`` (security groups allowed
            in, pod ports). Default: none (the pods' security group is yours to open).
        """
        super().__init__(scope, construct_id)
        where = ConstructLabel("TargetGroupBindings", self)
        if not isinstance(target_groups, Mapping) or not target_groups:
            raise EdgeOriginPropError(where, "target_groups", target_groups, "a non-empty mapping of name -> target group")
        for key, group in target_groups.items():
            if not isinstance(key, str):
                raise EdgeOriginPropError(where, "target_groups", key, "string keys")
            require_construct(where, "target_groups", group, elbv2.INetworkTargetGroup,
                              "elbv2.INetworkTargetGroup values", optional=False)
        if networking is not None and not isinstance(networking, Mapping):
            raise EdgeOriginPropError(where, "networking", networking, "a mapping of target group key -> NetworkingIngress")
        networking = dict(networking or {})
        for key, entry in networking.items():
            if key not in target_groups or not isinstance(entry, NetworkingIngress):
                raise EdgeOriginPropError(where, "networking", key, "keys of target_groups -> NetworkingIngress")

        for prop, value in (("service_name", service_name), ("namespace", namespace)):
            if not isinstance(value, str) or not K8S_NAME.fullmatch(value):
                raise EdgeOriginPropError(where, prop, value, "a DNS-1123 label: a-z, 0-9, '-', 1..63 chars")
        require_port(where, "service_port", service_port)
        require_construct(where, "cluster", cluster, eks.ICluster, "an eks.ICluster")
        if cluster is not None and cluster.kubectl_provider is None:
            raise EdgeOriginPropError(
                where,
                "cluster",
                cluster.cluster_name,
                "a cluster imported with eks.Cluster.from_cluster_attributes(..., kubectl_provider=...) "
                "(an existing kubectl provider; edge-origin does not create one)",
            )
        self.cluster = cluster
        self.namespace = namespace
        self.manifests: list[dict[str, Any]] = []
        self._file_manifests: list[dict[str, Any]] = []
        self.outputs: dict[str, cdk.CfnOutput] = {}
        stack = cdk.Stack.of(self)
        stack_name = stack.stack_name
        group_outputs: dict[str, str] = {}
        for suffix, target_group in target_groups.items():
            name = f"{service_name}-{suffix}".lower()
            if not K8S_NAME.fullmatch(name):
                raise EdgeOriginPropError(where, "target_groups", suffix, "keys that make a DNS-1123 name")
            output = cdk.CfnOutput(
                self,
                f"{_pascal(suffix)}TargetGroupArn",
                value=target_group.target_group_arn,
                description=f"ARN of the target group for TargetGroupBinding {namespace}/{name}",
            )
            self.outputs[suffix] = output
            ingress = networking.get(suffix)
            group_ids: list[str] = []
            group_placeholders: list[str] = []
            for k, group in enumerate(ingress.security_groups if ingress else (), start=1):
                group_id = group.security_group_id
                if group_id not in group_outputs:
                    group_output = cdk.CfnOutput(
                        self, f"{_pascal(suffix)}SecurityGroup{k}Id", value=group_id,
                        description=f"security group allowed into the pods by TargetGroupBinding networking ({name})",
                    )
                    group_outputs[group_id] = _placeholder(stack, stack_name, group_output.logical_id)
                group_ids.append(group_id)
                group_placeholders.append(group_outputs[group_id])
            ports = list(ingress.ports) if ingress else []
            manifest = target_group_binding(
                name=name,
                namespace=namespace,
                service_name=service_name,
                service_port=service_port,
                target_group_arn=target_group.target_group_arn,
                ingress_group_ids=group_ids,
                ingress_ports=ports,
            )
            file_form = target_group_binding(
                name=name,
                namespace=namespace,
                service_name=service_name,
                service_port=service_port,
                target_group_arn=_placeholder(stack, stack_name, output.logical_id),
                ingress_group_ids=group_placeholders,
                ingress_ports=ports,
            )
            self.add_manifest(manifest, file_form=file_form)
        QuotaLedger.of(self, stack).on_synth(self, self.write)

    def add_manifest(self, manifest: dict[str, Any], *, file_form: dict[str, Any] | None = None) -> None:
        """Add a manifest (applied with the cluster, if any, and written to the cloud assembly).

        :param file_form: what goes into the YAML file instead, when ``manifest`` holds tokens.
        """
        index = len(self.manifests)
        self.manifests.append(manifest)
        self._file_manifests.append(file_form or manifest)
        if self.cluster is not None:
            self.cluster.add_manifest(f"Manifest{index}", manifest)

    @property
    def manifest_path(self) -> Path:
        """Where the YAML lands in the cloud assembly."""
        stack = cdk.Stack.of(self)
        return Path(cdk.Stage.of(self).outdir) / MANIFEST_DIR / stack.artifact_id / f"{self.node.id}.yaml"

    def render_yaml(self) -> str:
        """The manifests as one multi-document YAML text."""
        return yaml.dump_all(self._file_manifests, Dumper=_YAML_DUMPER, sort_keys=False)

    def write(self) -> Path:
        """Write the YAML file; called during synthesis."""
        path = self.manifest_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.render_yaml(), encoding="utf-8")
        return path


def _placeholder(stack: cdk.Stack, stack_name: str, logical_id: str) -> str:
    """``${<stack name>.<output logical id>}``: the stack output to fill in."""
    return "${" + stack_name + "." + stack.resolve(logical_id) + "}"


def _pascal(label: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[^A-Za-z0-9]+", label) if p)
