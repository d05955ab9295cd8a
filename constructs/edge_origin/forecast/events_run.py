"""Run the model on an event (:mod:`~edge_origin.forecast.events`): 5xx shares with a band over seeds.

The capacity model, per origin address (an NLB's zonal node behind one EIP):

* ``steady_capacity`` C: concurrent connections the address holds once scaled (fitted);
* ``scale_seconds`` S: the scaling ramp. An address first loaded at t0 holds at most
  ``C x min(1, (t - t0) / S)``: a node hit by a burst from zero is not at its steady capacity and
  gains it at C / S connections a second (fitted);

The clients (CloudFront edges, for their devices), all sourced:

* ``connect_tries`` 3: CloudFront's origin ConnectionAttempts default (botocore cloudfront
  service-2.json, ``Origin``); a refused connect tries the next address of the answer, as "client
  software typically tries another of the IP addresses in the response" (botocore route53
  service-2.json, ``MultiValueAnswer``). The tries of one attempt happen within one model step
  (CloudFront's ConnectionTimeout, default 10 s, is not modelled: a step is at most 10 s);
* retries: gRPC's connection backoff (1 s, x1.6, +-20 % jitter, 120 s cap; grpc
  doc/connection-backoff.md), forever;
* re-resolve at the TTL; one shared answer per TTL window (``resolvers`` 1: "all CloudFront edge
  nodes resolved to the same origin for the duration of the TTL", AWS Architecture Blog, "How bitdrift
  scaled to 121 million concurrent gRPC connections on Amazon CloudFront ...", 2026-07-15);
* health checks at the event's interval and threshold: an address that refuses or is full fails
  its check; Route 53 fails open when none is healthy (:mod:`edge_origin.rehearsal.answers`).

A 5xx is a device attempt refused on every address it tried. Requests are the attempts plus the
steady requests of connected devices (the event's requests/s per connection). ``peak`` is the
worst 5-minute window from the start. ``mean`` is over the event's whole window, the span a
published average is over (:attr:`Event.window`): each of its ``broadcasts`` as simulated (the
``horizon_seconds``, then the last simulated minute's requests and 5xx rates carried on to the end
of ``duration_seconds``), plus the quiet rest of the window at ``quiet_share`` of the peak
requests/s, when no connect fails (the quiet load is that share of the crowd, which the fleet held
at the peak).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from edge_origin.core.facts import value
from edge_origin.forecast.events import Event
from edge_origin.forecast.inputs import ModelInputError, RetryPolicy
from edge_origin.forecast.sim import HealthCheckModel, SimInputs, SimOutput, simulate

PEAK_WINDOW_SECONDS = 300.0
CLOUDFRONT_CONNECTION_ATTEMPTS: int = value("cloudfront.connection_attempts")  # botocore Origin.ConnectionAttempts
DEFAULT_SEEDS = 5


@dataclass(frozen=True)
class CapacityModel:
    """The capacity and client parameters (see the module docstring for each one's source)."""

    steady_capacity: float
    scale_seconds: float
    connect_tries: int = CLOUDFRONT_CONNECTION_ATTEMPTS
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    resolvers: int = 1
    edges: int = 600
    step_seconds: float = 1.0
    horizon_seconds: float = 900.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.steady_capacity) and self.steady_capacity > 0):
            raise ModelInputError(f"--capacity: must be a finite number > 0 (got {self.steady_capacity!r})")
        if not (math.isfinite(self.scale_seconds) and self.scale_seconds >= 0):
            raise ModelInputError(f"--scale-seconds: must be a finite number >= 0 (got {self.scale_seconds!r})")
        if not 1 <= self.connect_tries <= 8:
            raise ModelInputError(f"--connect-tries: must be 1..8 (got {self.connect_tries})")
        if not 1 <= self.resolvers <= self.edges:
            raise ModelInputError(f"--resolvers: must be 1..edges ({self.edges}) (got {self.resolvers})")


@dataclass
class EventOutcome:
    """One run of one event: 5xx shares, failed connects, and where the connections ended."""

    event: str
    seed: int
    peak_5xx: float
    mean_5xx: float
    failed_connects: float
    peak_requests_per_second: float
    connections: list[float]
    still_retrying: float
    requests: float = 0.0  # over the event's window (broadcasts and quiet hours)
    failed: float = 0.0  # 5xx over the window


@dataclass
class Band:
    """A figure over seeds: the median and the range."""

    median: float
    low: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Band:
        return cls(float(statistics.median(values)), float(min(values)), float(max(values)))


def _health_checks(event: Event) -> list[HealthCheckModel]:
    plan = event.plan()
    index = {k: i for i, k in enumerate(plan.origin_keys)}
    return [
        HealthCheckModel(key, tuple(index[o] for o in plan.origins_of_check(key)), spec.window_seconds)
        for key, spec in plan.health_checks().items()
    ]


def sim_inputs(event: Event, model: CapacityModel, seed: int, kill: tuple[int, float] | None = None) -> SimInputs:
    """The engine's inputs for an event under a capacity model."""
    plan = event.plan()
    devices = int(round(event.concurrent_connections))
    per_edge = np.full(model.edges, devices // model.edges, dtype=np.int64)
    per_edge[: devices % model.edges] += 1
    groups = np.bincount(np.arange(model.edges) % model.resolvers, weights=per_edge,
                         minlength=model.resolvers).astype(np.int64)
    dt = min(model.step_seconds, float(event.health_check_interval))
    return SimInputs(
        records=plan.answer_records(),
        keys=plan.origin_keys,
        group_devices=groups,
        ramp_seconds=event.ramp_seconds,
        ttl=float(event.ttl),
        step_seconds=dt,
        steps=max(1, math.ceil(min(model.horizon_seconds, event.duration_seconds) / dt - 1e-9)),
        policy="shuffle",
        edge_rotation=False,
        concurrent_capacity=np.full(len(plan.origin_keys), model.steady_capacity),
        rate_capacity=np.full(len(plan.origin_keys), np.inf),
        checks=_health_checks(event),
        retry=model.retry,
        seed=seed,
        connect_tries=model.connect_tries,
        scale_seconds=model.scale_seconds,
        request_rate=event.requests_per_connection,
        kill=kill,
    )


def five_xx_shares(out: SimOutput, duration: float, window: float = PEAK_WINDOW_SECONDS,
                   broadcasts: int = 1, quiet_requests: float = 0.0) -> tuple[float, float, float]:
    """(peak 5-minute share, mean share over ``broadcasts`` bursts of ``duration`` plus ``quiet_requests``
    that do not fail, peak requests/s averaged over a window)."""
    peak, mean, peak_rps, _requests, _failed = _shares(out, duration, window, broadcasts, quiet_requests)
    return peak, mean, peak_rps


def _shares(out: SimOutput, duration: float, window: float, broadcasts: int,
            quiet_requests: float) -> tuple[float, float, float, float, float]:
    """:func:`five_xx_shares` and the window's (requests, 5xx)."""
    assert out.failed is not None and out.attempts is not None and out.requests is not None
    dt = out.step_seconds
    requests = out.attempts + out.requests
    width = max(1, int(round(window / dt)))
    starts = np.arange(0, len(requests), width)
    win_req = np.add.reduceat(requests, starts)
    win_fail = np.add.reduceat(out.failed, starts)
    shares = np.where(win_req >= 1.0, win_fail / np.maximum(win_req, 1.0), 0.0)
    simulated = len(requests) * dt
    rest = max(0.0, duration - simulated)
    last = max(1, min(len(requests), int(round(60.0 / dt))))  # the last minute goes on as it was
    tail_requests = rest * float(requests[-last:].sum()) / (last * dt)
    tail_failed = rest * float(out.failed[-last:].sum()) / (last * dt)
    total = broadcasts * (float(requests.sum()) + tail_requests) + quiet_requests
    mean = broadcasts * (float(out.failed.sum()) + tail_failed) / total if total > 0 else 0.0
    covered = np.minimum(width, len(requests) - starts) * dt
    failed = broadcasts * (float(out.failed.sum()) + tail_failed)
    return float(shares.max()), mean, float((win_req / covered).max()), total, failed


def run_event(event: Event, model: CapacityModel, seed: int = 0) -> EventOutcome:
    """One seeded run of the event."""
    out = simulate(sim_inputs(event, model, seed))
    peak, mean, peak_rps, requests, failed = _shares(out, event.duration_seconds, PEAK_WINDOW_SECONDS,
                                                     event.broadcasts, event.quiet_requests)
    return EventOutcome(
        event=event.name,
        seed=seed,
        peak_5xx=peak,
        mean_5xx=mean,
        failed_connects=float(out.refused.sum()),
        peak_requests_per_second=peak_rps,
        connections=[float(v) for v in out.held[-1]],
        still_retrying=out.pending_at_end,
        requests=requests,
        failed=failed,
    )


def predict(events: Sequence[Event], model: CapacityModel, seeds: int = DEFAULT_SEEDS) -> dict[str, dict[str, Band]]:
    """Every event's cells (``peak_5xx``, ``mean_5xx``, ``peak_requests_per_second``) as bands over seeds.

    Reads only the events and the model: no published figure enters here.
    """
    if seeds < 1:
        raise ModelInputError(f"--seeds: must be at least 1 (got {seeds})")
    out: dict[str, dict[str, Band]] = {}
    for event in events:
        runs = [run_event(event, model, seed) for seed in range(seeds)]
        out[event.name] = {
            "peak_5xx": Band.of([r.peak_5xx for r in runs]),
            "mean_5xx": Band.of([r.mean_5xx for r in runs]),
            "peak_requests_per_second": Band.of([r.peak_requests_per_second for r in runs]),
        }
    return out


def model_dict(model: CapacityModel) -> dict[str, object]:
    d = asdict(model)
    d["retry"] = str(model.retry)
    return d
