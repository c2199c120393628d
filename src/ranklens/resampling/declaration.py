"""The ``regimes`` analysis: interpolation vs extrapolation (Zhan et al.). Declared once; the CLI
(``ranklens regimes``), experiment files (``type = "regimes"``), the demo and the report derive
from it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..declare import Analysis, ModelRows, ResultKind, param
from ..errors import ValidationError

__all__ = ["ANALYSIS", "Params", "run"]


@dataclass(frozen=True)
class Params:
    buckets: int = param(5, "ReSTTest buckets (folds)", min=2)
    train_fraction: float = param(0.5, "share of the judged queries in the training pool", min=0.0, max=1.0)
    k: int = param(10, "nearest training queries per test query (similarity diagnostics)", min=1)
    fine_tune_steps: int = param(0, "MiniLM fine-tuning steps (0 = no neural model)", min=0)


def run(collection: Any, models: dict[str, dict[str, Any]], params: Params, *, engine: Any = None, seed: int = 0,
        work_dir: Path | None = None) -> list[Any]:
    """Interpolation vs. extrapolation on one collection: its judged queries are split (seeded)
    into a training pool and test queries; diagnostics, ReSTTest with ``buckets`` folds; trains
    tuned BM25 and the memorising baseline (plus a MiniLM fine-tune when ``fine_tune_steps`` > 0)
    and evaluates them in both regimes. ``models`` are not used: the trainers make the models."""
    import tempfile

    import numpy as np

    from .diagnostics import label_overlap
    from .evaluation import evaluate_regimes
    from .plots import split_pca
    from .similarity import query_similarity
    from .splits import ReSTTest, queries_with_positives
    from .trainers import BiEncoderTrainer, BM25Trainer, MemorizingTrainer, train_variants

    p = params
    judged = queries_with_positives(collection.queries[["query_id", "text"]], collection.qrels)
    if len(judged) < 2 * p.buckets:
        raise ValidationError(f"{collection.name}: {len(judged)} judged queries are too few for "
                              f"{p.buckets} ReSTTest buckets")
    rng = np.random.default_rng(seed)
    is_train = np.zeros(len(judged), dtype=bool)
    is_train[rng.permutation(len(judged))[: int(round(len(judged) * p.train_fraction))]] = True
    train_q, test_q = judged[is_train].reset_index(drop=True), judged[~is_train].reset_index(drop=True)
    qrels = collection.qrels
    train_qrels = qrels[qrels["query_id"].isin(train_q["query_id"])]
    test_qrels = qrels[qrels["query_id"].isin(test_q["query_id"])]
    corpus = dict(collection.docs.iter_docs())
    results: list[Any] = [query_similarity(test_q, train_q, method="bm25", k=p.k, engine=engine),
                          label_overlap(test_qrels, train_qrels)]
    splits = ReSTTest(n_buckets=p.buckets, seed=seed, name=f"resttest-{collection.name}").fit(
        train_q, test_q).splits_
    trainers: list[Any] = [BM25Trainer(), MemorizingTrainer()]
    if p.fine_tune_steps > 0:
        trainers.append(BiEncoderTrainer(max_steps=p.fine_tune_steps, name="minilm-ft"))
    results.append(split_pca(splits[0], judged, seed=seed))  # paper Fig. 1, first fold
    with tempfile.TemporaryDirectory() as tmp:
        models_dir = (work_dir or Path(tmp)) / "models"
        variants = train_variants(trainers, splits, judged, qrels, corpus, models_dir, engine=engine)
        results.append(evaluate_regimes(variants, splits, judged, qrels, corpus, seed=seed, engine=engine))
    return results


_R = "ranklens.resampling.evaluation"
ANALYSIS = Analysis(
    name="regimes",
    title="Interpolation vs extrapolation",
    params=Params,
    run="ranklens.resampling.declaration:run",
    prefixes=("regime", "regimes", "resample", "split", "label-overlap", "query-similarity", "ood-correlation",
              "annotation-summary"),
    help="interpolation vs extrapolation: resampled train/test queries, retrained models, both regimes",
    description="ReSTTest / ReSTrain resampling and evaluation of retrained models (Zhan et al.).",
    needs_qrels=True,
    min_models=0,
    kinds=(
        ResultKind("regime-table", "Interpolation vs extrapolation", plots=(f"{_R}:plot_regimes",),
                   model_rows=ModelRows("model", items=("setting", "regime"), long=("measure", "value"))),
        ResultKind("ood-correlation", "Out-of-distribution correlation", plots=(f"{_R}:plot_ood",)),
        ResultKind("split-pca", "Split (PCA)", plots=("ranklens.resampling.plots:plot_split_pca_result",)),
    ),
    demo={},
)
