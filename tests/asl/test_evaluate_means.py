"""``evaluate_means`` (what ``ranklens evaluate`` prints, without pandas) gives exactly the numbers,
rows and warnings of ``evaluate`` (the ``Result``), and the one aggregation over queries."""

from __future__ import annotations

import numpy as np
import pytest

from ranklens.asl.evaluation import aggregate, evaluate, evaluate_means

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "NumRel", "NumRet", "ASL", "ASL@g1-10", "Rprec"]


@pytest.fixture
def files(tmp_path):
    """Two runs over 30 queries: q0-q4 judged but in no run (absent), q5-q9 judged without a relevant
    document, queries listed in a shuffled order, tied scores; one run lacks q10-q14."""
    rng = np.random.default_rng(7)
    qrels = []
    for q in range(30):
        for d in rng.choice(60, size=12, replace=False):
            rel = 0 if 5 <= q < 10 else int(rng.integers(0, 3))
            qrels.append(f"q{q} 0 d{d} {rel}\n")
    (tmp_path / "qrels.txt").write_text("".join(qrels))
    paths = []
    for k in range(2):
        lines = []
        for q in rng.permutation(np.arange(5, 30)):
            if k == 1 and 10 <= q < 15:
                continue
            docs = rng.choice(60, size=int(rng.integers(3, 25)), replace=False)
            scores = np.round(rng.normal(size=docs.size), 1)  # ties
            lines += [f"q{q} Q0 d{d} 0 {s} r{k}\n" for d, s in zip(docs, scores)]
        paths.append(tmp_path / f"run{k}.txt")
        paths[-1].write_text("".join(lines))
    return tmp_path / "qrels.txt", paths


@pytest.mark.parametrize("kw", [{}, {"missing": "zero"}, {"rel": 2}, {"ties": "float64", "depth": 8}])
def test_the_same_numbers_rows_and_warnings_as_evaluate(files, kw):
    qrels, runs = files
    res = evaluate(str(qrels), [str(r) for r in runs], MEASURES, hash_inputs=False, **kw)
    means = evaluate_means(str(qrels), [str(r) for r in runs], MEASURES, per_query=True, **kw)
    assert means.run_order == tuple(res.summary["run_order"]) == ("run0", "run1")
    assert list(means.measures) == res.summary["measures"]
    assert means.warnings == tuple(res.warnings)
    table = res.table.set_index("model")
    pq = res.tables["per_query"]
    for run in means.run_order:
        for m in means.measures:
            a, b = means.values[run][m], float(table.loc[run, m])
            assert a == b or (np.isnan(a) and np.isnan(b)), (run, m)
        # the printed order: queries as the run lists them, measures in the order given
        sub = pq[pq["model"] == run]
        order = {q: i for i, q in enumerate(dict.fromkeys(sub["query_id"]))}
        rank = {m: i for i, m in enumerate(means.measures)}
        expect = sorted(zip(sub["query_id"], sub["measure"], sub["value"]), key=lambda r: (order[r[0]], rank[r[1]]))
        assert means.per_query[run] == expect


def test_aggregate_is_the_exactly_rounded_mean_in_any_order():
    # 1e16 + 1 + 1 - 1e16 summed left to right is 0 in float64; exactly it is 2
    v = np.array([1e16, 1.0, 1.0, -1e16])
    assert aggregate(v, summed=True) == 2.0
    assert aggregate(v, summed=False) == 0.5
    assert aggregate(v[::-1], summed=False) == aggregate(v, summed=False)
    assert np.isnan(aggregate(np.array([]), summed=False)) and np.isnan(aggregate(np.array([]), summed=True))
