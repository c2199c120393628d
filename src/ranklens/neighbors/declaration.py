"""The ``neighbors`` analysis: nearest-neighbour overlap (Lin & Smith). Declared once; the CLI
(``ranklens neighbors``), experiment files (``type = "neighbors"``), the demo and the report
derive from it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..declare import Analysis, ModelRows, ResultKind, param

__all__ = ["ANALYSIS", "Params", "run"]


@dataclass(frozen=True)
class Params:
    k: int = param(10, "neighbours per query sentence", min=1)
    n_queries: int = param(50, "query sentences per sample", min=1)
    n_samples: int = param(3, "samples of query sentences (mean and spread of N2O)", min=1)
    ranker_k: int = param(10, "depth of the rankers' top-k overlap", min=1)
    max_sentences: int = param(20000, "sentences at most (a seeded sample of whole documents beyond)", min=0)


def run(collection: Any, models: dict[str, dict[str, Any]], params: Params, *, engine: Any = None, seed: int = 0,
        work_dir: Path | None = None) -> list[Any]:
    """N2O matrix and token overlap of the embedders among the models (over the dataset's
    sentences), and the top-k overlap/RBO of every model as a ranker."""
    import numpy as np

    from ..drive import build_models, need_models, runs_for_models, skipped_warnings
    from ..embedders import make_embedder
    from .analysis import n2o_matrix, ranker_overlap, token_overlap
    from .corpus import build_corpus

    p = params
    docs = list(collection.docs.iter_docs())
    corpus = build_corpus(docs)
    if p.max_sentences and len(corpus) > p.max_sentences:
        # a seeded uniform sample of whole documents, sized to about max_sentences sentences
        keep = max(1, len(docs) * p.max_sentences // len(corpus))
        pick = np.sort(np.random.default_rng(seed).choice(len(docs), size=keep, replace=False))
        corpus = build_corpus([docs[i] for i in pick])
    texts = list(corpus.texts)
    embedders, skipped = build_models(models, make_embedder, texts)
    results: list[Any] = []
    k = p.k
    n_q = min(p.n_queries, len(corpus) - k - 1)
    if len(embedders) >= 2:
        results.append(n2o_matrix(embedders, corpus, k=k, n_queries=n_q, n_samples=p.n_samples,
                                  seed=seed, engine=engine))
    if embedders:
        results.append(token_overlap(embedders, corpus, k=k, n_queries=n_q, seed=seed, engine=engine))
    runs, skipped_r = runs_for_models(collection, models, p.ranker_k, engine)
    if len(runs) >= 2:
        results.append(ranker_overlap(runs, k=p.ranker_k))
    if not results:
        need_models("neighbors", embedders, 2, {**skipped, **skipped_r})
    warn = skipped_warnings({**skipped, **{f"{k} (ranker)": v for k, v in skipped_r.items()}})
    return [r.with_warnings(*warn) for r in results]


_N = "ranklens.neighbors.plots"
ANALYSIS = Analysis(
    name="neighbors",
    title="Nearest-neighbour overlap",
    params=Params,
    run="ranklens.neighbors.declaration:run",
    prefixes=("n2o", "ranker-overlap", "neighbors"),
    help="nearest-neighbour overlap (N2O) of embedders, token overlap, rankers' top-k overlap",
    description="How alike two embedders are, from their k-NN sets (Lin & Smith).",
    kinds=(
        ResultKind("n2o-matrix", "N2O between embedders",
                   plots=(f"{_N}:plot_n2o_matrix", f"{_N}:plot_n2o_distribution"),
                   model_rows=ModelRows("embedder_a", ("n2o_mean",), items=("embedder_b",), prefix="vs ")),
        ResultKind("n2o-robustness", "Robustness", plots=(f"{_N}:plot_robustness",)),
        ResultKind("n2o-token-overlap", "Token overlap", plots=(f"{_N}:plot_token_overlap",),
                   model_rows=ModelRows("embedder", ("mean",), ci=("ci_low", "ci_high"), n="n_queries",
                                        rename=(("mean", "token_overlap"),))),
        ResultKind("n2o-needle", "Needle in a haystack", plots=(f"{_N}:plot_needle",),
                   model_rows=ModelRows("embedder", ("mrr", "n_top1", "n_top5"), n="n_pairs")),
        ResultKind("ranker-overlap", "Rankers' top-k overlap", plots=(f"{_N}:plot_ranker_overlap",),
                   model_rows=ModelRows("ranker_a", ("overlap_mean", "rbo_mean"), items=("ranker_b",),
                                        prefix="vs ")),
    ),
    min_models=2,
    demo={},
)
