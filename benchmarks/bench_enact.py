"""Concurrent enactors on the strict Route 53: throughput and the two invariants.

Run from the repo root: ``PYTHONPATH=constructs python benchmarks/bench_enact.py [--writers 8]
[--plans 200] [--delay-ms 1.0] [--seed 1]``.

Each writer enacts ``--plans`` plans one after another; every plan takes the next generation from
a shared planner counter (so plans arrive out of order at Route 53, as with independent
enactors), holds 1-6 random addresses of a pool of 8, and waits a random 0..``--delay-ms``
between reading the live state and sending its batch. Inside the strict layer, under its lock,
every applied batch is checked: a generation not above the one before is a *stale apply*, a
batch that leaves the name without A records is an *empty answer*. Both must be 0.
Prints: plans applied, refused stale (generation no longer above the live one), re-planned after a
lost race, other refusals, batches/s, and the counters.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "constructs"))

from edge_origin.live.enact import EnactOptions, Refusal, StalePlan, enact  # noqa: E402
from edge_origin.live.name_state import Generation, read_name  # noqa: E402
from edge_origin.live.plans import LiveHealthCheckSpec, LivePlanRecord, Plan  # noqa: E402
from edge_origin.testing.route53 import StrictRoute53  # noqa: E402

NAME = "origin.example.com."
POOL = [f"203.0.113.{10 + n}" for n in range(8)]


def plan_of(zone_id: str, generation: int, ips: list[str]) -> Plan:
    records = tuple(LivePlanRecord("nlb-" + ip.replace(".", "-"), ip, "us-east-1a", None, LiveHealthCheckSpec("TCP", 443)) for ip in ips)
    return Plan(NAME, zone_id, generation, 60, records)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--plans", type=int, default=200, help="plans per writer")
    parser.add_argument("--delay-ms", type=float, default=1.0, help="max random wait between read and send")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    r53 = StrictRoute53(insync_after_polls=0)
    zone_id = r53.create_hosted_zone(Name="example.com", CallerReference="bench")["HostedZone"]["Id"].split("/")[-1]
    options = EnactOptions(max_change_share=1.0, wait_s=0, retries=3)
    enact(r53, plan_of(zone_id, 1, POOL[:3]), options)

    counters = {"stale_applies": 0, "empty_answers": 0, "batches": 0}
    last = {"generation": 1}

    def watch(_zone: str, records: list[dict]) -> None:
        counters["batches"] += 1
        gens = [Generation.from_record_set(r) for r in records if r["Type"] == "TXT" and r["Name"].startswith("_edge-origin-generation.")]
        gen = gens[0].number if gens and gens[0] else 0
        if gen <= last["generation"]:
            counters["stale_applies"] += 1
        last["generation"] = max(gen, last["generation"])
        if not any(r["Name"] == NAME and r["Type"] == "A" for r in records):
            counters["empty_answers"] += 1

    r53.add_observer(watch)
    planner = itertools.count(2)
    planner_lock = threading.Lock()
    tally = {"applied": 0, "stale": 0, "replanned": 0, "refused": 0}
    tally_lock = threading.Lock()
    errors: list[str] = []

    def writer(index: int) -> None:
        rng = random.Random(args.seed * 1000 + index)
        for _ in range(args.plans):
            with planner_lock:
                generation = next(planner)
            plan = plan_of(zone_id, generation, sorted(rng.sample(POOL, rng.randint(1, 6))))
            try:
                result = enact(r53, plan, options, after_read=lambda _p: time.sleep(rng.uniform(0, args.delay_ms / 1000)))
                outcome, replans = "applied", result.attempts - 1
            except StalePlan:
                outcome, replans = "stale", 0
            except Refusal:
                outcome, replans = "refused", 0
            except Exception as exc:  # noqa: BLE001 - a benchmark reports, it does not hide
                errors.append(f"{type(exc).__name__}: {exc}")
                return
            with tally_lock:
                tally[outcome] += 1
                tally["replanned"] += replans

    threads = [threading.Thread(target=writer, args=(i,), daemon=True) for i in range(args.writers)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    elapsed = time.perf_counter() - start
    live = read_name(r53, zone_id, NAME)

    total = args.writers * args.plans
    print(f"writers x plans:         {args.writers} x {args.plans} = {total} plans, delay 0..{args.delay_ms:g} ms")
    print(f"plans applied:           {tally['applied']}")
    print(f"refused stale:           {tally['stale']}")
    print(f"re-planned after a race: {tally['replanned']}")
    print(f"other refusals:          {tally['refused']}")
    print(f"batches applied:         {counters['batches']} in {elapsed:.2f} s = {counters['batches'] / elapsed:.0f} batches/s")
    print(f"batches refused:         {r53.batches_refused}")
    print(f"enact calls/s:           {total / elapsed:.0f}")
    print(f"final live generation:   {live.live_generation} (highest planned {next(planner) - 1}), {len(live.records)} records")
    print(f"stale applies:           {counters['stale_applies']}  (must be 0)")
    print(f"empty answers:           {counters['empty_answers']}  (must be 0)")
    if errors:
        print(f"errors: {len(errors)}; first: {errors[0]}")
    ok = counters["stale_applies"] == 0 and counters["empty_answers"] == 0 and not errors and any(t.is_alive() for t in threads) is False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
