"""Plots of probe results: the δ sweep (the paper's Fig. 2) and the distributions of the score
differences (the ``ResultKind.plots`` of the probes analysis)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..results import Result
from .run import check_kind

__all__ = ["plot_delta_sweep", "plot_diff_distributions"]


def plot_delta_sweep(result: Result, ax: Any = None) -> Any:
    """Paper Fig. 2: one panel per probe, score vs δ percentile, one line per model, the median δ
    (the operating point) marked with a dashed line. From a ``probes-delta-sweep`` result
    (:func:`delta_sweep`). Returns the matplotlib ``Figure``."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    check_kind(result, "probes-delta-sweep")
    probes = list(dict.fromkeys(result.table["probe"]))
    if not probes:
        fig, a = (plt.subplots(figsize=(4, 2)) if ax is None else (ax.figure, ax))
        a.text(0.5, 0.5, "no probe scores to sweep", ha="center", va="center", transform=a.transAxes)
        a.set_axis_off()
        return fig
    cols = min(3, len(probes))
    nrows = -(-len(probes) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(3.6 * cols, 2.8 * nrows), squeeze=False, sharey=True)
    for a, p in zip(axes.flat, probes):
        for m, g in result.table[result.table["probe"] == p].groupby("model", sort=False):
            a.plot(g["percentile"], g["score"], label=str(m))
        a.axvline(50, color="#444444", ls="--", lw=0.8)
        a.axhline(0, color="grey", lw=0.5)
        a.set_title(p, fontsize=9)
        a.set_xlabel("delta percentile", fontsize=8)
        a.set_ylim(-1.05, 1.05)
    for a in list(axes.flat)[len(probes):]:
        a.set_axis_off()
    axes[0][0].set_ylabel("probe score")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_diff_distributions(result: Result, *, names: Sequence[str] | None = None, ax: Any = None) -> Any:
    """Histograms of ``diff = R(q,d1) - R(q,d2)`` per probe and model (each model's diffs are
    divided by its δ, so ±1 marks the tie band), from a ``probes-table`` result; ``names``: the probes
    (default: every one). Returns the
    matplotlib ``Figure`` (one panel per probe)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    check_kind(result, "probes-table")
    s = result.tables["samples"]
    deltas = result.summary.get("deltas", {})
    names = list(names) if names is not None else list(dict.fromkeys(s["probe"]))
    if not names:  # every probe was skipped / had no samples: say so instead of failing
        fig, a = (plt.subplots(figsize=(6, 1.5)) if ax is None else (ax.figure, ax))
        a.text(0.5, 0.5, "no probe samples to plot", ha="center", va="center",
               transform=a.transAxes)
        a.set_axis_off()
        return fig
    if ax is None:  # small multiples, 4 a row, one legend above them (outside the data)
        ncols = min(4, len(names))
        nrows = -(-len(names) // ncols)
        fig, grid = plt.subplots(nrows, ncols, figsize=(2.7 * ncols, 0.4 + 1.9 * nrows), squeeze=False)
        axes = list(grid.flat)
        for a in axes[len(names):]:
            a.set_axis_off()
    else:
        fig, axes = ax.figure, [ax] * len(names)
    for a, p in zip(axes, names):
        for m, g in s[s["probe"] == p].groupby("model", sort=False):
            d = g["diff"].to_numpy(np.float64)
            scale = deltas.get(m) or 1.0
            a.hist(np.clip(d / scale, -10, 10), bins=40, alpha=0.5, label=m)
        a.axvline(-1, color="k", lw=0.5)
        a.axvline(1, color="k", lw=0.5)
        a.set_title(p, fontsize=9)
    handles, labels = axes[0].get_legend_handles_labels()
    if ax is None:
        fig.supxlabel("diff / delta (clipped to ±10); lines: the tie band ±1", fontsize=9)
        fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=max(1, len(labels)),
                   frameon=False, fontsize=9)
    else:
        axes[0].legend(fontsize=9)
        axes[0].set_xlabel("diff / delta (clipped to ±10)")
    fig.tight_layout()
    return fig
