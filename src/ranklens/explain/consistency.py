"""Drivers: explain a ranked list, MRC (intrinsic, eq. 2), MER (extrinsic, eq. 3), sweeps.

Protocol (Pandian, Ganguly & MacAvaney, "Evaluating the Explainability of Neural Rankers"):

- each ranker ranks each query's candidate documents (all documents, or a candidate frame such
  as the judged documents of the query), ordered by :func:`ranklens.io.rank_run` under the
  project's tie rule ``ties`` (default ``"trec_eval"``: scores compared as float32, ties by
  ``doc_id`` descending; ``"float64"``; ``"input_order"``), recorded in provenance;
- the top-``max(k)`` documents are explained (occlusion, or rationales the user provides);
- **MRC@k** per query: the top-``m`` rationales of each of the top-k documents are concatenated
  (most important first, eq. 1; ``pseudo_order="document"``: in document order) into a
  pseudo-document; the ranker scores the pseudo-documents; the rank
  correlation (Kendall τ-b default) between the original top-k order and the pseudo scores;
  mean over queries with at least two documents;
- **MER@k** per query: for each top-k document, the maximum cosine (any embedder) of each of
  its rationales to a relevant sub-document unit, summed and divided by ``m`` (eq. 3: a document
  with fewer units than ``m`` counts 0 for the missing terms); mean over the k documents (a
  list shorter than k: the missing ranks count 0, warned), then over queries; the paper's
  cut-offs 10 and 50 by default. Documents without relevant units (or without rationales) count as 0
  (``mer_missing="zero"``, default: the paper's eq. 3, whose footnote gives a non-relevant
  document n_i = 0 relevant passages, the max over an empty set taken as 0, every top-k document
  in the 1/(mk) mean) or are left out (``mer_missing="skip"``, a deviation: MER then measures
  how well rationales find relevant text where there is some);
- ω of MER is "the cosine similarity" in the paper's text, which does not say of which vectors;
  ranklens takes any embedder (default MiniLM). The reference code (XAIR-evaluation-metric) uses
  bag-of-words ``CountVectorizer`` vectors; ``embedder=make_embedder("tfidf", ...)`` is the
  nearest choice here (tf-idf weighted). Sentences come from :func:`ranklens.text.sentence_spans`
  (spaCy), where the reference code uses ``nltk.sent_tokenize``;
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
from ..io.frames import rank_run
from ..results import Result, make_provenance
from ..types import DEFAULT_TIES, TIE_RULES
from .files import RationaleMap, relevant_units
from .measures import CORRELATIONS, max_similarity, rank_correlation
from .occlusion import OcclusionExplainer
from .units import Explanation, Rationale, pseudo_document

__all__ = [
    "MER_MISSING",
    "PAPER_M",
    "ci_table",
    "paired_tests",
    "unit_diagnostics",
    "cut_rationales",
    "explain_run",
    "explanation_consistency",
    "explanation_sweep",
    "mer_per_query",
    "mrc_per_query",
    "rank_candidates",
    "top_rationales",
]


MER_MISSING = ("skip", "zero")
"""Policies of MER for top-k documents without relevant units or without rationales."""

PAPER_M: Mapping[str, int] = {"sentence": 1, "window": 6}
"""The paper's rationales per document (Table 1): 1 sentence, 6 word windows (Table 2: 1 sentence)."""

_TIES_RULE = {
    "trec_eval": "rank_run(ties='trec_eval'): score desc compared as float32, then doc_id desc",
    "float64": "rank_run(ties='float64'): score desc (float64), then doc_id desc",
    "input_order": "rank_run(ties='input_order'): score desc (float64), ties keep input order",
}


def _check_ties(ties: str) -> None:
    if ties not in TIE_RULES:
        raise ValidationError(f"ties={ties!r} is not a tie rule; choose one of {list(TIE_RULES)}")


# ---------------------------------------------------------------------------- ranking
def _queries_map(queries: pd.DataFrame | Mapping[str, str]) -> dict[str, str]:
    if isinstance(queries, pd.DataFrame):
        missing = {"query_id", "text"} - set(queries.columns)
        if missing:
            raise ValidationError(f"queries frame lacks column(s) {sorted(missing)}; need query_id, text")
        return dict(zip(queries["query_id"].astype(str), queries["text"].astype(str)))
    return {str(k): str(v) for k, v in queries.items()}


def _order(run: pd.DataFrame, ties: str = DEFAULT_TIES) -> pd.DataFrame:
    """``query_id, doc_id, score, rank`` ordered by :func:`ranklens.io.rank_run` under ``ties``."""
    return rank_run(run[["query_id", "doc_id", "score"]], ties=ties)


def _tie_scores(scores: np.ndarray, ties: str) -> np.ndarray:
    """Scores as the tie rule compares them (float32 for ``"trec_eval"``), so documents the rule
    treats as tied are ties for Kendall/Spearman too."""
    s = np.asarray(scores, dtype=np.float64)
    return s.astype(np.float32).astype(np.float64) if ties == "trec_eval" else s


def rank_candidates(
    ranker: Any,
    queries: pd.DataFrame | Mapping[str, str],
    docs: Mapping[str, str],
    candidates: pd.DataFrame | None = None,
    *,
    ties: str = DEFAULT_TIES,
    engine: ScoringEngine | None = None,
) -> pd.DataFrame:
    """Score each query's candidate documents with ``ranker`` and rank them.

    Args:
        ranker: any :class:`ranklens.rankers.Ranker`.
        queries: ``query_id``/``text`` frame or mapping.
        docs: ``doc_id -> text``.
        candidates: ``query_id``/``doc_id`` frame (e.g. the judged documents); ``None`` = every
            document for every query.
        ties: tie rule of :func:`ranklens.io.rank_run` (``"trec_eval"`` default,
            ``"float64"``, ``"input_order"``).
        engine: scoring engine (default engine when ``None``).

    Returns:
        Run frame ``query_id, doc_id, score, rank`` sorted by query and rank.
    """
    _check_ties(ties)
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
    return _order(run, ties)


def _top(run: pd.DataFrame, k: int, ties: str) -> pd.DataFrame:
    r = _order(run, ties)
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


def _weight_key(r: Rationale) -> tuple[float, int, int]:
    w = r.weight
    return (-w if w is not None and np.isfinite(w) else np.inf, r.start, r.end)


def cut_rationales(rationales: RationaleMap, m: int) -> RationaleMap:
    """The top-``m`` rationales of every pair by weight (descending; ties and missing weights:
    earlier ``start`` first, missing or non-finite weights last), most important first.

    This is how rationales from another explainer (a file) are cut to the ``m`` of the protocol.
    """
    if m < 0:
        raise ValidationError(f"m must be >= 0, got {m}")
    return {k: tuple(sorted(v, key=_weight_key)[:m]) for k, v in rationales.items()}


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
    m: int | None = None,
    ties: str = DEFAULT_TIES,
    display_queries: int = 10,
    display_docs: int = 3,
    engine: ScoringEngine | None = None,
) -> Result:
    """Occlusion rationales of the top-``k`` documents of each query of ``run``.

    ``run`` is (re-)ordered by :func:`ranklens.io.rank_run` under ``ties``. ``m`` rationales
    per document; default the paper's for the explainer's granularity (:data:`PAPER_M`: 1 for
    sentences and lines, 6 for word windows).

    Returns:
        :class:`~ranklens.results.Result` of kind ``"explain-rationales"``: one table row per
        rationale (``query_id, doc_id, rank, score, rationale_rank, unit, start, end, weight,
        text``), a ``units`` table with every unit's weight and a ``documents`` table with the
        texts of the top ``display_docs`` documents of the first ``display_queries`` queries
        (for :func:`ranklens.explain.display.result_html`), and ``unit_diagnostics``
        (:func:`unit_diagnostics`, with its warnings).
    """
    _check_ties(ties)
    _check_display(display_queries, display_docs)
    explainer = explainer or OcclusionExplainer()
    m = _ms_for(PAPER_M, str(explainer.granularity)) if m is None else int(m)
    qmap = _queries_map(queries)
    top = _top(run, k, ties)
    exps = _explain_top(ranker, top, qmap, docs, explainer, engine)
    rats = top_rationales(exps, m)
    table = _rationale_rows(top, rats, {})
    units = pd.DataFrame(
        [{"query_id": q, "doc_id": d, "unit": u.index, "start": u.start, "end": u.end,
          "weight": e.weights[u.index], "mode": e.mode, "guarded": e.guarded}
         for (q, d), e in exps.items() for u in e.units],
        columns=["query_id", "doc_id", "unit", "start", "end", "weight", "mode", "guarded"],
    )
    documents = _document_rows(top, qmap, docs, {}, display_queries, display_docs)
    diag, warns = unit_diagnostics(pd.DataFrame(_unit_rows("ranker", explainer.granularity, m, exps),
                                                columns=_UNIT_COLUMNS))
    prov = make_provenance(
        params={"k": k, "m": m, "explainer": repr(explainer), "ties": ties, "ties_rule": _TIES_RULE[ties],
                "aggregate": explainer.aggregate, "display_queries": display_queries, "display_docs": display_docs,
                "normalize": explainer.normalize, "guarded_explanations": int(sum(e.guarded for e in exps.values()))},
        components={"ranker": getattr(ranker, "fingerprint", repr(ranker))},
        inputs={"run": sha256_json(top[["query_id", "doc_id"]].values.tolist())},
        seed=explainer.seed,
    )
    summary = {"queries": int(top["query_id"].nunique()), "documents": len(exps), "m": m, "k": k,
               "granularity": explainer.granularity}
    return Result(kind="explain-rationales", summary=summary, table=table, provenance=prov,
                  tables={"units": units, "documents": documents, "unit_diagnostics": diag}, warnings=tuple(warns))


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
    ties: str = DEFAULT_TIES,
    pseudo_order: str = "weight",
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
        ties: tie rule of :func:`ranklens.io.rank_run` for the original order; under
            ``"trec_eval"`` Kendall/Spearman also compare the original scores as float32, so
            documents the rule ties are ties of τ-b.
        pseudo_order: rationale order in the pseudo-document (:func:`pseudo_document`).
        engine: scoring engine.

    Returns:
        ``set, query_id, k, n_docs, mrc`` (``mrc`` is nan for queries with fewer than two docs).
    """
    if method not in CORRELATIONS:
        raise ValidationError(f"method must be one of {CORRELATIONS}, got {method!r}")
    _check_ties(ties)
    qmap = _queries_map(queries)
    sets = rationales if _is_nested(rationales) else {None: rationales}
    ranked = _order(top, ties)
    kmax = max(ks)
    ranked = ranked[ranked["rank"] <= kmax]
    qs, ts, keys = [], [], []
    for label, rats in sets.items():
        for q, d in zip(ranked["query_id"], ranked["doc_id"]):
            qs.append(qmap[q])
            ts.append(pseudo_document(rats.get((q, d), ()), pseudo_order))
            keys.append((label, q, d))
    pseudo = score_pairs(ranker, qs, ts, engine=engine, desc="rationale-only documents")
    pmap = dict(zip(keys, pseudo))
    rows = []
    for label in sets:
        for q, g in ranked.groupby("query_id", sort=True):
            orig = _tie_scores(g["score"].to_numpy(), ties)
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
    k: int | Sequence[int] = 10,
    missing: str = "zero",
    ties: str = DEFAULT_TIES,
    engine: ScoringEngine | None = None,
) -> pd.DataFrame:
    """Per-query MER@k (eq. 3): per top-k document, the sum over its rationales of the max
    cosine to a relevant unit divided by ``m`` (the rationale count the set was cut to; a
    document with fewer units than ``m`` gets 0 for the missing terms), averaged over the k
    documents.

    Args:
        top: ranked run (``query_id, doc_id, score``).
        docs: ``doc_id -> text`` (to resolve sentence-index units).
        rationales: as in :func:`mrc_per_query`.
        subdoc: sub-document relevance from :func:`ranklens.explain.read_subdoc_qrels`.
        embedder: any :class:`ranklens.embedders.Embedder` (cosine of its vectors is ω).
        k: cut-off, or several (one row per cut-off; the units are encoded once for all).
        missing: top-k documents without relevant units or without rationales:
            ``"skip"`` leaves them out of the mean (``n_docs`` counts the others and
            queries with none are left out); ``"zero"`` (default) scores them 0 (eq. 3, with the
            max over an empty set taken as 0), so every top-k document is in the mean and every
            query with a ranked document gets a value; a query that ranks fewer than ``k``
            documents is divided by ``k`` too (eq. 3's 1/(mk): the ranks it does not fill count
            0; ``n_docs`` is then ``k``).
        ties: tie rule of :func:`ranklens.io.rank_run` (which documents are the top-k).
        engine: encoding engine.

    Returns:
        ``set, query_id, k, n_docs, mer`` (``n_docs``: documents in the mean).
    """
    if missing not in MER_MISSING:
        raise ValidationError(f"MER missing-unit policy must be one of {MER_MISSING}, got {missing!r}")
    _check_ties(ties)
    sets = rationales if _is_nested(rationales) else {None: rationales}
    ks = _mer_ks(k)
    ranked = _order(top, ties)
    ranked = ranked[ranked["rank"] <= max(ks)]
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
            scored = []  # (rank, value or None: no relevant unit or no rationale)
            for d, rank in zip(g["doc_id"], g["rank"]):
                rel = rel_cache[(q, d)]
                rs = rats.get((q, d), ())
                if not rel or not rs:
                    scored.append((rank, None))
                    continue
                sims = max_similarity(vecs[[texts[r.text] for r in rs]], vecs[[texts[t] for t in rel]])
                # eq. 3 divides each document's sum by m (fewer units than m: missing terms are 0)
                m_eq3 = label if missing == "zero" and isinstance(label, int) else len(rs)
                scored.append((rank, float(sims.sum() / max(m_eq3, len(rs)))))
            for kk in ks:
                per_doc = [0.0 if v is None else v for r, v in scored
                           if r <= kk and (v is not None or missing == "zero")]
                if missing == "zero":  # eq. 3 divides by k: ranks the list does not fill count 0
                    per_doc.extend([0.0] * (kk - len(per_doc)))
                if per_doc:
                    rows.append({"set": label, "query_id": q, "k": int(kk), "n_docs": len(per_doc),
                                 "mer": float(np.mean(per_doc))})
    return pd.DataFrame(rows, columns=["set", "query_id", "k", "n_docs", "mer"])


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


def _correlations(table: pd.DataFrame, measures: Sequence[str], against: str = "ndcg@10") -> pd.DataFrame:
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


# ---------------------------------------------------------------------------- drivers
def _default_embedder() -> Any:
    from ..embedders import make_embedder  # contract: built by the models helper

    return make_embedder("minilm")


def _check_display(display_queries: int, display_docs: int) -> None:
    for name, v in (("display_queries", display_queries), ("display_docs", display_docs)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValidationError(f"{name} must be an integer >= 0 (0 stores no document texts), got {v!r}")


def _prepare(rankers, queries, docs, candidates, runs, engine, ties):
    qmap = _queries_map(queries)
    if not rankers:
        raise ValidationError("give at least one ranker, e.g. {'bm25': BM25Ranker().fit(texts)}")
    out = {}
    for name, ranker in rankers.items():
        if runs is not None and name in runs:
            run = _order(runs[name], ties)
        else:
            run = rank_candidates(ranker, qmap, docs, candidates, ties=ties, engine=engine)
        out[name] = run
    return qmap, out


_DOC_COLUMNS = ["model", "granularity", "query_id", "query", "doc_id", "rank", "score", "text"]


def _document_rows(
    top: pd.DataFrame, qmap: Mapping[str, str], docs: Mapping[str, str], label: dict[str, Any],
    display_queries: int, display_docs: int,
) -> pd.DataFrame:
    """Texts of the top ``display_docs`` documents of the first ``display_queries`` queries (in
    the order the queries were given), so a saved result can show its rationales in context."""
    cols = [*label, *_DOC_COLUMNS[2:]]
    if display_queries == 0 or display_docs == 0 or top.empty:
        return pd.DataFrame(columns=cols)
    present = set(top["query_id"])
    chosen = [q for q in qmap if q in present][:display_queries]
    sel = top[top["query_id"].isin(set(chosen)) & (top["rank"] <= display_docs)]
    order = {q: i for i, q in enumerate(chosen)}
    sel = sel.assign(_o=sel["query_id"].map(order)).sort_values(["_o", "rank"], kind="mergesort")
    rows = [{**label, "query_id": q, "query": qmap[q], "doc_id": d, "rank": int(r), "score": float(sc),
             "text": docs[d]}
            for q, d, r, sc in zip(sel["query_id"], sel["doc_id"], sel["rank"], sel["score"])]
    return pd.DataFrame(rows, columns=cols)


def _ms_for(m: int | Mapping[str, int], granularity: str) -> int:
    if isinstance(m, Mapping):
        kind = "window" if granularity.startswith("window") else "sentence"
        return int(m.get(granularity, m.get(kind, m.get("sentence", 1))))
    return int(m)


def _explainer_ranker(name: str, ranker: Any, explainer: OcclusionExplainer, warnings: list[str]) -> Any:
    """The ranker whose scores the occlusion explains: in document mode the base of a
    ``maxp:SPEC:N`` ranker (chunk scores), so θ = the ranking score; any other ranker is
    explained as given, with a warning (its ranking score is not the explained max over chunks)."""
    if explainer.long_document is None:
        return ranker
    from ..rankers.passages import is_maxp

    if is_maxp(ranker, explainer.chunk_sentences):
        return ranker.base
    warnings.append(f"model {name}: long_document explains the max over {explainer.chunk_sentences}-sentence "
                    f"chunks, but the model ranks by another score; use maxp:SPEC:{explainer.chunk_sentences} "
                    "so that ranking and explanation use the same score")
    return ranker


def _unit_rows(name: str, gname: str, m: int, exps: Mapping[tuple[str, str], Explanation]) -> list[dict]:
    return [{"model": name, "granularity": gname, "query_id": q, "doc_id": d, "units": len(e.units),
             "masked_sets": e.masked_sets, "exhaustive": e.exhaustive, "mode": e.mode, "guarded": e.guarded,
             "whole_document": len(e.units) <= m}
            for (q, d), e in exps.items()]


def _granularity_sets(name, ranker, top, qmap, docs, ms, granularities, explainer, rationales, engine, acc):
    """``[(granularity, {m: rationale map})]`` for one model: occlusion per granularity, or the
    user's rationales cut to the top m."""
    from dataclasses import replace

    if rationales is not None and name in rationales:
        user = [_ms_for(m, "sentence") for m in ms]  # user rationales: m as for sentences
        return [("user", {m: cut_rationales(rationales[name], m) for m in user})]
    out = []
    scorer = _explainer_ranker(name, ranker, explainer, acc["warnings"])
    for gspec in granularities:
        gm = [_ms_for(m, str(gspec)) for m in ms]
        ex = replace(explainer, granularity=str(gspec), greedy_steps=max(max(gm), 1))
        exps = _explain_top(scorer, top, qmap, docs, ex, engine)
        long_docs = sum(e.mode == "document" for e in exps.values())
        if long_docs and not str(gspec).startswith(("sentence", "line")):
            acc["warnings"].append(
                f"{name}: {long_docs} of {len(exps)} documents are longer than long_document="
                f"{explainer.long_document} sentences and were explained by sentence (the paper's document "
                f"mode: rationales no finer than sentences), not by {gspec}; their {max(gm)} rationale(s) are "
                f"whole sentences in the {gspec} rows")
        acc["guarded"] += int(sum(e.guarded for e in exps.values()))
        acc["occluded_documents"] += len(exps)
        acc["units"].extend(_unit_rows(name, str(gspec), max(gm), exps))
        out.append((str(gspec), {m_: top_rationales(exps, m_) for m_ in gm}))
    return out


def _query_rows(name, gname, sets, top, mrc, mer, ks, ndcg, qmap) -> list[dict]:
    rows = []
    for m in sets:
        sub = mrc[mrc["set"] == m]
        wide = sub.pivot(index="query_id", columns="k", values="mrc")
        for q in sorted(set(top["query_id"])):
            row = {"model": name, "granularity": gname, "m": int(m), "query_id": q, "query": qmap.get(q, "")}
            for k in ks:
                row[f"mrc@{k}"] = float(wide.loc[q, k]) if q in wide.index else np.nan
            for mk, per_q in (mer or {}).items():
                hit = per_q[(per_q["set"] == m) & (per_q["query_id"] == q)]
                row[f"mer@{mk}"] = float(hit["mer"].iloc[0]) if len(hit) else np.nan
            row["ndcg@10"] = ndcg.get(q, np.nan) if ndcg else np.nan
            rows.append(row)
    return rows


def _mer_ks(mer_k: int | Sequence[int]) -> tuple[int, ...]:
    """MER cut-offs as a tuple (one int or several); each must be >= 1."""
    ks = (int(mer_k),) if isinstance(mer_k, (int, np.integer)) else tuple(dict.fromkeys(int(k) for k in mer_k))
    if not ks or min(ks) < 1:
        raise ValidationError(f"mer_k: give MER cut-offs >= 1, got {mer_k!r}")
    return ks


def _short_list_warnings(name: str, top: pd.DataFrame, mer_ks: Sequence[int], missing: str) -> list[str]:
    """Queries whose ranked list is shorter than a MER cut-off (eq. 3 divides by k)."""
    sizes = top.groupby("query_id").size()
    out = []
    for k in mer_ks:
        short = int((sizes < k).sum())
        if short:
            how = ("the missing ranks count 0 (eq. 3 divides by m*k)" if missing == "zero"
                   else "their MER is a mean over the documents they have")
            out.append(f"{name}: {short} of {len(sizes)} queries rank fewer than {k} documents; in MER@{k} {how}")
    return out


def _run_grid(
    rankers: Mapping[str, Any], qmap, docs, runs, qrels, subdoc, *, granularities, ms, ks, mer_k, method, p,
    explainer: OcclusionExplainer, rationales, embedder, engine, ties, mer_missing,
    display_queries: int = 0, display_docs: int = 0, pseudo_order: str = "weight",
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """Per (model, granularity, m, query) rows of MRC@k, MER@k and nDCG@10, the rationale table,
    the (capped) document-text table and ``extra`` (counts, unit rows, warnings)."""
    # explain only as deep as a measure looks: max MRC cut-off, and the MER cut-offs when MER is on
    mer_ks = _mer_ks(mer_k)
    kmax = max(max(ks), max(mer_ks) if subdoc is not None and embedder is not None else 0)
    rows: list[dict] = []
    rat_tables = []
    doc_tables = []
    extra: dict[str, Any] = {"guarded": 0, "occluded_documents": 0, "units": [], "warnings": []}
    for name, ranker in rankers.items():
        run = runs[name]
        top = run[run["rank"] <= kmax]
        ndcg = _ndcg10(run, qrels)
        if subdoc is not None and embedder is not None:
            extra["warnings"].extend(_short_list_warnings(name, top, mer_ks, mer_missing))
        grans = _granularity_sets(name, ranker, top, qmap, docs, ms, granularities, explainer, rationales,
                                  engine, extra)
        for gname, sets in grans:
            mrc = mrc_per_query(ranker, top, qmap, sets, ks=ks, method=method, p=p, ties=ties,
                                pseudo_order=pseudo_order, engine=engine)
            mer = None
            if subdoc is not None and embedder is not None:
                both = mer_per_query(top, docs, sets, subdoc, embedder=embedder, k=mer_ks, missing=mer_missing,
                                     ties=ties, engine=engine)
                mer = {k: both[both["k"] == k] for k in mer_ks}
            label = {"model": name, "granularity": gname}
            rat_tables.append(_rationale_rows(top, sets[max(sets)], label))
            doc_tables.append(_document_rows(top, qmap, docs, label, display_queries, display_docs))
            rows.extend(_query_rows(name, gname, sets, top, mrc, mer, ks, ndcg, qmap))
    table = pd.DataFrame(rows)
    rats = pd.concat(rat_tables, ignore_index=True) if rat_tables else pd.DataFrame()
    docs_t = pd.concat(doc_tables, ignore_index=True) if doc_tables else pd.DataFrame(columns=_DOC_COLUMNS)
    return table, rats, docs_t, extra


WHOLE_DOCUMENT_WARN = 0.2
"""Share of explained documents whose rationale is the whole document above which a result warns."""

_UNIT_COLUMNS = ["model", "granularity", "query_id", "doc_id", "units", "masked_sets", "exhaustive", "mode",
                 "guarded", "whole_document"]


def unit_diagnostics(units: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Per (model, granularity): units per explained document (min/median/max), the share of
    documents whose rationale is the whole document (m >= units: MRC is then trivially 1 for
    them), masked sets per document (min/median/max) and the share explained by sampled rather
    than all combinations; plus the warnings (whole-document share above 20%, sampled sets)."""
    cols = ["model", "granularity", "documents", "units_min", "units_median", "units_max", "whole_document_share",
            "masked_sets_min", "masked_sets_median", "masked_sets_max", "sampled_share"]
    if units.empty:
        return pd.DataFrame(columns=cols), []
    rows, warnings = [], []
    for (mdl, gr), g in units.groupby(["model", "granularity"], sort=False):
        share = float(g["whole_document"].mean())
        sampled = float((~g["exhaustive"].astype(bool)).mean())
        rows.append({"model": mdl, "granularity": gr, "documents": len(g), "units_min": int(g["units"].min()),
                     "units_median": float(g["units"].median()), "units_max": int(g["units"].max()),
                     "whole_document_share": share, "masked_sets_min": int(g["masked_sets"].min()),
                     "masked_sets_median": float(g["masked_sets"].median()),
                     "masked_sets_max": int(g["masked_sets"].max()), "sampled_share": sampled})
        if share > WHOLE_DOCUMENT_WARN:
            warnings.append(f"{mdl}/{gr}: {share:.0%} of the explained documents have no more units than m, so "
                            "their rationale is the whole document (MRC is 1 for them); median "
                            f"{float(g['units'].median()):g} units per document")
        if sampled > 0:
            warnings.append(f"{mdl}/{gr}: {sampled:.0%} of the documents had more unit combinations than the "
                            "samples budget: their masked sets were sampled (see the units table)")
    return pd.DataFrame(rows, columns=cols), warnings


def ci_table(table: pd.DataFrame, measures: Sequence[str], *, confidence: float = 0.95, n_resamples: int = 2000,
             seed: int = 0) -> pd.DataFrame:
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


def paired_tests(table: pd.DataFrame, measures: Sequence[str], *, test: str = "randomization",
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


def _statistics(table: pd.DataFrame, measures: Sequence[str], extra: dict[str, Any], stats: Mapping[str, Any],
                ) -> tuple[dict[str, pd.DataFrame], list[str]]:
    units = pd.DataFrame(extra.pop("units"), columns=_UNIT_COLUMNS)
    diag, warns = unit_diagnostics(units)
    warns = [*extra.pop("warnings"), *warns]
    if int(extra.get("guarded", 0)):
        warns.append(f"{extra['guarded']} explanation(s) had |score| below eps: the weights of those documents "
                     "were divided by eps (their rationales are unaffected)")
    scored = [c for c in measures if c != "ndcg@10"]
    tables = {"units": units, "unit_diagnostics": diag,
              "ci": ci_table(table, measures, confidence=stats.get("confidence", 0.95),
                             n_resamples=stats.get("ci_resamples", 2000), seed=stats.get("seed", 0)),
              "comparisons": paired_tests(table, scored, test=stats.get("test", "randomization"),
                                          n_resamples=stats.get("test_resamples", 10_000), seed=stats.get("seed", 0))}
    return tables, warns


_MER_DOCUMENTS = {
    "skip": "top-k documents with >= 1 relevant unit and >= 1 rationale; queries without any left out",
    "zero": "every top-k document; documents without relevant units or rationales count 0",
}


def _provenance(rankers, embedder, explainer, params, qmap, docs, extra, *, ties, mer_missing, granularities=(),
                pseudo_order="weight"):
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
        "ties": ties,
        "ties_rule": _TIES_RULE[ties],
        "pseudo_document": f"top-m rationale texts in {pseudo_order} order joined by one space",
        "user_rationales": "top-m by weight (desc; ties: earlier start first)",
        "constant_pseudo_scores": "mrc = 0 (no order reproduced)",
        "mrc_undefined": "queries with < 2 documents are nan and left out of the mean",
        "mer_missing": mer_missing,
        "mer_documents": _MER_DOCUMENTS[mer_missing],
        "sentence_segmenter": _segmenter(granularities, explainer),
        "masked_sets": ("every combination of 1..n units" if explainer.samples == 0 else
                        f"every combination of 1..n units when at most {explainer.samples}, else every singleton "
                        "+ max(samples - units, units) random sets of 2..n units"),
        **extra,
    }
    inputs = {"queries": sha256_json(sorted(qmap.items())), "docs": sha256_texts(docs[d] for d in sorted(docs))}
    return make_provenance(params=params, components=comps, inputs=inputs, seed=explainer.seed)


def _segmenter(granularities: Sequence[str], explainer: OcclusionExplainer) -> str | None:
    from ..text import segmenter_name

    sentences = any(str(g).startswith("sent") for g in granularities) or explainer.long_document is not None
    return segmenter_name() if sentences else None


def _summary_table(table: pd.DataFrame, measures: Sequence[str]) -> pd.DataFrame:
    cols = [c for c in measures if c in table.columns]
    agg = table.groupby(["model", "granularity", "m"], sort=False)[cols].mean().reset_index()
    agg["queries"] = table.groupby(["model", "granularity", "m"], sort=False).size().to_numpy()
    return agg


def _check_common(ties: str, mer_missing: str) -> None:
    _check_ties(ties)
    if mer_missing not in MER_MISSING:
        raise ValidationError(f"mer_missing must be one of {MER_MISSING}, got {mer_missing!r}")


def explanation_consistency(
    rankers: Mapping[str, Any],
    queries: pd.DataFrame | Mapping[str, str],
    docs: Mapping[str, str],
    *,
    qrels: pd.DataFrame | None = None,
    candidates: pd.DataFrame | None = None,
    runs: Mapping[str, pd.DataFrame] | None = None,
    granularities: Sequence[str] = ("sentence", "window:5"),
    m: int | Mapping[str, int] = PAPER_M,
    ks: Sequence[int] = (10, 50),
    mer_k: int | Sequence[int] = (10, 50), method: str = "kendall", p: float = 0.9,
    explainer: OcclusionExplainer | None = None,
    rationales: Mapping[str, RationaleMap] | None = None,
    subdoc: pd.DataFrame | None = None,
    embedder: Any = None,
    mer_missing: str = "zero", ties: str = DEFAULT_TIES, pseudo_order: str = "weight",
    display_queries: int = 10, display_docs: int = 3,
    stats: Mapping[str, Any] | None = None,
    engine: ScoringEngine | None = None,
) -> Result:
    """MRC@k (and MER@k when sub-document relevance is given) of several rankers.

    Args:
        rankers: ``{name: ranker}``.
        queries: query texts.
        docs: ``doc_id -> text``.
        qrels: document qrels for nDCG@10; candidates: ``query_id, doc_id`` to re-rank (default:
            all documents); runs: precomputed runs per ranker name (re-ordered under ``ties``).
        granularities: occlusion units, ``"sentence"`` and/or ``"window:W"``.
        m: rationales per document, or ``{granularity or "sentence"/"window": m}``; default the
            paper's Table 1: 1 for sentence (and line) units, 6 for word windows.
        ks, mer_k: MRC and MER cut-offs (the paper's Table 2: 10 and 50 for both).
        method: ``"kendall"`` (default) | ``"spearman"`` | ``"rbo"`` (persistence ``p``).
        explainer: occlusion settings (its granularity is replaced per entry of
            ``granularities``); default :class:`OcclusionExplainer()`.
        rationales: ``{ranker name: {(query_id, doc_id): rationales}}`` from another explainer
            (:func:`read_rationales`), instead of occlusion (granularity ``"user"``), cut to the
            top ``m`` by weight (:func:`cut_rationales`).
        subdoc: sub-document relevance (:func:`read_subdoc_qrels`); enables MER.
        embedder: ω's embedder for MER (default MiniLM).
        mer_missing: top-k documents without relevant units (or rationales) in MER:
            ``"zero"`` (default, eq. 3) or ``"skip"``; see :func:`mer_per_query`.
        ties: tie rule of :func:`ranklens.io.rank_run` ordering every run.
        pseudo_order: rationale order in the pseudo-documents (:func:`pseudo_document`).
        display_queries, display_docs: the texts of the top ``display_docs`` documents of the
            first ``display_queries`` queries are stored (table ``documents``) for
            :func:`ranklens.explain.display.result_html`; 0 stores none.
        stats: ``confidence``, ``ci_resamples``, ``test`` (``"randomization"`` | ``"ttest"``),
            ``test_resamples``, ``seed`` of the bootstrap CIs and paired tests.
        engine: scoring engine.

    Returns:
        Result ``"explain-consistency"``: ``table`` per (model, granularity, m, query; with the query text) with
        ``mrc@k``, ``mer@k``, ``ndcg@10``; tables ``summary``, ``ci``, ``comparisons`` (paired
        tests), ``units`` and ``unit_diagnostics``, ``correlations`` (vs nDCG@10),
        ``rationales`` (top-m spans and weights) and ``documents`` (the display set's texts).
    """
    _check_common(ties, mer_missing)
    _check_display(display_queries, display_docs)
    explainer = explainer or OcclusionExplainer()
    if subdoc is not None and embedder is None:
        embedder = _default_embedder()
    qmap, runs_ = _prepare(rankers, queries, docs, candidates, runs, engine, ties)
    table, rats, docs_t, extra = _run_grid(
        rankers, qmap, docs, runs_, qrels, subdoc, granularities=granularities, ms=[m], ks=ks, mer_k=mer_k,
        method=method, p=p, explainer=explainer, rationales=rationales, embedder=embedder, engine=engine,
        ties=ties, mer_missing=mer_missing, display_queries=display_queries, display_docs=display_docs,
        pseudo_order=pseudo_order,
    )
    measures = [f"mrc@{k}" for k in ks] + ([f"mer@{k}" for k in _mer_ks(mer_k)] if subdoc is not None else []) + [
        "ndcg@10"]
    found = {"units": extra.pop("units"), "warnings": extra.pop("warnings"), "guarded": extra.get("guarded", 0)}
    prov = _provenance(rankers, embedder, explainer, {
        "granularities": [str(g) for g in granularities], "m": _m_param(m), "ks": list(ks), "mer_k": list(_mer_ks(mer_k)),
        "method": method, "rbo_p": p, "candidates": "given" if candidates is not None else "all documents",
        "display_queries": display_queries, "display_docs": display_docs, "stats": dict(stats or {}),
    }, qmap, docs, extra, ties=ties, mer_missing=mer_missing, granularities=granularities, pseudo_order=pseudo_order)
    return _consistency_result(table, measures, found, prov, {"rationales": rats, "documents": docs_t},
                               {"seed": explainer.seed, **dict(stats or {})})


def _consistency_result(table: pd.DataFrame, measures: list[str], extra: dict[str, Any], prov: Any,
                        tables: dict[str, Any], stats: Mapping[str, Any]) -> Result:
    """The explain-consistency Result: summary means, correlations, CIs, paired tests, unit
    diagnostics and their warnings."""
    summ = _summary_table(table, measures)
    corr = _correlations(table, [c for c in measures if c != "ndcg@10"])
    more, warns = _statistics(table, measures, extra, stats)
    summary: dict[str, Any] = {}
    for _, r in summ.iterrows():
        for c in measures:
            if c in summ.columns:
                summary[f"{r['model']}/{r['granularity']}/{c}"] = None if pd.isna(r[c]) else round(float(r[c]), 6)
    for _, r in more["unit_diagnostics"].iterrows():
        summary[f"{r['model']}/{r['granularity']}/whole_document_share"] = round(float(r["whole_document_share"]), 4)
    return Result(kind="explain-consistency", summary=summary, table=table, provenance=prov,
                  tables={**tables, "summary": summ, "correlations": corr, **more}, warnings=tuple(warns))


def _m_param(m: int | Mapping[str, int]) -> Any:
    return dict(m) if isinstance(m, Mapping) else int(m)


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
    mer_k: int | Sequence[int] = 10,
    method: str = "kendall",
    p: float = 0.9,
    explainer: OcclusionExplainer | None = None,
    rationales: Mapping[str, RationaleMap] | None = None,
    subdoc: pd.DataFrame | None = None,
    embedder: Any = None,
    mer_missing: str = "zero",
    ties: str = DEFAULT_TIES,
    pseudo_order: str = "weight",
    engine: ScoringEngine | None = None,
) -> Result:
    """MRC/MER as functions of ``m`` (rationales per document) and ``w`` (window width).

    Explanations are computed once per (ranker, granularity); every ``m`` takes a prefix of the
    same ordering, so a sweep over ``m`` costs only the extra pseudo-documents. ``windows`` adds
    ``"window:W"`` granularities to ``granularities`` (duplicates are dropped). ``rationales``
    from another explainer replace occlusion for their rankers (granularity ``"user"``, cut to
    the top ``m`` by weight for every ``m``). ``mer_missing`` and ``ties`` as in
    :func:`explanation_consistency`.

    Returns:
        Result of kind ``"explain-sweep"``: ``table`` per (ranker, granularity, m) with mean
        ``mrc@k`` / ``mer@k`` and query counts; table ``per_query`` with the per-query values and
        ``unit_diagnostics`` per ``m`` (:func:`unit_diagnostics`; warnings name the ``m``).
    """
    from .units import parse_granularity

    _check_common(ties, mer_missing)
    if not ms or any(int(x) < 1 for x in ms):
        raise ValidationError(f"ms must be a non-empty list of integers >= 1, got {list(ms)!r}")
    if any(int(w) < 1 for w in windows):
        raise ValidationError(f"window widths must be >= 1 words, got {list(windows)!r}")
    explainer = explainer or OcclusionExplainer()
    if subdoc is not None and embedder is None:
        embedder = _default_embedder()
    grans: list[str] = []
    for g in [*granularities, *(f"window:{int(w)}" for w in windows)]:
        name = str(parse_granularity(g))
        if name not in grans:
            grans.append(name)
    qmap, runs_ = _prepare(rankers, queries, docs, candidates, runs, engine, ties)
    table, _rats, _docs, extra = _run_grid(
        rankers, qmap, docs, runs_, qrels, subdoc, granularities=grans, ms=sorted({int(x) for x in ms}), ks=ks,
        mer_k=mer_k, method=method, p=p, explainer=explainer, rationales=rationales, embedder=embedder,
        engine=engine, ties=ties, mer_missing=mer_missing, pseudo_order=pseudo_order,
    )
    measures = [f"mrc@{k}" for k in ks] + ([f"mer@{k}" for k in _mer_ks(mer_k)] if subdoc is not None else []) + [
        "ndcg@10"]
    summ = _summary_table(table, measures)
    diag, dwarns = _sweep_diagnostics(pd.DataFrame(extra.pop("units"), columns=_UNIT_COLUMNS), ms)
    warns = [*extra.pop("warnings"), *dwarns]
    summary = {
        f"{r['model']}/{r['granularity']}/m={int(r['m'])}/{c}": None if pd.isna(r[c]) else round(float(r[c]), 6)
        for _, r in summ.iterrows() for c in measures if c != "ndcg@10"
    }
    prov = _provenance(rankers, embedder, explainer, {
        "granularities": grans, "ms": sorted({int(x) for x in ms}), "windows": [int(w) for w in windows],
        "ks": list(ks), "mer_k": list(_mer_ks(mer_k)), "method": method, "rbo_p": p,
        "candidates": "given" if candidates is not None else "all documents",
    }, qmap, docs, extra, ties=ties, mer_missing=mer_missing, granularities=grans,
       pseudo_order=pseudo_order)
    return Result(kind="explain-sweep", summary=summary, table=summ, provenance=prov,
                  tables={"per_query": table, "unit_diagnostics": diag}, warnings=tuple(dict.fromkeys(warns)))


def _sweep_diagnostics(units: pd.DataFrame, ms: Sequence[int]) -> tuple[pd.DataFrame, list[str]]:
    """:func:`unit_diagnostics` for every ``m`` of a sweep (column ``m``): the whole-document
    share depends on ``m``; its warnings name the ``m``."""
    tables, warns = [], []
    for m_ in sorted({int(x) for x in ms}):
        d, w = unit_diagnostics(units.assign(whole_document=units["units"] <= m_))
        tables.append(d.assign(m=m_))
        warns += [f"m={m_}: {x}" if "whole document" in x else x for x in w]
    cols = ["m", *tables[0].columns.drop("m")] if tables else ["m"]
    return (pd.concat(tables, ignore_index=True)[cols] if tables else pd.DataFrame(columns=cols)), warns
