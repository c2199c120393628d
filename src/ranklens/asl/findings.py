"""Atomized search length: the report's findings (short sentences with the numbers, their n and their
significance) and the per-unit values behind the headline's significance marks, one function per
result kind (``ResultKind.findings`` / ``ResultKind.significance``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..report.findings import ALPHA, long_frame, num, p_text, paired_vs_baseline

__all__ = ["asl_chain", "asl_distribution", "asl_evaluate", "asl_rrie", "sig_asl_evaluate"]


def asl_evaluate(result: Any) -> list[str]:
    """Best system per headline measure, then each system against the baseline (the analysis's
    own paired tests, adjusted p-values)."""
    t, s = result.table, result.summary
    if t.empty or "model" not in t:
        return []
    n = int(t["n_queries"].max()) if "n_queries" in t else None
    out = []
    best = []
    for m, low in (("ASL", True), ("AP", False), ("nDCG@10", False)):
        if m in t and t[m].notna().any():
            i = t[m].idxmin() if low else t[m].idxmax()
            best.append(f"{m} {t.loc[i, 'model']} {num(t.loc[i, m])}" + (" (lower is better)" if low else ""))
    if best:
        out.append(f"Best of {len(t)} systems: " + "; ".join(best) + (f"; n = {n} queries." if n else "."))
    sig = result.tables.get("significance")
    base = s.get("baseline")
    if sig is None or sig.empty or not base:
        return out
    pcol = "rand_p_adj" if "rand_p_adj" in sig else "ttest_p_adj"
    test = {"rand_p_adj": "randomization test", "ttest_p_adj": "paired t-test"}[pcol]
    corr = dict(result.provenance.params or {}).get("correction")
    corr = f"{corr}-adjusted" if corr else "adjusted"
    measures = [m for m in ("ASL", "AP", "nDCG@10", "P@20", "RR") if m in set(sig["measure"])]
    models = [m for m in dict.fromkeys(sig["model"]) if m != base]
    if len(models) > 4:  # a track of many runs: counts, not one sentence per run
        for m in measures[:2]:
            g = sig[sig["measure"] == m]
            up = int(((g[pcol] < ALPHA) & g["better"].astype(bool)).sum())
            down = int(((g[pcol] < ALPHA) & ~g["better"].astype(bool)).sum())
            out.append(f"{m}: {up} of {len(g)} systems significantly better than {base}, {down} worse "
                       f"({test}, {corr} p < {ALPHA}).")
        return out
    for model in models:
        g = sig[(sig["model"] == model) & sig["measure"].isin(measures)].set_index("measure")
        parts = []
        for m in measures:
            if m in g.index:
                r = g.loc[m]
                word = "better" if bool(r["better"]) else "worse"
                parts.append(f"{m} {num(r['mean'])} vs {num(r['baseline_mean'])} ({word}, {p_text(r[pcol])})")
        if parts:
            out.append(f"{model} vs {base}: " + "; ".join(parts) + f" ({test}, {corr}).")
    return out


def asl_rrie(result: Any) -> list[str]:
    t = result.table
    if t.empty:
        return []
    parts = [f"{r.measure} {num(r.rrie * 100)}%" for r in t.itertuples()]
    r0 = t.iloc[0]
    return [f"Relative reduction in error of {r0['model']} over {r0['other_model']}: " + ", ".join(parts) + "."]


def asl_distribution(result: Any) -> list[str]:
    t = result.table
    if t.empty or "bucket" not in t:
        return []
    first = t[t["bucket"].astype(str) == "1"]
    parts = [f"{r.model} {num(r.fraction * 100)}%" for r in first.itertuples()]
    return ["Relevant documents found with search length 1: " + ", ".join(parts) + "."] if parts else []


def asl_chain(result: Any) -> list[str]:
    t = result.table
    if t.empty:
        return []
    n = int(t["n_systems"].max())
    low = t.loc[t["kendall_tau"].idxmin()]
    if (t["kendall_tau"] >= 1).all():
        return [f"Every step from MAP to ASL keeps the order of the {n} systems (Kendall τ = 1); "
                "the chart is left out."]
    return [f"Largest reordering: {low['chain']} at '{low['step']}', Kendall τ = {num(low['kendall_tau'])} "
            f"over {n} systems."]


def sig_asl_evaluate(result: Any, baseline: str) -> pd.DataFrame:
    return paired_vs_baseline(long_frame(result.tables.get("per_query"), "query_id", "measure", "value"), baseline)
