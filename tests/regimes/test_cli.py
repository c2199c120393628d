from __future__ import annotations


import pandas as pd
import pytest

from ranklens.cli import main
from ranklens.results import Result

from ._synth import write_synthetic_files


@pytest.fixture
def files(tmp_path):
    return write_synthetic_files(tmp_path)


def _base(files, similarity=True):
    return ["--train-queries", str(files / "train.tsv"), "--test-queries", str(files / "test.tsv"),
            "--qrels", str(files / "qrels.trec"), *(["--similarity", "tfidf"] if similarity else [])]


def test_cli_tools_diagnose_splits_evaluate(files, capsys):
    base = _base(files)
    assert main(["regimes", "--out", str(files / "diag"), "diagnose", *base, "--near-dup-threshold", "0.5",
                 "--sheet", str(files / "sheet.csv")]) == 0
    out = capsys.readouterr().out
    # every document has training queries, so every test positive is a training positive
    assert "label overlap (rel >= 1, >= 1 shared): 1.0000 of 12 test queries" in out
    assert (files / "sheet.csv").is_file() and (files / "diag" / "regimes-query-similarity" / "result.json").is_file()
    assert (files / "diag" / "nn_similarity.png").is_file()
    assert main(["regimes", "--out", str(files / "splits"), "resttest", *base, "--buckets", "2"]) == 0
    assert main(["regimes", "--out", str(files / "splits"), "restrain", *base, "--size", "6",
                 "--size-rule", "fill"]) == 0
    assert sorted(p.name for p in (files / "splits").iterdir()) == ["restrain-6", "restrain-figure1", "resttest-figure1",
                                                                    "resttest-fold0", "resttest-fold1"]
    fig1 = Result.load(files / "splits" / "resttest-figure1")
    assert fig1.summary["resampled_in"] == "2-D projection" and (files / "splits" / "resttest-figure1" / "figure1.png").is_file()
    for name in ("restrain-6", "resttest-fold0", "resttest-fold1"):
        pca = Result.load(files / "splits" / name / "regimes-split-pca")
        assert pca.kind == "regimes-split-pca" and pca.summary["split"] == name
        assert (files / "splits" / name / "pca.png").is_file()
    capsys.readouterr()
    assert main(["regimes", "--out", str(files / "eval"), "evaluate", *_base(files, similarity=False),
                 "--corpus", str(files / "docs.jsonl"),
                 "--splits", str(files / "splits"), "--trainers", "memorizing", "--measures", "nDCG@10",
                 "--depth", "5"]) == 0
    out = capsys.readouterr().out
    assert "nDCG@10 interp" in out and "memorizing" in out
    t = pd.read_csv(files / "eval" / "regimes-table" / "regime_table.tsv.gz", sep="\t")
    assert set(t["setting"]) == {"restrain-6", "resttest"}
    per_query = Result.load(files / "eval" / "regimes-table").table
    assert set(per_query["evaluation"]) == {"rerank"}  # the memorising model re-ranks BM25's top depth
    assert (files / "eval" / "regimes-table" / "regimes.png").is_file()


def test_cli_evaluate_reads_the_authors_published_layout(files, capsys):
    """restrain_files/<size>/{interpolate,extrapolate}.train-qrel.txt (test set = --test-queries)."""
    tq = pd.read_csv(files / "train.tsv", sep="\t")
    qrels = pd.read_csv(files / "qrels.trec", sep=" ", header=None, names=["q", "it", "d", "r"])
    d = files / "restrain_files" / "toy" / "8"
    d.mkdir(parents=True)
    ids = list(tq["query_id"])
    for name, part in (("interpolate", ids[:8]), ("extrapolate", ids[-8:])):
        sub = qrels.loc[qrels["q"].isin(part)]
        (d / f"{name}.train-qrel.txt").write_text("".join(f"{r.q}\t0\t{r.d}\t{r.r}\n" for r in sub.itertuples()))
    assert main(["regimes", "--out", str(files / "pub"), "evaluate", *_base(files, similarity=False), "--corpus",
                 str(files / "docs.jsonl"), "--splits", str(files / "restrain_files"), "--trainers", "bm25",
                 "--measures", "nDCG@10", "--depth", "5", "--no-plots"]) == 0
    t = Result.load(files / "pub" / "regimes-table").table
    assert set(t["setting"]) == {"restrain-8"}
    test_ids = set(pd.read_csv(files / "test.tsv", sep="\t", header=None)[0])
    assert set(t["query_id"]) == test_ids
    assert not (files / "pub" / "regimes-table" / "regimes.png").exists()


def test_cli_tool_reports_missing_inputs(files, capsys):
    assert main(["regimes", "--out", str(files / "x"), "diagnose"]) == 1
    assert "--train-queries is required" in capsys.readouterr().err


def test_cli_restrain_topk_rule_refuses_with_the_numbers(files, capsys):
    assert main(["regimes", "--out", str(files / "s"), "restrain", *_base(files), "--size", "2"]) == 1
    assert "already" in capsys.readouterr().err


def test_cli_no_plot_skips_pca_and_histogram(files):
    base = _base(files)
    assert main(["regimes", "--out", str(files / "s"), "restrain", *base, "--size", "6", "--size-rule", "fill",
                 "--no-plots"]) == 0
    assert (files / "s" / "restrain-6" / "split.json").is_file()
    assert not (files / "s" / "restrain-6" / "regimes-split-pca").exists()
    assert main(["regimes", "--out", str(files / "d"), "diagnose", *base, "--no-plots"]) == 0
    assert not (files / "d" / "nn_similarity.png").exists()


def test_cli_tool_old_spellings_warn_and_keep_working(files):
    """--judgments, --trainer, --measure, -k and --no-plot are deprecated aliases of the Params names."""
    base = ["--train-queries", str(files / "train.tsv"), "--test-queries", str(files / "test.tsv"),
            "--similarity", "tfidf"]
    with pytest.warns(FutureWarning) as caught:
        assert main(["regimes", "--out", str(files / "d"), "diagnose", *base, "--judgments",
                     str(files / "qrels.trec"), "-k", "3", "--no-plot"]) == 0
    said = {str(w.message).split(";")[0] for w in caught}
    assert {"--judgments is deprecated", "-k is deprecated", "--no-plot is deprecated"} <= said
    assert Result.load(files / "d" / "regimes-query-similarity").summary["k"] == 3


def test_cli_tool_options_share_the_analysis_validation(files, capsys):
    assert main(["regimes", "--out", str(files / "x"), "restrain", *_base(files), "--size-rule", "exact"]) == 1
    assert "--size-rule" in capsys.readouterr().err
    assert main(["regimes", "--out", str(files / "x"), "evaluate", *_base(files, similarity=False),
                 "--trainers", "svm"]) == 1
    assert "trainers" in capsys.readouterr().err
