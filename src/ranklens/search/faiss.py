"""FAISS searches: exact ``IndexFlatIP`` (:func:`faiss_knn`, the tie rule of
:mod:`ranklens.search.ties`), approximate HNSW and IVF indexes, and FAISS's BLAS k-NN per block
for :func:`ranklens.search.knn.exact_knn`.

Approximate HNSW / IVF search applies the lower-index rule only among the candidates the index
returns, by their float32 scores: not guaranteed (their recall is measured against exact search
by the caller: :func:`ranklens.search.knn.recall_at_k`).

FAISS 1.15 switched to a slow SIMD path for small query batches (``nq x d < 128000``); while a
ranklens search runs, ``faiss.cvar.distance_compute_blas_threshold`` is 1 so it uses BLAS as the
numpy path does. That setting is process-wide: it is changed by the first search that starts and
restored by the last one that ends (a counter under a lock, :func:`faiss_blas`), so the process's
own value is back as soon as no ranklens search runs.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from contextlib import contextmanager
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._lazy import available, require
from ..errors import ValidationError
from .rows import is_unit, l2_normalize, zero_rows
from .ties import _TIE_PAD, KnnResult, _blank_rows, _check, _error_bound, _max_norm, _order_rows, _rescore

__all__ = ["build_hnsw", "build_ivf", "default_nlist", "faiss_available", "faiss_blas", "faiss_knn", "hnsw_knn",
           "ivf_knn"]

Metric = Literal["cosine", "ip"]


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


def _faiss():
    return require("faiss", feature="FAISS k-NN search")


_BLAS_LOCK = threading.Lock()
_BLAS_STATE: dict[str, Any] = {"users": 0, "saved": None}


@contextmanager
def faiss_blas():
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
    with faiss_blas():
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
    with faiss_blas():
        return _approx_result(index, q, k, exclude, index.ntotal)


def faiss_available() -> bool:
    """True when FAISS can be imported."""
    return available("faiss")

