"""Interpolation vs extrapolation: the report's findings (short sentences with the numbers, their n and their
significance) and the per-unit values behind the headline's significance marks, one function per
result kind (``ResultKind.findings`` / ``ResultKind.significance``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..report.findings import long_frame, num, p_text, paired_vs_baseline, signed

__all__ = ["regimes_table", "sig_regimes_table"]


def regimes_table(result: Any) -> list[str]:
    """Per model and setting: interpolation -> extrapolation of each measure, the relative gap and
    the analysis's paired randomization test (extrapolation vs interpolation, same queries)."""
    long = result.tables.get("regime_table")
    if long is None or long.empty:
        return []
    out = []
    for (model, setting), g in long.groupby(["model", "setting"], sort=False):
        parts = [f"{r.measure} {num(r.interpolation)} → {num(r.extrapolation)} ({signed(r.gap * 100)}%, "
                 f"{p_text(r.randomization_pvalue)})" for r in g.itertuples()]
        n = int(g["n_paired"].max()) if "n_paired" in g else 0
        out.append(f"{model} ({setting}), interpolation → extrapolation: " + "; ".join(parts)
                   + (f"; n = {n} paired queries." if n else "."))
    return out


def sig_regimes_table(result: Any, baseline: str) -> pd.DataFrame:
    t = result.table
    need = {"model", "setting", "regime", "query_id", "measure", "value"}
    if t.empty or not need <= set(t.columns):
        return paired_vs_baseline(long_frame(None, "", "", ""), baseline)
    return paired_vs_baseline(long_frame(t, "query_id", "measure", "value", ("setting", "regime")), baseline)
