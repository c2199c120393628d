from __future__ import annotations

import pytest

from ranklens.engine import ScoringEngine
from ranklens.probes import get_probe, run_probes
from ranklens.results import Result


def test_run_demo_plumbing(tmp_path, monkeypatch):
    """run_demo end to end with a toy ranker in place of MiniLM (the real run is the demo hook)."""
    import ranklens.rankers as rk
    from ranklens.probes import demo
    from ranklens.testing import OverlapRanker

    real = rk.make_ranker
    monkeypatch.setattr(rk, "make_ranker", lambda spec, **kw: OverlapRanker() if spec == "minilm" else real(spec, **kw))
    monkeypatch.setattr(demo, "DEMO_CAP", 10)
    out = demo.run_demo(tmp_path, engine=ScoringEngine(cache=False))
    assert [r.kind for r in out] == ["probe-table", "probe-delta-sweep"]
    loaded = Result.load(tmp_path / "probe-table-demo")
    assert set(loaded.table.model) == {"bm25", "tfidf", "minilm"}
    assert {"demo-fluency", "tr-shuffle-words", "mm-rel-ctrl-len"} <= set(loaded.table.probe)
    assert (loaded.table[loaded.table.probe.str.startswith("demo-")].n > 0).all()


@pytest.mark.realdata
def test_cranfield_bag_of_words_invariances(shared_data):
    """Paper finding: BM25 and TF-IDF are unaffected by word or sentence shuffling (exactly:
    they see the same bag of words), but not by removing stopwords/punctuation for TF-IDF length
    normalisation... only the shuffles are asserted exactly."""
    from ranklens.probes._collections import load_collection_any
    from ranklens.rankers import make_ranker

    coll = load_collection_any(shared_data / "cranfield")
    rankers = {"BM25": make_ranker("bm25", corpus=coll.docs), "TF-IDF": make_ranker("tfidf", corpus=coll.docs)}
    probes = [get_probe(n, cap=150) for n in ("tr-shuffle-words", "tr-shuffle-sents", "mm-tf-ctrl-len")]
    res = run_probes(probes, rankers, coll, delta="calibrate", engine=ScoringEngine(cache=False))
    t = res.table.set_index(["probe", "model"])
    for m in rankers:
        assert t.loc[("tr-shuffle-sents", m), "score"] == 0.0
        assert t.loc[("tr-shuffle-sents", m), "n"] > 50
        assert abs(t.loc[("tr-shuffle-words", m), "score"]) <= 0.02  # tokenisation of punctuation may move
        assert res.summary["deltas"][m] > 0
    # higher query-term frequency at equal length: BM25 prefers it
    assert t.loc[("mm-tf-ctrl-len", "BM25"), "score"] > 0.5
