"""The declaration mechanism: Params validation, derived CLI options, the registry, and a toy
analysis added with one package + one registry line that reaches every door."""

from __future__ import annotations

import dataclasses
import sys
import textwrap

import pytest

from ranklens.cli import build_parser, main
from ranklens.declare import make_params, param, params_from_args
from ranklens.errors import ValidationError
from ranklens.registry import analyses, get_analysis, register

TOY = '''
"""A toy analysis: per model, the mean length of the documents it would rank first."""
from dataclasses import dataclass

import pandas as pd

from ranklens.declare import Analysis, ModelRows, ResultKind, param
from ranklens.results import Result, make_provenance


@dataclass(frozen=True)
class Params:
    top: int = param(3, "documents per query", min=1)
    scale: float = param(1.0, "multiplier of the lengths")


def run(collection, models, params, *, engine=None, seed=0, work_dir=None):
    lengths = sorted(len(t) for _, t in collection.docs.iter_docs())
    rows = [{"model": name, "toy_len": params.scale * sum(lengths[: params.top]) / params.top,
             "n": params.top} for name in models]
    return [Result(kind="toy-lengths", summary={"n_models": len(rows)}, table=pd.DataFrame(rows),
                   provenance=make_provenance(params={"top": params.top, "scale": params.scale}, seed=seed))]


ANALYSIS = Analysis(name="toy", title="Toy lengths analysis", params=Params, run="toy_analysis.declaration:run",
                    help="a toy analysis for the registry test",
                    kinds=(ResultKind("toy-lengths", "Toy lengths", model_rows=ModelRows("model", ("toy_len",), n="n")),))
'''


@pytest.fixture()
def toy(tmp_path, monkeypatch):
    pkg = tmp_path / "toy_pkg" / "toy_analysis"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "declaration.py").write_text(textwrap.dedent(TOY))
    monkeypatch.syspath_prepend(str(tmp_path / "toy_pkg"))
    with register("toy", "toy_analysis.declaration:ANALYSIS") as a:  # the one registry line
        yield a
    sys.modules.pop("toy_analysis.declaration", None)
    sys.modules.pop("toy_analysis", None)


def test_toy_analysis_reaches_help_experiment_report_and_compare(toy, tmp_path, capsys):
    assert "toy" in build_parser().format_help()
    with pytest.raises(SystemExit):
        main(["toy", "--help"])
    helptext = capsys.readouterr().out
    assert "--top V" in helptext and "(default: 3)" in helptext and "--scale V" in helptext

    exp = tmp_path / "exp.toml"
    exp.write_text('results = "res"\n[models.bm25]\nspec = "bm25"\n[models.tf]\nspec = "tfidf"\n'
                   '[datasets.demo]\nspec = "demo"\n[[analyses]]\ntype = "toy"\nparams = { top = 2 }\n')
    assert main(["-q", "run", str(exp)]) == 0
    capsys.readouterr()
    html = (tmp_path / "res" / "report.html").read_text()
    assert "Toy lengths analysis" in html
    assert main(["results", "compare", str(tmp_path / "res"), "--format", "json"]) == 0
    rows = capsys.readouterr().out
    assert '"metric":"toy_len"' in rows.replace(" ", "") and '"bm25"' in rows and '"tf"' in rows

    # a wrong parameter type is caught at --check time, before any model loads
    exp.write_text(exp.read_text().replace("top = 2", 'top = "two"'))
    assert main(["run", str(exp), "--check"]) == 1
    assert "analyses[0].params.top: expected an integer, got 'two'" in capsys.readouterr().err


def test_toy_analysis_cli_and_experiment_give_the_same_numbers(toy, tmp_path, capsys):
    from ranklens.results import Result

    assert main(["-q", "toy", "--collection", "demo", "--model", "bm25", "--out", str(tmp_path / "cli")]) == 0
    exp = tmp_path / "exp.toml"
    exp.write_text('results = "res"\n[models.bm25]\nspec = "bm25"\n[datasets.demo]\nspec = "demo"\n'
                   '[[analyses]]\ntype = "toy"\n')
    assert main(["-q", "run", str(exp), "--no-report"]) == 0
    a = Result.load(tmp_path / "cli" / "toy-lengths").table
    b = Result.load(next((tmp_path / "res").glob("toy-demo-*/toy-lengths"))).table
    assert a.equals(b)
    lengths = sorted(len(t) for _, t in __import__("ranklens.datasets.demo", fromlist=["x"]).load_demo()
                     .docs.iter_docs())
    assert a["toy_len"].iloc[0] == pytest.approx(sum(lengths[:3]) / 3)


@dataclasses.dataclass(frozen=True)
class _P:
    k: int = param(10, "depth", min=1)
    ks: tuple[int, ...] = param((10, 50), "cut-offs")
    mode: str = param("a", "mode", choices=("a", "b", "window:N"))
    rate: float = param(0.5, "rate", min=0.0, max=1.0)
    name: str | None = param(None, "optional name")
    flag: bool = param(False, "a flag")


def test_make_params_coerces_and_reports_every_problem_with_its_key_path():
    p = make_params(_P, {"k": "3", "ks": "1, 2", "mode": "window:5", "rate": 1, "flag": "true"})
    assert (p.k, p.ks, p.mode, p.rate, p.flag) == (3, (1, 2), "window:5", 1.0, True)
    assert make_params(_P, {"ks": "none"}).ks == ()
    with pytest.raises(ValidationError) as err:
        make_params(_P, {"k": 0, "ks": ["x"], "mode": "c", "rate": 2.0, "flag": "maybe", "kk": 1, "name": 3.5})
    msg = str(err.value)
    for needle in ("params.kk: unknown parameter", "params.k: 0 is below the minimum 1",
                   "params.ks[0]: expected an integer, got 'x'", "params.mode: 'c' is not one of",
                   "params.rate: 2.0 is above the maximum 1.0", "params.flag: expected true or false"):
        assert needle in msg, needle
    assert make_params(_P, {"name": 3.5}).name == "3.5"  # numbers are accepted as strings
    with pytest.raises(ValidationError, match="window:0"):
        make_params(_P, {"mode": "window:0"})


def test_cli_options_are_derived_and_unset_options_keep_the_declared_defaults():
    import argparse

    from ranklens.declare import add_cli_options

    parser = argparse.ArgumentParser()
    add_cli_options(parser, _P)
    assert params_from_args(_P, parser.parse_args([])) == _P()
    args = parser.parse_args(["--k", "4", "--ks", "1", "--ks", "2,3", "--flag", "--mode", "b"])
    assert params_from_args(_P, args) == _P(k=4, ks=(1, 2, 3), flag=True, mode="b")
    with pytest.raises(ValidationError, match=r"--k: 0 is below the minimum 1"):
        params_from_args(_P, parser.parse_args(["--k", "0"]))


def test_every_builtin_analysis_is_declared_once_with_documented_params(capsys):
    names = list(analyses())
    assert names[:5] == ["asl", "probes", "neighbors", "regimes", "explain"]
    for name in names[:5]:
        a = get_analysis(name)
        assert a.name == name and a.kinds and a.driver()
        for f in dataclasses.fields(a.params):
            assert f.metadata.get("doc"), f"{name}.{f.name} has no doc"
        a.params()  # every field has a default
        with pytest.raises(SystemExit):
            main([name, "--help"])
        out = capsys.readouterr().out
        for f in dataclasses.fields(a.params):
            assert "--" + f.name.replace("_", "-") in out, (name, f.name)
    with pytest.raises(ValidationError, match="unknown analysis 'nope'"):
        get_analysis("nope")


def test_names_used_as_directories_are_sanitised(tmp_path):
    from ranklens.drive import safe_name
    from ranklens.experiment import Step

    assert safe_name("/../../../escaped") == "escaped"
    assert safe_name("..") == "_" and safe_name("a b/c") == "a_b_c"
    step = Step("asl", "/../../../escaped", ("bm25",), {})
    assert "/" not in step.step_id and ".." not in step.step_id
    assert (tmp_path / step.step_id).resolve().parent == tmp_path.resolve()


def test_one_name_everywhere_package_command_type_and_kinds():
    """Each built-in analysis lives in ``ranklens.<name>``, is the CLI command ``<name>`` and the
    experiment type ``<name>``, and every result kind it declares is ``<name>-...``."""
    from ranklens.registry import ANALYSES, owner_of

    commands = set(build_parser()._subparsers._group_actions[0].choices)  # noqa: SLF001
    for name, entry in ANALYSES.items():
        a = get_analysis(name)
        assert entry == f"ranklens.{name}.declaration:ANALYSIS"
        assert name in commands
        assert a.kinds and all(k.name.startswith(name + "-") for k in a.kinds)
        assert all(owner_of(k.name) is a for k in a.kinds)


def test_a_kind_not_named_after_its_analysis_is_refused():
    from ranklens.declare import Analysis, ResultKind

    with pytest.raises(ValidationError, match="'toy-...'"):
        Analysis(name="toy", title="t", params=object, run="x:y", kinds=(ResultKind("other-table", "Other"),))


def test_nan_and_infinities_fail_every_declared_range():
    """NaN passes every comparison: a range check must refuse it (``--alpha nan`` used to turn
    ΔSort 50.0 into 0.0 with exit 0), at every door that validates Params."""
    import dataclasses as dc

    from ranklens.declare import make_params, param
    from ranklens.errors import ValidationError

    @dc.dataclass(frozen=True)
    class P:
        alpha: float = param(0.05, "level", min=0.0, max=1.0)
        w: float = param(1.0, "weight")

    for bad in ("nan", "inf", "-inf", float("nan"), float("inf")):
        with pytest.raises(ValidationError, match=r"params\.alpha: .* is not a finite number"):
            make_params(P, {"alpha": bad})
        with pytest.raises(ValidationError, match=r"params\.w: .* is not a finite number"):
            make_params(P, {"w": bad})
    assert make_params(P, {"alpha": "0.5"}).alpha == 0.5


def test_a_tool_derives_a_subset_of_options_with_deprecated_aliases():
    import argparse
    import dataclasses as dc
    import warnings

    from ranklens.declare import add_cli_options, param, params_from_args
    from ranklens.errors import ValidationError

    @dc.dataclass(frozen=True)
    class P:
        k_nn: int = param(5, "neighbours", min=1)
        trainers: tuple[str, ...] = param(("bm25",), "trainers")
        other: str = param("x", "not offered by the tool")

    parser = argparse.ArgumentParser()
    add_cli_options(parser, P, fields=["k_nn", "trainers"], aliases={"k_nn": ["-k"], "trainers": ["--trainer"]})
    assert "--other" not in parser.format_help() and "(default: 5)" in parser.format_help()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        args = parser.parse_args(["-k", "7", "--trainer", "a", "--trainer", "b"])
    assert [str(w.message).split(";")[0] for w in caught] == ["-k is deprecated", "--trainer is deprecated",
                                                              "--trainer is deprecated"]
    p = params_from_args(P, args, fields=["k_nn", "trainers"])
    assert (p.k_nn, p.trainers, p.other) == (7, ("a", "b"), "x")
    with pytest.raises(ValidationError, match="--k-nn: 0 is below the minimum 1"):
        params_from_args(P, parser.parse_args(["--k-nn", "0"]), fields=["k_nn"])
    with pytest.raises(ValidationError, match="no parameter"):
        add_cli_options(argparse.ArgumentParser(), P, fields=["nope"])
