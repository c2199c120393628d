"""Inputs regimes must not silently misread: a headerless queries file with a third column (the
reader would fold it into the query text) and a --model (regimes trains its own models: a model
given to it was ignored). Both are errors that name the place and the fix, at every door."""

from __future__ import annotations

import pytest

from ranklens.cli import main
from ranklens.drive import load_dataset, run_analysis
from ranklens.errors import DataFormatError, ValidationError
from ranklens.regimes.driver import read_query_file


def test_a_three_column_queries_file_is_refused_naming_the_line_and_the_fix(tmp_path):
    f = tmp_path / "train.tsv"
    f.write_text("t1\tcats and dogs\n\nt2\tfeline food\ttrain\nt3\tdog bark\ttrain\n", encoding="utf-8")
    with pytest.raises(DataFormatError) as exc:
        read_query_file(f)
    msg = str(exc.value)
    assert msg.startswith(f"{f}:3: 3 tab-separated columns (query 't2'; 2 such lines)")
    assert "query_id<TAB>text" in msg and "header line" in msg
    # the fix the message gives: a header keeps the third column apart from the text
    g = tmp_path / "header.tsv"
    g.write_text("query_id\ttext\tsplit\nt1\tcats and dogs\ttrain\nt2\tfeline food\ttrain\n", encoding="utf-8")
    q = read_query_file(g)
    assert q["text"].tolist() == ["cats and dogs", "feline food"] and q["split"].tolist() == ["train", "train"]
    two = tmp_path / "two.tsv"
    two.write_text("t1\tcats and dogs\nt2\tfeline food\n", encoding="utf-8")
    assert read_query_file(two)["text"].tolist() == ["cats and dogs", "feline food"]


def test_the_driver_refuses_a_three_column_training_file_before_any_training(tmp_path):
    f = tmp_path / "train.tsv"
    f.write_text("t1\tcats and dogs\tx\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"train\.tsv:1: 3 tab-separated columns"):
        run_analysis("regimes", load_dataset("demo", {"spec": "demo"}), {}, {"train_queries": str(f)})


def test_a_model_given_to_regimes_is_an_error_at_every_door(tmp_path, capsys):
    demo = load_dataset("demo", {"spec": "demo"})
    with pytest.raises(ValidationError, match=r"regimes takes no model, got \['bm25'\]"):
        run_analysis("regimes", demo, {"bm25": {"spec": "bm25"}})
    assert main(["regimes", "--collection", "demo", "--model", "bm25", "--out", str(tmp_path / "o")]) == 1
    assert "regimes takes no model" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    from ranklens.experiment import load_experiment

    listed = tmp_path / "listed.toml"
    listed.write_text('title = "t"\nresults = "res"\n[models.bm25]\nspec = "bm25"\n[datasets.demo]\nspec = "demo"\n'
                      '[[analyses]]\ntype = "regimes"\nmodels = ["bm25"]\n', encoding="utf-8")
    with pytest.raises(ValidationError, match=r"analyses\[0\]\.models: regimes takes no model"):
        load_experiment(listed)
    # a step that lists no models gets none (the file's models are for the other analyses)
    unlisted = tmp_path / "unlisted.toml"
    unlisted.write_text(listed.read_text().replace('models = ["bm25"]\n', ""), encoding="utf-8")
    [step] = load_experiment(unlisted).steps
    assert step.models == ()
