"""Every ignored option is an error (issue 30): an option given where nothing reads it exits 2 with
one line naming the option, why it is ignored in this combination and the fix; before, each of these
ran and gave the same output as without the option.

Declared once where one rule covers many: a ``Params`` field's ``applies_when`` (checked by
``make_params``, so the CLI, experiment files, ``run --check`` and Python alike), ``tools_only``
(drive refuses it for an analysis run), ``Analysis.reads_runs``/``reads_qrels`` (the CLI's dataset
options), a file tool's ``tool_reads`` (options of ``ranklens NAME`` given before the tool name) and
a built-in command's per-action readers (``cli/_unread.py``).
"""

from __future__ import annotations

import json

import pytest

from ranklens.cli import main
from ranklens.declare import make_params
from ranklens.errors import IgnoredOptionError

QRELS = "1 0 b 1\n1 0 d 1\n2 0 x 1\n"
RUN_A = "1 Q0 a 1 5 t\n1 Q0 b 2 4 t\n2 Q0 x 1 3 t\n"
RUN_B = "1 Q0 b 1 5 t\n1 Q0 a 2 4 t\n1 Q0 d 3 3 t\n2 Q0 y 1 3 t\n2 Q0 x 2 2 t\n"


@pytest.fixture
def track(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.run").write_text(RUN_A)
    (runs / "b.run").write_text(RUN_B)
    return tmp_path


def _refused(argv, capsys, *words):
    """``argv`` exits 2 with one error line holding every word; nothing was written."""
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ranklens: error: "), err
    for w in words:
        assert w in err[0], (w, err[0])
    assert "ignored" in err[0]
    return err[0]


# ------------------------------------------------------------------ Params: applies_when (every door)

# (analysis, CLI options, the Params values, words of the message)
CASES = [
    ("asl", ["--collection-size", "1000"], {"collection_size": 1000}, ("--collection-size", "--unretrieved")),
    ("probes", ["--typo-rate", "0.3"], {"typo_rate": 0.3}, ("--typo-rate", "--misspellings is 'char'")),
    ("probes", ["--delta", "0.5", "--sweep", "tr-typo"], {"delta": ("0.5",), "sweep": ("tr-typo",)},
     ("--sweep", "every delta is a number")),
    ("probes", ["--delta", "0.5", "--calibration-queries", "5"], {"delta": ("0.5",), "calibration_queries": 5},
     ("--calibration-queries",)),
    ("neighbors", ["--analyses", "matrix", "--min-score", "3"], {"analyses": ("matrix",), "min_score": 3.0},
     ("--min-score", "--analyses includes 'needle'")),
    ("neighbors", ["--analyses", "matrix", "--ranker-k", "3"], {"analyses": ("matrix",), "ranker_k": 3},
     ("--ranker-k", "'rankers'")),
    ("neighbors", ["--queries", "all", "--query-ids", __file__], {"queries": "all", "query_ids": __file__},
     ("--queries", "query_ids gives the pool")),
    ("neighbors", ["--hnsw-m", "8"], {"hnsw_m": 8}, ("--hnsw-m", "--backend is 'hnsw'")),
    ("neighbors", ["--backend", "hnsw", "--nprobe", "4"], {"backend": "hnsw", "nprobe": 4}, ("--nprobe", "'ivf'")),
    ("regimes", ["--epochs", "3"], {"epochs": 3}, ("--epochs", "'bi-encoder' or 'cross-encoder'")),
    ("regimes", ["--trainers", "bi-encoder", "--reranker-loss", "pointwise"],
     {"trainers": ("bi-encoder",), "reranker_loss": "pointwise"}, ("--reranker-loss", "'cross-encoder'")),
    ("regimes", ["--methods", "resttest", "--k", "3"], {"methods": ("resttest",), "k": 3}, ("--k", "'restrain'")),
    ("regimes", ["--methods", "restrain", "--buckets", "3"], {"methods": ("restrain",), "buckets": 3},
     ("--buckets", "'resttest'")),
    ("regimes", ["--size-rule", "fill"], {"size_rule": "fill"}, ("--size-rule", "--size is set")),
    ("regimes", ["--random-negatives", "5"], {"random_negatives": 5}, ("--random-negatives", "'judged'")),
]


@pytest.mark.parametrize("name,options,values,words", CASES, ids=[f"{c[0]}{c[1][-2]}" for c in CASES])
def test_an_option_its_combination_does_not_read_is_refused(name, options, values, words, tmp_path, capsys):
    model = [] if name == "regimes" else ["--model", "bm25"]
    _refused([name, "--collection", "demo", *model, *options, "--out", str(tmp_path / "o")], capsys, *words)
    assert not (tmp_path / "o").exists()
    from ranklens.registry import get_analysis

    cls = get_analysis(name).params
    with pytest.raises(IgnoredOptionError, match="ignored"):  # the Python door and experiment files: make_params
        make_params(cls, values)


def test_the_same_options_are_accepted_where_they_are_read():
    """The conditions hold: each value is read, so nothing is refused (and the defaults never are)."""
    from ranklens.registry import get_analysis

    ok = [("asl", {"unretrieved": "expected", "collection_size": 1000}),
          ("probes", {"misspellings": "char", "typo_rate": 0.3}),
          ("probes", {"delta": ("p25",), "sweep": ("tr-typo",), "calibration_queries": 5}),
          ("probes", {"delta": ("0.5",), "sweep": ()}),  # no sweep asked for: nothing ignored
          ("probes", {"calibrate_on": "demo-run.trec", "calibration_texts": "demo"}),
          ("neighbors", {"analyses": ("needle",), "min_score": 3.0}),
          ("neighbors", {"backend": "ivf", "nprobe": 4}),
          ("regimes", {"trainers": ("bm25", "bi-encoder:minilm"), "epochs": 3}),
          ("regimes", {"trainers": ("cross-encoder",), "reranker_loss": "pointwise"}),
          ("regimes", {"size": 10, "size_rule": "fill"}),
          ("regimes", {"evaluation": "judged", "random_negatives": 5})]
    for name, values in ok:
        assert make_params(get_analysis(name).params, values) is not None
    for name in ("asl", "probes", "neighbors", "regimes", "explain"):
        a = get_analysis(name)
        make_params(a.params, {})
        make_params(a.params, dict(a.demo))
        make_params(a.params, dict(a.demo_full))


def test_an_experiment_step_names_the_ignored_parameter_by_its_key_path(tmp_path, capsys):
    f = tmp_path / "e.toml"
    f.write_text('results = "res"\n[datasets.d]\nspec = "demo"\n[models.bm25]\nspec = "bm25"\n'
                 '[[analyses]]\ntype = "neighbors"\n[analyses.params]\nanalyses = ["matrix"]\nmin_score = 3\n')
    assert main(["run", str(f), "--check"]) != 0
    err = capsys.readouterr().err
    assert "analyses[0].params.min_score: ignored unless analyses[0].params.analyses includes 'needle'" in err


# ------------------------------------------------------------------ tools_only: asl --places

def test_places_is_read_by_the_file_tools_only(tmp_path, capsys):
    _refused(["asl", "--collection", "demo", "--model", "bm25", "--places", "2", "--out", str(tmp_path / "o")],
             capsys, "--places", "file tools")
    from ranklens.drive import load_dataset, run_analysis

    coll = load_dataset("demo", {"spec": "demo"})
    with pytest.raises(IgnoredOptionError, match="params.places: read by the file tools only"):
        run_analysis("asl", coll, {"bm25": "bm25"}, {"places": 2})


def test_places_still_shapes_the_file_tools_tables(track, capsys):
    argv = ["asl", "--out", str(track / "o"), "--places", "2", "distribution", str(track / "qrels.txt"),
            str(track / "runs" / "a.run"), str(track / "runs" / "b.run"), "--format", "tsv"]
    assert main(argv) == 0
    rows = capsys.readouterr().out.strip().splitlines()[1:]
    floats = [c for r in rows for c in r.split("\t") if "." in c]
    assert floats and all(len(c.split(".")[1]) == 2 for c in floats)


# ------------------------------------------------------------------ the CLI's dataset options

def test_runs_and_qrels_where_the_analysis_reads_none(track, tmp_path, capsys):
    runs, qrels = str(track / "runs"), str(track / "qrels.txt")
    for name in ("probes", "explain"):
        _refused([name, "--collection", "demo", "--model", "bm25", "--runs", runs, "--out", str(tmp_path / "o")],
                 capsys, "--runs", name)
    _refused(["regimes", "--collection", "demo", "--runs", runs, "--out", str(tmp_path / "o")], capsys, "--runs")
    _refused(["neighbors", "--collection", "demo", "--model", "tfidf", "--qrels", qrels, "--out", str(tmp_path / "o")],
             capsys, "--qrels", "neighbors")
    # asl evaluates the run files INSTEAD of the models' runs: a --model beside --runs did nothing
    _refused(["asl", "--qrels", qrels, "--runs", runs, "--model", "bm25", "--out", str(tmp_path / "o")], capsys,
             "--model", "--runs")
    assert not (tmp_path / "o").exists()


def test_asl_depth_of_model_runs_with_a_track_and_comparison_options_with_one_run(track, tmp_path, capsys):
    qrels, runs = str(track / "qrels.txt"), str(track / "runs")
    _refused(["asl", "--qrels", qrels, "--runs", runs, "--k", "50", "--out", str(tmp_path / "o")], capsys,
             "params.k = 50", "run files")
    one = str(track / "runs" / "a.run")
    for opt in (["--compare", "a,b"], ["--alpha", "0.1"], ["--tau-digits", "3"]):
        _refused(["asl", "--qrels", qrels, "--runs", one, *opt, "--out", str(tmp_path / "o")], capsys,
                 "one run", "nothing to compare")
    assert main(["asl", "--qrels", qrels, "--runs", runs, "--alpha", "0.1", "--out", str(tmp_path / "o")]) == 0
    chain = json.loads((tmp_path / "o" / "asl-chain" / "result.json").read_text())
    assert chain["provenance"]["analysis_params"]["alpha"] == 0.1


# ------------------------------------------------------------------ options before a file tool's name

def test_asl_tool_refuses_the_analysis_options_it_does_not_read(track, capsys):
    q, a, b = str(track / "qrels.txt"), str(track / "runs" / "a.run"), str(track / "runs" / "b.run")
    out = ["--out", str(track / "o")]
    _refused(["asl", *out, "--k", "5", "distribution", q, a, b], capsys, "--k", "distribution tool")
    _refused(["asl", *out, "--model", "bm25", "rrie", q, a, b], capsys, "--model", "rrie tool")
    _refused(["asl", *out, "--tau-digits", "3", "coverage", q, str(track / "runs")], capsys, "--tau-digits")
    _refused(["asl", *out, "--depth", "1", "ties", q, str(track / "runs")], capsys, "--depth", "ties tool")
    # read: the conventions by every tool, the chain options by chain
    assert main(["asl", *out, "--tau-digits", "3", "--depth", "1", "chain", q, str(track / "runs")]) == 0


def test_the_asl_tools_reads_are_the_conventions_they_pass():
    import dataclasses

    from ranklens.asl import tools
    from ranklens.asl.conventions import COVERAGE, TIES_REPORT, ChainOptions, Conventions

    conv = {f.name for f in dataclasses.fields(Conventions)}
    chain = {f.name for f in dataclasses.fields(ChainOptions)}
    out = {"out", "no_plots", "places"}
    reads = {k: set(v) for k, v in tools.TOOL_READS.items()}
    assert reads["distribution"] == reads["rrie"] == reads["groups"] == conv | out
    assert reads["chain"] == reads["tracks"] == conv | chain | out
    assert reads["coverage"] == set(COVERAGE) | out and reads["ties"] == set(TIES_REPORT) | out


def test_probes_tools_read_no_option_of_the_analysis(tmp_path, capsys):
    _refused(["probes", "--out", str(tmp_path / "o"), "--model", "bm25", "table", str(tmp_path / "r")], capsys,
             "--model", "table tool", "none of the options")
    _refused(["probes", "--probes", "tr-typo", "show", str(tmp_path / "r"), "tr-typo"], capsys, "--probes")


@pytest.fixture
def regimes_files(tmp_path):
    from tests.regimes._synth import write_synthetic_files

    write_synthetic_files(tmp_path)
    return tmp_path, ["--train-queries", str(tmp_path / "train.tsv"), "--test-queries", str(tmp_path / "test.tsv"),
                      "--qrels", str(tmp_path / "qrels.trec")]


def test_regimes_tool_keeps_its_options_given_before_its_name(regimes_files, capsys):
    """Before: argparse reset an option given before the tool name to the tool's default, silently
    (``ranklens regimes --k-nn 3 --no-plots ... diagnose`` listed 10 and drew the plot)."""
    from ranklens.results import Result

    d, base = regimes_files
    assert main(["regimes", "--k-nn", "3", "--similarity", "tfidf", "--no-plots", "--out", str(d / "d"), "diagnose",
                 *base]) == 0
    assert "nearest training query (tfidf)" in capsys.readouterr().out  # not minilm, the tool's default
    assert Result.load(d / "d" / "regimes-query-similarity").summary["k"] == 3
    assert not (d / "d" / "nn_similarity.png").exists()
    # given after the name too: the tool's value wins
    assert main(["regimes", "--k-nn", "3", "--out", str(d / "e"), "diagnose", *base, "--similarity", "tfidf",
                 "--k-nn", "2"]) == 0
    assert Result.load(d / "e" / "regimes-query-similarity").summary["k"] == 2


def test_regimes_tool_refuses_what_it_does_not_read(regimes_files, capsys):
    d, base = regimes_files
    _refused(["regimes", "--trainers", "bm25", "--out", str(d / "x"), "restrain", *base, "--similarity", "tfidf"],
             capsys, "--trainers", "restrain tool")
    _refused(["regimes", "--collection", "demo", "--out", str(d / "x"), "resttest", *base], capsys, "--collection")
    _refused(["regimes", "--out", str(d / "x"), "restrain", *base, "--similarity", "tfidf", "--size", "6",
              "--sizes", "6,8"], capsys, "--size 6", "--sizes")
    _refused(["regimes", "--out", str(d / "x"), "train", *base, "--epochs", "2"], capsys, "--epochs")
    # --size-rule read with --sizes (each size checked as --size)
    assert main(["regimes", "--out", str(d / "s"), "restrain", *base, "--similarity", "tfidf", "--sizes", "6",
                 "--size-rule", "fill", "--no-plots"]) == 0


# ------------------------------------------------------------------ built-in commands with actions

def test_results_options_an_action_does_not_read(tmp_path, capsys):
    d = tmp_path / "res"
    d.mkdir()
    _refused(["results", "list", str(d), "--metric", "ASL"], capsys, "--metric", "compare")
    _refused(["results", "list", str(d), "--changed"], capsys, "--changed", "diff")
    _refused(["results", "show", str(d), "x", "--kind", "asl"], capsys, "--kind")
    _refused(["results", "reindex", str(d), "--model", "bm25"], capsys, "--model")
    _refused(["results", "list", str(d), "other"], capsys, "ID")
    _refused(["results", "diff", str(d), str(d), "--dataset", "x"], capsys, "--dataset")
    _refused(["results", "list", str(d), "--format", "markdown"], capsys, "--format markdown", "tsv or json")
    _refused(["results", "show", str(d), "x", "--format", "tsv"], capsys, "--format tsv")
    assert main(["results", "list", str(d), "--format", "json"]) == 0


def test_cache_data_and_run_options_an_action_does_not_read(tmp_path, capsys):
    _refused(["--cache-dir", str(tmp_path / "c"), "cache", "info", "--fingerprint", "abc"], capsys,
             "--fingerprint", "clear")
    _refused(["data", "list", "--mirror", "http://x"], capsys, "--mirror", "fetch")
    _refused(["data", "list", "misspellings"], capsys, "TARGET")
    _refused(["data", "add", str(tmp_path), "--data-dir", str(tmp_path)], capsys, "--data-dir")
    f = tmp_path / "e.toml"
    f.write_text('results = "res"\n[datasets.d]\nspec = "demo"\n[models.bm25]\nspec = "bm25"\n'
                 '[[analyses]]\ntype = "asl"\n')
    _refused(["run", str(f), "--check", "--no-report"], capsys, "--no-report", "--check")
    assert main(["run", str(f), "--check"]) == 0


def test_cache_dir_with_no_cache_is_refused(tmp_path, capsys):
    _refused(["--no-cache", "--cache-dir", str(tmp_path / "c"), "probes", "--collection", "demo", "--model", "bm25",
              "--probes", "tr-typo", "--cap", "5", "--misspellings", "char"], capsys, "--cache-dir", "--no-cache")
    assert not (tmp_path / "c").exists()


def test_engine_options_on_a_command_that_runs_no_model_are_refused(track, tmp_path, capsys):
    qrels, run = str(track / "qrels.txt"), str(track / "runs" / "a.run")
    _refused(["--engine", "ray", "evaluate", qrels, run, "-m", "AP"], capsys, "--engine ray", "ranklens evaluate",
             "runs no model")
    _refused(["--no-cache", "evaluate", qrels, run, "-m", "AP"], capsys, "--no-cache", "ranklens evaluate")
    _refused(["--cache-dir", str(tmp_path / "c"), "ls", "probes"], capsys, "--cache-dir", "ranklens ls")
    _refused(["--engine", "local", "results", "list", str(tmp_path)], capsys, "--engine local", "ranklens results")
    _refused(["--engine", "local", "--cache-dir", str(tmp_path / "c"), "cache", "info"], capsys, "--engine local",
             "reads --cache-dir only")
    assert not (tmp_path / "c").exists()
    # where they are read: the cache command reads --cache-dir; evaluate without them runs
    assert main(["--cache-dir", str(tmp_path / "c"), "cache", "info"]) == 0
    assert main(["evaluate", qrels, run, "-m", "AP"]) == 0


def test_calibration_depth_with_a_calibration_run_is_refused(track, tmp_path, capsys):
    from ranklens.probes.declaration import Params

    run = str(track / "runs" / "a.run")
    (problem,) = Params(calibrate_on=run, calibration_depth=50).check()
    assert problem.startswith("calibration_depth: ignored with a calibration run") and run in problem
    # read where BM25's top depth is re-ranked: no calibration run, or the default depth with one
    assert Params(calibration_depth=50).check() == [] and Params(calibrate_on=run).check() == []
    assert Params(calibrate_on="demo", calibration_depth=50).check() == []
    _refused(["probes", "--collection", "demo", "--model", "bm25", "--probes", "tr-typo", "--cap", "5",
              "--misspellings", "char", "--calibrate-on", run, "--calibration-depth", "50", "--out",
              str(tmp_path / "o")], capsys, "--calibration-depth", "calibration run")
    assert not (tmp_path / "o").exists()


def test_base_model_when_every_neural_trainer_names_its_model_is_refused():
    from ranklens.regimes.declaration import Params

    (problem,) = Params(trainers=("bm25", "bi-encoder:/m/a", "cross-encoder:/m/b"), base_model="/m/c").check()
    assert problem.startswith("base_model: ignored: every neural trainer names its own model")
    assert Params(trainers=("bi-encoder:/m/a", "cross-encoder"), base_model="/m/c").check() == []
    assert Params(trainers=("bi-encoder:/m/a",)).check() == []
    with pytest.raises(IgnoredOptionError, match="base_model"):
        make_params(Params, {"trainers": ["bi-encoder:/m/a"], "base_model": "/m/c"})
