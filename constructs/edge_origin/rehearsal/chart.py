"""A PNG bar chart of connections per origin, one colour per NLB (matplotlib, Agg backend)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from edge_origin.rehearsal.metrics import RehearsalResult


def write_chart(results: RehearsalResult | Sequence[RehearsalResult], path: str | Path) -> Path:
    """Draw connections per origin for one result (or one panel per result) and save it to ``path``."""
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
