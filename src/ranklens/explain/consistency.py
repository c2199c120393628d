"""Explanation consistency of several rankers: the whole protocol of Pandian, Ganguly &
MacAvaney, "Evaluating the Explainability of Neural Rankers", as two results.

- :func:`explanation_consistency`: each ranker ranks each query's candidate documents
  (:mod:`.ranking`), the top-``max(k)`` documents are explained (occlusion, or rationales the
  user provides; :mod:`.rationales`), MRC@k and MER@k per query (:mod:`.per_query`), nDCG@10
  beside them, means, CIs, paired tests and correlations (:mod:`.query_stats`) and unit
  diagnostics (:mod:`.diagnostics`); every convention is recorded in provenance;
- :func:`explanation_sweep`: the same as functions of ``m`` (rationales per document) and the
  window width ``w``.

ω of MER is "the cosine similarity" in the paper's text, which does not say of which vectors;
ranklens takes any embedder (default MiniLM). The reference code (XAIR-evaluation-metric) uses
bag-of-words ``CountVectorizer`` vectors; ``embedder="tfidf"`` is the nearest choice here
(tf-idf weighted). Sentences come from :func:`ranklens.text.sentence_spans` (spaCy), where the
reference code uses ``nltk.sent_tokenize``.

All model calls go through :mod:`ranklens.engine`: the occluded texts of a whole run in one call,
all pseudo-documents (every query, every ``m`` of a sweep) in one call, all unit texts in one
encode call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from .._hashing import sha256_json, sha256_texts
from ..engine import ScoringEngine
from ..errors import ValidationError
from ..results import Result, make_provenance
from .declaration import Params
from .diagnostics import _UNIT_COLUMNS, _sweep_diagnostics, _unit_rows, unit_diagnostics
from .files import RationaleMap
from .occlusion import OcclusionExplainer
from .per_query import MER_MISSING, _mer_ks, mer_per_query, mrc_per_query
from .query_stats import _correlations, _ndcg10, _summary_table, ci_table, paired_tests
from .rationales import (
    PAPER_M,
    _check_display,
    _document_rows,
    _DOC_COLUMNS,
    _explain_top,
    _ms_for,
    _rationale_rows,
    cut_rationales,
    top_rationales,
)
from .ranking import _TIES_RULE, _check_ties, _order, _queries_map, rank_candidates

__all__ = ["explanation_consistency", "explanation_sweep"]

DEFAULTS = Params()


_MER_DOCUMENTS = {
    "skip": "top-k documents with >= 1 relevant unit and >= 1 rationale; queries without any left out",
    "zero": "every top-k document; documents without relevant units or rationales count 0",
}


def _check_common(ties: str, mer_missing: str) -> None:
    _check_ties(ties)
    if mer_missing not in MER_MISSING:
        raise ValidationError(f"mer_missing must be one of {MER_MISSING}, got {mer_missing!r}")


def _mer_embedder(embedder: Any, subdoc: pd.DataFrame | None, docs: Mapping[str, str]) -> Any:
    """MER's embedder: a spec string is built (``None``: MiniLM) when there is sub-document
    relevance, and dropped without it; an embedder object is used as given."""
    if embedder is not None and not isinstance(embedder, str):
        return embedder
    if subdoc is None:
        return None
    from ..specs import make_embedder, needs_corpus

    spec = embedder or "minilm"
    return make_embedder(spec, corpus=[docs[d] for d in docs] if needs_corpus(spec) else None)


def _prepare(rankers, queries, docs, pairs, runs, engine, ties):
    qmap = _queries_map(queries)
    if not rankers:
        raise ValidationError("give at least one ranker, e.g. {'bm25': BM25Ranker().fit(texts)}")
    out = {}
    for name, ranker in rankers.items():
        if runs is not None and name in runs:
            run = _order(runs[name], ties)
        else:
            run = rank_candidates(ranker, qmap, docs, pairs, ties=ties, engine=engine)
        out[name] = run
    return qmap, out


def _document_mode_warnings(name: str, ranker: Any, gspec: str, n_long: int, n_docs: int, m: int,
                            explainer: OcclusionExplainer) -> list[str]:
    """What the document mode (eq. 5) changed for one model and granularity: which documents took
    it (``auto``), whether the model ranks by the explained score (``maxp:SPEC:N``), and whole
    sentences in the rows of a word-window granularity."""
    if not n_long:
        return []
    from ..rankers.passages import is_maxp

    c = explainer.chunk_sentences
    out = []
    if explainer.long_document == "auto":
        out.append(f"{name} ({gspec}): {n_long} of {n_docs} explained documents have more than "
                   f"{explainer.long_document_sentences} sentences and were explained by the paper's document mode "
                   f"(eq. 5: greedy sentence removal, theta = max over {c}-sentence chunks; long_document=auto, "
                   "long_document_sentences sets the threshold, never keeps the passage protocol)")
    if not is_maxp(ranker, c):
        out.append(f"model {name}: the document mode explains the max over {c}-sentence chunks, but the model ranks "
                   f"by another score; use maxp:SPEC:{c} so that ranking and explanation use the same score")
    if not gspec.startswith(("sentence", "line")):
        out.append(f"{name}: {n_long} of {n_docs} documents were explained by sentence (the paper's document mode: "
                   f"rationales no finer than sentences), not by {gspec}; their {m} rationale(s) are whole sentences "
                   f"in the {gspec} rows")
    return out


def _granularity_sets(name, ranker, top, qmap, docs, ms, granularities, explainer, rationales, engine, acc):
    """``[(granularity, {m: rationale map})]`` for one model: occlusion per granularity, or the
    user's rationales cut to the top m."""
    if rationales is not None and name in rationales:
        user = [_ms_for(m, "sentence") for m in ms]  # user rationales: m as for sentences
        return [("user", {m: cut_rationales(rationales[name], m) for m in user})]
    out = []
    for gspec in granularities:
        gm = [_ms_for(m, str(gspec)) for m in ms]
        ex = replace(explainer, granularity=str(gspec), greedy_steps=max(max(gm), 1))
        exps = _explain_top(ranker, top, qmap, docs, ex, engine)
        long_docs = sum(e.mode == "document" for e in exps.values())
        acc["warnings"].extend(_document_mode_warnings(name, ranker, str(gspec), long_docs, len(exps), max(gm),
                                                       explainer))
        acc["document_mode"][f"{name}/{gspec}"] = int(long_docs)
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
                row[f"MRC@{k}"] = float(wide.loc[q, k]) if q in wide.index else np.nan
            for mk, per_q in (mer or {}).items():
                hit = per_q[(per_q["set"] == m) & (per_q["query_id"] == q)]
                row[f"MER@{mk}"] = float(hit["mer"].iloc[0]) if len(hit) else np.nan
            row["nDCG@10"] = ndcg.get(q, np.nan) if ndcg else np.nan
            rows.append(row)
    return rows


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


def _short_mrc_warnings(name: str, top: pd.DataFrame, ks: Sequence[int]) -> list[str]:
    """Queries whose ranked list is shorter than an MRC cut-off: MRC@k is then a correlation over
    fewer than k documents (e.g. a pool smaller than k), not what the label says."""
    sizes = top.groupby("query_id").size()
    out = []
    for k in ks:
        short = sizes[sizes < k]
        if len(short):
            out.append(f"{name}: {len(short)} of {len(sizes)} queries rank fewer than {k} documents (at most "
                       f"{int(short.max())}); their MRC@{k} is computed over the documents they rank, not {k} "
                       "(raise the pool or lower k)")
    return out


def _unjudged_subdoc_warning(name: str, top: pd.DataFrame, subdoc: pd.DataFrame) -> list[str]:
    """The sub-document relevance judges none of a model's explained documents: MER is 0 (or
    undefined) by construction, not by the explanations."""
    rel = subdoc[subdoc["relevant"] > 0]
    if "query_id" in rel.columns:
        hit = set(zip(rel["query_id"].astype(str), rel["doc_id"].astype(str)))
        n = sum((q, d) in hit for q, d in zip(top["query_id"].astype(str), top["doc_id"].astype(str)))
    else:
        n = int(top["doc_id"].astype(str).isin(set(rel["doc_id"].astype(str))).sum())
    if n:
        return []
    return [f"{name}: the sub-document relevance marks no relevant unit in any of the {len(top)} explained "
            "documents; its MER is 0 (or left out with mer_missing=skip) by construction: check that the subdoc "
            "file's doc_id (and query_id) match the collection's"]


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
    extra: dict[str, Any] = {"guarded": 0, "occluded_documents": 0, "document_mode": {}, "units": [],
                             "warnings": []}
    for name, ranker in rankers.items():
        run = runs[name]
        top = run[run["rank"] <= kmax]
        ndcg = _ndcg10(run, qrels)
        extra["warnings"].extend(_short_mrc_warnings(name, top, ks))
        if subdoc is not None and embedder is not None:
            extra["warnings"].extend(_short_list_warnings(name, top, mer_ks, mer_missing))
            extra["warnings"].extend(_unjudged_subdoc_warning(name, top, subdoc))
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


def _statistics(table: pd.DataFrame, measures: Sequence[str], extra: dict[str, Any], stats: Mapping[str, Any],
                ) -> tuple[dict[str, pd.DataFrame], list[str]]:
    units = pd.DataFrame(extra.pop("units"), columns=_UNIT_COLUMNS)
    diag, warns = unit_diagnostics(units)
    warns = [*extra.pop("warnings"), *warns]
    if int(extra.get("guarded", 0)):
        warns.append(f"{extra['guarded']} explanation(s) had |score| below eps: the weights of those documents "
                     "were divided by eps (their rationales are unaffected)")
    scored = [c for c in measures if c != "nDCG@10"]
    tables = {"units": units, "unit_diagnostics": diag,
              "ci": ci_table(table, measures, confidence=stats.get("confidence", 0.95),
                             n_resamples=stats.get("ci_resamples", 2000), seed=stats.get("seed", 0)),
              "comparisons": paired_tests(table, scored, test=stats.get("test", "randomization"),
                                          n_resamples=stats.get("test_resamples", 10_000), seed=stats.get("seed", 0))}
    return tables, warns


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
        "long_document": explainer.long_document,
        "long_document_rule": {
            "never": "every document by the passage protocol (eq. 4)",
            "auto": f"documents with more than {explainer.long_document_sentences} sentences by the document mode "
                    f"(eq. 5, greedy, theta = max over {explainer.chunk_sentences}-sentence chunks), the others by eq. 4",
            "always": f"every document by the document mode (eq. 5, greedy, theta = max over "
                      f"{explainer.chunk_sentences}-sentence chunks)"}[explainer.long_document],
        "mrc_short_lists": "a query ranking fewer than k documents: MRC@k over the documents it ranks (warned)",
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

    sentences = any(str(g).startswith("sent") for g in granularities) or explainer.long_document != "never"
    return segmenter_name() if sentences else None


def explanation_consistency(
    rankers: Mapping[str, Any],
    queries: pd.DataFrame | Mapping[str, str],
    docs: Mapping[str, str],
    *,
    qrels: pd.DataFrame | None = None,
    pairs: pd.DataFrame | None = None,
    runs: Mapping[str, pd.DataFrame] | None = None,
    granularities: Sequence[str] = DEFAULTS.granularities,
    m: int | Mapping[str, int] | None = DEFAULTS.m,
    ks: Sequence[int] = DEFAULTS.k,
    mer_k: int | Sequence[int] = DEFAULTS.mer_k, method: str = DEFAULTS.method, p: float = DEFAULTS.rbo_p,
    explainer: OcclusionExplainer | None = None,
    rationales: Mapping[str, RationaleMap] | None = None,
    subdoc: pd.DataFrame | None = None,
    embedder: Any = DEFAULTS.embedder,
    mer_missing: str = DEFAULTS.mer_missing, ties: str = DEFAULTS.ties, pseudo_order: str = DEFAULTS.pseudo_order,
    display_queries: int = DEFAULTS.display_queries, display_docs: int = DEFAULTS.display_docs,
    stats: Mapping[str, Any] | None = None,
    engine: ScoringEngine | None = None,
) -> Result:
    """MRC@k (and MER@k when sub-document relevance is given) of several rankers.

    Args:
        rankers: ``{name: ranker}``.
        queries: query texts.
        docs: ``doc_id -> text``.
        qrels: document qrels for nDCG@10; pairs: the candidates, ``query_id, doc_id`` to
            re-rank (default: all documents); runs: precomputed runs per ranker name (re-ordered
            under ``ties``).
        granularities: occlusion units, ``"sentence"`` and/or ``"window:W"``.
        m: rationales per document, or ``{granularity or "sentence"/"window": m}``; default
            (``None``) the paper's Table 1 (:data:`PAPER_M`): 1 for sentence (and line) units, 6
            for word windows.
        ks, mer_k: MRC and MER cut-offs (the paper's Table 2: 10 and 50 for both).
        method: ``"kendall"`` (default) | ``"spearman"`` | ``"rbo"`` (persistence ``p``).
        explainer: occlusion settings (its granularity is replaced per entry of
            ``granularities``); default :class:`OcclusionExplainer()`.
        rationales: ``{ranker name: {(query_id, doc_id): rationales}}`` from another explainer
            (:func:`read_rationales`), instead of occlusion (granularity ``"user"``), cut to the
            top ``m`` by weight (:func:`cut_rationales`).
        subdoc: sub-document relevance (:func:`read_subdoc_qrels`); enables MER.
        embedder: ω's embedder for MER: an embedder or a spec of
            :func:`ranklens.specs.make_embedder` (default ``"minilm"``); used only with ``subdoc``.
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
        ``MRC@k``, ``MER@k``, ``nDCG@10``; tables ``summary``, ``ci``, ``comparisons`` (paired
        tests), ``units`` and ``unit_diagnostics``, ``correlations`` (vs nDCG@10),
        ``rationales`` (top-m spans and weights) and ``documents`` (the display set's texts).
    """
    _check_common(ties, mer_missing)
    _check_display(display_queries, display_docs)
    m = PAPER_M if m is None else m
    explainer = explainer or OcclusionExplainer()
    embedder = _mer_embedder(embedder, subdoc, docs)
    qmap, runs_ = _prepare(rankers, queries, docs, pairs, runs, engine, ties)
    table, rats, docs_t, extra = _run_grid(
        rankers, qmap, docs, runs_, qrels, subdoc, granularities=granularities, ms=[m], ks=ks, mer_k=mer_k,
        method=method, p=p, explainer=explainer, rationales=rationales, embedder=embedder, engine=engine,
        ties=ties, mer_missing=mer_missing, display_queries=display_queries, display_docs=display_docs,
        pseudo_order=pseudo_order,
    )
    measures = [f"MRC@{k}" for k in ks] + ([f"MER@{k}" for k in _mer_ks(mer_k)] if subdoc is not None else []) + [
        "nDCG@10"]
    found = {"units": extra.pop("units"), "warnings": extra.pop("warnings"), "guarded": extra.get("guarded", 0)}
    prov = _provenance(rankers, embedder, explainer, {
        "granularities": [str(g) for g in granularities], "m": _m_param(m), "ks": list(ks), "mer_k": list(_mer_ks(mer_k)),
        "method": method, "rbo_p": p, "candidates": "given" if pairs is not None else "all documents",
        "display_queries": display_queries, "display_docs": display_docs, "stats": dict(stats or {}),
    }, qmap, docs, extra, ties=ties, mer_missing=mer_missing, granularities=granularities, pseudo_order=pseudo_order)
    return _consistency_result(table, measures, found, prov, {"rationales": rats, "documents": docs_t},
                               {"seed": explainer.seed, **dict(stats or {})})


def _consistency_result(table: pd.DataFrame, measures: list[str], extra: dict[str, Any], prov: Any,
                        tables: dict[str, Any], stats: Mapping[str, Any]) -> Result:
    """The explain-consistency Result: summary means, correlations, CIs, paired tests, unit
    diagnostics and their warnings."""
    summ = _summary_table(table, measures)
    corr = _correlations(table, [c for c in measures if c != "nDCG@10"])
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
    granularities: Sequence[str] = DEFAULTS.granularities,
    qrels: pd.DataFrame | None = None,
    pairs: pd.DataFrame | None = None,
    runs: Mapping[str, pd.DataFrame] | None = None,
    ks: Sequence[int] = (10,),
    mer_k: int | Sequence[int] = DEFAULTS.mer_k,
    method: str = DEFAULTS.method,
    p: float = DEFAULTS.rbo_p,
    explainer: OcclusionExplainer | None = None,
    rationales: Mapping[str, RationaleMap] | None = None,
    subdoc: pd.DataFrame | None = None,
    embedder: Any = DEFAULTS.embedder,
    mer_missing: str = DEFAULTS.mer_missing,
    ties: str = DEFAULTS.ties,
    pseudo_order: str = DEFAULTS.pseudo_order,
    engine: ScoringEngine | None = None,
) -> Result:
    """MRC/MER as functions of ``m`` (rationales per document) and ``w`` (window width).

    Explanations are computed once per (ranker, granularity); every ``m`` takes a prefix of the
    same ordering, so a sweep over ``m`` costs only the extra pseudo-documents. ``windows`` adds
    ``"window:W"`` granularities to ``granularities`` (duplicates are dropped). ``rationales``
    from another explainer replace occlusion for their rankers (granularity ``"user"``, cut to
    the top ``m`` by weight for every ``m``). ``pairs``, ``embedder``, ``mer_missing`` and
    ``ties`` as in :func:`explanation_consistency`; ``granularities`` and ``mer_k`` default to the
    analysis's (sentences and 5-word windows; MER@10 and @50).

    Returns:
        Result of kind ``"explain-sweep"``: ``table`` per (ranker, granularity, m) with mean
        ``MRC@k`` / ``MER@k`` and query counts; table ``per_query`` with the per-query values and
        ``unit_diagnostics`` per ``m`` (:func:`unit_diagnostics`; warnings name the ``m``).
    """
    from .units import parse_granularity

    _check_common(ties, mer_missing)
    if not ms or any(int(x) < 1 for x in ms):
        raise ValidationError(f"ms must be a non-empty list of integers >= 1, got {list(ms)!r}")
    if any(int(w) < 1 for w in windows):
        raise ValidationError(f"window widths must be >= 1 words, got {list(windows)!r}")
    explainer = explainer or OcclusionExplainer()
    embedder = _mer_embedder(embedder, subdoc, docs)
    grans: list[str] = []
    for g in [*granularities, *(f"window:{int(w)}" for w in windows)]:
        name = str(parse_granularity(g))
        if name not in grans:
            grans.append(name)
    qmap, runs_ = _prepare(rankers, queries, docs, pairs, runs, engine, ties)
    table, _rats, _docs, extra = _run_grid(
        rankers, qmap, docs, runs_, qrels, subdoc, granularities=grans, ms=sorted({int(x) for x in ms}), ks=ks,
        mer_k=mer_k, method=method, p=p, explainer=explainer, rationales=rationales, embedder=embedder,
        engine=engine, ties=ties, mer_missing=mer_missing, pseudo_order=pseudo_order,
    )
    measures = [f"MRC@{k}" for k in ks] + ([f"MER@{k}" for k in _mer_ks(mer_k)] if subdoc is not None else []) + [
        "nDCG@10"]
    summ = _summary_table(table, measures)
    diag, dwarns = _sweep_diagnostics(pd.DataFrame(extra.pop("units"), columns=_UNIT_COLUMNS), ms)
    warns = [*extra.pop("warnings"), *dwarns]
    summary = {
        f"{r['model']}/{r['granularity']}/m={int(r['m'])}/{c}": None if pd.isna(r[c]) else round(float(r[c]), 6)
        for _, r in summ.iterrows() for c in measures if c != "nDCG@10"
    }
    prov = _provenance(rankers, embedder, explainer, {
        "granularities": grans, "ms": sorted({int(x) for x in ms}), "windows": [int(w) for w in windows],
        "ks": list(ks), "mer_k": list(_mer_ks(mer_k)), "method": method, "rbo_p": p,
        "candidates": "given" if pairs is not None else "all documents",
    }, qmap, docs, extra, ties=ties, mer_missing=mer_missing, granularities=grans,
       pseudo_order=pseudo_order)
    return Result(kind="explain-sweep", summary=summary, table=summ, provenance=prov,
                  tables={"per_query": table, "unit_diagnostics": diag}, warnings=tuple(dict.fromkeys(warns)))
