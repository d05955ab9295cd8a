"""Benchmark ``rehearse --engine locust`` beside the built-in engine, in one run (the machine is shared).

Prints, per case, connections/s of the burst, the burst's seconds and max/mean; then connections/s
per Locust worker process and the ratio 2 workers / 1 worker. Loopback only (127.0.0.x), every
run bounded by ``--max-seconds``.

    PYTHONPATH=constructs python benchmarks/bench_locust.py [--clients 1000] [--edges 20] [--repeat 2]
    PYTHONPATH=constructs python benchmarks/bench_locust.py --per-worker --clients 3000 --edges 30 --repeat 3

Measured here (2 cores shared with other work; figures move with the load): see docs/rehearsal.md,
"The same rehearsal as Locust workers", for the last figures and the command that printed them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "constructs"))

from edge_origin.rehearsal.plan import reference_plan  # noqa: E402
from edge_origin.rehearsal.runner import RehearsalConfig, rehearse  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--edges", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=2, help="interleaved runs per case (median printed)")
    parser.add_argument(
        "--per-worker", action="store_true",
        help="only Locust with 1 worker: print the per-worker connects/s that `rehearse --manifest` sizes workers by",
    )
    args = parser.parse_args()
    plan = reference_plan()
    base = {"clients": args.clients, "edges": args.edges, "duration": 2.0, "rpc_interval": 0.5, "max_seconds": 120.0}
    if args.per_worker:
        return per_worker(plan, base, args.repeat)
    cases = {
        "builtin, 1 client process": RehearsalConfig(**base),
        "locust, 1 worker": RehearsalConfig(**base, engine="locust", workers=1),
        "locust, 2 workers": RehearsalConfig(**base, engine="locust", workers=2),
    }
    figures: dict[str, list[tuple[float, float, float]]] = {name: [] for name in cases}
    for _ in range(args.repeat):
        for name, cfg in cases.items():
            run = rehearse(plan, cfg)
            figures[name].append((run.connections_per_second, run.burst_seconds, run.max_over_mean))
    print(f"N = {args.clients} clients, {args.edges} edges, multivalue reference plan, {args.repeat} interleaved runs (median)")
    print(f"{'case':<28} {'conn/s':>8} {'burst s':>8} {'max/mean':>9}")
    med = {}
    for name, rows in figures.items():
        cps, burst, mm = (statistics.median(col) for col in zip(*rows, strict=True))
        med[name] = cps
        print(f"{name:<28} {cps:>8.0f} {burst:>8.2f} {mm:>9.2f}")
    one, two = med["locust, 1 worker"], med["locust, 2 workers"]
    print(f"locust conn/s per worker process: 1 worker {one:.0f}, 2 workers {two / 2:.0f}")
    print(f"ratio 2 workers / 1 worker: {two / one:.2f}" if one else "ratio: n/a (no connections)")
    print(f"ratio locust 2 workers / builtin: {two / med['builtin, 1 client process']:.2f}")
    return 0


def per_worker(plan: object, base: dict, repeat: int) -> int:
    """One Locust worker process, ``repeat`` runs: connects/s of the burst (median, min, max)."""
    rates = []
    for _ in range(repeat):
        run = rehearse(plan, RehearsalConfig(**base, engine="locust", workers=1))
        rates.append(run.connections_per_second)
        print(f"run: {run.connections_per_second:.0f} conn/s, burst {run.burst_seconds:.2f} s, "
              f"{run.details['clients_connected']}/{base['clients']} connected", flush=True)
    print(f"N = {base['clients']} clients, {base['edges']} edges, 1 Locust worker, loopback, {repeat} runs")
    print(f"per-worker connects/s: median {statistics.median(rates):.0f}, min {min(rates):.0f}, max {max(rates):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
