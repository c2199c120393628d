from __future__ import annotations

import json

import pandas as pd
import pytest

from ranklens.cli import main
from ranklens.results import Result

from ._synth import synthetic


@pytest.fixture
def files(tmp_path):
    tq, eq, qrels, corpus = synthetic(n_topics=4, docs_per_topic=3, per_doc=2)
    tq.to_csv(tmp_path / "train.tsv", sep="\t", index=False)
    eq.to_csv(tmp_path / "test.tsv", sep="\t", index=False, header=False)
    with open(tmp_path / "qrels.trec", "w") as f:
        for r in qrels.itertuples():
            f.write(f"{r.query_id} 0 {r.doc_id} {r.relevance}\n")
    with open(tmp_path / "docs.jsonl", "w") as f:
        for d, t in corpus.items():
            f.write(json.dumps({"doc_id": d, "text": t}) + "\n")
    return tmp_path


def test_cli_diagnose_splits_evaluate(files, capsys):
    base = ["--train-queries", str(files / "train.tsv"), "--test-queries", str(files / "test.tsv"),
            "--qrels", str(files / "qrels.trec")]
    assert main(["resample", "diagnose", *base, "--similarity", "tfidf", "--near-dup-threshold", "0.5",
                 "--sheet", str(files / "sheet.csv"), "--out", str(files / "diag")]) == 0
    out = capsys.readouterr().out
    # every document has training queries, so every test positive is a training positive
    assert "label overlap (rel >= 1, >= 1 shared): 1.0000 of 12 test queries" in out
    assert (files / "sheet.csv").is_file() and (files / "diag" / "query-similarity" / "result.json").is_file()
    assert (files / "diag" / "nn_similarity.png").is_file()
    assert main(["resample", "resttest", *base, "--buckets", "2", "--out", str(files / "splits")]) == 0
    assert main(["resample", "restrain", *base, "--size", "6", "--out", str(files / "splits")]) == 0
    assert sorted(p.name for p in (files / "splits").iterdir()) == ["restrain-6", "resttest-fold0", "resttest-fold1"]
    # the 2-D PCA of each split, as a Result and a PNG, next to the split
    for name in ("restrain-6", "resttest-fold0", "resttest-fold1"):
        pca = Result.load(files / "splits" / name / "split-pca")
        assert pca.kind == "split-pca" and pca.summary["split"] == name
        assert set(pca.table["side"]) == {"train", "test"}
        assert (files / "splits" / name / "pca.png").is_file()
    capsys.readouterr()
    assert main(["resample", "evaluate", *base, "--corpus", str(files / "docs.jsonl"), "--splits",
                 str(files / "splits"), "--trainer", "memorizing", "--measure", "nDCG@10", "--random-negatives", "3",
                 "--out", str(files / "eval")]) == 0
    out = capsys.readouterr().out
    assert "nDCG@10 interp" in out and "memorizing" in out
    t = pd.read_csv(files / "eval" / "regime-table" / "regime_table.tsv.gz", sep="\t")
    assert set(t["setting"]) == {"restrain-6", "resttest"}


def test_cli_reports_missing_inputs(files, capsys):
    assert main(["resample", "diagnose", "--out", str(files / "x")]) == 1
    assert "--train-queries is required" in capsys.readouterr().err


def test_cli_no_plot_skips_pca_and_histogram(files):
    base = ["--train-queries", str(files / "train.tsv"), "--test-queries", str(files / "test.tsv"),
            "--qrels", str(files / "qrels.trec")]
    assert main(["resample", "restrain", *base, "--size", "6", "--no-plot", "--out", str(files / "s")]) == 0
    assert (files / "s" / "restrain-6" / "split.json").is_file()
    assert not (files / "s" / "restrain-6" / "split-pca").exists()
    assert not (files / "s" / "restrain-6" / "pca.png").exists()
    assert main(["resample", "diagnose", *base, "--similarity", "tfidf", "--no-plot", "--out", str(files / "d")]) == 0
    assert not (files / "d" / "nn_similarity.png").exists()
