"""The driver of the ``explain`` analysis: from a collection, model specs and :class:`Params` to
the ``explain-consistency`` and ``explain-sweep`` results.

It builds the models, the candidate pool each model re-ranks (``Params.candidates``), the occlusion
explainer, the sub-document relevance and MER's embedder, and hands these values to the kernels
:func:`~ranklens.explain.consistency.explanation_consistency` and
:func:`~ranklens.explain.consistency.explanation_sweep`. The door (:func:`ranklens.drive.run_analysis`)
stamps the ``Params`` into ``Result.provenance.analysis_params``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import ValidationError
from ..results import Result
from ..specs import build_models, collection_texts, make_embedder, make_ranker, need_models, skipped_warnings
from .consistency import explanation_consistency, explanation_sweep
from .declaration import Params
from .files import read_rationales, read_subdoc_qrels
from .occlusion import OcclusionExplainer
from .rationales import PAPER_M
from .ranking import rank_candidates

__all__ = ["run"]


def run(collection: Any, models: dict[str, dict[str, Any]], params: Params, *, engine: Any = None, seed: int = 0,
        work_dir: Path | None = None) -> list[Result]:
    """MRC@k (and MER@k with ``subdoc``) of every model on the (first ``max_queries``) queries;
    each model re-ranks the candidates (:class:`Params` ``candidates``), the top documents are
    explained, plus sweeps over ``m`` (``sweep_m``) and window widths (``sweep_w``)."""
    p = params
    texts = collection_texts(collection)
    rankers, skipped = build_models(models, make_ranker, texts)
    need_models("explain", rankers, 1, skipped)
    queries = collection.queries if p.max_queries is None else collection.queries.head(p.max_queries)
    cand = _candidates(collection, queries, rankers, p, engine, texts)
    kw = _common(collection, rankers, p, seed, engine, texts)
    stats = {"confidence": p.confidence, "ci_resamples": p.ci_resamples, "test": p.test, "seed": seed}
    results = [explanation_consistency(rankers, queries, collection.docs, pairs=cand,
                                       granularities=p.granularities, m=PAPER_M if p.m is None else p.m,
                                       stats=stats, display_queries=p.display_queries,
                                       display_docs=p.display_docs, **kw)]
    if p.sweep_m or p.sweep_w:
        results.append(explanation_sweep(rankers, queries, collection.docs, pairs=cand,
                                         ms=p.sweep_m or (p.m or 1,), windows=p.sweep_w,
                                         granularities=p.granularities if p.sweep_m else (), **kw))
    warn = [*skipped_warnings(skipped), *_degenerate(collection, p)]
    return [r.with_warnings(*warn) for r in results]


def _degenerate(collection: Any, p: Params) -> list[str]:
    """Warnings for what the parameters make of the measures: a pool shallower than an MRC
    cut-off, and MER left out for want of sub-document relevance."""
    out = []
    if p.candidates in ("pool", "run") and p.pool < max(p.k):
        deep = [k for k in p.k if k > p.pool]
        out.append(f"pool {p.pool} is smaller than the MRC cut-off(s) {deep}: each model re-ranks at most {p.pool} "
                   f"documents per query, so MRC@{deep[0]} is a correlation over at most {p.pool} documents "
                   f"(the paper re-ranks BM25's top 1000); raise --pool or lower --k")
    if p.subdoc is None:
        name = getattr(collection, "name", "the collection")
        out.append(f"MER ({', '.join(f'MER@{k}' for k in p.mer_k)}) not computed: no sub-document relevance was "
                   f"given for {name} (the paper computes MER only where relevant passages inside documents are "
                   "judged); give --subdoc FILE (doc_id, unit, relevant) to compute it")
    return out


def _candidates(collection: Any, queries: pd.DataFrame, rankers: Mapping[str, Any], p: Params, engine: Any,
                texts: list[str]) -> pd.DataFrame | None:
    """The (query_id, doc_id) pairs every model re-ranks (``None``: every document)."""
    qids = set(queries["query_id"])
    if p.run or p.candidates == "run":
        from ..io import read_run
        from ..io.frames import rank_run

        run_ = rank_run(read_run(p.run), ties=p.ties)
        run_ = run_[run_["query_id"].isin(qids) & run_["doc_id"].isin(set(collection.docs))
                    & (run_["rank"] <= p.pool)]
        if run_.empty:
            raise ValidationError(f"params.run: {p.run} has no documents of the collection for its queries")
        return run_[["query_id", "doc_id"]]
    if p.candidates == "all":
        return None
    if p.candidates == "qrels":
        if collection.qrels is None or collection.qrels.empty:
            raise ValidationError("params.candidates: 'qrels' needs a collection with qrels")
        q = collection.qrels
        return q[q["doc_id"].isin(set(collection.docs)) & q["query_id"].isin(qids)][["query_id", "doc_id"]]
    if p.pool_model and p.pool_model not in rankers:
        raise ValidationError(f"params.pool_model: {p.pool_model!r} is not one of the models {sorted(rankers)}")
    pool_ranker = rankers[p.pool_model] if p.pool_model else make_ranker("bm25", corpus=texts)
    cand = rank_candidates(pool_ranker, queries, collection.docs, ties=p.ties, engine=engine)
    return cand[cand["rank"] <= p.pool][["query_id", "doc_id"]]


def _subdoc(p: Params) -> pd.DataFrame | None:
    """Sub-document relevance of ``Params.subdoc`` (``"demo"``: the demo collection's)."""
    if p.subdoc == "demo":
        from ..datasets.demo import load_demo_subdoc_qrels

        return read_subdoc_qrels(load_demo_subdoc_qrels())
    return read_subdoc_qrels(p.subdoc) if p.subdoc else None


def _common(collection: Any, rankers: Mapping[str, Any], p: Params, seed: int, engine: Any,
            texts: list[str]) -> dict[str, Any]:
    """The keyword arguments the consistency run and the sweep share."""
    subdoc = _subdoc(p)
    rationales = None
    if p.rationales:
        if len(rankers) != 1:
            raise ValidationError("params.rationales: rationales belong to one model; give exactly one model")
        rationales = {next(iter(rankers)): read_rationales(p.rationales, docs=collection.docs)}
    explainer = OcclusionExplainer(n=p.n, samples=p.samples, seed=seed, normalize=p.normalize,
                                   aggregate=p.aggregate, long_document=p.long_document,
                                   long_document_sentences=p.long_document_sentences,
                                   chunk_sentences=p.chunk_sentences)
    return dict(qrels=collection.qrels, ks=p.k, mer_k=p.mer_k, method=p.method, p=p.rbo_p, explainer=explainer,
                rationales=rationales, subdoc=subdoc, mer_missing=p.mer_missing, ties=p.ties,
                pseudo_order=p.pseudo_order, engine=engine,
                embedder=make_embedder(p.embedder, corpus=texts) if subdoc is not None else None)
