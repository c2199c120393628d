"""Search in the core: exact k-NN with one tie rule, FAISS indexes, and the overlap of rankings.

- :mod:`.rows`: unit rows, L2 normalisation, zero rows, sparse detection, block products.
- :mod:`.ties`: the one tie rule (score desc, lower index; near ties of float32 products settled
  in float64) and :class:`KnnResult`.
- :mod:`.knn`: :func:`exact_knn` (blocked, dense or sparse, numpy / torch / FAISS per block),
  :func:`top_k` / :func:`top_k_rows` for precomputed score matrices, :func:`recall_at_k`.
- :mod:`.faiss`: FAISS ``IndexFlatIP`` (exact), HNSW and IVF (approximate).
- :mod:`.overlap`: k-NN set overlap and rank-biased overlap (RBO).

The core imports no analysis; the analyses (neighbors, regimes, explain) call these.
"""

from __future__ import annotations

from .faiss import build_hnsw, build_ivf, default_nlist, faiss_available, faiss_knn, hnsw_knn, ivf_knn
from .knn import exact_knn, recall_at_k, top_k, top_k_rows
from .overlap import knn_overlap, rbo
from .rows import UnitRows, block_similarities, is_sparse, is_unit, l2_normalize, unit_rows, zero_rows
from .ties import KnnResult

__all__ = [
    "KnnResult",
    "UnitRows",
    "block_similarities",
    "build_hnsw",
    "build_ivf",
    "default_nlist",
    "exact_knn",
    "faiss_available",
    "faiss_knn",
    "hnsw_knn",
    "is_sparse",
    "is_unit",
    "ivf_knn",
    "knn_overlap",
    "l2_normalize",
    "rbo",
    "recall_at_k",
    "top_k",
    "top_k_rows",
    "unit_rows",
    "zero_rows",
]
