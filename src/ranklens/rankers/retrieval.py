"""First-stage retrieval over a corpus (BM25 via bm25s, exact dense search) and re-ranking.

Both return run DataFrames (``query_id``, ``doc_id``, ``score`` float64), rows sorted by query
and descending score (apply :func:`ranklens.io.rank_run` for a tie rule and ranks).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._hashing import sha256_texts
from ..errors import ValidationError
from ..types import DOC_ID, QUERY_ID, SCORE, TEXT

__all__ = ["dense_topk", "rerank", "retrieve"]


def _queries(queries_df: pd.DataFrame) -> tuple[list[str], list[str]]:
    missing = {QUERY_ID, TEXT} - set(queries_df.columns)
    if missing:
        raise ValidationError(f"queries frame lacks column(s) {sorted(missing)}; expected query_id, text")
    qids = queries_df[QUERY_ID].astype(str).tolist()
    dup = pd.Series(qids).duplicated()
    if dup.any():
        raise ValidationError(f"queries frame: duplicate query_id {qids[int(np.flatnonzero(dup)[0])]!r}")
    return qids, queries_df[TEXT].astype(str).tolist()


def _frame(qids: list[str], doc_ids: list[str], scores: npt.ArrayLike) -> pd.DataFrame:
    return pd.DataFrame({QUERY_ID: pd.Series(qids, dtype=str), DOC_ID: pd.Series(doc_ids, dtype=str),
                         SCORE: np.asarray(scores, dtype=np.float64)})


def dense_topk(queries: npt.NDArray[np.float32], docs: npt.NDArray[np.float32], k: int, *,
               block_size: int = 8192) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Exact maximum-inner-product top-``k`` (best first; ties by lower doc position).

    Blocked over documents: memory stays at ``n_queries x (k + block_size)`` scores. Inner
    products are computed in float32 (BLAS) and returned as float64.
    """
    nq, nd = queries.shape[0], docs.shape[0]
    k = min(int(k), nd)
    best_s = np.full((nq, 0), -np.inf, dtype=np.float32)
    best_i = np.zeros((nq, 0), dtype=np.int64)
    for start in range(0, nd, block_size):
        blk = docs[start : start + block_size]
        s = queries @ blk.T
        idx = np.broadcast_to(np.arange(start, start + blk.shape[0]), s.shape)
        cand_s = np.concatenate([best_s, s], axis=1)
        cand_i = np.concatenate([best_i, idx], axis=1)
        if cand_s.shape[1] > k:
            part = np.argpartition(-cand_s, k - 1, axis=1)[:, :k]
            cand_s = np.take_along_axis(cand_s, part, axis=1)
            cand_i = np.take_along_axis(cand_i, part, axis=1)
        best_s, best_i = cand_s, cand_i
    order = np.lexsort((best_i, -best_s), axis=1) if nq else np.zeros((0, k), dtype=np.int64)
    return np.take_along_axis(best_i, order, axis=1), np.take_along_axis(best_s, order, axis=1).astype(np.float64)


def retrieve(model: Any, queries_df: pd.DataFrame, docs: Any, *, k: int = 1000, engine: Any = None,
             block_size: int = 8192) -> pd.DataFrame:
    """Top-``k`` documents of ``docs`` for every query.

    Args:
        model: a :class:`~ranklens.rankers.BM25Ranker` (fitted on exactly these docs, in
            ``docs`` order, or unfitted: it is then fitted on them) -> bm25s top-k candidates,
            scored with the float64 pairwise formula; or any embedder -> exact dense search
            (inner product; cosine for normalised embedders), texts encoded through the engine.
        queries_df: ``query_id``, ``text``.
        docs: a :class:`~ranklens.io.DocStore` (or any mapping ``doc_id -> text``).
        k: documents per query.
        engine: scoring engine for encoding (default engine if ``None``).

    Returns:
        run frame ``query_id``, ``doc_id``, ``score`` sorted by query, then score descending.
    """
    from ..embedders.base import Embedder
    from .bm25 import BM25Ranker, exact_corpus_scores

    if k < 1:
        raise ValidationError(f"retrieve: k must be >= 1, got {k}")
    qids, qtexts = _queries(queries_df)
    doc_ids = list(docs)
    texts = docs.get_many(doc_ids) if hasattr(docs, "get_many") else [docs[d] for d in doc_ids]
    if not doc_ids:
        raise ValidationError("retrieve: the document collection is empty")
    out_q: list[str] = []
    out_d: list[str] = []
    out_s: list[npt.NDArray[np.float64]] = []
    if isinstance(model, BM25Ranker):
        ranker = model
        if not ranker.fitted:
            ranker = model.fit(texts)
        elif ranker.stats.corpus_digest != sha256_texts(texts):
            raise ValidationError(
                "retrieve: this BM25Ranker was fitted on a different corpus than `docs`; retrieval "
                "runs over the fitted corpus, so pass an unfitted BM25Ranker (it is fitted on `docs`) "
                "or one fitted on exactly these texts in this order"
            )
        positions, _ = ranker.retrieve_topk(qtexts, k)
        from_index = not ranker.stats.doc_ids  # load_index(): no token ids kept, re-score the texts
        for qid, q, pos in zip(qids, qtexts, positions):
            s = (ranker.score([q] * len(pos), [texts[j] for j in pos]) if from_index
                 else exact_corpus_scores(ranker, q, pos))
            order = np.lexsort((pos, -s))
            out_q.extend([qid] * len(pos))
            out_d.extend(doc_ids[j] for j in pos[order])
            out_s.append(s[order])
    elif isinstance(model, Embedder):
        from ..engine import encode_texts

        dvec = encode_texts(model, texts, engine=engine, desc="encoding docs")
        qvec = encode_texts(model, qtexts, engine=engine, desc="encoding queries")
        positions, scores = dense_topk(qvec, dvec, k, block_size=block_size)
        for qid, pos, s in zip(qids, positions, scores):
            out_q.extend([qid] * len(pos))
            out_d.extend(doc_ids[j] for j in pos)
            out_s.append(s)
    else:
        raise ValidationError(
            f"retrieve: {type(model).__name__} cannot retrieve from a corpus (only BM25Ranker and "
            "embedders can); retrieve candidates with BM25 first, then use "
            "ranklens.rankers.retrieval.rerank(ranker, run, queries, docs)"
        )
    return _frame(out_q, out_d, np.concatenate(out_s) if out_s else [])


def rerank(ranker: Any, run: pd.DataFrame, queries_df: pd.DataFrame, docs: Any, *, k: int | None = None,
           engine: Any = None) -> pd.DataFrame:
    """Re-score the (query, doc) pairs of ``run`` with ``ranker`` through the scoring engine.

    Args:
        k: keep only each query's ``k`` best rows of ``run`` (by its score, ties by doc_id
            descending as trec_eval) before re-scoring; ``None`` = all rows.

    Returns:
        run frame with the new scores, sorted by query, then new score descending.
    """
    from ..engine import score_pairs

    missing = {QUERY_ID, DOC_ID} - set(run.columns)
    if missing:
        raise ValidationError(f"rerank: run lacks column(s) {sorted(missing)}")
    qids, qtexts = _queries(queries_df)
    qmap = dict(zip(qids, qtexts))
    frame = run[[c for c in (QUERY_ID, DOC_ID, SCORE) if c in run.columns]].copy()
    frame[QUERY_ID] = frame[QUERY_ID].astype(str)
    frame[DOC_ID] = frame[DOC_ID].astype(str)
    if k is not None:
        if SCORE not in frame.columns:
            raise ValidationError("rerank: k= needs a score column in the run")
        frame = (frame.sort_values([QUERY_ID, SCORE, DOC_ID], ascending=[True, False, False], kind="stable")
                 .groupby(QUERY_ID, sort=False).head(int(k)))
    unknown = sorted(set(frame[QUERY_ID]) - set(qmap))
    if unknown:
        raise ValidationError(f"rerank: run has query_id(s) not in the queries frame: {unknown[:5]}")
    d_ids = frame[DOC_ID].tolist()
    try:
        texts = docs.get_many(d_ids) if hasattr(docs, "get_many") else [docs[d] for d in d_ids]
    except KeyError as exc:
        raise ValidationError(f"rerank: run has a doc_id missing from docs: {exc}") from None
    scores = score_pairs(ranker, [qmap[q] for q in frame[QUERY_ID]], texts, engine=engine)
    out = _frame(frame[QUERY_ID].tolist(), d_ids, scores)
    return out.sort_values([QUERY_ID, SCORE], ascending=[True, False], kind="stable").reset_index(drop=True)
