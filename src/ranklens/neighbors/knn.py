"""k-nearest-neighbour search over a (possibly memory-mapped) corpus of vectors.

Exact search is blocked: the corpus is read ``block_size`` rows at a time and each block's
query × block similarity matrix is reduced to a running top-k (``argpartition``), so memory is
bounded by ``n_queries × block_size`` floats and never by ``n_queries × n_corpus``.

Tie rule (every exact dense backend: numpy, torch, FAISS per block, FAISS ``IndexFlatIP``):
results are ordered by similarity descending, ties broken by the lower corpus index, exactly as a
full sort, where the similarity ranked is the inner product of the float32 (normalised) vectors
evaluated in float64 with one fixed summation. A float32 matrix product cannot decide ties: it
scores bitwise-identical rows differently in the last bit depending on the kernel and the row's
place in the block (1.0 vs 0.99999994). So the float32 products only select candidates (``k`` plus
a few, and every row within the float32 error bound of the k-th score), and the candidates whose
order the bound leaves open are recomputed in float64: identical vectors always tie, on every
backend. Returned scores are float32 (those recomputed: the float64 value rounded). Sparse
vectors are ranked by their float32 sparse product, whose summation order is fixed per pair (so
identical rows tie there too). Approximate HNSW / IVF search applies the lower-index rule only
among the candidates the index returns, by their float32 scores: not guaranteed.

FAISS (``IndexFlatIP`` exact; ``IndexHNSWFlat`` and ``IndexIVFFlat`` approximate, their recall
measured against exact search by the caller: :func:`recall_at_k`) is used when installed and
asked for. FAISS 1.15 switched to a slow SIMD path for small query batches (``nq × d < 128000``); while
a ranklens search runs, ``faiss.cvar.distance_compute_blas_threshold`` is 1 so it uses BLAS as
the numpy path does. That setting is process-wide: it is changed by the first search that
starts and restored by the last one that ends (a counter under a lock), so the process's own
value is back as soon as no ranklens search runs.

Cosine at inner-product speed: normalise once, not per block. :class:`UnitRows` marks rows that
are already L2-normalised (and :class:`~ranklens.engine.vectors.StoredVectors` with
``unit=True`` normalises rows as it reads them); for those, ``metric="cosine"`` normalises the
queries only and each corpus block goes straight into the product.

Sparse vectors (``scipy.sparse`` rows, e.g. full-vocabulary tf-idf) are searched exactly with
the same blocked running top-k: each block's similarities come from one sparse product.

Similarity: ``"cosine"`` (queries L2-normalised; corpus blocks too, unless the corpus is
:class:`UnitRows` or a unit view, normalised once; zero vectors stay zero and have similarity 0
to everything) or ``"ip"`` (raw inner product).

Zero-vector queries (e.g. TF-IDF of a text made only of unknown or stop words, averaged word
vectors with no known token) have no neighbours: their rows are all ``-1`` with score ``-inf``.
Their similarity to every corpus row is 0, so any "neighbours" would just be the first k corpus
rows (the tie rule), and two embedders that both return zeros would show a spurious full overlap.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._arrays import running_count
from .._lazy import available, require
from ..errors import ValidationError

__all__ = [
    "KnnResult",
    "UnitRows",
    "block_similarities",
    "is_sparse",
    "build_hnsw",
    "build_ivf",
    "default_nlist",
    "exact_knn",
    "faiss_knn",
    "hnsw_knn",
    "ivf_knn",
    "l2_normalize",
    "is_unit",
    "unit_rows",
    "recall_at_k",
    "zero_rows",
]

Metric = Literal["cosine", "ip"]


@dataclass(frozen=True)
class KnnResult:
    """Neighbours of each query: corpus indices and similarities, best first.

    Attributes:
        indices: int64 ``(n_queries, k)``.
        scores: float32 ``(n_queries, k)``.
    """

    indices: npt.NDArray[np.int64]
    scores: npt.NDArray[np.float32]


@dataclass(frozen=True, eq=False)
class UnitRows:
    """Dense rows already L2-normalised (zero rows stay zero): cosine similarity is their inner
    product, so searches skip the per-block normalisation. Slicing and ``np.asarray`` give the
    underlying array (views, no copy); build one with :func:`unit_rows`."""

    data: Any  # float32 ndarray or np.memmap, rows of unit length or zero
    unit = True
    ndim = 2
    dtype = np.dtype(np.float32)

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.data.shape)  # type: ignore[return-value]

    def __len__(self) -> int:
        return int(self.data.shape[0])

    def __getitem__(self, idx: Any) -> np.ndarray:
        return np.asarray(self.data[idx])

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = np.asarray(self.data)
        return a if dtype is None else a.astype(dtype, copy=False)


def is_unit(x: Any) -> bool:
    """Whether ``x`` is known to hold unit-length (or zero) rows (:class:`UnitRows`, a unit view)."""
    return bool(getattr(x, "unit", False))


def unit_rows(x: Any) -> Any:
    """``x`` with L2-normalised rows, normalised once: a CSR matrix for sparse input, a unit view
    of stored vectors, else :class:`UnitRows` over a normalised float32 copy (``x`` unchanged)."""
    if is_unit(x):
        return x
    if is_sparse(x):
        return l2_normalize(x)
    if hasattr(x, "normalized"):
        return x.normalized()
    return UnitRows(l2_normalize(x))


def is_sparse(x: Any) -> bool:
    """True for a ``scipy.sparse`` matrix (without importing scipy when it is not one)."""
    return hasattr(x, "tocsr") and hasattr(x, "nnz")


def l2_normalize(x: Any) -> Any:
    """Row-wise L2-normalised float32 copy; zero rows stay zero (CSR for sparse input)."""
    if is_sparse(x):
        a = x.tocsr().astype(np.float32, copy=True)
        n = np.sqrt(np.asarray(a.multiply(a).sum(axis=1), dtype=np.float64).ravel())
        scale = np.divide(1.0, n, out=np.zeros_like(n), where=n > 0).astype(np.float32)
        a.data *= np.repeat(scale, np.diff(a.indptr))
        return a
    a = np.array(x, dtype=np.float32, copy=True)
    if a.ndim != 2:
        raise ValidationError(f"expected a 2-D array of vectors, got shape {a.shape}")
    n = np.linalg.norm(a, axis=1, keepdims=True)
    np.divide(a, n, out=a, where=n > 0)
    return a


def zero_rows(x: Any) -> npt.NDArray[np.bool_]:
    """Boolean mask of the rows of a 2-D array that are entirely zero (no direction, no neighbours)."""
    if is_sparse(x):
        a = x.tocsr()
        return np.asarray(np.abs(a).sum(axis=1)).ravel() == 0
    a = np.asarray(x)
    return ~np.any(a != 0, axis=1)


def _blank_rows(res: KnnResult, zero: np.ndarray) -> KnnResult:
    """Rows of zero-vector queries become "no neighbour" (index -1, score -inf)."""
    if not zero.any():
        return res
    idx = res.indices.copy()
    sc = res.scores.copy()
    idx[zero] = -1
    sc[zero] = -np.inf
    return KnnResult(indices=idx, scores=sc)


def _check(corpus: Any, queries: Any, k: int) -> None:
    if getattr(corpus, "ndim", None) != 2 or getattr(queries, "ndim", None) != 2:
        raise ValidationError("corpus and queries must be 2-D arrays (n, d)")
    if corpus.shape[1] != queries.shape[1]:
        raise ValidationError(
            f"corpus dimension {corpus.shape[1]} != query dimension {queries.shape[1]}"
        )
    if k < 1:
        raise ValidationError(f"k must be >= 1, got {k}")


def _exclusion_pairs(exclude: Sequence[Sequence[int]] | None, nq: int) -> tuple[np.ndarray, np.ndarray]:
    if exclude is None:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if len(exclude) != nq:
        raise ValidationError(f"exclude must have one entry per query ({nq}), got {len(exclude)}")
    rows = np.concatenate([np.full(len(e), i, np.int64) for i, e in enumerate(exclude)] or [np.zeros(0, np.int64)])
    cols = np.concatenate([np.asarray(e, np.int64).ravel() for e in exclude] or [np.zeros(0, np.int64)])
    return rows, cols


def _order_rows(idx: np.ndarray, sc: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Sort each row by (score desc, index asc) and keep the first k."""
    order = np.lexsort((idx, -sc), axis=-1)  # last key is primary: score desc, then index asc
    idx = np.take_along_axis(idx, order, 1)[:, :k]
    sc = np.take_along_axis(sc, order, 1)[:, :k]
    return idx, sc


def _faiss_block(faiss: Any, q: np.ndarray, block: np.ndarray, start: int, kk: int,
                 rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Top ``kk`` candidates of a block by FAISS's BLAS k-NN (float32 scores, best first).

    FAISS is asked for the most exclusions of any query in the block more than ``kk``; excluded
    entries are dropped. Equal float32 scores come in FAISS's order: that is harmless, the exact
    order (and the tie rule) is settled afterwards by :func:`_settle_ties`.
    """
    nb = block.shape[0]
    sel = (cols >= start) & (cols < start + nb)
    r_ex, c_ex = rows[sel], cols[sel] - start
    extra = int(np.bincount(r_ex, minlength=q.shape[0]).max()) if r_ex.size else 0
    kb = min(kk + extra, nb)
    D, I = faiss.knn(q, block, kb, metric=faiss.METRIC_INNER_PRODUCT)
    D = D.astype(np.float32, copy=False)
    if r_ex.size:
        bad = np.zeros(D.shape, bool)
        for r, c in zip(r_ex, c_ex):
            bad[r] |= I[r] == c
        D = np.where(bad, -np.inf, D)
    I64 = I.astype(np.int64)
    order = np.lexsort((I64, -D), axis=-1)[:, : min(kk, nb)]
    return np.take_along_axis(I64, order, 1) + start, np.take_along_axis(D, order, 1)


# ---------------------------------------------------------------------------- the tie rule
# A float32 matrix product scores a pair differently depending on the kernel, the block and the
# row's place in it (1.0 vs 0.99999994 for bitwise-identical rows), so a float32 score cannot say
# which rows tie. The similarity that is ranked is therefore the inner product of the float32
# (normalised) vectors evaluated in float64 by one fixed summation (:func:`_exact_scores`):
# identical vectors get identical scores on every backend, and the order is (float64 score desc,
# corpus index asc). The float32 products only select candidates: a float32 inner product of d
# terms is within ``e = gamma_d |q| |x|`` of the exact one whatever the summation order
# (gamma_d = d u / (1 - d u), u = 2^-24), so every true top-k row scores at least ``K - 2e`` in
# float32, K being the k-th best float32 score; the search keeps ``_TIE_PAD`` candidates beyond k
# and, for a query whose last kept candidate is not below ``K - 2e``, collects every row above
# that threshold in one more pass.
_TIE_PAD = 8
_U32 = 2.0 ** -24
_U64 = 2.0 ** -53


def _error_bound(d: int, qnorm: np.ndarray, cmax: float) -> np.ndarray:
    """Per query, a bound on |float32 inner product - exact| (and the float64 one's error)."""
    g = lambda u: d * u / max(1.0 - d * u, 1e-3)  # noqa: E731
    return 1.01 * (g(_U32) + g(_U64)) * qnorm * cmax + 1e-30


def _max_norm(x: np.ndarray) -> float:
    """An upper bound on the largest row norm (float32 sums: 6x faster than float64; their
    relative error, at most ``gamma_d``, is covered by the factor)."""
    sq = float(np.einsum("ij,ij->i", x, x).max())
    return float(np.sqrt(sq) * (1.0 + 2 * x.shape[1] * _U32) * 1.001)


def _exact_scores(q64: np.ndarray, r: np.ndarray, rows: np.ndarray, inv: np.ndarray) -> np.ndarray:
    """float64 inner products ``q64[r[i]] . rows[inv[i]]``, each summed the same way (elementwise
    products, then numpy's pairwise sum of one contiguous row): identical vectors, identical scores."""
    out = np.empty(len(r), np.float64)
    step = max(1, (1 << 21) // max(1, q64.shape[1]))
    for s in range(0, len(r), step):
        prod = rows[inv[s : s + step]] * q64[r[s : s + step]]
        out[s : s + step] = np.add.reduce(prod, axis=1)
    return out


def _gather(corpus_arr: Any, idx: np.ndarray, normalize: bool) -> np.ndarray:
    """float64 copies of corpus rows ``idx`` (sorted, distinct), normalised as the search saw them."""
    rows = np.asarray(corpus_arr[idx], dtype=np.float32).reshape(len(idx), -1)
    return (l2_normalize(rows) if normalize else rows).astype(np.float64)


def _near_tied(sc: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Mask of the candidates (rows sorted by float32 score, best first) within ``2e`` of a
    neighbour in that order: only their order can differ from the float64 one. Any other one is
    more than ``2e`` from every candidate, so its float32 score compares with any float64 one
    exactly as its float64 score would, and it need not be recomputed."""
    s = sc.astype(np.float64)
    with np.errstate(invalid="ignore"):
        near = (s[:, :-1] - s[:, 1:]) <= 2 * e[:, None]
    out = np.zeros(sc.shape, bool)
    out[:, :-1] |= near
    out[:, 1:] |= near
    return out & np.isfinite(sc)


def _rescore(corpus_arr: Any, q: np.ndarray, idx: np.ndarray, sc: np.ndarray, e: np.ndarray, kk: int,
             normalize: bool) -> tuple[np.ndarray, np.ndarray]:
    """The top ``kk`` of the candidates ``idx`` (float32 scores ``sc``, rows sorted best first)
    under (float64 similarity desc, index asc): near-tied candidates are recomputed in float64,
    the others keep their float32 score (the same order: :func:`_near_tied`). Rows are padded
    with index -1, score -inf."""
    tied = _near_tied(sc, e)
    key = sc.astype(np.float64)
    r, j = np.nonzero(tied)
    if r.size:
        uniq, inv = np.unique(idx[r, j], return_inverse=True)
        key[r, j] = _exact_scores(q.astype(np.float64), r, _gather(corpus_arr, uniq, normalize), inv)
    big = np.where(np.isfinite(sc), idx, np.iinfo(np.int64).max)
    out_i, out_s = _order_rows(big, key, kk)
    return np.where(np.isneginf(out_s), -1, out_i), out_s


def _collect_above(corpus_arr: Any, q: np.ndarray, thr: np.ndarray, kk: int, block_size: int,
                   normalize: bool, rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One more pass for the queries whose candidates did not reach below the threshold: every
    eligible row with float32 similarity >= ``thr`` is rescored in float64; the top ``kk`` are kept
    (a running list, so memory stays bounded even when thousands of rows tie)."""
    m = q.shape[0]
    q64 = q.astype(np.float64)
    best_i = np.full((m, kk), np.iinfo(np.int64).max, np.int64)  # empty places sort last
    best_s = np.full((m, kk), -np.inf)
    for start in range(0, corpus_arr.shape[0], block_size):
        block = np.asarray(corpus_arr[start : start + block_size], dtype=np.float32)
        if normalize:
            block = l2_normalize(block)
        s = q @ block.T
        sel = (cols >= start) & (cols < start + block.shape[0])
        if sel.any():
            s[rows[sel], cols[sel] - start] = -np.inf
        r, c = np.nonzero(s >= thr[:, None])
        if r.size == 0:
            continue
        uniq, inv = np.unique(c, return_inverse=True)
        s64 = _exact_scores(q64, r, block[uniq].astype(np.float64), inv)
        best_i, best_s = _merge_rows(best_i, best_s, r, c.astype(np.int64) + start, s64)
    return np.where(np.isneginf(best_s), -1, best_i), best_s


def _settle_ties(corpus_arr: Any, q: np.ndarray, cand_i: np.ndarray, cand_s: np.ndarray, kk: int,
                 block_size: int, normalize: bool, cmax: float, rows: np.ndarray, cols: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Final top ``kk`` under (float64 similarity desc, index asc) from float32 candidates
    (``kk + _TIE_PAD`` per query, best first; see the tie-rule note above)."""
    n = corpus_arr.shape[0]
    kth = cand_s[:, kk - 1] if cand_s.shape[1] >= kk else np.full(q.shape[0], -np.inf, np.float32)
    qn = np.linalg.norm(q.astype(np.float64), axis=1)
    e = _error_bound(q.shape[1], qn, cmax)
    thr = kth.astype(np.float64) - 2 * e
    last = cand_s[:, -1].astype(np.float64)
    # a list holding every row (or every eligible one: -inf at its end) is complete as it is; a
    # zero query ties with everything but has no neighbours (its row is blanked)
    complete = (last < thr) | (cand_s.shape[1] >= n) | np.isneginf(last) | (qn == 0)
    out_i, out_s = _rescore(corpus_arr, q, cand_i, cand_s, e, kk, normalize)
    redo = np.flatnonzero(~complete)
    if redo.size:
        pos = np.full(q.shape[0], -1, np.int64)
        pos[redo] = np.arange(redo.size)
        sel = pos[rows] >= 0 if rows.size else np.zeros(0, bool)
        ri, rs = _collect_above(corpus_arr, np.ascontiguousarray(q[redo]), thr[redo], kk, block_size,
                                normalize, pos[rows[sel]], cols[sel])
        out_i[redo], out_s[redo] = ri, rs
    return out_i, out_s


def block_similarities(q: Any, block: Any) -> np.ndarray:
    """Dense float32 ``q @ block.T`` for dense or sparse (CSR) rows."""
    if is_sparse(q) or is_sparse(block):
        out = q @ block.T
        out = out.toarray() if is_sparse(out) else np.asarray(out)
        return np.ascontiguousarray(out, dtype=np.float32)
    return q @ block.T


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


def _merge_rows(best_i: np.ndarray, best_s: np.ndarray, r: np.ndarray, cand_i: np.ndarray,
                cand_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Full running top-k lists (m x k, sorted) merged with candidates (row ``r``, index
    ``cand_i``, score ``cand_s``), kept in (score desc, index asc) order."""
    m, kk = best_i.shape
    all_r = np.concatenate([np.repeat(np.arange(m), kk), r])
    all_i = np.concatenate([best_i.ravel(), cand_i])
    all_s = np.concatenate([best_s.ravel(), cand_s])
    order = np.lexsort((all_i, -all_s, all_r))  # row, then score desc, then index asc
    pos = running_count(all_r[order]) - 1  # 0-based place within its row
    keep = order[pos < kk]
    return all_i[keep].reshape(m, kk), all_s[keep].reshape(m, kk)


def _topk_block(s: np.ndarray, start: int, kk: int) -> tuple[np.ndarray, np.ndarray]:
    """Top ``kk`` of each row of a similarity block (exact under (score desc, index asc)).

    ``s`` is a scratch buffer: it is negated in place (no copy of the block).
    """
    n = s.shape[1]
    if kk >= n:
        idx = np.broadcast_to(np.arange(n, dtype=np.int64), s.shape).copy()
        return idx + start, s.copy()
    np.negative(s, out=s)
    part = np.argpartition(s, kk - 1, axis=1)[:, :kk]
    vals = np.take_along_axis(s, part, 1)
    kth = vals.max(axis=1)  # the k-th best (negated) score of each row
    # rows where a value equal to the k-th one was left out: redo them exactly (rare: ties)
    n_ge = np.count_nonzero(s <= kth[:, None], axis=1)
    for r in np.flatnonzero(n_ge > kk):
        cand = np.flatnonzero(s[r] <= kth[r])
        o = np.lexsort((cand, s[r, cand]))[:kk]
        part[r] = cand[o]
        vals[r] = s[r, cand[o]]
    return part.astype(np.int64) + start, -vals


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
            rule (module docstring) settles their order.
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
    with _faiss_blas() as faiss:
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
        bi, bs = _topk_block(s, start, min(kk, block.shape[0]))
        best_i, best_s = _order_rows(np.concatenate([best_i, bi], axis=1), np.concatenate([best_s, bs], axis=1), kk)
    return best_i, best_s, cmax


def _faiss():
    return require("faiss", feature="FAISS k-NN search")


_BLAS_LOCK = threading.Lock()
_BLAS_STATE: dict[str, Any] = {"users": 0, "saved": None}


@contextmanager
def _faiss_blas():
    """FAISS (or ``None`` when not installed) with BLAS for every batch size while ranklens
    searches run.

    FAISS >= 1.12 uses a SIMD path below nq*d < 128000 that is ~5x slower than BLAS on few cores.
    The threshold is process-wide: the first concurrent search saves and lowers it, the last one
    restores the saved value (module docstring).
    """
    if not available("faiss"):
        yield None
        return
    faiss = _faiss()
    with _BLAS_LOCK:
        if _BLAS_STATE["users"] == 0:
            _BLAS_STATE["saved"] = faiss.cvar.distance_compute_blas_threshold
            faiss.cvar.distance_compute_blas_threshold = 1
        _BLAS_STATE["users"] += 1
    try:
        yield faiss
    finally:
        with _BLAS_LOCK:
            _BLAS_STATE["users"] -= 1
            if _BLAS_STATE["users"] == 0:
                faiss.cvar.distance_compute_blas_threshold = _BLAS_STATE["saved"]


def _matrix(corpus: npt.ArrayLike) -> Any:
    """A 2-D array as given (a memory map stays one: indexes are built from it block by block),
    anything else as float32."""
    return corpus if getattr(corpus, "ndim", 0) == 2 and hasattr(corpus, "shape") else np.asarray(corpus, np.float32)


def _prep(x: npt.ArrayLike, metric: Metric) -> np.ndarray:
    a = np.ascontiguousarray(np.asarray(x, dtype=np.float32))
    return l2_normalize(a) if metric == "cosine" and not is_unit(x) else a


def _search_excluding(index: Any, q: np.ndarray, k: int, exclude, n: int, pad: int = 0
                      ) -> tuple[np.ndarray, np.ndarray]:
    """``k + pad`` candidates per query from a FAISS index (plus room for the exclusions, which
    are dropped), ordered by (float32 score desc, index asc); missing ones: index -1, score -inf."""
    extra = max((len(e) for e in exclude), default=0) if exclude is not None else 0
    kk = min(k + pad + extra, n)
    sc, ix = index.search(q, kk)
    if exclude is not None:
        for r, e in enumerate(exclude):
            if len(e):
                bad = np.isin(ix[r], np.asarray(e, np.int64))
                sc[r, bad] = -np.inf
    ix = ix.astype(np.int64)
    ix, sc = _order_rows(np.where(ix < 0, np.iinfo(np.int64).max, ix), np.where(ix < 0, -np.inf, sc),
                         min(k + pad, n))
    return np.where(np.isneginf(sc), -1, ix), sc


def _approx_result(index: Any, q: np.ndarray, k: int, exclude, n: int) -> KnnResult:
    """Approximate search: the lower-index rule applies among the candidates the index returns,
    by their float32 scores (not guaranteed against exact search: module docstring)."""
    ix, sc = _search_excluding(index, q, k, exclude, n)
    return _blank_rows(KnnResult(indices=ix, scores=sc.astype(np.float32)), zero_rows(q))


def faiss_knn(
    corpus: npt.ArrayLike,
    queries: npt.ArrayLike,
    k: int,
    *,
    metric: Metric = "cosine",
    exclude: Sequence[Sequence[int]] | None = None,
) -> KnnResult:
    """Exact k-NN with FAISS ``IndexFlatIP`` (same ordering, tie rule and zero-query rule as
    :func:`exact_knn`).

    FAISS orders equal float32 scores arbitrarily and may cut a tied row at the k-th place, so
    ``_TIE_PAD`` more candidates are asked for, and more (doubling) for a query until its last
    candidate is below the k-th float32 score minus twice the float32 error bound; the candidates
    above it are then ranked by (float64 similarity desc, index asc) as in :func:`exact_knn`.
    """
    faiss = _faiss()
    c = _prep(corpus, metric)
    q = _prep(queries, metric)
    _check(c, q, k)
    n, m = c.shape[0], q.shape[0]
    kk = min(k, n)
    index = faiss.IndexFlatIP(c.shape[1])
    index.add(c)
    if exclude is not None and len(exclude) != m:
        raise ValidationError(f"exclude must have one entry per query ({m}), got {len(exclude)}")
    cmax = 1.0  # unit rows; raw inner products: the largest row norm
    if metric == "ip" and not is_unit(corpus) and n:
        cmax = _max_norm(c)
    qn = np.linalg.norm(q.astype(np.float64), axis=1)
    e = _error_bound(c.shape[1], qn, cmax)
    out_i = np.full((m, kk), -1, np.int64)
    out_s = np.full((m, kk), -np.inf)
    todo, pad = np.arange(m), _TIE_PAD
    with _faiss_blas():
        while todo.size:
            ex = None if exclude is None else [exclude[r] for r in todo]
            ci, cs = _search_excluding(index, np.ascontiguousarray(q[todo]), kk, ex, n, pad)
            thr = cs[:, kk - 1].astype(np.float64) - 2 * e[todo]
            last = cs[:, -1].astype(np.float64)
            done = (last < thr) | np.isneginf(last) | (cs.shape[1] >= n) | (qn[todo] == 0)
            ri, rs = _rescore(c, q[todo], ci, cs, e[todo], kk, False)
            out_i[todo[done]], out_s[todo[done]] = ri[done], rs[done]
            todo, pad = todo[~done], 2 * pad + kk
    return _blank_rows(KnnResult(indices=out_i, scores=out_s.astype(np.float32)), zero_rows(q))


def _add_blocks(index: Any, corpus: Any, metric: Metric, block: int = 100_000) -> None:
    """Add the corpus to a FAISS index ``block`` rows at a time (normalised per block for
    cosine): a memory-mapped corpus is never copied whole next to the index."""
    for start in range(0, corpus.shape[0], block):
        index.add(_prep(corpus[start : start + block], "ip" if is_unit(corpus) else metric))


def build_hnsw(
    corpus: npt.ArrayLike, *, metric: Metric = "cosine", M: int = 32, ef_construction: int = 200
) -> Any:
    """A FAISS ``IndexHNSWFlat`` (inner product) over the corpus, added block by block.

    Defaults M = 32, efConstruction = 200 (FAISS's own are 16 / 40): on 20k clustered vectors
    with queries far from the data, recall@10 at efSearch 64 / 256 / 1024 was 0.52 / 0.73 / 0.97
    with FAISS's defaults and 0.84 / 0.94 / 0.995 with these (queries near the data: 0.995 and 1.0);
    building takes about 5x longer. The recall actually reached is measured and reported by the
    analyses (``n_holdout``).
    """
    faiss = _faiss()
    c = _matrix(corpus)
    index = faiss.IndexHNSWFlat(c.shape[1], M, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = ef_construction
    _add_blocks(index, c, metric)
    return index


def hnsw_knn(
    index: Any,
    queries: npt.ArrayLike,
    k: int,
    *,
    metric: Metric = "cosine",
    ef_search: int = 256,
    exclude: Sequence[Sequence[int]] | None = None,
) -> KnnResult:
    """Approximate k-NN on an index from :func:`build_hnsw` (zero-vector queries: no neighbours).

    Ties: lower corpus index among the candidates returned, by FAISS's float32 scores; not
    guaranteed (a tied row the graph search missed, or scored differently in the last bit, can
    take the place of a lower index): recorded in the analyses' provenance.

    ``efSearch`` is at least ``max(ef_search, 2 (k + exclusions))``."""
    q = _prep(queries, metric)
    extra = max((len(e) for e in exclude), default=0) if exclude is not None else 0
    index.hnsw.efSearch = max(ef_search, 2 * (k + extra))
    return _approx_result(index, q, k, exclude, index.ntotal)


def default_nlist(n: int) -> int:
    """IVF lists for ``n`` vectors: ``4 sqrt(n)`` (FAISS's guideline), at least 1, and at most
    ``n / 39`` so that k-means has the 39 training points per centroid FAISS asks for."""
    return int(max(1, min(4 * np.sqrt(n), n // 39)))


def build_ivf(
    corpus: npt.ArrayLike,
    *,
    metric: Metric = "cosine",
    nlist: int | None = None,
    train_size: int = 100_000,
    seed: int = 0,
) -> Any:
    """A FAISS ``IndexIVFFlat`` (inner product) over the corpus.

    k-means (``nlist`` centroids, default :func:`default_nlist`) is trained on ``train_size``
    rows sampled with ``numpy.random.default_rng(seed)`` (at least 39 per centroid when the corpus
    has them), then the corpus is added block by block.
    """
    faiss = _faiss()
    c = _matrix(corpus)
    n, d = c.shape
    nl = default_nlist(n) if nlist is None else int(nlist)
    if not 1 <= nl <= n:
        raise ValidationError(f"build_ivf: nlist must be between 1 and the corpus size {n}, got {nl}")
    m = min(n, max(train_size, 39 * nl))
    rows = np.sort(np.random.default_rng(seed).choice(n, size=m, replace=False))
    train = _prep(c[rows], "ip" if is_unit(c) else metric)
    index = faiss.IndexIVFFlat(faiss.IndexFlatIP(d), d, nl, faiss.METRIC_INNER_PRODUCT)
    index.cp.seed = seed
    index.train(train)
    del train
    _add_blocks(index, c, metric)
    return index


def ivf_knn(
    index: Any,
    queries: npt.ArrayLike,
    k: int,
    *,
    metric: Metric = "cosine",
    nprobe: int = 32,
    exclude: Sequence[Sequence[int]] | None = None,
) -> KnnResult:
    """Approximate k-NN on an index from :func:`build_ivf`: the ``nprobe`` lists nearest each
    query are searched exactly (zero-vector queries: no neighbours). Ties: as :func:`hnsw_knn`
    (not guaranteed)."""
    q = _prep(queries, metric)
    index.nprobe = max(1, min(int(nprobe), index.nlist))
    with _faiss_blas():
        return _approx_result(index, q, k, exclude, index.ntotal)


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


def faiss_available() -> bool:
    """True when FAISS can be imported."""
    return available("faiss")
