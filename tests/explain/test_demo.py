from __future__ import annotations

import ranklens.embedders
import ranklens.rankers
from ranklens.engine import ScoringEngine
from ranklens.explain.demo import run_demo
from ranklens.results import Result
from ranklens.testing import HashEmbedder, OverlapRanker


def test_demo_wiring_with_toy_neural_components(tmp_path, monkeypatch):
    """run_demo on the real demo collection, with MiniLM swapped for toys (the real model run is
    the ``ranklens demo`` smoke path, too slow for the unit suite on shared CPUs)."""
    real_ranker, real_embedder = ranklens.rankers.make_ranker, ranklens.embedders.make_embedder
    monkeypatch.setattr(ranklens.rankers, "make_ranker",
                        lambda spec, **kw: OverlapRanker() if spec == "minilm" else real_ranker(spec, **kw))
    monkeypatch.setattr(ranklens.embedders, "make_embedder",
                        lambda spec, **kw: HashEmbedder() if spec == "minilm" else real_embedder(spec, **kw))
    results = run_demo(tmp_path, engine=ScoringEngine(cache=False), max_queries=3, pool=12)
    assert [r.kind for r in results] == ["explain-consistency", "explain-sweep"]
    cons = Result.load(tmp_path / "explain-consistency-demo")
    assert set(cons.table["ranker"]) == {"bm25", "tfidf", "minilm"}
    assert set(cons.table["granularity"]) == {"sentence", "window:5"}
    assert cons.table["query_id"].nunique() == 3
    mer = cons.table["mer@10"].dropna()
    assert len(mer) > 0 and ((mer >= -1) & (mer <= 1 + 1e-6)).all()
    sweep = Result.load(tmp_path / "explain-sweep-demo")
    assert sorted(set(sweep.table["m"])) == [1, 2, 3, 4]
