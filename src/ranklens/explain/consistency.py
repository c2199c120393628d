"""Drivers: explain a ranked list, MRC (intrinsic, eq. 2), MER (extrinsic, eq. 3), sweeps.

Protocol (Pandian, Ganguly & MacAvaney, "Evaluating the Explainability of Neural Rankers"):

- each ranker ranks each query's candidate documents (all documents, or a candidate frame such
  as the judged documents of the query); ties: score descending, then ``doc_id`` descending
  (trec_eval's rule on float64 scores);
- the top-``max(k)`` documents are explained (occlusion, or rationales the user provides);
- **MRC@k** per query: the top-``m`` rationales of each of the top-k documents are concatenated in
  document order into a pseudo-document; the ranker scores the pseudo-documents; the rank
  correlation (Kendall τ-b default) between the original top-k order and the pseudo scores;
  mean over queries with at least two documents;
- **MER@k** per query: for each top-k document that has relevant sub-document units, the mean
  over its rationales of the maximum cosine (any embedder) to a relevant unit; mean over those
  documents, then over queries that have at least one such document;
- nDCG@10 of the ranking (``ir_measures``) beside them, with Pearson/Spearman correlations of the
  per-query MRC/MER and nDCG@10.

All model calls go through :mod:`ranklens.engine`: the occluded texts of a whole run in one call,
all pseudo-documents (every query, every ``m`` of a sweep) in one call, all unit texts in one
encode call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._hashing import sha256_json, sha256_texts
from ..engine import ScoringEngine, encode_texts, score_pairs
from ..errors import ValidationError
from ..results import Result, make_provenance
from .files import RationaleMap, relevant_units
from .measures import CORRELATIONS, max_similarity, rank_correlation
from .occlusion import OcclusionExplainer
from .units import Explanation, Rationale, pseudo_document

__all__ = [
    "explain_run",
    "explanation_consistency",
    "explanation_sweep",
    "mer_per_query",
    "mrc_per_query",
    "rank_candidates",
    "top_rationales",
]


# ---------------------------------------------------------------------------- ranking
def _queries_map(queries: pd.DataFrame | Mapping[str, str]) -> dict[str, str]:
    if isinstance(queries, pd.DataFrame):
        missing = {"query_id", "text"} - set(queries.columns)
        if missing:
            raise ValidationError(f"queries frame lacks column(s) {sorted(missing)}; need query_id, text")
        return dict(zip(queries["query_id"].astype(str), queries["text"].astype(str)))
    return {str(k): str(v) for k, v in queries.items()}


def _order(run: pd.DataFrame) -> pd.DataFrame:
    """Sort by query, score descending, doc_id descending (trec_eval tie rule) and add ``rank``."""
    r = run.copy()
    r["query_id"] = r["query_id"].astype(str)
    r["doc_id"] = r["doc_id"].astype(str)
    r["score"] = r["score"].astype("float64")
    r = r.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="mergesort")
    r["rank"] = r.groupby("query_id").cumcount().astype("int64") + 1
    return r.reset_index(drop=True)


def rank_candidates(
    ranker: Any,
    queries: pd.DataFrame | Mapping[str, str],
    docs: Mapping[str, str],
    candidates: pd.DataFrame | None = None,
    *,
    engine: ScoringEngine | None = None,
) -> pd.DataFrame:
    """Score each query's candidate documents with ``ranker`` and rank them.

    Args:
        ranker: any :class:`ranklens.rankers.Ranker`.
        queries: ``query_id``/``text`` frame or mapping.
        docs: ``doc_id -> text``.
        candidates: ``query_id``/``doc_id`` frame (e.g. the judged documents); ``None`` = every
            document for every query.
        engine: scoring engine (default engine when ``None``).

    Returns:
        Run frame ``query_id, doc_id, score, rank`` sorted by query and rank.
    """
    qmap = _queries_map(queries)
    if candidates is None:
        ids = list(docs)
        pairs = [(q, d) for q in qmap for d in ids]
    else:
        c = candidates[["query_id", "doc_id"]].astype(str).drop_duplicates()
        unknown_q = sorted(set(c["query_id"]) - set(qmap))
        if unknown_q:
            raise ValidationError(f"candidates name query ids without text: {unknown_q[:5]}")
        unknown_d = sorted(set(c["doc_id"]) - set(docs))
        if unknown_d:
            raise ValidationError(
                f"candidates name {len(unknown_d)} doc ids without text (e.g. {unknown_d[:3]}); "
                "filter them out first"
            )
        pairs = list(zip(c["query_id"], c["doc_id"]))
    scores = score_pairs(ranker, [qmap[q] for q, _ in pairs], [docs[d] for _, d in pairs], engine=engine, desc="ranking")
    run = pd.DataFrame({"query_id": [q for q, _ in pairs], "doc_id": [d for _, d in pairs], "score": scores})
    return _order(run)


def _top(run: pd.DataFrame, k: int) -> pd.DataFrame:
    r = _order(run[["query_id", "doc_id", "score"]])
    return r[r["rank"] <= k].reset_index(drop=True)


# ---------------------------------------------------------------------------- explanations
def _explain_top(
    ranker: Any, top: pd.DataFrame, qmap: Mapping[str, str], docs: Mapping[str, str],
    explainer: OcclusionExplainer, engine: ScoringEngine | None,
) -> dict[tuple[str, str], Explanation]:
    keys = list(zip(top["query_id"], top["doc_id"]))
    exps = explainer.explain(ranker, [qmap[q] for q, _ in keys], [docs[d] for _, d in keys], engine=engine)
    return dict(zip(keys, exps))


def top_rationales(explanations: Mapping[tuple[str, str], Explanation], m: int) -> RationaleMap:
    """``{(query_id, doc_id): top-m rationales}`` from explanations."""
    return {k: e.top(m) for k, e in explanations.items()}


def _rationale_rows(top: pd.DataFrame, rationales: RationaleMap, label: dict[str, Any]) -> pd.DataFrame:
    rows = []
    for q, d, rank, score in zip(top["query_id"], top["doc_id"], top["rank"], top["score"]):
        for pos, r in enumerate(rationales.get((q, d), ()), start=1):
            rows.append({**label, "query_id": q, "doc_id": d, "rank": int(rank), "score": float(score),
                         "rationale_rank": pos, "unit": r.unit, "start": r.start, "end": r.end,
                         "weight": r.weight, "text": r.text})
    cols = [*label, "query_id", "doc_id", "rank", "score", "rationale_rank", "unit", "start", "end", "weight", "text"]
    return pd.DataFrame(rows, columns=cols)


def explain_run(
    ranker: Any,
    run: pd.DataFrame,
    queries: pd.DataFrame | Mapping[str, str],
    docs: Mapping[str, str],
    *,
    explainer: OcclusionExplainer | None = None,
    k: int = 10,
    m: int = 6,
    engine: ScoringEngine | None = None,
) -> Result:
    """Occlusion rationales of the top-``k`` documents of each query of ``run``.

    Returns:
        :class:`~ranklens.results.Result` of kind ``"explain-rationales"``: one table row per
        rationale (``query_id, doc_id, rank, score, rationale_rank, unit, start, end, weight,
        text``) and a ``units`` table with every unit's weight.
    """
    explainer = explainer or OcclusionExplainer()
    qmap = _queries_map(queries)
    top = _top(run, k)
    exps = _explain_top(ranker, top, qmap, docs, explainer, engine)
    rats = top_rationales(exps, m)
    table = _rationale_rows(top, rats, {})
    units = pd.DataFrame(
        [{"query_id": q, "doc_id": d, "unit": u.index, "start": u.start, "end": u.end,
          "weight": e.weights[u.index], "mode": e.mode, "guarded": e.guarded}
         for (q, d), e in exps.items() for u in e.units],
        columns=["query_id", "doc_id", "unit", "start", "end", "weight", "mode", "guarded"],
    )
    prov = make_provenance(
        params={"k": k, "m": m, "explainer": repr(explainer), "ties": "score desc, doc_id desc (float64)",
                "normalize": explainer.normalize, "guarded_explanations": int(sum(e.guarded for e in exps.values()))},
        components={"ranker": getattr(ranker, "fingerprint", repr(ranker))},
        inputs={"run": sha256_json(top[["query_id", "doc_id"]].values.tolist())},
        seed=explainer.seed,
    )
    summary = {"queries": int(top["query_id"].nunique()), "documents": len(exps), "m": m, "k": k,
               "granularity": explainer.granularity}
    return Result(kind="explain-rationales", summary=summary, table=table, provenance=prov, tables={"units": units})


# ---------------------------------------------------------------------------- kernels
def mrc_per_query(
    ranker: Any,
    top: pd.DataFrame,
    queries: pd.DataFrame | Mapping[str, str],
    rationales: Mapping[Any, RationaleMap] | RationaleMap,
    *,
    ks: Sequence[int] = (10, 50),
    method: str = "kendall",
    p: float = 0.9,
    engine: ScoringEngine | None = None,
) -> pd.DataFrame:
    """Per-query MRC for one or several rationale sets (e.g. several ``m``).

    Args:
        ranker: the ranker that produced ``top`` (it scores the pseudo-documents).
        top: ranked run (``query_id, doc_id, score``), at least ``max(ks)`` deep where possible.
        queries: query texts.
        rationales: ``{(query_id, doc_id): rationales}``, or ``{label: that}`` for several sets
            (the label becomes the ``set`` column). Documents without rationales get an empty
            pseudo-document.
        ks: cut-offs.
        method: ``"kendall"`` | ``"spearman"`` | ``"rbo"``.
        p: RBO persistence.
        engine: scoring engine.

    Returns:
        ``set, query_id, k, n_docs, mrc`` (``mrc`` is nan for queries with fewer than two docs).
    """
    if method not in CORRELATIONS:
        raise ValidationError(f"method must be one of {CORRELATIONS}, got {method!r}")
    qmap = _queries_map(queries)
    sets = rationales if _is_nested(rationales) else {None: rationales}
    ranked = _order(top[["query_id", "doc_id", "score"]])
    kmax = max(ks)
    ranked = ranked[ranked["rank"] <= kmax]
    qs, ts, keys = [], [], []
    for label, rats in sets.items():
        for q, d in zip(ranked["query_id"], ranked["doc_id"]):
            qs.append(qmap[q])
            ts.append(pseudo_document(rats.get((q, d), ())))
            keys.append((label, q, d))
    pseudo = score_pairs(ranker, qs, ts, engine=engine, desc="rationale-only documents")
    pmap = dict(zip(keys, pseudo))
    rows = []
    for label in sets:
        for q, g in ranked.groupby("query_id", sort=True):
            orig = g["score"].to_numpy()
            rat = np.array([pmap[(label, q, d)] for d in g["doc_id"]])
            for k in ks:
                n = min(k, len(g))
                rows.append({"set": label, "query_id": q, "k": int(k), "n_docs": n,
                             "mrc": rank_correlation(orig[:n], rat[:n], method=method, p=p)})
    return pd.DataFrame(rows, columns=["set", "query_id", "k", "n_docs", "mrc"])


def _is_nested(r: Mapping[Any, Any]) -> bool:
    for v in r.values():
        return isinstance(v, Mapping)
    return False


def mer_per_query(
    top: pd.DataFrame,
    docs: Mapping[str, str],
    rationales: Mapping[Any, RationaleMap] | RationaleMap,
    subdoc: pd.DataFrame,
    *,
    embedder: Any,
    k: int = 10,
    engine: ScoringEngine | None = None,
) -> pd.DataFrame:
    """Per-query MER@k: mean over top-k docs with relevant units of mean-over-rationales max cosine.

    Args:
        top: ranked run (``query_id, doc_id, score``).
        docs: ``doc_id -> text`` (to resolve sentence-index units).
        rationales: as in :func:`mrc_per_query`.
        subdoc: sub-document relevance from :func:`ranklens.explain.read_subdoc_qrels`.
        embedder: any :class:`ranklens.embedders.Embedder` (cosine of its vectors is ω).
        k: cut-off.
        engine: encoding engine.

    Returns:
        ``set, query_id, k, n_docs, mer``: ``n_docs`` = top-k documents that have relevant units
        (and at least one rationale); queries with none are left out.
    """
    sets = rationales if _is_nested(rationales) else {None: rationales}
    ranked = _order(top[["query_id", "doc_id", "score"]])
    ranked = ranked[ranked["rank"] <= k]
    rel_cache: dict[tuple[str, str], list[str]] = {}
    for q, d in zip(ranked["query_id"], ranked["doc_id"]):
        rel_cache[(q, d)] = relevant_units(subdoc, q, d, docs[d])
    texts: dict[str, int] = {}
    for units in rel_cache.values():
        for t in units:
            texts.setdefault(t, len(texts))
    for rats in sets.values():
        for key, units in rel_cache.items():
            if units:
                for r in rats.get(key, ()):
                    texts.setdefault(r.text, len(texts))
    vecs = encode_texts(embedder, list(texts), engine=engine, desc="MER units") if texts else np.zeros((0, 1))
    rows = []
    for label, rats in sets.items():
        for q, g in ranked.groupby("query_id", sort=True):
            per_doc = []
            for d in g["doc_id"]:
                rel = rel_cache[(q, d)]
                rs = rats.get((q, d), ())
                if not rel or not rs:
                    continue
                sims = max_similarity(vecs[[texts[r.text] for r in rs]], vecs[[texts[t] for t in rel]])
                per_doc.append(float(sims.mean()))
            if per_doc:
                rows.append({"set": label, "query_id": q, "k": int(k), "n_docs": len(per_doc),
                             "mer": float(np.mean(per_doc))})
    return pd.DataFrame(rows, columns=["set", "query_id", "k", "n_docs", "mer"])


def _ndcg10(run: pd.DataFrame, qrels: pd.DataFrame | None) -> dict[str, float]:
    if qrels is None or qrels.empty:
        return {}
    import ir_measures
    from ir_measures import nDCG

    qr = pd.DataFrame({"query_id": qrels["query_id"].astype(str).astype(object),
                       "doc_id": qrels["doc_id"].astype(str).astype(object),
                       "relevance": qrels["relevance"].astype("int64")})
    rn = pd.DataFrame({"query_id": run["query_id"].astype(str).astype(object),
                       "doc_id": run["doc_id"].astype(str).astype(object),
                       "score": run["score"].astype("float64")})
    return {m.query_id: float(m.value) for m in ir_measures.iter_calc([nDCG @ 10], qr, rn)}


def _correlations(table: pd.DataFrame, measures: Sequence[str], against: str = "ndcg@10") -> pd.DataFrame:
    from scipy import stats

    rows = []
    if against not in table.columns:
        return pd.DataFrame(columns=["ranker", "granularity", "measure", "n", "pearson", "pearson_p",
                                     "spearman", "spearman_p"])
    for (rk, gr), g in table.groupby(["ranker", "granularity"], sort=False):
        for meas in measures:
            if meas not in g.columns:
                continue
            x = g[[meas, against]].dropna()
            row = {"ranker": rk, "granularity": gr, "measure": meas, "n": len(x)}
            if len(x) >= 3 and x[meas].nunique() > 1 and x[against].nunique() > 1:
                pr = stats.pearsonr(x[meas], x[against])
                sr = stats.spearmanr(x[meas], x[against])
                row.update(pearson=float(pr.statistic), pearson_p=float(pr.pvalue),
                           spearman=float(sr.statistic), spearman_p=float(sr.pvalue))
            else:
                row.update(pearson=np.nan, pearson_p=np.nan, spearman=np.nan, spearman_p=np.nan)
            rows.append(row)
    return pd.DataFrame(rows, columns=["ranker", "granularity", "measure", "n", "pearson", "pearson_p",
                                       "spearman", "spearman_p"])


# ---------------------------------------------------------------------------- drivers
def _default_embedder() -> Any:
    from ..embedders import make_embedder  # contract: built by the models helper

    return make_embedder("minilm")


def _prepare(rankers, queries, docs, qrels, candidates, runs, engine):
    qmap = _queries_map(queries)
    if not rankers:
        raise ValidationError("give at least one ranker, e.g. {'bm25': BM25Ranker().fit(texts)}")
    out = {}
    for name, ranker in rankers.items():
        if runs is not None and name in runs:
            run = _order(runs[name][["query_id", "doc_id", "score"]])
        else:
            run = rank_candidates(ranker, qmap, docs, candidates, engine=engine)
        out[name] = run
    return qmap, out


def _run_grid(
    rankers: Mapping[str, Any], qmap, docs, runs, qrels, subdoc, *, granularities, ms, ks, mer_k, method, p,
    explainer: OcclusionExplainer, rationales, embedder, engine,
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """Per (ranker, granularity, m, query) rows of MRC@k, MER@k and nDCG@10 + rationale table."""
    from dataclasses import replace

    # explain only as deep as a measure looks: max MRC cut-off, and the MER cut-off when MER is on
    kmax = max(max(ks), mer_k if subdoc is not None and embedder is not None else 0)
    rows = []
    rat_tables = []
    extra: dict[str, Any] = {"guarded": 0, "occluded_documents": 0}
    for name, ranker in rankers.items():
        run = runs[name]
        top = run[run["rank"] <= kmax]
        ndcg = _ndcg10(run, qrels)
        grans: list[tuple[str, dict[Any, RationaleMap]]] = []
        if rationales is not None and name in rationales:
            grans.append(("user", {ms[-1]: rationales[name]}))
        else:
            for gspec in granularities:
                ex = replace(explainer, granularity=str(gspec), greedy_steps=max(max(ms), 1))
                exps = _explain_top(ranker, top, qmap, docs, ex, engine)
                extra["guarded"] += int(sum(e.guarded for e in exps.values()))
                extra["occluded_documents"] += len(exps)
                grans.append((str(gspec), {m: top_rationales(exps, m) for m in ms}))
        for gname, sets in grans:
            mrc = mrc_per_query(ranker, top, qmap, sets, ks=ks, method=method, p=p, engine=engine)
            mer = None
            if subdoc is not None and embedder is not None:
                mer = mer_per_query(top, docs, sets, subdoc, embedder=embedder, k=mer_k, engine=engine)
            rat_tables.append(_rationale_rows(top, sets[max(sets)], {"ranker": name, "granularity": gname}))
            for m in sets:
                sub = mrc[mrc["set"] == m]
                wide = sub.pivot(index="query_id", columns="k", values="mrc")
                for q in sorted(set(top["query_id"])):
                    row = {"ranker": name, "granularity": gname, "m": int(m), "query_id": q}
                    for k in ks:
                        row[f"mrc@{k}"] = float(wide.loc[q, k]) if q in wide.index else np.nan
                    if mer is not None:
                        hit = mer[(mer["set"] == m) & (mer["query_id"] == q)]
                        row[f"mer@{mer_k}"] = float(hit["mer"].iloc[0]) if len(hit) else np.nan
                    row["ndcg@10"] = ndcg.get(q, np.nan) if ndcg else np.nan
                    rows.append(row)
    table = pd.DataFrame(rows)
    rats = pd.concat(rat_tables, ignore_index=True) if rat_tables else pd.DataFrame()
    return table, rats, extra


def _provenance(rankers, embedder, explainer, params, qmap, docs, extra):
    comps = {f"ranker:{n}": getattr(r, "fingerprint", repr(r)) for n, r in rankers.items()}
    if embedder is not None:
        comps["embedder"] = getattr(embedder, "fingerprint", repr(embedder))
    params = {
        **params,
        "explainer": repr(explainer),
        "normalize": explainer.normalize,
        "normalize_rule": {"abs": "drop / max(|theta|, eps)", "none": "raw drop",
                           "shift": "drop / (theta - min score of the query + eps)"}[explainer.normalize],
        "aggregate": explainer.aggregate,
        "ties": "score desc, doc_id desc (float64)",
        "pseudo_document": "top-m rationale texts in document order joined by one space",
        "constant_pseudo_scores": "mrc = 0 (no order reproduced)",
        "mrc_undefined": "queries with < 2 documents are nan and left out of the mean",
        "mer_documents": "top-k documents with >= 1 relevant unit; queries without any left out",
        **extra,
    }
    inputs = {"queries": sha256_json(sorted(qmap.items())), "docs": sha256_texts(docs[d] for d in sorted(docs))}
    return make_provenance(params=params, components=comps, inputs=inputs, seed=explainer.seed)


def _summary_table(table: pd.DataFrame, measures: Sequence[str]) -> pd.DataFrame:
    cols = [c for c in measures if c in table.columns]
    agg = table.groupby(["ranker", "granularity", "m"], sort=False)[cols].mean().reset_index()
    agg["queries"] = table.groupby(["ranker", "granularity", "m"], sort=False).size().to_numpy()
    return agg


def explanation_consistency(
    rankers: Mapping[str, Any],
    queries: pd.DataFrame | Mapping[str, str],
    docs: Mapping[str, str],
    *,
    qrels: pd.DataFrame | None = None,
    candidates: pd.DataFrame | None = None,
    runs: Mapping[str, pd.DataFrame] | None = None,
    granularities: Sequence[str] = ("sentence", "window:5"),
    m: int = 6,
    ks: Sequence[int] = (10, 50),
    mer_k: int = 10,
    method: str = "kendall",
    p: float = 0.9,
    explainer: OcclusionExplainer | None = None,
    rationales: Mapping[str, RationaleMap] | None = None,
    subdoc: pd.DataFrame | None = None,
    embedder: Any = None,
    engine: ScoringEngine | None = None,
) -> Result:
    """MRC@k (and MER@k when sub-document relevance is given) of several rankers.

    Args:
        rankers: ``{name: ranker}``.
        queries: query texts.
        docs: ``doc_id -> text``.
        qrels: document qrels for nDCG@10 (optional).
        candidates: ``query_id, doc_id`` to re-rank (default: all documents).
        runs: precomputed runs per ranker name (skip ranking).
        granularities: occlusion units, ``"sentence"`` and/or ``"window:W"``.
        m: rationales per document.
        ks: MRC cut-offs.
        mer_k: MER cut-off.
        method: ``"kendall"`` (default) | ``"spearman"`` | ``"rbo"``.
        p: RBO persistence.
        explainer: occlusion settings (its granularity is replaced per entry of
            ``granularities``); default :class:`OcclusionExplainer()`.
        rationales: ``{ranker name: {(query_id, doc_id): rationales}}`` from another explainer
            (e.g. :func:`read_rationales`); used instead of occlusion for those rankers
            (granularity ``"user"``).
        subdoc: sub-document relevance (:func:`read_subdoc_qrels`); enables MER.
        embedder: ω's embedder for MER (default: MiniLM via ``make_embedder("minilm")`` when
            ``subdoc`` is given).
        engine: scoring engine.

    Returns:
        Result of kind ``"explain-consistency"``: ``table`` per (ranker, granularity, query)
        with ``mrc@k``, ``mer@k``, ``ndcg@10``; tables ``summary`` (means), ``correlations``
        (Pearson/Spearman of MRC/MER vs nDCG@10 over queries) and ``rationales``.
    """
    explainer = explainer or OcclusionExplainer()
    if subdoc is not None and embedder is None:
        embedder = _default_embedder()
    qmap, runs_ = _prepare(rankers, queries, docs, qrels, candidates, runs, engine)
    table, rats, extra = _run_grid(
        rankers, qmap, docs, runs_, qrels, subdoc, granularities=granularities, ms=[m], ks=ks, mer_k=mer_k,
        method=method, p=p, explainer=explainer, rationales=rationales, embedder=embedder, engine=engine,
    )
    measures = [f"mrc@{k}" for k in ks] + ([f"mer@{mer_k}"] if subdoc is not None else []) + ["ndcg@10"]
    summ = _summary_table(table, measures)
    corr = _correlations(table, [c for c in measures if c != "ndcg@10"])
    summary: dict[str, Any] = {}
    for _, r in summ.iterrows():
        for c in measures:
            if c in summ.columns:
                summary[f"{r['ranker']}/{r['granularity']}/{c}"] = None if pd.isna(r[c]) else round(float(r[c]), 6)
    prov = _provenance(rankers, embedder, explainer, {
        "granularities": [str(g) for g in granularities], "m": m, "ks": list(ks), "mer_k": mer_k,
        "method": method, "rbo_p": p, "candidates": "given" if candidates is not None else "all documents",
    }, qmap, docs, extra)
    return Result(kind="explain-consistency", summary=summary, table=table.drop(columns=["m"]), provenance=prov,
                  tables={"summary": summ, "correlations": corr, "rationales": rats})


def explanation_sweep(
    rankers: Mapping[str, Any],
    queries: pd.DataFrame | Mapping[str, str],
    docs: Mapping[str, str],
    *,
    ms: Sequence[int] = (1, 2, 3, 4, 5, 6),
    windows: Sequence[int] = (),
    granularities: Sequence[str] = ("sentence",),
    qrels: pd.DataFrame | None = None,
    candidates: pd.DataFrame | None = None,
    runs: Mapping[str, pd.DataFrame] | None = None,
    ks: Sequence[int] = (10,),
    mer_k: int = 10,
    method: str = "kendall",
    p: float = 0.9,
    explainer: OcclusionExplainer | None = None,
    subdoc: pd.DataFrame | None = None,
    embedder: Any = None,
    engine: ScoringEngine | None = None,
) -> Result:
    """MRC/MER as functions of ``m`` (rationales per document) and ``w`` (window width).

    Explanations are computed once per (ranker, granularity); every ``m`` takes a prefix of the
    same ordering, so a sweep over ``m`` costs only the extra pseudo-documents. ``windows`` adds
    ``"window:W"`` granularities to ``granularities``.

    Returns:
        Result of kind ``"explain-sweep"``: ``table`` per (ranker, granularity, m) with mean
        ``mrc@k`` / ``mer@k`` and query counts; table ``per_query`` with the per-query values.
    """
    explainer = explainer or OcclusionExplainer()
    if subdoc is not None and embedder is None:
        embedder = _default_embedder()
    grans = list(granularities) + [f"window:{w}" for w in windows]
    qmap, runs_ = _prepare(rankers, queries, docs, qrels, candidates, runs, engine)
    table, _rats, extra = _run_grid(
        rankers, qmap, docs, runs_, qrels, subdoc, granularities=grans, ms=sorted(ms), ks=ks, mer_k=mer_k,
        method=method, p=p, explainer=explainer, rationales=None, embedder=embedder, engine=engine,
    )
    measures = [f"mrc@{k}" for k in ks] + ([f"mer@{mer_k}"] if subdoc is not None else []) + ["ndcg@10"]
    summ = _summary_table(table, measures)
    summary = {
        f"{r['ranker']}/{r['granularity']}/m={int(r['m'])}/{c}": None if pd.isna(r[c]) else round(float(r[c]), 6)
        for _, r in summ.iterrows() for c in measures if c != "ndcg@10"
    }
    prov = _provenance(rankers, embedder, explainer, {
        "granularities": grans, "ms": sorted(ms), "ks": list(ks), "mer_k": mer_k, "method": method, "rbo_p": p,
        "candidates": "given" if candidates is not None else "all documents",
    }, qmap, docs, extra)
    return Result(kind="explain-sweep", summary=summary, table=summ, provenance=prov, tables={"per_query": table})
