"""Nearest-neighbour overlap (N2O): situate embedders (and rankers) by their k-NN sets.

Implements Lin & Smith, "Situating Sentence Embedders with Nearest Neighbor Overlap", at corpus
scale: sentence corpus with ids and deduplication (:mod:`.corpus`), memory-mapped embedding store
(:mod:`.store`), blocked exact and FAISS k-NN (:mod:`.knn`), overlap kernels and RBO
(:mod:`.overlap`), analyses returning :class:`ranklens.results.Result` (:mod:`.analysis`) and
plots (:mod:`.plots`).
"""

from __future__ import annotations

from .analysis import (
    NeighborSearch,
    corpus_neighbors,
    n2o_matrix,
    n2o_robustness,
    needle_in_haystack,
    popular_outliers,
    ranker_overlap,
    run_from_ranker,
    sample_queries,
    token_overlap,
)
from .corpus import SentenceCorpus, build_corpus
from .knn import KnnResult, build_hnsw, exact_knn, faiss_knn, hnsw_knn, recall_at_k
from .overlap import knn_overlap, rbo, token_jaccard
from .plots import (
    plot_n2o_distribution,
    plot_n2o_matrix,
    plot_needle,
    plot_ranker_overlap,
    plot_robustness,
    plot_token_overlap,
)
from .store import EmbeddingStore

__all__ = [
    "EmbeddingStore",
    "KnnResult",
    "NeighborSearch",
    "SentenceCorpus",
    "build_corpus",
    "build_hnsw",
    "corpus_neighbors",
    "exact_knn",
    "faiss_knn",
    "hnsw_knn",
    "knn_overlap",
    "n2o_matrix",
    "n2o_robustness",
    "needle_in_haystack",
    "plot_n2o_distribution",
    "plot_n2o_matrix",
    "plot_needle",
    "plot_ranker_overlap",
    "plot_robustness",
    "plot_token_overlap",
    "popular_outliers",
    "ranker_overlap",
    "rbo",
    "recall_at_k",
    "run_from_ranker",
    "sample_queries",
    "token_jaccard",
    "token_overlap",
]
