"""The paper's analyses on small hand-checkable inputs; plots return Figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.asl import (
    asl_distribution,
    plot_deltas,
    plot_distribution,
    plot_tracks,
    rrie,
    tie_report,
    track_summary,
)
from ranklens.asl.analyses import log_buckets


def run_from_order(order: dict[str, list[str]]) -> pd.DataFrame:
    rows = [(q, d, float(len(ds) - i)) for q, ds in order.items() for i, d in enumerate(ds)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


QRELS = pd.DataFrame([("1", "r1", 1), ("1", "r2", 1), ("2", "s1", 1)],
                     columns=["query_id", "doc_id", "relevance"])
# A: q1 ranks n1 r1 n2 n3 r2 -> SL 2, 4; q2: n1 n2 s1 -> SL 3
A = run_from_order({"1": ["n1", "r1", "n2", "n3", "r2"], "2": ["n1", "n2", "s1"]})
# B: q1 r1 r2 ... -> SL 1, 1; q2: s1 missing (n1 n2 n3) -> lower bound 3 + 1 = 4
B = run_from_order({"1": ["r1", "r2", "n1", "n2", "n3"], "2": ["n1", "n2", "n3"]})


def test_log_buckets():
    lab = log_buckets(np.array([1, 2, 3, 4, 7, 8, 1000, 5]),
                      np.array([1, 1, 1, 1, 1, 1, 1, 0], bool))
    assert lab.tolist() == ["1", "2-3", "2-3", "4-7", "4-7", "8-15", "512-1023", "not retrieved"]


def test_distribution_and_deltas_by_hand():
    res = asl_distribution(QRELS, A, B, name="A", other_name="B", unretrieved="lower_bound")
    t = res.table.set_index(["model", "bucket"])["count"]
    assert t[("A", "2-3")] == 2 and t[("A", "4-7")] == 1
    assert t[("B", "1")] == 2 and t[("B", "not retrieved")] == 1
    d = res.summary["deltas"]
    # deltas B - A: r1 1-2=-1, r2 1-4=-3, s1 4-3=+1 -> 2 wins for B, 1 loss
    assert d["wins_other"] == 2 and d["losses_other"] == 1 and d["ties"] == 0
    assert d["mean_delta"] == pytest.approx((-1 - 3 + 1) / 3)
    assert set(res.tables["deltas"]["bucket"]) == {"-1", "-2-3", "+1"}
    assert plot_distribution(res).__class__.__name__ == "Figure"
    assert plot_deltas(res).__class__.__name__ == "Figure"


def test_rrie_by_hand():
    res = rrie(QRELS, A, B, name_a="A", name_b="B", table_measures=("ASL", "AP"), unretrieved="lower_bound")
    t = res.table.set_index("measure")
    assert set(res.table["model"]) == {"B"} and set(res.table["other_model"]) == {"A"}
    # ASL_A = mean(3, 3) = 3 ; ASL_B = mean(1, 4) = 2.5 -> errors 2, 1.5 -> RRIE 0.25
    assert t.loc["ASL", "value_a"] == pytest.approx(3.0)
    assert t.loc["ASL", "value_b"] == pytest.approx(2.5)
    assert t.loc["ASL", "rrie"] == pytest.approx(0.25)
    # AP_A = mean((1/2 + 2/5)/2, 1/3) ; AP_B = mean(1, 0)
    ap_a = ((0.5 + 0.4) / 2 + 1 / 3) / 2
    assert t.loc["AP", "value_a"] == pytest.approx(ap_a)
    assert t.loc["AP", "rrie"] == pytest.approx(((1 - ap_a) - 0.5) / (1 - ap_a))


def _track(seed, n_sys=4, n_q=15, depth=30):
    rng = np.random.default_rng(seed)
    qrows = []
    for q in range(n_q):
        for d in range(depth):
            qrows.append((f"q{q}", f"d{d}", int(rng.random() < 0.3)))
    qrels = pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance"])
    rel = {(q, d) for q, d, r in qrows if r}
    runs = {}
    for s in range(n_sys):
        rows = []
        for q in range(n_q):
            for d in range(depth):
                boost = (s * 0.8) if (f"q{q}", f"d{d}") in rel else 0.0
                rows.append((f"q{q}", f"d{d}", float(rng.normal() + boost)))
        runs[f"sys{s}"] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return qrels, runs


def test_tracks_directory_and_ties(tmp_path):
    for name, seed in (("t1", 1), ("t2", 2)):
        qrels, runs = _track(seed, n_sys=3, n_q=6)
        d = tmp_path / name / "runs"
        d.mkdir(parents=True)
        with open(tmp_path / name / "qrels.txt", "w") as f:
            for q, doc, r in qrels.itertuples(index=False):
                f.write(f"{q} 0 {doc} {r}\n")
        for s, frame in runs.items():
            with open(d / f"{s}.run", "w") as f:
                for q, doc, sc in frame.itertuples(index=False):
                    f.write(f"{q}\tQ0\t{doc}\t0\t{np.round(sc, 1)}\t{s}\n")
    res = track_summary(tmp_path)
    assert res.summary["n_tracks"] == 2
    best = res.table.set_index(["track", "measure"])["best_model"]
    assert best[("t1", "ASL")] == "sys2" and best[("t1", "AP")] == "sys2"
    assert plot_tracks(res).__class__.__name__ == "Figure"
    ties = tie_report(tmp_path / "t1" / "qrels.txt", tmp_path / "t1" / "runs")
    assert (ties.table["tied_rows_float32"] > 0).all()  # scores rounded to 0.1
    assert {"ASL[trec_eval]", "ASL[input_order]", "AP[float64]"} <= set(ties.table.columns)
