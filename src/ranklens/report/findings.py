"""The shared grammar of findings: numbers, p-values and lists written the same way in every
analysis's findings (``<analysis>/findings.py``), and the paired t-tests behind the headline
table's significance marks.

It knows no analysis: each analysis's ``findings.py`` turns its own results into sentences with
these helpers. Nothing is recomputed here except the headline's paired t-tests against a chosen
baseline, which use :func:`ranklens.stats.paired_ttest` and :func:`ranklens.stats.correct_pvalues`
(Holm).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from .tables import number

__all__ = ["ALPHA", "join_list", "long_frame", "num", "p_text", "paired_vs_baseline", "signed"]

ALPHA = 0.05


def p_text(p: float) -> str:
    if p is None or p != p:
        return "p n/a"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}" if p < 0.01 else f"p = {p:.2f}"


def num(v: float) -> str:
    return number(v).replace("-", "−")


def signed(v: float) -> str:
    return ("+" if v > 0 else "") + num(v)


def join_list(parts: Sequence[str], limit: int = 4) -> str:
    parts = list(parts)
    more = f" and {len(parts) - limit} more" if len(parts) > limit else ""
    parts = parts[:limit]
    if len(parts) <= 1:
        return "".join(parts) + more
    return ", ".join(parts[:-1]) + (" and " if not more else ", ") + parts[-1] + more


def paired_vs_baseline(long: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """``long`` (item, metric, model, unit, value) -> one paired t-test per (item, metric, model)
    against ``baseline`` on the units both have, Holm-adjusted over all of them: columns
    item, metric, model, p."""
    from ..stats import correct_pvalues, paired_ttest

    rows = []
    if long.empty or baseline not in set(long["model"]):
        return pd.DataFrame(columns=["item", "metric", "model", "p"])
    for (item, metric), g in long.groupby(["item", "metric"], sort=False):
        wide = g.pivot_table(index="unit", columns="model", values="value", aggfunc="mean")
        if baseline not in wide:
            continue
        for model in wide.columns:
            if model != baseline:
                rows.append({"item": item, "metric": metric, "model": model,
                             "p": paired_ttest(wide[model].to_numpy(), wide[baseline].to_numpy()).pvalue})
    out = pd.DataFrame(rows, columns=["item", "metric", "model", "p"])
    if len(out):
        out["p"] = correct_pvalues(out["p"].to_numpy(dtype=float), "holm")
    return out


def long_frame(frame: pd.DataFrame | None, unit: str, metric: str | None, value: str, item: Sequence[str] = (),
          metric_name: str | None = None) -> pd.DataFrame:
    if frame is None or frame.empty:
        return pd.DataFrame(columns=["item", "metric", "model", "unit", "value"])
    return pd.DataFrame({
        "item": frame[list(item)].astype(str).agg("/".join, axis=1) if item else "",
        "metric": frame[metric].astype(str) if metric else metric_name, "model": frame["model"].astype(str),
        "unit": frame[unit].astype(str), "value": pd.to_numeric(frame[value], errors="coerce")})
