"""Plots of explanation-consistency results (matplotlib, Agg backend; each returns a Figure)."""

from __future__ import annotations

from typing import Any

from ..errors import ValidationError
from ..results import Result

__all__ = ["plot_consistency", "plot_relevance_scatter", "plot_sweep"]


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _axes(ax: Any, **kw: Any):
    plt = _plt()
    if ax is None:
        fig, ax = plt.subplots(**kw)
        return fig, ax
    return ax.figure, ax


def plot_sweep(result: Result, measure: str = "mrc@10", *, ax: Any = None):
    """MRC/MER vs ``m`` (paper Figs. 2-3): one line per (ranker, granularity)."""
    if result.kind != "explain-sweep":
        raise ValidationError(f"plot_sweep needs an 'explain-sweep' result, got {result.kind!r}")
    t = result.table
    if measure not in t.columns:
        raise ValidationError(f"measure {measure!r} not in the sweep; have {[c for c in t.columns if '@' in c]}")
    fig, ax = _axes(ax, figsize=(5, 3.5))
    for (rk, gr), g in t.groupby(["ranker", "granularity"], sort=False):
        g = g.sort_values("m")
        ax.plot(g["m"], g[measure], marker="o", label=f"{rk} ({gr})")
    ax.set_xlabel("m (rationales per document)")
    ax.set_ylabel(measure.upper())
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def plot_relevance_scatter(result: Result, measure: str = "mrc@10", *, against: str = "ndcg@10", ax: Any = None):
    """Per-query ``measure`` vs nDCG@10 (paper Figs. 4-6), Pearson/Spearman in the legend."""
    table = result.table if result.kind == "explain-consistency" else result.tables.get("per_query")
    if table is None or measure not in table.columns or against not in table.columns:
        raise ValidationError(f"result has no per-query {measure!r} and {against!r} columns")
    from scipy import stats

    fig, ax = _axes(ax, figsize=(5, 4))
    for (rk, gr), g in table.groupby(["ranker", "granularity"], sort=False):
        x = g[[against, measure]].dropna()
        label = f"{rk} ({gr})"
        if len(x) >= 3 and x[measure].nunique() > 1 and x[against].nunique() > 1:
            r = stats.pearsonr(x[against], x[measure]).statistic
            rho = stats.spearmanr(x[against], x[measure]).statistic
            label += f" r={r:.2f} ρ={rho:.2f}"
        ax.scatter(x[against], x[measure], s=14, alpha=0.7, label=label)
    ax.set_xlabel(against)
    ax.set_ylabel(measure.upper())
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def plot_consistency(result: Result, *, ax: Any = None):
    """Grouped bars of mean MRC/MER per ranker and granularity (paper Tables 1-2 as a chart)."""
    if result.kind != "explain-consistency":
        raise ValidationError(f"plot_consistency needs an 'explain-consistency' result, got {result.kind!r}")
    import numpy as np

    s = result.tables["summary"]
    measures = [c for c in s.columns if c.startswith(("mrc@", "mer@"))]
    fig, ax = _axes(ax, figsize=(6, 3.5))
    labels = [f"{r}\n{g}" for r, g in zip(s["ranker"], s["granularity"])]
    x = np.arange(len(s))
    width = 0.8 / max(1, len(measures))
    for i, m in enumerate(measures):
        ax.bar(x + i * width, s[m].astype(float), width, label=m.upper())
    ax.set_xticks(x + width * (len(measures) - 1) / 2, labels, fontsize="small")
    ax.axhline(0, color="grey", lw=0.5)
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig
