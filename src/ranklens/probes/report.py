"""Tables in the paper's shape, δ sweeps, variance across seeds, and plots of probe results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from ..results import Result, make_provenance
from .run import probe_effects

__all__ = [
    "delta_sweep",
    "format_table",
    "paper_table",
    "plot_delta_sweep",
    "plot_diff_distributions",
    "seed_variance",
]


def _check(result: Result, kind: str) -> None:
    if result.kind != kind:
        raise ValidationError(f"expected a {kind!r} result, got {result.kind!r}")


def paper_table(result: Result, *, models: Sequence[str] | None = None) -> pd.DataFrame:
    """The probe table in the paper's shape as a frame: one row per probe, columns
    ``probe (dataset)``, one score column per model with a boolean ``<model>_sig`` column after
    it (``p_adjusted < alpha``; score NaN = no samples), and ``n`` (samples; the largest over
    models -- samples are identical across models, see the samples hash)."""
    _check(result, "probe-table")
    t = result.table
    models = list(models) if models is not None else list(dict.fromkeys(t["model"]))
    rows = []
    for probe, grp in t.groupby("probe", sort=False):
        first = grp.iloc[0]
        row: dict[str, Any] = {"probe (dataset)": f"{probe} ({first['dataset']})" if first["dataset"] else str(probe)}
        for m in models:
            g = grp[grp["model"] == m]
            empty = g.empty or int(g["n"].iloc[0]) == 0
            row[m] = float("nan") if empty else float(g["score"].iloc[0])
            row[f"{m}_sig"] = (not empty) and bool(g["significant"].iloc[0])
        row["n"] = int(grp["n"].max())
        row["symmetric"] = bool(first["symmetric"])
        rows.append(row)
    return pd.DataFrame(rows)


def format_table(result: Result, *, fmt: str = "text", models: Sequence[str] | None = None,
                 digits: int = 2) -> str:
    """The probe table as text or markdown: rows = probe (dataset), columns = models, cells =
    score with significance marks, last column = number of samples.

    Marks: a cell is written plainly when ``p_adjusted < alpha`` and in parentheses otherwise
    (not significant); ``-`` means the probe had no samples / was skipped. ``n`` is the
    number of samples (the largest over models; samples are identical across models, see the
    samples hash).
    """
    frame = paper_table(result, models=models)
    models = list(models) if models is not None else list(dict.fromkeys(result.table["model"]))
    rows = []
    for r in frame.to_dict("records"):
        cells = []
        for m in models:
            s = r[m]
            if s != s:  # NaN: no samples
                cells.append("-")
                continue
            txt = f"{s:.{digits}f}" if r["symmetric"] else f"{s:+.{digits}f}"
            cells.append(txt if r[f"{m}_sig"] else f"({txt})")
        rows.append([r["probe (dataset)"], *cells, str(r["n"])])
    header = ["probe (dataset)", *models, "n"]
    alpha = result.summary.get("alpha", 0.01)
    corr = result.summary.get("correction", "bonferroni")
    note = (f"cells: probe score (mean effect); (x) = not significant at p < {alpha} after "
            f"{corr} correction (paired t-test); '-' = no samples. " + str(
                result.summary.get("sign_convention", "")))
    deltas = result.summary.get("deltas", {})
    dnote = "delta: " + ", ".join(f"{m}={deltas[m]:.4g}" for m in models if m in deltas)
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines) + f"\n\n{note}\n{dnote}\n"
    if fmt != "text":
        raise ValidationError(f"fmt must be 'text' or 'markdown', got {fmt!r}")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    def line(r: list[str]) -> str:
        return "  ".join(str(c).ljust(widths[0]) if i == 0 else str(c).rjust(widths[i]) for i, c in enumerate(r))
    out = [line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows]
    return "\n".join(out) + f"\n{note}\n{dnote}\n"


def delta_sweep(result: Result, *, probes: Sequence[str] | None = None,
                percentiles: Sequence[float] = tuple(range(0, 101, 5))) -> Result:
    """Probe score as δ moves through the percentiles (0-100) of each model's calibration
    differences (paper Fig. 2). Needs a ``probe-table`` result whose models were calibrated
    (``tables["calibration"]``).

    Returns:
        ``Result(kind="probe-delta-sweep")`` with table ``probe, model, percentile, delta, score``.
    """
    _check(result, "probe-table")
    cal = result.tables.get("calibration")
    samples = result.tables["samples"]
    if cal is None or cal.empty:
        raise ValidationError("delta sweep needs calibration differences: run the probes with a "
                              "calibrated delta (not an explicit number)")
    sym = dict(zip(result.table["probe"], result.table["symmetric"].astype(bool)))
    names = list(probes) if probes is not None else list(dict.fromkeys(result.table["probe"]))
    rows = []
    for model, cg in cal.groupby("model", sort=False):
        diffs = cg["diff"].to_numpy(np.float64)
        for p in names:
            d = samples[(samples["probe"] == p) & (samples["model"] == model)]["diff"].to_numpy(np.float64)
            if len(d) == 0:
                continue
            for pc in percentiles:
                delta = float(np.percentile(diffs, pc))
                rows.append({"probe": p, "model": model, "percentile": float(pc), "delta": delta,
                             "score": float(probe_effects(d, delta, sym.get(p, False)).mean())})
    table = pd.DataFrame(rows, columns=["probe", "model", "percentile", "delta", "score"])
    prov = make_provenance(params={"percentiles": list(percentiles), "source": "probe-table"},
                           inputs=dict(result.provenance.inputs))
    return Result(kind="probe-delta-sweep", summary={"probes": names, "models": list(cal["model"].unique())},
                  table=table, provenance=prov)


def seed_variance(result: Result, models: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Variance across training seeds (paper Table 4): ``models`` are checkpoints of one model.

    Returns:
        ``(per_probe, per_family)``: the standard deviation (ddof=1) of each probe's score across
        the checkpoints, and its mean by probe family.
    """
    _check(result, "probe-table")
    if len(models) < 2:
        raise ValidationError("seed_variance needs at least two checkpoints (models)")
    t = result.table[result.table["model"].isin(list(models))]
    missing = set(models) - set(t["model"])
    if missing:
        raise ValidationError(f"models not in the result: {sorted(missing)}")
    wide = t.pivot_table(index=["probe", "family"], columns="model", values="score")
    per_probe = wide.std(axis=1, ddof=1).rename("std").reset_index()
    per_family = per_probe.groupby("family", as_index=False)["std"].mean()
    return per_probe, per_family


def plot_delta_sweep(result: Result, ax: Any = None) -> Any:
    """Score vs δ percentile, one line per (probe, model), from a ``probe-delta-sweep`` result
    (:func:`delta_sweep`). Returns the matplotlib ``Figure``."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    _check(result, "probe-delta-sweep")
    if ax is None:
        fig, ax = plt.subplots(figsize=(6, 4))
    else:
        fig = ax.figure
    for (p, m), g in result.table.groupby(["probe", "model"], sort=False):
        ax.plot(g["percentile"], g["score"], label=f"{p} / {m}")
    if result.table.empty:
        ax.text(50, 0.5, "no probe scores to sweep", ha="center", va="center")
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel("delta percentile of calibration differences")
    ax.set_ylabel("probe score")
    ax.set_ylim(-1.05, 1.05)
    if not result.table.empty:
        ax.legend(fontsize=6)
    return fig


def plot_diff_distributions(result: Result, *, probes: Sequence[str] | None = None, ax: Any = None) -> Any:
    """Histograms of ``diff = R(q,d1) - R(q,d2)`` per probe and model (each model's diffs are
    divided by its δ, so ±1 marks the tie band), from a ``probe-table`` result. Returns the
    matplotlib ``Figure`` (one panel per probe)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    _check(result, "probe-table")
    s = result.tables["samples"]
    deltas = result.summary.get("deltas", {})
    names = list(probes) if probes is not None else list(dict.fromkeys(s["probe"]))
    if not names:  # every probe was skipped / had no samples: say so instead of failing
        fig, a = (plt.subplots(figsize=(6, 1.5)) if ax is None else (ax.figure, ax))
        a.text(0.5, 0.5, "no probe samples to plot", ha="center", va="center",
               transform=a.transAxes)
        a.set_axis_off()
        return fig
    if ax is None:
        fig, axes = plt.subplots(len(names), 1, figsize=(6, 1.8 * max(1, len(names))), squeeze=False)
        axes = axes[:, 0]
    else:
        fig, axes = ax.figure, [ax] * len(names)
    for a, p in zip(axes, names):
        for m, g in s[s["probe"] == p].groupby("model", sort=False):
            d = g["diff"].to_numpy(np.float64)
            scale = deltas.get(m) or 1.0
            a.hist(np.clip(d / scale, -10, 10), bins=40, alpha=0.5, label=m)
        a.axvline(-1, color="k", lw=0.5)
        a.axvline(1, color="k", lw=0.5)
        a.set_title(p, fontsize=8)
        a.legend(fontsize=6)
    axes[-1].set_xlabel("diff / delta (clipped to ±10)")
    fig.tight_layout()
    return fig
