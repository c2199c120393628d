"""Exact k-nearest-neighbour search: one function, one tie rule (:mod:`ranklens.search.ties`).

:func:`exact_knn` searches a (possibly memory-mapped) corpus of vectors blocked: the corpus is read
``block_size`` rows at a time and each block's query x block similarity matrix is reduced to a
running top-k, so memory is bounded by ``n_queries x block_size`` floats and never by
``n_queries x n_corpus``. Every exact dense backend (numpy, torch, FAISS per block, FAISS
``IndexFlatIP`` in :mod:`ranklens.search.faiss`) gives the same result. Sparse vectors
(``scipy.sparse`` rows, e.g. full-vocabulary tf-idf) are searched with the same blocked running
top-k: each block's similarities come from one sparse product.

:func:`top_k` and :func:`top_k_rows` apply the same rule (score desc, lower index first) to score
matrices computed elsewhere (BM25, TF-IDF products, distances).

Similarity: ``"cosine"`` (queries L2-normalised; corpus blocks too, unless the corpus is
:class:`~ranklens.search.rows.UnitRows` or a unit view, normalised once; zero vectors stay zero
and have similarity 0 to everything) or ``"ip"`` (raw inner product).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._lazy import require
from ..errors import ValidationError
from .faiss import _faiss, _faiss_block, faiss_blas
from .rows import UnitRows, block_similarities, is_sparse, is_unit, l2_normalize, zero_rows
from .ties import _TIE_PAD, KnnResult, _blank_rows, _check, _max_norm, _merge_rows, _order_rows, _settle_ties

__all__ = ["exact_knn", "recall_at_k", "top_k", "top_k_rows"]

Metric = Literal["cosine", "ip"]


def _exclusion_pairs(exclude: Sequence[Sequence[int]] | None, nq: int) -> tuple[np.ndarray, np.ndarray]:
    if exclude is None:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if len(exclude) != nq:
        raise ValidationError(f"exclude must have one entry per query ({nq}), got {len(exclude)}")
    rows = np.concatenate([np.full(len(e), i, np.int64) for i, e in enumerate(exclude)] or [np.zeros(0, np.int64)])
    cols = np.concatenate([np.asarray(e, np.int64).ravel() for e in exclude] or [np.zeros(0, np.int64)])
    return rows, cols


def _merge_above(best_i: np.ndarray, best_s: np.ndarray, s: np.ndarray, start: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Merge a similarity block into full, sorted running top-k lists.

    Once every row holds k neighbours, only block entries scoring at least the row's current
    k-th score can enter (``>=`` keeps ties, which the (score desc, index asc) order then
    settles). Selecting them with one comparison is much cheaper than an ``argpartition`` of
    the whole block, and after the first blocks very few entries pass: the search becomes
    bound by the matrix product, as in FAISS.
    """
    r, c = np.nonzero(s >= best_s[:, -1:])
    if r.size == 0:
        return best_i, best_s
    return _merge_rows(best_i, best_s, r, c.astype(np.int64) + start, s[r, c])


def top_k(scores: npt.ArrayLike, k: int, *, overwrite: bool = False) -> tuple[npt.NDArray[np.int64], np.ndarray]:
    """Top ``k`` columns of each row of a dense score matrix, best first, under the one tie rule
    (score descending, then the lower column index): exactly what a full stable sort gives.

    Args:
        scores: ``(n_rows, n)`` scores (any float dtype; kept in the output).
        k: columns kept per row (capped at ``n``).
        overwrite: ``scores`` is a scratch buffer that may be negated in place (no copy).

    Returns:
        ``(indices int64 (n_rows, min(k, n)), scores (n_rows, min(k, n)))``.

    Example:
        >>> top_k(np.array([[1.0, 3.0, 3.0, 2.0]]), 2)[0].tolist()
        [[1, 2]]
    """
    s = np.asarray(scores)
    if s.ndim != 2:
        raise ValidationError(f"top_k: expected a 2-D score matrix, got shape {s.shape}")
    n_rows, n = s.shape
    k = min(int(k), n)
    if k <= 0:
        return np.zeros((n_rows, 0), np.int64), s[:, :0].copy()
    neg = np.negative(s, out=s if overwrite else None)
    if k < n:
        part = np.argpartition(neg, k - 1, axis=1)[:, :k]
        kth = np.take_along_axis(neg, part, 1).max(axis=1)  # the k-th best (negated) score of each row
        # argpartition picks arbitrary members of a tie at the k-th value: redo those rows exactly
        for r in np.flatnonzero(np.count_nonzero(neg <= kth[:, None], axis=1) > k):
            cand = np.flatnonzero(neg[r] <= kth[r])
            part[r] = cand[np.lexsort((cand, neg[r, cand]))[:k]]
    else:
        part = np.broadcast_to(np.arange(n), neg.shape)
    vals = np.take_along_axis(neg, part, 1)
    order = np.lexsort((part, vals), axis=-1)  # last key first: score desc, then index asc
    idx = np.take_along_axis(part, order, 1).astype(np.int64)
    if overwrite:
        return idx, -np.take_along_axis(vals, order, 1)
    return idx, np.take_along_axis(s, idx, 1)


def top_k_rows(score_rows: Callable[[int, int], npt.ArrayLike], n_rows: int, k: int, *, block: int = 1024
               ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """:func:`top_k` of a score matrix computed ``block`` rows at a time: ``score_rows(start, stop)``
    gives the dense scores of rows ``start:stop`` (float64 here). Memory: ``block x n`` scores."""
    if block < 1:
        raise ValidationError(f"block must be >= 1, got {block}")
    idx_parts, val_parts = [], []
    for start in range(0, n_rows, block):
        dense = np.array(score_rows(start, min(n_rows, start + block)), dtype=np.float64)
        i, v = top_k(dense, k, overwrite=True)
        idx_parts.append(i)
        val_parts.append(v)
    if not idx_parts:
        return np.zeros((0, k), dtype=np.int64), np.zeros((0, k), dtype=np.float64)
    return np.vstack(idx_parts), np.vstack(val_parts)


def exact_knn(
    corpus: npt.ArrayLike,
    queries: npt.ArrayLike,
    k: int,
    *,
    metric: Metric = "cosine",
    block_size: int = 65_536,
    exclude: Sequence[Sequence[int]] | None = None,
    backend: Literal["auto", "numpy", "torch", "faiss"] = "auto",
    query_block_size: int = 1024,
) -> KnnResult:
    """Exact k-NN by blocked matrix products with a running top-k.

    Args:
        corpus: ``(n, d)`` vectors (a numpy array or ``np.memmap``; read block by block).
        queries: ``(m, d)`` query vectors.
        k: neighbours per query (capped at the number of eligible corpus rows).
        metric: ``"cosine"`` or ``"ip"`` (inner product; use for pre-normalised vectors).
        block_size: corpus rows per block; peak extra memory is about ``m × block_size`` floats.
        exclude: per query, corpus indices that may not be returned (e.g. the query itself).
        backend: ``"numpy"``, ``"torch"`` (torch matmul per block), ``"faiss"`` (FAISS's
            BLAS k-NN per block: the fastest here), or ``"auto"`` (FAISS when installed, else
            numpy). All give the same result: the float32 products select candidates, the tie
            rule (:mod:`ranklens.search.ties`) settles their order.
        query_block_size: queries handled together; peak extra memory is about
            ``query_block_size × block_size`` float32 values.

    Returns:
        :class:`KnnResult` with rows ordered by similarity descending (near ties decided in
        float64), ties by lower index; identical corpus vectors always tie. A query that is the zero vector has no neighbours (row of ``-1``, scores ``-inf``).
    """
    sparse = is_sparse(corpus)
    unit = is_unit(corpus)
    if sparse:
        corpus_arr = corpus.tocsr()
        q = queries.tocsr().astype(np.float32) if is_sparse(queries) else np.asarray(queries, np.float32)
        backend = "numpy"
    elif isinstance(corpus, UnitRows):
        corpus_arr = corpus.data
        q = np.asarray(queries, dtype=np.float32)
    else:
        readable = isinstance(corpus, np.ndarray) or hasattr(corpus, "gather")  # arrays, stored views
        corpus_arr = corpus if readable else np.asarray(corpus, dtype=np.float32)
        q = np.asarray(queries, dtype=np.float32)
    _check(corpus_arr, q, k)
    if block_size < 1:
        raise ValidationError(f"block_size must be >= 1, got {block_size}")
    if metric == "cosine":
        q = l2_normalize(q)
    elif metric != "ip":
        raise ValidationError(f"metric must be 'cosine' or 'ip', got {metric!r}")
    n, m = corpus_arr.shape[0], q.shape[0]
    if m > query_block_size:
        if exclude is not None and len(exclude) != m:
            raise ValidationError(f"exclude must have one entry per query ({m}), got {len(exclude)}")
        # (re-normalising the already unit-length queries in the recursive call is harmless)
        parts = [
            exact_knn(corpus, q[s : s + query_block_size], k, metric=metric, block_size=block_size,
                      exclude=None if exclude is None else exclude[s : s + query_block_size],
                      backend=backend, query_block_size=query_block_size)
            for s in range(0, m, query_block_size)
        ]
        return KnnResult(indices=np.concatenate([p.indices for p in parts]),
                         scores=np.concatenate([p.scores for p in parts]))
    kk = min(k, n)
    kc = kk if sparse else min(kk + _TIE_PAD, n)  # float32 candidates kept per query (tie rule)
    if backend == "auto":
        import importlib.util

        backend = "faiss" if importlib.util.find_spec("faiss") is not None else "numpy"
    if backend not in ("numpy", "torch", "faiss"):
        raise ValidationError(f"backend must be 'auto', 'numpy', 'torch' or 'faiss', got {backend!r}")
    rows, cols = _exclusion_pairs(exclude, m)
    torch = require("torch", feature="torch k-NN backend") if backend == "torch" else None
    with faiss_blas() as faiss:
        if backend != "faiss":
            faiss = None
        elif faiss is None:
            faiss = _faiss()  # raises: FAISS is not installed
        bmetric = "ip" if unit else metric
        norms = not sparse and not unit and metric == "ip"  # raw inner products: the bound needs |x|
        best_i, best_s, cmax = _blocked_topk(corpus_arr, q, kc, block_size, bmetric, rows, cols, faiss, torch,
                                             norms)
    if not sparse:
        best_i, best_s = _settle_ties(corpus_arr, q, best_i, best_s, kk, block_size, bmetric == "cosine",
                                      cmax if norms else 1.0, rows, cols)
    # excluded rows (score -inf) can only appear when fewer than k rows are eligible
    best_i = np.where(np.isneginf(best_s), -1, best_i)
    return _blank_rows(KnnResult(indices=best_i.astype(np.int64), scores=best_s.astype(np.float32)),
                       zero_rows(q))


def _blocked_topk(corpus_arr: Any, q: Any, kk: int, block_size: int, metric: str, rows: np.ndarray,
                  cols: np.ndarray, faiss: Any, torch: Any, norms: bool = False
                  ) -> tuple[np.ndarray, np.ndarray, float]:
    """The running top-``kk`` over corpus blocks (dense, sparse, FAISS or torch products), and
    the largest corpus row norm when ``norms`` (else 0)."""
    m = q.shape[0]
    best_i = np.zeros((m, 0), np.int64)
    best_s = np.zeros((m, 0), np.float32)
    sparse = is_sparse(corpus_arr)
    cmax = 0.0
    for start in range(0, corpus_arr.shape[0], block_size):
        block = corpus_arr[start : start + block_size]
        block = block if sparse else np.asarray(block, dtype=np.float32)
        if norms and block.shape[0]:
            cmax = max(cmax, _max_norm(block))
        if metric == "cosine":
            block = l2_normalize(block)
        if faiss is not None:
            bi, bs = _faiss_block(faiss, q, np.ascontiguousarray(block), start, kk, rows, cols)
            best_i, best_s = _order_rows(np.concatenate([best_i, bi], axis=1),
                                         np.concatenate([best_s, bs], axis=1), kk)
            continue
        if torch is not None:
            s = (torch.from_numpy(q) @ torch.from_numpy(block).T).numpy()
        else:
            s = block_similarities(q, block)
        sel = (cols >= start) & (cols < start + block.shape[0])
        if sel.any():
            s[rows[sel], cols[sel] - start] = -np.inf
        if best_i.shape[1] == kk and np.isfinite(best_s[:, -1]).all():
            best_i, best_s = _merge_above(best_i, best_s, s, start)
            continue
        bi, bs = top_k(s, kk, overwrite=True)
        bi += start
        best_i, best_s = _order_rows(np.concatenate([best_i, bi], axis=1), np.concatenate([best_s, bs], axis=1), kk)
    return best_i, best_s, cmax


def recall_at_k(approx: npt.ArrayLike, exact: npt.ArrayLike) -> float:
    """Mean over queries of ``|approx ∩ exact| / k`` (rows of neighbour indices, ``-1`` = none).

    Queries without any exact neighbour (e.g. zero-vector queries) have no recall to measure and
    are left out; NaN when no query is left.
    """
    a = np.asarray(approx)
    e = np.asarray(exact)
    if a.shape != e.shape:
        raise ValidationError(f"shapes differ: {a.shape} vs {e.shape}")
    if a.size == 0:
        return float("nan")
    hits = [len(np.intersect1d(r1[r1 >= 0], r2[r2 >= 0])) for r1, r2 in zip(a, e) if (r2 >= 0).any()]
    if not hits:
        return float("nan")
    return float(np.mean(hits) / a.shape[1])

