"""Out-of-distribution correlation (§4.2, Table 5, Fig. 2): zero-shot scores of every trained
variant on other collections (:func:`evaluate_collection`; the paper's evaluation: full retrieval /
BM25 re-ranking) and their Spearman/Kendall correlation (scipy) with the in-domain interpolation
and extrapolation scores across variants (:func:`variant_scores`, :func:`ood_correlation`) --
ReSTrain's two models per split and ReSTTest's fold models -- with bootstrap CIs over variants
and a pseudo-replication warning. The scatter plot is :func:`~.plots.plot_ood`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from .declaration import Params
from .evaluation import variant_key
from .names import EXTRAPOLATION, INTERPOLATION
from .scoring import candidate_run, evaluate_run, evaluation_mode, first_stage_run, model_run
from .similarity import _check_queries

__all__ = ["evaluate_collection", "ood_correlation", "variant_scores"]

DEFAULTS = Params()


def evaluate_collection(
    variants: Sequence[Any],
    name: str,
    queries: pd.DataFrame,
    qrels: pd.DataFrame,
    corpus: Mapping[str, str],
    candidates: pd.DataFrame | None = None,
    *,
    measure: Any = "nDCG@10",
    evaluation: str = DEFAULTS.evaluation,
    depth: int = DEFAULTS.depth,
    first_stage: Any = DEFAULTS.first_stage,
    engine: Any = None,
) -> pd.DataFrame:
    """Zero-shot score of every variant on one (out-of-domain) collection: ``model``, ``split``,
    ``variant`` (:func:`variant_key`), ``collection``, ``measure``, ``value`` (mean over the
    queries with a positive judgment), ``evaluation``.

    ``evaluation`` as in :func:`evaluate_regimes` (default ``"auto"``, the paper's: BM25 and
    bi-encoders retrieve the top ``depth`` from the whole collection, other rankers re-rank
    BM25's top ``depth``); ``"judged"`` re-ranks ``candidates`` (default: the judged documents).
    """
    from .splits import queries_with_positives

    q = queries_with_positives(_check_queries(queries, "queries"), qrels)
    modes = {variant_key(v): evaluation_mode(v.ranker, evaluation) for v in variants}
    if "rerank" in modes.values():
        first_stage = first_stage_run(first_stage, q, corpus, depth=depth, engine=engine)
    if "judged" in modes.values() and candidates is None:
        candidates = candidate_run(q["query_id"].tolist(), qrels, corpus)
    rows = []
    for v in variants:
        mode = modes[variant_key(v)]
        run = model_run(v.ranker, mode, q, corpus, depth=depth, first_stage=first_stage, candidates=candidates,
                        engine=engine)
        pq = evaluate_run(run, qrels, [measure], q["query_id"].tolist())
        rows.append({"model": v.trainer, "split": v.split, "variant": variant_key(v), "collection": name,
                     "measure": str(measure), "value": float(pq["value"].mean()) if len(pq) else float("nan"),
                     "evaluation": mode})
    return pd.DataFrame(rows)

def variant_scores(regime_result: Any, *, measure: str = "nDCG@10") -> pd.DataFrame:
    """Per trained model (``variant``, :func:`variant_key`) its mean in-domain score in each
    regime it was evaluated in, from a regimes-table Result: ``variant``, ``model``, ``split``,
    ``interpolation``, ``extrapolation``. A ReSTrain model has one regime (the other is NaN), a
    ReSTTest fold model both. Tables without a ``variant`` column (older results) group by model
    and split and keep only models with both regimes."""
    t = regime_result.table if hasattr(regime_result, "table") else regime_result
    t = t.loc[t["measure"] == measure]
    if "seed" in t.columns:
        t = t.assign(variant=t["variant"] + "@seed" + t["seed"].astype(str))
    if "variant" not in t.columns:
        m = t.groupby(["model", "split", "regime"])["value"].mean().unstack("regime")
        m = m.dropna(subset=[c for c in (INTERPOLATION, EXTRAPOLATION) if c in m.columns]).reset_index()
        m["variant"] = m["model"] + "/" + m["split"]
        return m
    m = t.groupby(["variant", "model", "split", "regime"])["value"].mean().unstack("regime").reset_index()
    for r in (INTERPOLATION, EXTRAPOLATION):
        if r not in m.columns:
            m[r] = np.nan
    return m[["variant", "model", "split", INTERPOLATION, EXTRAPOLATION]]

def _corr_ci(x: np.ndarray, y: np.ndarray, *, seed: int, n_resamples: int, confidence: float,
             ) -> dict[str, float]:
    """Percentile bootstrap over variants (pairs resampled together) of Spearman's rho and
    Kendall's tau-b (scipy); resamples where either side is constant are skipped (counted)."""
    from scipy import stats

    rng = np.random.default_rng(seed)
    rho, tau = [], []
    for _ in range(n_resamples):
        i = rng.integers(0, len(x), len(x))
        if np.ptp(x[i]) > 0 and np.ptp(y[i]) > 0:
            rho.append(stats.spearmanr(x[i], y[i]).statistic)
            tau.append(stats.kendalltau(x[i], y[i]).statistic)
    lo, hi = 50 * (1 - confidence), 50 * (1 + confidence)
    nan = float("nan")
    return {"spearman_ci_low": float(np.percentile(rho, lo)) if rho else nan,
            "spearman_ci_high": float(np.percentile(rho, hi)) if rho else nan,
            "kendall_ci_low": float(np.percentile(tau, lo)) if tau else nan,
            "kendall_ci_high": float(np.percentile(tau, hi)) if tau else nan,
            "n_resamples_used": len(rho)}

def _ood_row(coll: str, regime: str, g: pd.DataFrame, seed: int, n_resamples: int,
             confidence: float) -> dict[str, Any]:
    from scipy import stats

    g = g.dropna(subset=[regime, "value"])
    x, y = g[regime].to_numpy(float), g["value"].to_numpy(float)
    models = g["variant"].astype(str).str.split("/").str[0]
    row: dict[str, Any] = {"collection": coll, "regime": regime, "n": len(x), "n_models": int(models.nunique())}
    if len(x) >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0:
        s, k = stats.spearmanr(x, y), stats.kendalltau(x, y)
        row.update(spearman=float(s.statistic), spearman_p=float(s.pvalue), kendall=float(k.statistic),
                   kendall_p=float(k.pvalue))
        row.update(_corr_ci(x, y, seed=seed, n_resamples=n_resamples, confidence=confidence))
    else:
        row.update({c: float("nan") for c in ("spearman", "spearman_p", "kendall", "kendall_p", "spearman_ci_low",
                                              "spearman_ci_high", "kendall_ci_low", "kendall_ci_high")})
        row["n_resamples_used"] = 0
    return row

def _ood_warnings(table: pd.DataFrame) -> list[str]:
    out = []
    for r in table.itertuples():
        if r.n >= 3 and r.n_models < r.n:
            out.append(f"regimes-ood-correlation {r.collection} / {r.regime}: {r.n} variants come from {r.n_models} "
                       "trainer(s) (ReSTTest folds / splits of one training recipe): they are not independent models "
                       "(pseudo-replication), so p-values overstate the evidence; read the bootstrap CIs over variants. "
                       "The paper correlates differently trained models (9 recipes x 3 ReSTrain sizes)")
        elif r.n < 3 or r.spearman != r.spearman:
            out.append(f"regimes-ood-correlation {r.collection} / {r.regime}: {r.n} variant(s) with varying scores; no "
                       "correlation (need >= 3 and non-constant scores)")
    return out

def ood_correlation(in_domain: pd.DataFrame, ood: pd.DataFrame, *, seed: int = 0, n_resamples: int = 2_000,
                    confidence: float = 0.95) -> Any:
    """Spearman and Kendall correlation, across trained variants, of the interpolation /
    extrapolation score with the score on each OOD collection (the paper's Table 5, Fig. 2),
    Result kind ``"regimes-ood-correlation"``.

    A variant enters a regime's correlation when it has an in-domain score there: ReSTrain's
    interpolation and extrapolation models (as in the paper) enter one regime each, a ReSTTest
    fold model enters both. Confidence intervals: percentile bootstrap over variants. A warning
    is added when the variants come from fewer trainers than there are variants (folds of one
    model are not independent samples).

    Args:
        in_domain: ``variant``, ``interpolation``, ``extrapolation`` (NaN where not evaluated;
            e.g. :func:`variant_scores`).
        ood: ``variant``, ``collection``, ``value`` (e.g. :func:`evaluate_collection`).

    Returns:
        ``Result``: table rows (``collection``, ``regime``, ``n``, ``n_models``, ``spearman``,
        ``spearman_p``, ``kendall``, ``kendall_p``, CI bounds); ``tables["points"]`` the joined
        scores; ``tables["by_model"]`` the same correlations within each trainer's variants.
    """
    from ..results import Result, make_provenance

    need = {"variant", INTERPOLATION, EXTRAPOLATION}
    if not need <= set(in_domain.columns):
        raise ValidationError(f"in_domain needs columns {sorted(need)}, found {list(in_domain.columns)}")
    if not {"variant", "collection", "value"} <= set(ood.columns):
        raise ValidationError(f"ood needs columns variant, collection, value; found {list(ood.columns)}")
    pts = ood[["variant", "collection", "value"]].merge(in_domain[["variant", INTERPOLATION, EXTRAPOLATION]], on="variant")
    rows = [_ood_row(coll, regime, g, seed, n_resamples, confidence)
            for coll, g in pts.groupby("collection", sort=True) for regime in (INTERPOLATION, EXTRAPOLATION)]
    table = pd.DataFrame(rows)
    trainer = pts["variant"].astype(str).str.split("/").str[0]
    by_model = pd.DataFrame([{"model": m, **_ood_row(coll, regime, g, seed, n_resamples, confidence)}
                             for (m, coll), g in pts.groupby([trainer, "collection"], sort=True)
                             for regime in (INTERPOLATION, EXTRAPOLATION)])
    summary = {f"{r.collection}|{r.regime}|{k}": getattr(r, k) for r in table.itertuples() for k in ("spearman", "kendall")}
    if len(table):
        for regime in (INTERPOLATION, EXTRAPOLATION):
            sub = table.loc[table["regime"] == regime]
            summary[f"mean_spearman|{regime}"] = float(sub["spearman"].mean())
            summary[f"mean_kendall|{regime}"] = float(sub["kendall"].mean())
    prov = make_provenance(params={"correlations": "scipy.stats.spearmanr, kendalltau (tau-b)",
                                   "across": "trained model variants (ReSTrain: one regime each; ReSTTest folds: both)",
                                   "cis": f"percentile bootstrap over variants, {n_resamples} resamples, {confidence:.0%}"},
                           seed=seed)
    res = Result(kind="regimes-ood-correlation", summary=summary, table=table, tables={"points": pts, "by_model": by_model},
                 provenance=prov)
    return res.with_warnings(*_ood_warnings(table))
