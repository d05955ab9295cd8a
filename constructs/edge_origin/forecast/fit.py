"""Fit the capacity model's two numbers on two published cells, then predict every other cell.

The published figures come from a file (the shipped ``edge_origin/data/model_published.json``,
or the user's): ``{"fit": [CELL, CELL], "cells": [{"cell": "EVENT.METRIC", "value": V,
"source": ...}]}`` with METRIC ``peak_5xx``, ``mean_5xx`` or ``peak_requests_per_second``. Only
:func:`fit` reads the fitted cells' values; :func:`comparison_table` only prints the others beside
the predictions (:func:`~edge_origin.forecast.events_run.predict`, which never sees them).

The fit: ``steady_capacity`` C by log bisection so that the first fitted cell is matched, inside a
scan and log bisection on the scaling rate C / S for the second (the first cell, a weighted
overload, turns on C; the second, a multivalue burst, on how fast the addresses scale, C / S);
``scale_seconds`` S is then C / rate.

Without a ceiling (``ceiling=False``, what ``edge-origin model fit`` does unless ``--ceiling``): an
address has no steady capacity C to run into, as "Network Load Balancers automatically scale to
support detected workloads" (Elastic Load Balancing user guide, "Capacity reservations for your
Network Load Balancer"); what a burst meets is how fast a node gains capacity. One number is fitted
on one cell, the rate C / S (C is then :data:`UNBOUNDED`, above any crowd the events allow), and
every other cell is a prediction. With a ceiling, a fitted C below the crowd over the addresses
(1-2 March: 4 x 1.6 M < 14 M) keeps the overload going for the whole broadcast, which the
published average over the event's days rules out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from edge_origin.forecast.events import SHIPPED_PUBLISHED, Event, read_json_file
from edge_origin.forecast.events_run import Band, CapacityModel, predict, run_event
from edge_origin.forecast.inputs import ModelInputError

METRICS = ("peak_5xx", "mean_5xx", "peak_requests_per_second")
FACTOR = 2.0  # a prediction within this factor of the published figure agrees
CAPACITY_RANGE = (1e3, 1e10)
RATE_RANGE = (10.0, 1e9)  # connections/s an address gains while scaling
RATE_ITERATIONS = 14
PATTERN_RUNS = 160
WARM_BRACKET = 1.25  # C at the next rate is searched within this factor of the last C first
FIT_HORIZON = 300.0
SCAN_POINTS = 7  # the fitted cells are peak 5-minute figures: the first window is enough
UNBOUNDED = CAPACITY_RANGE[1]  # no ceiling: above MAX_CONNECTIONS' crowd over one address


@dataclass(frozen=True)
class PublishedCell:
    cell: str
    event: str
    metric: str
    value: float
    source: str


@dataclass
class FitResult:
    model: CapacityModel
    fitted: dict[str, float]  # cell -> the value the fitted model gives (seed 0)
    runs: int
    converged: bool


def load_published(path: str | Path | None, events: Sequence[Event], flag: str = "--published") -> tuple[list[str], list[PublishedCell]]:
    """(the cells to fit, every published cell) from a JSON file or the shipped one."""
    shown, data = read_json_file(path, SHIPPED_PUBLISHED, flag)
    head = f"{flag}: {shown}"
    names = {e.name for e in events}
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list) or not data["cells"]:
        raise ModelInputError(f"{head}: expected an object with a non-empty 'cells' list")
    cells: list[PublishedCell] = []
    for i, raw in enumerate(data["cells"]):
        where = f"{head}: cells[{i}]"
        if not isinstance(raw, dict):
            raise ModelInputError(f"{where}: expected an object")
        name = raw.get("cell")
        if not isinstance(name, str) or name.count(".") != 1:
            raise ModelInputError(f"{where}.cell: expected EVENT.METRIC (got {str(name)[:40]!r})")
        event, metric = name.split(".")
        if event not in names:
            raise ModelInputError(f"{where}.cell: no event {event!r} in the events ({', '.join(sorted(names))})")
        if metric not in METRICS:
            raise ModelInputError(f"{where}.cell: metric {metric!r} is not one of {', '.join(METRICS)}")
        value = raw.get("value")
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            raise ModelInputError(f"{where}.value: expected a finite number >= 0 (got {str(value)[:40]!r})")
        if metric.endswith("5xx") and value > 1:
            raise ModelInputError(f"{where}.value: a 5xx share is 0..1 (got {value!r})")
        if name in {c.cell for c in cells}:
            raise ModelInputError(f"{where}.cell: {name!r} listed twice")
        cells.append(PublishedCell(name, event, metric, float(value), str(raw.get("source", ""))))
    fit = data.get("fit")
    known = {c.cell for c in cells}
    if not isinstance(fit, list) or not 1 <= len(fit) <= 2 or any(f not in known for f in fit) or len(set(fit)) != len(fit):
        raise ModelInputError(f"{head}: fit: expected 1 or 2 distinct cells of 'cells' (got {str(fit)[:80]!r})")
    return list(fit), cells


def _bisect_log(f: Callable[[float], float], lo: float, hi: float, target: float, rising: bool, iterations: int) -> float:
    """x in [lo, hi] (log scale) where f(x) crosses ``target``; f rising or falling in x."""
    for _ in range(iterations):
        mid = math.sqrt(lo * hi)
        above = f(mid) > target
        if above == rising:
            hi = mid
        else:
            lo = mid
    return math.sqrt(lo * hi)


def fit(events: Sequence[Event], fit_cells: Sequence[str], cells: Sequence[PublishedCell],
        base: CapacityModel | None = None, iterations: int = 12, ceiling: bool = True) -> FitResult:
    """Fit C (first cell) and, with a second cell, S; one seed (0), peak windows only.

    ``ceiling=False``: no steady capacity; the scaling rate C / S alone, on the one fit cell.
    """
    by_name = {e.name: e for e in events}
    wanted = {c.cell: c for c in cells}
    base = base or CapacityModel(1e6, 60.0)
    if not ceiling:
        return _fit_rate(by_name, [wanted[c] for c in fit_cells], base)
    full_horizon = base.horizon_seconds
    if all(wanted[c].metric == "peak_5xx" for c in fit_cells):  # peaks: the first window is enough
        base = replace(base, horizon_seconds=FIT_HORIZON)
    runs = 0

    def value(model: CapacityModel, cell: PublishedCell) -> float:
        nonlocal runs
        runs += 1
        outcome = run_event(by_name[cell.event], model, seed=0)
        return float(getattr(outcome, cell.metric))

    first = wanted[fit_cells[0]]
    second = wanted[fit_cells[1]] if len(fit_cells) > 1 else None
    # more capacity: fewer errors, more requests/s answered without retries
    rising = first.metric == "peak_requests_per_second"

    last: list[float] = []

    def capacity_for(scale_of: Callable[[float], float]) -> float:
        """C matching the first cell, S given by ``scale_of(C)``: a wide bracket first, then around the last C."""

        def at(c: float) -> float:
            return value(replace(base, steady_capacity=c, scale_seconds=scale_of(c)), first)

        if last:
            lo, hi = last[-1] / WARM_BRACKET, last[-1] * WARM_BRACKET
            found = _bisect_log(at, lo, hi, first.value, rising, iterations)
            if not lo * 1.01 < found < hi / 1.01:  # ran into the narrow bracket: widen again
                found = _bisect_log(at, *CAPACITY_RANGE, first.value, rising, iterations + 4)
        else:
            found = _bisect_log(at, *CAPACITY_RANGE, first.value, rising, iterations + 4)
        last.append(found)
        return found

    if second is None:
        capacity = capacity_for(lambda _c: base.scale_seconds)
        scale = base.scale_seconds
    else:
        # the second cell (a multivalue burst) turns on how fast an address gains capacity, C / S: search that
        # rate, with C refitted to the first cell at each rate (S = C / rate)
        def second_at(rate: float) -> float:
            c = capacity_for(lambda c: c / rate)
            return value(replace(base, steady_capacity=c, scale_seconds=c / rate), second)

        lo_r, hi_r = RATE_RANGE
        grid = [lo_r * (hi_r / lo_r) ** (i / (SCAN_POINTS - 1)) for i in range(SCAN_POINTS)]
        seen = [(r, second_at(r)) for r in grid]
        brackets = [(a, b, fa) for (a, fa), (b, fb) in zip(seen, seen[1:], strict=False)
                    if (fa - second.value) * (fb - second.value) <= 0]
        if brackets:  # the last crossing: the largest rate that gives the cell
            lo, hi, f_lo = brackets[-1]
            rate = _bisect_log(second_at, lo, hi, second.value, f_lo < second.value, RATE_ITERATIONS)
        else:
            rate = min(seen, key=lambda rv: abs(math.log(max(rv[1], 1e-12) / max(second.value, 1e-12))))[0]
        capacity = capacity_for(lambda c: c / rate)
        scale = capacity / rate
    model = replace(base, steady_capacity=capacity, scale_seconds=scale)
    targets = [c for c in (first, second) if c is not None]
    got = {c.cell: value(model, c) for c in targets}
    if second is not None and not all(_agrees(got[c.cell], c.value, 1.1) for c in targets):
        model, got = _pattern_search(model, targets, lambda m, c: value(m, c))
    model = replace(model, horizon_seconds=full_horizon)
    converged = all(_agrees(got[c], wanted[c].value, 1.1) for c in got)
    return FitResult(model, got, runs, converged)


def _fit_rate(by_name: Mapping[str, Event], targets: Sequence[PublishedCell], base: CapacityModel) -> FitResult:
    """No ceiling: C = UNBOUNDED, the rate C / S by a log scan and bisection on the one cell."""
    if len(targets) != 1:
        raise ModelInputError(f"--published: fit: without --ceiling the model fits one number (the scaling rate) on one cell "
                         f"(got {len(targets)}: {', '.join(c.cell for c in targets)}); give one, or pass --ceiling")
    cell = targets[0]
    full_horizon = base.horizon_seconds
    quick = replace(base, horizon_seconds=FIT_HORIZON) if cell.metric == "peak_5xx" else base
    runs = 0

    def at(rate: float) -> float:
        nonlocal runs
        runs += 1
        model = replace(quick, steady_capacity=UNBOUNDED, scale_seconds=UNBOUNDED / rate)
        return float(getattr(run_event(by_name[cell.event], model, seed=0), cell.metric))

    lo_r, hi_r = RATE_RANGE
    grid = [lo_r * (hi_r / lo_r) ** (i / (2 * SCAN_POINTS - 1)) for i in range(2 * SCAN_POINTS)]
    seen = [(r, at(r)) for r in grid]
    brackets = [(a, b, fa) for (a, fa), (b, fb) in zip(seen, seen[1:], strict=False)
                if (fa - cell.value) * (fb - cell.value) <= 0]
    if brackets:  # the last crossing: the largest rate that gives the cell
        lo, hi, f_lo = brackets[-1]
        rate = _bisect_log(at, lo, hi, cell.value, f_lo < cell.value, RATE_ITERATIONS + 4)
    else:
        rate = min(seen, key=lambda rv: abs(math.log(max(rv[1], 1e-12) / max(cell.value, 1e-12))))[0]
    model = replace(base, steady_capacity=UNBOUNDED, scale_seconds=UNBOUNDED / rate, horizon_seconds=full_horizon)
    got = at(rate)
    return FitResult(model, {cell.cell: got}, runs, _agrees(got, cell.value, 1.1))


def _miss(got: Mapping[str, float], targets: Sequence[PublishedCell]) -> float:
    """Sum of squared log ratios predicted / published (a zero counts as a thousandth of the target)."""
    return sum(math.log(max(got[c.cell], c.value / 1000, 1e-12) / max(c.value, 1e-12)) ** 2 for c in targets)


def _pattern_search(model: CapacityModel, targets: Sequence[PublishedCell],
                    value: Callable[[CapacityModel, PublishedCell], float]) -> tuple[CapacityModel, dict[str, float]]:
    """The nested search missed (the second cell is not monotone along it): a compass search on
    (log C, log S) from there, steps x4 down to x1.005, at most PATTERN_RUNS runs."""
    def evaluate(m: CapacityModel) -> dict[str, float]:
        return {c.cell: value(m, c) for c in targets}

    best, best_got = model, evaluate(model)
    step, runs = 4.0, 0
    while step > 1.005 and runs < PATTERN_RUNS:
        moved = False
        for fc, fs in ((step, 1), (1 / step, 1), (1, step), (1, 1 / step), (step, step), (1 / step, 1 / step)):
            c = min(max(best.steady_capacity * fc, CAPACITY_RANGE[0]), CAPACITY_RANGE[1])
            sc = min(max(best.scale_seconds * fs, 0.01), 86_400.0)
            trial = replace(best, steady_capacity=c, scale_seconds=sc)
            got = evaluate(trial)
            runs += len(targets)
            if _miss(got, targets) < _miss(best_got, targets):
                best, best_got, moved = trial, got, True
                break
        if not moved:
            step = math.sqrt(step)
    return best, best_got


def _agrees(predicted: float, published: float, factor: float) -> bool:
    if published == 0:
        return predicted == 0
    return predicted > 0 and 1 / factor <= predicted / published <= factor


def comparison_table(predictions: Mapping[str, Mapping[str, Band]], cells: Sequence[PublishedCell],
                     fit_cells: Sequence[str]) -> list[dict[str, Any]]:
    """One row a published cell: published, predicted band, ratio and the verdict (fitted, within x2, not)."""
    rows = []
    for c in cells:
        band = predictions[c.event][c.metric]
        ratio = band.median / c.value if c.value else math.inf
        if c.cell in fit_cells:
            verdict = "fitted"
        elif _agrees(band.median, c.value, FACTOR):
            verdict = f"within x{FACTOR:g}"
        else:
            verdict = f"NOT within x{FACTOR:g}"
        rows.append({"cell": c.cell, "published": c.value, "predicted": band.median, "low": band.low,
                     "high": band.high, "ratio": ratio, "verdict": verdict, "source": c.source})
    return rows


def _figure(metric: str, value: float) -> str:
    return f"{value * 100:.3f} %" if metric.endswith("5xx") else f"{value:,.0f}/s"


def table_text(rows: Sequence[Mapping[str, Any]]) -> str:
    lines = [f"{'cell':<28} {'published':>11} {'predicted':>11} {'band over seeds':>25} {'ratio':>7}  verdict"]
    for r in rows:
        metric = r["cell"].split(".")[1]
        band = f"{_figure(metric, r['low'])} .. {_figure(metric, r['high'])}"
        ratio = "inf" if math.isinf(r["ratio"]) else f"{r['ratio']:.2f}"
        lines.append(f"{r['cell']:<28} {_figure(metric, r['published']):>11} {_figure(metric, r['predicted']):>11} "
                     f"{band:>25} {ratio:>7}  {r['verdict']}")
    return "\n".join(lines)


def predict_events(events: Sequence[Event], model: CapacityModel, seeds: int) -> dict[str, dict[str, Band]]:
    """:func:`predict` (re-exported here for the command)."""
    return predict(events, model, seeds)
