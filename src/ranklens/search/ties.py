"""The one tie rule of every k-NN search in ranklens, and the result value.

Results are ordered by similarity descending, ties broken by the lower corpus index, exactly as a
full sort. For dense float32 vectors the similarity ranked is the inner product of the float32
(normalised) vectors evaluated in float64 with one fixed summation: a float32 matrix product
cannot decide ties (it scores bitwise-identical rows differently in the last bit depending on the
kernel and the row's place in the block: 1.0 vs 0.99999994), so the float32 products only select
candidates (``k`` plus a few, and every row within the float32 error bound of the k-th score),
and the candidates whose order the bound leaves open are recomputed in float64: identical vectors
always tie, on every backend. Returned scores are float32 (those recomputed: the float64 value
rounded). Sparse vectors and precomputed score matrices are ranked by their scores as given
(:func:`ranklens.search.knn.top_k`).

Zero-vector queries (e.g. TF-IDF of a text made only of unknown or stop words) have no
neighbours in :func:`~ranklens.search.knn.exact_knn`: their rows are all ``-1`` with score
``-inf`` (their similarity to every row is 0, so any "neighbours" would just be the first k rows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._arrays import running_count
from ..errors import ValidationError
from .rows import l2_normalize

__all__ = ["KnnResult"]


@dataclass(frozen=True)
class KnnResult:
    """Neighbours of each query: corpus indices and similarities, best first.

    Attributes:
        indices: int64 ``(n_queries, k)``.
        scores: float32 ``(n_queries, k)``.
    """

    indices: npt.NDArray[np.int64]
    scores: npt.NDArray[np.float32]



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



def _order_rows(idx: np.ndarray, sc: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Sort each row by (score desc, index asc) and keep the first k."""
    order = np.lexsort((idx, -sc), axis=-1)  # last key is primary: score desc, then index asc
    idx = np.take_along_axis(idx, order, 1)[:, :k]
    sc = np.take_along_axis(sc, order, 1)[:, :k]
    return idx, sc



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

