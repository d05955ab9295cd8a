"""edge-origin: the gRPC edge-to-origin path on AWS, and the checks that keep it correct.

Public API only; import from here: ``from edge_origin import GrpcEdgeToOrigin``.
"""

from edge_origin.findings import Finding, Severity
from edge_origin.model import ModelError, TemplateModel, load_model, normalize_name

__all__ = ["Finding", "ModelError", "Severity", "TemplateModel", "load_model", "normalize_name"]
