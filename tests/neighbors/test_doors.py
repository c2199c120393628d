"""The CLI with no analysis options and an experiment block that sets no params give the same
numbers (one driver, one Params)."""

from __future__ import annotations

import pandas as pd

from ranklens.cli import main
from ranklens.results import Result


def _tables(root):
    out = {}
    for d in sorted(p for p in root.rglob("result.json")):
        res = Result.load(d.parent)
        out[res.kind] = res.table
    return out


def test_cli_and_experiment_give_identical_numbers(tmp_path):
    from ranklens.experiment import load_experiment, run_experiment

    models = ["--model", "tfidf", "--model", "word2vec", "--model", "bm25"]
    assert main(["-q", "neighbors", "--collection", "demo", *models, "--out", str(tmp_path / "cli"),
                 "--no-plots"]) == 0
    exp_file = tmp_path / "exp.toml"
    exp_file.write_text(
        'title = "doors"\nresults = "res"\n'
        '[models.tfidf]\nspec = "tfidf"\n[models.word2vec]\nspec = "word2vec"\n[models.bm25]\nspec = "bm25"\n'
        '[datasets.demo]\nspec = "demo"\n[[analyses]]\ntype = "neighbors"\n')
    run_experiment(load_experiment(exp_file), report=False)
    cli, exp = _tables(tmp_path / "cli"), _tables(tmp_path / "res")
    assert set(cli) == {"neighbors-matrix", "neighbors-token-overlap", "neighbors-popular-outliers", "neighbors-ranker-overlap"}
    assert set(exp) == set(cli)
    for kind, table in cli.items():
        pd.testing.assert_frame_equal(table.reset_index(drop=True), exp[kind].reset_index(drop=True))
