"""The internet-scale model: the same plan, millions of devices, no sockets; it predicts errors.

Inputs (:class:`ModelConfig`, the ``rehearse --model`` flags):

* ``devices`` join uniformly over ``ramp_seconds`` and spread over ``edges`` CloudFront edge
  locations by ``edge_traffic`` (``uniform``, ``zipf:S`` or shares from a CSV);
* the edges share ``resolvers`` caching resolvers (edge ``e`` uses resolver ``e % R``): each edge
  takes its resolver's cached answer, which the resolver asks Route 53 for
  (:func:`~edge_origin.rehearsal.answers.select_answer`, the code the loopback DNS server runs)
  when it expired, and holds for the TTL. ``R = E`` is independent edge caches (the loopback
  rehearsal's setup). What is known about CloudFront: it does not document how its hosts resolve
  origin names; the incident write-up (AWS Architecture Blog, "How bitdrift scaled to 121 million
  concurrent gRPC connections on Amazon CloudFront ...", 2026-07-15: "all CloudFront cache hosts
  to resolve to the same origin for the duration of the TTL", and after the fix "CloudFront cache
  hosts immediately began resolving all 6 origin IPs simultaneously") describes one shared answer per TTL
  window for the whole audience, and gRPC is a POST, which CloudFront sends from the edge
  location straight to the origin (the developer guide's "How CloudFront works with regional
  edge caches": proxy methods skip the regional caches). So the default is
  ``R = 1``, the figure that reproduces the write-ups; larger R is the optimistic side, shown by
  the sensitivity sweep in ``benchmarks/bench_rehearsal.py``;
* each device connects as its load-balancing policy does (see :mod:`~edge_origin.forecast.sim`);
* an origin address takes ``origin_capacity`` (``N`` concurrent connections or ``N/s`` new
  connections a second; per-origin overrides; ``scale_seconds``: ramping up from zero once
  loaded) and refuses the rest; a refused connect tries the next address of the answer, up to
  ``connect_tries`` (CloudFront's 3); ``kill`` stops an origin at a time; refused devices reconnect
  with gRPC's backoff (``retry``); the health checks of the plan see the origins past capacity
  and take them out of the answers after ``failure_threshold x request_interval`` (fail-open when
  none is healthy). Time advances in steps no longer than the shortest health-check interval.

Outputs: per origin the connections held and the peak load / capacity, accepted and refused
attempts per step, ``predicted_errors`` (refused / all attempts: ``peak`` over the worst
5-minute window, ``mean`` over the run), the time to steady state, and the verdict (``overload``
when the peak error share passes ``error_limit``, else ``pile-up``/``spread`` from max/mean).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from numbers import Integral, Real
from typing import Any

import numpy as np

from edge_origin import _moved
from edge_origin.core.facts import value
from edge_origin.forecast.inputs import (
    Capacity,
    ModelInputError,
    RetryPolicy,
    capacities_by_origin,
    edge_shares,
    parse_capacity,
    parse_retry,
)
from edge_origin.forecast.sim import HealthCheckModel, SimInputs, SimOutput, error_shares, simulate
from edge_origin.rehearsal.clients import LB_POLICIES
from edge_origin.rehearsal.metrics import RehearsalResult, max_over_mean, verdict
from edge_origin.rehearsal.plan import DnsPlan

__all__ = [
    "DEFAULT_RESOLVERS",
    "ERROR_LIMIT",
    "ModelConfig",
    "ModelInputError",
    "ModelResult",
    "calibrate_capacity",
    "run_model",
    "run_model_seeds",
]

DEFAULT_RESOLVERS = 1  # what the write-ups describe: one shared answer per TTL window (see the docstring)
DEFAULT_HORIZON = 600.0  # 10 minutes of simulated time
ERROR_LIMIT = 0.01  # a peak 5-minute error share above this is an overload
PEAK_WINDOW_SECONDS = 300.0  # the published table's "peak 5-minute" window
MAX_STEPS = 200_000
MAX_DEVICES = 10**12
MAX_RESOLVERS = 100_000
CONNECT_TRIES: int = value("cloudfront.connection_attempts")  # CloudFront's origin ConnectionAttempts default
MAX_CONNECT_TRIES = 8  # a multivalue answer holds at most 8 addresses
MAX_SEEDS = 100
MAX_ANSWER_DRAWS = 2_000_000  # resolvers x TTL windows: each draw is one select_answer call (~20-40 us here)


@dataclass
class ModelConfig:
    """The model's inputs; ``ttl=None`` takes the plan's TTL, ``unhealthy`` lists failing health checks.

    ``origin_capacity`` / ``capacity_overrides`` (origin key, logical id or a unique part -> N or
    ``"N/s"``): None never refuses. ``horizon_seconds=None``: 600 s, or the ramp when longer.
    """

    devices: int = 1000
    edges: int = 1
    ttl: float | None = None
    ramp_seconds: float = 0.0
    policy: str = "shuffle"
    edge_rotation: bool = False
    seed: int | None = None
    unhealthy: frozenset[str] = field(default_factory=frozenset)
    resolvers: int = DEFAULT_RESOLVERS
    edge_traffic: str | Sequence[float] = "uniform"
    retry: RetryPolicy | str = field(default_factory=RetryPolicy)
    origin_capacity: Capacity | str | float | None = None
    capacity_overrides: Mapping[str, Capacity | str | float] | None = None
    health_checks: bool = True
    step_seconds: float = 1.0
    horizon_seconds: float | None = None
    error_limit: float = ERROR_LIMIT
    # a refused connect tries the next address of its answer, up to this many addresses: CloudFront's origin
    # ConnectionAttempts default 3 (botocore cloudfront service-2.json, Origin); Route 53: "client software
    # typically tries another of the IP addresses in the response" (route53 service-2.json, MultiValueAnswer)
    connect_tries: int = CONNECT_TRIES
    scale_seconds: float = 0.0  # capacity ramp: an address first loaded holds capacity x min(1, s / this)
    kill: tuple[str, float] | None = None  # (origin, seconds): that origin dies then; its devices reconnect


@dataclass
class ModelResult(RehearsalResult):
    """A :class:`RehearsalResult` with the model's error prediction, loads and timeline."""

    predicted_errors: dict[str, float] = field(default_factory=dict)
    origin_load: dict[str, dict[str, Any]] = field(default_factory=dict)
    steady_state_seconds: float | None = None
    timeline: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        d = self.details
        wk = max([6, *(len(k) for k in self.origins)])
        wn = max([3, *(len(n) for n in self.origins.values())])
        lines = [
            f"model: {self.plan} ({self.routing}), {d['devices']:,} devices over {d['ramp_seconds']:g} s through "
            f"{self.edges} edge(s) ({d['edge_traffic']}) sharing {d['resolvers']} resolver(s), TTL {d['ttl']:g} s, "
            f"policy {self.policy}{' rotating' if self.edge_rotation else ''}",
            f"capacity {d['capacity']}, retry {d['retry']}, health checks {'on' if d['health_checks'] else 'off'}, "
            f"step {d['step_seconds']:g} s over {d['horizon_seconds']:g} s",
            f"{'origin':<{wk}} {'nlb':<{wn}} {'connections':>13} {'capacity':>11} {'peak load/cap':>14}",
        ]
        for key, nlb in self.origins.items():
            load = self.origin_load.get(key, {})
            ratio = load.get("peak_load_over_capacity")
            lines.append(
                f"{key:<{wk}} {nlb:<{wn}} {self.connections.get(key, 0):>13,} {load.get('capacity') or '-':>11} "
                f"{'-' if ratio is None else f'{ratio:.2f}':>14}"
            )
        lines.append(f"max/mean connections {self.max_over_mean:.2f}")
        pe = self.predicted_errors
        lines.append(
            f"predicted errors: peak {pe['peak'] * 100:.3f} % (worst 5-minute window from the start), "
            f"mean {pe['mean'] * 100:.3f} % (the run); attempts refused on every address tried / all attempts"
        )
        band = d.get("band")
        if band:
            lines.append(
                f"over {len(band['seeds'])} seeds: peak {band['peak']['min'] * 100:.3f} .. {band['peak']['max'] * 100:.3f} % "
                f"(median {band['peak']['median'] * 100:.3f}), mean {band['mean']['min'] * 100:.3f} .. "
                f"{band['mean']['max'] * 100:.3f} %, max/mean {band['max_over_mean']['min']:.2f} .. {band['max_over_mean']['max']:.2f}"
            )
        steady = self.steady_state_seconds
        lines.append("steady state: " + ("not reached" if steady is None else f"after {steady:g} s"))
        lines.append(f"{'t s':>8} {'accepted':>14} {'refused':>14}")
        for row in _timeline_rows(self.timeline):
            lines.append(f"{row[0]:>8g} {row[1]:>14,.0f} {row[2]:>14,.0f}")
        lines.append(f"verdict: {self.verdict}")
        for note in d.get("notes", []):
            lines.append(f"note: {note}")
        return "\n".join(lines)


def _timeline_rows(timeline: Mapping[str, Any], rows: int = 10) -> list[tuple[float, float, float]]:
    """The timeline in about ``rows`` buckets (start s, accepted, refused) for the text output."""
    acc = timeline.get("accepted", [])
    ref = timeline.get("refused", [])
    dt = float(timeline.get("step_seconds", 1.0))
    if not acc:
        return []
    last = max((i for i, (a, r) in enumerate(zip(acc, ref, strict=True)) if a or r), default=0)
    width = max(1, math.ceil((last + 1) / rows))
    return [
        (round(i * dt, 3), float(sum(acc[i : i + width])), float(sum(ref[i : i + width])))
        for i in range(0, last + 1, width)
    ]


def _whole(values: np.ndarray) -> list[int]:
    """Round to integers keeping the rounded total (largest remainder)."""
    floors = np.floor(values + 1e-9)
    short = int(round(float(values.sum()) - float(floors.sum())))
    if short > 0:
        for i in np.argsort(-(values - floors), kind="stable")[:short]:
            floors[i] += 1
    return [int(v) for v in floors]


def _allocate(total: int, shares: Sequence[float]) -> np.ndarray:
    """``total`` whole devices over shares (largest remainder, ties to the lower index)."""
    exact = np.asarray(shares, dtype=float) * total
    out = np.floor(exact)
    short = int(total - out.sum())
    if short > 0:
        out[np.argsort(-(exact - out), kind="stable")[:short]] += 1
    return out.astype(np.int64)


def _capacity(value: Capacity | str | float | None, flag: str) -> Capacity | None:
    if value is None or isinstance(value, Capacity):
        if isinstance(value, Capacity) and (not math.isfinite(value.value) or value.value <= 0):
            raise ModelInputError(f"{flag}: capacity must be a finite number > 0 (got {value})")
        return value
    if isinstance(value, str):
        return parse_capacity(value, flag)
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise ModelInputError(f"{flag}: capacity must be a finite number > 0 (got {value!r})")
    return Capacity(number)


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ModelInputError(message)


def _finite(value: float | None) -> bool:
    return isinstance(value, Real) and math.isfinite(value)


def _validate(plan: DnsPlan, cfg: ModelConfig) -> None:
    _check(isinstance(cfg.devices, Integral) and 1 <= cfg.devices <= MAX_DEVICES,
           f"--devices must be at least 1 and at most {MAX_DEVICES:g} (got {cfg.devices})")
    _check(isinstance(cfg.edges, Integral) and cfg.edges >= 1, f"--edges must be at least 1 (got {cfg.edges})")
    _check(cfg.edges <= MAX_RESOLVERS, f"--edges must be at most {MAX_RESOLVERS} (got {cfg.edges})")
    _check(isinstance(cfg.resolvers, Integral) and 1 <= cfg.resolvers <= cfg.edges,
           f"--resolvers must be 1..--edges ({cfg.edges}) (got {cfg.resolvers})")
    _check(cfg.policy in LB_POLICIES, f"--lb-policy must be one of {', '.join(LB_POLICIES)} (got {cfg.policy!r})")
    if cfg.ttl is not None:
        _check(_finite(cfg.ttl) and cfg.ttl > 0, f"--ttl must be a finite number > 0 (got {cfg.ttl})")
    _check(_finite(cfg.ramp_seconds) and cfg.ramp_seconds >= 0,
           f"--ramp-seconds must be a finite number >= 0 (got {cfg.ramp_seconds})")
    _check(_finite(cfg.step_seconds) and cfg.step_seconds > 0,
           f"--step must be a finite number > 0 (got {cfg.step_seconds})")
    if cfg.horizon_seconds is not None:
        _check(_finite(cfg.horizon_seconds) and cfg.horizon_seconds > 0,
               f"--horizon must be a finite number > 0 (got {cfg.horizon_seconds})")
    _check(_finite(cfg.error_limit) and 0 <= cfg.error_limit <= 1,
           f"--error-limit must be 0..1 (got {cfg.error_limit})")
    _check(float(plan.ttl if cfg.ttl is None else cfg.ttl) > 0, f"{plan.name}: the records' TTL must be > 0")
    _check(isinstance(cfg.connect_tries, Integral) and 1 <= cfg.connect_tries <= MAX_CONNECT_TRIES,
           f"--connect-tries must be 1..{MAX_CONNECT_TRIES} (got {cfg.connect_tries})")
    _check(_finite(cfg.scale_seconds) and cfg.scale_seconds >= 0,
           f"--scale-seconds must be a finite number >= 0 (got {cfg.scale_seconds})")
    if cfg.kill is not None:
        _check(_finite(cfg.kill[1]) and cfg.kill[1] >= 0, f"--kill: seconds must be a finite number >= 0 (got {cfg.kill[1]})")


def _step(plan: DnsPlan, cfg: ModelConfig, notes: list[str]) -> float:
    """The step: ``cfg.step_seconds``, shortened to the shortest health-check interval when checks run."""
    dt = float(cfg.step_seconds)
    intervals = [spec.request_interval for spec in plan.health_checks().values()]
    if cfg.health_checks and intervals and dt > min(intervals):
        notes.append(f"step shortened from {dt:g} s to the health-check interval {min(intervals)} s")
        dt = float(min(intervals))
    return dt


def _kill(plan: DnsPlan, cfg: ModelConfig) -> tuple[int, float] | None:
    if cfg.kill is None:
        return None
    from edge_origin.forecast.inputs import resolve_origin_name

    key = resolve_origin_name(plan.origin_keys, cfg.kill[0], "--kill")
    return plan.origin_keys.index(key), float(cfg.kill[1])


def run_model_seeds(plan: DnsPlan, cfg: ModelConfig, seeds: int) -> ModelResult:
    """:func:`run_model` for ``seeds`` seeds (``cfg.seed``, +1, ...): the first run's result with
    ``details["band"]``, the min / median / max over the seeds of the predicted errors and max/mean."""
    _check(isinstance(seeds, Integral) and 1 <= seeds <= MAX_SEEDS, f"--seeds must be 1..{MAX_SEEDS} (got {seeds})")
    first = cfg.seed if cfg.seed is not None else 0
    runs = [run_model(plan, replace(cfg, seed=first + i)) for i in range(seeds)]
    result = runs[0]

    def band(values: list[float]) -> dict[str, float]:
        return {"min": min(values), "median": float(np.median(values)), "max": max(values)}

    result.details["band"] = {
        "seeds": [first + i for i in range(seeds)],
        "peak": band([r.predicted_errors["peak"] for r in runs]),
        "mean": band([r.predicted_errors["mean"] for r in runs]),
        "max_over_mean": band([r.max_over_mean for r in runs]),
    }
    return result


def run_model(plan: DnsPlan, cfg: ModelConfig) -> ModelResult:
    """Predict where ``cfg.devices`` devices land and what share of their connection attempts fail."""
    _validate(plan, cfg)
    notes: list[str] = []
    ttl = float(plan.ttl if cfg.ttl is None else cfg.ttl)
    retry = parse_retry(cfg.retry) if isinstance(cfg.retry, str) else cfg.retry
    default_cap = _capacity(cfg.origin_capacity, "--origin-capacity")
    overrides = {name: _capacity(v, f"--origin-capacity-file: {name}") for name, v in (cfg.capacity_overrides or {}).items()}
    keys = plan.origin_keys
    caps = capacities_by_origin(keys, default_cap, {k: v for k, v in overrides.items() if v is not None})
    shares = edge_shares(cfg.edge_traffic, cfg.edges)
    dt = _step(plan, cfg, notes)
    horizon = float(cfg.horizon_seconds) if cfg.horizon_seconds is not None else max(DEFAULT_HORIZON, cfg.ramp_seconds)
    steps = max(1, math.ceil(horizon / dt - 1e-9))
    _check(steps <= MAX_STEPS, f"--horizon / --step gives {steps} steps (limit {MAX_STEPS}): use a longer --step")
    draws = cfg.resolvers * math.ceil(horizon / max(ttl, dt))
    _check(draws <= MAX_ANSWER_DRAWS,
           f"--resolvers {cfg.resolvers} x {math.ceil(horizon / max(ttl, dt))} TTL windows could draw {draws:,} answers "
           f"(limit {MAX_ANSWER_DRAWS:,}): use fewer resolvers, a longer --ttl or a shorter --horizon")
    if horizon < cfg.ramp_seconds:
        notes.append(f"horizon {horizon:g} s is shorter than the ramp: not every device joined")

    edge_devices = _allocate(cfg.devices, shares)
    resolver_of_edge = np.arange(cfg.edges) % cfg.resolvers
    group_devices = np.bincount(resolver_of_edge, weights=edge_devices, minlength=cfg.resolvers).astype(np.int64)
    index = {k: i for i, k in enumerate(keys)}
    checks = []
    if cfg.health_checks:
        for key, spec in plan.health_checks().items():
            origins = tuple(index[o] for o in plan.origins_of_check(key) if o in index)
            if origins:
                checks.append(HealthCheckModel(key, origins, spec.window_seconds))
    concurrent = np.array([c.value if c is not None and not c.per_second else np.inf for c in caps.values()])
    rate = np.array([c.value if c is not None and c.per_second else np.inf for c in caps.values()])
    out = simulate(
        SimInputs(
            records=plan.answer_records(),
            keys=keys,
            group_devices=group_devices,
            ramp_seconds=float(cfg.ramp_seconds),
            ttl=ttl,
            step_seconds=dt,
            steps=steps,
            policy=cfg.policy,
            edge_rotation=cfg.edge_rotation,
            concurrent_capacity=concurrent,
            rate_capacity=rate,
            checks=checks,
            retry=retry,
            forced_unhealthy=frozenset(cfg.unhealthy),
            seed=cfg.seed,
            connect_tries=cfg.connect_tries,
            scale_seconds=float(cfg.scale_seconds),
            kill=_kill(plan, cfg),
        )
    )
    return _result(plan, cfg, out, caps, notes, ttl=ttl, retry=retry, horizon=horizon, checks=bool(checks))


def _origin_load(out: SimOutput, keys: Sequence[str], caps: Mapping[str, Capacity | None]) -> dict[str, dict[str, Any]]:
    held = out.held
    previous = np.vstack([np.zeros((1, held.shape[1])), held[:-1]])
    offered_per_second = (out.demand - previous) / out.step_seconds
    load: dict[str, dict[str, Any]] = {}
    for i, key in enumerate(keys):
        cap = caps[key]
        ratio = None
        if cap is not None:
            peak = float(offered_per_second[:, i].max()) if cap.per_second else float(out.demand[:, i].max())
            ratio = round(peak / cap.value, 4)
        load[key] = {
            "peak_connections": round(float(held[:, i].max())) if len(held) else 0,
            "capacity": str(cap) if cap is not None else None,
            "peak_load_over_capacity": ratio,
        }
    return load


def _result(
    plan: DnsPlan,
    cfg: ModelConfig,
    out: SimOutput,
    caps: Mapping[str, Capacity | None],
    notes: list[str],
    *,
    ttl: float,
    retry: RetryPolicy,
    horizon: float,
    checks: bool,
) -> ModelResult:
    keys = plan.origin_keys
    final = out.held[-1] if len(out.held) else np.zeros(len(keys))
    connections = dict(zip(keys, _whole(final), strict=True))
    rpcs = dict(zip(keys, _whole(out.rpcs), strict=True))
    peak, mean, peak_at = error_shares(out, PEAK_WINDOW_SECONDS)
    sliding_peak, _mean, sliding_at = error_shares(out, PEAK_WINDOW_SECONDS, sliding=True)
    limited = any(c is not None for c in caps.values())
    if not limited and cfg.kill is None:
        notes.append("no --origin-capacity: origins never refuse, so no errors are predicted")
    if horizon < PEAK_WINDOW_SECONDS:
        notes.append(f"the run ({horizon:g} s) is shorter than the 5-minute peak window: peak is over the run")
    steady = None if out.pending_at_end > 0.5 else (
        0.0 if out.last_active_step is None else round((out.last_active_step + 1) * out.step_seconds, 6)
    )
    never = out.pending_at_end + out.gave_up
    if never >= 0.5:
        notes.append(f"{never:,.0f} devices never connected ({out.gave_up:,.0f} gave up, {out.pending_at_end:,.0f} still retrying)")
    ratio = max_over_mean(connections, keys)
    outcome = "overload" if limited and peak > cfg.error_limit else verdict(ratio)
    total = sum(connections.values())
    dt = out.step_seconds
    capacity_text = ", ".join(sorted({str(c) for c in caps.values() if c is not None})) or "unlimited"
    if limited and any(c is None for c in caps.values()):
        capacity_text += " (some origins unlimited)"
    return ModelResult(
        mode="model",
        plan=plan.name,
        routing=plan.routing,
        policy=cfg.policy,
        origins={k: plan.nlb_of(k) for k in keys},
        connections=connections,
        rpcs=rpcs,
        max_over_mean=ratio,
        rpcs_max_over_mean=max_over_mean(rpcs, keys),
        errors={"refused_attempts": round(float(out.refused.sum()))} if out.refused.sum() >= 0.5 else {},
        burst_seconds=float(cfg.ramp_seconds),
        connections_per_second=round(total / cfg.ramp_seconds, 1) if cfg.ramp_seconds > 0 else 0.0,
        clients=cfg.devices,
        edges=cfg.edges,
        edge_rotation=cfg.edge_rotation,
        verdict=outcome,
        details={
            "devices": cfg.devices,
            "resolvers": cfg.resolvers,
            "edge_traffic": cfg.edge_traffic if isinstance(cfg.edge_traffic, str) else "shares",
            "ttl": ttl,
            "ramp_seconds": cfg.ramp_seconds,
            "step_seconds": dt,
            "horizon_seconds": horizon,
            "retry": str(retry),
            "connect_tries": cfg.connect_tries,
            "scale_seconds": cfg.scale_seconds,
            "kill": None if cfg.kill is None else {"origin": cfg.kill[0], "at": cfg.kill[1]},
            "capacity": capacity_text,
            "health_checks": checks,
            "health_events": [{"t": t, "check": k, "healthy": h} for t, k, h in out.health_events],
            "answers_drawn": out.fetches,
            "attempts": {"accepted": round(float(out.accepted.sum())), "refused": round(float(out.refused.sum()))},
            "unhealthy": sorted(cfg.unhealthy),
            "gave_up": round(out.gave_up),
            "still_retrying": round(out.pending_at_end),
            "peak_window_start": peak_at,
            "worst_sliding_5min": {"share": round(sliding_peak, 6), "start": sliding_at},
            "error_limit": cfg.error_limit,
            "seed": cfg.seed,
            "notes": notes
            + ([] if cfg.ramp_seconds > 0 else ["ramp 0: every device joins at once (connections_per_second not defined)"]),
        },
        predicted_errors={"peak": round(peak, 6), "mean": round(mean, 6)},
        origin_load=_origin_load(out, keys, caps),
        steady_state_seconds=steady,
        timeline={
            "step_seconds": dt,
            "accepted": [round(float(v)) for v in out.accepted],
            "refused": [round(float(v)) for v in out.refused],
            "connections": {k: [round(float(v)) for v in out.held[:, i]] for i, k in enumerate(keys)},
            "capacity": {k: (caps[k].value if caps[k] is not None else None) for k in keys},
            "capacity_per_second": {k: bool(caps[k] is not None and caps[k].per_second) for k in keys},
        },
    )


def calibrate_capacity(
    plan: DnsPlan,
    cfg: ModelConfig,
    target_peak: float,
    *,
    low: float = 1.0,
    high: float | None = None,
    tolerance: float = 0.005,
    max_runs: int = 40,
) -> tuple[float, ModelResult]:
    """The concurrent capacity per origin at which the plan's predicted peak error share is ``target_peak``.

    Bisection on a log scale between ``low`` and ``high`` (default: the devices, where nothing is
    refused); the peak error share falls as capacity grows. Returns the capacity and its run.
    """
    _check(0 < target_peak < 1, f"target peak error share must be in (0, 1) (got {target_peak})")
    lo, hi = float(low), float(high if high is not None else cfg.devices)
    best: tuple[float, ModelResult] | None = None
    for _ in range(max_runs):
        mid = math.sqrt(lo * hi)
        result = run_model(plan, replace(cfg, origin_capacity=Capacity(mid), capacity_overrides=None))
        peak = result.predicted_errors["peak"]
        if best is None or abs(peak - target_peak) < abs(best[1].predicted_errors["peak"] - target_peak):
            best = (mid, result)
        if abs(peak - target_peak) <= tolerance:
            break
        if peak > target_peak:
            lo = mid
        else:
            hi = mid
    assert best is not None
    return best


__getattr__ = _moved.old_names(__name__)  # ModelError -> ModelInputError, until 0.3
