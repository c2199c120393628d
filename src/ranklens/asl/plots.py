"""Plots of the ASL analyses (matplotlib, Agg backend).

Every function takes the analysis' ``Result`` as its only required argument (``fn(result)``,
as the HTML report calls them), optionally an ``ax``, and returns a matplotlib ``Figure``.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "plot_chain",
    "plot_deltas",
    "plot_distribution",
    "plot_evaluation",
    "plot_rrie",
    "plot_tracks",
]


def _check(result: Any, kind: str) -> None:
    from ..errors import ValidationError

    if getattr(result, "kind", None) != kind:
        got = getattr(result, "kind", result)
        raise ValidationError(f"expected a {kind!r} result, got {got!r}")


def _note(fig: Any, ax: Any, text: str) -> Any:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, fontsize=9)
    ax.set_axis_off()
    return fig


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

    _check(result, "asl-distribution")
    fig, ax = _fig_ax(ax)
    t = result.table
    systems = list(dict.fromkeys(t["model"]))
    buckets = list(dict.fromkeys(
        sorted((b for b in t["bucket"] if b != "not retrieved"), key=lambda s: int(s.split("-")[0]))
    )) + (["not retrieved"] if (t["bucket"] == "not retrieved").any() else [])
    x = np.arange(len(buckets))
    w = 0.8 / max(len(systems), 1)
    for i, s in enumerate(systems):
        f = t[t["model"] == s].set_index("bucket")["fraction"].reindex(buckets).fillna(0.0)
        ax.bar(x + i * w - 0.4 + w / 2, f.to_numpy(), width=w, label=s)
    ax.set_xticks(x, buckets, rotation=45, ha="right")
    ax.set_xlabel("search length of a relevant document (log2 buckets)")
    ax.set_ylabel("fraction of relevant documents")
    ax.set_title("Per-document search length")
    ax.legend()
    fig.tight_layout()
    return fig


def plot_deltas(result, ax=None):
    """Per-document search-length deltas between two systems as wins/losses (paper Fig. 6).

    A distribution of a single run has no deltas: the figure then says so.
    """
    _check(result, "asl-distribution")
    fig, ax = _fig_ax(ax)
    if "deltas" not in result.tables:
        return _note(fig, ax, "one run only: no per-document deltas\n"
                              "(compare two runs: asl_distribution(qrels, run, other))")
    d = result.tables["deltas"]
    colors = ["tab:green" if b.startswith("-") else "tab:red" if b.startswith("+") else "grey"
              for b in d["bucket"]]
    ax.bar(range(len(d)), d["count"].to_numpy(), color=colors)
    ax.set_xticks(range(len(d)), list(d["bucket"]), rotation=60, ha="right")
    systems = list(dict.fromkeys(result.table["model"]))
    ax.set_xlabel(f"SL({systems[-1]}) - SL({systems[0]}) (green: {systems[-1]} wins)")
    ax.set_ylabel("relevant documents")
    ax.set_title("Per-document wins and losses")
    fig.tight_layout()
    return fig


def plot_chain(result, ax=None):
    """Kendall tau and ΔSort (largest over systems, % of |S|) of each row of an ``asl-chain``
    result (the paper's Table 2 rows for one track). Degenerate (fewer than 3 systems, or tau 1
    at every step) and no ``ax`` given: returns a note (str) saying why there is no chart."""
    _check(result, "asl-chain")
    t = result.table
    n = int(t["n_systems"].max()) if len(t) and "n_systems" in t else 0
    if ax is None and (n < 3 or bool((t["kendall_tau"] >= 1).all())):
        # degenerate: the report shows this note instead of a chart of bars all at 1.0
        return (f"Kendall τ between the orderings of {n} systems is 1 at every step; nothing to chart "
                "(the table has the ΔSort values)")
    fig, ax = _fig_ax(ax, size=(8.0, 4.0))
    labels = [f"{c}: {s}" for c, s in zip(t["chain"], t["step"])]
    ax.barh(range(len(t)), t["kendall_tau"].fillna(0).to_numpy(), color="tab:blue")
    for i, (tau, ds) in enumerate(zip(t["kendall_tau"], t["dsort"])):
        ax.text(0 if tau != tau else tau, i, f"  ΔSort={ds:.0f}%", va="center", fontsize=8)
    ax.set_yticks(range(len(t)), labels, fontsize=7)
    ax.set_xlabel("Kendall tau-b between system orderings")
    lo = float(t["kendall_tau"].min()) if len(t) else 0.0
    ax.set_xlim(min(0.0, lo - 0.05) if lo == lo else 0.0, 1.3)
    ax.invert_yaxis()
    fig.tight_layout()
    return fig


def plot_tracks(result, ax=None):
    """The paper's Figs. 1-4: per measure, a histogram over tracks of each track's best system
    (P@20, ASL@g1-10, MAP, ASL; ASL-type values on log2 bins)."""
    import matplotlib.pyplot as plt
    import numpy as np

    _check(result, "asl-tracks")
    t = result.table
    measures = list(dict.fromkeys(t["measure"]))
    if not measures:
        fig, ax = _fig_ax(ax)
        return _note(fig, ax, "no tracks")
    fig, axes = plt.subplots(1, len(measures), figsize=(3.2 * len(measures), 3.2), squeeze=False)
    for a, m in zip(axes[0], measures):
        v = t.loc[t["measure"] == m, "best_value"].to_numpy(np.float64)
        if m.startswith("ASL"):
            hi = max(2.0, float(np.nanmax(v)) if v.size else 2.0)
            bins = 2.0 ** np.arange(0, np.ceil(np.log2(hi)) + 1)
            a.hist(v, bins=bins, color="tab:orange")
            a.set_xscale("log", base=2)
        else:
            a.hist(v, bins=np.linspace(0, 1, 11), color="tab:blue")
        a.set_title(f"best {m} per track", fontsize=9)
        a.set_ylabel("tracks")
    fig.tight_layout()
    return fig


def plot_rrie(result, ax=None):
    """Relative reduction in error of run B over run A per measure (an ``asl-rrie`` result):
    one bar per measure, green where B removes error, red where it adds some."""
    import numpy as np

    _check(result, "asl-rrie")
    t = result.table
    fig, ax = _fig_ax(ax, size=(7.0, 0.9 + 0.35 * max(len(t), 1)))
    vals = t["rrie"].to_numpy(np.float64)
    colors = ["tab:green" if v > 0 else "tab:red" if v < 0 else "grey" for v in vals]
    y = np.arange(len(t))
    ax.barh(y, np.nan_to_num(vals), color=colors)
    for i, v in enumerate(vals):
        ax.text(0 if v != v else v, i, "  n/a" if v != v else f" {v:+.2f} ", va="center",
                ha="left" if not v < 0 else "right", fontsize=8)
    ax.set_yticks(y, list(t["measure"]))
    ax.invert_yaxis()
    ax.axvline(0, color="black", lw=0.6)
    a, b = result.summary.get("a", "A"), result.summary.get("b", "B")
    ax.set_xlabel(f"RRIE = (err {a} - err {b}) / err {a}  (> 0: {b} is better)")
    ax.set_title(f"Relative reduction in error: {b} over {a}")
    lim = float(np.nanmax(np.abs(vals))) if np.isfinite(vals).any() else 1.0
    ax.set_xlim(-1.25 * max(lim, 0.1), 1.25 * max(lim, 0.1))
    fig.tight_layout()
    return fig


MANY_SYSTEMS = 8  # more systems than this: one small panel per measure (dots with CI whiskers)


def _evaluation_dots(result, measures):
    """Small multiples for a track of many systems: one panel per measure, systems in the
    table's order on a shared y axis, a dot per system with its bootstrap CI."""
    import matplotlib.pyplot as plt
    import numpy as np

    t = result.table
    systems = list(t["model"])
    ci = result.tables.get("ci")
    y = np.arange(len(systems))
    fig, axes = plt.subplots(1, len(measures), sharey=True, squeeze=False,
                             figsize=(1.4 * len(measures) + 1.6, 1.0 + 0.16 * len(systems)))
    for a, m in zip(axes[0], measures):
        vals = t[m].to_numpy(np.float64)
        err = None
        if ci is not None and not ci.empty:
            c = ci[ci["measure"] == m].set_index("model").reindex(systems)
            lo, hi = c["ci_low"].to_numpy(np.float64), c["ci_high"].to_numpy(np.float64)
            err = np.nan_to_num(np.vstack([np.clip(vals - lo, 0, None), np.clip(hi - vals, 0, None)]))
        a.errorbar(vals, y, xerr=err, fmt="o", ms=3, lw=0.6, color="tab:red" if m.startswith("ASL") else "tab:blue")
        a.set_title(m + (" ↓" if m.startswith("ASL") else " ↑"), fontsize=9)
        a.grid(axis="x", lw=0.3)
        a.tick_params(axis="x", labelsize=9)
    axes[0][0].set_yticks(y, systems, fontsize=9)
    axes[0][0].invert_yaxis()
    fig.suptitle("Measures per system (dots: mean over queries; whiskers: bootstrap CI; ↓ lower is better)",
                 fontsize=9)
    fig.tight_layout()
    return fig


def plot_evaluation(result, ax=None):
    """Each system's measures from an ``asl-evaluate`` result: horizontal bars per system, one
    panel for the measures where higher is better (AP, P@k, RR, nDCG...) and one for the ASL
    measures (lower is better), with the bootstrap confidence intervals as error bars.

    ``ax`` (optional) is used for a single panel when the result has one kind of measure only.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    _check(result, "asl-evaluate")
    t = result.table
    measures = [str(m) for m in result.summary.get("measures", [])]
    groups = [[m for m in measures if not m.startswith("ASL")],
              [m for m in measures if m.startswith("ASL")]]
    groups = [g for g in groups if g]
    systems = list(t["model"])
    if ax is None and len(systems) > MANY_SYSTEMS and measures:
        return _evaluation_dots(result, measures)
    widest = max((len(g) for g in groups), default=1)
    height = 1.7 + 0.11 * max(len(systems), 1) * max(1, widest)  # + the legend above the panels
    if ax is not None and len(groups) <= 1:
        fig, axes = ax.figure, [ax]
    else:
        fig, axes = plt.subplots(1, max(len(groups), 1), figsize=(5.0 * max(len(groups), 1),
                                                                  min(height, 40.0)),
                                 squeeze=False)
        axes = list(axes[0])
    if not groups or not systems:
        return _note(fig, axes[0], "no measures or systems to plot")
    ci = result.tables.get("ci")
    y = np.arange(len(systems))
    for a, group in zip(axes, groups):
        w = 0.8 / len(group)
        for i, m in enumerate(group):
            vals = t[m].to_numpy(np.float64)
            err = None
            if ci is not None and not ci.empty:
                c = ci[ci["measure"] == m].set_index("model").reindex(systems)
                lo, hi = c["ci_low"].to_numpy(np.float64), c["ci_high"].to_numpy(np.float64)
                err = np.vstack([np.clip(vals - lo, 0, None), np.clip(hi - vals, 0, None)])
                err = np.nan_to_num(err)
            a.barh(y + i * w - 0.4 + w / 2, np.nan_to_num(vals), height=w, xerr=err, label=m,
                   capsize=2, error_kw={"lw": 0.6})
        a.set_yticks(y, systems, fontsize=7 if len(systems) > 15 else 9)
        a.invert_yaxis()
        asl = group[0].startswith("ASL")
        a.set_xlabel("ASL (lower is better)" if asl else "value (higher is better)")
        a.legend(fontsize=9, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(4, len(group)),
                 frameon=False)  # above the panel, never over the bars
    fig.suptitle("Measures per system (bars: mean over queries; whiskers: bootstrap CI)",
                 fontsize=9)
    fig.tight_layout()
    return fig
