"""A summary value of the wrong type in a saved result (issue 31): each result kind declares the
summary values the report reads (``ResultKind.summary``: key -> type), and ``Result.load`` -- so
``ranklens report`` and ``ranklens results reindex`` -- refuses a tampered one with a located
``DataFormatError`` (the file, ``summary.<key>``, what it is, what the kind declares, the fix)
instead of rendering it without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ranklens.cli import main
from ranklens.declare import ResultKind
from ranklens.errors import DataFormatError, ValidationError
from ranklens.registry import kind_info
from ranklens.results import Result, make_provenance


def _probes(tmp_path: Path, **summary) -> Path:
    table = pd.DataFrame({"probe": ["tfc1"], "model": ["bm25"], "score": [0.5]})
    base = {"alpha": 0.01, "correction": "bonferroni", "deltas": {"bm25": 0.25, "st": None},
            "calibration": {"bm25": "median"}, "n_probes": 1}
    return Result(kind="probes-table", summary={**base, **summary}, table=table,
                  provenance=make_provenance(seed=0)).save(tmp_path / "probes-table")


def _tamper(d: Path, key: str, value) -> Path:
    meta_path = d / "result.json"
    meta = json.loads(meta_path.read_text())
    meta["summary"][key] = value
    meta_path.write_text(json.dumps(meta))
    return meta_path


def test_the_kinds_declare_the_summary_values_their_report_reads():
    assert kind_info("probes-table").summary["alpha"] == "number"
    assert kind_info("asl-evaluate").summary["measures"] == "list of text"
    assert kind_info("neighbors-matrix").summary["k"] == "integer"
    assert kind_info("regimes-split-pca").summary["explained_variance"] == "list of numbers"


@pytest.mark.parametrize("key, value, said", [
    ("alpha", "0.05", "summary.alpha: a string (\"0.05\"), expected a number"),
    ("alpha", True, "summary.alpha: a boolean (true), expected a number"),
    ("alpha", None, "summary.alpha: null, expected a number"),
    ("correction", 5, "summary.correction: an integer (5), expected a string"),
    ("deltas", [0.1], "summary.deltas: a list, expected an object of numbers"),
    ("deltas", {"bm25": "0.1"}, "summary.deltas['bm25']: a string (\"0.1\"), expected a number or null"),
    ("calibration", {"bm25": 3}, "summary.calibration['bm25']: an integer (3), expected a string"),
])
def test_a_wrong_typed_summary_value_is_a_located_error(tmp_path, key, value, said):
    d = _probes(tmp_path)
    assert Result.load(d).summary["deltas"] == {"bm25": 0.25, "st": None}  # as written: loads
    meta_path = _tamper(d, key, value)
    with pytest.raises(DataFormatError) as exc:
        Result.load(d)
    msg = str(exc.value)
    assert msg.startswith(f"{meta_path}: {said} (result kind 'probes-table' declares it)")
    assert "re-run the analysis" in msg


def test_undeclared_and_absent_values_and_nullable_ones_load(tmp_path):
    d = _probes(tmp_path)
    _tamper(d, "n_probes", "one")  # not a value the report reads: the digest warns, no error
    res = Result.load(d)
    assert res.summary["n_probes"] == "one" and any("edited after ranklens saved it" in w for w in res.warnings)
    r = Result(kind="neighbors-robustness", summary={"sample_rho_mean": None}, table=pd.DataFrame({"a": [1]}),
               provenance=make_provenance()).save(tmp_path / "rob")
    assert Result.load(r).summary["sample_rho_mean"] is None
    _tamper(r, "sample_rho_mean", "high")
    with pytest.raises(DataFormatError, match=r"summary\.sample_rho_mean: a string \(\"high\"\), expected a number or null"):
        Result.load(r)
    # a list whose items are of the wrong type
    p = Result(kind="regimes-split-pca", summary={"regimes": ["interpolation"], "explained_variance": [0.5, None]},
               table=pd.DataFrame({"a": [1]}), provenance=make_provenance()).save(tmp_path / "pca")
    assert Result.load(p).summary["explained_variance"] == [0.5, None]
    _tamper(p, "regimes", ["interpolation", 2])
    with pytest.raises(DataFormatError, match=r"summary\.regimes\[1\]: an integer \(2\), expected a string"):
        Result.load(p)


def test_report_and_reindex_say_which_file_and_value(tmp_path, capsys):
    d = _probes(tmp_path / "res")
    meta_path = _tamper(d, "alpha", "0.05")
    assert main(["report", str(tmp_path / "res"), "-o", str(tmp_path / "r.html")]) == 1
    err = capsys.readouterr().err
    assert f"{meta_path}: summary.alpha: a string" in err and "Traceback" not in err
    assert not (tmp_path / "r.html").exists()


def test_a_declared_type_that_is_not_one_is_refused_where_it_is_declared():
    with pytest.raises(ValidationError, match=r"result kind 'x-y': summary\['k'\]: 'int' is not a summary type"):
        ResultKind("x-y", summary={"k": "int"})
    assert ResultKind("x-y", summary={"k": "integer?", "m": "list of numbers"}).summary["k"] == "integer?"
