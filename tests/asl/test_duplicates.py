"""Duplicate (query, doc) rows: one rule for ASL and the ir_measures measures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ranklens.errors import ValidationError
from ranklens.asl import evaluate
from ranklens.asl.asl import asl_per_query
from ranklens.asl.duplicates import _doc_fingerprints
from ranklens.asl.ranking import rank_coded

QRELS = pd.DataFrame([("q", "a", 1), ("q", "c", 1)], columns=["query_id", "doc_id", "relevance"])
# a, b, a, c: "a" appears at ranks 1 and 3
DUP = pd.DataFrame([("q", "a", 4.0), ("q", "b", 3.0), ("q", "a", 2.0), ("q", "c", 1.0)],
                   columns=["query_id", "doc_id", "score"])
DEDUP = DUP.drop_duplicates(["query_id", "doc_id"])  # a, b, c


def test_duplicates_raise_by_default_naming_query_doc_and_ranks():
    with pytest.raises(ValidationError, match=r"duplicate \(query_id, doc_id\) = \('q', 'a'\) "
                                              r"at ranks 1 and 3") as exc:
        rank_coded(DUP, QRELS)
    assert "duplicates='best'" in str(exc.value)
    with pytest.raises(ValidationError, match=r"run 'sys': duplicate .*'q', 'a'"):
        evaluate(QRELS, {"sys": DUP}, ["ASL", "AP"])


def test_duplicates_in_a_file_name_the_file(tmp_path):
    p = tmp_path / "dup.run"
    p.write_text("q Q0 a 1 4 t\nq Q0 b 2 3 t\nq Q0 a 3 2 t\nq Q0 c 4 1 t\n")
    with pytest.raises(ValidationError, match=r"dup\.run: duplicate .*\('q', 'a'\)"):
        evaluate(QRELS, p, ["ASL"])
    # the same file under the other policy is not served from the cache of the first call
    res = evaluate(QRELS, p, ["ASL"], duplicates="best")
    assert res.summary["ASL"] == pytest.approx(1.5)
    assert res.summary["duplicates_dropped"] == {"dup": 1}


def test_best_keeps_best_ranked_row_for_asl_and_ir_measures_alike():
    rr = rank_coded(DUP, QRELS, duplicates="best")
    assert rr.duplicates_dropped == 1
    # a, b, c: SL(a) = 1, SL(c) = 2 -> 1.5 (counting "a" twice would give 2.5)
    assert asl_per_query(rr).tolist() == [1.5]
    got = evaluate(QRELS, {"r": DUP}, ["ASL", "AP", "RR", "P@2"], duplicates="best")
    ref = evaluate(QRELS, {"r": DEDUP}, ["ASL", "AP", "RR", "P@2"])
    cols = ["ASL", "AP", "RR", "P@2"]
    assert got.table[cols].to_numpy().tolist() == ref.table[cols].to_numpy().tolist()
    assert got.table["AP"].iloc[0] == pytest.approx((1 + 2 / 3) / 2)


def test_best_keeps_the_higher_scored_copy_even_when_it_comes_later():
    run = pd.DataFrame([("q", "c", 1.0), ("q", "b", 3.0), ("q", "c", 5.0)],
                       columns=["query_id", "doc_id", "score"])
    rr = rank_coded(run, QRELS, duplicates="best")
    assert rr.ranks_frame()["doc_id"].tolist() == ["c", "b"]
    assert rr.ranks_frame()["score"].tolist() == [5.0, 3.0]


def test_unknown_policy():
    with pytest.raises(ValidationError, match="unknown duplicates policy 'first'; choose one of "
                                              "error, best"):
        rank_coded(DEDUP, QRELS, duplicates="first")


def test_fingerprint_collisions_are_not_duplicates():
    # long ids that differ only outside the fingerprinted bytes (first/middle/last 8)
    base = "x" * 40
    ids = [base[:10] + c + base[11:] for c in "abcdef"]
    import pyarrow as pa

    fp = _doc_fingerprints(pa.array(ids))
    assert len(set(fp.tolist())) == 1  # they do collide ...
    run = pd.DataFrame({"query_id": "q", "doc_id": ids, "score": np.arange(6.0)})
    rr = rank_coded(run, QRELS)  # ... but are verified on the strings: no error
    assert rr.lengths.tolist() == [6]


def test_fingerprints_of_equal_strings_are_equal_wherever_they_sit():
    import pyarrow as pa

    arr = pa.array(["", "a", "zz", "abcdefgh", "abcdefghi", "y" * 33, "a", "", "zz", "y" * 33,
                    "abcdefghi", "abcdefgh"])
    fp = _doc_fingerprints(arr)
    assert fp[:6].tolist() == [fp[7], fp[6], fp[8], fp[11], fp[10], fp[9]]
    sliced = _doc_fingerprints(arr.slice(3))
    assert sliced.tolist() == fp[3:].tolist()
    chunked = _doc_fingerprints(pa.chunked_array([arr.slice(0, 5), arr.slice(5)]))
    assert chunked.tolist() == fp.tolist()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 12), st.integers(-20, 20)),
                min_size=1, max_size=60),
       st.sampled_from(["trec_eval", "float64", "input_order"]))
def test_best_equals_dropping_the_worse_copies_by_hand(rows, ties):
    """Law: duplicates='best' == keeping, per pair, the row the tie rule ranks first."""
    run = pd.DataFrame([(f"q{q}", f"d{d}", float(s)) for q, d, s in rows],
                       columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame([(f"q{q}", f"d{d}", int((q + d) % 3 == 0)) for q in range(4)
                          for d in range(13)], columns=["query_id", "doc_id", "relevance"])
    # by hand: highest score first; equal scores of the same pair are the same row for ranking
    order = run.assign(_i=np.arange(len(run))).sort_values(["score", "_i"],
                                                           ascending=[False, True])
    by_hand = order.drop_duplicates(["query_id", "doc_id"]).drop(columns="_i")
    got = rank_coded(run, qrels, ties=ties, duplicates="best")
    ref = rank_coded(by_hand, qrels, ties=ties)
    assert got.duplicates_dropped == len(run) - len(by_hand)
    pd.testing.assert_frame_equal(got.ranks_frame(), ref.ranks_frame())
    np.testing.assert_array_equal(asl_per_query(got), asl_per_query(ref))
    if got.duplicates_dropped:
        with pytest.raises(ValidationError, match="duplicate"):
            rank_coded(run, qrels, ties=ties)


def test_many_queries_duplicates_found_across_blocks():
    # enough queries x depth that the duplicate scan runs in several blocks
    nq, depth = 300, 5000
    q = np.repeat([f"q{i}" for i in range(nq)], depth)
    d = np.tile([f"doc{j}" for j in range(depth)], nq).astype(object)
    d[(nq - 1) * depth + 17] = "doc3"  # last query: doc3 twice
    run = pd.DataFrame({"query_id": q, "doc_id": d,
                        "score": np.tile(np.arange(depth, 0, -1.0), nq)})
    with pytest.raises(ValidationError, match=r"\('q299', 'doc3'\) at ranks 4 and 18"):
        rank_coded(run, QRELS)
