"""The model and the loopback rehearsal on the same small plans, side by side (issue 20).

Plans: the reference plan (2 NLBs x 3 zones, TTL 60, checks 10 s x 3), weighted and multivalue;
1, 20 or 50 edges, each its own cache (the loopback's setup, so the model runs ``resolvers =
edges``); one origin killed mid-burst. Figures compared: max/mean connections per origin at the
end (the killed one holds none on both sides) and failed connections (clients that never
connected, plus the loopback's RPCs failed after the kill against the model's attempts refused
on every address tried). The model's clients try every address of their answer (gRPC
pick_first walks the whole list), with no capacity limit (loopback origins refuse nothing).
The loopback compresses time by ``time_scale``; the model runs in plan seconds.

Each side's max/mean is one sample, so it is judged as the rehearsal judges a run
(:mod:`edge_origin.rehearsal.odds`): over the surviving origins, against the distributions one
address per resolver and one per client give for this plan, these edges and clients; the two
sides agree when they make no opposite calls (an inconclusive sample contradicts nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from edge_origin.forecast.events import Event
from edge_origin.forecast.events_run import CapacityModel
from edge_origin.forecast.sim import simulate
from edge_origin.rehearsal.metrics import max_over_mean
from edge_origin.rehearsal.odds import INCONCLUSIVE
from edge_origin.rehearsal.plan import DnsPlan, reference_plan

KILLED = "Nlb1Eip1"
TIME_SCALE = 0.1
SPREAD_BAND = 0.6  # without calls (rows built by hand): max/mean agree within this
FAILED_BAND = 0.1  # failed connections within this share of the clients


@dataclass
class Agreement:
    routing: str
    edges: int
    clients: int
    model_spread: tuple[float, float]  # band over seeds (min, max)
    loopback_spread: float | None
    model_failed: tuple[float, float]
    loopback_failed: int | None
    model_calls: tuple[str, ...] = ()  # each model seed's sample judged (spread / pile-up / inconclusive)
    loopback_call: str | None = None

    def spread_agrees(self) -> bool:
        """No opposite calls between the loopback's sample and the model's; without calls, the band."""
        if self.loopback_call is None:
            assert self.loopback_spread is not None
            return self.model_spread[0] - SPREAD_BAND <= self.loopback_spread <= self.model_spread[1] + SPREAD_BAND
        made = {c for c in self.model_calls if c != INCONCLUSIVE}
        return self.loopback_call == INCONCLUSIVE or not made or self.loopback_call in made

    def agrees(self) -> bool | None:
        """The spread judged as samples (:meth:`spread_agrees`) and the failed connections within the band."""
        if self.loopback_spread is None or self.loopback_failed is None:
            return None
        slack = FAILED_BAND * self.clients + 1
        return self.spread_agrees() and self.model_failed[0] - slack <= self.loopback_failed <= self.model_failed[1] + slack


def _event(routing: str, clients: int, burst_seconds: float) -> Event:
    return Event(name=f"{routing}-{clients}", label="", routing=routing, ips=6, concurrent_connections=float(clients),
                 requests_per_second=float(clients), ramp_seconds=burst_seconds, duration_seconds=120.0, ttl=60,
                 health_check_interval=10, failure_threshold=3)


def survivors(plan: DnsPlan) -> DnsPlan:
    """The plan without the killed origin's record: what answers after the kill."""
    records = tuple(r for r in plan.records if KILLED not in r.values)
    return DnsPlan(plan.name, records, tuple(o for o in plan.origins if o.key != KILLED))


def judge_sample(routing: str, edges: int, clients: int, counts: Mapping[str, float]) -> str:
    """One side's connections at the end judged as a sample over the surviving origins (odds, overall figure)."""
    from edge_origin.rehearsal import odds

    plan = survivors(reference_plan(routing=routing))
    shape = odds.plan_shape(plan, odds.clients_per_resolver(clients, edges), "shuffle")
    ratio = max_over_mean(counts, plan.origin_keys)
    # a value neither mechanism gives (clients re-resolving in waves after the kill) is not called
    return odds.judge(shape, {"overall": ratio}, policy="shuffle", edges=edges, advise=False,
                      floor=odds.PLAUSIBLE).verdict


def model_side(routing: str, edges: int, clients: int, seed: int, burst_seconds: float = 10.0,
               kill_at: float = 5.0) -> tuple[float, float]:
    """(max/mean connections at the end, failed connections) of the model with ``KILLED`` dying at ``kill_at``."""
    final, failed = model_counts(routing, edges, clients, seed, burst_seconds, kill_at)
    return max_over_mean(final, list(final)), failed


def model_counts(routing: str, edges: int, clients: int, seed: int, burst_seconds: float = 10.0,
                 kill_at: float = 5.0) -> tuple[dict[str, float], float]:
    """(connections per origin at the end, failed connections) of the model with ``KILLED`` dying at ``kill_at``."""
    from edge_origin.forecast.events_run import sim_inputs

    event = _event(routing, clients, burst_seconds)
    keys = event.plan().origin_keys
    model = CapacityModel(1e12, 0.0, connect_tries=len(keys), resolvers=edges, edges=edges, horizon_seconds=120.0,
                          step_seconds=0.5)
    out = simulate(sim_inputs(event, model, seed, kill=(keys.index(KILLED), kill_at)))
    final = dict(zip(keys, (float(v) for v in out.held[-1]), strict=True))
    return final, float(out.failed.sum()) + out.pending_at_end


def loopback_side(routing: str, edges: int, clients: int, seed: int, kill_at: float = 0.5) -> tuple[float, int]:
    """(max/mean connections, failed connections) of the loopback rehearsal with ``KILLED`` stopped at ``kill_at`` s."""
    ratio, failed, _counts = loopback_run(routing, edges, clients, seed, kill_at)
    return ratio, failed


def loopback_run(routing: str, edges: int, clients: int, seed: int, kill_at: float = 0.5) -> tuple[float, int, dict[str, int]]:
    """:func:`loopback_side` and the connections per origin."""
    from edge_origin.rehearsal import runner

    plan = reference_plan(routing=routing)
    result = runner.rehearse(plan, runner.RehearsalConfig(clients=clients, edges=edges, seed=seed, kill=(KILLED, kill_at),
                                                          time_scale=TIME_SCALE, duration=3.0, max_seconds=60.0))
    never = clients - int(result.details.get("clients_connected", clients))
    failed = int(result.details.get("kill", {}).get("rpcs_failed", 0))
    counts = {k.rsplit("/", 1)[-1]: v for k, v in result.connections.items()}  # template keys -> plan keys
    return result.max_over_mean, never + failed, counts


def compare(routing: str, edges: int, clients: int, seed: int = 1, loopback: bool = True, seeds: int = 8) -> Agreement:
    runs = [model_counts(routing, edges, clients, s) for s in range(seeds)]
    spreads = [max_over_mean(final, list(final)) for final, _ in runs]
    failed = [r[1] for r in runs]
    calls = tuple(judge_sample(routing, edges, clients, final) for final, _ in runs)
    lb_spread = lb_failed = lb_call = None
    if loopback:
        lb_spread, lb_failed, lb_counts = loopback_run(routing, edges, clients, seed)
        lb_call = judge_sample(routing, edges, clients, lb_counts)
    return Agreement(routing, edges, clients, (min(spreads), max(spreads)), lb_spread, (min(failed), max(failed)),
                     lb_failed, calls, lb_call)


def table_text(rows: list[Agreement]) -> str:
    lines = [f"{'plan':<11} {'edges':>5} {'clients':>7} {'max/mean model':>15} {'loopback':>9} "
             f"{'failed model':>13} {'loopback':>9}  agree (model: band over seeds)"]
    for r in rows:
        lb_s = "-" if r.loopback_spread is None else f"{r.loopback_spread:.2f}"
        lb_f = "-" if r.loopback_failed is None else str(r.loopback_failed)
        ok = r.agrees()
        spread = f"{r.model_spread[0]:.2f}..{r.model_spread[1]:.2f}"
        failed = f"{round(r.model_failed[0]) + 0}..{round(r.model_failed[1]) + 0}"
        lines.append(f"{r.routing:<11} {r.edges:>5} {r.clients:>7} {spread:>15} {lb_s:>9} "
                     f"{failed:>13} {lb_f:>9}  {'-' if ok is None else ('yes' if ok else 'NO')}")
    lines.append("max/mean judged as samples (rehearsal odds, over the surviving origins): no opposite calls; "
                 f"failed within {FAILED_BAND:.0%} of the clients + 1")
    return "\n".join(lines)


def to_dict(r: Agreement) -> dict[str, Any]:
    return {**r.__dict__, "agrees": r.agrees()}
