"""The time-stepped engine of the internet-scale model: devices as counts, one row per caching resolver.

Every edge takes its resolver's cached answer, so everything the model needs per edge is summed
per resolver: the devices behind it, its cached answer (a row of shares over the origins), and
its devices waiting to reconnect (by retry number, in a ring buffer of future steps). A step:

1. due reconnects and new arrivals (the ramp) form each resolver's attempts;
2. a resolver whose answer expired and that has attempts asks Route 53
   (:func:`~edge_origin.rehearsal.answers.select_answer` with the current health) and caches the
   answer for the TTL;
3. attempts go to the origins as the load-balancing policy does (``shuffle``: a uniform address
   of the answer, drawn per device for first attempts; ``pick_first``: the first, or an even split
   with ``edge_rotation``; ``round_robin``: every address);
4. each origin accepts up to its room (concurrent connections left, and new connections a second
   x step; with ``scale_seconds`` the concurrent capacity ramps from zero since the origin was
   first loaded; a killed origin has none), refuses the rest; a refused connect tries the next
   address of its answer, up to ``connect_tries`` addresses (uniformly over the others: the
   order-free expectation of a shuffled list); a device refused on every address it tried is a
   failed attempt (``failed``), rescheduled with jittered exponential backoff (or gives up after
   its attempts). When ``kill`` fires, the killed origin's devices reconnect at once;
5. an origin that refused or is full fails its Route 53 health check; after ``failure_threshold x
   request_interval`` s of failing it leaves the answers (Route 53 fails open when none is
   healthy), and as long again of passing brings it back.

Counts are floats (a fluid model) except first attempts under ``shuffle``, drawn from a
multinomial so that small runs keep the per-device noise the loopback rehearsal shows. Refused
devices of one resolver are refused alike whatever their retry number (they are mixed). A device
keeps its connection for the run (a broadcast). A ``round_robin`` device opens one connection per
address of its answer; it is connected when any is accepted and retries only when all are refused.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from edge_origin.forecast.inputs import ModelInputError, RetryPolicy
from edge_origin.rehearsal.answers import AnswerRecord, select_answer

MAX_BUFFER_CELLS = 40_000_000  # retry ring buffer: steps x retry classes x resolvers (8 bytes each)
JITTER_SAMPLES = 41
DENSE_RESOLVERS = 16  # up to this many resolvers, reconnects are scheduled with one dense array operation
DUST = 1e-6  # refused shares of a device below this are dropped, not retried


@dataclass
class HealthCheckModel:
    """One Route 53 health check: the origins (indices) it probes and its failing/passing window."""

    key: str
    origins: tuple[int, ...]
    window_seconds: float


@dataclass
class SimInputs:
    """What the engine runs: the plan's records and origins, resolver rows, capacities, timing."""

    records: Sequence[AnswerRecord]
    keys: Sequence[str]
    group_devices: np.ndarray  # devices behind each resolver (int)
    ramp_seconds: float
    ttl: float
    step_seconds: float
    steps: int
    policy: str
    edge_rotation: bool
    concurrent_capacity: np.ndarray  # per origin, inf: no limit
    rate_capacity: np.ndarray  # new connections per second per origin, inf: no limit
    checks: Sequence[HealthCheckModel]
    retry: RetryPolicy
    forced_unhealthy: frozenset[str] = frozenset()
    seed: int | None = None
    connect_tries: int = 1  # addresses of the answer tried per attempt (CloudFront: ConnectionAttempts)
    scale_seconds: float = 0.0  # capacity ramp: an address holds C x min(1, loaded s / this); 0: steady at once
    request_rate: float = 0.0  # requests a second per connected device (steady traffic, for 5xx shares)
    kill: tuple[int, float] | None = None  # (origin index, seconds): that origin dies then, its devices reconnect


@dataclass
class SimOutput:
    """Per step (rows) and per origin (columns) figures of one run."""

    step_seconds: float
    accepted: np.ndarray  # (T,) accepted connection attempts per step
    refused: np.ndarray  # (T,) refused connection attempts per step
    held: np.ndarray  # (T, K) connections held at the end of each step
    demand: np.ndarray  # (T, K) held + refused this step: what the origin was asked to carry
    rpcs: np.ndarray  # (K,) where the RPCs go (round_robin spreads them over the held connections)
    fetches: int
    gave_up: float
    pending_at_end: float
    last_active_step: int | None  # last step with any attempt
    health_events: list[tuple[float, str, bool]] = field(default_factory=list)
    failed: np.ndarray | None = None  # (T,) device attempts refused on every address tried (a 5xx each)
    attempts: np.ndarray | None = None  # (T,) device attempts (first connects, reconnects, retries)
    requests: np.ndarray | None = None  # (T,) steady requests of connected devices


def _retry_classes(retry: RetryPolicy) -> int:
    """Retry classes tracked: every retry when finite, up to the first saturated delay when forever."""
    if not math.isinf(retry.attempts):
        return int(retry.attempts)
    k = 1
    while retry.delay(k) < retry.max_delay and k < 200:
        k += 1
    return k


def _jitter_offsets(retry: RetryPolicy, classes: int, dt: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """For retry k (1..classes): step offsets (>= 1) and their weights, delay uniform in +-jitter."""
    u = (np.arange(JITTER_SAMPLES) + 0.5) / JITTER_SAMPLES * 2.0 - 1.0
    out: list[tuple[np.ndarray, np.ndarray]] = []
    for k in range(1, classes + 1):
        delays = retry.delay(k) * (1.0 + retry.jitter * u)
        offs = np.maximum(1, np.rint(delays / dt).astype(np.int64))
        uniq, counts = np.unique(offs, return_counts=True)
        out.append((uniq, counts / counts.sum()))
    return out


def _answer_mask(answer: Sequence[str], index: dict[str, int], k: int) -> np.ndarray:
    mask = np.zeros(k)
    for key in answer:
        mask[index[key]] = 1.0
    return mask


def _next_address(refused: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Where refused connects go next: uniformly over the other addresses of their answer (none left: nowhere)."""
    n = mask.sum(axis=1)
    per = np.where(n > 1, 1.0 / np.maximum(n - 1, 1), 0.0)
    return mask * (refused.sum(axis=1)[:, None] - refused) * per[:, None]


def _answer_row(answer: Sequence[str], index: dict[str, int], k: int, policy: str, rotation: bool) -> np.ndarray:
    row = np.zeros(k)
    if not answer:
        return row
    if policy == "pick_first" and not rotation:
        row[index[answer[0]]] = 1.0
    elif policy == "round_robin":
        for key in answer:
            row[index[key]] = 1.0
    else:
        for key in answer:
            row[index[key]] += 1.0 / len(answer)
    return row


def _joined_by(devices: np.ndarray, ramp: float, seconds: float) -> np.ndarray:
    """Whole devices per resolver that joined by ``seconds`` (uniform over the ramp; all at 0 when ramp is 0)."""
    if seconds <= 0:
        return np.zeros_like(devices)
    frac = 1.0 if ramp <= 0 else min(1.0, seconds / ramp)
    return devices.copy() if frac >= 1.0 else np.floor(devices * frac).astype(devices.dtype)


def _update_health(
    checks: Sequence[HealthCheckModel],
    over: np.ndarray,
    dt: float,
    now: float,
    status: dict[str, bool],
    failing_for: dict[str, float],
    passing_for: dict[str, float],
    events: list[tuple[float, str, bool]],
) -> None:
    """One step of Route 53 checks: ``window_seconds`` failing turns a check unhealthy, as long passing back."""
    for check in checks:
        if bool(over[list(check.origins)].any()):
            failing_for[check.key] += dt
            passing_for[check.key] = 0.0
        else:
            passing_for[check.key] += dt
            failing_for[check.key] = 0.0
        if status[check.key] and failing_for[check.key] >= check.window_seconds - 1e-9:
            status[check.key] = False
            events.append((round(now + dt, 6), check.key, False))
        elif not status[check.key] and passing_for[check.key] >= check.window_seconds - 1e-9:
            status[check.key] = True
            events.append((round(now + dt, 6), check.key, True))


def simulate(inp: SimInputs) -> SimOutput:
    """Run the steps; see the module docstring."""
    dt = inp.step_seconds
    steps = inp.steps
    keys = list(inp.keys)
    k = len(keys)
    index = {key: i for i, key in enumerate(keys)}
    groups = len(inp.group_devices)
    rng = np.random.default_rng(inp.seed)
    draw = random.Random(inp.seed)
    retry = inp.retry
    classes = _retry_classes(retry)
    jitter = _jitter_offsets(retry, classes, dt)
    horizon = 1 + max((int(offs.max()) for offs, _w in jitter), default=1)
    if horizon * max(classes, 1) * groups > MAX_BUFFER_CELLS:
        raise ModelInputError(
            f"--resolvers {groups} with --retry {retry} at --step {dt:g} needs "
            f"{horizon * classes * groups:,} retry cells (limit {MAX_BUFFER_CELLS:,}): use fewer resolvers, "
            "fewer attempts or a longer step"
        )
    buf = np.zeros((horizon, max(classes, 1), groups))
    devices = np.asarray(inp.group_devices, dtype=np.int64)
    joined = np.zeros_like(devices)
    ramp_steps = 1 if inp.ramp_seconds <= 0 else math.ceil(inp.ramp_seconds / dt - 1e-9)

    conc = np.asarray(inp.concurrent_capacity, dtype=float)
    rate = np.asarray(inp.rate_capacity, dtype=float)
    rows = np.zeros((groups, k))
    row_sums = np.zeros(groups)
    expires = np.full(groups, -np.inf)
    held = np.zeros(k)
    rpcs = np.zeros(k)
    status = {c.key: True for c in inp.checks}
    failing_for = dict.fromkeys(status, 0.0)
    passing_for = dict.fromkeys(status, 0.0)
    events: list[tuple[float, str, bool]] = []
    row_cache: dict[tuple[str, ...], np.ndarray] = {}
    forced = inp.forced_unhealthy

    def healthy(key: str) -> bool:
        return status.get(key, True) and key not in forced

    accepted_t = np.zeros(steps)
    refused_t = np.zeros(steps)
    failed_t = np.zeros(steps)
    attempts_t = np.zeros(steps)
    requests_t = np.zeros(steps)
    held_t = np.zeros((steps, k))
    demand_t = np.zeros((steps, k))
    masks = np.zeros((groups, k))
    mask_cache: dict[tuple[str, ...], np.ndarray] = {}
    loaded_since = np.full(k, np.inf)
    fetches = 0
    gave_up = 0.0
    pending = 0.0
    last_active: int | None = None
    round_robin = inp.policy == "round_robin"
    finite = not math.isinf(retry.attempts)
    tries = max(1, int(inp.connect_tries))
    kill_index, kill_at = inp.kill if inp.kill is not None else (-1, math.inf)
    dead = np.zeros(k, dtype=bool)

    # the retry kernel as a dense (offset, class) matrix: one array operation a step for few resolvers
    dense: np.ndarray | None = None
    ring = np.arange(horizon)
    if classes >= 1 and groups <= DENSE_RESOLVERS:
        dense = np.zeros((horizon, classes))
        for klass, (offs, weights) in enumerate(jitter):
            np.add.at(dense[:, klass], offs, weights)

    def schedule(t: int, klass: int, counts: np.ndarray) -> None:
        offs, weights = jitter[klass - 1]
        buf[(t + offs) % horizon, klass - 1, :] += weights[:, None] * counts[None, :]

    def capacity_now(now: float) -> np.ndarray:
        """Each address's concurrent capacity: steady, or on its scaling ramp since it was first loaded."""
        if inp.scale_seconds > 0:
            loaded = np.clip(now + dt - loaded_since, 0.0, None)
            cap = conc * np.minimum(1.0, loaded / inp.scale_seconds)
        else:
            cap = conc.copy()
        cap[dead] = 0.0
        return cap

    t = 0
    for t in range(steps):
        now = t * dt
        slot = t % horizon
        due = buf[slot].copy()
        buf[slot] = 0.0
        if kill_index >= 0 and not dead[kill_index] and now + 1e-9 >= kill_at:
            dead[kill_index] = True
            dropped = float(held[kill_index])
            held[kill_index] = 0.0
            weights = masks[:, kill_index] * devices
            if dropped > 0 and weights.sum() > 0:
                due[0] += dropped * weights / weights.sum()  # its devices reconnect at once (as retry 1)
                pending += dropped
        due_total = due.sum(axis=0)
        pending -= float(due_total.sum())
        joined_next = _joined_by(devices, inp.ramp_seconds, (t + 1) * dt) if t < ramp_steps else joined
        new = (joined_next - joined).astype(float)
        joined = joined_next
        count = new + due_total
        requests_t[t] = float(held.sum()) * inp.request_rate * dt
        if not count.any():
            held_t[t] = held
            demand_t[t] = held
            if t >= ramp_steps and pending <= 0.5 and (kill_index < 0 or dead[kill_index]):  # nothing moves again
                held_t[t:] = held
                demand_t[t:] = held
                requests_t[t:] = requests_t[t]
                break
            _update_health(inp.checks, held >= capacity_now(now) - 0.5, dt, now, status, failing_for,
                           passing_for, events)
            continue
        last_active = t
        asking = np.nonzero((count > 0) & (expires <= now + 1e-9))[0]
        if len(asking):
            fresh = []
            fresh_masks = []
            for _g in asking:
                answer = tuple(select_answer(inp.records, healthy, draw))
                row = row_cache.get(answer)
                if row is None:
                    row = row_cache[answer] = _answer_row(answer, index, k, inp.policy, inp.edge_rotation)
                    mask_cache[answer] = _answer_mask(answer, index, k)
                fresh.append(row)
                fresh_masks.append(mask_cache[answer])
            rows[asking] = fresh
            masks[asking] = fresh_masks
            row_sums[asking] = rows[asking].sum(axis=1)
            expires[asking] = now + inp.ttl
            fetches += len(asking)
        if inp.policy == "shuffle" and new.any():
            attempts = due_total[:, None] * rows
            attempts += rng.multinomial(new.astype(np.int64), rows)
        else:
            attempts = count[:, None] * rows
        offered = attempts.sum(axis=0)
        loaded_since = np.where((offered > 0) & np.isinf(loaded_since), now, loaded_since)
        cap = capacity_now(now)
        room = np.clip(np.minimum(cap - held, rate * dt), 0.0, None)
        if round_robin:
            taken = np.minimum(offered, room)
            with np.errstate(divide="ignore", invalid="ignore"):
                share_ok = np.where(offered > 0, taken / offered, 1.0)
            held += taken
            refused_o = offered - taken
            taken_total = float(taken.sum())
            refused_dev = count * np.prod(np.where(rows > 0, 1.0 - share_ok[None, :], 1.0), axis=1)
            connected = count - refused_dev
            with np.errstate(divide="ignore", invalid="ignore"):
                rpcs += np.nan_to_num((connected / row_sums)[:, None] * rows).sum(axis=0)
        else:
            # a refused connect tries the next address of its answer, up to ``tries`` addresses in all
            refused_o = np.zeros(k)
            refused_dev = np.zeros(groups)
            taken_total = 0.0
            trying = attempts
            for attempt in range(tries):
                offered = trying.sum(axis=0)
                taken = np.minimum(offered, room)
                room = room - taken
                with np.errstate(divide="ignore", invalid="ignore"):
                    share_ok = np.where(offered > 0, taken / offered, 1.0)
                held += taken
                taken_total += float(taken.sum())
                refused_here = trying * (1.0 - share_ok)[None, :]
                refused_o += refused_here.sum(axis=0)
                if attempt == tries - 1 or not refused_here.any():
                    refused_dev += refused_here.sum(axis=1)
                    break
                trying = _next_address(refused_here, masks)
                refused_dev += np.clip(refused_here.sum(axis=1) - trying.sum(axis=1), 0.0, None)  # nowhere left
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.where(count > 0, refused_dev / count, 0.0)
        accepted_t[t] = taken_total
        refused_t[t] = refused_o.sum()
        failed_t[t] = float(refused_dev.sum())
        attempts_t[t] = float(count.sum())
        held_t[t] = held
        demand_t[t] = held + refused_o
        # reconnects: first attempts -> retry 1, retry c -> c + 1 (forever: the last class repeats)
        if q.any():
            if dense is not None:  # few resolvers: every class at once through the dense kernel
                refused_all = np.vstack([new[None, :], due[:classes]]) * q[None, :]
                refused_all[refused_all < DUST] = 0.0  # fluid dust would retry forever
                moved = refused_all[:classes].copy()
                if finite:
                    gave_up += float(refused_all[classes].sum())
                else:
                    moved[classes - 1] += refused_all[classes]
                if moved.any():
                    buf[(t + ring) % horizon] += dense[:, :, None] * moved[None, :, :]
                    pending += float(moved.sum())
            else:
                for klass, refused in [(0, new * q), *((c, due[c - 1] * q) for c in range(1, classes + 1))]:
                    counts = np.where(refused >= DUST, refused, 0.0)  # fluid dust would retry forever
                    if not counts.any():
                        continue
                    nxt = klass + 1
                    if nxt > classes:
                        if finite:
                            gave_up += float(counts.sum())
                            continue
                        nxt = classes
                    schedule(t, nxt, counts)
                    pending += float(counts.sum())
        # Route 53 health checks of the origins past capacity
        _update_health(inp.checks, (held >= cap - 0.5) | (refused_o > 0.5), dt, now, status, failing_for,
                       passing_for, events)
    if not round_robin:
        rpcs = held.copy()
    return SimOutput(
        step_seconds=dt,
        accepted=accepted_t,
        refused=refused_t,
        held=held_t,
        demand=demand_t,
        rpcs=rpcs,
        fetches=fetches,
        gave_up=gave_up,
        pending_at_end=max(0.0, pending),
        last_active_step=last_active,
        health_events=events,
        failed=failed_t,
        attempts=attempts_t,
        requests=requests_t,
    )


def error_shares(
    out: SimOutput, window_seconds: float = 300.0, sliding: bool = False
) -> tuple[float, float, float | None]:
    """(peak, mean, peak window start s): failed / device attempts over the worst window and over the run.

    A device attempt fails when every address it tried refused it (one try: a refused connect).

    Windows are ``window_seconds`` long and start at 0, when the crowd starts (as CloudWatch
    periods are aligned to the clock); ``sliding`` takes the worst window starting at any step
    instead (it can leave out the first, accepted, burst and see only the reconnect storm). A
    window needs one whole attempt to count (a fluid tail is a fraction of a device).
    """
    if out.failed is not None and out.attempts is not None:  # device attempts: a refused connect that the
        attempts, refused = out.attempts, out.failed  # next address took is not an error
    else:
        attempts, refused = out.accepted + out.refused, out.refused
    total = float(attempts.sum())
    mean = float(refused.sum()) / total if total > 0 else 0.0
    width = max(1, min(len(attempts), int(round(window_seconds / out.step_seconds))))
    ca = np.concatenate([[0.0], np.cumsum(attempts)])
    cr = np.concatenate([[0.0], np.cumsum(refused)])
    if sliding:
        starts = np.arange(0, len(attempts) - width + 1)
        ends = starts + width
    else:
        starts = np.arange(0, len(attempts), width)
        ends = np.minimum(starts + width, len(attempts))
    win_a = ca[ends] - ca[starts]
    win_r = cr[ends] - cr[starts]
    valid = win_a >= 1.0
    if not valid.any():
        return 0.0, mean, None
    shares = np.where(valid, win_r / np.where(valid, win_a, 1.0), -1.0)
    worst = int(np.argmax(shares))
    return float(shares[worst]), mean, float(starts[worst]) * out.step_seconds
