"""Evaluate trained variants per regime, the relative gap, paired tests, OOD correlation (§4.2, §5).

- :func:`candidate_run` builds the documents to rank per query: the judged pool (qrels), optionally
  plus seeded random corpus negatives, or a first-stage run.
- :func:`per_query_scores` ranks them with a ranker (scores through :mod:`ranklens.engine`) and
  evaluates with ir_measures (trec_eval semantics: ties by doc id, via pytrec_eval).
- :func:`evaluate_regimes` evaluates every :class:`~.trainers.TrainedVariant` on its split's
  test queries per regime and returns the ``"regimes-table"`` Result: the paper's table
  (models × {interpolation, extrapolation, gap} per measure), with

  ``gap = (extrapolation - interpolation) / interpolation``

  and paired tests per query (:mod:`ranklens.stats` t-test and randomization test, scipy Wilcoxon). For ReSTrain the pairs
  are the same test queries under the two training sets; for ReSTTest each test query's
  extrapolation score comes from the fold whose bucket holds it and its interpolation score is
  the mean over the other folds (the paper's averaging).
- :func:`evaluate_collection` / :func:`ood_correlation` / :func:`plot_ood`: zero-shot scores on
  other collections (the paper's evaluation: full retrieval / BM25 re-ranking) and their
  Spearman/Kendall correlation (scipy) with the interpolation and extrapolation scores across
  trained variants -- ReSTrain's two models per split and ReSTTest's fold models -- with
  bootstrap CIs over variants and a pseudo-replication warning (Table 5, Fig. 2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from .similarity import _check_queries, frame_digest
from .splits import EXTRAPOLATION, INTERPOLATION, Split

__all__ = [
    "DEFAULT_MEASURES",
    "EVALUATIONS",
    "bm25_first_stage",
    "candidate_run",
    "combine_seeds",
    "evaluate_collection",
    "evaluate_regimes",
    "evaluate_run",
    "evaluation_mode",
    "model_run",
    "ood_correlation",
    "paper_table",
    "per_query_scores",
    "plot_ood",
    "plot_regimes",
    "regime_table",
    "setting_name",
    "variant_key",
    "variant_scores",
]

DEFAULT_MEASURES = ("nDCG@10", "R@100", "RR@10")


def candidate_run(
    query_ids: Sequence[str],
    qrels: pd.DataFrame,
    corpus: Mapping[str, str],
    *,
    first_stage: pd.DataFrame | None = None,
    judged: bool = True,
    random_negatives: int = 0,
    seed: int = 0,
) -> pd.DataFrame:
    """Candidate documents per query as a frame (``query_id``, ``doc_id``), no scores.

    Args:
        query_ids: queries to rank for.
        qrels: judgments; with ``judged=True`` every judged document of a query is a candidate.
        corpus: ``doc_id -> text`` (candidates missing from it are dropped).
        first_stage: a run (``query_id``, ``doc_id``, ...) whose documents are added.
        random_negatives: documents drawn uniformly from the corpus per query (seeded).
    """
    ids = [str(q) for q in query_ids]
    idset = set(ids)
    parts = []
    if judged:
        sub = qrels.loc[qrels["query_id"].astype(str).isin(idset), ["query_id", "doc_id"]]
        parts.append(pd.DataFrame({"query_id": sub["query_id"].astype(str).to_numpy(dtype=object),
                                   "doc_id": sub["doc_id"].astype(str).to_numpy(dtype=object)}))
    if first_stage is not None:
        sub = first_stage.loc[first_stage["query_id"].astype(str).isin(idset)]
        parts.append(pd.DataFrame({"query_id": sub["query_id"].astype(str).to_numpy(dtype=object),
                                   "doc_id": sub["doc_id"].astype(str).to_numpy(dtype=object)}))
    if random_negatives:
        rng = np.random.default_rng(seed)
        doc_ids = np.array(list(corpus), dtype=object)
        picks = rng.integers(0, len(doc_ids), size=(len(ids), random_negatives))
        parts.append(pd.DataFrame({"query_id": np.repeat(np.array(ids, dtype=object), random_negatives),
                                   "doc_id": doc_ids[picks.ravel()]}))
    if not parts:
        raise ValidationError("no candidates: set judged=True, first_stage=... or random_negatives > 0")
    run = pd.concat(parts, ignore_index=True).drop_duplicates()
    run = run.loc[np.array([d in corpus for d in run["doc_id"]], dtype=bool)]
    return run.reset_index(drop=True)


def bm25_first_stage(
    queries: pd.DataFrame, corpus: Any, *, depth: int = 1000, k1: float = 0.9, b: float = 0.4,
    engine: Any = None,
) -> pd.DataFrame:
    """Top-``depth`` BM25 documents per query from the whole corpus (the paper's first stage:
    Anserini BM25, Lucene idf, k1=0.9, b=0.4), through :func:`ranklens.rankers.retrieval.retrieve`."""
    from ..rankers import BM25Ranker
    from ..rankers.retrieval import retrieve

    q = _check_queries(queries, "queries")
    return retrieve(BM25Ranker(k1=k1, b=b, method="lucene"), q, corpus, k=depth, engine=engine)


def _parse_measures(measures: Sequence[Any]) -> list[Any]:
    import ir_measures

    out = []
    for m in measures:
        if isinstance(m, str):
            try:
                out.append(ir_measures.parse_measure(m))
            except (ValueError, NameError, SyntaxError, KeyError) as exc:
                raise ValidationError(f"unknown measure {m!r} ({exc}); use ir_measures names such as nDCG@10, R@100, RR@10") from exc
        else:
            out.append(m)
    return out


EVALUATIONS = ("auto", "full", "rerank", "judged")


def evaluate_run(run: pd.DataFrame, qrels: pd.DataFrame, measures: Sequence[Any],
                 query_ids: Sequence[str]) -> pd.DataFrame:
    """Per-query values (``query_id``, ``measure``, ``value``) of ``run`` for ``query_ids``
    (ir_measures, trec_eval semantics). A judged query absent from the run scores 0 (trec_eval -c);
    queries without any judgment are absent."""
    import ir_measures

    ids = {str(q) for q in query_ids}
    sub = qrels.loc[qrels["query_id"].astype(str).isin(ids)]
    qr = pd.DataFrame({"query_id": sub["query_id"].astype(str).to_numpy(dtype=object),
                       "doc_id": sub["doc_id"].astype(str).to_numpy(dtype=object),
                       "relevance": sub["relevance"].astype("int64").to_numpy()})
    r = run.loc[run["query_id"].astype(str).isin(ids)]
    r = pd.DataFrame({"query_id": r["query_id"].astype(str).to_numpy(dtype=object),
                      "doc_id": r["doc_id"].astype(str).to_numpy(dtype=object),
                      "score": r["score"].astype(np.float64).to_numpy()})
    ms = _parse_measures(measures)
    rows = [(m.query_id, str(m.measure), float(m.value)) for m in ir_measures.iter_calc(ms, qr, r)]
    out = pd.DataFrame(rows, columns=["query_id", "measure", "value"])
    missing = sorted(set(qr["query_id"]) - set(out["query_id"]))
    extra = [(qid, str(m), 0.0) for qid in missing for m in ms]
    if extra:
        out = pd.concat([out, pd.DataFrame(extra, columns=out.columns)], ignore_index=True)
    return out


def tied_top(run: pd.DataFrame, k: int = 10) -> pd.Series:
    """Per query: True when its top-``k`` scores are all equal as 32-bit floats (trec_eval's
    comparison), i.e. its ranking there is decided by the doc-id tie-break alone."""
    if run.empty:
        return pd.Series(dtype=bool)
    r = run.assign(_s=run["score"].astype(np.float32))
    top = r.sort_values(["query_id", "_s"], ascending=[True, False], kind="stable").groupby("query_id").head(k)
    g = top.groupby("query_id")["_s"]
    return (g.transform("size") > 1).groupby(top["query_id"]).first() & (g.max() == g.min())


def evaluation_mode(ranker: Any, evaluation: str) -> str:
    """``"full"`` or ``"rerank"`` or ``"judged"``: ``"auto"`` is the paper's choice per model type --
    first-stage models (BM25, bi-encoders) retrieve from the whole corpus, other rankers re-rank
    the first stage's top ``depth`` (the paper: BM25 top-1000)."""
    if evaluation not in EVALUATIONS:
        raise ValidationError(f"evaluation must be one of {EVALUATIONS}, got {evaluation!r}")
    if evaluation != "auto":
        return evaluation
    return "full" if _retriever(ranker) is not None else "rerank"


def _retriever(ranker: Any) -> Any:
    """What :func:`ranklens.rankers.retrieval.retrieve` can search the corpus with, or ``None``."""
    from ..rankers import BM25Ranker
    from ..rankers.biencoder import BiEncoderRanker

    if isinstance(ranker, BM25Ranker):
        return ranker
    if isinstance(ranker, BiEncoderRanker) and ranker.similarity == "cosine":
        return ranker.embedder
    return None


def model_run(ranker: Any, mode: str, queries: pd.DataFrame, corpus: Any, *, depth: int,
              first_stage: pd.DataFrame | None = None, candidates: pd.DataFrame | None = None,
              engine: Any = None) -> pd.DataFrame:
    """The run ``ranker`` produces for ``queries`` under an evaluation ``mode``:

    - ``"full"``: top-``depth`` from the whole corpus (bm25s for BM25, exact dense search for
      bi-encoders, through :func:`ranklens.rankers.retrieval.retrieve`);
    - ``"rerank"``: ``first_stage``'s top ``depth`` per query re-scored
      (:func:`ranklens.rankers.retrieval.rerank`);
    - ``"judged"``: ``candidates`` (:func:`candidate_run`) re-scored.
    """
    from ..rankers.retrieval import rerank, retrieve

    if mode == "full":
        model = _retriever(ranker)
        if model is None:
            raise ValidationError(f"{type(ranker).__name__} cannot retrieve from the whole corpus (only BM25 and "
                                  "cosine bi-encoders can); use evaluation='rerank' or 'auto'")
        if hasattr(model, "fitted") and model.fitted:
            model = type(model)(k1=model.k1, b=model.b, method=model.method, delta=model.delta, stem=model.stem,
                                stopwords=model.stopwords)  # refitted on `corpus` in its order by retrieve
        return retrieve(model, queries, corpus, k=depth, engine=engine)
    if mode == "rerank":
        if first_stage is None:
            raise ValidationError("evaluation 'rerank' needs a first-stage run")
        fs = first_stage.loc[first_stage["query_id"].astype(str).isin(set(queries["query_id"].astype(str)))]
        return rerank(ranker, fs, queries, corpus, k=depth, engine=engine)
    if candidates is None:
        raise ValidationError("evaluation 'judged' needs candidates (candidate_run)")
    cand = candidates.loc[candidates["query_id"].astype(str).isin(set(queries["query_id"].astype(str)))]
    return rerank(ranker, cand, queries, corpus, engine=engine)


def per_query_scores(
    ranker: Any,
    queries: pd.DataFrame,
    qrels: pd.DataFrame,
    corpus: Mapping[str, str],
    candidates: pd.DataFrame,
    *,
    measures: Sequence[Any] = DEFAULT_MEASURES,
    engine: Any = None,
) -> pd.DataFrame:
    """Rank the ``candidates`` of ``queries`` with ``ranker`` and evaluate per query
    (``query_id``, ``measure``, ``value``); judged queries without candidates score 0."""
    q = _check_queries(queries, "queries")
    run = model_run(ranker, "judged", q, corpus, depth=0, candidates=candidates, engine=engine)
    return evaluate_run(run, qrels, measures, q["query_id"].tolist())


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
    measures: Sequence[Any] = DEFAULT_MEASURES,
    evaluation: str = "auto",
    depth: int = 1000,
    first_stage: pd.DataFrame | None = None,
    candidates: pd.DataFrame | None = None,
    random_negatives: int = 0,
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
        first_stage: the run re-ranked in ``"rerank"`` mode (default: BM25, Lucene idf,
            k1=0.9, b=0.4, top ``depth`` from the corpus).
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
    if needs_fs and first_stage is None:
        first_stage = bm25_first_stage(q.loc[q["query_id"].isin(set(all_test))], corpus, depth=depth, engine=engine)
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


def evaluate_collection(
    variants: Sequence[Any],
    name: str,
    queries: pd.DataFrame,
    qrels: pd.DataFrame,
    corpus: Mapping[str, str],
    candidates: pd.DataFrame | None = None,
    *,
    measure: Any = "nDCG@10",
    evaluation: str = "auto",
    depth: int = 1000,
    first_stage: pd.DataFrame | None = None,
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
    if "rerank" in modes.values() and first_stage is None:
        first_stage = bm25_first_stage(q, corpus, depth=depth, engine=engine)
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


def plot_ood(result: Any, ax: Any = None) -> Any:
    """Scatter of OOD score vs. interpolation and extrapolation score, one panel per collection (Fig. 2)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    pts = result.tables["points"]
    colls = sorted(pts["collection"].unique())
    if ax is None:
        fig, axes = plt.subplots(1, max(1, len(colls)), figsize=(3.2 * max(1, len(colls)), 3.0), squeeze=False)
        axes = axes[0]
    else:
        fig, axes = ax.figure, [ax] * max(1, len(colls))
    for a, coll in zip(axes, colls):
        g = pts.loc[pts["collection"] == coll]
        a.scatter(g[INTERPOLATION], g["value"], label="interpolation", marker="o", alpha=0.8)
        a.scatter(g[EXTRAPOLATION], g["value"], label="extrapolation", marker="^", alpha=0.8)
        a.set_title(str(coll))
        a.set_xlabel("in-domain score")
    if len(axes):
        axes[0].set_ylabel("OOD score")
        axes[0].legend(fontsize="small")
    fig.tight_layout()
    return fig


def plot_regimes(result: Any, *, measure: str | None = None, ax: Any = None) -> Any:
    """Grouped bars: interpolation vs. extrapolation per (model, setting) for one measure.

    Args:
        result: a ``"regimes-table"`` Result (:func:`evaluate_regimes`).
        measure: the measure to show; default ``nDCG@10`` when evaluated, else the first one
            asked for.
        ax: draw into this Axes (default: a new Figure).

    Returns:
        The matplotlib Figure.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    t = result.tables["regime_table"]
    present = list(dict.fromkeys(str(m) for m in t["measure"]))
    prov = getattr(result, "provenance", None)
    asked = [str(m) for m in (getattr(prov, "params", None) or {}).get("measures", [])]
    present = [m for m in asked if m in present] + [m for m in present if m not in asked]
    if measure is None:
        measure = "nDCG@10" if "nDCG@10" in present or not present else present[0]
    elif present and measure not in present:
        raise ValidationError(f"measure {measure!r} is not in the regime table; it has {present}")
    t = t.loc[t["measure"].astype(str) == measure]
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(4.0, 0.9 * len(t) + 2), 3.2))
    else:
        fig = ax.figure
    x = np.arange(len(t))
    ax.bar(x - 0.2, t["interpolation"], width=0.4, label="interpolation")
    ax.bar(x + 0.2, t["extrapolation"], width=0.4, label="extrapolation")
    ax.set_xticks(x, [f"{m}\n{s}" for m, s in zip(t["model"], t["setting"])], fontsize="small")
    ax.set_ylabel(measure)
    ax.legend(fontsize=9, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)  # above the bars
    fig.tight_layout()
    return fig
