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
    assert q.columns.tolist() == ["query_id", "text"] and q["text"].tolist() == ["cats and dogs", "feline food"]
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


def test_one_queries_reader_at_both_doors_locates_a_bad_line(tmp_path, capsys):
    """The file tools (--train-queries/--test-queries) and the analysis (train_queries) read a
    queries file through the one reader: the same located error (file, line) at each."""
    good = tmp_path / "test.tsv"
    good.write_text("q1\tcats\nq2\tdogs\n", encoding="utf-8")
    wide = tmp_path / "wide.tsv"
    wide.write_text("t1\tcats and dogs\nt2\tfeline food\n\nt3\tdog bark\tdev\n", encoding="utf-8")
    assert main(["regimes", "--out", str(tmp_path / "o"), "diagnose", "--train-queries", str(wide),
                 "--test-queries", str(good), "--no-plots"]) == 1
    assert f"{wide}:4: 3 tab-separated columns (query 't3'; 1 such lines)" in capsys.readouterr().err
    with pytest.raises(DataFormatError, match=r"wide\.tsv:4: 3 tab-separated columns"):
        run_analysis("regimes", load_dataset("demo", {"spec": "demo"}), {}, {"train_queries": str(wide)})
    # a line with one column (no tab) in a two-column file: its line, at both doors
    short = tmp_path / "short.tsv"
    short.write_text("t1\tcats and dogs\nt2 feline food\n", encoding="utf-8")
    with pytest.raises(DataFormatError) as exc:
        read_query_file(short)
    assert str(exc.value).startswith(f"{short}:2: ") and "no tab" in str(exc.value)
    assert main(["regimes", "--out", str(tmp_path / "o"), "diagnose", "--train-queries", str(good),
                 "--test-queries", str(short), "--no-plots"]) == 1
    assert f"{short}:2: " in capsys.readouterr().err


def test_the_queries_reader_drops_a_header_and_keeps_tabs_that_are_text(tmp_path):
    # WikiQA's header names its text column "question": the reader does not know it, the line is dropped
    wikiqa = tmp_path / "queries.tsv"
    wikiqa.write_text("query_id\tquestion\nQ1\thow are glacier caves formed?\nQ2\twhat is a fox\n", encoding="utf-8")
    q = read_query_file(wikiqa)
    assert q.to_dict("list") == {"query_id": ["Q1", "Q2"], "text": ["how are glacier caves formed?", "what is a fox"]}
    # a header of three columns the reader does not know: the first data line is the located one
    h3 = tmp_path / "h3.tsv"
    h3.write_text("qid\tquestion\tlabel\nQ1\tcats\t1\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"h3\.tsv:2: 3 tab-separated columns .*named text, query or title"):
        read_query_file(h3)
    # a tab inside a JSON string is text, not a column
    js = tmp_path / "q.jsonl"
    js.write_text('{"query_id": "a", "text": "cats\\tdogs"}\n{"query_id": "b", "text": "fox"}\n', encoding="utf-8")
    assert read_query_file(js)["text"].tolist() == ["cats\tdogs", "fox"]
