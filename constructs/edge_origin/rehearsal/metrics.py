"""Figures of a rehearsal or a model run: per-origin counts, max/mean, burst, the kill report."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from edge_origin.rehearsal.dns_server import AuthoritativeServer
    from edge_origin.rehearsal.edges import EdgeResolver
    from edge_origin.rehearsal.engine import RehearsalConfig
    from edge_origin.rehearsal.health import HealthTracker
    from edge_origin.rehearsal.origins import ConnectionSampler, OriginServer
    from edge_origin.rehearsal.plan import DnsPlan

SPREAD_LIMIT = 1.35  # the model's fixed line: max/mean connections per origin at or under this spreads


def max_over_mean(counts: Mapping[str, int | float], keys: Sequence[str]) -> float:
    """max / mean of the counts over ``keys`` (origins with no count are zeros); 0.0 when all are zero."""
    values = [float(counts.get(k, 0)) for k in keys]
    total = sum(values)
    if not values or total <= 0:
        return 0.0
    return round(max(values) / (total / len(values)), 4)


def verdict(ratio: float) -> str:
    """The model's verdict on its expected figures: ``spread`` when max/mean <= :data:`SPREAD_LIMIT`,
    ``pile-up`` otherwise. A loopback run is one sample: :mod:`edge_origin.rehearsal.odds` judges it."""
    return "spread" if ratio <= SPREAD_LIMIT else "pile-up"


@dataclass
class RehearsalResult:
    """The figures; :meth:`to_dict` is the ``--json`` object."""

    mode: str
    plan: str
    routing: str
    policy: str
    origins: dict[str, str]  # origin key -> NLB
    connections: dict[str, int]
    rpcs: dict[str, int]
    max_over_mean: float
    rpcs_max_over_mean: float
    errors: dict[str, int]
    burst_seconds: float
    connections_per_second: float
    clients: int
    edges: int
    edge_rotation: bool
    verdict: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def text(self) -> str:
        """A human-readable summary."""
        wk = max([6, *(len(k) for k in self.origins)])
        wn = max([3, *(len(n) for n in self.origins.values())])
        lines = [
            f"{self.mode}: {self.plan} ({self.routing}), {self.clients} clients through {self.edges} edge(s)"
            f"{' rotating' if self.edge_rotation else ''}, policy {self.policy}",
            f"{'origin':<{wk}} {'nlb':<{wn}} {'connections':>12} {'rpcs':>10}",
        ]
        for key, nlb in self.origins.items():
            lines.append(f"{key:<{wk}} {nlb:<{wn}} {self.connections.get(key, 0):>12} {self.rpcs.get(key, 0):>10}")
        judged = self.details.get("judgement")
        per = next((f["measured"] for f in (judged or {}).get("figures", []) if f["figure"] == "per_resolver"), None)
        lines.append(
            f"max/mean connections {self.max_over_mean:.2f}, rpcs {self.rpcs_max_over_mean:.2f}"
            + ("" if per is None else f", among the clients of one resolver {per:.2f}")
            + ("" if judged else f": {self.verdict}")
        )
        if judged:
            lines.append(judged["text"])
        if self.details.get("seed") is not None:
            lines.append(f"seed {self.details['seed']} (--seed {self.details['seed']} replays the DNS answers, edge choices and release order)")
        lines.append(
            f"burst {self.burst_seconds:.2f} s, {self.connections_per_second:.0f} connections/s"
        )
        lines.append("errors: " + (", ".join(f"{k} {v}" for k, v in sorted(self.errors.items())) or "none"))
        kill = self.details.get("kill")
        if kill:
            lines.append(
                f"kill {kill['origin']} at {kill['at']:.2f} s: "
                + ("never dropped from DNS" if kill.get("dropped_at") is None else f"dropped from DNS at {kill['dropped_at']:.2f} s")
                + f" (window {kill['window_seconds']:.2f} s), "
                f"{kill['rpcs_failed']} RPCs failed, {kill['clients_moved']}/{kill['clients_on_killed']} "
                f"clients moved; answers naming it after the drop: {kill['answers_with_killed_after_drop']}"
            )
        late = self.details.get("late")
        if late:
            landed = ", ".join(f"{k} {v}" for k, v in sorted(late["landed"].items())) or "nowhere"
            lines.append(f"late clients ({late['clients']} at {late['at']:.2f} s) landed on: {landed}")
        locust = self.details.get("locust")
        if locust:
            for name, w in locust["per_worker"].items():
                landed = ", ".join(f"{k} {v}" for k, v in sorted(w["landed"].items())) or "nowhere"
                p50 = w["first_rpc_seconds"]["p50"]
                lines.append(
                    f"locust {name}: {w['edges']} edge(s), {w['connected']}/{w['clients']} clients connected, "
                    f"{w['failed_rpcs']} failed RPCs, first RPC p50 {'-' if p50 is None else f'{p50:.2f} s'}; landed on: {landed}"
                )
            if locust["lost_workers"]:
                lines.append(f"locust: {locust['lost_workers']} worker(s) lost, {locust['clients_lost']} clients lost")
            outputs = locust.get("outputs") or {}
            if outputs.get("csv"):
                lines.append(f"locust csv: {', '.join(outputs['csv'])}")
            if outputs.get("html"):
                lines.append(f"locust html: {outputs['html']}")
        if self.details.get("unbound"):
            from edge_origin.rehearsal.unbound import report_text

            lines.append(report_text(self.details["unbound"]))
        for note in self.details.get("notes", []):
            lines.append(f"note: {note}")
        return "\n".join(lines)


def _origin_at(timeline: Sequence[Sequence[Any]], t: float) -> str | None:
    """The origin a client was on at time ``t`` (its last change before ``t``)."""
    current = None
    for when, origin in timeline:
        if when > t:
            break
        current = origin
    return current


def kill_report(
    key: str,
    at: float,
    dropped_abs: float | None,
    released_at: float,
    window_seconds: float,
    clients: Sequence[Mapping[str, Any]],
    auth: AuthoritativeServer,
    edges: Sequence[EdgeResolver],
    ttl_seconds: float,
    served_after_kill: int | None = None,
) -> dict[str, Any]:
    """What killing ``key`` at ``at`` s did: failed RPCs, clients moved, answers after the drop.

    ``rpcs_on_killed_after_kill`` is what the killed origin itself served after it was stopped
    (``served_after_kill``, counted by the origin; the client-side count when not given).
    ``responses_read_after_kill`` is the client side: responses read after the kill, which on a
    loaded machine include RPCs the origin answered just before it (the client reads them later)."""
    dropped = None if dropped_abs is None else dropped_abs - released_at
    on_killed = [c for c in clients if _origin_at(c["origins"], at) == key]
    moved = [c for c in on_killed if any(t > at and o != key for t, o in c["origins"])]
    failed = sum(1 for c in clients for t, _code in c["error_log"] if t >= at)
    after_drop = 0
    edge_after = 0
    if dropped_abs is not None:
        after_drop = sum(1 for t, keys in auth.answers if t > dropped_abs and key in keys)
        ip = auth.addresses[key]
        edge_after = sum(1 for e in edges for t, ips in e.stats.fetches if t > dropped_abs and ip in ips)
    landed_after = sum(1 for c in clients for t, o in c["origins"] if o == key and t > at)
    return {
        "origin": key,
        "at": at,
        "dropped_at": None if dropped is None else round(dropped, 3),
        "window_seconds": window_seconds,
        "edge_caches_clear_by": None if dropped is None else round(dropped + ttl_seconds, 3),
        "rpcs_failed": failed,
        "clients_on_killed": len(on_killed),
        "clients_moved": len(moved),
        "all_moved": len(moved) == len(on_killed),
        "rpcs_on_killed_after_kill": landed_after if served_after_kill is None else served_after_kill,
        "responses_read_after_kill": landed_after,
        "answers_with_killed_after_drop": after_drop,
        "edge_fetches_with_killed_after_drop": edge_after,
    }


def summarize(
    *,
    plan: DnsPlan,
    cfg: RehearsalConfig,
    addresses: Mapping[str, str],
    origins: Sequence[OriginServer],
    sampler: ConnectionSampler | None,
    clients: Sequence[Mapping[str, Any]],
    released_at: float,
    auth: AuthoritativeServer,
    edges: Sequence[EdgeResolver],
    health: HealthTracker,
    killed: Mapping[str, Any],
    resources: Mapping[str, Any],
    wall_seconds: float,
    extra: Mapping[str, Any] | None = None,
) -> RehearsalResult:
    """Turn the servers' counters and the client records into a :class:`RehearsalResult`."""
    keys = plan.origin_keys
    from edge_origin.rehearsal.origins import connection_counts

    connections, transient = connection_counts(list(origins), sampler, count_idle=cfg.policy == "round_robin")
    late = [c for c in clients if c.get("start", 0) > 0]
    clients = [c for c in clients if c.get("start", 0) <= 0]
    rpcs = {o.key: o.rpcs for o in origins}
    errors: Counter[str] = Counter()
    for c in clients:
        errors.update(c["errors"])
    firsts = [c["first_ok"] for c in clients if c["first_ok"] is not None]
    burst = max(firsts) if firsts else 0.0
    connected = len(firsts)
    ratio = max_over_mean(connections, keys)
    from edge_origin.rehearsal.odds import judge_run

    shared = getattr(cfg, "resolver", "builtin") != "builtin"
    # unbound rotates the cached RRset per response (rrset-roundrobin, its default)
    judged = judge_run(plan, clients, ratio, policy=cfg.policy, rotation=cfg.edge_rotation or shared, edges=cfg.edges,
                       shared=shared)
    notes: list[str] = []
    if errors.get("RESOURCE_EXHAUSTED") or errors.get("CANCELLED"):
        notes.append(
            "RPCs were refused or cancelled (RESOURCE_EXHAUSTED/CANCELLED): a piled-up origin hit the gRPC "
            "server's pending-request limit (grpc.server.max_pending_requests), as a real origin would"
        )
    if sum(transient.values()):
        notes.append(
            f"{sum(transient.values())} extra connections opened and closed without an RPC (pick_first's "
            "parallel attempt when a connect is slow under the burst); not counted as held connections"
        )
    if connected < len(clients):
        notes.append(f"{len(clients) - connected} of {len(clients)} clients never completed an RPC")
    details: dict[str, Any] = {
        "addresses": dict(addresses),
        "transient_connections": transient,
        "clients_connected": connected,
        "first_rpc_seconds": {
            "p50": _quantile(firsts, 0.5),
            "p99": _quantile(firsts, 0.99),
        },
        "dns_queries": dict(auth.queries),
        "edge_fetches": {e.ip: len(e.stats.fetches) for e in edges},
        "edge_queries": {e.ip: e.stats.queries for e in edges},
        "time_scale": cfg.time_scale,
        "seed": cfg.seed,
        "judgement": {**judged.to_dict(), "text": judged.text()},
        # gRPC's own shuffle (pick_first shuffleAddressList) draws from gRPC's generator, not the seed:
        # what it drew shows as the first origin each client reached (index, edge, first origin; release order)
        "client_draws": [[c.get("index"), c.get("edge"), c["origins"][0][1] if c.get("origins") else None] for c in clients],
        "wall_seconds": round(wall_seconds, 3),
        "resources": dict(resources),
        "notes": notes,
        **(extra or {}),
    }
    if late:
        details["late"] = {
            "clients": len(late),
            "at": late[0]["start"],
            "landed": dict(Counter(c["origins"][0][1] for c in late if c["origins"])),
            "errors": dict(sum((Counter(c["errors"]) for c in late), Counter())),
        }
    if killed:
        key = killed["origin"]
        spec = next((r.health_check for r in plan.records if r.health_check and key in r.values), None)
        dropped_abs = health.unhealthy_since(spec.key) if spec else None
        window = spec.window_seconds * cfg.time_scale if spec else float("nan")
        details["kill"] = kill_report(
            key,
            killed["stopped_at"] - released_at,
            dropped_abs,
            released_at,
            round(window, 3),
            [*clients, *late],
            auth,
            edges,
            plan.ttl * cfg.time_scale,
            killed.get("served_after_stop"),
        )
        if spec is None:
            notes.append(f"{key} has no health check: Route 53 keeps answering with it")
    return RehearsalResult(
        mode="rehearsal",
        plan=plan.name,
        routing=plan.routing,
        policy=cfg.policy,
        origins={k: plan.nlb_of(k) for k in keys},
        connections=connections,
        rpcs=rpcs,
        max_over_mean=ratio,
        rpcs_max_over_mean=max_over_mean(rpcs, keys),
        errors=dict(errors),
        burst_seconds=round(burst, 3),
        # every distinct connection seen over the run (all origins with round_robin) / burst time
        connections_per_second=round(sum(connections.values()) / burst, 1) if burst > 0 else 0.0,
        clients=len(clients),
        edges=len(edges),
        edge_rotation=cfg.edge_rotation,
        verdict=judged.verdict,
        details=details,
    )


def _quantile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 4)
