from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ranklens.errors import DataFormatError
from ranklens.results import Result, make_provenance


def _result():
    table = pd.DataFrame({"query_id": ["1", "010", "x"], "value": [0.5, np.nan, 2.0], "flag": [True, False, True]})
    extra = pd.DataFrame({"doc_id": ["007", "d2"], "n": [1, 2]})
    prov = make_provenance(params={"ties": "trec_eval", "rel": 2}, components={"ranker": "BM25@abc"},
                           inputs={"run": "sha256:00"}, seed=7)
    return Result(kind="demo-kind", summary={"mean": np.float64(0.25), "n": np.int64(3), "nan": float("nan")},
                  table=table, tables={"docs": extra}, provenance=prov)


def test_roundtrip_keeps_string_ids_values_and_provenance(tmp_path):
    r = _result()
    path = r.save(tmp_path / "res")
    back = Result.load(path)
    assert back.kind == "demo-kind"
    assert back.summary == {"mean": 0.25, "n": 3, "nan": None}
    assert list(back.table["query_id"]) == ["1", "010", "x"]  # leading zeros survive
    assert np.isnan(back.table["value"].iloc[1]) and back.table["flag"].tolist() == [True, False, True]
    assert list(back.tables["docs"]["doc_id"]) == ["007", "d2"]
    assert back.provenance.params == {"ties": "trec_eval", "rel": 2}
    assert back.provenance.seed == 7 and back.provenance.ranklens_version


def test_save_overwrites_atomically(tmp_path):
    r = _result()
    r.save(tmp_path / "res")
    r2 = Result(kind="other", summary={}, table=pd.DataFrame({"a": [1]}), provenance=r.provenance)
    r2.save(tmp_path / "res")
    assert Result.load(tmp_path / "res").kind == "other"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]


def test_load_errors_name_the_path(tmp_path):
    with pytest.raises(DataFormatError, match="no result.json"):
        Result.load(tmp_path)
    (tmp_path / "result.json").write_text("{bad")
    with pytest.raises(DataFormatError, match=r"result.json:1"):
        Result.load(tmp_path)


def test_summary_json_is_plain(tmp_path):
    _result().save(tmp_path / "r")
    meta = json.loads((tmp_path / "r" / "result.json").read_text())
    assert meta["provenance"]["components"] == {"ranker": "BM25@abc"}


def test_provenance_shows_component_parameters_readably(tmp_path):
    from ranklens.rankers import BM25Ranker

    r = BM25Ranker(k1=1.1, b=0.6)
    prov = make_provenance(components={"bm25": r.fingerprint, "other": "not-a-fingerprint"})
    shown = prov.component_params["bm25"]
    assert shown["class"].endswith("BM25Ranker") and shown["params"]["k1"] == 1.1 and shown["params"]["b"] == 0.6
    assert "other" not in prov.component_params
    res = Result(kind="x", summary={}, table=pd.DataFrame({"a": [1]}), provenance=prov)
    loaded = Result.load(res.save(tmp_path / "r"))
    assert loaded.provenance.component_params["bm25"]["params"]["k1"] == 1.1


# ----------------------------------------------------------------- atomic, concurrent, contained
_SAVER = """
import sys
import pandas as pd
from ranklens.results import Result, make_provenance
target, tag = sys.argv[1], sys.argv[2]
for i in range(25):
    Result(kind="k", summary={"writer": tag, "i": i}, table=pd.DataFrame({"v": [i] * 50}),
           provenance=make_provenance()).save(target)
"""


def test_concurrent_saves_of_one_result_all_finish_and_leave_one_whole_result(tmp_path):
    import subprocess
    import sys

    target = tmp_path / "res"
    procs = [subprocess.Popen([sys.executable, "-c", _SAVER, str(target), tag], stderr=subprocess.PIPE, text=True)
             for tag in ("a", "b", "c")]
    errors = [p.communicate()[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], errors
    back = Result.load(target)
    assert back.summary["writer"] in {"a", "b", "c"} and back.summary["i"] == 24
    assert (back.table["v"] == 24).all()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]  # no temp or old copies left


def test_result_dirs_follow_the_umask(tmp_path):
    import os

    old = os.umask(0o022)
    try:
        path = _result().save(tmp_path / "res")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o755
    assert (path / "result.json").stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("name", ["../outside", "a/b", "..", ""])
def test_load_refuses_table_names_leaving_the_directory(tmp_path, name):
    (tmp_path / "outside.tsv.gz").write_bytes(b"")
    path = _result().save(tmp_path / "res")
    meta = json.loads((path / "result.json").read_text())
    meta["tables"][name] = {}
    (path / "result.json").write_text(json.dumps(meta))
    with pytest.raises(DataFormatError, match="outside the result directory"):
        Result.load(path)


def test_save_into_a_file_is_a_located_error(tmp_path):
    from ranklens.errors import OutputError

    blocker = tmp_path / "f"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="is a file"):
        _result().save(blocker / "res")
    with pytest.raises(OutputError, match="is a file"):
        _result().save(blocker)


_EXPERIMENT = """
results = "results"
[datasets.track]
qrels = "qrels.txt"
runs = "runs"
[[analyses]]
type = "asl"
"""


@pytest.mark.slow
def test_two_ranklens_run_on_one_results_directory_both_finish(tmp_path):
    import subprocess
    import sys

    (tmp_path / "runs").mkdir()
    (tmp_path / "qrels.txt").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n2 0 d4 1\n")
    for name, order in (("a", "d1 d2 d3 d4"), ("b", "d2 d1 d4 d3")):
        docs = order.split()
        lines = [f"{q} Q0 {d} {r} {10 - r} {name}" for q, ds in (("1", docs[:2]), ("2", docs[2:]))
                 for r, d in enumerate(ds, 1)]
        (tmp_path / "runs" / f"{name}.run").write_text("\n".join(lines) + "\n")
    (tmp_path / "exp.toml").write_text(_EXPERIMENT)
    cmd = [sys.executable, "-m", "ranklens", "-q", "--no-cache", "run", str(tmp_path / "exp.toml")]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate() for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1][-2000:] for o in outs]
    res = tmp_path / "results"
    assert (res / "report.html").is_file()
    leftovers = [p for p in res.rglob(".*") if p.name.endswith(".tmp") or ".old." in p.name]
    assert leftovers == []  # every temp file and moved-aside copy was renamed or removed


def test_results_saved_under_a_kind_name_from_before_the_rename_load_under_the_current_one(tmp_path):
    from ranklens.registry import analyses, kind_info, owner_of
    from ranklens.store import ResultsStore

    renamed = {old: new for a in analyses().values() for old, new in a.renamed_kinds.items()}
    assert renamed["probe-table"] == "probes-table" and len(renamed) == 14
    # every current name belongs to an analysis; no old name does, or is declared
    for old, new in renamed.items():
        assert owner_of(new) is not None, new
        assert owner_of(old) is None and kind_info(old) is None, old
    Result(kind="probe-table", summary={"alpha": 0.01}, table=pd.DataFrame({"probe": ["x"]}),
           provenance=make_provenance()).save(tmp_path / "old")
    meta = json.loads((tmp_path / "old" / "result.json").read_text())
    assert meta["kind"] == "probe-table"  # saved as an old version would have
    assert Result.load(tmp_path / "old").kind == "probes-table"
    store = ResultsStore(tmp_path)
    assert store.reindex() == 1
    assert store.list()["kind"].tolist() == ["probes-table"]
