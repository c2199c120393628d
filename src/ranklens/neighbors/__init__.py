"""Nearest-neighbour overlap (N2O): situate embedders (and rankers) by their k-NN sets.

Implements Lin & Smith, "Situating Sentence Embedders with Nearest Neighbor Overlap": a sentence
corpus with ids, ledes and deduplication (:mod:`.corpus`), sentence and pair files
(:mod:`.inputs`), corpus vectors through the engine and neighbour search (:mod:`.search`, on
:mod:`ranklens.search`: blocked exact dense and sparse k-NN, FAISS, HNSW), the analyses returning
:class:`ranklens.results.Result` -- N2O and its statistics (:mod:`.n2o`), token overlap and
popular/outlier neighbours (:mod:`.tokens`), the needle test (:mod:`.needle`), rankers' overlap
(:mod:`.rankers`) -- and plots (:mod:`.plots`). The ``neighbors`` analysis (:mod:`.declaration`,
run by :mod:`.driver`) runs them from the CLI, experiment files and the demo.
"""

from __future__ import annotations

from .corpus import SentenceCorpus, build_corpus
from ..io.pairs import read_pairs, read_sentences
from .inputs import read_query_ids
from .n2o import n2o_matrix, n2o_robustness, paired_tests
from .needle import needle_in_haystack, needle_ranks, select_pairs, token_jaccard
from .plots import (
    plot_n2o_distribution,
    plot_n2o_matrix,
    plot_needle,
    plot_ranker_overlap,
    plot_robustness,
    plot_token_overlap,
)
from .rankers import ranker_overlap, run_from_ranker
from .search import NeighborSearch, corpus_neighbors, corpus_vectors, sample_queries
from .tokens import popular_outliers, token_overlap

# k-NN search and the overlap measures live in the core (ranklens.search); re-exported here because
# the neighbors guide imports them from ranklens.neighbors
from ..search import (KnnResult, build_hnsw, build_ivf, exact_knn, faiss_knn, hnsw_knn, ivf_knn, knn_overlap, rbo,
                      recall_at_k)

__all__ = [
    "KnnResult",
    "NeighborSearch",
    "SentenceCorpus",
    "build_corpus",
    "build_hnsw",
    "build_ivf",
    "corpus_neighbors",
    "corpus_vectors",
    "exact_knn",
    "faiss_knn",
    "hnsw_knn",
    "ivf_knn",
    "knn_overlap",
    "n2o_matrix",
    "n2o_robustness",
    "needle_in_haystack",
    "needle_ranks",
    "paired_tests",
    "plot_n2o_distribution",
    "plot_n2o_matrix",
    "plot_needle",
    "plot_ranker_overlap",
    "plot_robustness",
    "plot_token_overlap",
    "popular_outliers",
    "ranker_overlap",
    "rbo",
    "read_pairs",
    "read_query_ids",
    "read_sentences",
    "recall_at_k",
    "run_from_ranker",
    "sample_queries",
    "select_pairs",
    "token_jaccard",
    "token_overlap",
]
