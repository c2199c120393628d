"""Nearest-neighbour overlap: the report's findings (short sentences with the numbers, their n and their
significance) and the per-unit values behind the headline's significance marks, one function per
result kind (``ResultKind.findings`` / ``ResultKind.significance``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..report.findings import ALPHA, join_list, long_frame, num, paired_vs_baseline

__all__ = ["neighbors_matrix", "neighbors_needle", "neighbors_ranker_overlap", "neighbors_token_overlap", "sig_neighbors_needle", "sig_neighbors_token_overlap"]


def neighbors_matrix(result: Any) -> list[str]:
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


def neighbors_needle(result: Any) -> list[str]:
    t = result.table
    if t.empty:
        return []
    t = t.sort_values("mrr", ascending=False)
    parts = [f"{r.model} {num(r.mrr)} [{num(r.ci_low)}, {num(r.ci_high)}]" for r in t.itertuples()]
    return [f"Needle in a haystack, MRR with 95% CI: {join_list(parts)}; n = {int(t['n_pairs'].max())} pairs."]


def neighbors_token_overlap(result: Any) -> list[str]:
    t = result.table
    if t.empty:
        return []
    t = t.sort_values("mean", ascending=False)
    parts = [f"{r.model} {num(r.mean)}" for r in t.itertuples()]
    return [f"Token overlap of query and neighbours: {join_list(parts)}; n = {int(t['n_queries'].max())} queries."]


def neighbors_ranker_overlap(result: Any) -> list[str]:
    t, s = result.table, result.summary
    if t.empty:
        return []
    lo = t.loc[t["overlap_mean"].idxmin()]
    return [f"Top-{s.get('k')} overlap of the rankers averages {num(s.get('mean_overlap', float('nan')))}; "
            f"least alike: {lo['model']} and {lo['other_model']} ({num(lo['overlap_mean'])}); "
            f"n = {s.get('n_queries')} queries."]


def sig_neighbors_token_overlap(result: Any, baseline: str) -> pd.DataFrame:
    return paired_vs_baseline(long_frame(result.tables.get("per_query"), "query_id", None, "overlap",
                                    metric_name="token_overlap"), baseline)


def sig_neighbors_needle(result: Any, baseline: str) -> pd.DataFrame:
    pp = result.tables.get("per_pair")
    if pp is None or pp.empty:
        return paired_vs_baseline(long_frame(None, "", "", ""), baseline)
    pp = pp.assign(rr=1.0 / pd.to_numeric(pp["rank"], errors="coerce").replace(0, np.nan))
    return paired_vs_baseline(long_frame(pp, "pair_id", None, "rr", metric_name="mrr"), baseline)
