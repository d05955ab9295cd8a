"""PNG charts (matplotlib, Agg backend): connections per origin, one colour per NLB; for a model run,
connections per origin over time with the capacity line, and accepted/refused attempts per step."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from edge_origin.rehearsal.metrics import RehearsalResult


def write_chart(results: RehearsalResult | Sequence[RehearsalResult], path: str | Path) -> Path:
    """Draw connections per origin for one result (or one panel per result) and save it to ``path``.

    One model result (with a timeline) is drawn by :func:`write_load_chart` instead.
    """
    if isinstance(results, RehearsalResult) and getattr(results, "timeline", None):
        return write_load_chart(results, path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    items = [results] if isinstance(results, RehearsalResult) else list(results)
    if not items:
        raise ValueError("no results to chart")
    palette = plt.get_cmap("tab10").colors
    fig, axes = plt.subplots(1, len(items), figsize=(max(6.0, 4.2 * len(items)), 4.2), squeeze=False)
    for ax, result in zip(axes[0], items, strict=True):
        keys = list(result.origins)
        nlbs = list(dict.fromkeys(result.origins.values()))
        colour = {nlb: palette[i % len(palette)] for i, nlb in enumerate(nlbs)}
        values = [result.connections.get(k, 0) for k in keys]
        ax.bar(range(len(keys)), values, color=[colour[result.origins[k]] for k in keys])
        mean = sum(values) / len(values) if values else 0
        ax.axhline(mean, color="grey", linestyle="--", linewidth=1, label="mean")
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels(keys, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel("connections")
        rotation = ", rotating edges" if result.edge_rotation else ""
        ax.set_title(
            f"{result.routing}, {result.policy}, {result.edges} edge(s){rotation}\n"
            f"{result.mode}: {result.clients} clients, max/mean {result.max_over_mean:.2f}",
            fontsize=9,
        )
        handles = [plt.Rectangle((0, 0), 1, 1, color=colour[n]) for n in nlbs]
        ax.set_ylim(0, max([1, *values]) * 1.3)  # headroom for the legend
        ax.legend(handles, nlbs, fontsize=7, title="NLB", title_fontsize=7, loc="upper right", ncol=2)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def write_load_chart(result: RehearsalResult, path: str | Path) -> Path:
    """Connections held per origin over time with each capacity line (top), attempts per step (bottom)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    timeline = getattr(result, "timeline", None) or {}
    series = timeline.get("connections", {})
    if not series:
        raise ValueError("the result has no timeline to chart")
    dt = float(timeline.get("step_seconds", 1.0))
    palette = plt.get_cmap("tab10").colors
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9.0, 6.4), sharex=True, height_ratios=[3, 2])
    steps = len(next(iter(series.values())))
    times = [i * dt for i in range(steps)]
    capacities = timeline.get("capacity", {})
    per_second = timeline.get("capacity_per_second", {})
    drawn: set[float] = set()
    for i, (key, values) in enumerate(series.items()):
        colour = palette[i % len(palette)]
        top.plot(times, values, color=colour, linewidth=1.4, label=key)
        cap = capacities.get(key)
        if cap is not None and not per_second.get(key) and cap not in drawn:
            drawn.add(cap)
            top.axhline(cap, color="black" if len(drawn) == 1 else colour, linestyle="--", linewidth=1)
            top.annotate(f"capacity {cap:,.0f}", (times[-1], cap), ha="right", va="bottom", fontsize=7)
    top.set_ylabel("connections held")
    highest = max([1.0, *drawn, *(max(v) for v in series.values() if v)])
    top.set_ylim(0, highest * 1.35)  # headroom for the legend
    top.legend(fontsize=7, ncol=3, loc="upper right")
    errors = getattr(result, "predicted_errors", {}) or {}
    d = result.details
    top.set_title(
        f"{result.routing}: {d.get('devices', result.clients):,} devices, {result.edges} edge(s), "
        f"{d.get('resolvers', '?')} resolver(s), TTL {d.get('ttl', 0):g} s - predicted errors peak "
        f"{errors.get('peak', 0) * 100:.1f} %, mean {errors.get('mean', 0) * 100:.1f} %",
        fontsize=9,
    )
    bottom.plot(times, timeline.get("accepted", []), color="tab:green", linewidth=1, label="accepted")
    bottom.plot(times, timeline.get("refused", []), color="tab:red", linewidth=1, label="refused")
    bottom.set_ylabel("attempts per step")
    bottom.set_xlabel("seconds after the crowd starts")
    bottom.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
