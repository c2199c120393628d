"""Behavioural probes: the report's findings (short sentences with the numbers, their n and their
significance) and the per-unit values behind the headline's significance marks, one function per
result kind (``ResultKind.findings`` / ``ResultKind.significance``)."""

from __future__ import annotations

from typing import Any

from ..report.findings import join_list, num, p_text, signed

__all__ = ["probes_delta_sweep", "probes_table"]


def probes_table(result: Any) -> list[str]:
    """Per model: the probes with the largest significant effects, and how many are significant."""
    t = result.table
    if t.empty or "score" not in t:
        return []
    alpha = result.summary.get("alpha", 0.01)
    corr = result.summary.get("correction", "adjusted")
    out = []
    for model, g in t.groupby("model", sort=False):
        g = g[g["score"].notna()]
        sig = g[g["significant"].astype(bool)] if "significant" in g else g.iloc[0:0]
        top = sig.reindex(sig["score"].abs().sort_values(ascending=False).index).head(3)
        n = int(g["n"].max()) if "n" in g and len(g) else 0
        effects = [f"{r.probe} {signed(r.score)} ({p_text(getattr(r, 'p_adjusted', float('nan')))})"
                   for r in top.itertuples()]
        text = f"{model}: {len(sig)} of {len(g)} probes significant ({corr}, α = {alpha})"
        out.append(text + (f"; strongest: {join_list(effects, 3)}" if effects else "; no probe moves its scores")
                   + (f"; n ≤ {n} pairs a probe." if n else "."))
    return out


def probes_delta_sweep(result: Any) -> list[str]:
    t = result.table
    if t.empty:
        return []
    out = []
    for (probe, model), g in t.groupby(["probe", "model"], sort=False):
        span = float(g["score"].max() - g["score"].min())
        if span >= 0.1:
            out.append(f"{probe} on {model} moves by {num(span)} across the δ sweep")
    return ([f"The score depends on the tolerance δ: {join_list(out, 3)}."] if out else
            ["Probe scores are stable across the δ sweep (change < 0.1)."])
