"""Evaluate trained variants per regime, the relative gap, paired tests, OOD correlation (§4.2, §5).

- :func:`candidate_run` builds the documents to rank per query: the judged pool (qrels), optionally
  plus seeded random corpus negatives, or a first-stage run.
- :func:`per_query_scores` ranks them with a ranker (scores through :mod:`ranklens.engine`) and
  evaluates with ir_measures (trec_eval semantics: ties by doc id, via pytrec_eval).
- :func:`evaluate_regimes` evaluates every :class:`~.trainers.TrainedVariant` on its split's
  test queries per regime and returns the ``"regime-table"`` Result: the paper's table
  (models × {interpolation, extrapolation, gap} per measure), with

  ``gap = (extrapolation - interpolation) / interpolation``

  and paired tests per query (:mod:`ranklens.stats` t-test and randomization test, scipy Wilcoxon). For ReSTrain the pairs
  are the same test queries under the two training sets; for ReSTTest each test query's
  extrapolation score comes from the fold whose bucket holds it and its interpolation score is
  the mean over the other folds (the paper's averaging).
- :func:`evaluate_collection` / :func:`ood_correlation` / :func:`plot_ood`: zero-shot scores on
  other collections and their Spearman/Kendall correlation (scipy) with the interpolation and
  extrapolation scores across variants (Table 5, Fig. 2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from .similarity import _check_queries, frame_digest
from .splits import EXTRAPOLATION, INTERPOLATION, Split, _ordered

__all__ = [
    "DEFAULT_MEASURES",
    "bm25_first_stage",
    "candidate_run",
    "evaluate_collection",
    "evaluate_regimes",
    "ood_correlation",
    "paper_table",
    "per_query_scores",
    "plot_ood",
    "plot_regimes",
    "regime_table",
    "setting_name",
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
    queries: pd.DataFrame, corpus: Mapping[str, str], *, depth: int = 100, k1: float = 0.9, b: float = 0.4
) -> pd.DataFrame:
    """Top-``depth`` BM25 documents per query from the whole corpus (sparse matrix product)."""
    from .similarity import bm25_matrix, topk_dense

    q = _check_queries(queries, "queries")
    doc_ids = np.array(list(corpus), dtype=object)
    mat = bm25_matrix(q["text"].tolist(), [corpus[d] for d in doc_ids], k1=k1, b=b)
    rows = []
    for s in range(0, len(q), 256):
        idx, sc = topk_dense(mat[s:s + 256].toarray(), depth)
        for i in range(idx.shape[0]):
            rows.append(pd.DataFrame({"query_id": q["query_id"].iloc[s + i], "doc_id": doc_ids[idx[i]], "score": sc[i]}))
    if not rows:
        return pd.DataFrame({"query_id": [], "doc_id": [], "score": []})
    return pd.concat(rows, ignore_index=True)


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
    """Rank the candidates of ``queries`` with ``ranker`` and evaluate per query.

    Returns:
        Long frame ``query_id``, ``measure`` (canonical string), ``value``. Queries without any
        judgment are absent (ir_measures skips them); queries with judgments but no candidate score 0.
    """
    import ir_measures

    from ..engine import score_pairs

    q = _check_queries(queries, "queries")
    text = dict(zip(q["query_id"], q["text"]))
    cand = candidates.loc[candidates["query_id"].astype(str).isin(set(text))]
    qs = [text[x] for x in cand["query_id"].astype(str)]
    ds = [corpus[d] for d in cand["doc_id"].astype(str)]
    scores = score_pairs(ranker, qs, ds, engine=engine) if qs else np.zeros(0)
    run = pd.DataFrame({"query_id": cand["query_id"].astype(str).to_numpy(dtype=object),
                        "doc_id": cand["doc_id"].astype(str).to_numpy(dtype=object), "score": scores})
    sub_qrels = qrels.loc[qrels["query_id"].astype(str).isin(set(text))]
    qr = pd.DataFrame({"query_id": sub_qrels["query_id"].astype(str).to_numpy(dtype=object),
                       "doc_id": sub_qrels["doc_id"].astype(str).to_numpy(dtype=object),
                       "relevance": sub_qrels["relevance"].astype("int64").to_numpy()})
    ms = _parse_measures(measures)
    rows = [(m.query_id, str(m.measure), float(m.value)) for m in ir_measures.iter_calc(ms, qr, run)]
    out = pd.DataFrame(rows, columns=["query_id", "measure", "value"])
    # ir_measures drops judged queries with no run rows; score them 0 (trec_eval -c)
    judged = set(qr["query_id"])
    have = set(out["query_id"])
    extra = [(qid, str(m), 0.0) for qid in sorted(judged - have) for m in ms]
    if extra:
        out = pd.concat([out, pd.DataFrame(extra, columns=out.columns)], ignore_index=True)
    return out


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


def evaluate_regimes(
    variants: Sequence[Any],
    splits: Sequence[Split],
    queries: pd.DataFrame,
    qrels: pd.DataFrame,
    corpus: Mapping[str, str],
    *,
    measures: Sequence[Any] = DEFAULT_MEASURES,
    candidates: pd.DataFrame | None = None,
    random_negatives: int = 0,
    rel: int = 1,
    judged_only: bool = True,
    seed: int = 0,
    engine: Any = None,
) -> Any:
    """Evaluate each trained variant in both regimes of its split (Result kind ``"regime-table"``).

    Args:
        variants: from :func:`~.trainers.train_variants`.
        splits: the splits the variants were trained on (matched by name).
        queries: all queries (``query_id``, ``text``).
        qrels: judgments of the test queries.
        corpus: ``doc_id -> text``.
        measures: ir_measures measures or their names.
        candidates: documents to rank per query (``query_id``, ``doc_id``); default: the judged
            pool plus ``random_negatives`` random documents (see :func:`candidate_run`).
        rel: minimum relevance for ``judged_only``.
        judged_only: evaluate only test queries with at least one document at ``>= rel``.

    Returns:
        ``Result``; table: per query (``model``, ``setting``, ``split``, ``regime``,
        ``query_id``, ``measure``, ``value``; ``setting`` = :func:`setting_name` of the split);
        ``tables["regime_table"]`` long and
        ``tables["paper"]`` wide (models × {interpolation, extrapolation, gap} per measure).
    """
    from ..results import Result, make_provenance

    q = _check_queries(queries, "queries")
    by_name = {s.name: s for s in splits}
    if judged_only:
        pos = set(qrels.loc[qrels["relevance"].astype("int64") >= rel, "query_id"].astype(str))
    all_test = sorted({x for s in splits for r in s.regimes for x in s.test_ids(r)})
    cand = candidates if candidates is not None else candidate_run(
        all_test, qrels, corpus, random_negatives=random_negatives, seed=seed)
    rows = []
    components = {}
    for v in variants:
        split = by_name.get(v.split)
        if split is None:
            raise ValidationError(f"variant {v.trainer}/{v.split}: no split named {v.split!r} among {sorted(by_name)}")
        components[f"{v.trainer}/{v.split}/{'+'.join(v.regimes)}"] = getattr(v.ranker, "fingerprint", repr(v.ranker))
        for regime in v.regimes:
            test_ids = [x for x in split.test_ids(regime) if not judged_only or x in pos]
            if not test_ids:
                continue
            tq = q.loc[q["query_id"].isin(set(test_ids))]
            pq = per_query_scores(v.ranker, tq, qrels, corpus, cand, measures=measures, engine=engine)
            pq.insert(0, "regime", regime)
            pq.insert(0, "split", split.name)
            pq.insert(0, "setting", setting_name(split))
            pq.insert(0, "model", v.trainer)
            rows.append(pq)
    table = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(
        columns=["model", "setting", "split", "regime", "query_id", "measure", "value"])
    long = regime_table(table)
    summary = {f"{r.model}|{r.setting}|{r.measure}|{k}": getattr(r, k)
               for r in long.itertuples() for k in ("interpolation", "extrapolation", "gap")}
    prov = make_provenance(
        params={"measures": [str(m) for m in measures], "judged_only": judged_only, "rel": rel,
                "random_negatives": random_negatives, "seed": seed,
                "gap": "(extrapolation - interpolation) / interpolation",
                "resttest_interpolation": "per query mean over the folds where it is an interpolation query",
                "paired_tests": "ranklens.stats paired_ttest (scipy ttest_rel) and randomization_test (10,000 sign "
                                "flips, seed 0); scipy.stats.wilcoxon; over per-query (interpolation, extrapolation)",
                "ties": "trec_eval (ir_measures/pytrec_eval)",
                "splits": {s.name: s.fingerprint for s in splits}},
        components=components,
        inputs={"queries": frame_digest(q), "candidates": frame_digest(cand, ["query_id", "doc_id"])},
        seed=seed,
    )
    return Result(kind="regime-table", summary=summary, table=table,
                  tables={"regime_table": long,
                          "paper": paper_table(long, [str(m) for m in _parse_measures(measures)])}, provenance=prov)


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


def regime_table(per_query: pd.DataFrame) -> pd.DataFrame:
    """Aggregate per-query scores into (model, setting, measure) rows with the gap and paired tests.

    ReSTTest settings: per query, the extrapolation score is its single extrapolation value and the
    interpolation score is the mean over its interpolation values (folds); queries that lack either
    are dropped from the paired comparison but kept in the means.
    """
    rows = []
    if per_query.empty:
        return pd.DataFrame(columns=["model", "setting", "measure", "interpolation", "extrapolation", "gap",
                                     "n_interpolation", "n_extrapolation", "n_paired", "t_pvalue",
                                     "randomization_pvalue", "wilcoxon_pvalue"])
    for (model, setting, measure), g in per_query.groupby(["model", "setting", "measure"], sort=False):
        per = g.groupby(["regime", "query_id"])["value"].mean()
        ip = per.get(INTERPOLATION, pd.Series(dtype=float)) if INTERPOLATION in per.index.get_level_values(0) else pd.Series(dtype=float)
        ex = per.get(EXTRAPOLATION, pd.Series(dtype=float)) if EXTRAPOLATION in per.index.get_level_values(0) else pd.Series(dtype=float)
        i_mean = float(ip.mean()) if len(ip) else float("nan")
        e_mean = float(ex.mean()) if len(ex) else float("nan")
        gap = (e_mean - i_mean) / i_mean if i_mean and not np.isnan(i_mean) else float("nan")
        common = sorted(set(ip.index) & set(ex.index))
        nan = float("nan")
        t, rnd, w = _paired(ip.loc[common].to_numpy(), ex.loc[common].to_numpy()) if common else (nan, nan, nan)
        rows.append({"model": model, "setting": setting, "measure": measure, "interpolation": i_mean,
                     "extrapolation": e_mean, "gap": gap, "n_interpolation": len(ip), "n_extrapolation": len(ex),
                     "n_paired": len(common), "t_pvalue": t, "randomization_pvalue": rnd,
                     "wilcoxon_pvalue": w})
    return pd.DataFrame(rows)


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
    for m in measures:
        for k, short in (("interpolation", "interp"), ("extrapolation", "extrap"), ("gap", "gap")):
            cols.append(((k, m), f"{m} {short}"))
    wide = pd.DataFrame({name: out[key] for key, name in cols if key in out.columns})
    return wide.reset_index()


def evaluate_collection(
    variants: Sequence[Any],
    name: str,
    queries: pd.DataFrame,
    qrels: pd.DataFrame,
    corpus: Mapping[str, str],
    candidates: pd.DataFrame,
    *,
    measure: Any = "nDCG@10",
    engine: Any = None,
) -> pd.DataFrame:
    """Zero-shot score of every variant on one collection: ``model``, ``split``, ``variant``,
    ``collection``, ``measure``, ``value`` (mean over judged queries)."""
    rows = []
    for v in variants:
        pq = per_query_scores(v.ranker, queries, qrels, corpus, candidates, measures=[measure], engine=engine)
        rows.append({"model": v.trainer, "split": v.split, "variant": f"{v.trainer}/{v.split}", "collection": name,
                     "measure": str(measure), "value": float(pq["value"].mean()) if len(pq) else float("nan")})
    return pd.DataFrame(rows)


def variant_scores(regime_result: Any, *, measure: str = "nDCG@10") -> pd.DataFrame:
    """Per variant (model, split) interpolation and extrapolation means from a regime-table Result
    (uses only splits where one model has both regimes, i.e. ReSTTest folds)."""
    t = regime_result.table if hasattr(regime_result, "table") else regime_result
    t = t.loc[t["measure"] == measure]
    m = t.groupby(["model", "split", "regime"])["value"].mean().unstack("regime")
    m = m.dropna(subset=[c for c in (INTERPOLATION, EXTRAPOLATION) if c in m.columns])
    m = m.reset_index()
    m["variant"] = m["model"] + "/" + m["split"]
    return m


def ood_correlation(in_domain: pd.DataFrame, ood: pd.DataFrame) -> Any:
    """Spearman and Kendall correlation, across variants, of interpolation / extrapolation
    scores with the score on each OOD collection (Result kind ``"ood-correlation"``).

    Args:
        in_domain: ``variant``, ``interpolation``, ``extrapolation`` (e.g. :func:`variant_scores`).
        ood: ``variant``, ``collection``, ``value`` (e.g. :func:`evaluate_collection`).

    Returns:
        ``Result``: table rows (``collection``, ``regime``, ``n``, ``spearman``,
        ``spearman_p``, ``kendall``, ``kendall_p``); ``tables["points"]`` the joined scores.
    """
    from scipy import stats

    from ..results import Result, make_provenance

    need = {"variant", INTERPOLATION, EXTRAPOLATION}
    if not need <= set(in_domain.columns):
        raise ValidationError(f"in_domain needs columns {sorted(need)}, found {list(in_domain.columns)}")
    if not {"variant", "collection", "value"} <= set(ood.columns):
        raise ValidationError(f"ood needs columns variant, collection, value; found {list(ood.columns)}")
    pts = ood[["variant", "collection", "value"]].merge(in_domain[["variant", INTERPOLATION, EXTRAPOLATION]], on="variant")
    rows = []
    for coll, g in pts.groupby("collection", sort=True):
        for regime in (INTERPOLATION, EXTRAPOLATION):
            x, y = g[regime].to_numpy(float), g["value"].to_numpy(float)
            ok = ~(np.isnan(x) | np.isnan(y))
            x, y = x[ok], y[ok]
            if len(x) >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0:
                s = stats.spearmanr(x, y)
                k = stats.kendalltau(x, y)
                rows.append({"collection": coll, "regime": regime, "n": len(x), "spearman": float(s.statistic),
                             "spearman_p": float(s.pvalue), "kendall": float(k.statistic), "kendall_p": float(k.pvalue)})
            else:
                rows.append({"collection": coll, "regime": regime, "n": len(x), "spearman": float("nan"),
                             "spearman_p": float("nan"), "kendall": float("nan"), "kendall_p": float("nan")})
    table = pd.DataFrame(rows)
    summary = {f"{r.collection}|{r.regime}|{k}": getattr(r, k) for r in table.itertuples() for k in ("spearman", "kendall")}
    if len(table):
        for regime in (INTERPOLATION, EXTRAPOLATION):
            sub = table.loc[table["regime"] == regime]
            summary[f"mean_spearman|{regime}"] = float(sub["spearman"].mean())
            summary[f"mean_kendall|{regime}"] = float(sub["kendall"].mean())
    prov = make_provenance(params={"correlations": "scipy.stats.spearmanr, kendalltau (tau-b)",
                                   "across": "model variants"})
    return Result(kind="ood-correlation", summary=summary, table=table, tables={"points": pts}, provenance=prov)


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
        result: a ``"regime-table"`` Result (:func:`evaluate_regimes`).
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
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig
