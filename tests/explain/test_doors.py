"""The derived CLI with no analysis options and an experiment block that sets no params give
IDENTICAL tables for the explain analysis (one driver, one Params), on the demo collection."""

from __future__ import annotations

import pandas as pd
import pytest

from ranklens.cli import main
from ranklens.results import Result

KINDS = {"explain-consistency", "explain-sweep"}


def _tables(root):
    out = {}
    for d in sorted(root.rglob("result.json")):
        res = Result.load(d.parent)
        out[res.kind] = res
    return out


@pytest.mark.slow  # paper defaults: every demo query, BM25 top-1000, exhaustive occlusion of the top 50
def test_cli_and_experiment_give_identical_numbers_on_demo(tmp_path):
    from ranklens.experiment import load_experiment, run_experiment

    assert main(["-q", "explain", "--collection", "demo", "--model", "bm25", "--model", "tfidf",
                 "--out", str(tmp_path / "cli"), "--no-plots"]) == 0
    exp_file = tmp_path / "exp.toml"
    exp_file.write_text(
        'title = "doors"\nresults = "res"\n[models.bm25]\nspec = "bm25"\n[models.tfidf]\nspec = "tfidf"\n'
        '[datasets.demo]\nspec = "demo"\n[[analyses]]\ntype = "explain"\n')
    run_experiment(load_experiment(exp_file), report=False)
    cli, exp = _tables(tmp_path / "cli"), _tables(tmp_path / "res")
    assert set(cli) == KINDS and set(exp) == KINDS
    for kind in KINDS:
        pd.testing.assert_frame_equal(cli[kind].table, exp[kind].table)
        for name in ("ci", "comparisons", "unit_diagnostics"):
            if name in cli[kind].tables:
                pd.testing.assert_frame_equal(cli[kind].tables[name], exp[kind].tables[name])
    cons = cli["explain-consistency"]
    assert cons.table.columns[0] == "model" and set(cons.table["model"]) == {"bm25", "tfidf"}
    assert cons.provenance.analysis_params == exp["explain-consistency"].provenance.analysis_params
    assert cons.provenance.analysis_params["pool"] == 1000


def test_demo_params_are_valid_and_reach_the_driver():
    from ranklens.declare import make_params
    from ranklens.registry import get_analysis

    a = get_analysis("explain")
    p = make_params(a.params, a.demo)
    assert p.subdoc == "demo" and p.m == 3 and p.k == (10,)
    defaults = a.defaults()
    # the paper's defaults (Table 1, eq. 3, eq. 4, BM25 top-1000 re-ranked)
    assert (defaults.m, defaults.k, defaults.pool, defaults.candidates) == (None, (10, 50), 1000, "pool")
    assert (defaults.mer_missing, defaults.aggregate, defaults.samples, defaults.n) == ("zero", "sum", 0, 2)
