"""The metrics demo hook runs on the shipped demo collection (loads MiniLM)."""

from __future__ import annotations

import pytest


@pytest.mark.slow
def test_run_demo(tmp_path):
    pytest.importorskip("ranklens.datasets.demo")
    from ranklens.metrics.demo import run_demo
    from ranklens.results import Result

    results = run_demo(tmp_path)
    kinds = [r.kind for r in results]
    assert kinds == ["asl-evaluate", "asl-distribution", "asl-rrie", "asl-chain"]
    ev = Result.load(tmp_path / "asl-evaluate-demo")
    assert set(ev.table["system"]) == {"bm25", "tfidf", "minilm"}
    assert ev.table["ASL"].between(1, 1000).all()
    assert (tmp_path / "asl-distribution-demo" / "deltas.png").is_file()
