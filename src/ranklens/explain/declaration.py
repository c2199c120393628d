"""The ``explain`` analysis: explanation consistency (Pandian, Ganguly & MacAvaney). Declared
once; the CLI (``ranklens explain``), experiment files (``type = "explain"``), the demo and the
report derive from it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..declare import Analysis, ModelRows, ResultKind, param

__all__ = ["ANALYSIS", "Params", "run"]


@dataclass(frozen=True)
class Params:
    pool: int = param(20, "documents per query re-ranked by every model", min=1)
    max_queries: int = param(10, "first N queries", min=1)
    m: int = param(3, "rationales per document", min=1)
    k: tuple[int, ...] = param((10,), "MRC cut-offs (the first is also MER's)")
    granularities: tuple[str, ...] = param(("sentence", "window:5"), "rationale units",
                                           choices=("sentence", "window:N"))
    samples: int = param(12, "masked sets per document", min=1)
    pool_model: str | None = param(None, "model whose ranking makes the pool (default: BM25)")
    subdoc: str | None = param(None, "sub-document relevance file (for MER), or 'demo'", path=True)
    sweep_m: tuple[int, ...] = param((1, 2, 3, 4), "m values of the rationale-size sweep (none: no sweep)")


def run(collection: Any, models: dict[str, dict[str, Any]], params: Params, *, engine: Any = None, seed: int = 0,
        work_dir: Path | None = None) -> list[Any]:
    """MRC@k (and MER@k when ``subdoc`` names a sub-document qrels file) of every model, on the
    first ``max_queries`` queries; each model re-ranks the ``pool`` top documents of
    ``pool_model`` (default: BM25); plus an ``m`` sweep of sentence rationales."""
    from ..drive import build_models, collection_texts, need_models, skipped_warnings
    from ..errors import ValidationError
    from ..rankers import make_ranker
    from .consistency import explanation_consistency, explanation_sweep, rank_candidates
    from .files import read_subdoc_qrels
    from .occlusion import OcclusionExplainer

    p = params
    texts = collection_texts(collection)
    rankers, skipped = build_models(models, make_ranker, texts)
    need_models("explain", rankers, 1, skipped)
    if p.pool_model and p.pool_model not in rankers:
        raise ValidationError(f"params.pool_model: {p.pool_model!r} is not one of the models {sorted(rankers)}")
    queries = collection.queries.head(p.max_queries)
    pool_ranker = rankers[p.pool_model] if p.pool_model else make_ranker("bm25", corpus=texts)
    cand = rank_candidates(pool_ranker, queries, collection.docs, engine=engine)
    cand = cand[cand["rank"] <= p.pool][["query_id", "doc_id"]]
    subdoc = None
    if p.subdoc == "demo":
        from ..datasets.demo import load_demo_subdoc_qrels

        subdoc = read_subdoc_qrels(load_demo_subdoc_qrels())
    elif p.subdoc:
        subdoc = read_subdoc_qrels(p.subdoc)
    kw = dict(qrels=collection.qrels, candidates=cand, ks=p.k, mer_k=p.k[0], subdoc=subdoc, engine=engine,
              explainer=OcclusionExplainer(n=2, samples=p.samples, seed=seed))
    results = [explanation_consistency(rankers, queries, collection.docs, granularities=p.granularities,
                                       m=p.m, **kw)]
    if p.sweep_m:
        results.append(explanation_sweep(rankers, queries, collection.docs, ms=p.sweep_m,
                                         granularities=("sentence",), **kw))
    warn = skipped_warnings(skipped)
    return [r.with_warnings(*warn) for r in results]


_E = "ranklens.explain.plots"
ANALYSIS = Analysis(
    name="explain",
    title="Explanation consistency",
    params=Params,
    run="ranklens.explain.declaration:run",
    help="explanation consistency of rankers: occlusion rationales, MRC@k, MER@k",
    description="Occlusion rationales scored intrinsically (MRC) and against sub-document relevance (MER).",
    kinds=(
        ResultKind("explain-consistency", "Explanation consistency",
                   plots=(f"{_E}:plot_consistency", f"{_E}:plot_relevance_scatter"),
                   extra_html="ranklens.explain.display:result_html",
                   model_rows=ModelRows("ranker", ("mrc@10", "mrc@50", "mer@10", "ndcg@10"), items=("granularity",))),
        ResultKind("explain-rationales", "Rationales", extra_html="ranklens.explain.display:result_html"),
        ResultKind("explain-sweep", "Sweep", plots=(f"{_E}:plot_sweep",)),
    ),
    demo={"subdoc": "demo"},
)
