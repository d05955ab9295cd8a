"""The flash-crowd rehearsal: the DNS plan replayed on loopback (the internet-scale model is
``edge_origin.forecast``).

Importing this package imports nothing: every name below is loaded on first use. The plan, the
answers and the metrics are pure Python (core install); the loopback run needs grpcio and
dnspython, ``--chart`` matplotlib (the ``rehearsal`` extra). grpc in particular
must not be imported early: the client process sets its resolver first.

Layer 4. May import: core, data, answers, profile, model, rules, review, cdk, rehearsal, forecast, live.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "SPREAD_LIMIT": "edge_origin.rehearsal.metrics",
    "AnswerRecord": "edge_origin.rehearsal.answers",
    "DnsPlan": "edge_origin.rehearsal.plan",
    "HealthCheckSpec": "edge_origin.rehearsal.plan",
    "Origin": "edge_origin.rehearsal.plan",
    "PlanError": "edge_origin.rehearsal.plan",
    "PlanRecord": "edge_origin.rehearsal.plan",
    "RehearsalResult": "edge_origin.rehearsal.metrics",
    "max_over_mean": "edge_origin.rehearsal.metrics",
    "reference_plan": "edge_origin.rehearsal.plan",
    "select_answer": "edge_origin.rehearsal.answers",
    "verdict": "edge_origin.rehearsal.metrics",
}

# Modules that need the `rehearsal` extra (checked by the CLI before it imports them).
EXTRA_MODULES = ("grpc", "grpc_health", "dns", "numpy")

__all__ = ["EXTRA_MODULES", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    """The public names, imported on first use."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'edge_origin.rehearsal' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
