"""A track (qrels + run files, no documents) gives IDENTICAL tables through the CLI and an
experiment file (the collection door of every analysis is checked by tests/core/test_doors.py)."""

from __future__ import annotations

import pandas as pd

from ranklens.cli import main
from ranklens.results import Result

KINDS = {"asl-evaluate", "asl-distribution", "asl-rrie", "asl-chain", "asl-map-coverage"}


def _tables(root):
    out = {}
    for d in sorted(root.rglob("result.json")):
        res = Result.load(d.parent)
        out[res.kind] = res.table
    return out


def _same(cli, exp):
    assert set(cli) == KINDS and set(exp) == set(cli)
    for kind, table in cli.items():
        pd.testing.assert_frame_equal(table.reset_index(drop=True), exp[kind].reset_index(drop=True))


def test_cli_and_experiment_give_identical_numbers_on_a_track(tmp_path):
    from ranklens.experiment import load_experiment, run_experiment

    (tmp_path / "qrels.txt").write_text("1 0 b 1\n1 0 d 1\n2 0 x 1\n2 0 z 2\n3 0 k 1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.run").write_text("1 Q0 a 1 5 a\n1 Q0 b 2 4 a\n2 Q0 x 1 3 a\n2 Q0 y 2 2 a\n3 Q0 k 1 1 a\n")
    (runs / "b.run").write_text("1 Q0 b 1 5 b\n1 Q0 a 2 4 b\n1 Q0 d 3 3 b\n2 Q0 y 1 3 b\n2 Q0 z 2 2 b\n"
                                "3 Q0 j 1 2 b\n3 Q0 k 2 1 b\n")
    assert main(["-q", "asl", "--qrels", str(tmp_path / "qrels.txt"), "--runs", str(runs),
                 "--out", str(tmp_path / "cli"), "--no-plots"]) == 0
    exp_file = tmp_path / "exp.toml"
    exp_file.write_text(
        'title = "doors"\nresults = "res"\n'
        f'[datasets.t]\nqrels = "{tmp_path / "qrels.txt"}"\nruns = "{runs}"\n[[analyses]]\ntype = "asl"\n')
    run_experiment(load_experiment(exp_file), report=False)
    _same(_tables(tmp_path / "cli"), _tables(tmp_path / "res"))
