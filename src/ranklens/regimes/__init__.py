"""Interpolation vs. extrapolation (Zhan et al., "Evaluating Interpolation and Extrapolation
Performance of Neural Retrieval Models", CIKM 2022).

- diagnostics of a benchmark: :func:`query_similarity`, :func:`label_overlap`,
  :func:`near_duplicates`, :func:`export_annotation_sheet`, :func:`read_annotation_sheets`;
- resampling: :class:`ReSTrain`, :class:`ReSTTest` (sklearn splitter protocol) producing
  :class:`Split` objects (save/load, sizes, :func:`split_similarity_stats`, the 2-D PCA Result
  :func:`split_pca` drawn by :func:`plot_split_pca_result`, :func:`plot_split_pca`), and the
  authors' published split files (:func:`read_published_splits`, ``Split.load``);
- retraining: the :class:`Trainer` protocol, :class:`BiEncoderTrainer`,
  :class:`CrossEncoderTrainer`, :class:`BM25Trainer`, :class:`MemorizingTrainer`,
  :class:`CallableTrainer`, and the resumable :func:`train_variants`;
- evaluation: runs and per-query scores (:func:`model_run`, :func:`evaluate_run`),
  :func:`evaluate_regimes` (regime table, gap, paired tests, :func:`plot_regimes`),
  :func:`evaluate_collection`, :func:`ood_correlation`, :func:`plot_ood`.

The analysis (``ranklens regimes``, ``type = "regimes"``) is declared in :mod:`.declaration` and run
by :mod:`.driver`; its file tools are :mod:`.tools`.
"""

from __future__ import annotations

from .diagnostics import export_annotation_sheet, label_overlap, near_duplicates, read_annotation_sheets
from .evaluation import evaluate_regimes, paper_table, regime_table, setting_name, variant_key
from .finetune import BiEncoderTrainer, CrossEncoderTrainer
from .ood import evaluate_collection, ood_correlation, variant_scores
from .plots import (
    illustrate_split,
    plot_nn_similarity,
    plot_ood,
    plot_regimes,
    plot_split_pca,
    plot_split_pca_result,
    project_2d,
    split_pca,
)
from .rankers import FineTunedBiEncoderRanker, FineTunedCrossEncoderRanker, MemorizingRanker, tuned_bm25
from .scoring import (
    DEFAULT_MEASURES,
    EVALUATIONS,
    bm25_first_stage,
    candidate_run,
    evaluate_run,
    evaluation_mode,
    model_run,
    per_query_scores,
)
from .similarity import PlaneVectors, analyze, bm25_matrix, nearest_queries, query_similarity
from .splits import (
    EXTRAPOLATION,
    INTERPOLATION,
    REGIMES,
    SIZE_RULES,
    FittedSplits,
    ReSTrain,
    ReSTTest,
    Split,
    queries_with_positives,
    read_published_split,
    read_published_splits,
    split_similarity_stats,
)
from .trainers import BM25Trainer, CallableTrainer, MemorizingTrainer, Trainer, training_id
from .variants import TrainedVariant, train_variants

__all__ = [
    "BM25Trainer",
    "BiEncoderTrainer",
    "CallableTrainer",
    "CrossEncoderTrainer",
    "DEFAULT_MEASURES",
    "EVALUATIONS",
    "EXTRAPOLATION",
    "FineTunedBiEncoderRanker",
    "FittedSplits",
    "FineTunedCrossEncoderRanker",
    "INTERPOLATION",
    "MemorizingRanker",
    "MemorizingTrainer",
    "PlaneVectors",
    "REGIMES",
    "SIZE_RULES",
    "ReSTTest",
    "ReSTrain",
    "Split",
    "TrainedVariant",
    "Trainer",
    "analyze",
    "bm25_first_stage",
    "bm25_matrix",
    "candidate_run",
    "evaluate_collection",
    "evaluate_regimes",
    "evaluate_run",
    "evaluation_mode",
    "model_run",
    "export_annotation_sheet",
    "illustrate_split",
    "label_overlap",
    "near_duplicates",
    "nearest_queries",
    "ood_correlation",
    "paper_table",
    "per_query_scores",
    "plot_nn_similarity",
    "plot_ood",
    "plot_regimes",
    "plot_split_pca",
    "plot_split_pca_result",
    "project_2d",
    "queries_with_positives",
    "query_similarity",
    "read_annotation_sheets",
    "read_published_split",
    "read_published_splits",
    "regime_table",
    "setting_name",
    "split_pca",
    "split_similarity_stats",
    "train_variants",
    "tuned_bm25",
    "training_id",
    "variant_key",
    "variant_scores",
]
