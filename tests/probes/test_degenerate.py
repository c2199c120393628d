"""Degenerate probe inputs are named in the result's warnings: constant scores, BM25 with no query
term of idf > 0 (and automatic δ's error says so), and a BM25 that is not the paper's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.engine import ScoringEngine
from ranklens.errors import ValidationError
from ranklens.io.collection import Collection, DocStore
from ranklens.probes import run_probes
from ranklens.rankers.base import FunctionRanker
from ranklens.specs import make_ranker

PROBES = ["tr-shuffle-words", "tr-del-stops-punct"]


def _const(qs, ts):
    return np.full(len(ts), 3.0)


def _len(qs, ts):
    return np.array([len(t) for t in ts], dtype=np.float64)


def test_constant_ranker_is_warned(tiny):
    res = run_probes(PROBES, {"const": FunctionRanker(fn=_const, name_="const"),
                              "len": FunctionRanker(fn=_len, name_="len")}, tiny, delta=0.0,
                     engine=ScoringEngine(cache=False))
    assert (res.table.loc[res.table.model == "const", "score"] == 0).all()
    const = [w for w in res.warnings if "scores are constant" in w]
    assert len(const) == 1 and const[0].startswith("model const:")  # the length ranker is not named


def test_constant_ranker_with_calibrated_delta_is_warned(tiny):
    res = run_probes(PROBES, {"const": FunctionRanker(fn=_const, name_="const")}, tiny,
                     engine=ScoringEngine(cache=False))
    assert any("all" in w and "differences are 0" in w for w in res.warnings)


def _all_idf_zero() -> Collection:
    # every query term is in every document: Robertson idf (clipped) is 0 for all of them
    docs = {f"d{i}": f"cats dogs sentence number {w}. Cats and dogs again." for i, w in
            enumerate(["one", "two", "three", "four"])}
    queries = pd.DataFrame({"query_id": ["q1", "q2"], "text": ["cats", "dogs cats"]})
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["d0", "d1", "d2", "d3"],
                          "relevance": np.array([1, 0, 1, 0], dtype="int64")})
    return Collection(name="flat", docs=DocStore(docs), queries=queries, qrels=qrels)


def test_bm25_with_idf_zero_is_warned_and_calibration_says_constant():
    coll = _all_idf_zero()
    bm25 = make_ranker("bm25", corpus=coll.docs)
    res = run_probes(PROBES, {"bm25": bm25}, coll, delta=0.0, engine=ScoringEngine(cache=False))
    assert (res.table["score"] == 0).all()
    assert any(w.startswith("model bm25:") and "scores are constant" in w for w in res.warnings)
    with pytest.raises(ValidationError, match="scores are constant"):
        run_probes(PROBES, {"bm25": bm25}, coll, engine=ScoringEngine(cache=False))


def test_which_bm25_ran_is_recorded_and_a_non_paper_bm25_warned(tiny):
    rankers = {"anserini": make_ranker("bm25", corpus=tiny.docs),
               "terrier": make_ranker("bm25:terrier", corpus=tiny.docs)}
    res = run_probes(PROBES, rankers, tiny, delta=0.0, engine=ScoringEngine(cache=False))
    assert res.summary["bm25"]["anserini"] == {"preset": "anserini", "k1": 0.9, "b": 0.4, "method": "robertson"}
    assert res.summary["bm25"]["terrier"]["preset"] == "terrier"
    named = [w for w in res.warnings if "not the ABNIRML paper's" in w]
    assert len(named) == 1 and named[0].startswith("model anserini:")
