"""Demo hook for ``ranklens demo``: explanation consistency on the shipped demo collection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..results import Result

__all__ = ["run_demo"]


def run_demo(out_dir: Path, *, engine: Any = None, max_queries: int = 10, pool: int = 20) -> list[Result]:
    """MRC@10 and MER@10 of BM25, TF-IDF and MiniLM on the demo collection.

    The first ``max_queries`` demo queries; every ranker re-ranks the BM25 top-``pool`` documents
    of each query (the cap keeps MiniLM on CPU near a minute); the top 10 are explained with
    sentence and ``window:5`` occlusion rationales (m = 3, at most max(units, 12) masked sets per
    document); MER@10 uses the demo's sentence-level relevance and MiniLM cosine. Also an ``m``
    sweep (1-4) for sentence rationales. Results are saved under ``out_dir/<kind>-demo/``.
    """
    from ..datasets.demo import load_demo, load_demo_subdoc_qrels
    from ..embedders import make_embedder
    from ..rankers import make_ranker
    from .consistency import explanation_consistency, explanation_sweep, rank_candidates
    from .files import read_subdoc_qrels
    from .occlusion import OcclusionExplainer

    coll = load_demo()
    queries = coll.queries.head(max_queries)
    texts = [t for _, t in coll.docs.iter_docs()]
    rankers = {
        "bm25": make_ranker("bm25", corpus=texts),
        "tfidf": make_ranker("tfidf", corpus=texts),
        "minilm": make_ranker("minilm"),
    }
    subdoc = read_subdoc_qrels(load_demo_subdoc_qrels())
    embedder = make_embedder("minilm")
    explainer = OcclusionExplainer(n=2, samples=12, seed=0)
    cand = rank_candidates(rankers["bm25"], queries, coll.docs, engine=engine)
    cand = cand[cand["rank"] <= pool][["query_id", "doc_id"]]
    out = Path(out_dir)
    cons = explanation_consistency(
        rankers, queries, coll.docs, qrels=coll.qrels, candidates=cand, granularities=("sentence", "window:5"), m=3,
        ks=(10,), mer_k=10, explainer=explainer, subdoc=subdoc, embedder=embedder, engine=engine,
    )
    cons.save(out / "explain-consistency-demo")
    sweep = explanation_sweep(
        rankers, queries, coll.docs, qrels=coll.qrels, candidates=cand, ms=(1, 2, 3, 4), granularities=("sentence",),
        ks=(10,), mer_k=10, explainer=explainer, subdoc=subdoc, embedder=embedder, engine=engine,
    )
    sweep.save(out / "explain-sweep-demo")
    return [cons, sweep]
