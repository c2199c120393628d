"""validate_run / validate_qrels / rank_run / count_ties."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.errors import ValidationError
from ranklens.io import count_ties, rank_run, validate_qrels, validate_run


def _run(rows):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


# --- a slow, obviously-correct reference: Python sort with trec_eval's comparator -------------
def _reference_order(run: pd.DataFrame, ties: str) -> list[tuple[str, str]]:
    rows = list(zip(run["query_id"], run["doc_id"], run["score"], range(len(run))))

    def key_score(s):
        return float(np.float32(s)) if ties == "trec_eval" else float(s)

    def cmp(a, b):
        if a[0] != b[0]:
            return -1 if a[0].encode() < b[0].encode() else 1
        sa, sb = key_score(a[2]), key_score(b[2])
        if sa != sb:
            return -1 if sa > sb else 1
        if ties == "input_order":
            return a[3] - b[3]
        # trec_eval: strcmp(ptr2->docno, ptr1->docno) -> doc_id descending, byte-wise
        ba, bb = a[1].encode(), b[1].encode()
        return 0 if ba == bb else (-1 if ba > bb else 1)

    return [(r[0], r[1]) for r in sorted(rows, key=functools.cmp_to_key(cmp))]


def test_trec_eval_ties_at_float32_precision():
    # a and c are 1e-9 apart: equal as float32 (tie -> doc_id descending: c before a),
    # distinct as float64 (a has the higher score).
    run = _run([("q", "a", 1.0 + 1e-9), ("q", "c", 1.0), ("q", "b", 0.5)])
    te = rank_run(run)
    assert list(te["doc_id"]) == ["c", "a", "b"]
    assert list(te["rank"]) == [1, 2, 3] and te["rank"].dtype == np.int64
    f64 = rank_run(run, ties="float64")
    assert list(f64["doc_id"]) == ["a", "c", "b"]


def test_exact_tie_doc_id_descending_bytewise():
    # strcmp order: "B" (0x42) < "a" (0x61) < "b"; "é" (UTF-8 0xC3..) sorts after ASCII
    run = _run([("q", "B", 1.0), ("q", "a", 1.0), ("q", "\u00e9", 1.0), ("q", "b", 1.0), ("q", "a10", 1.0)])
    for ties in ("trec_eval", "float64"):
        assert list(rank_run(run, ties=ties)["doc_id"]) == ["\u00e9", "b", "a10", "a", "B"]


def test_input_order_rule():
    run = _run([("q", "a", 1.0), ("q", "z", 2.0), ("q", "c", 1.0), ("q", "b", 1.0)])
    assert list(rank_run(run, ties="input_order")["doc_id"]) == ["z", "a", "c", "b"]
    assert list(rank_run(run)["doc_id"]) == ["z", "c", "b", "a"]


def test_rank_run_sorts_queries_and_restarts_ranks():
    run = _run([("q2", "x", 0.1), ("q10", "y", 5.0), ("q2", "w", 0.9), ("q1", "z", -1.0)])
    out = rank_run(run)
    assert list(out["query_id"]) == ["q1", "q10", "q2", "q2"]  # string order, like trec_eval
    assert list(out["rank"]) == [1, 1, 1, 2]
    assert list(out["doc_id"]) == ["z", "y", "w", "x"]
    assert list(run["doc_id"]) == ["x", "y", "w", "z"]  # input untouched


def test_rank_run_ignores_existing_rank_column():
    run = _run([("q", "a", 1.0), ("q", "b", 2.0)]).assign(rank=[1, 2])
    assert list(rank_run(run)["rank"]) == [1, 2]
    assert list(rank_run(run)["doc_id"]) == ["b", "a"]


@pytest.mark.parametrize("dtype", ["str", "string[python]", "string[pyarrow]", object])
def test_string_dtypes(dtype):
    run = pd.DataFrame({"query_id": pd.Series(["q", "q"], dtype=dtype),
                        "doc_id": pd.Series(["a", "b"], dtype=dtype), "score": [1.0, 1.0]})
    out = rank_run(run)
    assert list(out["doc_id"]) == ["b", "a"]
    assert out["doc_id"].dtype == "str"


def test_matches_pytrec_eval_on_near_ties():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    # relevant doc "a" ahead by 1e-9 (float32 tie) but "b" wins the doc_id-descending tie-break
    run = _run([("q", "a", 1.0 + 1e-9), ("q", "b", 1.0)])
    ev = pytrec_eval.RelevanceEvaluator({"q": {"a": 1, "b": 0}}, {"P.1"})
    p1 = ev.evaluate({"q": dict(zip(run["doc_id"], run["score"]))})["q"]["P_1"]
    top = rank_run(run)["doc_id"].iloc[0]
    assert p1 == 0.0 and top == "b"
    top64 = rank_run(run, ties="float64")["doc_id"].iloc[0]
    assert top64 == "a"


_ids = st.sampled_from(["a", "b", "B", "a1", "10", "9", "\u00e9", "zz"])
_scores = st.sampled_from([0.0, -0.0, 1.0, 1.0 + 1e-9, 1.0 + 1e-6, -2.5, 3e8, 3e8 + 1])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q10"]), _ids, _scores), min_size=1, max_size=25,
                unique_by=lambda r: (r[0], r[1])), st.randoms(use_true_random=False))
def test_rank_run_matches_reference_and_ignores_row_order(rows, rnd):
    run = _run(rows)
    shuffled = run.sample(frac=1.0, random_state=rnd.randint(0, 10**6)).reset_index(drop=True)
    for ties in ("trec_eval", "float64"):
        got = rank_run(run, ties=ties)
        assert list(zip(got["query_id"], got["doc_id"])) == _reference_order(run, ties)
        again = rank_run(shuffled, ties=ties)
        pd.testing.assert_frame_equal(got, again)  # row order of the input does not matter
    got = rank_run(run, ties="input_order")
    assert list(zip(got["query_id"], got["doc_id"])) == _reference_order(run, "input_order")


def test_count_ties():
    run = _run([("q", "a", 1.0), ("q", "b", 1.0 + 1e-9), ("q", "c", 2.0), ("q", "d", 2.0), ("q", "e", 2.0),
                ("r", "a", 0.0), ("r", "b", -0.0), ("s", "x", 5.0)])
    te = count_ties(run).set_index("query_id")
    assert te.loc["q"].tolist() == [5, 2, 5]
    assert te.loc["r"].tolist() == [2, 1, 2]
    assert te.loc["s"].tolist() == [1, 0, 0]
    f64 = count_ties(run, ties="float64").set_index("query_id")
    assert f64.loc["q"].tolist() == [5, 1, 3]


def test_validate_run_coerces_and_rejects():
    out = validate_run(pd.DataFrame({"qid": [1, 2], "docno": ["x", "y"], "sim": ["0.5", 1]}))
    assert list(out.columns) == ["query_id", "doc_id", "score"]
    assert list(out["query_id"]) == ["1", "2"] and out["score"].dtype == np.float64
    with pytest.raises(ValidationError, match=r"missing column\(s\) \['score'\]"):
        validate_run(pd.DataFrame({"query_id": ["1"], "doc_id": ["x"]}))
    with pytest.raises(ValidationError, match="row 1: non-numeric value 'abc'"):
        validate_run(_run([("1", "a", 1.0), ("1", "b", "abc")]))
    with pytest.raises(ValidationError, match="row 0 is missing"):
        validate_run(_run([("1", "a", np.nan)]))
    with pytest.raises(ValidationError, match="missing value at row 1"):
        validate_run(_run([("1", "a", 1.0), (None, "b", 2.0)]))
    with pytest.raises(ValidationError, match="holds floats"):
        validate_run(pd.DataFrame({"query_id": [1.0], "doc_id": ["a"], "score": [1.0]}))
    with pytest.raises(ValidationError, match="rows 0 and 2"):
        validate_run(_run([("1", "a", 1.0), ("1", "b", 2.0), ("1", "a", 3.0)]))
    with pytest.raises(ValidationError, match="tie rule"):
        rank_run(_run([("1", "a", 1.0)]), ties="random")


def test_validate_qrels():
    out = validate_qrels(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [1.0, -1]}))
    assert list(out["relevance"]) == [1, -1] and out["relevance"].dtype == np.int64
    with pytest.raises(ValidationError, match="not an integer"):
        validate_qrels(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [0.5]}))
    with pytest.raises(ValidationError, match="duplicate"):
        validate_qrels(pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "a"], "relevance": [1, 0]}))


def test_empty_run_ranks():
    out = rank_run(_run([]).astype({"query_id": str, "doc_id": str, "score": float}))
    assert len(out) == 0 and "rank" in out.columns


def test_pyterrier_frame_with_query_text_column():
    # PyTerrier results carry the query TEXT in "query"; it must not be taken for an id
    df = pd.DataFrame({"query": ["cats?"], "qid": ["7"], "docno": ["d"], "score": [1.0]})
    out = validate_run(df)
    assert out["query_id"].tolist() == ["7"] and out["query"].tolist() == ["cats?"]
