"""Experiment files: validation with key paths, every analysis step, resume, tracks of run files."""

from __future__ import annotations

import pytest

from ranklens.cli import main
from ranklens.errors import ValidationError
from ranklens.experiment import load_experiment, run_experiment
from ranklens.report import Report
from ranklens.results import Result
from ranklens.store import ResultsStore


def test_validation_lists_every_problem_with_its_key_path(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("""
colour = 1
[models.bm25]
spec = "bm25"
flavour = "x"
[datasets.d]
spec = "no/such/dir"
[[analyses]]
type = "aslx"
[[analyses]]
type = "asl"
datasets = ["nope"]
params = { kk = 3 }
""")
    with pytest.raises(ValidationError) as err:
        load_experiment(f)
    msg = str(err.value)
    for needle in ("colour: unknown key", "models.bm25.flavour: unknown key", "datasets.d.spec:",
                   "does not exist", "analyses[0].type: unknown analysis 'aslx'",
                   "analyses[1].datasets[0]: unknown dataset 'nope'",
                   "analyses[1].params.kk: unknown parameter"):
        assert needle in msg, needle
    assert "6 problem(s)" in msg or "7 problem(s)" in msg


def test_cheap_experiment_runs_every_analysis_resumes_and_reports(small_experiment, monkeypatch):
    f = small_experiment
    exp = load_experiment(f)
    assert [s.analysis for s in exp.steps] == ["asl", "probes", "neighbors", "regimes", "explain"]

    # a crash in the fourth step: the first three are kept (markers), nothing after runs
    import ranklens.regimes.driver as regimes

    def boom(*a, **k):
        raise RuntimeError("killed")

    with monkeypatch.context() as m:
        m.setattr(regimes, "run", boom)  # the declaration names its driver "module:function"
        with pytest.raises(RuntimeError, match="killed"):
            run_experiment(exp, show_progress=False)
    done = sorted(p.parent.name.split("-")[0] for p in exp.results_dir.glob("*/.done"))
    assert done == ["asl", "neighbors", "probes"]

    info = run_experiment(exp, show_progress=False)
    assert (info["steps_run"], info["steps_skipped"]) == (2, 3)
    kinds = set(ResultsStore(exp.results_dir).list()["kind"])
    assert {"asl-evaluate", "asl-chain", "probes-table", "neighbors-token-overlap", "neighbors-ranker-overlap",
            "regimes-table", "explain-consistency", "explain-sweep"} <= kinds
    ev = Result.load(next(exp.results_dir.glob("asl-demo-*/asl-evaluate")))
    assert set(ev.table["model"]) == {"bm25", "tfidf"}
    # neighbors: bm25 is no embedder -> named in a warning of the result, tfidf used
    tok = Result.load(next(exp.results_dir.glob("neighbors-demo-*/neighbors-token-overlap")))
    assert any(w.startswith("model bm25") for w in tok.warnings)
    html = (exp.results_dir / "report.html").read_text()
    assert html.count("<svg") >= 5 and "No per-model summary rows" not in html

    # a finished step keeps no work folder (regimes' fine-tuned models and checkpoints)
    assert not [p for p in exp.results_dir.rglob(".work") if p.is_dir()]
    assert not [p for p in exp.results_dir.rglob("*") if p.suffix in (".safetensors", ".bin", ".pt")]
    again = run_experiment(exp, show_progress=False, report=False)
    assert (again["steps_run"], again["steps_skipped"]) == (0, 5)
    # the CLI --check lists every step as done
    assert main(["run", str(f), "--check"]) == 0


def test_track_of_run_files_needs_no_models(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n1 0 c 2\n2 0 b 1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "good").write_text("1 Q0 a 1 3.0 g\n1 Q0 c 2 2.0 g\n1 Q0 b 3 1.0 g\n2 Q0 b 1 1.0 g\n")
    (runs / "bad").write_text("1 Q0 b 1 3.0 x\n1 Q0 a 2 2.0 x\n1 Q0 c 3 1.0 x\n2 Q0 a 1 1.0 x\n")
    f = tmp_path / "track.toml"
    f.write_text(f'results = "out"\n[datasets.t]\nqrels = "{qrels}"\nruns = "{runs}"\n'
                 '[[analyses]]\ntype = "asl"\nparams = { n_resamples = 200 }\n')
    assert main(["-q", "run", str(f), "--no-report"]) == 0
    ev = Result.load(next((tmp_path / "out").glob("asl-t-*/asl-evaluate")))
    asl = dict(zip(ev.table["model"], ev.table["ASL"]))
    # good: both relevant docs of q1 first (SL 1, 1), q2's b first -> 1; bad: a, c after b -> 2, 2; q2: b missing
    assert asl["good"] == pytest.approx(1.0)
    assert asl["bad"] > asl["good"]


def test_demo_is_a_built_in_experiment_that_resumes(tmp_path, monkeypatch):
    """``ranklens demo`` runs each registered analysis, with its declared demo parameters, as an
    experiment step through the one driver: results indexed, report rendered, finished parts
    skipped on a re-run, unknown parts rejected."""
    import pandas as pd

    import ranklens.asl.driver as asl_driver
    from ranklens.registry import get_analysis
    from ranklens.demo import run_demo
    from ranklens.results import make_provenance

    calls = []

    def fake_driver(collection, models, params, *, engine=None, seed=0, work_dir=None):
        calls.append((collection.name, sorted(models), params))
        return [Result(kind="asl-evaluate", summary={"n_runs": 1}, provenance=make_provenance(),
                       table=pd.DataFrame({"model": ["bm25"], "ASL": [2.0], "n_queries": [3]}))]

    monkeypatch.setattr(asl_driver, "run", fake_driver)
    info = run_demo(tmp_path / "d", only=["asl"], show_progress=False)
    assert len(calls) == 1 and set(info["seconds"]) == {"asl"}
    assert calls[0][1] == ["bm25", "minilm", "tfidf"]
    asl = get_analysis("asl")
    assert calls[0][2] == asl.params(**dict(asl.demo))
    assert (tmp_path / "d" / "report.html").is_file()
    assert list(ResultsStore(tmp_path / "d").list()["kind"]) == ["asl-evaluate"]
    again = run_demo(tmp_path / "d", only=["asl"], show_progress=False)
    assert len(calls) == 1 and again["steps_skipped"] == 1 and again["seconds"] == {}
    with pytest.raises(ValidationError, match="--only astl: unknown analysis"):
        run_demo(tmp_path / "d", only=["astl"])
    # the settings in force are printed at the top of the report
    html = (tmp_path / "d" / "report.html").read_text()
    assert "Quick demo" in html and "asl: k=50, compare=bm25,minilm" in html
    # rendered again later from the folder (`ranklens report DIR`), the settings are still shown
    out = tmp_path / "again.md"
    assert main(["report", str(tmp_path / "d"), "-o", str(out)]) == 0
    md = out.read_text()
    assert "Quick demo" in md and "asl: k=50, compare=bm25,minilm" in md and md.startswith("# ranklens demo")
    assert main(["report", str(tmp_path / "d"), "-o", str(out), "--title", "Mine"]) == 0
    assert out.read_text().startswith("# Mine")
    (tmp_path / "d" / "report-notes.json").write_text('{"title": 3}')
    from ranklens.errors import DataFormatError

    with pytest.raises(DataFormatError, match="report-notes.json.*'title' must be a string"):
        Report.from_dirs([tmp_path / "d"])
    # --full: the declaration's demo_full settings, a step of its own, said so in the report
    full = run_demo(tmp_path / "f", only=["asl"], show_progress=False, full=True)
    assert calls[-1][2] == asl.params(**dict(asl.demo_full)) and asl.demo_full != asl.demo
    assert full["steps_run"] == 1 and "Full demo" in (tmp_path / "f" / "report.html").read_text()


def test_demo_cli_says_which_settings_ran_and_full_writes_elsewhere(tmp_path, monkeypatch, capsys):
    """``ranklens demo`` prints that it ran the quick settings and how to run the larger ones;
    ``--full`` defaults to its own results folder (the two never mix in one report)."""
    import ranklens.demo as demo_mod
    from ranklens.cli import main

    seen = []

    def fake_run_demo(out, *, only=None, full=False, **kw):
        seen.append((str(out), full))
        exp = demo_mod.demo_experiment(out, only=only, full=full)
        return {"report": str(tmp_path / "r.html"), "seconds": {}, "warnings": [], "notes": list(exp.notes)}

    monkeypatch.setattr(demo_mod, "run_demo", fake_run_demo)
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--only", "asl"]) == 0
    assert "ranklens demo --full" in capsys.readouterr().err
    assert main(["demo", "--full", "--only", "asl"]) == 0
    assert "Full demo" in capsys.readouterr().err
    assert seen == [("ranklens-demo", False), ("ranklens-demo-full", True)]


def test_neighbors_step_samples_documents_when_the_corpus_is_too_big(tmp_path):
    """max_sentences caps the sentence corpus with a seeded sample of whole documents (not the
    first documents of the collection)."""
    from ranklens.datasets.demo import load_demo
    from ranklens.drive import run_analysis

    coll = load_demo()
    models = {"tfidf": {"spec": "tfidf", "params": {}}}
    params = {"max_sentences": 300, "n_queries": 5, "k": 3, "n_samples": 1}
    res = run_analysis("neighbors", coll, models, params, seed=1)
    tok = next(r for r in res if r.kind == "neighbors-token-overlap")
    full = tok.provenance.params["n_corpus"]
    assert 150 <= full <= 450  # about 300 sentences, from whole documents
    again = run_analysis("neighbors", coll, models, params, seed=2)
    other = next(r for r in again if r.kind == "neighbors-token-overlap")
    assert other.provenance.inputs["corpus"] != tok.provenance.inputs["corpus"]  # another seed, another sample


def test_a_model_name_given_another_spec_is_another_step(tmp_path):
    """The step id covers what a model name stands for: renaming spec under the same name (or
    changing its params, or the dataset's entry) must not resume from the old step's results."""
    def step_id(model_table: str, dataset: str = 'spec = "demo"') -> str:
        f = tmp_path / "e.toml"
        f.write_text(f'title = "t"\nresults = "r"\n[models.m]\n{model_table}\n[datasets.d]\n{dataset}\n'
                     '[[analyses]]\ntype = "asl"\n')
        return load_experiment(f).steps[0].step_id

    base = step_id('spec = "bm25"')
    assert step_id('spec = "bm25"') == base
    assert step_id('spec = "tfidf"') != base
    assert step_id('spec = "bm25"\nparams = { k1 = 1.2 }') != base
    assert step_id('spec = "bm25"', f'spec = "demo"\nqrels = "{tmp_path / "e.toml"}"') != base


def test_run_prints_each_warning_once_on_stderr(tmp_path, capsys):
    """`ranklens run` prints the results' warnings (it printed none), once each, on stderr."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n1 0 c 2\n2 0 b 1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "deep").write_text("1 Q0 a 1 3.0 g\n1 Q0 c 2 2.0 g\n1 Q0 b 3 1.0 g\n2 Q0 b 1 1.0 g\n2 Q0 z 2 0.5 g\n")
    (runs / "shallow").write_text("1 Q0 b 1 3.0 x\n2 Q0 a 1 1.0 x\n")
    f = tmp_path / "track.toml"
    f.write_text(f'results = "out"\n[datasets.t]\nqrels = "{qrels}"\nruns = "{runs}"\n'
                 '[[analyses]]\ntype = "asl"\nparams = { n_resamples = 50 }\n')
    capsys.readouterr()
    assert main(["-q", "run", str(f), "--no-report"]) == 0
    cap = capsys.readouterr()
    warned = [x for x in cap.err.splitlines() if x.startswith("ranklens: warning: asl-t-")]
    assert warned and len(warned) == len(set(warned))
    assert "ranklens: warning" not in cap.out and "\"warnings\"" not in cap.out


def test_check_names_a_bad_measure_and_a_bad_engine_address_with_their_keys(tmp_path, capsys):
    """`run --check` stops on a measure the run would fail on 69 s later (with trec_eval's name
    mapped in the hint) and on an [engine] address that is not a string, naming each key."""
    f = tmp_path / "e.toml"
    f.write_text(f'results = "{tmp_path / "out"}"\n[models.bm25]\nspec = "bm25"\n[datasets.d]\nspec = "demo"\n'
                 '[[analyses]]\ntype = "asl"\nparams = { measures = ["ndcg_cut_10", "AP"] }\n'
                 '[engine]\naddress = 5\n')
    assert main(["run", str(f), "--check"]) == 1
    err = capsys.readouterr().err
    assert "analyses[0].params: measures: 'ndcg_cut_10'" in err and "is nDCG@10 here" in err
    assert "engine.address: must be a string, got 5" in err
    assert "'AP'" not in err  # a valid measure is not reported
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())



def test_keep_work_is_checked_and_keeps_the_work_folder(tmp_path):
    from ranklens.experiment import validate

    base = {"models": {"bm25": {"spec": "bm25"}}, "datasets": {"d": {"spec": "demo"}},
            "analyses": [{"type": "asl"}], "results": str(tmp_path / "out")}
    _, errors = validate({**base, "keep_work": "yes"})
    assert any(e.startswith("keep_work: must be true or false") for e in errors)
    exp, errors = validate({**base, "keep_work": True})
    assert not errors and exp.keep_work
    assert validate(base)[0].keep_work is False


@pytest.mark.parametrize("keep", [False, True])
def test_a_finished_step_leaves_no_checkpoints_unless_kept(tmp_path, monkeypatch, keep):
    """What a step writes under its work folder (a trainer's checkpoints) is removed once the step
    is done; keep_work = true keeps it."""
    import ranklens.drive as drive
    from ranklens.experiment import validate

    real = drive.run_analysis

    def training(*args, work_dir=None, **kwargs):  # a step that saves a checkpoint, as regimes does
        (work_dir / "models").mkdir(parents=True)
        (work_dir / "models" / "model.safetensors").write_bytes(b"\0" * 1024)
        return real(*args, work_dir=work_dir, **kwargs)

    monkeypatch.setattr(drive, "run_analysis", training)
    exp, errors = validate({"models": {"bm25": {"spec": "bm25"}}, "datasets": {"d": {"spec": "demo"}},
                            "analyses": [{"type": "asl", "params": {"n_resamples": 20}}],
                            "results": str(tmp_path / "out"), "keep_work": keep})
    assert not errors
    run_experiment(exp, show_progress=False, report=False)
    kept = list((tmp_path / "out").rglob("model.safetensors"))
    assert (len(kept) == 1) if keep else (kept == [] and not list((tmp_path / "out").rglob(".work")))


def test_an_experiment_file_takes_model_objects_from_python(tmp_path):
    """load_experiment(path, models={NAME: object}) adds an object to the file's models: it runs
    through the one door, its fingerprint is in its spec (so the step id follows the object: the
    same object reuses the finished step, another object runs anew), and the file's models stay."""
    import numpy as np

    from ranklens.experiment import load_experiment, run_experiment

    f = tmp_path / "e.toml"
    f.write_text('results = "res"\n[models.bm25]\nspec = "bm25"\n[datasets.demo]\nspec = "demo"\n'
                 '[[analyses]]\ntype = "asl"\nparams = { k = 10, measures = ["AP"] }\n')

    def longest(query, texts):
        return np.array([float(len(t)) for t in texts])

    def shortest(query, texts):
        return np.array([-float(len(t)) for t in texts])

    exp = load_experiment(f, models={"mine": {"model": longest, "version": "1"}})
    assert exp.models["bm25"]["spec"] == "bm25" and exp.models["mine"]["spec"].startswith("object:mine#")
    info = run_experiment(exp, show_progress=False)
    assert info["steps_run"] == 1
    res = Result.load(next((tmp_path / "res").glob("asl-demo-*/asl-evaluate")))
    assert set(res.table["model"]) == {"bm25", "mine"}
    again = run_experiment(load_experiment(f, models={"mine": {"model": longest, "version": "1"}}), show_progress=False)
    assert again["steps_run"] == 0 and again["steps_skipped"] == 1
    other = load_experiment(f, models={"mine": {"model": shortest, "version": "2"}})
    assert [s.step_id for s in other.steps] != [s.step_id for s in exp.steps]
    assert run_experiment(other, show_progress=False)["steps_run"] == 1
