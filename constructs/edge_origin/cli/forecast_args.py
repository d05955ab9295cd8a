"""The ``rehearse --model`` flags (the internet-scale forecast, run on a rehearsal plan) and the
``forecast predict --devices`` flags, and their translation into the forecast's inputs (parsing only).

``--edges``, ``--lb-policy``, ``--edge-rotation``, ``--seed``, ``--json`` and ``--chart`` are
shared with the loopback rehearsal and defined in :mod:`edge_origin.cli.rehearse`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from edge_origin.cli.common import finite_float, int_range
from edge_origin.forecast.inputs import (
    Capacity,
    ModelInputError,
    RetryPolicy,
    parse_capacity,
    parse_retry,
    read_capacity_file,
    shares_file_edges,
)

if TYPE_CHECKING:
    from edge_origin.forecast.montecarlo import ModelResult
    from edge_origin.rehearsal.plan import DnsPlan


def _library_type(parse: Callable[[str], object], name: str) -> Callable[[str], object]:
    """An argparse type from a library parser that raises ModelInputError (argparse names the flag, exit 2)."""

    def convert(text: str) -> object:
        try:
            return parse(text)
        except ModelInputError as exc:
            raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[-1]) from None

    convert.__name__ = name
    return convert


def _capacity(text: str) -> Capacity:
    return parse_capacity(text)


def _retry(text: str) -> RetryPolicy:
    return parse_retry(text)


def add_model_arguments(p: argparse.ArgumentParser) -> None:
    """Add the forecast's flags to the ``rehearse`` parser (``--model``)."""
    g = p.add_argument_group("--model: the internet-scale forecast (no sockets)")
    g.add_argument("--devices", type=int_range(1, 10**12), default=1_000_000, help="devices (default 1,000,000)")
    g.add_argument("--ttl", type=finite_float(0, 86_400, lo_open=True), default=None,
                   help="seconds a resolver caches an answer (default: the records' TTL)")
    g.add_argument("--ramp-seconds", type=finite_float(0, 86_400), default=0.0,
                   help="seconds over which the devices join, uniformly (default 0: all at once)")
    g.add_argument("--resolvers", type=int_range(1, 100_000), default=None,
                   help="caching resolvers the --edges share, each edge taking its resolver's answer (1..--edges; "
                   "default 1, what the incident write-ups describe; --resolvers = --edges: independent edges)")
    g.add_argument("--edge-traffic", default="uniform", metavar="uniform|zipf:S|FILE",
                   help="how the devices spread over the edges: uniform, zipf:S (edge k gets 1/k^S), or a CSV of "
                   "edge,share rows summing to 1, whose rows are the edges (default uniform)")
    g.add_argument("--origin-capacity", type=_library_type(_capacity, "capacity"), default=None, metavar="N|N/s",
                   help="what one origin address takes before refusing: N concurrent connections, or N/s new "
                   "connections a second (default: unlimited, no errors predicted)")
    g.add_argument("--origin-capacity-file", metavar="FILE",
                   help="CSV of origin,capacity rows (N or N/s) overriding --origin-capacity per origin")
    g.add_argument("--retry", type=_library_type(_retry, "retry"), default=None, metavar="ATTEMPTS[:BASE[:MAX]]",
                   help="reconnects after a refusal: ATTEMPTS (0 none, inf forever) with gRPC's backoff from BASE s "
                   "(x1.6 a retry, +-20%% jitter, at most MAX s) (default inf:1:120, a gRPC channel's)")
    g.add_argument("--no-health-checks", action="store_true",
                   help="ignore the plan's health checks (default: an origin past capacity fails its check)")
    g.add_argument("--step", type=finite_float(0.001, 3600), default=1.0,
                   help="seconds a model step, shortened to the health-check interval (default 1)")
    g.add_argument("--horizon", type=finite_float(1, 7 * 86_400), default=None,
                   help="simulated seconds (default 600, or the ramp when longer)")
    g.add_argument("--connect-tries", type=int_range(1, 8), default=3,
                   help="addresses of the answer a refused connect tries in turn (default 3, CloudFront's origin "
                   "ConnectionAttempts; 1: never the next address)")
    g.add_argument("--scale-seconds", type=finite_float(0, 86_400), default=0.0,
                   help="capacity ramp: an address first loaded holds --origin-capacity x min(1, s / this) "
                   "(default 0: steady capacity at once)")
    g.add_argument("--seeds", type=int_range(1, 100), default=1,
                   help="run this many seeds (--seed, +1, ...) and print the band of predicted errors (default 1)")
    g.add_argument("--error-limit", type=finite_float(0, 1), default=0.01,
                   help="peak 5-minute error share above which the verdict is overload (default 0.01)")


def run_model_from_args(args: argparse.Namespace, plan: DnsPlan) -> ModelResult:
    """Build the ModelConfig from the flags and run the model (ModelInputError: bad input)."""
    from edge_origin.forecast import montecarlo as montecarlo

    edges = args.edges
    listed = shares_file_edges(args.edge_traffic)
    if listed is not None and edges == 1:
        edges = listed  # the shares file's rows are the edges
    overrides = read_capacity_file(args.origin_capacity_file) if args.origin_capacity_file is not None else None
    cfg = montecarlo.ModelConfig(
        devices=args.devices,
        edges=edges,
        resolvers=montecarlo.DEFAULT_RESOLVERS if args.resolvers is None else args.resolvers,
        edge_traffic=args.edge_traffic,
        ttl=args.ttl,
        ramp_seconds=args.ramp_seconds,
        policy=args.lb_policy,
        edge_rotation=args.edge_rotation,
        seed=args.seed,
        origin_capacity=args.origin_capacity,
        capacity_overrides=overrides,
        health_checks=not args.no_health_checks,
        step_seconds=args.step,
        horizon_seconds=args.horizon,
        error_limit=args.error_limit,
        connect_tries=args.connect_tries,
        scale_seconds=args.scale_seconds,
        kill=args.kill,
    )
    if args.retry is not None:
        cfg.retry = args.retry
    if args.seeds > 1:
        return montecarlo.run_model_seeds(plan, cfg, args.seeds)
    return montecarlo.run_model(plan, cfg)


def _within(lo: float, hi: float, integer: bool = False) -> Callable[[str], float]:
    """An argparse type whose error names the whole allowed range (``must be LO..HI``)."""
    inner = int_range(int(lo), int(hi)) if integer else finite_float(lo, hi)

    def convert(text: str) -> float:
        try:
            return inner(text)
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(f"{text[:40]!r}: must be {lo:g}..{hi:g}") from None

    convert.__name__ = "integer" if integer else "number"
    return convert


def add_planned_arguments(p: argparse.ArgumentParser) -> None:
    """``forecast predict --devices``: a planned event against the NLBs' LCU dimensions (forecast.capacity)."""
    from edge_origin.forecast.capacity import ASSUMPTIONS, COVERS, MAX_STEPS, RESERVED_PER_ZONE

    g = p.add_argument_group("a planned event (--devices): the burst against each zonal node's LCU dimensions")
    g.add_argument("--devices", type=_within(1, 10**10, integer=True), default=None, help="devices at the peak (1..10^10)")
    g.add_argument("--ramp-seconds", type=_within(0, 86_400), default=None,
                   help="seconds from zero to the peak, devices joining evenly (0..86400; needed with --devices)")
    g.add_argument("--nlbs", type=_within(1, 50, integer=True), default=None, help="NLBs behind the name (1..50; default 2)")
    g.add_argument("--zones", type=_within(1, 6, integer=True), default=None, help="EIPs (zonal nodes) per NLB (1..6; default 3)")
    low, high = RESERVED_PER_ZONE
    g.add_argument("--capacity-units", type=_within(0, high * 6, integer=True), default=None,
                   help=f"LCUs reserved on each NLB (MinimumLoadBalancerCapacity; 0 none, else {low}..{high} a zone; "
                   "default 0, or the template's)")
    g.add_argument("--template", action="append", metavar="PATH", default=None,
                   help="read the NLBs, their zones and reservations from synthesized templates or a cdk.out (repeatable)")
    g.add_argument("--reservation-covers", choices=COVERS, default="throughput",
                   help="what a reservation raises: throughput (what AWS documents, default) or all dimensions (an assumption)")
    for name, (default, lo, hi, why) in ASSUMPTIONS.items():
        g.add_argument("--" + name.replace("_", "-"), type=_within(lo, hi), default=None,
                       help=f"assumption: {why} ({lo:g}..{hi:g}; default {default:g})")
    g.add_argument("--horizon", type=_within(1, MAX_STEPS), default=None,
                   help=f"simulated seconds (1..{MAX_STEPS}; default the ramp + 600)")


def planned_event_from_args(args: argparse.Namespace):  # noqa: ANN201 - the library type is imported lazily
    """The PlannedEvent of the flags (ModelInputError: bad combination)."""
    from edge_origin.forecast.capacity import ASSUMPTIONS, Nlb, PlannedEvent, nlbs_from_template

    if args.ramp_seconds is None:
        raise ModelInputError("--ramp-seconds: needed with --devices (seconds from zero to the peak, 0..86400)")
    if args.capacity is not None or args.scale_seconds is not None:
        raise ModelInputError("--capacity/--scale-seconds: not with --devices (they run the events file; --node-lcus and "
                         "--scale-lcus-per-second are the planned event's)")
    if args.template:
        if args.nlbs is not None or args.zones is not None:
            raise ModelInputError("--template: not with --nlbs/--zones (the template gives the NLBs and their zones)")
        nlbs = nlbs_from_template(args.template)
        if args.capacity_units is not None:
            nlbs = tuple(Nlb(n.name, n.zones, args.capacity_units) for n in nlbs)
    else:
        count = 2 if args.nlbs is None else args.nlbs
        zones = 3 if args.zones is None else args.zones
        units = 0 if args.capacity_units is None else args.capacity_units
        nlbs = tuple(Nlb(f"nlb{i + 1}", zones, units) for i in range(count))
    chosen = {name: getattr(args, name) for name in ASSUMPTIONS if getattr(args, name) is not None}
    return PlannedEvent(devices=float(args.devices), ramp_seconds=args.ramp_seconds, nlbs=nlbs,
                        reservation_covers=args.reservation_covers, horizon_seconds=args.horizon,
                        overridden=tuple(sorted(chosen)), **chosen).check()
