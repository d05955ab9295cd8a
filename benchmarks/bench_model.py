"""Benchmark the internet-scale model (issue 20): prints figures, asserts nothing.

    PYTHONPATH=constructs python benchmarks/bench_model.py

1. 121 M devices, 600 edges, 10 simulated minutes, with retries (gRPC backoff, forever),
   next-address tries (3, CloudFront's ConnectionAttempts), health checks (10 s x 3) and the
   capacity scaling ramp, on the 6-IP multivalue plan and the 4-IP weighted plan, for 1 and
   600 resolvers (target: each under 10 s here).
2. The fit of `edge-origin model fit` on the shipped events (target: under 60 s).

Wall and CPU seconds are both printed: the machine is shared, and wall time under load runs to
several times the CPU time (measured here: the fit 16 s CPU, 36-47 s wall under load, after the
dense retry kernel; 22 s CPU, 80-92 s wall before it).
"""

from __future__ import annotations

import time
from dataclasses import replace

from edge_origin.forecast.events import load_events
from edge_origin.forecast.events_run import CapacityModel, run_event
from edge_origin.forecast.fit import fit, load_published

DEVICES = 121_000_000


def main() -> None:
    events = {e.name: e for e in load_events()}
    for name in ("mar7-9", "mar1-2"):
        event = replace(events[name], concurrent_connections=float(DEVICES),
                        requests_per_second=DEVICES * events[name].requests_per_connection)
        for resolvers in (1, 600):
            model = CapacityModel(25_000_000, 60.0, resolvers=resolvers, edges=600, horizon_seconds=600.0)
            start, cpu = time.perf_counter(), time.process_time()
            out = run_event(event, model, seed=1)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            print(f"121 M devices, 600 edges, {resolvers:>3} resolver(s), {event.routing:<10} {event.ips} IPs, 600 s: "
                  f"{seconds:6.2f} s wall, {cpu:.2f} s CPU (target < 10 s); peak 5xx {out.peak_5xx * 100:.3f} %, "
                  f"failed connects {out.failed_connects:,.0f}, still retrying {out.still_retrying:,.0f}")
    evs = list(events.values())
    fit_cells, cells = load_published(None, evs)
    start, cpu = time.perf_counter(), time.process_time()
    result = fit(evs, fit_cells, cells, ceiling=False)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"fit on {', '.join(fit_cells)}: {seconds:.1f} s wall, {cpu:.1f} s CPU (target < 60 s), {result.runs} runs: "
          f"no ceiling, scale rate {result.model.steady_capacity / result.model.scale_seconds:,.0f} connections/s")


if __name__ == "__main__":
    main()
