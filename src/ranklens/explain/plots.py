"""Plots of explanation results (matplotlib).

Every function takes a :class:`~ranklens.results.Result` (fresh or ``Result.load``-ed) and
returns a :class:`matplotlib.figure.Figure`; all other arguments are optional. With ``ax=`` the
plot is drawn on that Axes and its figure is returned. Without it a new Figure is made directly
(``matplotlib.figure.Figure``, not ``pyplot``): no backend is switched, nothing is registered in
pyplot's figure list, and ``fig.savefig(...)`` works as usual.
"""

from __future__ import annotations

from typing import Any

from ..errors import ValidationError
from ..results import Result

__all__ = ["plot_consistency", "plot_mer_scatter", "plot_relevance_scatter", "plot_sweep", "plot_sweep_w"]


def _axes(ax: Any, **kw: Any):
    if ax is None:
        from matplotlib.figure import Figure

        fig = Figure(**kw)
        return fig, fig.subplots()
    return ax.figure, ax


def _first_measure(columns: Any, prefixes: tuple[str, ...] = ("MRC@", "MER@")) -> str | None:
    for pre in prefixes:
        for c in columns:
            if str(c).startswith(pre):
                return str(c)
    return None


def _finish(fig: Any, ax: Any) -> None:
    if ax.get_legend_handles_labels()[0]:  # outside the data, right of the axes
        ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()


def _window_width(granularity: Any) -> int | None:
    g = str(granularity)
    if g.startswith("window:"):
        try:
            return int(g.split(":", 1)[1])
        except ValueError:
            return None
    return None


def plot_sweep(result: Result, measure: str | None = None, *, x: str | None = None, ax: Any = None):
    """MRC/MER of an ``explain-sweep`` result as a function of ``m`` or of the window width ``w``.

    Args:
        result: an ``explain-sweep`` result.
        measure: a column such as ``"MRC@10"`` or ``"MER@10"``; default the first MRC column.
        x: ``"m"`` (paper Fig. 2: one line per ranker and granularity), ``"w"`` (Fig. 3: window
            granularities only, one line per ranker and ``m``) or ``None``: ``"m"`` when the
            sweep has several ``m``, else ``"w"`` when it has several window widths.
        ax: draw on this Axes.

    Returns:
        The Figure.
    """
    if result.kind != "explain-sweep":
        raise ValidationError(f"plot_sweep needs an 'explain-sweep' result, got {result.kind!r}")
    t = result.table
    measure = measure or _first_measure(t.columns)
    if measure is None or measure not in t.columns:
        raise ValidationError(f"measure {measure!r} not in the sweep; have {[c for c in t.columns if '@' in c]}")
    widths = t["granularity"].map(_window_width)
    if x is None:
        x = "w" if t["m"].nunique() < 2 and widths.dropna().nunique() >= 2 else "m"
    if x not in ("m", "w"):
        raise ValidationError(f"x must be 'm', 'w' or None, got {x!r}")
    fig, ax = _axes(ax, figsize=(5, 3.5))
    if x == "m":
        for (rk, gr), g in t.groupby(["model", "granularity"], sort=False):
            g = g.sort_values("m")
            ax.plot(g["m"], g[measure].astype(float), marker="o", label=f"{rk} ({gr})")
        ax.set_xlabel("m (rationales per document)")
    else:
        tw = t.assign(w=widths).dropna(subset=["w"])
        if tw.empty:
            raise ValidationError("x='w' needs window granularities in the sweep (windows=... / --sweep-w)")
        for (rk, m), g in tw.groupby(["model", "m"], sort=False):
            g = g.sort_values("w")
            ax.plot(g["w"].astype(int), g[measure].astype(float), marker="o", label=f"{rk} (m={int(m)})")
        ax.set_xlabel("w (words per window)")
    ax.set_ylabel(measure.upper())
    _finish(fig, ax)
    return fig


def plot_relevance_scatter(
    result: Result, measure: str | None = None, *, against: str = "nDCG@10", ax: Any = None
):
    """Per-query ``measure`` vs nDCG@10 (paper Figs. 4-6), Pearson/Spearman in the legend.

    Args:
        result: an ``explain-consistency`` result (its ``table``) or an ``explain-sweep``
            result (its ``per_query`` table; every ``m`` is plotted).
        measure: default the first MRC column.
        against: the relevance column.
        ax: draw on this Axes.

    Returns:
        The Figure (with no points when the result has no nDCG, e.g. no qrels were given).
    """
    table = result.table if result.kind == "explain-consistency" else result.tables.get("per_query")
    if table is None:
        raise ValidationError(f"plot_relevance_scatter needs an explain-consistency or explain-sweep result, "
                              f"got {result.kind!r}")
    measure = measure or _first_measure(table.columns)
    if measure is None or measure not in table.columns or against not in table.columns:
        raise ValidationError(f"result has no per-query {measure!r} and {against!r} columns")
    from scipy import stats

    fig, ax = _axes(ax, figsize=(5, 4))
    for (rk, gr), g in table.groupby(["model", "granularity"], sort=False):
        xy = g[[against, measure]].astype(float).dropna()
        if xy.empty:
            continue
        label = f"{rk} ({gr})"
        if len(xy) >= 3 and xy[measure].nunique() > 1 and xy[against].nunique() > 1:
            r = stats.pearsonr(xy[against], xy[measure]).statistic
            rho = stats.spearmanr(xy[against], xy[measure]).statistic
            label += f" r={r:.2f} ρ={rho:.2f}"
        ax.scatter(xy[against], xy[measure], s=14, alpha=0.7, label=label)
    ax.set_xlabel(against)
    ax.set_ylabel(measure.upper())
    _finish(fig, ax)
    return fig


def plot_consistency(result: Result, *, ax: Any = None):
    """Grouped bars of mean MRC/MER per ranker and granularity (paper Tables 1-2 as a chart).

    Args:
        result: an ``explain-consistency`` result (its ``summary`` table).
        ax: draw on this Axes.

    Returns:
        The Figure.
    """
    if result.kind != "explain-consistency":
        raise ValidationError(f"plot_consistency needs an 'explain-consistency' result, got {result.kind!r}")
    import numpy as np

    s = result.tables.get("summary")
    if s is None:
        raise ValidationError("the explain-consistency result has no 'summary' table")
    measures = [c for c in s.columns if str(c).startswith(("MRC@", "MER@"))]
    fig, ax = _axes(ax, figsize=(6, 3.5))
    labels = [f"{r}\n{g}" for r, g in zip(s["model"], s["granularity"])]
    x = np.arange(len(s))
    width = 0.8 / max(1, len(measures))
    for i, m in enumerate(measures):
        ax.bar(x + i * width, s[m].astype(float), width, label=m.upper())
    ax.set_xticks(x + width * (len(measures) - 1) / 2, labels, fontsize="small")
    ax.axhline(0, color="grey", lw=0.5)
    _finish(fig, ax)
    return fig


def plot_mer_scatter(result: Result, *, ax: Any = None) -> Any:
    """Per-query MER vs nDCG@10 (paper Fig. 6); no figure (``[]``) when the result has no MER or
    no nDCG (no sub-document relevance or no qrels)."""
    table = result.table if result.kind == "explain-consistency" else result.tables.get("per_query")
    measure = _first_measure(getattr(table, "columns", ()), ("MER@",))
    if measure is None or table[measure].isna().all() or table["nDCG@10"].isna().all():
        return []
    return plot_relevance_scatter(result, measure, ax=ax)


def plot_sweep_w(result: Result, measure: str | None = None, *, ax: Any = None) -> Any:
    """MRC as a function of the window width ``w`` (paper Fig. 2); ``[]`` unless the sweep has at
    least two window widths."""
    widths = result.table["granularity"].map(_window_width).dropna()
    if widths.nunique() < 2 or result.table["m"].nunique() < 2:
        return []  # a sweep over w alone is already plot_sweep's x axis
    return plot_sweep(result, measure, x="w", ax=ax)
