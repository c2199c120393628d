"""Demo hook for ``ranklens demo``: ASL evaluation of BM25, TF-IDF and MiniLM on the demo set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..results import Result

__all__ = ["run_demo"]


def run_demo(out_dir: Path, *, engine: Any = None) -> list[Result]:
    """Retrieve the top 50 demo documents per query with BM25, TF-IDF and MiniLM, then run
    ``evaluate`` (tests against BM25), the per-document distribution (BM25 vs MiniLM, with
    plots), RRIE (MiniLM over BM25) and the MAP -> ASL chain. Each result is saved under
    ``out_dir/<kind>-demo/`` (plots as PNG next to it).

    Args:
        out_dir: where to write the result directories.
        engine: scoring engine for the MiniLM/TF-IDF encodings (default engine if None).
    """
    from ..datasets.demo import load_demo
    from ..embedders import make_embedder
    from ..rankers import BM25Ranker
    from ..rankers.retrieval import retrieve
    from .analyses import asl_distribution, map_to_asl_chain, rrie
    from .evaluation import evaluate
    from .plots import plot_chain, plot_deltas, plot_distribution

    coll = load_demo()
    texts = coll.docs.get_many(list(coll.docs))
    k = min(50, len(coll.docs))
    runs = {
        "bm25": retrieve(BM25Ranker(), coll.queries, coll.docs, k=k, engine=engine),
        "tfidf": retrieve(make_embedder("tfidf", corpus=texts), coll.queries, coll.docs, k=k,
                          engine=engine),
        "minilm": retrieve(make_embedder("minilm"), coll.queries, coll.docs, k=k, engine=engine),
    }
    qrels = coll.qrels
    out = Path(out_dir)
    ev = evaluate(qrels, runs, baseline="bm25", per_document=True, n_resamples=2000,
                  collection_size=len(coll.docs))
    dist = asl_distribution(qrels, runs["bm25"], runs["minilm"], name="bm25", other_name="minilm")
    rr = rrie(qrels, runs["bm25"], runs["minilm"], name_a="bm25", name_b="minilm")
    chain = map_to_asl_chain(qrels, runs)
    results = [ev, dist, rr, chain]
    for res in results:
        d = res.save(out / f"{res.kind}-demo")
        if res.kind == "asl-distribution":
            plot_distribution(res).savefig(d / "distribution.png", dpi=110)
            plot_deltas(res).savefig(d / "deltas.png", dpi=110)
        elif res.kind == "asl-chain":
            plot_chain(res).savefig(d / "chain.png", dpi=110)
    return results
