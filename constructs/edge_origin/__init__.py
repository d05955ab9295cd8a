"""edge-origin: the gRPC edge-to-origin path on AWS, and the checks that keep it correct.

Public API only; import from here: ``from edge_origin import GrpcEdgeToOrigin``.
"""

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
