"""`edge-origin forecast` (alias `model`, its name before 0.3): the internet-scale forecast of a planned
event's burst (predict --devices); fit on published cells and predict the rest. "model" alone names the
template model (``edge_origin.model``)."""

from __future__ import annotations

import argparse
import json
import time

from edge_origin.cli.common import EXIT_FINDINGS, EXIT_OK, UsageError, finite_float, int_range, require_extra
from edge_origin.cli.forecast_args import add_planned_arguments, planned_event_from_args


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--events", metavar="FILE", default=None,
                   help="JSON file of events (default: the shipped incident events, edge_origin/data/model_events.json)")
    p.add_argument("--seeds", type=int_range(1, 100), default=5, help="seeds a prediction runs over, for its band (default 5)")
    p.add_argument("--resolvers", type=int_range(1, 600), default=1,
                   help="caching resolvers the 600 edges share (default 1: one shared answer per TTL window)")
    p.add_argument("--connect-tries", type=int_range(1, 8), default=3,
                   help="addresses of the answer a connect tries (default 3, CloudFront's ConnectionAttempts)")
    p.add_argument("--retry", default="inf:1:120", metavar="ATTEMPTS[:BASE[:MAX]]",
                   help="device reconnects after a refusal: ATTEMPTS (0 none, inf forever), gRPC's backoff from BASE s "
                   "(x1.6 a retry, +-20%% jitter, at most MAX s) (default inf:1:120, a gRPC channel's)")
    p.add_argument("--json", action="store_true", help="write one JSON object to stdout")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("forecast", aliases=["model"],
                       help="the internet-scale forecast: a planned event's burst (predict), the incident (fit)",
                       description="predict --devices: a planned event against each NLB zonal node's LCU dimensions. "
                       "fit: fit the rate an address gains capacity on one published cell (--ceiling: a steady capacity "
                       "too, on one or two), then predict every other cell with a band over seeds; exit 0 when every "
                       "predicted cell is within a factor of 2, 1 otherwise, 2 on bad input. See docs/model.md.")
    msub = p.add_subparsers(dest="forecast_command", required=True)
    f = msub.add_parser("fit", help="fit the scaling rate on the published file's 'fit' cell, print predicted vs published")
    _common(f)
    f.add_argument("--published", metavar="FILE", default=None,
                   help="JSON file of published cells (default: the shipped edge_origin/data/model_published.json)")
    f.add_argument("--ceiling", action="store_true",
                   help="fit a steady capacity per address too (C and the ramp S on the file's 1 or 2 fit cells); default: "
                   "no ceiling, NLBs scale to the workload, one number (the scaling rate) on the one fit cell")
    f.set_defaults(func=_cmd_fit)
    q = msub.add_parser("predict", help="a planned event against the NLBs' LCU dimensions (--devices), or every event "
                        "of the events file from given capacity numbers (--capacity, --scale-seconds)",
                        description="With --devices: which LCU dimension of a zonal node (new flows/s, active flows, "
                        "throughput) runs out first under the burst, when, and how many connects fail; exit 0 when none "
                        "fails, 1 when some do, 2 on bad input. With --capacity and --scale-seconds: every event of "
                        "--events (no published figures).")
    _common(q)
    q.add_argument("--capacity", type=finite_float(1, 1e12), default=None, help="steady concurrent connections per address")
    q.add_argument("--scale-seconds", type=finite_float(0, 86_400), default=None,
                   help="seconds an address under a burst takes to reach its steady capacity (0: at once)")
    add_planned_arguments(q)
    q.set_defaults(func=_cmd_predict)
    c = msub.add_parser("compare", help="the forecast and the loopback rehearsal on the same small plans, an origin killed")
    c.add_argument("--clients", type=int_range(2, 1000), default=60, help="clients a loopback run (default 60)")
    c.add_argument("--edges", default="1,20,50", help="comma-separated edge counts (default 1,20,50)")
    c.add_argument("--routing", default="weighted,multivalue", help="comma-separated: weighted, multivalue (default both)")
    c.add_argument("--no-loopback", action="store_true", help="forecast side only (no sockets)")
    c.add_argument("--seed", type=int_range(0, 2**31), default=1, help="seed of the loopback runs (default 1)")
    c.add_argument("--json", action="store_true", help="write one JSON object to stdout")
    c.set_defaults(func=_cmd_compare)


def _base(args: argparse.Namespace):  # noqa: ANN202 - the library type is imported lazily
    from edge_origin.forecast.events_run import CapacityModel
    from edge_origin.forecast.inputs import parse_retry

    return CapacityModel(1e6, 60.0, connect_tries=args.connect_tries, resolvers=args.resolvers,
                         retry=parse_retry(args.retry))


def _cmd_fit(args: argparse.Namespace) -> int:
    require_extra("numpy", "rehearsal", "forecast fit")  # one line naming the extra, exit 2
    from dataclasses import replace

    from edge_origin.forecast import events as model_events
    from edge_origin.forecast import fit as model_fit
    from edge_origin.forecast.events_run import model_dict
    from edge_origin.forecast.inputs import ModelInputError

    start = time.perf_counter()
    try:
        events = model_events.load_events(args.events)
        fit_cells, cells = model_fit.load_published(args.published, events)
        result = model_fit.fit(events, fit_cells, cells, base=_base(args), ceiling=args.ceiling)
        model = replace(result.model)
        predictions = model_fit.predict_events(events, model, args.seeds)
    except ModelInputError as exc:
        raise UsageError(str(exc)) from exc
    rows = model_fit.comparison_table(predictions, cells, fit_cells)
    seconds = time.perf_counter() - start
    missed = [r["cell"] for r in rows if r["verdict"].startswith("NOT")]
    if args.json:
        print(json.dumps({"fitted": {"steady_capacity": model.steady_capacity if args.ceiling else None,
                                     "scale_seconds": model.scale_seconds,
                                     "scale_rate": model.steady_capacity / max(model.scale_seconds, 1e-9)},
                          "ceiling": args.ceiling,
                          "fit_cells": result.fitted, "converged": result.converged, "model": model_dict(model),
                          "rows": rows, "seconds": round(seconds, 2)}, sort_keys=True, default=str))
    else:
        print(f"fitted on {', '.join(fit_cells)} ({result.runs} runs, seed 0):")
        rate = model.steady_capacity / max(model.scale_seconds, 1e-9)
        if args.ceiling:
            print(f"  steady_capacity = {model.steady_capacity:,.0f} concurrent connections per address")
            print(f"  scale_seconds   = {model.scale_seconds:.2f} s (an address gains {rate:,.0f} connections/s until steady)")
        else:
            print("  steady_capacity = none (NLBs scale to the workload; --ceiling fits one)")
            print(f"  scale rate      = {rate:,.0f} connections/s an address gains from its first connection")
        for cell, got in result.fitted.items():
            print(f"  {cell}: the fitted model gives {got * 100:.4f} %")
        lo, hi = model_fit.CAPACITY_RANGE
        if args.ceiling and not lo * 1.01 < model.steady_capacity < hi / 1.01:
            print(f"  steady_capacity is at the search bound ({lo:g} .. {hi:g}): the cells do not pin it")
        if not result.converged:
            print("  the fit did not reach its cells within 10 %: the model cannot give them exactly (see the figures above)")
        for e in events:
            print(f"  {e.name}: mean_5xx over {e.window / 3600:g} h: {e.broadcasts} broadcast(s) of "
                  f"{e.duration_seconds / 3600:g} h, the rest quiet at {e.quiet_share * 100:g} % of the peak requests/s")
        print(f"predicted vs published ({args.seeds} seeds; band = min .. max over seeds):")
        print(model_fit.table_text(rows))
        print(f"{len(missed)} predicted cell(s) not within x2{': ' + ', '.join(missed) if missed else ''}; {seconds:.1f} s")
    return EXIT_FINDINGS if missed else EXIT_OK


def _cmd_predict(args: argparse.Namespace) -> int:
    if args.devices is not None:
        return _cmd_predict_planned(args)
    if args.capacity is None or args.scale_seconds is None:
        raise UsageError("forecast predict: give --devices (a planned event) or both --capacity and --scale-seconds (the events file)")
    require_extra("numpy", "rehearsal", "forecast predict")
    from dataclasses import replace

    from edge_origin.forecast import events as model_events
    from edge_origin.forecast import fit as model_fit
    from edge_origin.forecast.inputs import ModelInputError

    try:
        events = model_events.load_events(args.events)
        model = replace(_base(args), steady_capacity=args.capacity, scale_seconds=args.scale_seconds)
        predictions = model_fit.predict_events(events, model, args.seeds)
    except ModelInputError as exc:
        raise UsageError(str(exc)) from exc
    out = {name: {metric: band.__dict__ for metric, band in cells.items()} for name, cells in predictions.items()}
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        print(f"{'event':<10} {'peak 5xx':>24} {'mean 5xx':>24} {'peak requests/s':>24}")
        for name, cells in predictions.items():
            pk, mn, rq = cells["peak_5xx"], cells["mean_5xx"], cells["peak_requests_per_second"]
            print(f"{name:<10} {pk.median * 100:>8.3f} % ({pk.low * 100:.3f}..{pk.high * 100:.3f}) "
                  f"{mn.median * 100:>8.3f} % ({mn.low * 100:.3f}..{mn.high * 100:.3f}) {rq.median:>12,.0f} ({rq.low:,.0f}..{rq.high:,.0f})")
    return EXIT_OK


def _cmd_predict_planned(args: argparse.Namespace) -> int:
    from edge_origin.forecast import capacity as model_capacity
    from edge_origin.forecast.inputs import ModelInputError

    try:
        prediction = model_capacity.predict_event(planned_event_from_args(args))
    except ModelInputError as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        print(json.dumps(prediction.to_dict(), sort_keys=True))
    else:
        print(model_capacity.report_text(prediction))
    return EXIT_FINDINGS if prediction.fails else EXIT_OK


def _cmd_compare(args: argparse.Namespace) -> int:
    routings = [r.strip() for r in args.routing.split(",") if r.strip()]
    if not routings or any(r not in ("weighted", "multivalue") for r in routings):
        raise UsageError(f"--routing {args.routing[:60]!r}: expected weighted and/or multivalue, comma-separated")
    try:
        edges = [int(e) for e in args.edges.split(",")]
    except ValueError:
        raise UsageError(f"--edges {args.edges[:60]!r}: expected comma-separated whole numbers 1..50") from None
    if not edges or any(not 1 <= e <= 50 for e in edges):
        raise UsageError(f"--edges {args.edges[:60]!r}: each must be 1..50")
    from edge_origin.rehearsal import EXTRA_MODULES

    for module in EXTRA_MODULES if not args.no_loopback else ("numpy",):
        require_extra(module, "rehearsal", "forecast compare")
    from edge_origin.forecast import agreement as model_agreement

    rows = [model_agreement.compare(r, e, args.clients, seed=args.seed, loopback=not args.no_loopback)
            for r in routings for e in edges]
    if args.json:
        print(json.dumps([model_agreement.to_dict(r) for r in rows], sort_keys=True))
    else:
        print(model_agreement.table_text(rows))
    return EXIT_FINDINGS if any(r.agrees() is False for r in rows) else EXIT_OK
