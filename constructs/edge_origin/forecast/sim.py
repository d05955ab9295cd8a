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

The code: :func:`simulate` runs ``_Engine.step`` once a step; the engine holds the run's state in
parts, each with its phase as a method: ``_Retries`` (the ring buffer: ``take_due``,
``reschedule``), ``_Engine.kill`` and ``_Engine.arrivals`` (step 1), ``_Answers.refresh`` (2),
``_Engine.spread`` (3), ``_Engine.connect`` over ``_Origins.room`` and the pure
``_connect_in_turn`` / ``_connect_each_address`` (4), ``_Engine.account`` (the per-step
``_Series``), ``_Health.update`` (5).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from edge_origin.core.facts import value
from edge_origin.forecast.inputs import ModelInputError, RetryPolicy
from edge_origin.rehearsal.answers import AnswerRecord, select_answer

NEGATIVE_CACHE_S: float = float(value("route53.negative_cache_s"))  # Route 53 default SOA: "no answer" cached
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
    negative_ttl: float = NEGATIVE_CACHE_S  # an empty answer is cached this long (Route 53's SOA), not the TTL


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


def _connect_each_address(
    offered: np.ndarray, room: np.ndarray, count: np.ndarray, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``round_robin``: (taken, refused per origin, refused devices per resolver). A device opens one
    connection per address of its answer and is refused only when every one of them is."""
    taken = np.minimum(offered, room)
    with np.errstate(divide="ignore", invalid="ignore"):
        share_ok = np.where(offered > 0, taken / offered, 1.0)
    refused_dev = count * np.prod(np.where(rows > 0, 1.0 - share_ok[None, :], 1.0), axis=1)
    return taken, offered - taken, refused_dev


def _connect_in_turn(
    attempts: np.ndarray, room: np.ndarray, masks: np.ndarray, tries: int
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray, float]:
    """``shuffle`` / ``pick_first``: a refused connect tries the next address of its answer, up to ``tries``
    addresses in all. (taken per try, refused per origin, refused devices per resolver, taken in all)."""
    k, groups = attempts.shape[1], attempts.shape[0]
    refused_o = np.zeros(k)
    refused_dev = np.zeros(groups)
    taken_total = 0.0
    takens: list[np.ndarray] = []
    trying = attempts
    for attempt in range(tries):
        offered = trying.sum(axis=0)
        taken = np.minimum(offered, room)
        room = room - taken
        with np.errstate(divide="ignore", invalid="ignore"):
            share_ok = np.where(offered > 0, taken / offered, 1.0)
        takens.append(taken)
        taken_total += float(taken.sum())
        refused_here = trying * (1.0 - share_ok)[None, :]
        refused_o += refused_here.sum(axis=0)
        if attempt == tries - 1 or not refused_here.any():
            refused_dev += refused_here.sum(axis=1)
            break
        trying = _next_address(refused_here, masks)
        refused_dev += np.clip(refused_here.sum(axis=1) - trying.sum(axis=1), 0.0, None)  # nowhere left
    return takens, refused_o, refused_dev, taken_total


@dataclass
class _Health:
    """The Route 53 health checks: each one's status, how long it has been failing or passing, its transitions."""

    checks: Sequence[HealthCheckModel]
    forced: frozenset[str]
    status: dict[str, bool]
    failing_for: dict[str, float]
    passing_for: dict[str, float]
    events: list[tuple[float, str, bool]] = field(default_factory=list)

    @classmethod
    def start(cls, checks: Sequence[HealthCheckModel], forced: frozenset[str]) -> _Health:
        status = {c.key: True for c in checks}
        return cls(checks, forced, status, dict.fromkeys(status, 0.0), dict.fromkeys(status, 0.0))

    def healthy(self, key: str) -> bool:
        return self.status.get(key, True) and key not in self.forced

    def update(self, over: np.ndarray, dt: float, now: float) -> None:
        """One step of Route 53 checks: ``window_seconds`` failing turns a check unhealthy, as long passing back."""
        for check in self.checks:
            if bool(over[list(check.origins)].any()):
                self.failing_for[check.key] += dt
                self.passing_for[check.key] = 0.0
            else:
                self.passing_for[check.key] += dt
                self.failing_for[check.key] = 0.0
            if self.status[check.key] and self.failing_for[check.key] >= check.window_seconds - 1e-9:
                self.status[check.key] = False
                self.events.append((round(now + dt, 6), check.key, False))
            elif not self.status[check.key] and self.passing_for[check.key] >= check.window_seconds - 1e-9:
                self.status[check.key] = True
                self.events.append((round(now + dt, 6), check.key, True))


@dataclass
class _Answers:
    """Each resolver's cached answer: a row of shares over the origins, its addresses (mask), its expiry."""

    inp: SimInputs
    index: dict[str, int]
    draw: random.Random
    rows: np.ndarray  # (groups, K)
    row_sums: np.ndarray  # (groups,)
    masks: np.ndarray  # (groups, K)
    expires: np.ndarray  # (groups,)
    row_cache: dict[tuple[str, ...], np.ndarray] = field(default_factory=dict)
    mask_cache: dict[tuple[str, ...], np.ndarray] = field(default_factory=dict)
    fetches: int = 0

    @classmethod
    def start(cls, inp: SimInputs, groups: int) -> _Answers:
        k = len(inp.keys)
        index = {key: i for i, key in enumerate(inp.keys)}
        return cls(inp, index, random.Random(inp.seed), np.zeros((groups, k)), np.zeros(groups),
                   np.zeros((groups, k)), np.full(groups, -np.inf))

    def refresh(self, count: np.ndarray, now: float, healthy: Callable[[str], bool]) -> None:
        """Resolvers with attempts whose answer expired ask Route 53 and cache the answer for the TTL; an empty
        answer (no record for the resolver: a geolocation or AZ-affinity name without its default) for the negative
        TTL of Route 53's default SOA, up to 900 s (the facts table), whatever the records' TTL."""
        asking = np.nonzero((count > 0) & (self.expires <= now + 1e-9))[0]
        if not len(asking):
            return
        inp, k = self.inp, len(self.index)
        fresh = []
        fresh_masks = []
        lives = []
        for _g in asking:
            answer = tuple(select_answer(inp.records, healthy, self.draw))
            lives.append(inp.ttl if answer else inp.negative_ttl)
            row = self.row_cache.get(answer)
            if row is None:
                row = self.row_cache[answer] = _answer_row(answer, self.index, k, inp.policy, inp.edge_rotation)
                self.mask_cache[answer] = _answer_mask(answer, self.index, k)
            fresh.append(row)
            fresh_masks.append(self.mask_cache[answer])
        self.rows[asking] = fresh
        self.masks[asking] = fresh_masks
        self.row_sums[asking] = self.rows[asking].sum(axis=1)
        self.expires[asking] = now + np.asarray(lives)
        self.fetches += len(asking)


@dataclass
class _Retries:
    """Devices waiting to reconnect: a ring buffer of future steps x retry classes x resolvers."""

    jitter: list[tuple[np.ndarray, np.ndarray]]
    classes: int
    horizon: int
    finite: bool
    buf: np.ndarray
    dense: np.ndarray | None  # the retry kernel as a (offset, class) matrix: one array operation a step
    ring: np.ndarray
    pending: float = 0.0
    gave_up: float = 0.0

    @classmethod
    def start(cls, retry: RetryPolicy, dt: float, groups: int) -> _Retries:
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
        dense: np.ndarray | None = None
        if classes >= 1 and groups <= DENSE_RESOLVERS:  # few resolvers: every class at once
            dense = np.zeros((horizon, classes))
            for klass, (offs, weights) in enumerate(jitter):
                np.add.at(dense[:, klass], offs, weights)
        return cls(jitter, classes, horizon, not math.isinf(retry.attempts), buf, dense, np.arange(horizon))

    def take_due(self, t: int) -> np.ndarray:
        """(classes, groups) devices whose reconnect falls in step ``t``, taken out of the buffer."""
        slot = t % self.horizon
        due = self.buf[slot].copy()
        self.buf[slot] = 0.0
        return due

    def schedule(self, t: int, klass: int, counts: np.ndarray) -> None:
        offs, weights = self.jitter[klass - 1]
        self.buf[(t + offs) % self.horizon, klass - 1, :] += weights[:, None] * counts[None, :]

    def reschedule(self, t: int, new: np.ndarray, due: np.ndarray, q: np.ndarray) -> None:
        """Refused shares ``q`` reconnect: first attempts -> retry 1, retry c -> c + 1 (forever: the last
        class repeats; finite: past the last class they give up)."""
        classes = self.classes
        if self.dense is not None:  # few resolvers: every class at once through the dense kernel
            refused_all = np.vstack([new[None, :], due[:classes]]) * q[None, :]
            refused_all[refused_all < DUST] = 0.0  # fluid dust would retry forever
            moved = refused_all[:classes].copy()
            if self.finite:
                self.gave_up += float(refused_all[classes].sum())
            else:
                moved[classes - 1] += refused_all[classes]
            if moved.any():
                self.buf[(t + self.ring) % self.horizon] += self.dense[:, :, None] * moved[None, :, :]
                self.pending += float(moved.sum())
            return
        for klass, refused in [(0, new * q), *((c, due[c - 1] * q) for c in range(1, classes + 1))]:
            counts = np.where(refused >= DUST, refused, 0.0)  # fluid dust would retry forever
            if not counts.any():
                continue
            nxt = klass + 1
            if nxt > classes:
                if self.finite:
                    self.gave_up += float(counts.sum())
                    continue
                nxt = classes
            self.schedule(t, nxt, counts)
            self.pending += float(counts.sum())


@dataclass
class _Origins:
    """Per origin address: connections held, RPCs, capacity (steady, ramping since first loaded, none when dead)."""

    conc: np.ndarray
    rate: np.ndarray
    scale_seconds: float
    dt: float
    held: np.ndarray
    rpcs: np.ndarray
    loaded_since: np.ndarray
    dead: np.ndarray

    @classmethod
    def start(cls, inp: SimInputs) -> _Origins:
        k = len(inp.keys)
        return cls(np.asarray(inp.concurrent_capacity, dtype=float), np.asarray(inp.rate_capacity, dtype=float),
                   inp.scale_seconds, inp.step_seconds, np.zeros(k), np.zeros(k), np.full(k, np.inf),
                   np.zeros(k, dtype=bool))

    def capacity(self, now: float) -> np.ndarray:
        """Each address's concurrent capacity: steady, or on its scaling ramp since it was first loaded."""
        if self.scale_seconds > 0:
            loaded = np.clip(now + self.dt - self.loaded_since, 0.0, None)
            # an unlimited address (no --origin-capacity) has nothing to ramp: it stays unlimited
            # (inf x 0 would be NaN before it is first loaded)
            with np.errstate(over="ignore"):  # a scale_seconds near 0 (subnormal): the ramp is full at once
                ramp = np.minimum(1.0, loaded / self.scale_seconds)
            unlimited = np.isinf(self.conc)
            cap = np.where(unlimited, np.inf, np.where(unlimited, 0.0, self.conc) * ramp)
        else:
            cap = self.conc.copy()
        cap[self.dead] = 0.0
        return cap

    def room(self, offered: np.ndarray, now: float) -> tuple[np.ndarray, np.ndarray]:
        """(capacity, room): an address offered attempts starts its ramp; room is what it takes this step."""
        self.loaded_since = np.where((offered > 0) & np.isinf(self.loaded_since), now, self.loaded_since)
        cap = self.capacity(now)
        return cap, np.clip(np.minimum(cap - self.held, self.rate * self.dt), 0.0, None)


@dataclass
class _Series:
    """The per-step figures of the run (rows: steps)."""

    accepted: np.ndarray
    refused: np.ndarray
    failed: np.ndarray
    attempts: np.ndarray
    requests: np.ndarray
    held: np.ndarray
    demand: np.ndarray

    @classmethod
    def start(cls, steps: int, k: int) -> _Series:
        return cls(*(np.zeros(steps) for _ in range(5)), np.zeros((steps, k)), np.zeros((steps, k)))


@dataclass
class _Engine:
    """The state of one run; :meth:`step` runs the phases of one step in the module docstring's order."""

    inp: SimInputs
    devices: np.ndarray  # (groups,) devices behind each resolver
    ramp_steps: int
    tries: int
    kill_index: int
    kill_at: float
    rng: np.random.Generator
    retries: _Retries
    answers: _Answers
    health: _Health
    origins: _Origins
    series: _Series
    joined: np.ndarray
    last_active: int | None = None

    @classmethod
    def start(cls, inp: SimInputs) -> _Engine:
        groups = len(inp.group_devices)
        retries = _Retries.start(inp.retry, inp.step_seconds, groups)
        devices = np.asarray(inp.group_devices, dtype=np.int64)
        ramp_steps = 1 if inp.ramp_seconds <= 0 else math.ceil(inp.ramp_seconds / inp.step_seconds - 1e-9)
        kill_index, kill_at = inp.kill if inp.kill is not None else (-1, math.inf)
        return cls(inp, devices, ramp_steps, max(1, int(inp.connect_tries)), kill_index, kill_at,
                   np.random.default_rng(inp.seed), retries, _Answers.start(inp, groups),
                   _Health.start(inp.checks, inp.forced_unhealthy), _Origins.start(inp),
                   _Series.start(inp.steps, len(inp.keys)), np.zeros_like(devices))

    def step(self, t: int) -> bool:
        """One step; False when nothing moves again (the rest of the run is this step's state)."""
        now = t * self.inp.step_seconds
        due = self.retries.take_due(t)
        self.kill(now, due)
        due_total = due.sum(axis=0)
        self.retries.pending -= float(due_total.sum())
        new = self.arrivals(t)
        count = new + due_total
        self.series.requests[t] = float(self.origins.held.sum()) * self.inp.request_rate * self.inp.step_seconds
        if not count.any():
            return self.idle(t, now)
        self.last_active = t
        self.answers.refresh(count, now, self.health.healthy)
        cap, refused_o, refused_dev, taken_total = self.connect(self.spread(new, due_total, count), count, now)
        q = self.account(t, count, refused_o, refused_dev, taken_total)
        if q.any():
            self.retries.reschedule(t, new, due, q)
        # Route 53 health checks of the origins past capacity
        self.health.update((self.origins.held >= cap - 0.5) | (refused_o > 0.5), self.inp.step_seconds, now)
        return True

    def kill(self, now: float, due: np.ndarray) -> None:
        """When ``kill`` fires, the killed origin's devices reconnect at once (as retry 1)."""
        origins, i = self.origins, self.kill_index
        if i < 0 or origins.dead[i] or now + 1e-9 < self.kill_at:
            return
        origins.dead[i] = True
        dropped = float(origins.held[i])
        origins.held[i] = 0.0
        weights = self.answers.masks[:, i] * self.devices
        if dropped > 0 and weights.sum() > 0:
            due[0] += dropped * weights / weights.sum()
            self.retries.pending += dropped

    def arrivals(self, t: int) -> np.ndarray:
        """New devices per resolver this step (the ramp)."""
        inp = self.inp
        joined_next = (_joined_by(self.devices, inp.ramp_seconds, (t + 1) * inp.step_seconds)
                       if t < self.ramp_steps else self.joined)
        new = (joined_next - self.joined).astype(float)
        self.joined = joined_next
        return new

    def idle(self, t: int, now: float) -> bool:
        """A step without attempts: the state carries on; False when nothing can move again."""
        held, series = self.origins.held, self.series
        series.held[t] = held
        series.demand[t] = held
        if (t >= self.ramp_steps and self.retries.pending <= 0.5
                and (self.kill_index < 0 or self.origins.dead[self.kill_index])):
            series.held[t:] = held
            series.demand[t:] = held
            series.requests[t:] = series.requests[t]
            return False
        self.health.update(held >= self.origins.capacity(now) - 0.5, self.inp.step_seconds, now)
        return True

    def spread(self, new: np.ndarray, due_total: np.ndarray, count: np.ndarray) -> np.ndarray:
        """(groups, K) attempts at each origin: first attempts under ``shuffle`` drawn per device."""
        rows = self.answers.rows
        if self.inp.policy == "shuffle" and new.any():
            attempts = due_total[:, None] * rows
            attempts += self.rng.multinomial(new.astype(np.int64), rows)
            return attempts
        return count[:, None] * rows

    def connect(
        self, attempts: np.ndarray, count: np.ndarray, now: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """(capacity, refused per origin, refused devices per resolver, accepted) of this step's attempts."""
        origins, answers = self.origins, self.answers
        offered = attempts.sum(axis=0)
        cap, room = origins.room(offered, now)
        if self.inp.policy == "round_robin":
            taken, refused_o, refused_dev = _connect_each_address(offered, room, count, answers.rows)
            origins.held += taken
            connected = count - refused_dev
            with np.errstate(divide="ignore", invalid="ignore"):
                origins.rpcs += np.nan_to_num((connected / answers.row_sums)[:, None] * answers.rows).sum(axis=0)
            return cap, refused_o, refused_dev, float(taken.sum())
        takens, refused_o, refused_dev, taken_total = _connect_in_turn(attempts, room, answers.masks, self.tries)
        for taken in takens:
            origins.held += taken
        return cap, refused_o, refused_dev, taken_total

    def account(self, t: int, count: np.ndarray, refused_o: np.ndarray, refused_dev: np.ndarray,
                taken_total: float) -> np.ndarray:
        """Record step ``t``; the refused share of each resolver's attempts."""
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.where(count > 0, refused_dev / count, 0.0)
        series, held = self.series, self.origins.held
        series.accepted[t] = taken_total
        series.refused[t] = refused_o.sum()
        series.failed[t] = float(refused_dev.sum())
        series.attempts[t] = float(count.sum())
        series.held[t] = held
        series.demand[t] = held + refused_o
        return q

    def output(self) -> SimOutput:
        origins, series = self.origins, self.series
        rpcs = origins.rpcs if self.inp.policy == "round_robin" else origins.held.copy()
        return SimOutput(
            step_seconds=self.inp.step_seconds,
            accepted=series.accepted,
            refused=series.refused,
            held=series.held,
            demand=series.demand,
            rpcs=rpcs,
            fetches=self.answers.fetches,
            gave_up=self.retries.gave_up,
            pending_at_end=max(0.0, self.retries.pending),
            last_active_step=self.last_active,
            health_events=self.health.events,
            failed=series.failed,
            attempts=series.attempts,
            requests=series.requests,
        )


def simulate(inp: SimInputs) -> SimOutput:
    """Run the steps; see the module docstring."""
    engine = _Engine.start(inp)
    for t in range(inp.steps):
        if not engine.step(t):
            break
    return engine.output()


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
