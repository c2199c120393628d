"""Plots of the ASL analyses (matplotlib, Agg backend); each returns a ``Figure``."""

from __future__ import annotations

from typing import Any

__all__ = ["plot_chain", "plot_deltas", "plot_distribution", "plot_tracks"]


def _fig_ax(ax: Any, size=(7.0, 4.0)):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=size)
        return fig, ax
    return ax.figure, ax


def plot_distribution(result, ax=None):
    """Per-document search lengths in log2 buckets + "not retrieved" (paper Fig. 5).

    Args:
        result: an ``asl-distribution`` result.
        ax: optional matplotlib axes.
    """
    import numpy as np

    fig, ax = _fig_ax(ax)
    t = result.table
    systems = list(dict.fromkeys(t["system"]))
    buckets = list(dict.fromkeys(
        sorted((b for b in t["bucket"] if b != "not retrieved"), key=lambda s: int(s.split("-")[0]))
    )) + (["not retrieved"] if (t["bucket"] == "not retrieved").any() else [])
    x = np.arange(len(buckets))
    w = 0.8 / max(len(systems), 1)
    for i, s in enumerate(systems):
        f = t[t["system"] == s].set_index("bucket")["fraction"].reindex(buckets).fillna(0.0)
        ax.bar(x + i * w - 0.4 + w / 2, f.to_numpy(), width=w, label=s)
    ax.set_xticks(x, buckets, rotation=45, ha="right")
    ax.set_xlabel("search length of a relevant document (log2 buckets)")
    ax.set_ylabel("fraction of relevant documents")
    ax.set_title("Per-document search length")
    ax.legend()
    fig.tight_layout()
    return fig


def plot_deltas(result, ax=None):
    """Per-document search-length deltas between two systems as wins/losses (paper Fig. 6)."""
    from ..errors import ValidationError

    if "deltas" not in result.tables:
        raise ValidationError("this distribution result has no deltas: pass a second run")
    fig, ax = _fig_ax(ax)
    d = result.tables["deltas"]
    colors = ["tab:green" if b.startswith("-") else "tab:red" if b.startswith("+") else "grey"
              for b in d["bucket"]]
    ax.bar(range(len(d)), d["count"].to_numpy(), color=colors)
    ax.set_xticks(range(len(d)), list(d["bucket"]), rotation=60, ha="right")
    systems = list(dict.fromkeys(result.table["system"]))
    ax.set_xlabel(f"SL({systems[-1]}) - SL({systems[0]}) (green: {systems[-1]} wins)")
    ax.set_ylabel("relevant documents")
    ax.set_title("Per-document wins and losses")
    fig.tight_layout()
    return fig


def plot_chain(result, ax=None):
    """Kendall tau and dSort of each step of an ``asl-chain`` result."""
    fig, ax = _fig_ax(ax, size=(8.0, 4.0))
    t = result.table
    ax.barh(range(len(t)), t["kendall_tau"].to_numpy(), color="tab:blue")
    for i, (tau, ds) in enumerate(zip(t["kendall_tau"], t["dsort"])):
        ax.text(tau, i, f"  dSort={ds}", va="center", fontsize=8)
    ax.set_yticks(range(len(t)), list(t["step"]), fontsize=7)
    ax.set_xlabel("Kendall tau between system orderings")
    ax.set_xlim(0, 1.3)
    ax.invert_yaxis()
    fig.tight_layout()
    return fig


def plot_tracks(result, ax=None):
    """Distribution of each measure's per-system values over the tracks (paper Figs. 1-4)."""
    fig, ax = _fig_ax(ax, size=(8.0, 4.0))
    s = result.tables["systems"]
    measures = [c for c in s.columns if c not in ("track", "system")]
    data, labels = [], []
    for m in measures:
        for tr, f in s.groupby("track", sort=True):
            data.append(f[m].dropna().to_numpy())
            labels.append(f"{m}\n{tr}")
    ax.boxplot(data)
    ax.set_xticks(range(1, len(labels) + 1), labels, rotation=60, ha="right", fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("value per system (log scale)")
    ax.set_title("Measures across systems, per track")
    fig.tight_layout()
    return fig
