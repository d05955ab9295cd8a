"""edge-origin: the gRPC edge-to-origin path on AWS, and the checks that keep it correct.

Public API only; import from here: ``from edge_origin import GrpcEdgeToOrigin``.
"""

from typing import Any

from edge_origin.edge import GrpcEdgeDistribution
from edge_origin.eks_binding import TargetGroupBindings, target_group_binding
from edge_origin.errors import EdgeOriginPropError
from edge_origin.findings import Finding, Severity
from edge_origin.internal import InternalGrpcOrigin
from edge_origin.model import ModelError, TemplateModel, load_model, normalize_name
from edge_origin.origin_fleet import FleetMember, OriginFleet, ZonalAddress
from edge_origin.origin_records import MultivalueOriginRecords, OriginAddress, OriginRecord
from edge_origin.pattern import GrpcEdgeToOrigin

__all__ = [
    "EdgeOriginChecks",
    "EdgeOriginPropError",
    "Finding",
    "FleetMember",
    "GrpcEdgeDistribution",
    "GrpcEdgeToOrigin",
    "InternalGrpcOrigin",
    "ModelError",
    "MultivalueOriginRecords",
    "OriginAddress",
    "OriginFleet",
    "OriginRecord",
    "Severity",
    "TargetGroupBindings",
    "TemplateModel",
    "ZonalAddress",
    "load_model",
    "normalize_name",
    "target_group_binding",
]


def __getattr__(name: str) -> Any:
    """``EdgeOriginChecks`` (the cdk-nag pack) is imported on first use: it loads cdk-nag."""
    if name == "EdgeOriginChecks":
        from edge_origin.nag import EdgeOriginChecks

        return EdgeOriginChecks
    raise AttributeError(f"module 'edge_origin' has no attribute {name!r}")
