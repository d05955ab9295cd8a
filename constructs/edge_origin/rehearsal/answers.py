"""Route 53 answer selection for the rehearsal: a re-export of the answer model's.

The one implementation lives in :mod:`edge_origin.answers` (``select``: every routing policy;
``rehearsal_records``: the ``AnswerRecord`` shape and ``select_answer``); the loopback DNS
server, the rehearsal model and the rules all draw from it. Kept importable here.
"""

from __future__ import annotations

from edge_origin.answers.rehearsal_records import (
    MULTIVALUE_MAX,
    ROUTING_POLICIES,
    AnswerRecord,
    HealthFn,
    is_healthy,
    routing_of,
    select_answer,
)

__all__ = ["MULTIVALUE_MAX", "ROUTING_POLICIES", "AnswerRecord", "HealthFn", "is_healthy", "routing_of", "select_answer"]
