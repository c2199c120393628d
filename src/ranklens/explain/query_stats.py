"""Statistics over the per-query table of a consistency run: means per (model, granularity, m),
nDCG@10 of the explained ranking (``ir_measures``), Pearson/Spearman correlations of MRC/MER
with nDCG@10, bootstrap CIs over queries and paired tests between models.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .declaration import Params

__all__ = ["ci_table", "paired_tests"]

DEFAULTS = Params()


def _summary_table(table: pd.DataFrame, measures: Sequence[str]) -> pd.DataFrame:
    cols = [c for c in measures if c in table.columns]
    agg = table.groupby(["model", "granularity", "m"], sort=False)[cols].mean().reset_index()
    agg["queries"] = table.groupby(["model", "granularity", "m"], sort=False).size().to_numpy()
    return agg


def _ndcg10(run: pd.DataFrame, qrels: pd.DataFrame | None) -> dict[str, float]:
    """Per-query nDCG@10 of a ranked run (``rank`` column) with ir_measures."""
    if qrels is None or qrels.empty:
        return {}
    import ir_measures
    from ir_measures import nDCG

    qr = pd.DataFrame({"query_id": qrels["query_id"].astype(str).astype(object),
                       "doc_id": qrels["doc_id"].astype(str).astype(object),
                       "relevance": qrels["relevance"].astype("int64")})
    # the ranked order (tie rule already applied) as strictly decreasing scores, so nDCG sees
    # exactly the ranking that was explained
    rn = pd.DataFrame({"query_id": run["query_id"].astype(str).astype(object),
                       "doc_id": run["doc_id"].astype(str).astype(object),
                       "score": -run["rank"].astype("float64")})
    return {m.query_id: float(m.value) for m in ir_measures.iter_calc([nDCG @ 10], qr, rn)}


def _correlations(table: pd.DataFrame, measures: Sequence[str], against: str = "nDCG@10") -> pd.DataFrame:
    from scipy import stats

    rows = []
    if against not in table.columns:
        return pd.DataFrame(columns=["model", "granularity", "measure", "n", "pearson", "pearson_p",
                                     "spearman", "spearman_p"])
    for (rk, gr), g in table.groupby(["model", "granularity"], sort=False):
        for meas in measures:
            if meas not in g.columns:
                continue
            x = g[[meas, against]].dropna()
            row = {"model": rk, "granularity": gr, "measure": meas, "n": len(x)}
            if len(x) >= 3 and x[meas].nunique() > 1 and x[against].nunique() > 1:
                pr = stats.pearsonr(x[meas], x[against])
                sr = stats.spearmanr(x[meas], x[against])
                row.update(pearson=float(pr.statistic), pearson_p=float(pr.pvalue),
                           spearman=float(sr.statistic), spearman_p=float(sr.pvalue))
            else:
                row.update(pearson=np.nan, pearson_p=np.nan, spearman=np.nan, spearman_p=np.nan)
            rows.append(row)
    return pd.DataFrame(rows, columns=["model", "granularity", "measure", "n", "pearson", "pearson_p",
                                       "spearman", "spearman_p"])


def ci_table(table: pd.DataFrame, measures: Sequence[str], *, confidence: float = DEFAULTS.confidence,
             n_resamples: int = DEFAULTS.ci_resamples, seed: int = 0) -> pd.DataFrame:
    """Per (model, granularity, m, measure): mean over queries and its percentile bootstrap CI
    (:func:`ranklens.stats.bootstrap_ci`, queries resampled)."""
    from ..stats import bootstrap_ci

    rows = []
    for (mdl, gr, m), g in table.groupby(["model", "granularity", "m"], sort=False):
        for meas in measures:
            if meas in g.columns:
                ci = bootstrap_ci(g[meas].to_numpy(dtype=float), confidence=confidence, n_resamples=n_resamples,
                                  seed=seed)
                rows.append({"model": mdl, "granularity": gr, "m": int(m), "measure": meas, "mean": ci.mean,
                             "ci_low": ci.low, "ci_high": ci.high, "confidence": confidence, "n": ci.n})
    return pd.DataFrame(rows, columns=["model", "granularity", "m", "measure", "mean", "ci_low", "ci_high",
                                       "confidence", "n"])


def paired_tests(table: pd.DataFrame, measures: Sequence[str], *, test: str = DEFAULTS.test,
                 n_resamples: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Every pair of models on the same granularity and m: a paired test per measure over the
    queries both have (:func:`ranklens.stats.randomization_test` or ``paired_ttest``)."""
    from itertools import combinations

    from ..stats import paired_ttest, randomization_test

    cols = ["model", "other_model", "granularity", "m", "measure", "mean_diff", "pvalue", "n", "test"]
    rows = []
    for (gr, m), g in table.groupby(["granularity", "m"], sort=False):
        for meas in [x for x in measures if x in g.columns]:
            wide = g.pivot_table(index="query_id", columns="model", values=meas, aggfunc="first", dropna=False)
            for a, b in combinations([x for x in dict.fromkeys(g["model"]) if x in wide.columns], 2):
                x, y = wide[a].to_numpy(dtype=float), wide[b].to_numpy(dtype=float)
                r = (randomization_test(x, y, n_resamples=n_resamples, seed=seed) if test == "randomization"
                     else paired_ttest(x, y))
                rows.append({"model": a, "other_model": b, "granularity": gr, "m": int(m), "measure": meas,
                             "mean_diff": r.mean_diff, "pvalue": r.pvalue, "n": r.n, "test": r.method})
    return pd.DataFrame(rows, columns=cols)
