"""Model parameters reach the CLI as they reach an experiment file, and their errors name the fix
(the doors' identity is checked for every analysis by tests/core/test_doors.py)."""

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


def test_model_params_reach_the_cli_as_they_reach_an_experiment(tmp_path):
    """``--model-param NAME.KEY=VALUE`` is an experiment file's [models.NAME] params: the same
    numbers, and different numbers from the default (the parameter is really used)."""
    from ranklens.experiment import load_experiment, run_experiment

    base = ["-q", "neighbors", "--collection", "demo", "--model", "tfidf", "--model", "w2v=word2vec",
            "--k", "5", "--no-plots"]
    assert main([*base, "--model-param", "w2v.tokenizer=ranklens", "--model-param", "w2v.epochs=2",
                 "--out", str(tmp_path / "cli")]) == 0
    assert main([*base, "--out", str(tmp_path / "default")]) == 0
    exp_file = tmp_path / "exp.toml"
    exp_file.write_text(
        'title = "doors"\nresults = "res"\n'
        '[models.tfidf]\nspec = "tfidf"\n[models.w2v]\nspec = "word2vec"\n'
        '[models.w2v.params]\ntokenizer = "ranklens"\nepochs = 2\n'
        '[datasets.demo]\nspec = "demo"\n[[analyses]]\ntype = "neighbors"\nparams = {k = 5}\n')
    run_experiment(load_experiment(exp_file), report=False)
    cli, exp, default = (_tables(tmp_path / d)["neighbors-matrix"] for d in ("cli", "res", "default"))
    pd.testing.assert_frame_equal(cli.reset_index(drop=True), exp.reset_index(drop=True))
    assert not cli["n2o_mean"].equals(default["n2o_mean"])


def test_model_param_errors_name_the_fix():
    import pytest

    from ranklens.drive import models_from_specs
    from ranklens.errors import ValidationError

    assert models_from_specs(["w=word2vec"], ["w.window=3", "w.tokenizer=spacy"])["w"]["params"] == \
        {"window": 3, "tokenizer": "spacy"}
    with pytest.raises(ValidationError, match="NAME.KEY=VALUE"):
        models_from_specs(["w=word2vec"], ["window=3"])
    with pytest.raises(ValidationError, match="no --model named 'x'"):
        models_from_specs(["w=word2vec"], ["x.window=3"])
