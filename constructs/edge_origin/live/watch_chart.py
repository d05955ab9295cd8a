"""PNG chart of ``edge-origin watch`` (matplotlib, Agg; the ``rehearsal`` extra): per path, the share of
active flows per zonal node over time (stacked), and max/mean with the alarm threshold."""

from __future__ import annotations

from pathlib import Path

from edge_origin.live.watch import WatchResult


def write_watch_chart(result: WatchResult, path: str | Path) -> Path:
    """One row of two panels per path; paths without periods get a panel saying why."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = max(1, len(result.paths))
    fig, axes = plt.subplots(rows, 2, figsize=(12, 3.6 * rows), squeeze=False)
    for (share_ax, ratio_ax), verdict in zip(axes, result.paths or [None], strict=False):
        if verdict is None or not verdict.periods:
            why = "no paths" if verdict is None else f"{verdict.origin}: {verdict.verdict} ({'; '.join(verdict.problems)})"
            share_ax.text(0.5, 0.5, why, ha="center", va="center", wrap=True)
            share_ax.axis("off")
            ratio_ax.axis("off")
            continue
        judged = [p for p in verdict.periods if p.total_active]
        times = [p.start for p in judged]
        nodes = verdict.nodes
        shares = [[(p.active.get(n, 0.0) / p.total_active) if p.total_active else 0.0 for p in judged] for n in nodes]
        if times:
            share_ax.stackplot(times, shares, labels=nodes)
        share_ax.set_ylim(0, 1)
        share_ax.set_ylabel("share of active flows")
        share_ax.set_title(f"{verdict.origin}: {verdict.verdict}")
        share_ax.legend(fontsize=7, loc="upper left")
        ratio_ax.plot([p.start for p in verdict.periods], [p.max_over_mean or 0.0 for p in verdict.periods], marker=".",
                      label="max/mean (0: below the flow floor)")
        ratio_ax.axhline(result.thresholds.imbalance, color="red", linestyle="--", label=f"alarm {result.thresholds.imbalance}")
        ratio_ax.set_ylabel("max/mean active flows")
        ratio_ax.legend(fontsize=7)
        for ax in (share_ax, ratio_ax):
            ax.tick_params(axis="x", labelrotation=30, labelsize=7)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
