"""edge-origin: the gRPC edge-to-origin path on AWS, and the checks that keep it correct.

Public API only; import from here: ``from edge_origin import GrpcEdgeToOrigin``.
"""

from edge_origin.edge import GrpcEdgeDistribution
from edge_origin.eks_binding import TargetGroupBindings, target_group_binding
from edge_origin.errors import EdgeOriginPropError
from edge_origin.findings import Finding, Severity
from edge_origin.internal import InternalGrpcOrigin
from edge_origin.model import ModelError, TemplateModel, load_model, normalize_name
from edge_origin.origin_fleet import FleetMember, OriginFleet, ZonalAddress
from edge_origin.origin_records import MultivalueOriginRecords, OriginAddress, OriginRecord
from edge_origin.pattern import GrpcEdgeToOrigin
from edge_origin.rehearsal import DnsPlan, RehearsalResult, select_answer

__all__ = [
    "DnsPlan",
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
    "RehearsalResult",
    "Severity",
    "TargetGroupBindings",
    "TemplateModel",
    "ZonalAddress",
    "load_model",
    "normalize_name",
    "select_answer",
    "target_group_binding",
]
