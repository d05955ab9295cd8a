"""edge-origin: the gRPC edge-to-origin path on AWS, and the checks that keep it correct.

Public API only; import from here: ``from edge_origin import GrpcEdgeToOrigin``.
"""

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

__all__ = [
    "PROFILE_METADATA_KEY",
    "ConnectionProfile",
    "EdgeOriginChecks",
    "Finding",
    "ModelError",
    "ProfileError",
    "Severity",
    "TemplateModel",
    "client_service_config",
    "configmap",
    "load_model",
    "normalize_name",
    "python_channel_options",
    "render",
]


def __getattr__(name: str) -> Any:
    """``EdgeOriginChecks`` is imported on first use: it loads aws-cdk-lib and cdk-nag."""
    if name == "EdgeOriginChecks":
        from edge_origin.nag import EdgeOriginChecks

        return EdgeOriginChecks
    raise AttributeError(f"module 'edge_origin' has no attribute {name!r}")
