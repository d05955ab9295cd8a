"""The Monte Carlo model: the same plan at internet scale, no sockets.

Devices join uniformly over a ramp and are spread evenly over E edges. An edge asks Route 53
(:func:`~edge_origin.rehearsal.answers.select_answer`, the code the loopback DNS server runs)
when its cache is empty or expired, and holds the answer for the TTL. Each device then connects
as its load-balancing policy does: ``pick_first`` to the first address (the edge's order, rotated
per query with ``edge_rotation``), ``shuffle`` to a uniformly random address of the answer,
``round_robin`` to every address. Devices are handled in groups sharing one cached answer, so
121 million devices cost a few thousand answer draws.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from edge_origin.rehearsal.answers import select_answer
from edge_origin.rehearsal.clients import LB_POLICIES
from edge_origin.rehearsal.metrics import RehearsalResult, max_over_mean, verdict
from edge_origin.rehearsal.plan import DnsPlan

EXACT_ARRIVALS_LIMIT = 20_000  # an edge with more devices than this uses dense-arrival windows
MAX_WINDOWS_PER_EDGE = 100_000


class ModelError(ValueError):
    """Bad model input."""


@dataclass
class ModelConfig:
    """The model's inputs; ``ttl=None`` takes the plan's TTL, ``unhealthy`` lists failing health checks."""

    devices: int = 1000
    edges: int = 1
    ttl: float | None = None
    ramp_seconds: float = 0.0
    policy: str = "shuffle"
    edge_rotation: bool = False
    seed: int | None = None
    unhealthy: frozenset[str] = field(default_factory=frozenset)


def _windows(n: int, ramp: float, ttl: float, rng: np.random.Generator) -> list[int]:
    """Devices per cache window at one edge, in order (a window opens at the first arrival after expiry)."""
    if n == 0:
        return []
    if ramp <= 0 or ttl >= ramp and n > EXACT_ARRIVALS_LIMIT:
        return [n]
    if n > EXACT_ARRIVALS_LIMIT:
        # dense arrivals: windows are [k ttl, (k+1) ttl) from the start of the ramp
        edges = np.arange(0.0, ramp, ttl)
        lengths = np.diff(np.append(edges, ramp))
        return [int(c) for c in rng.multinomial(n, lengths / lengths.sum()) if c]
    times = np.sort(rng.uniform(0.0, ramp, size=n))
    counts: list[int] = []
    i = 0
    for _ in range(MAX_WINDOWS_PER_EDGE):
        if i >= n:
            break
        j = int(np.searchsorted(times, times[i] + ttl, side="left"))
        counts.append(j - i)
        i = j
    return counts


def run_model(plan: DnsPlan, cfg: ModelConfig) -> RehearsalResult:
    """Connections per origin for ``cfg.devices`` devices through ``cfg.edges`` caching edges."""
    if cfg.devices < 1:
        raise ModelError(f"--devices must be at least 1 (got {cfg.devices})")
    if cfg.edges < 1:
        raise ModelError(f"--edges must be at least 1 (got {cfg.edges})")
    if cfg.policy not in LB_POLICIES:
        raise ModelError(f"--lb-policy must be one of {', '.join(LB_POLICIES)} (got {cfg.policy!r})")
    ttl = float(plan.ttl if cfg.ttl is None else cfg.ttl)
    if ttl <= 0 or cfg.ramp_seconds < 0:
        raise ModelError("--ttl must be positive and --ramp-seconds not negative")
    gen = np.random.default_rng(cfg.seed)
    draw = random.Random(cfg.seed)
    records = plan.answer_records()

    def healthy(key: str) -> bool:
        return key not in cfg.unhealthy

    keys = plan.origin_keys
    connections: Counter[str] = Counter()
    rpcs: Counter[str] = Counter()
    fetches = 0
    per_edge = gen.multinomial(cfg.devices, [1.0 / cfg.edges] * cfg.edges)
    for n_edge in per_edge:
        served = 0
        for count in _windows(int(n_edge), cfg.ramp_seconds, ttl, gen):
            answer = select_answer(records, healthy, draw)
            fetches += 1
            size = len(answer)
            if cfg.policy == "round_robin":
                for key in answer:
                    connections[key] += count
                for key, c in zip(answer, gen.multinomial(count, [1.0 / size] * size), strict=True):
                    rpcs[key] += int(c)
            elif cfg.policy == "shuffle":
                for key, c in zip(answer, gen.multinomial(count, [1.0 / size] * size), strict=True):
                    connections[key] += int(c)
            elif cfg.edge_rotation:
                base, extra = divmod(count, size)
                for pos in range(size):
                    offset = (pos - served) % size  # queries served..served+count-1 start at answer[q % size]
                    connections[answer[pos]] += base + (1 if offset < extra else 0)
            else:
                connections[answer[0]] += count
            served += count
    if cfg.policy != "round_robin":
        rpcs = Counter(connections)
    ratio = max_over_mean(connections, keys)
    total = sum(connections.values())
    return RehearsalResult(
        mode="model",
        plan=plan.name,
        routing=plan.routing,
        policy=cfg.policy,
        origins={k: plan.nlb_of(k) for k in keys},
        connections={k: int(connections.get(k, 0)) for k in keys},
        rpcs={k: int(rpcs.get(k, 0)) for k in keys},
        max_over_mean=ratio,
        rpcs_max_over_mean=max_over_mean(rpcs, keys),
        errors={},
        burst_seconds=float(cfg.ramp_seconds),
        connections_per_second=round(total / cfg.ramp_seconds, 1) if cfg.ramp_seconds > 0 else 0.0,
        clients=cfg.devices,
        edges=cfg.edges,
        edge_rotation=cfg.edge_rotation,
        verdict=verdict(ratio),
        details={
            "devices": cfg.devices,
            "ttl": ttl,
            "ramp_seconds": cfg.ramp_seconds,
            "answers_drawn": fetches,
            "unhealthy": sorted(cfg.unhealthy),
            "seed": cfg.seed,
            "notes": [] if cfg.ramp_seconds > 0 else ["ramp 0: every device joins at once (connections_per_second not defined)"],
        },
    )
