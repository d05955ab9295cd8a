"""The flash-crowd rehearsal: the DNS plan replayed on loopback, and modelled at internet scale.

Importing this package does not import grpc: the client process must set its resolver first.
"""

from edge_origin.rehearsal.answers import AnswerRecord, select_answer
from edge_origin.rehearsal.metrics import SPREAD_LIMIT, RehearsalResult, max_over_mean, verdict
from edge_origin.rehearsal.plan import DnsPlan, HealthCheckSpec, Origin, PlanError, PlanRecord, reference_plan

__all__ = [
    "SPREAD_LIMIT",
    "AnswerRecord",
    "DnsPlan",
    "HealthCheckSpec",
    "Origin",
    "PlanError",
    "PlanRecord",
    "RehearsalResult",
    "max_over_mean",
    "reference_plan",
    "select_answer",
    "verdict",
]
