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
