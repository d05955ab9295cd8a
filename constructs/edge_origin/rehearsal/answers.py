"""Route 53 answer selection: the one implementation, shared by the DNS server and the model.

Semantics (Route 53 developer guide, "Choosing a routing policy" and "How Amazon Route 53
chooses records when health checking is configured"):

* **simple**: one record set; every value, in random order.
* **weighted**: one record set per answer, chosen with probability weight / sum(weights) among
  the healthy records with a non-zero weight; zero-weight records only when no non-zero record
  is healthy; all weights zero means equal probability.
* **multivalue**: up to 8 healthy records, a random 8 when more are healthy, in random order.
* Health: a record without a health check is healthy. When no record is healthy, Route 53
  fails open and answers as if all were healthy.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

MULTIVALUE_MAX = 8
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


HealthFn = Callable[[str], bool]


def _always_healthy(_key: str) -> bool:
    return True


def is_healthy(record: AnswerRecord, healthy: HealthFn) -> bool:
    """A record without a health check is healthy; otherwise its check decides."""
    return record.health_key is None or healthy(record.health_key)


def routing_of(records: Sequence[AnswerRecord]) -> str:
    """The routing policy shared by the records (Route 53 forbids mixing them for one name/type)."""
    policies = {r.routing for r in records}
    if not policies:
        raise ValueError("no records")
    if len(policies) > 1:
        raise ValueError(f"records mix routing policies: {sorted(policies)}")
    policy = policies.pop()
    if policy not in ROUTING_POLICIES:
        raise ValueError(f"routing policy {policy!r} is not one of {ROUTING_POLICIES}")
    return policy


def _healthy_or_all(records: Sequence[AnswerRecord], healthy: HealthFn) -> list[AnswerRecord]:
    """The healthy records; all of them when none is healthy (fail-open)."""
    alive = [r for r in records if is_healthy(r, healthy)]
    return alive if alive else list(records)


def _choose_weighted(records: Sequence[AnswerRecord], healthy: HealthFn, rng: random.Random) -> AnswerRecord:
    alive = [r for r in records if is_healthy(r, healthy)]
    nonzero = [r for r in alive if (r.weight or 0) > 0]
    if nonzero:
        pool = nonzero
    elif alive:
        pool = alive  # only zero-weight records are healthy: equal probability among them
    else:
        # fail-open: every record considered healthy, weights honoured again
        nonzero_all = [r for r in records if (r.weight or 0) > 0]
        pool = nonzero_all or list(records)
    weights = [float(r.weight or 0) for r in pool]
    if sum(weights) <= 0:
        return rng.choice(pool)
    return rng.choices(pool, weights=weights, k=1)[0]


def select_answer(
    records: Sequence[AnswerRecord],
    healthy: HealthFn = _always_healthy,
    rng: random.Random | None = None,
) -> list[str]:
    """The values Route 53 puts in one answer for these records, in answer order."""
    rng = rng or random.Random()
    if not records:
        return []
    policy = routing_of(records)
    if policy == "weighted":
        values = list(_choose_weighted(records, healthy, rng).values)
        rng.shuffle(values)
        return values
    if policy == "multivalue":
        pool = _healthy_or_all(records, healthy)
        chosen = rng.sample(pool, k=min(MULTIVALUE_MAX, len(pool)))
        rng.shuffle(chosen)
        return [v for r in chosen for v in r.values]
    # simple: one record set, all its values in random order
    values = [v for r in records for v in r.values]
    rng.shuffle(values)
    return values
