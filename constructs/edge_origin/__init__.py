"""edge-origin: the gRPC edge-to-origin path on AWS, and the checks that keep it correct.

Public API only; import from here: ``from edge_origin import GrpcEdgeToOrigin``.

The constructs and the cdk-nag plugin load aws-cdk-lib (a Node.js runtime) on first use, so the
template checker, the profile tools and the rehearsal start fast without it.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from edge_origin.findings import Finding, Severity
from edge_origin.model import ModelError, TemplateModel, load_model, normalize_name
from edge_origin.profile import (
    PROFILE_METADATA_KEY,
    ConnectionProfile,
    ProfileError,
    client_service_config,
    configmap,
    python_channel_options,
    render,
)
from edge_origin.rehearsal import DnsPlan, RehearsalResult, select_answer

_CDK_EXPORTS = {
    "EdgeOriginChecks": "edge_origin.nag",
    "EdgeOriginPropError": "edge_origin.errors",
    "FleetMember": "edge_origin.origin_fleet",
    "GrpcEdgeDistribution": "edge_origin.edge",
    "GrpcEdgeToOrigin": "edge_origin.pattern",
    "InternalGrpcOrigin": "edge_origin.internal",
    "MultivalueOriginRecords": "edge_origin.origin_records",
    "OriginAddress": "edge_origin.origin_records",
    "OriginFleet": "edge_origin.origin_fleet",
    "OriginVerification": "edge_origin.origin_verification",
    "OriginVerificationSecret": "edge_origin.edge",
    "OriginRecord": "edge_origin.origin_records",
    "TargetGroupBindings": "edge_origin.eks_binding",
    "ZonalAddress": "edge_origin.origin_fleet",
    "target_group_binding": "edge_origin.eks_binding",
}

__all__ = [
    "PROFILE_METADATA_KEY",
    "ConnectionProfile",
    "DnsPlan",
    "Finding",
    "ModelError",
    "ProfileError",
    "RehearsalResult",
    "Severity",
    "TemplateModel",
    "client_service_config",
    "configmap",
    "load_model",
    "normalize_name",
    "python_channel_options",
    "render",
    "select_answer",
    *sorted(_CDK_EXPORTS),
]


def __getattr__(name: str) -> Any:
    """CDK constructs and the cdk-nag plugin, imported on first use."""
    module = _CDK_EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'edge_origin' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
