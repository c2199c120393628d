"""The ranked run's ragged (CSR) layout: memory proportional to the rows (a deep query or many
qrels-only queries add no padding), and its flat arrays equal a brute-force ranking."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ranklens.io.frames import rank_run
from ranklens.asl.ranking import rank_coded


def test_flat_arrays_hold_the_rows_only():
    deep = pd.DataFrame({"query_id": "deep", "doc_id": [f"d{i}" for i in range(5000)],
                         "score": np.arange(5000, 0, -1, dtype=float)})
    small = pd.DataFrame({"query_id": [f"s{i // 3}" for i in range(300)],
                          "doc_id": [f"d{i}" for i in range(300)], "score": 1.0})
    run = pd.concat([deep, small], ignore_index=True)
    qrels = pd.DataFrame({"query_id": [f"only{i}" for i in range(20_000)] + ["deep"],
                          "doc_id": "d1", "relevance": 1})
    rr = rank_coded(run, qrels)
    assert rr.flat_grades.size == rr.flat_rows.size == len(run)
    assert len(rr.query_ids) == 20_000 + 1 + 100
    assert int(rr.lengths.sum()) == len(run) and rr.depth == 5000
    assert rr.offsets[-1] == len(run) and int(rr.in_run.sum()) == 101


def test_flat_order_equals_rank_run():
    rng = np.random.default_rng(3)
    n = 400
    run = pd.DataFrame({"query_id": rng.choice(["b", "a", "10", "9"], n),
                        "doc_id": [f"x{i:03d}" for i in rng.permutation(n)],
                        "score": rng.choice([0.5, 1.0, 2.0, rng.random()], n)})
    qrels = pd.DataFrame({"query_id": ["a", "zz"], "doc_id": ["x001", "x002"], "relevance": [1, 2]})
    for ties in ("trec_eval", "float64", "input_order"):
        rr = rank_coded(run, qrels, ties=ties)
        ref = rank_run(run, ties=ties)
        got = rr.ranks_frame()
        assert got["query_id"].tolist() == ref["query_id"].tolist()
        assert got["doc_id"].tolist() == ref["doc_id"].tolist()
        assert got["rank"].tolist() == ref["rank"].tolist()
        padded = rr.grades  # the padded view agrees with the flat arrays
        assert (padded[rr.seg, rr.rank0] == rr.flat_grades).all()
