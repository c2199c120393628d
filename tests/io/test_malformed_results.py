"""The malformed-input catalogue, continued: tampered results, index files and parameters.

A result directory edited or damaged after ``ranklens`` wrote it -- through ``Result.load`` and
through ``ranklens report`` (HTML, Markdown, LaTeX) and ``ranklens results reindex`` -- gives a
located error (file, key path or row/line, the fix) or, when every value is still well-typed but
the numbers were changed, a warned acceptance (the digest no longer matches: printed by the CLI,
shown in the report). Never a traceback, never a silently rendered number.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranklens.cli import main
from ranklens.errors import RanklensError
from ranklens.results import Result, make_provenance

FIX = "re-run the analysis"


def _result() -> Result:
    table = pd.DataFrame({"model": ["a", "b"], "AP": [0.5, 0.25], "n": [3, 4], "significant": [True, False]})
    per_query = pd.DataFrame({"query_id": ["1", "2"], "AP": [0.5, np.nan]})
    return Result(kind="asl-evaluate", summary={"AP": 0.5, "best": {"AP": {"model": "a", "value": 0.5}}},
                  table=table, tables={"per_query": per_query}, provenance=make_provenance(seed=1),
                  warnings=("one warning",))


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    return _result().save(tmp_path_factory.mktemp("clean") / "res")


def _meta(d: Path) -> dict:
    return json.loads((d / "result.json").read_text())


def _set_meta(edit):
    def apply(d: Path) -> None:
        meta = _meta(d)
        out = edit(meta)
        (d / "result.json").write_text(out if isinstance(out, str) else json.dumps(meta))
    return apply


def _table(d: Path, name: str = "table") -> bytes:
    return gzip.decompress((d / f"{name}.tsv.gz").read_bytes())


def _set_table(edit, name: str = "table"):
    def apply(d: Path) -> None:
        (d / f"{name}.tsv.gz").write_bytes(gzip.compress(edit(_table(d, name))))
    return apply


# (id, edit, file the error names, ":line" or None, words)
ERROR_CASES = [
    ("json-top-level-list", _set_meta(lambda m: "[1, 2]"), "result.json", None, "not an object"),
    ("json-not-utf8", lambda d: (d / "result.json").write_bytes(b"\xff\xfe{}"), "result.json", None, "not UTF-8"),
    ("json-syntax", _set_meta(lambda m: "{bad"), "result.json", 1, "invalid JSON"),
    ("json-deep-100000", _set_meta(lambda m: '{"kind": ' + "[" * 100_000 + "]" * 100_000 + "}"), "result.json",
     None, "nested"),
    ("json-deep-200", _set_meta(lambda m: m["summary"].update(x=json.loads("[" * 200 + "]" * 200))), "result.json",
     None, "more than 64 levels"),
    ("json-nan-literal", _set_meta(lambda m: json.dumps(m).replace('"AP": 0.5', '"AP": NaN', 1)), "result.json",
     None, "summary.AP: NaN"),
    ("kind-missing", _set_meta(lambda m: m.pop("kind") and None), "result.json", None, "kind: missing"),
    ("kind-int", _set_meta(lambda m: m.update(kind=5)), "result.json", None, "kind: an integer, expected a string"),
    ("kind-empty", _set_meta(lambda m: m.update(kind=" ")), "result.json", None, "kind: empty"),
    ("summary-list", _set_meta(lambda m: m.update(summary=[1])), "result.json", None, "summary: a list"),
    ("provenance-list", _set_meta(lambda m: m.update(provenance=[1])), "result.json", None, "provenance: a list"),
    ("provenance-no-version", _set_meta(lambda m: m["provenance"].pop("ranklens_version") and None),
     "result.json", None, "provenance.ranklens_version: missing"),
    ("provenance-seed-text", _set_meta(lambda m: m["provenance"].update(seed="1")), "result.json", None,
     "provenance.seed: a string, expected an integer or null"),
    ("provenance-seed-bool", _set_meta(lambda m: m["provenance"].update(seed=True)), "result.json", None,
     "provenance.seed: a boolean"),
    ("provenance-params-list", _set_meta(lambda m: m["provenance"].update(params=[1])), "result.json", None,
     "provenance.params: a list"),
    ("tables-not-object", _set_meta(lambda m: m.update(tables=[])), "result.json", None, "tables: a list"),
    ("tables-no-main", _set_meta(lambda m: m["tables"].pop("table") and None), "result.json", None,
     "tables.table: missing"),
    ("tables-schema-list", _set_meta(lambda m: m["tables"].update(table=["AP"])), "result.json", None,
     "tables.table: a list"),
    ("tables-dtype-unknown", _set_meta(lambda m: m["tables"]["table"].update(AP="frobnicate")), "result.json",
     None, "tables.table.AP: 'frobnicate'"),
    ("tables-name-escapes", _set_meta(lambda m: m["tables"].update({"../x": {}})), "result.json", None,
     "outside the result directory"),
    ("warnings-text", _set_meta(lambda m: m.update(warnings="abc")), "result.json", None, "warnings: a string"),
    ("warnings-object", _set_meta(lambda m: m.update(warnings=[{"a": 1}])), "result.json", None,
     "warnings[0]: an object"),
    ("schema-version-newer", _set_meta(lambda m: m.update(schema_version=99)), "result.json", None,
     "upgrade ranklens"),
    ("schema-version-missing", _set_meta(lambda m: m.pop("schema_version") and None), "result.json", None,
     "schema_version: missing"),
    ("schema-version-text", _set_meta(lambda m: m.update(schema_version="2")), "result.json", None,
     "schema_version: a string"),
    ("digest-missing", _set_meta(lambda m: m.pop("digest") and None), "result.json", None, "digest: missing"),
    ("table-file-missing", lambda d: (d / "table.tsv.gz").unlink(), "table.tsv.gz", None, "table file missing"),
    ("table-extra-declared", _set_meta(lambda m: m["tables"].update(ghost={"a": "int64"})), "ghost.tsv.gz", None,
     "table file missing"),
    ("table-is-directory", lambda d: ((d / "table.tsv.gz").unlink(), (d / "table.tsv.gz").mkdir()),
     "table.tsv.gz", None, "cannot read the table"),
    ("table-not-gzip", lambda d: (d / "table.tsv.gz").write_text("model\tAP\n"), "table.tsv.gz", None,
     "not a gzip file"),
    ("table-truncated-gzip", lambda d: (d / "table.tsv.gz").write_bytes((d / "table.tsv.gz").read_bytes()[:25]),
     "table.tsv.gz", None, "truncated gzip"),
    ("table-empty", _set_table(lambda b: b""), "table.tsv.gz", None, "no header"),
    ("table-column-missing", _set_table(lambda b: b"model\tAP\tn\na\t0.5\t3\nb\t0.25\t4\n"), "table.tsv.gz", 1,
     "missing: ['significant']"),
    ("table-column-renamed", _set_table(lambda b: b.replace(b"AP", b"MAP", 1)), "table.tsv.gz", 1,
     "not declared: ['MAP']"),
    ("table-short-row", _set_table(lambda b: b + b"c\t0.1\n"), "table.tsv.gz", 4, "2 fields where the header has 4"),
    ("table-long-row", _set_table(lambda b: b.replace(b"\tFalse", b"\tFalse\textra")), "table.tsv.gz", 3,
     "5 fields where the header has 4"),
    ("table-short-row-quoted", _set_table(lambda b: b.replace(b"a\t", b'"a"\t', 1) + b"c\t0.1\n"), "table.tsv.gz",
     4, "2 fields"),
    ("table-text-in-float", _set_table(lambda b: b.replace(b"0.25", b"abc")), "table.tsv.gz", 3,
     "column 'AP' (float64): 'abc' is not a number"),
    ("table-fraction-in-int", _set_table(lambda b: b.replace(b"\t3\t", b"\t3.5\t")), "table.tsv.gz", 2,
     "column 'n' (int64): 3.5 is not an integer"),
    ("table-empty-int", _set_table(lambda b: b.replace(b"\t3\t", b"\t\t")), "table.tsv.gz", 2,
     "column 'n' (int64): an empty cell is not an integer"),
    ("table-maybe-in-bool", _set_table(lambda b: b.replace(b"True", b"maybe")), "table.tsv.gz", 2,
     "column 'significant' (bool): 'maybe' is not True or False"),
    ("table-empty-bool", _set_table(lambda b: b.replace(b"\tFalse", b"\t")), "table.tsv.gz", 3,
     "column 'significant' (bool): an empty cell is not True or False"),
    ("per-query-text-in-float", _set_table(lambda b: b.replace(b"0.5", b"1/2"), "per_query"), "per_query.tsv.gz", 2,
     "'1/2' is not a number"),
    ("labels-bad-json", lambda d: (d / "index-labels.json").write_text("{bad"), "index-labels.json", 1,
     "invalid JSON"),
    ("labels-list", lambda d: (d / "index-labels.json").write_text("[1]"), "index-labels.json", None,
     "expected an object"),
    ("labels-number-model", lambda d: (d / "index-labels.json").write_text('{"model": [1]}'), "index-labels.json",
     None, "model: list, expected a string or null"),
    ("labels-not-utf8", lambda d: (d / "index-labels.json").write_bytes(b"\xff"), "index-labels.json", None,
     "not UTF-8"),
]

# edited, every value well-typed: loads with a warning (the digest no longer matches)
WARNED_CASES = [
    ("summary-number-changed", _set_meta(lambda m: m["summary"].update(AP=0.9))),
    ("summary-number-as-text", _set_meta(lambda m: m["summary"].update(AP="0.5"))),
    ("summary-best-text", _set_meta(lambda m: m["summary"].update(best="a"))),
    ("params-changed", _set_meta(lambda m: m["provenance"]["params"].update(rel=2))),
    ("warning-removed", _set_meta(lambda m: m.update(warnings=[]))),
    ("table-number-changed", _set_table(lambda b: b.replace(b"0.25", b"0.75"))),
    ("table-row-removed", _set_table(lambda b: b[: b.rindex(b"\n", 0, len(b) - 1) + 1])),
    ("per-query-nan-filled", _set_table(lambda b: b.replace(b'""', b"0.0"), "per_query")),
    ("table-float-in-int-column-integral", _set_table(lambda b: b.replace(b"\t3\t", b"\t3.0\t"))),
]


def _case(saved: Path, tmp_path: Path, edit) -> Path:
    d = tmp_path / "results" / "res"
    shutil.copytree(saved, d)
    edit(d)
    return d


def _doors(d: Path, tmp_path: Path):
    out = tmp_path / "out"
    return [["report", str(d), "-o", str(out / "r.html")], ["report", str(d), "-o", str(out / "r.md")],
            ["report", str(d), "-o", str(out / "r.tex")], ["results", "reindex", str(d.parent)]]


@pytest.mark.parametrize(("case", "edit", "file", "line", "words"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_a_damaged_result_is_a_located_error_at_every_door(saved, tmp_path, capsys, case, edit, file, line, words):
    d = _case(saved, tmp_path, edit)
    where = d / file
    if not file.startswith("index-labels"):  # labels belong to the store and the report, not to a Result
        with pytest.raises(RanklensError) as info:
            Result.load(d)
        msg = str(info.value)
        assert str(where) in msg and words in msg, msg
        assert line is None or f"{where}:{line}:" in msg, msg
    for argv in _doors(d, tmp_path):
        rc = main(argv)
        err = capsys.readouterr().err
        assert rc == 1 and "Traceback" not in err, (argv, err)
        lines = [ln for ln in err.splitlines() if ln.startswith("ranklens: error:")]
        assert len(lines) == 1 and str(where) in lines[0] and words in lines[0], (argv, err)
        assert line is None or f"{where}:{line}:" in lines[0], lines[0]
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())  # nothing rendered


@pytest.mark.parametrize(("case", "edit"), WARNED_CASES, ids=[c[0] for c in WARNED_CASES])
def test_an_edited_result_is_shown_with_a_warning_at_every_door(saved, tmp_path, capsys, case, edit):
    d = _case(saved, tmp_path, edit)
    res = Result.load(d)
    edited = [w for w in res.warnings if "edited after ranklens saved it" in w]
    assert len(edited) == 1 and str(d / "result.json") in edited[0]
    for argv in _doors(d, tmp_path):
        rc = main(argv)
        err = capsys.readouterr().err
        assert rc == 0 and "Traceback" not in err, (argv, err)
        assert f"ranklens: warning: {d / 'result.json'}: edited after ranklens saved it" in err, (argv, err)
        if argv[0] == "report":
            text = Path(argv[-1]).read_text()
            assert "edited after ranklens saved it" in text, argv


def test_an_untouched_result_loads_without_a_warning_and_keeps_its_values(saved, tmp_path, capsys):
    d = _case(saved, tmp_path, lambda d: None)
    back = Result.load(d)
    assert back.warnings == ("one warning",)
    pd.testing.assert_frame_equal(back.table, _result().table, check_dtype=False)  # text: object, as before
    assert back.tables["per_query"]["query_id"].tolist() == ["1", "2"]
    assert np.isnan(back.tables["per_query"]["AP"].iloc[1])
    assert main(["results", "reindex", str(d.parent)]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_result_saved_before_the_digest_loads_unchecked(saved, tmp_path):
    """schema_version 1 (no digest) is read as before: no warning, the same values."""
    def to_v1(m):
        m.pop("digest")
        m["schema_version"] = 1
    d = _case(saved, tmp_path, _set_meta(to_v1))
    assert Result.load(d).warnings == ("one warning",)


@pytest.mark.parametrize("frame", [pd.DataFrame(), pd.DataFrame({"a": pd.Series([], dtype=float)}),
                                   pd.DataFrame({"t": ["x\ty", 'q"uote\nnew line', None], "v": [1.0, None, 2.0]}),
                                   pd.DataFrame({"only": [np.nan, 1.0]}),
                                   pd.DataFrame({"B": pd.array([True, None], dtype="boolean"),
                                                 "I": pd.array([1, None], dtype="Int64"),
                                                 "c": pd.Categorical(["x", "y"]), "u": np.array([1, 2], np.uint8)})],
                         ids=["no-columns", "no-rows", "quoted-text", "one-column", "nullable-types"])
def test_what_ranklens_writes_reads_back_without_complaint(tmp_path, frame):
    res = Result(kind="k", summary={"inf": float("inf")}, table=frame, provenance=make_provenance())
    back = Result.load(res.save(tmp_path / "r"))
    assert back.warnings == () and back.summary == {"inf": float("inf")}
    assert list(back.table.columns) == list(frame.columns) and len(back.table) == len(frame)
    if "t" in frame:
        assert back.table["t"].tolist() == ["x\ty", 'q"uote\nnew line', None]


# --------------------------------------------------------------------------- the index
def test_a_damaged_index_is_a_located_error(saved, tmp_path, capsys):
    d = _case(saved, tmp_path, lambda d: None)
    root = d.parent
    assert main(["results", "reindex", str(root)]) == 0
    db = root / "index.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("UPDATE rows SET value='abc' WHERE rowid=(SELECT min(rowid) FROM rows)")
    conn.execute("UPDATE results SET summary='{bad'")
    conn.commit()
    conn.close()
    capsys.readouterr()
    for argv, words in ((["results", "compare", str(root)], "not a number: the index was edited"),
                        (["results", "show", str(root), "res"], "not valid JSON")):
        rc = main(argv)
        err = capsys.readouterr().err
        assert rc == 1 and "Traceback" not in err and str(db) in err and words in err, err
        assert "results reindex" in err
    for f in root.glob("index.sqlite*"):
        f.unlink()
    db.write_bytes(b"not a database" * 100)
    rc = main(["results", "list", str(root)])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err and str(db) in err and "results reindex" in err, err


# --------------------------------------------------------------------------- parameters, every door
EVALUATE_PARAMS = [
    (["--confidence", "nan"], "--confidence"), (["--confidence", "inf"], "--confidence"),
    (["--confidence", "1.5"], "--confidence"), (["-p", "-3"], "-3 is below the minimum 0"),
    (["-p", "nan"], "expected an integer"), (["--n-resamples", "0"], "below the minimum 1"),
    (["--n-resamples", "nan"], "expected an integer"), (["--rel", "0"], "below the minimum 1"),
    (["--depth", "-1"], "below the minimum 1"),
]


@pytest.mark.parametrize(("extra", "words"), EVALUATE_PARAMS, ids=[" ".join(e) for e, _ in EVALUATE_PARAMS])
def test_evaluate_parameters_out_of_range(tmp_path, capsys, extra, words):
    (tmp_path / "q.txt").write_text("1 0 d1 1\n")
    (tmp_path / "r.run").write_text("1 Q0 d1 1 2.0 s\n")
    rc = main(["evaluate", str(tmp_path / "q.txt"), str(tmp_path / "r.run"), *extra])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err and words in err, err


@pytest.mark.parametrize(("key", "value"), [("confidence", "nan"), ("confidence", "inf"), ("alpha", "-inf"),
                                            ("depth_ratio", "nan"), ("n_resamples", "0")])
def test_experiment_parameters_out_of_range(tmp_path, capsys, key, value):
    (tmp_path / "q.txt").write_text("1 0 d1 1\n")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.run").write_text("1 Q0 d1 1 2.0 s\n")
    exp = tmp_path / "e.toml"
    exp.write_text(f'[datasets.d]\nqrels = "q.txt"\nruns = "runs"\n[[analyses]]\ntype = "asl"\n'
                   f"params = {{ {key} = {value} }}\n")
    rc = main(["run", str(exp), "--check"])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err and f"params.{key}" in err and "e.toml" in err, err


@pytest.mark.parametrize("kw", [{"confidence": float("nan")}, {"alpha": float("inf")}, {"n_resamples": 0},
                                {"depth_ratio": float("nan")}])
def test_python_params_out_of_range(tmp_path, kw):
    from ranklens.drive import load_dataset, run_analysis
    from ranklens.errors import ValidationError
    from ranklens.registry import get_analysis

    (tmp_path / "q.txt").write_text("1 0 d1 1\n")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.run").write_text("1 Q0 d1 1 2.0 s\n")
    collection = load_dataset("d", {"qrels": str(tmp_path / "q.txt"), "runs": str(tmp_path / "runs")})
    params = get_analysis("asl").params(**kw)  # built in Python, unchecked until a door runs it
    with pytest.raises(ValidationError, match=f"params.{next(iter(kw))}"):
        run_analysis("asl", collection, {}, params)


@pytest.mark.parametrize(("fn", "kw"), [("bootstrap_ci", {"confidence": float("nan")}),
                                        ("bootstrap_ci", {"confidence": 1.0}),
                                        ("bootstrap_ci", {"n_resamples": 0}),
                                        ("randomization_test", {"n_resamples": 0}),
                                        ("randomization_test", {"n_resamples": -5})])
def test_statistics_refuse_out_of_range_arguments(fn, kw):
    """n_resamples=-5 gave p = -0.25 and 0 gave p = 1.0, silently; confidence=nan an IndexError."""
    from ranklens import stats
    from ranklens.errors import ValidationError

    args = ([1.0, 2.0, 3.0, 4.0],) if fn == "bootstrap_ci" else ([1.0, 2.0, 3.0] * 10, [2.0, 2.0, 2.0] * 10)
    with pytest.raises(ValidationError, match=next(iter(kw))):
        getattr(stats, fn)(*args, **kw)


def test_catalogue_size():
    assert len(ERROR_CASES) + len(WARNED_CASES) >= 50


@pytest.mark.parametrize(("rows", "words"), [([1], "summary.rows[0]: int, expected an object"),
                                             ([{"metric": "AP", "value": "0.5"}], "summary.rows[0].value: '0.5' is not a number"),
                                             ([{"metric": {"a": 1}, "value": 1.0}], "summary.rows[0].metric"),
                                             ([{"metric": "AP", "value": True}], "summary.rows[0].value: True")])
def test_summary_rows_of_the_wrong_type_are_not_indexed_silently(tmp_path, capsys, rows, words):
    """A number given as text in ``summary["rows"]`` was coerced to NaN in the index without a word."""
    d = Result(kind="asl-evaluate", summary={"rows": rows}, table=pd.DataFrame({"a": [1]}),
               provenance=make_provenance()).save(tmp_path / "res")
    rc = main(["results", "reindex", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err and f"{d / 'result.json'}: {words}" in err, err
