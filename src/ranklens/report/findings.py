"""The report's findings: short sentences with the numbers, their n and their significance, one
function per result kind (declared as ``ResultKind.findings``), and the per-query values behind
the headline table's significance marks (``ResultKind.significance``).

Every number comes from the result itself (its tables and the tests its analysis ran); nothing
is recomputed here except the headline's paired t-tests against a chosen baseline, which use
:func:`ranklens.stats.paired_ttest` and :func:`ranklens.stats.correct_pvalues` (Holm).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .tables import number

__all__ = ["asl_chain", "asl_distribution", "asl_evaluate", "asl_rrie", "explain_consistency",
           "n2o_matrix", "n2o_needle", "n2o_token_overlap", "paired_vs_baseline", "probe_delta_sweep",
           "probe_table", "ranker_overlap", "regime_table", "sig_asl_evaluate", "sig_explain_consistency",
           "sig_n2o_needle", "sig_n2o_token_overlap", "sig_regime_table"]

ALPHA = 0.05


def p_text(p: float) -> str:
    if p is None or p != p:
        return "p n/a"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}" if p < 0.01 else f"p = {p:.2f}"


def _n(v: float) -> str:
    return number(v).replace("-", "−")


def _signed(v: float) -> str:
    return ("+" if v > 0 else "") + _n(v)


def _list(parts: Sequence[str], limit: int = 4) -> str:
    parts = list(parts)
    more = f" and {len(parts) - limit} more" if len(parts) > limit else ""
    parts = parts[:limit]
    if len(parts) <= 1:
        return "".join(parts) + more
    return ", ".join(parts[:-1]) + (" and " if not more else ", ") + parts[-1] + more


# --------------------------------------------------------------------------- ASL
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
            best.append(f"{m} {t.loc[i, 'model']} {_n(t.loc[i, m])}" + (" (lower is better)" if low else ""))
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
                parts.append(f"{m} {_n(r['mean'])} vs {_n(r['baseline_mean'])} ({word}, {p_text(r[pcol])})")
        if parts:
            out.append(f"{model} vs {base}: " + "; ".join(parts) + f" ({test}, {corr}).")
    return out


def asl_rrie(result: Any) -> list[str]:
    t = result.table
    if t.empty:
        return []
    parts = [f"{r.measure} {_n(r.rrie * 100)}%" for r in t.itertuples()]
    r0 = t.iloc[0]
    return [f"Relative reduction in error of {r0['model']} over {r0['other_model']}: " + ", ".join(parts) + "."]


def asl_distribution(result: Any) -> list[str]:
    t = result.table
    if t.empty or "bucket" not in t:
        return []
    first = t[t["bucket"].astype(str) == "1"]
    parts = [f"{r.model} {_n(r.fraction * 100)}%" for r in first.itertuples()]
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
    return [f"Largest reordering: {low['chain']} at '{low['step']}', Kendall τ = {_n(low['kendall_tau'])} "
            f"over {n} systems."]


# --------------------------------------------------------------------------- probes
def probe_table(result: Any) -> list[str]:
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
        effects = [f"{r.probe} {_signed(r.score)} ({p_text(getattr(r, 'p_adjusted', float('nan')))})"
                   for r in top.itertuples()]
        text = f"{model}: {len(sig)} of {len(g)} probes significant ({corr}, α = {alpha})"
        out.append(text + (f"; strongest: {_list(effects, 3)}" if effects else "; no probe moves its scores")
                   + (f"; n ≤ {n} pairs a probe." if n else "."))
    return out


def probe_delta_sweep(result: Any) -> list[str]:
    t = result.table
    if t.empty:
        return []
    out = []
    for (probe, model), g in t.groupby(["probe", "model"], sort=False):
        span = float(g["score"].max() - g["score"].min())
        if span >= 0.1:
            out.append(f"{probe} on {model} moves by {_n(span)} across the δ sweep")
    return ([f"The score depends on the tolerance δ: {_list(out, 3)}."] if out else
            ["Probe scores are stable across the δ sweep (change < 0.1)."])


# --------------------------------------------------------------------------- neighbours
def n2o_matrix(result: Any) -> list[str]:
    s, t = result.summary, result.table
    if t.empty:
        return []
    out = [f"Nearest-neighbour overlap at k = {s.get('k')}: most similar {s.get('most_similar')}, "
           f"least similar {s.get('least_similar')}; n = {int(t['n_queries'].max())} queries."]
    tests = result.tables.get("paired_tests")
    if tests is not None and len(tests):
        pc = "p_holm" if "p_holm" in tests else "p_value"
        out.append(f"{int((tests[pc] < ALPHA).sum())} of {len(tests)} paired differences significant "
                   f"(Holm, α = {ALPHA}).")
    return out


def n2o_needle(result: Any) -> list[str]:
    t = result.table
    if t.empty:
        return []
    t = t.sort_values("mrr", ascending=False)
    parts = [f"{r.model} {_n(r.mrr)} [{_n(r.ci_low)}, {_n(r.ci_high)}]" for r in t.itertuples()]
    return [f"Needle in a haystack, MRR with 95% CI: {_list(parts)}; n = {int(t['n_pairs'].max())} pairs."]


def n2o_token_overlap(result: Any) -> list[str]:
    t = result.table
    if t.empty:
        return []
    t = t.sort_values("mean", ascending=False)
    parts = [f"{r.model} {_n(r.mean)}" for r in t.itertuples()]
    return [f"Token overlap of query and neighbours: {_list(parts)}; n = {int(t['n_queries'].max())} queries."]


def ranker_overlap(result: Any) -> list[str]:
    t, s = result.table, result.summary
    if t.empty:
        return []
    lo = t.loc[t["overlap_mean"].idxmin()]
    return [f"Top-{s.get('k')} overlap of the rankers averages {_n(s.get('mean_overlap', float('nan')))}; "
            f"least alike: {lo['model']} and {lo['other_model']} ({_n(lo['overlap_mean'])}); "
            f"n = {s.get('n_queries')} queries."]


# --------------------------------------------------------------------------- regimes
def regime_table(result: Any) -> list[str]:
    """Per model and setting: interpolation -> extrapolation of each measure, the relative gap and
    the analysis's paired randomization test (extrapolation vs interpolation, same queries)."""
    long = result.tables.get("regime_table")
    if long is None or long.empty:
        return []
    out = []
    for (model, setting), g in long.groupby(["model", "setting"], sort=False):
        parts = [f"{r.measure} {_n(r.interpolation)} → {_n(r.extrapolation)} ({_signed(r.gap * 100)}%, "
                 f"{p_text(r.randomization_pvalue)})" for r in g.itertuples()]
        n = int(g["n_paired"].max()) if "n_paired" in g else 0
        out.append(f"{model} ({setting}), interpolation → extrapolation: " + "; ".join(parts)
                   + (f"; n = {n} paired queries." if n else "."))
    return out


# --------------------------------------------------------------------------- explain
def explain_consistency(result: Any) -> list[str]:
    summ = result.tables.get("summary")
    if summ is None or summ.empty:
        return []
    mcols = [c for c in summ.columns if str(c).startswith(("mrc@", "mer@"))]
    out = []
    for gran, g in summ.groupby("granularity", sort=False):
        parts = [f"{r['model']} " + ", ".join(f"{c} {_n(r[c])}" for c in mcols[:2]) for _, r in g.iterrows()]
        out.append(f"{gran} rationales: {_list(parts)}.")
    comp = result.tables.get("comparisons")
    if comp is not None and len(comp):
        c = comp.sort_values("pvalue").iloc[0]
        out.append(f"Largest model difference: {c['model']} − {c['other_model']} on {c['measure']} ({c['granularity']}) "
                   f"{_signed(c['mean_diff'])}, {p_text(c['pvalue'])} ({c['test']}, unadjusted), n = {int(c['n'])}.")
    return out


# --------------------------------------------------------------------------- headline significance
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


def _long(frame: pd.DataFrame | None, unit: str, metric: str | None, value: str, item: Sequence[str] = (),
          metric_name: str | None = None) -> pd.DataFrame:
    if frame is None or frame.empty:
        return pd.DataFrame(columns=["item", "metric", "model", "unit", "value"])
    return pd.DataFrame({
        "item": frame[list(item)].astype(str).agg("/".join, axis=1) if item else "",
        "metric": frame[metric].astype(str) if metric else metric_name, "model": frame["model"].astype(str),
        "unit": frame[unit].astype(str), "value": pd.to_numeric(frame[value], errors="coerce")})


def sig_asl_evaluate(result: Any, baseline: str) -> pd.DataFrame:
    return paired_vs_baseline(_long(result.tables.get("per_query"), "query_id", "measure", "value"), baseline)


def sig_explain_consistency(result: Any, baseline: str) -> pd.DataFrame:
    t = result.table
    metrics = [c for c in t.columns if str(c).startswith(("mrc@", "mer@", "ndcg@"))]
    parts = [_long(t, "query_id", None, c, ("granularity",), metric_name=c) for c in metrics]
    return paired_vs_baseline(pd.concat(parts, ignore_index=True) if parts else _long(None, "", "", ""), baseline)


def sig_n2o_token_overlap(result: Any, baseline: str) -> pd.DataFrame:
    return paired_vs_baseline(_long(result.tables.get("per_query"), "query_id", None, "overlap",
                                    metric_name="token_overlap"), baseline)


def sig_n2o_needle(result: Any, baseline: str) -> pd.DataFrame:
    pp = result.tables.get("per_pair")
    if pp is None or pp.empty:
        return paired_vs_baseline(_long(None, "", "", ""), baseline)
    pp = pp.assign(rr=1.0 / pd.to_numeric(pp["rank"], errors="coerce").replace(0, np.nan))
    return paired_vs_baseline(_long(pp, "pair_id", None, "rr", metric_name="mrr"), baseline)


def sig_regime_table(result: Any, baseline: str) -> pd.DataFrame:
    t = result.table
    need = {"model", "setting", "regime", "query_id", "measure", "value"}
    if t.empty or not need <= set(t.columns):
        return paired_vs_baseline(_long(None, "", "", ""), baseline)
    return paired_vs_baseline(_long(t, "query_id", "measure", "value", ("setting", "regime")), baseline)
