"""Benchmark the flash-crowd rehearsal: N = 1k, 2k, 5k clients on the reference plan and a weighted variant.

Prints max/mean per policy, burst seconds, connections/s, peak memory and descriptors, checks the
targets of issue 5, and writes a chart. Each case runs in a fresh process so peak memory is its own.
First it times the internet-scale model (issue 13: 121 M devices over 600 edges, 10 simulated
minutes with health checks and reconnects, target < 10 s), prints the incident's table as the
model predicts it, and the sensitivity sweep over shared resolvers and the audience's spread.

    PYTHONPATH=constructs python benchmarks/bench_rehearsal.py [--sizes 1000,2000,5000] [--chart PATH]
        [--client-processes 2] [--cases multivalue-shuffle,...] [--model-only] [--model-chart PATH]

Model, measured here (2 cores, shared): 121 M devices / 600 edges / 10 min, health checks and
reconnects forever, capacity 20 M an address: 0.09-0.15 s with R = 1, 0.24-0.62 s with R = 600
(6,000 answer draws); the incident's capacity calibrates in ~0.7 s; the whole model part ~13 s.

Where a burst's time goes (2 cores, multivalue shuffle, per-thread CPU from /proc during the burst):
the machine is CPU-bound (parent + clients ~180-190 % of 200 %), so connections/s = 2 cores / CPU
per connection. Per connection at N = 1k: the clients' gRPC core ~1.0 ms (resolving is a small
part: with literal ipv4: targets it is still ~0.8 ms), the origins' gRPC core ~0.5 ms, the
origins' Python handlers ~0.3-0.4 ms, the edges ~0.04 ms, the clients' Python ~0.2 ms. What this
branch took out: the thread-pool grpcio server (poll thread + pool hand-offs per RPC: parent 1.5
-> 1.15 s CPU per 1k burst) replaced by grpc.aio servers on one loop; /proc/net/tcp sampling (at
5k: 2.3 s CPU per run, 0.8 s per sample) replaced by sock_diag netlink filtered to the origin port
(0.44 s per run); HTTP/2 BDP probes (~10 % of a 2k burst); and, above ~2k, one client process's
gRPC core queueing connects past pick_first's 2 s parallel-attempt delay (5k: ~2,000-2,500 extra
connections with 1 process, 15-150 with 2), hence --client-processes 2 here.

Measured (multivalue shuffle, 1 edge, 3 interleaved runs each, median conn/s and burst s):
    N      before (main)   this branch, 1 process   this branch, 2 processes
    1000   516 / 1.94      748 / 1.34               803 / 1.25
    2000   626 / 3.19      724 / 2.76               899 / 2.22
    5000   400 / 12.49     654 / 7.65               858 / 5.83
Still short of 1,000/s with one connection per client: the rest is grpcio's own per-channel cost
on both ends sharing 2 cores. The weighted plan through one edge at 5k now shows the origin's
pending-request limit (CANCELLED, ~2,000 RPCs with 2 processes): the clients reach the one
piled-up origin faster than its loop takes calls; with the limits raised the errors go away, so
they are the real symptom the issue asks to report, not a client fault.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "constructs"))

FIXTURES = ROOT / "tests" / "fixtures" / "rehearsal"
PLANS = {"multivalue": FIXTURES / "Reference.template.json", "weighted": FIXTURES / "ReferenceWeighted.template.json"}
NAME = "origin.example.com"
# (plan, policy, edges, edge rotation)
CASES = [
    ("multivalue", "shuffle", 1, False),
    ("multivalue", "pick_first", 1, True),
    ("multivalue", "round_robin", 1, False),
    ("weighted", "shuffle", 1, False),
    ("weighted", "shuffle", 20, False),
]


def run_case(plan: str, policy: str, edges: int, rotation: bool, clients: int, seed: int, processes: int = 1) -> dict:
    """One rehearsal in this process (called in a child of the driver)."""
    from edge_origin.rehearsal.from_model import load_plan
    from edge_origin.rehearsal.runner import RehearsalConfig, RehearsalError, rehearse

    dns_plan = load_plan([PLANS[plan]], NAME)
    cfg = RehearsalConfig(
        clients=clients,
        edges=edges,
        policy=policy,
        edge_rotation=rotation,
        seed=seed,
        time_scale=1.0,  # real TTL: the edges hold their answer for the whole burst
        duration=3.0,
        rpc_interval=1.0,
        max_seconds=120.0,
        client_processes=processes,
    )
    start = time.monotonic()
    try:
        result = rehearse(dns_plan, cfg).to_dict()
    except RehearsalError as exc:
        return {"skipped": str(exc)}
    result["wall_seconds"] = round(time.monotonic() - start, 2)
    result["peak_rss_mb_parent"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return result


MODEL_SEEDS = range(5)
INCIDENT = {"devices": 14_000_000, "edges": 600, "ramp_seconds": 10.0, "ttl": 60}  # see tests/rehearsal/test_model_incident.py


def model_benchmark(chart_path: str | None) -> None:
    """Time the model at internet scale, print the incident's table and the sensitivity sweep."""
    from dataclasses import replace
    from statistics import mean, median

    from edge_origin.forecast.montecarlo import ModelConfig, calibrate_capacity, run_model
    from edge_origin.rehearsal.from_model import load_plan
    from edge_origin.rehearsal.plan import reference_plan

    weighted6 = load_plan([PLANS["weighted"]], NAME)
    multivalue6 = load_plan([PLANS["multivalue"]], NAME)
    print("model timing (121 M devices, 600 edges, 30 s ramp, TTL 60, 10 simulated minutes, health checks, "
          "reconnects inf:1:120, capacity 20 M an address: 6 x 20 M < 121 M, so the storm never ends)")
    print(f"{'plan':<11}{'resolvers':>10}{'policy':>13}{'median s':>10}{'max s':>8}{'peak err':>10}{'answers':>9}")
    for plan in (weighted6, multivalue6):
        for resolvers in (1, 600):
            for policy in ("shuffle", "round_robin"):
                cfg = ModelConfig(devices=121_000_000, edges=600, resolvers=resolvers, ramp_seconds=30, ttl=60,
                                  policy=policy, origin_capacity=20_000_000, seed=1)
                times = []
                for _ in range(3):
                    start = time.perf_counter()
                    result = run_model(plan, cfg)
                    times.append(time.perf_counter() - start)
                print(f"{plan.routing:<11}{resolvers:>10}{policy:>13}{median(times):>10.3f}{max(times):>8.3f}"
                      f"{result.predicted_errors['peak'] * 100:>9.1f}%{result.details['answers_drawn']:>9}")

    base = ModelConfig(**INCIDENT, seed=1)
    w4, w2 = reference_plan(nlbs=2, zones=2, routing="weighted"), reference_plan(nlbs=1, zones=2, routing="weighted")
    start = time.perf_counter()
    capacity, four = calibrate_capacity(w4, base, 0.798, tolerance=0.001)
    print(f"\nincident ({INCIDENT['devices']:,} devices over {INCIDENT['ramp_seconds']:g} s, TTL 60, R = 1): capacity "
          f"calibrated to {capacity:,.0f} connections an address in {time.perf_counter() - start:.2f} s")
    at = replace(base, origin_capacity=capacity)
    two, mv = run_model(w2, at), run_model(multivalue6, at)
    print(f"{'plan':<26}{'published peak':>16}{'predicted peak':>16}{'predicted mean':>16}")
    for label, published, r in (("weighted, 2 IPs (27 Feb)", "~80 %", two), ("weighted, 4 IPs (1-2 Mar)", "79.80 %", four),
                                ("multivalue, 6 IPs (7-9 Mar)", "0.033 %", mv)):
        pe = r.predicted_errors
        print(f"{label:<26}{published:>16}{pe['peak'] * 100:>15.3f}%{pe['mean'] * 100:>15.3f}%")
    if chart_path:
        from edge_origin.rehearsal.chart import write_load_chart

        print(f"load chart (weighted, 4 IPs): {write_load_chart(four, chart_path)}")

    def peak(plan, **changes) -> float:  # noqa: ANN001 - a DnsPlan
        return mean(run_model(plan, replace(at, seed=s, **changes)).predicted_errors["peak"] for s in MODEL_SEEDS)

    sweep = [(f"R = {r} (E = 600, uniform)", {"resolvers": r}) for r in (1, 2, 4, 8, 16, 64, 600)]
    sweep += [(f"E = R = {e} (uniform)", {"edges": e, "resolvers": e}) for e in (1, 2, 8, 32, 600)]
    sweep += [(f"E = R = 600, {t}", {"resolvers": 600, "edge_traffic": t})
              for t in ("zipf:2", "zipf:1.5", "zipf:1", "zipf:0.5", "uniform")]
    print(f"\nsensitivity at that capacity: predicted peak 5-minute error share, mean of {len(MODEL_SEEDS)} seeds")
    print(f"{'case':<34}{'weighted 4':>12}{'weighted 2':>12}{'multivalue 6':>14}")
    for label, changes in sweep:
        print(f"{label:<34}{peak(w4, **changes) * 100:>11.1f}%{peak(w2, **changes) * 100:>11.1f}%"
              f"{peak(multivalue6, **changes) * 100:>13.3f}%")
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,2000,5000")
    parser.add_argument("--chart", default="rehearsal-benchmark.png")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--client-processes", type=int, default=2, help="client processes per run (default 2)")
    parser.add_argument("--cases", help="only these cases, e.g. multivalue-shuffle,weighted-shuffle-20")
    parser.add_argument("--model-only", action="store_true", help="only the model's timing, table and sweep")
    parser.add_argument("--model-chart", default="model-incident.png", help="the model's load chart (weighted, 4 IPs)")
    parser.add_argument("--case", help=argparse.SUPPRESS)  # internal: run one case, print JSON
    args = parser.parse_args()
    if args.case:
        plan, policy, edges, rotation, clients = json.loads(args.case)
        print(json.dumps(run_case(plan, policy, edges, rotation, clients, args.seed, args.client_processes)))
        return 0
    model_benchmark(args.model_chart)
    if args.model_only:
        return 0

    from edge_origin.rehearsal.chart import write_chart
    from edge_origin.rehearsal.metrics import RehearsalResult

    sizes = [int(s) for s in args.sizes.split(",")]

    def case_name(case: tuple) -> str:
        plan, policy, edges, rotation = case
        return f"{plan}-{policy}" + ("+rot" if rotation else "") + (f"-{edges}" if edges > 1 else "")

    wanted = set(args.cases.split(",")) if args.cases else None
    cases = [c for c in CASES if wanted is None or case_name(c) in wanted]
    print(f"{args.client_processes} client process(es) per run")
    header = (
        f"{'plan':<11}{'policy':<13}{'edges':>5}{'N':>7}{'max/mean':>10}{'burst s':>9}{'conn/s':>9}"
        f"{'errors':>8}{'rss MB p/c':>13}{'fds p/c':>13}{'wall s':>8}"
    )
    print(header)
    rows: list[tuple[tuple, int, dict]] = []
    for n in sizes:
        for case in cases:
            plan, policy, edges, rotation = case
            label = policy + ("+rot" if rotation else "")
            proc = subprocess.run(
                [
                    sys.executable, __file__, "--seed", str(args.seed),
                    "--client-processes", str(args.client_processes), "--case", json.dumps([*case, n]),
                ],
                capture_output=True,
                text=True,
                timeout=300,
            )
            if proc.returncode != 0 or not proc.stdout.strip():
                print(f"{plan:<11}{label:<13}{edges:>5}{n:>7}  failed: {proc.stderr.strip().splitlines()[-1:]}")
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            if "skipped" in r:
                print(f"{plan:<11}{label:<13}{edges:>5}{n:>7}  skipped: {r['skipped']}")
                continue
            res = r["details"]["resources"]
            errors = sum(r["errors"].values())
            print(
                f"{plan:<11}{label:<13}{edges:>5}{n:>7}{r['max_over_mean']:>10.2f}{r['burst_seconds']:>9.2f}"
                f"{r['connections_per_second']:>9.0f}{errors:>8}"
                f"{str(res['peak_rss_mb_parent']) + '/' + str(res['peak_rss_mb_clients']):>13}"
                f"{str(res['descriptors_parent']) + '/' + str(res['descriptors_clients']):>13}{r['wall_seconds']:>8}"
            )
            if r["errors"]:
                print("    errors: " + ", ".join(f"{k} {v}" for k, v in sorted(r["errors"].items())))
            for note in r["details"].get("notes", []):
                print(f"    note: {note}")
            rows.append((case, n, r))

    def find(plan: str, policy: str, edges: int, rotation: bool, n: int) -> dict | None:
        return next((r for c, m, r in rows if c == (plan, policy, edges, rotation) and m == n), None)

    print("\ntargets (issue 5):")
    mv = find("multivalue", "shuffle", 1, False, 2000)
    wt = find("weighted", "shuffle", 1, False, 2000)
    cps = max((r["connections_per_second"] for _c, _n, r in rows), default=0.0)
    single = max((r["connections_per_second"] for c, _n, r in rows if c[1] != "round_robin"), default=0.0)
    if mv:
        print(f"  multivalue max/mean at N=2k, 6 origins <= 1.10: {mv['max_over_mean']:.2f} "
              f"{'ok' if mv['max_over_mean'] <= 1.10 else 'MISSED'}")
    if wt:
        k = len(wt["origins"])
        print(f"  weighted K={k} through one edge >= 0.9 x K = {0.9 * k:.1f}: {wt['max_over_mean']:.2f} "
              f"{'ok' if wt['max_over_mean'] >= 0.9 * k else 'MISSED'}")
    print(f"  >= 1,000 connections/s on this machine: best {cps:.0f} {'ok' if cps >= 1000 else 'MISSED'}"
          f" (round_robin opens one per origin); one connection per client: best {single:.0f} "
          f"{'ok' if single >= 1000 else 'MISSED'}")

    chart_n = 2000 if 2000 in sizes else sizes[0]
    fields = set(RehearsalResult.__dataclass_fields__)
    panels = [RehearsalResult(**{k: v for k, v in r.items() if k in fields}) for c, m, r in rows if m == chart_n]
    if panels:
        print(f"\nchart ({chart_n} clients): {write_chart(panels, args.chart)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
