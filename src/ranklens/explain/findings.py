"""Explanation consistency: the report's findings (short sentences with the numbers, their n and their
significance) and the per-unit values behind the headline's significance marks, one function per
result kind (``ResultKind.findings`` / ``ResultKind.significance``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..report.findings import join_list, long_frame, num, p_text, paired_vs_baseline, signed

__all__ = ["explain_consistency", "sig_explain_consistency"]


def explain_consistency(result: Any) -> list[str]:
    summ = result.tables.get("summary")
    if summ is None or summ.empty:
        return []
    mcols = [c for c in summ.columns if str(c).startswith(("MRC@", "MER@"))]
    out = []
    for gran, g in summ.groupby("granularity", sort=False):
        parts = [f"{r['model']} " + ", ".join(f"{c} {num(r[c])}" for c in mcols[:2]) for _, r in g.iterrows()]
        out.append(f"{gran} rationales: {join_list(parts)}.")
    comp = result.tables.get("comparisons")
    if comp is not None and len(comp):
        c = comp.sort_values("pvalue").iloc[0]
        out.append(f"Largest model difference: {c['model']} − {c['other_model']} on {c['measure']} ({c['granularity']}) "
                   f"{signed(c['mean_diff'])}, {p_text(c['pvalue'])} ({c['test']}, unadjusted), n = {int(c['n'])}.")
    return out


def sig_explain_consistency(result: Any, baseline: str) -> pd.DataFrame:
    t = result.table
    metrics = [c for c in t.columns if str(c).startswith(("MRC@", "MER@", "nDCG@"))]
    parts = [long_frame(t, "query_id", None, c, ("granularity",), metric_name=c) for c in metrics]
    return paired_vs_baseline(pd.concat(parts, ignore_index=True) if parts else long_frame(None, "", "", ""), baseline)
