"""`ranklens demo --only asl` produces what the old metrics demo hook did (loads MiniLM):
BM25, TF-IDF and MiniLM top 50 on the demo collection, evaluated against BM25, the
distribution and RRIE of BM25 vs MiniLM (with plots) and the MAP -> ASL chain."""

from __future__ import annotations

import pytest


@pytest.mark.slow
def test_demo_only_asl(tmp_path):
    from ranklens.demo import run_demo
    from ranklens.results import Result

    run_demo(tmp_path, only=["asl"], show_progress=False)
    found = {Result.load(p.parent).kind: p.parent for p in tmp_path.rglob("result.json")}
    assert {"asl-evaluate", "asl-distribution", "asl-rrie", "asl-chain", "asl-map-coverage"} <= set(found)
    ev = Result.load(found["asl-evaluate"])
    assert set(ev.table["model"]) == {"bm25", "tfidf", "minilm"}
    assert ev.summary["baseline"] == "bm25" and ev.provenance.analysis_params["k"] == 50
    assert (ev.table["depth_max"] <= 50).all()
    rr = Result.load(found["asl-rrie"])
    assert rr.summary["a"] == "bm25" and rr.summary["b"] == "minilm"
    assert (found["asl-distribution"] / "deltas.png").is_file()
    # the MAP -> ASL tau chart over three systems: drawn, or left out with its reason beside it
    from ranklens.asl.plots import plot_chain

    drawn = plot_chain(Result.load(found["asl-chain"]))
    if isinstance(drawn, str):
        assert (found["asl-chain"] / "chain.left-out.txt").read_text(encoding="utf-8").strip() == drawn
        assert not (found["asl-chain"] / "chain.png").exists()
    else:
        assert (found["asl-chain"] / "chain.png").is_file()
