"""The rehearsal's record shape (``AnswerRecord``) and ``select_answer``, drawn by ``select``.

``edge_origin.rehearsal.answers`` re-exports these names (kept importable for the rehearsal,
the model and the loopback DNS server).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from edge_origin.answers.select import draw, policy_of
from edge_origin.answers.types import MULTIVALUE_MAX, POLICIES, PUBLIC, Geo, Vantage

#: The policies the rehearsal plan replays (no vantage of its own: location policies need one).
ROUTING_POLICIES = ("simple", "weighted", "multivalue")


@dataclass(frozen=True)
class AnswerRecord:
    """One record set of a name, as the answer selection sees it.

    ``values`` are origin keys (an address or any opaque key the caller maps to one);
    ``health_key`` names the health check (``None``: no health check, always healthy).
    """

    set_identifier: str
    routing: str
    values: tuple[str, ...]
    weight: int | None = None
    health_key: str | None = None
    failover: str | None = None
    region: str | None = None
    geo: Geo | None = None
    geoproximity: Any = None
    cidr: Any = None
    az: Any = None

    @property
    def policy(self) -> str:
        return self.routing


HealthFn = Callable[[str], bool]


def _always_healthy(_key: str) -> bool:
    return True


def is_healthy(record: AnswerRecord, healthy: HealthFn) -> bool:
    """A record without a health check is healthy; otherwise its check decides."""
    return record.health_key is None or healthy(record.health_key)


def routing_of(records: Sequence[AnswerRecord]) -> str:
    """The routing policy shared by the records (Route 53 forbids mixing them for one name/type)."""
    policy = policy_of(records)
    if policy not in POLICIES:
        raise ValueError(f"routing policy {policy!r} is not one of {POLICIES}")
    if policy not in ROUTING_POLICIES:
        raise ValueError(f"routing policy {policy!r} is not one of {ROUTING_POLICIES}")
    return policy


def select_answer(
    records: Sequence[AnswerRecord],
    healthy: HealthFn = _always_healthy,
    rng: random.Random | None = None,
    vantage: Vantage = PUBLIC,
) -> list[str]:
    """The values Route 53 puts in one answer for these records, in answer order."""
    if not records:
        return []
    return draw(records, lambda r: is_healthy(r, healthy), rng or random.Random(), vantage)


__all__ = ["MULTIVALUE_MAX", "ROUTING_POLICIES", "AnswerRecord", "HealthFn", "is_healthy", "routing_of", "select_answer"]
