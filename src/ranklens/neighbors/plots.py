"""Plots of N2O results (matplotlib, Agg backend; each returns a Figure)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from ..results import Result

__all__ = [
    "cluster_order",
    "plot_n2o_distribution",
    "plot_n2o_matrix",
    "plot_needle",
    "plot_ranker_overlap",
    "plot_robustness",
    "plot_token_overlap",
]


def _axes(ax: Any, size: tuple[float, float]):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=size)
        return fig, ax
    return ax.figure, ax


def _expect(result: Result, *kinds: str) -> None:
    if result.kind not in kinds:
        raise ValidationError(f"expected a result of kind {' or '.join(kinds)}, got {result.kind!r}")


def cluster_order(similarity: np.ndarray) -> list[int]:
    """Leaf order of average-linkage hierarchical clustering on ``1 - similarity`` (scipy).

    Undefined similarities (NaN, e.g. an N2O pair whose queries were all zero vectors) count as
    0 similarity (distance 1).
    """
    from scipy.cluster.hierarchy import leaves_list, linkage
    from scipy.spatial.distance import squareform

    n = similarity.shape[0]
    if n < 3:
        return list(range(n))
    sim = np.nan_to_num(np.asarray(similarity, dtype=float), nan=0.0)
    dist = np.clip(1.0 - (sim + sim.T) / 2.0, 0.0, None)
    np.fill_diagonal(dist, 0.0)
    return [int(i) for i in leaves_list(linkage(squareform(dist, checks=False), method="average",
                                                optimal_ordering=True))]


def _heatmap(ax, mat: np.ndarray, labels: list[str], title: str, std: np.ndarray | None = None):
    order = cluster_order(mat)
    m = mat[np.ix_(order, order)]
    lab = [labels[i] for i in order]
    im = ax.imshow(m, vmin=0, vmax=1, cmap="viridis")
    ax.set_xticks(range(len(lab)), lab, rotation=45, ha="right")
    ax.set_yticks(range(len(lab)), lab)
    for i in range(len(lab)):
        for j in range(len(lab)):
            txt = f"{m[i, j]:.2f}"
            if std is not None and i != j:
                txt += f"\n±{std[np.ix_(order, order)][i, j]:.2f}"
            ax.text(j, i, txt, ha="center", va="center", fontsize=7,
                    color="white" if m[i, j] < 0.6 else "black")
    ax.set_title(title)
    ax.figure.colorbar(im, ax=ax, fraction=0.046)


def plot_n2o_matrix(result: Result, ax: Any = None):
    """Heatmap of the N2O matrix with values (± std), rows/columns in clustering order."""
    _expect(result, "neighbors-matrix")
    mat = result.tables["matrix"]
    labels = [str(x) for x in mat["model"]]
    vals = mat[labels].to_numpy(dtype=float)
    std = result.tables.get("std_matrix")
    sv = std[labels].to_numpy(dtype=float) if std is not None else None
    n = len(labels)
    fig, ax = _axes(ax, (1.2 * n + 2.5, 1.0 * n + 2))
    _heatmap(ax, vals, labels, f"N2O@{result.summary.get('k')}", sv)
    fig.tight_layout()
    return fig


def plot_n2o_distribution(result: Result, ax: Any = None):
    """Per embedder: box plot of its N2O with every other embedder (paper Fig. 6)."""
    _expect(result, "neighbors-matrix")
    mat = result.tables["matrix"]
    labels = [str(x) for x in mat["model"]]
    vals = mat[labels].to_numpy(dtype=float)
    data = [np.delete(vals[i], i) for i in range(len(labels))]
    data = [d[~np.isnan(d)] for d in data]  # undefined pairs (all queries zero vectors) left out
    order = np.argsort([np.median(d) if len(d) else -1.0 for d in data])[::-1]
    fig, ax = _axes(ax, (0.8 * len(labels) + 2, 4))
    ax.boxplot([data[i] for i in order], showmeans=True)
    ax.set_xticks(range(1, len(labels) + 1), [labels[i] for i in order], rotation=45, ha="right")
    ax.set_ylabel(f"N2O@{result.summary.get('k')} with the others")
    ax.set_ylim(0, 1)
    fig.tight_layout()
    return fig


def plot_robustness(result: Result, ax: Any = None):
    """Heatmap of Spearman ρ between pair rankings for every pair of k."""
    _expect(result, "neighbors-robustness")
    t = result.table[result.table["comparison"] == "k"]
    ks = sorted({int(x) for x in pd.concat([t["a"], t["b"]])})
    pos = {k: i for i, k in enumerate(ks)}
    m = np.eye(len(ks))
    for r in t.itertuples():
        m[pos[int(r.a)], pos[int(r.b)]] = m[pos[int(r.b)], pos[int(r.a)]] = r.spearman_rho
    fig, ax = _axes(ax, (0.6 * len(ks) + 2.5, 0.5 * len(ks) + 2))
    im = ax.imshow(m, vmin=min(0.0, float(np.nanmin(m))), vmax=1, cmap="viridis")
    ax.set_xticks(range(len(ks)), ks)
    ax.set_yticks(range(len(ks)), ks)
    for i in range(len(ks)):
        for j in range(len(ks)):
            ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=7,
                    color="white" if m[i, j] < 0.6 else "black")
    s = result.summary.get("sample_rho_mean")
    ax.set_title("Spearman ρ of pair rankings across k"
                 + (f" (across samples: mean {s:.2f})" if s is not None else ""))
    ax.set_xlabel("k")
    ax.set_ylabel("k")
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    return fig


def plot_token_overlap(result: Result, ax: Any = None):
    """Mean query-neighbour token overlap per embedder with its confidence interval (Fig. 5)."""
    _expect(result, "neighbors-token-overlap")
    t = result.table.sort_values("mean", ascending=False)
    fig, ax = _axes(ax, (0.8 * len(t) + 2, 4))
    x = np.arange(len(t))
    err = np.vstack([t["mean"] - t["ci_low"], t["ci_high"] - t["mean"]])
    ax.bar(x, t["mean"], color=["0.6" if e == "random" else "C0" for e in t["model"]])
    ax.errorbar(x, t["mean"], yerr=np.nan_to_num(err), fmt="none", ecolor="black", capsize=3)
    ax.set_xticks(x, list(t["model"]), rotation=45, ha="right")
    conf = result.summary.get("confidence", 0.95)
    ax.set_ylabel(f"token Jaccard, query vs neighbours ({int(conf * 100)}% CI)")
    fig.tight_layout()
    return fig


def plot_needle(result: Result, ax: Any = None):
    """MRR per embedder for the paraphrase needle-in-a-haystack test."""
    _expect(result, "neighbors-needle")
    t = result.table.sort_values("mrr", ascending=False)
    fig, ax = _axes(ax, (0.8 * len(t) + 2, 4))
    ax.bar(range(len(t)), t["mrr"])
    ax.set_xticks(range(len(t)), list(t["model"]), rotation=45, ha="right")
    ax.set_ylabel("MRR of the paraphrase")
    fig.tight_layout()
    return fig


def plot_ranker_overlap(result: Result, ax: Any = None):
    """Heatmap of top-k overlap between rankers (clustering order)."""
    _expect(result, "neighbors-ranker-overlap")
    mat = result.tables["matrix"]
    labels = [str(x) for x in mat["model"]]
    vals = mat[labels].to_numpy(dtype=float)
    fig, ax = _axes(ax, (1.2 * len(labels) + 2.5, 1.0 * len(labels) + 2))
    _heatmap(ax, vals, labels, f"top-{result.summary.get('k')} overlap")
    fig.tight_layout()
    return fig
