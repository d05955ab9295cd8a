"""edge-origin: the gRPC edge-to-origin path on AWS, and the checks that keep it correct.

Public API only; import from here: ``from edge_origin import GrpcEdgeToOrigin``.

Every name is imported on first use: ``import edge_origin`` loads only the standard library. The
constructs and the cdk-nag plugin load aws-cdk-lib (a Node.js runtime), so the template checker
and the profile tools start fast without it; the rehearsal's loopback and model need the
``rehearsal`` extra (grpcio, dnspython, numpy, matplotlib), which the names below never import.
"""

from __future__ import annotations

from importlib import import_module

from edge_origin import _moved
from edge_origin._version import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any

_moved.install()  # old module paths (edge_origin.pattern, edge_origin.checker, ...) for one more release

# Names that need only the standard library and PyYAML.
_LIGHT_EXPORTS = {
    "Finding": "edge_origin.core.findings",
    "Severity": "edge_origin.core.findings",
    "ModelError": "edge_origin.model",
    "TemplateModel": "edge_origin.model",
    "load_model": "edge_origin.model",
    "normalize_name": "edge_origin.model",
    "PROFILE_METADATA_KEY": "edge_origin.profile",
    "ConnectionProfile": "edge_origin.profile",
    "ProfileError": "edge_origin.profile",
    "client_service_config": "edge_origin.profile",
    "configmap": "edge_origin.profile",
    "python_channel_options": "edge_origin.profile",
    "render": "edge_origin.profile",
    "DnsPlan": "edge_origin.rehearsal",
    "RehearsalResult": "edge_origin.rehearsal",
    "select_answer": "edge_origin.rehearsal",
}

# Names that load aws-cdk-lib (and cdk-nag).
_CDK_EXPORTS = {
    "AccountQuotas": "edge_origin.cdk.quotas",
    "EdgeOriginChecks": "edge_origin.review.nag",
    "EdgeOriginPropError": "edge_origin.core.errors",
    "FleetMember": "edge_origin.cdk.origin_fleet",
    "GrpcEdgeDistribution": "edge_origin.cdk.edge",
    "GrpcEdgeToOrigin": "edge_origin.cdk.pattern",
    "InternalGrpcOrigin": "edge_origin.cdk.internal",
    "MultivalueOriginRecords": "edge_origin.cdk.origin_records",
    "NetworkingIngress": "edge_origin.cdk.eks_binding",
    "OriginAddress": "edge_origin.cdk.origin_records",
    "OriginFleet": "edge_origin.cdk.origin_fleet",
    "OriginProps": "edge_origin.cdk.props",
    "OriginVerification": "edge_origin.core.origin_verification",
    "OriginVerificationSecret": "edge_origin.cdk.edge",
    "OriginWatch": "edge_origin.cdk.watch",
    "PrivateHealthChecks": "edge_origin.cdk.private_checks",
    "OriginRecord": "edge_origin.cdk.origin_records",
    "TargetGroupBindings": "edge_origin.cdk.eks_binding",
    "WatchOptions": "edge_origin.cdk.watch",
    "ZonalAddress": "edge_origin.cdk.origin_fleet",
    "target_group_binding": "edge_origin.cdk.eks_binding",
}

__all__ = ["__version__", *sorted(_LIGHT_EXPORTS), *sorted(_CDK_EXPORTS)]


def __getattr__(name: str) -> Any:
    """Every public name, imported on first use."""
    module = _LIGHT_EXPORTS.get(name) or _CDK_EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'edge_origin' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
