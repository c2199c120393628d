"""``ranklens neighbors``: the derived CLI (one option per Params field)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ranklens.cli import main
from ranklens.results import Result


def _collection(tmp_path):
    d = tmp_path / "coll"
    d.mkdir()
    rows = [{"doc_id": f"d{i}", "text": f"Cats and dogs {i % 4}. Birds sing song {i % 3}. Fish swim {i % 5}."}
            for i in range(15)]
    (d / "docs.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (d / "queries.tsv").write_text("query_id\ttext\nq1\tcats and dogs\nq2\tbirds\n")
    return d


def test_cli_matrix_and_tokens_with_options(tmp_path):
    coll = _collection(tmp_path)
    rc = main(["-q", "neighbors", "--collection", str(coll), "--model", "tfidf", "--model", "w2v=word2vec",
               "--model", "fasttext", "--analyses", "matrix,tokens", "--k", "3", "--n-queries", "5",
               "--n-samples", "2", "--queries", "all", "--terms", "tokens", "--out", str(tmp_path / "m")])
    assert rc == 0
    res = Result.load(tmp_path / "m" / "neighbors-matrix")
    assert set(res.tables["matrix"]["model"]) == {"tfidf", "w2v", "fasttext"}
    assert res.provenance.analysis_params["k"] == 3 and res.provenance.analysis_params["terms"] == "tokens"
    assert (tmp_path / "m" / "neighbors-matrix" / "n2o_matrix.png").is_file()
    tok = Result.load(tmp_path / "m" / "neighbors-token-overlap")
    assert tok.summary["terms"] == "tokens" and not (tmp_path / "m" / "neighbors-ranker-overlap").exists()


def test_cli_needle_pairs_and_bad_file(tmp_path, capsys):
    coll = _collection(tmp_path)
    pairs = tmp_path / "pairs.tsv"
    pd.DataFrame({"text_a": ["Cats and dogs 1."], "text_b": ["Felines plus canines."], "score": [4.5]}).to_csv(
        pairs, sep="\t", index=False)
    base = ["-q", "neighbors", "--collection", str(coll), "--model", "tfidf", "--analyses", "needle"]
    assert main([*base, "--pairs", str(pairs), "--out", str(tmp_path / "n")]) == 0
    res = Result.load(tmp_path / "n" / "neighbors-needle")
    assert res.table["n_pairs"].item() == 1
    assert any("genre filter" in w for w in res.warnings)  # no genre column: said, not silent
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\nx\ty\n")
    assert main([*base, "--pairs", str(bad), "--out", str(tmp_path / "n2")]) == 1
    assert "bad.tsv" in capsys.readouterr().err
    assert main([*base, "--pairs", str(tmp_path / "missing.tsv"), "--out", str(tmp_path / "n3")]) == 1


def test_cli_rankers_from_run_files(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, docs in (("a", ["d1", "d2", "d3"]), ("b", ["d2", "d1", "d4"])):
        (runs / f"{name}.run").write_text("".join(f"q1 Q0 {d} {i + 1} {3 - i} t\n" for i, d in enumerate(docs)))
    rc = main(["-q", "neighbors", "--collection", str(_collection(tmp_path)), "--runs", str(runs),
               "--model", "tfidf", "--analyses", "rankers", "--ranker-k", "2", "--out", str(tmp_path / "r")])
    assert rc == 0
    t = Result.load(tmp_path / "r" / "neighbors-ranker-overlap").table.set_index(["model", "other_model"])
    assert t.loc[("a", "b"), "overlap_mean"] == pytest.approx(1.0)


def test_help_shows_every_default(capsys):
    with pytest.raises(SystemExit):
        main(["neighbors", "--help"])
    out = capsys.readouterr().out
    for opt in ("--k", "--n-queries", "--queries", "--tfidf-idf", "--wordvec-case", "--needle-protocol",
                "--genre", "--max-score", "--rbo-p", "--backend", "--embedders"):
        assert opt in out
    assert "(default: 50)" in out and "(default: ledes)" in out and "(default: one-at-a-time)" in out
