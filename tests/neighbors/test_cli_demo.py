from __future__ import annotations

import json

import pandas as pd
import pytest

from ranklens.cli import main
from ranklens.results import Result


def _docs(tmp_path):
    p = tmp_path / "docs.jsonl"
    rows = [{"doc_id": f"d{i}", "text": f"Cats and dogs {i % 4}. Birds sing song {i % 3}. Fish swim {i % 5}."}
            for i in range(15)]
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return p


def test_cli_matrix_and_tokens(tmp_path, capsys):
    docs = _docs(tmp_path)
    rc = main(["-q", "neighbors", "matrix", "--docs", str(docs), "-e", "tfidf", "-e", "w2v=word2vec",
               "-e", "fasttext", "-k", "3", "--n-queries", "5", "--samples", "2", "--out", str(tmp_path / "m")])
    assert rc == 0
    res = Result.load(tmp_path / "m")
    assert res.kind == "n2o-matrix" and set(res.tables["matrix"]["embedder"]) == {"tfidf", "w2v", "fasttext"}
    assert (tmp_path / "m" / "n2o_matrix.png").is_file()
    assert "corpus:" in capsys.readouterr().err
    rc = main(["-q", "neighbors", "tokens", "--docs", str(docs), "-e", "tfidf", "-e", "word2vec",
               "-k", "3", "--n-queries", "5", "--out", str(tmp_path / "t"), "--no-plot"])
    assert rc == 0 and Result.load(tmp_path / "t").kind == "n2o-token-overlap"


def test_cli_needle_pairs_file_and_errors(tmp_path, capsys):
    docs = _docs(tmp_path)
    pairs = tmp_path / "pairs.tsv"
    pd.DataFrame({"text_a": ["Cats and dogs 1."], "text_b": ["Felines plus canines."], "score": [4.5]}).to_csv(
        pairs, sep="\t", index=False)
    rc = main(["-q", "neighbors", "needle", "--docs", str(docs), "-e", "tfidf", "--pairs", str(pairs),
               "--out", str(tmp_path / "n")])
    assert rc == 0
    assert Result.load(tmp_path / "n").table["n_pairs"].item() == 1
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\nx\ty\n")
    rc = main(["-q", "neighbors", "needle", "--docs", str(docs), "-e", "tfidf", "--pairs", str(bad),
               "--out", str(tmp_path / "n2")])
    assert rc == 1 and "bad.tsv" in capsys.readouterr().err
    rc = main(["-q", "neighbors", "matrix", "--docs", str(docs), "--out", str(tmp_path / "x")])
    assert rc == 1


def test_cli_rankers_from_runs(tmp_path):
    for name, docs in (("a", ["d1", "d2", "d3"]), ("b", ["d2", "d1", "d4"])):
        (tmp_path / f"{name}.run").write_text(
            "".join(f"1 Q0 {d} {i + 1} {3 - i} t\n" for i, d in enumerate(docs)))
    rc = main(["-q", "neighbors", "rankers", "--docs", str(_docs(tmp_path)), "--run", str(tmp_path / "a.run"),
               "--run", str(tmp_path / "b.run"), "-k", "2", "--out", str(tmp_path / "r")])
    assert rc == 0
    t = Result.load(tmp_path / "r").table
    assert t["overlap_mean"].item() == pytest.approx(1.0)


def test_cli_rankers_from_runs_needs_no_corpus(tmp_path, capsys):
    # comparing run files needs neither --collection nor --docs
    for name, docs in (("a", ["d1", "d2", "d3"]), ("b", ["d2", "d9", "d1"])):
        (tmp_path / f"{name}.run").write_text(
            "".join(f"1 Q0 {d} {i + 1} {3 - i} t\n" for i, d in enumerate(docs)))
    rc = main(["-q", "neighbors", "rankers", "--run", str(tmp_path / "a.run"), "--run", str(tmp_path / "b.run"),
               "-k", "2", "--out", str(tmp_path / "r"), "--no-plot"])
    assert rc == 0, capsys.readouterr().err
    assert Result.load(tmp_path / "r").table["overlap_mean"].item() == pytest.approx(0.5)
    rc = main(["-q", "neighbors", "rankers", "--out", str(tmp_path / "r2")])
    assert rc == 1 and "--run" in capsys.readouterr().err


@pytest.mark.slow
def test_demo_hook(tmp_path):
    pytest.importorskip("torch")
    from ranklens.engine import ScoringEngine
    from ranklens.neighbors.demo import run_demo

    results = run_demo(tmp_path, engine=ScoringEngine(cache=False))
    kinds = {r.kind for r in results}
    assert kinds == {"n2o-matrix", "n2o-token-overlap", "n2o-popular-outliers", "n2o-needle", "ranker-overlap"}
    for r in results:
        assert (tmp_path / f"{r.kind}-demo" / "result.json").is_file()
    mat = next(r for r in results if r.kind == "n2o-matrix")
    assert set(mat.tables["matrix"]["embedder"]) == {"tfidf", "word2vec", "minilm-mean", "minilm-cls"}
