"""The run x qrels join: run doc ids matched to the judged ones by (query, fingerprint) key and
confirmed on the strings, exact even when different ids share a fingerprint."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ranklens.asl.duplicates import _doc_fingerprints
from ranklens.asl.ranked import _UNJUDGED
from ranklens.asl.ranking import _fingerprint_join, rank_coded

BASE = "x" * 40


def collide(c: str) -> str:
    """A 40-character id that differs from BASE only at byte 10, outside the fingerprinted bytes
    (the first, middle and last 8): every such id has the same fingerprint."""
    return BASE[:10] + c + BASE[11:]


def reference_grades(run: pd.DataFrame, qrels: pd.DataFrame) -> list[int]:
    """The grade of each ranked row by a plain dict lookup (the last judgment of a pair wins)."""
    judged = {(q, d): g for q, d, g in qrels.itertuples(index=False)}
    return [judged.get((q, d), _UNJUDGED) for q, d in run.itertuples(index=False)]


def ranked_grades(run: pd.DataFrame, qrels: pd.DataFrame) -> tuple[list[int], pd.DataFrame]:
    rr = rank_coded(run, qrels)
    return rr.flat_grades.tolist(), rr.ranks_frame()[["query_id", "doc_id"]]


def test_the_ids_of_this_file_do_collide():
    ids = [collide(c) for c in "abcdef"]
    assert len(set(_doc_fingerprints(pa.array(ids)).tolist())) == 1


def test_colliding_run_ids_take_the_grade_of_their_own_string():
    # four run docs of one fingerprint, one of them judged; a judged doc of the same fingerprint
    # that the run does not retrieve; the same ids judged differently for the other query
    run = pd.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 2,
                        "doc_id": [collide(c) for c in "abcd"] + [collide("a"), collide("e")],
                        "score": [4.0, 3.0, 2.0, 1.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q1", "q2", "q2"], "doc_id": [collide("c"), collide("e"), collide("z")],
                          "relevance": [2, 1, 3]})
    got, frame = ranked_grades(run, qrels)
    assert got == reference_grades(frame, qrels)
    assert got == [_UNJUDGED, _UNJUDGED, 2, _UNJUDGED, _UNJUDGED, 1]


def test_two_judged_ids_of_one_query_sharing_a_fingerprint_fall_back_to_hashing():
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": [collide("a"), collide("b"), "plain"],
                        "score": [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": [collide("b"), collide("a"), "plain"],
                          "relevance": [1, 2, 0]})
    docs = pa.array(qrels["doc_id"].tolist())
    keys = (np.zeros(3, np.uint64) << np.uint64(32)) | _doc_fingerprints(pa.array(run["doc_id"].tolist()))
    assert _fingerprint_join(keys, pa.array(run["doc_id"].tolist()), np.zeros(3, np.int64), docs,
                             np.ones(3, bool)) is None  # the hashed join is taken instead
    got, frame = ranked_grades(run, qrels)
    assert got == reference_grades(frame, qrels) == [2, 1, 0]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 2), st.sampled_from("abcdefgh")), min_size=1, max_size=30, unique=True),
       st.lists(st.tuples(st.integers(0, 3), st.sampled_from("abcdefghij"), st.integers(0, 3)), max_size=30),
       st.booleans())
def test_grades_equal_a_dict_lookup(run_pairs, qrels_rows, colliding):
    # ids either all of one fingerprint or short distinct ones; qrels of queries the run lacks too
    name = collide if colliding else (lambda c: c)
    run = pd.DataFrame({"query_id": [f"q{q}" for q, _ in run_pairs], "doc_id": [name(d) for _, d in run_pairs],
                        "score": np.arange(len(run_pairs), 0, -1, dtype=float)})
    qrels = pd.DataFrame({"query_id": [f"q{q}" for q, _, _ in qrels_rows] or ["q9"],
                          "doc_id": [name(d) for _, d, _ in qrels_rows] or ["zz"],
                          "relevance": [g for _, _, g in qrels_rows] or [1]})
    # one grade per pair (conflicting repeats are a reader error; frames keep the last)
    qrels = qrels.drop_duplicates(["query_id", "doc_id"], keep="last")
    got, frame = ranked_grades(run, qrels)
    assert got == reference_grades(frame, qrels)
