"""The regime table (§4.2, §5): every trained variant evaluated on its split's test queries per
regime (:func:`evaluate_regimes`, Result kind ``"regimes-table"``): the paper's table (models ×
{interpolation, extrapolation, gap} per measure), with

``gap = (extrapolation - interpolation) / interpolation``

and paired tests per query (:mod:`ranklens.stats` t-test and randomization test, scipy Wilcoxon).
For ReSTrain the pairs are the same test queries under the two training sets; for ReSTTest each
test query's extrapolation score comes from the fold whose bucket holds it and its interpolation
score is the mean over the other folds (the paper's averaging). :func:`combine_seeds` merges the
tables of several seeds. The runs and per-query scores come from :mod:`.scoring`; the bar plot is
:func:`~.plots.plot_regimes`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from .declaration import Params
from .names import EXTRAPOLATION, INTERPOLATION
from .scoring import (
    _parse_measures,
    candidate_run,
    evaluate_run,
    evaluation_mode,
    first_stage_run,
    model_run,
    tied_top,
)
from .similarity import _check_queries, frame_digest
from .splits import Split

__all__ = [
    "REGIME_COLUMNS",
    "combine_seeds",
    "evaluate_regimes",
    "paper_table",
    "regime_table",
    "setting_name",
    "variant_key",
]

DEFAULTS = Params()


def _paired(a: np.ndarray, b: np.ndarray, *, seed: int = 0) -> tuple[float, float, float]:
    """p-values of the paired t-test and sign-flip randomization test (:mod:`ranklens.stats`)
    and of the Wilcoxon signed-rank test (scipy); NaN when undefined."""
    from scipy import stats

    from ..stats import paired_ttest, randomization_test

    t = paired_ttest(a, b).pvalue
    r = randomization_test(a, b, seed=seed).pvalue
    if len(a) < 2 or np.allclose(a, b):
        return t, r, float("nan")
    try:
        w = float(stats.wilcoxon(a, b, zero_method="wilcox").pvalue)
    except ValueError:
        w = float("nan")
    return t, r, w

def _variant_rows(v: Any, split: Split, q: pd.DataFrame, qrels: pd.DataFrame, corpus: Any, ctx: Mapping[str, Any],
                  ) -> tuple[list[pd.DataFrame], list[dict[str, Any]]]:
    """Per-query values and tie flags of one trained variant in each regime it is evaluated in."""
    mode = evaluation_mode(v.ranker, ctx["evaluation"])
    rows, ties = [], []
    for regime in v.regimes:
        test_ids = [x for x in split.test_ids(regime) if ctx["pos"] is None or x in ctx["pos"]]
        if not test_ids:
            continue
        tq = q.loc[q["query_id"].isin(set(test_ids))]
        run = model_run(v.ranker, mode, tq, corpus, depth=ctx["depth"], first_stage=ctx["first_stage"],
                        candidates=ctx["candidates"], engine=ctx["engine"])
        pq = evaluate_run(run, qrels, ctx["measures"], tq["query_id"].tolist())
        for col, val in (("regime", regime), ("split", split.name), ("setting", setting_name(split)),
                         ("model", v.trainer)):
            pq.insert(0, col, val)
        pq["evaluation"] = mode
        pq["variant"] = variant_key(v)
        rows.append(pq)
        tied = tied_top(run, 10)
        ties.append({"model": v.trainer, "setting": setting_name(split), "regime": regime,
                     "n_tied": int(tied.sum()), "n_queries": len(tq)})
    return rows, ties

def evaluate_regimes(
    variants: Sequence[Any],
    splits: Sequence[Split],
    queries: pd.DataFrame,
    qrels: pd.DataFrame,
    corpus: Mapping[str, str],
    *,
    measures: Sequence[Any] = DEFAULTS.measures,
    evaluation: str = DEFAULTS.evaluation,
    depth: int = DEFAULTS.depth,
    first_stage: Any = DEFAULTS.first_stage,
    candidates: pd.DataFrame | None = None,
    random_negatives: int = DEFAULTS.random_negatives,
    rel: int = 1,
    judged_only: bool = True,
    seed: int = 0,
    engine: Any = None,
) -> Any:
    """Evaluate each trained variant in both regimes of its split (Result kind ``"regimes-table"``).

    Args:
        variants: from :func:`~.trainers.train_variants`.
        splits: the splits the variants were trained on (matched by name).
        queries: all queries (``query_id``, ``text``).
        qrels: judgments of the test queries.
        corpus: ``doc_id -> text`` (a DocStore or a dict).
        measures: ir_measures measures or their names (default: the paper's nDCG@10, R@100, MRR@10).
        evaluation: ``"auto"`` (the paper: first-stage models -- BM25, bi-encoders -- retrieve the
            top ``depth`` from the whole corpus; other rankers re-rank ``first_stage``'s top
            ``depth``), ``"full"``, ``"rerank"``, or ``"judged"`` (ranklens: re-rank only each
            query's judged documents plus ``random_negatives`` random ones -- R@100 is then 1 by
            construction and a memorising model looks strong; warned).
        depth: documents retrieved / re-ranked per query (the paper: 1000).
        first_stage: the run re-ranked in ``"rerank"`` mode: ``"bm25"`` (default: BM25, Lucene idf,
            k1=0.9, b=0.4, top ``depth`` from the corpus), a TREC run file or a run frame.
        candidates: ``"judged"`` mode's documents per query (default :func:`candidate_run`).
        rel: minimum relevance for ``judged_only``.
        judged_only: evaluate only test queries with at least one document at ``>= rel``.

    Returns:
        ``Result``; table: per query (``model``, ``setting``, ``split``, ``regime``,
        ``query_id``, ``measure``, ``value``, ``evaluation``); ``tables["regime_table"]`` (one row
        per model, setting, measure: means, bootstrap CIs, gap, paired tests, tie shares) and
        ``tables["paper"]`` wide (models x {interpolation, extrapolation, gap} per measure).
    """
    q = _check_queries(queries, "queries")
    by_name = {s.name: s for s in splits}
    pos = None
    if judged_only:
        pos = set(qrels.loc[qrels["relevance"].astype("int64") >= rel, "query_id"].astype(str))
    all_test = sorted({x for s in splits for r in s.regimes for x in s.test_ids(r)})
    if evaluation == "judged" and candidates is None:
        candidates = candidate_run(all_test, qrels, corpus, random_negatives=random_negatives, seed=seed)
    needs_fs = evaluation == "rerank" or (evaluation == "auto" and any(
        evaluation_mode(v.ranker, "auto") == "rerank" for v in variants))
    if needs_fs:
        first_stage = first_stage_run(first_stage, q.loc[q["query_id"].isin(set(all_test))], corpus, depth=depth,
                                      engine=engine)
    ctx = {"evaluation": evaluation, "depth": depth, "first_stage": first_stage, "candidates": candidates,
           "engine": engine, "measures": measures, "pos": pos}
    rows, ties, components, trainers = [], [], {}, {}
    for v in variants:
        split = by_name.get(v.split)
        if split is None:
            raise ValidationError(f"variant {v.trainer}/{v.split}: no split named {v.split!r} among {sorted(by_name)}")
        components[variant_key(v)] = getattr(v.ranker, "fingerprint", repr(v.ranker))
        if getattr(v, "trainer_params", None) is not None:
            trainers[v.trainer] = v.trainer_params
        r, t = _variant_rows(v, split, q, qrels, corpus, ctx)
        rows += r
        ties += t
    table = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(
        columns=["model", "setting", "split", "regime", "query_id", "measure", "value", "evaluation", "variant"])
    return _regime_result(table, ties, splits, measures, ctx, q, seed, components, random_negatives, rel,
                          judged_only, trainers)

def _tie_columns(long: pd.DataFrame, ties: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    if long.empty:
        return long
    t = pd.DataFrame(list(ties), columns=["model", "setting", "regime", "n_tied", "n_queries"])
    agg = t.groupby(["model", "setting", "regime"])[["n_tied", "n_queries"]].sum()
    out = long.copy()
    for regime in (INTERPOLATION, EXTRAPOLATION):
        share = []
        for m, s in zip(out["model"], out["setting"]):
            key = (m, s, regime)
            share.append(float(agg.loc[key, "n_tied"] / agg.loc[key, "n_queries"]) if key in agg.index
                         and agg.loc[key, "n_queries"] else float("nan"))
        out[f"tied_top10_{regime}"] = share
    return out

def _regime_warnings(long: pd.DataFrame, evaluation: str) -> list[str]:
    warns = []
    if evaluation == "judged":
        warns.append("evaluation='judged': each query re-ranks only its judged documents (plus random negatives); "
                     "recall is trivially high and memorising models look strong. The paper retrieves from the "
                     "whole corpus (dense) or re-ranks BM25's top 1000 (rerankers): evaluation='auto'")
    for col in ("tied_top10_interpolation", "tied_top10_extrapolation"):
        if col in long.columns:
            for r in long.drop_duplicates(["model", "setting"]).itertuples():
                share = getattr(r, col)
                if share == share and share > 0.1:
                    warns.append(f"{r.model} / {r.setting}: the top 10 of {share:.0%} of the "
                                 f"{col.rsplit('_', 1)[1]} queries is fully tied; its numbers there reflect the "
                                 "doc-id tie-break")
    return warns

def _regime_result(table: pd.DataFrame, ties: Sequence[Mapping[str, Any]], splits: Sequence[Split],
                   measures: Sequence[Any], ctx: Mapping[str, Any], q: pd.DataFrame, seed: int,
                   components: Mapping[str, str], random_negatives: int, rel: int, judged_only: bool,
                   trainers: Mapping[str, Any] | None = None) -> Any:
    from ..results import Result, make_provenance

    long = _tie_columns(regime_table(table, seed=seed), ties)
    summary = {f"{r.model}|{r.setting}|{r.measure}|{k}": getattr(r, k)
               for r in long.itertuples() for k in ("interpolation", "extrapolation", "gap")}
    modes = sorted(set(table["evaluation"])) if len(table) else []
    prov = make_provenance(
        params={"measures": [str(m) for m in measures], "evaluation": ctx["evaluation"], "modes_used": modes,
                "depth": ctx["depth"], "judged_only": judged_only, "rel": rel, "random_negatives": random_negatives,
                "seed": seed, "gap": "(extrapolation - interpolation) / interpolation",
                "resttest_interpolation": "per query mean over the folds where it is an interpolation query",
                "paired_tests": "ranklens.stats paired_ttest and randomization_test (10,000 sign flips); "
                                "scipy.stats.wilcoxon; over per-query (interpolation, extrapolation)",
                "cis": "ranklens.stats.bootstrap_ci, percentile, 95%, 2,000 resamples, over queries",
                "ties": "trec_eval (ir_measures/pytrec_eval); tied_top10 = share of queries whose top 10 "
                        "scores are all equal (float32)",
                "splits": {s.name: s.fingerprint for s in splits},
                "trainers": dict(trainers or {})},
        components=dict(components),
        inputs={"queries": frame_digest(q)},
        seed=seed,
    )
    res = Result(kind="regimes-table", summary=summary, table=table,
                 tables={"regime_table": long,
                         "paper": paper_table(long, [str(m) for m in _parse_measures(measures)])}, provenance=prov)
    return res.with_warnings(*_regime_warnings(long, ctx["evaluation"]))

def combine_seeds(results: Sequence[Any], seeds: Sequence[int]) -> Any:
    """One ``"regimes-table"`` Result from runs of the same protocol under several seeds (pools,
    splits and trainers reseeded): per (model, setting, measure) the mean over seeds of the
    interpolation, extrapolation and gap values and their sample standard deviations
    (``*_sd``, ddof=1; NaN for one seed), ``n_seeds``, and the mean tie shares.
    ``tables["regime_table_by_seed"]`` keeps every seed's full table (CIs, paired tests); the
    per-query table gains a ``seed`` column; warnings are merged."""
    import dataclasses

    from ..results import Result

    if len(results) != len(seeds) or not results:
        raise ValidationError(f"combine_seeds: {len(results)} results for {len(seeds)} seeds")
    if len(results) == 1:
        return results[0]
    table = pd.concat([r.table.assign(seed=s) for r, s in zip(results, seeds)], ignore_index=True)
    by_seed = pd.concat([r.tables["regime_table"].assign(seed=s) for r, s in zip(results, seeds)],
                        ignore_index=True)
    keys = ["model", "setting", "measure"]
    g = by_seed.groupby(keys, sort=False)
    vals = ["interpolation", "extrapolation", "gap"]
    ties = [c for c in by_seed.columns if c.startswith("tied_top10_")]
    long = g[vals + ties].mean()
    for c in vals:
        long[f"{c}_sd"] = g[c].std(ddof=1)
    long["n_seeds"] = g["seed"].nunique()
    for c in ("n_interpolation", "n_extrapolation", "n_paired"):
        long[c] = g[c].mean()
    long = long.reset_index()
    for c in REGIME_COLUMNS:  # per-query CIs and tests are per seed (regime_table_by_seed)
        if c not in long.columns:
            long[c] = np.nan
    order = [str(m) for m in (results[0].provenance.params or {}).get("measures", [])]
    summary = {f"{r.model}|{r.setting}|{r.measure}|{k}": getattr(r, k)
               for r in long.itertuples() for k in ("interpolation", "extrapolation", "gap", "gap_sd")}
    prov = results[0].provenance
    prov = dataclasses.replace(prov, params={**dict(prov.params or {}), "seeds": list(seeds),
                                             "over_seeds": "mean and sample sd (ddof=1) of per-seed values"})
    out = Result(kind="regimes-table", summary=summary, table=table,
                 tables={"regime_table": long, "regime_table_by_seed": by_seed,
                         "paper": paper_table(long, order)}, provenance=prov)
    return out.with_warnings(*[w for r in results for w in r.warnings])

def setting_name(split: Split) -> str:
    """The configuration a split belongs to: its name without a ReSTTest ``-foldN`` suffix.

    The folds of one ReSTTest configuration (``"resttest-fold0"``, ``"resttest-fold1"``, ...) form
    one setting (``"resttest"``) whose interpolation scores are averaged over folds; two ReSTTest
    configurations with different names (e.g. ``ReSTTest(name="tfidf-k5")`` and
    ``ReSTTest(name="minilm-k5")``) stay apart. A ReSTrain split is its own setting.
    """
    if split.fold is not None or split.method == "resttest":
        return re.sub(r"-fold\d+$", "", split.name)
    return split.name

def _ci(values: np.ndarray, seed: int) -> tuple[float, float]:
    from ..stats import bootstrap_ci

    ci = bootstrap_ci(values, seed=seed)
    return ci.low, ci.high

def _regime_row(g: pd.DataFrame, seed: int) -> dict[str, Any]:
    per = g.groupby(["regime", "query_id"])["value"].mean()
    levels = per.index.get_level_values(0)
    ip = per.loc[INTERPOLATION] if INTERPOLATION in levels else pd.Series(dtype=float)
    ex = per.loc[EXTRAPOLATION] if EXTRAPOLATION in levels else pd.Series(dtype=float)
    nan = float("nan")
    i_mean = float(ip.mean()) if len(ip) else nan
    e_mean = float(ex.mean()) if len(ex) else nan
    gap = (e_mean - i_mean) / i_mean if i_mean and not np.isnan(i_mean) else nan
    common = sorted(set(ip.index) & set(ex.index))
    a, b = ip.loc[common].to_numpy(), ex.loc[common].to_numpy()
    t, rnd, w = _paired(a, b) if common else (nan, nan, nan)
    i_lo, i_hi = _ci(ip.to_numpy(), seed)
    e_lo, e_hi = _ci(ex.to_numpy(), seed)
    d_lo, d_hi = _ci(b - a, seed) if common else (nan, nan)
    return {"interpolation": i_mean, "extrapolation": e_mean, "gap": gap,
            "interpolation_ci_low": i_lo, "interpolation_ci_high": i_hi,
            "extrapolation_ci_low": e_lo, "extrapolation_ci_high": e_hi,
            "diff_paired": float(np.mean(b - a)) if common else nan, "diff_ci_low": d_lo, "diff_ci_high": d_hi,
            "n_interpolation": len(ip), "n_extrapolation": len(ex), "n_paired": len(common), "t_pvalue": t,
            "randomization_pvalue": rnd, "wilcoxon_pvalue": w}

REGIME_COLUMNS = ["model", "setting", "measure", "interpolation", "extrapolation", "gap", "interpolation_ci_low",
                  "interpolation_ci_high", "extrapolation_ci_low", "extrapolation_ci_high", "diff_paired",
                  "diff_ci_low", "diff_ci_high", "n_interpolation", "n_extrapolation", "n_paired", "t_pvalue",
                  "randomization_pvalue", "wilcoxon_pvalue"]

def regime_table(per_query: pd.DataFrame, *, seed: int = 0) -> pd.DataFrame:
    """Aggregate per-query scores into (model, setting, measure) rows: means with 95% bootstrap CIs
    over queries, the gap, the paired difference (extrapolation - interpolation) with its CI, and
    paired tests.

    ReSTTest settings: per query, the extrapolation score is its single extrapolation value and the
    interpolation score is the mean over its interpolation values (folds); queries that lack either
    are dropped from the paired comparison but kept in the means.
    """
    if per_query.empty:
        return pd.DataFrame(columns=REGIME_COLUMNS)
    rows = [{"model": model, "setting": setting, "measure": measure, **_regime_row(g, seed)}
            for (model, setting, measure), g in per_query.groupby(["model", "setting", "measure"], sort=False)]
    return pd.DataFrame(rows, columns=REGIME_COLUMNS)

def paper_table(long: pd.DataFrame, order: Sequence[str] | None = None) -> pd.DataFrame:
    """Wide table: one row per (model, setting); ``<measure> interp|extrap|gap`` columns
    (measures in ``order`` when given)."""
    if long.empty:
        return pd.DataFrame(columns=["model", "setting"])
    out = long.pivot_table(index=["model", "setting"], columns="measure",
                           values=["interpolation", "extrapolation", "gap"], sort=False)
    present = list(dict.fromkeys(long["measure"]))
    measures = [m for m in (order or []) if m in present] + [m for m in present if m not in (order or [])]
    cols = []
    parts = [("interpolation", "interp"), ("extrapolation", "extrap"), ("gap", "gap")]
    if "gap_sd" in long.columns:  # several seeds: mean ± sd of the gap
        out = long.pivot_table(index=["model", "setting"], columns="measure",
                               values=["interpolation", "extrapolation", "gap", "gap_sd"], sort=False, dropna=False)
        parts.append(("gap_sd", "gap sd"))
    for m in measures:
        for k, short in parts:
            cols.append(((k, m), f"{m} {short}"))
    wide = pd.DataFrame({name: out[key] for key, name in cols if key in out.columns})
    return wide.reset_index()

def variant_key(v: Any) -> str:
    """The identity of one trained model: ``trainer/split/regimes`` (a ReSTrain split yields two
    models, ``.../interpolation`` and ``.../extrapolation``; a ReSTTest fold one model,
    ``.../interpolation+extrapolation``)."""
    return f"{v.trainer}/{v.split}/{'+'.join(v.regimes)}"
