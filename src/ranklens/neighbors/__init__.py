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

from .._lazy import lazy_exports

# the public names load from their modules on first use: importing the package (and its
# declaration, for `ranklens --help`) costs nothing
_WHERE = {
    "SentenceCorpus": ".corpus",
    "build_corpus": ".corpus",
    "read_pairs": "ranklens.io.pairs",
    "read_sentences": "ranklens.io.pairs",
    "read_query_ids": ".inputs",
    "n2o_matrix": ".n2o",
    "n2o_robustness": ".n2o",
    "paired_tests": ".n2o",
    "needle_in_haystack": ".needle",
    "needle_ranks": ".needle",
    "select_pairs": ".needle",
    "token_jaccard": ".needle",
    "plot_n2o_distribution": ".plots",
    "plot_n2o_matrix": ".plots",
    "plot_needle": ".plots",
    "plot_ranker_overlap": ".plots",
    "plot_robustness": ".plots",
    "plot_token_overlap": ".plots",
    "ranker_overlap": ".rankers",
    "run_from_ranker": ".rankers",
    "NeighborSearch": ".search",
    "corpus_neighbors": ".search",
    "corpus_vectors": ".search",
    "sample_queries": ".search",
    "popular_outliers": ".tokens",
    "token_overlap": ".tokens",
    # k-NN search and the overlap measures live in the core; re-exported for the neighbors guide
    "KnnResult": "ranklens.search",
    "build_hnsw": "ranklens.search",
    "build_ivf": "ranklens.search",
    "exact_knn": "ranklens.search",
    "faiss_knn": "ranklens.search",
    "hnsw_knn": "ranklens.search",
    "ivf_knn": "ranklens.search",
    "knn_overlap": "ranklens.search",
    "rbo": "ranklens.search",
    "recall_at_k": "ranklens.search",
}
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

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
