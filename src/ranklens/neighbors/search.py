"""Vectors of a corpus and the neighbours of sampled queries (shared by every N2O analysis).

Conventions (all recorded in provenance):

- Similarity: cosine; zero vectors (a sentence with no known word for a word-vector model, no
  fitted term for tf-idf) have similarity 0 to everything and no neighbours.
- Queries are sampled uniformly without replacement from a pool of corpus rows (every row, the
  ledes, or given ids) with ``numpy.random.default_rng(seed)``; samples are drawn independently.
- Self-exclusion: a query never counts as its own neighbour. The corpus is deduplicated by
  exact text, so excluding the query's corpus index excludes every exact duplicate too.
- Neighbour ties are broken by the lower corpus index (input order); identical vectors always
  tie on the exact backends (float64 rescoring of near ties:
  :mod:`ranklens.search.ties`). HNSW / IVF apply the rule only among the candidates they
  return (not guaranteed; recorded as such in provenance).
- Vectors are L2-normalised once (``unit=True``), so every search is an inner product
  (:class:`~ranklens.search.rows.UnitRows`): no corpus block is normalised again.
- Vectors are stored once. Dense embedders are encoded through :mod:`ranklens.engine` (the one
  cache). Up to ``mmap_bytes`` the (normalised) vectors are an in-memory array filled chunk by
  chunk. Beyond it, with the on-disk cache, the search reads the cache's memory-mapped shards
  directly (:meth:`~ranklens.engine.ScoringEngine.encode_stored`, rows normalised as read: no
  second copy on disk); without it (``--no-cache``) they are written into a memory-mapped
  working file under ``work_dir`` (deleted with it), the only copy. Sparse tf-idf
  (:meth:`~ranklens.embedders.TfidfEmbedder.encode_sparse`) is computed directly: it is a
  deterministic transform of the fitted statistics, cheaper to recompute than to cache.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..engine import ScoringEngine, _ACTIVE, default_engine, encode_texts
from ..errors import ValidationError
from ..search.faiss import build_hnsw, build_ivf, faiss_knn, hnsw_knn, ivf_knn
from ..search.knn import exact_knn, recall_at_k
from ..search.rows import UnitRows, is_sparse, is_unit, l2_normalize, unit_rows, zero_rows
from ..search.ties import KnnResult
from .declaration import Params

__all__ = ["NeighborSearch", "as_vectors", "corpus_neighbors", "corpus_vectors", "named_embedders", "neighbors_of",
           "sample_queries"]

DEFAULTS = Params()  # kernel defaults are the declared ones


@dataclass(frozen=True)
class NeighborSearch:
    """How neighbours are searched.

    Args:
        backend: ``"auto"`` / ``"numpy"`` / ``"torch"`` (exact, blocked; auto = FAISS's BLAS
            k-NN per block when installed), ``"faiss"`` (exact ``IndexFlatIP``), or approximate
            ``"hnsw"`` (FAISS HNSW) / ``"ivf"`` (FAISS IVF-Flat), whose recall@k against exact
            search is measured and reported. Sparse vectors always use exact blocked sparse
            products.
        block_size: corpus rows per block for exact search.
        M, ef_construction, ef_search: HNSW parameters.
        nlist, nprobe: IVF lists (``None``: :func:`~ranklens.search.faiss.default_nlist`,
            4 sqrt(n)) and lists searched per query.
        n_holdout: held-out queries for measuring the approximate backend's recall@k against
            exact search.
    """

    backend: Literal["auto", "numpy", "torch", "faiss", "hnsw", "ivf"] = DEFAULTS.backend  # type: ignore[assignment]
    block_size: int = DEFAULTS.block_size
    M: int = DEFAULTS.hnsw_m
    ef_construction: int = DEFAULTS.ef_construction
    ef_search: int = DEFAULTS.ef_search
    nlist: int | None = DEFAULTS.nlist
    nprobe: int = DEFAULTS.nprobe
    n_holdout: int = DEFAULTS.n_holdout


def named_embedders(embedders: Mapping[str, Any] | Sequence[Any]) -> dict[str, Any]:
    """``{name: embedder}`` from a mapping or a sequence (named by ``name`` or fingerprint)."""
    if isinstance(embedders, Mapping):
        out = {str(k): v for k, v in embedders.items()}
    else:
        out = {}
        for e in embedders:
            name = str(getattr(e, "name", None) or e.fingerprint)
            if name in out:
                raise ValidationError(f"two embedders are named {name!r}; pass a dict name -> embedder")
            out[name] = e
    if not out:
        raise ValidationError("no embedders given")
    return out


def sample_queries(n_corpus: int, n_queries: int, n_samples: int, seed: int,
                   pool: Sequence[int] | np.ndarray | None = None) -> list[np.ndarray]:
    """``n_samples`` independent samples of ``n_queries`` distinct corpus indices (seeded), drawn
    from ``pool`` (default: every corpus row)."""
    if n_queries < 1 or n_samples < 1:
        raise ValidationError("n_queries and n_samples must be >= 1")
    rows = np.arange(n_corpus) if pool is None else np.asarray(pool, dtype=np.int64)
    if n_queries > len(rows):
        raise ValidationError(f"n_queries={n_queries} exceeds the {len(rows)} sentences queries are drawn from")
    rng = np.random.default_rng(seed)
    if pool is None:
        return [np.sort(rng.choice(n_corpus, size=n_queries, replace=False)) for _ in range(n_samples)]
    return [np.sort(rows[rng.choice(len(rows), size=n_queries, replace=False)]) for _ in range(n_samples)]


def _dense_chunks(embedder: Any, texts: Sequence[str], engine: ScoringEngine | None, chunk_size: int,
                  mmap_bytes: int, work_dir: Path | None, unit: bool) -> Any:
    n = len(texts)
    out: np.ndarray | None = None
    name = getattr(embedder, "name", "embedder")
    for start in range(0, n, chunk_size):
        vecs = encode_texts(embedder, list(texts[start : start + chunk_size]), engine=engine,
                            desc=f"{name} [{start}/{n}]")
        if out is None:
            if n * vecs.shape[1] * 4 > mmap_bytes:
                eng = engine or _ACTIVE.get() or default_engine()
                stored = eng.encode_stored(embedder, texts, unit=unit, desc=f"{name} [{n}]")
                if stored is not None:  # the cache's shards are the only copy
                    return stored
                where = Path(tempfile.mkdtemp(prefix="n2o-", dir=work_dir))
                out = np.lib.format.open_memmap(where / "vectors.npy", mode="w+", dtype=np.float32,
                                                shape=(n, vecs.shape[1]))
            else:
                out = np.empty((n, vecs.shape[1]), np.float32)
        out[start : start + len(vecs)] = l2_normalize(vecs) if unit else vecs
    if out is None:
        raise ValidationError("cannot embed an empty corpus")
    return UnitRows(out) if unit else out


def corpus_vectors(embedder: Any, texts: Sequence[str], *, engine: ScoringEngine | None = None,
                   chunk_size: int = 16_384, mmap_bytes: int = 1 << 30, work_dir: Path | None = None,
                   unit: bool = False) -> Any:
    """Vectors of ``texts``: a CSR matrix for sparse tf-idf, else float32 rows filled through the
    engine chunk by chunk: an array, or beyond ``mmap_bytes`` a read-only view on the cache's
    memory-mapped shards (a working memmap under ``work_dir`` without an on-disk cache). With
    ``unit=True`` rows are L2-normalised once (:class:`~ranklens.search.rows.UnitRows`, a unit
    view, or a normalised CSR matrix), so searches are inner products (module docstring)."""
    if getattr(embedder, "sparse", False) and hasattr(embedder, "encode_sparse"):
        x = embedder.encode_sparse(texts)
        return l2_normalize(x) if unit else x
    return _dense_chunks(embedder, texts, engine, chunk_size, mmap_bytes, work_dir, unit)


def _rows(vectors: Any, idx: np.ndarray) -> Any:
    return vectors[np.asarray(idx)] if is_sparse(vectors) else np.asarray(vectors[np.asarray(idx)], np.float32)


def _approx_neighbors(vectors: Any, q: Any, query_idx: np.ndarray, k: int, search: NeighborSearch, seed: int,
                      info: dict[str, float]) -> KnnResult:
    """HNSW or IVF neighbours of the queries, and the index's recall@k against exact search on
    ``n_holdout`` held-out corpus rows (not queries of any sample)."""
    t0 = time.perf_counter()
    excl = [[int(i)] for i in query_idx]
    if search.backend == "hnsw":
        index = build_hnsw(vectors, M=search.M, ef_construction=search.ef_construction)

        def find(x: Any, ex: list[list[int]]) -> KnnResult:
            return hnsw_knn(index, x, k, ef_search=search.ef_search, exclude=ex)
    else:
        index = build_ivf(vectors, nlist=search.nlist, seed=seed)
        info["nlist"] = float(index.nlist)

        def find(x: Any, ex: list[list[int]]) -> KnnResult:
            return ivf_knn(index, x, k, nprobe=search.nprobe, exclude=ex)
    info["build_seconds"] = time.perf_counter() - t0
    res = find(q, excl)
    rng = np.random.default_rng(seed + 7919)
    pool = np.setdiff1d(np.arange(vectors.shape[0]), query_idx)
    hold = np.sort(rng.choice(pool, size=min(search.n_holdout, len(pool)), replace=False))
    if len(hold):
        hq = np.asarray(vectors[hold], dtype=np.float32)
        hx = [[int(i)] for i in hold]
        exact = exact_knn(vectors, hq, k, block_size=search.block_size, exclude=hx)
        info["recall_at_k"] = recall_at_k(find(hq, hx).indices, exact.indices)
        info["recall_queries"] = float(len(hold))
    return res


def corpus_neighbors(vectors: Any, query_idx: np.ndarray, k: int, *, search: NeighborSearch | None = None,
                     seed: int = 0) -> tuple[KnnResult, dict[str, float]]:
    """Neighbours of corpus rows ``query_idx`` among all corpus rows, excluding each query itself.

    Returns:
        (neighbours, info) where info has ``search_seconds`` and, for HNSW and IVF,
        ``recall_at_k`` (approximate vs. exact on ``recall_queries`` held-out queries) and
        ``build_seconds`` (IVF: also ``nlist``).
    """
    search = search or NeighborSearch()
    q = _rows(vectors, query_idx)
    excl = [[int(i)] for i in query_idx]
    info: dict[str, float] = {}
    t0 = time.perf_counter()
    if is_sparse(vectors) or search.backend in ("auto", "numpy", "torch"):
        backend = "numpy" if is_sparse(vectors) else search.backend
        res = exact_knn(vectors, q, k, block_size=search.block_size, exclude=excl, backend=backend)
    elif search.backend == "faiss":
        res = faiss_knn(vectors, q, k, exclude=excl)
    elif search.backend in ("hnsw", "ivf"):
        res = _approx_neighbors(vectors, q, query_idx, k, search, seed, info)
    else:
        raise ValidationError(f"unknown search backend {search.backend!r}")
    info["search_seconds"] = time.perf_counter() - t0
    return res, info


def neighbors_of(vectors: Mapping[str, Any], query_idx: np.ndarray, k: int, search: NeighborSearch | None,
                 seed: int) -> tuple[dict[str, np.ndarray], dict[str, dict[str, float]], dict[str, np.ndarray]]:
    """Per embedder: neighbour indices of the queries, search info, and the mask of the queries
    it maps to the zero vector (no neighbours)."""
    nn: dict[str, np.ndarray] = {}
    info: dict[str, dict[str, float]] = {}
    zero: dict[str, np.ndarray] = {}
    for name, vecs in vectors.items():
        res, inf = corpus_neighbors(vecs, query_idx, k, search=search, seed=seed)
        nn[name] = res.indices
        zero[name] = zero_rows(_rows(vecs, query_idx))
        info[name] = inf
    return nn, info, zero


def as_vectors(models: Mapping[str, Any] | Sequence[Any], texts: Sequence[str], engine: ScoringEngine | None = None,
               components: Mapping[str, str] | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """``{name: unit-normalised corpus vectors}`` and ``{name: fingerprint}`` from embedders
    (encoded here) or precomputed vectors (arrays or CSR matrices; normalised once, as a copy,
    unless they are :class:`~ranklens.search.rows.UnitRows` or a unit view already)."""
    named = named_embedders(models)
    vecs, comps = {}, dict(components or {})
    for name, m in named.items():
        if isinstance(m, np.ndarray) or is_sparse(m) or is_unit(m) or hasattr(m, "gather"):
            vecs[name] = unit_rows(m)  # normalised once (a copy of a raw array; the input is unchanged)
        else:
            vecs[name] = corpus_vectors(m, texts, engine=engine, unit=True)
            comps.setdefault(name, m.fingerprint)
    return vecs, comps
