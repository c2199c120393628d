"""The derived CLI with no analysis options and an experiment block that sets no params give
identical numbers on the demo collection (one driver, one Params)."""

from __future__ import annotations

import pandas as pd
import pytest

from ranklens.cli import main
from ranklens.results import Result


def _tables(root):
    out = {}
    for d in sorted(root.rglob("result.json")):
        res = Result.load(d.parent)
        out[res.kind] = res.table
    return out


@pytest.mark.slow
def test_cli_and_experiment_give_identical_numbers(tmp_path):
    from ranklens.experiment import load_experiment, run_experiment

    assert main(["-q", "regimes", "--collection", "demo", "--model", "bm25", "--out", str(tmp_path / "cli"),
                 "--no-plots"]) == 0
    exp_file = tmp_path / "exp.toml"
    exp_file.write_text('title = "doors"\nresults = "res"\n[models.bm25]\nspec = "bm25"\n'
                        '[datasets.demo]\nspec = "demo"\n[[analyses]]\ntype = "regimes"\n')
    run_experiment(load_experiment(exp_file), report=False)
    cli, exp = _tables(tmp_path / "cli"), _tables(tmp_path / "res")
    assert set(cli) == {"regimes-query-similarity", "regimes-label-overlap", "regimes-split-pca", "regimes-table"}
    assert set(exp) == set(cli)
    for kind, table in cli.items():
        pd.testing.assert_frame_equal(table.reset_index(drop=True), exp[kind].reset_index(drop=True))
