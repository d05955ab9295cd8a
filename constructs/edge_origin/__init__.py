"""edge-origin: the gRPC edge-to-origin path on AWS, and the checks that keep it correct.

Public API only; import from here: ``from edge_origin import GrpcEdgeToOrigin``.
"""

from typing import Any

from edge_origin.findings import Finding, Severity
from edge_origin.model import ModelError, TemplateModel, load_model, normalize_name

__all__ = [
    "EdgeOriginChecks",
    "Finding",
    "ModelError",
    "Severity",
    "TemplateModel",
    "load_model",
    "normalize_name",
]


def __getattr__(name: str) -> Any:
    """``EdgeOriginChecks`` is imported on first use: it loads aws-cdk-lib and cdk-nag."""
    if name == "EdgeOriginChecks":
        from edge_origin.nag import EdgeOriginChecks

        return EdgeOriginChecks
    raise AttributeError(f"module 'edge_origin' has no attribute {name!r}")
