"""evaluate(): standard measures equal pytrec_eval per query; tables, tests, policies."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
import pytrec_eval

from ranklens.errors import ValidationError
from ranklens.asl import evaluate
from ranklens.asl.evaluation import load_runs


def random_track(seed: int, *, n_q=12, depth=60, ties="none"):
    rng = np.random.default_rng(seed)
    rows, qrows = [], []
    for q in range(n_q):
        docs = rng.choice(400, size=depth, replace=False)
        base = rng.normal(size=depth)
        if ties == "heavy":
            base = np.round(base * 2) / 2
        elif ties == "float32":
            # pairs of scores that differ only below float32 precision
            base[1::2] = base[0::2][: len(base[1::2])] + 1e-9
        for d, s in zip(docs, base):
            rows.append((f"{q:03d}", f"D{d:04d}", float(s)))
        for d in rng.choice(400, size=50, replace=False):
            qrows.append((f"{q:03d}", f"D{d:04d}", int(rng.integers(0, 4))))
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance"])
    return run, qrels


def pytrec_per_query(run, qrels, measures):
    qd: dict = {}
    for q, d, r in qrels.itertuples(index=False):
        qd.setdefault(q, {})[d] = int(r)
    rd: dict = {}
    for q, d, s in run.itertuples(index=False):
        rd.setdefault(q, {})[d] = float(s)
    return pytrec_eval.RelevanceEvaluator(qd, measures).evaluate(rd)


@pytest.mark.parametrize("ties", ["none", "heavy", "float32"])
def test_standard_measures_equal_pytrec_eval_per_query(ties):
    run, qrels = random_track(11, ties=ties)
    res = evaluate(qrels, {"r": run}, ["AP", "nDCG@10", "P@5", "RR", "Rprec", "Bpref",
                                       "R@50", "AP(rel=2)"], n_resamples=50)
    pq = res.tables["per_query"].pivot(index="query_id", columns="measure", values="value")
    ref = pytrec_per_query(run, qrels, {"map", "ndcg_cut_10", "P_5", "recip_rank", "Rprec",
                                        "bpref", "recall_50"})
    names = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@5": "P_5", "RR": "recip_rank",
             "Rprec": "Rprec", "Bpref": "bpref", "R@50": "recall_50"}
    for ours, theirs in names.items():
        for q, vals in ref.items():
            assert pq.loc[q, ours] == pytest.approx(vals[theirs], abs=1e-9), (ours, q)
    # rel=2 through trec_eval's -l2 equivalent: map grade 1 -> 0
    q2 = qrels.assign(relevance=np.where(qrels.relevance >= 2, 1, 0))
    ref2 = pytrec_per_query(run, q2, {"map"})
    for q, vals in ref2.items():
        assert pq.loc[q, "AP(rel=2)"] == pytest.approx(vals["map"], abs=1e-9)


def test_heavy_ties_asl_and_ap_see_the_same_ranking():
    run, qrels = random_track(5, ties="heavy")
    res = evaluate(qrels, {"r": run}, ["ASL@g1-1", "RR"], n_resamples=50)
    pq = res.tables["per_query"].pivot(index="query_id", columns="measure", values="value")
    # the first relevant document has no relevant document above it: SL = its rank = 1/RR
    retrieved = pq["RR"] > 0
    np.testing.assert_allclose(pq.loc[retrieved, "ASL@g1-1"], 1.0 / pq.loc[retrieved, "RR"])


def test_table_sorted_and_significance_shapes():
    run_a, qrels = random_track(1)
    # B = A with relevant docs pushed up: clearly better
    rel = {(q, d) for q, d, r in qrels.itertuples(index=False) if r >= 1}
    boost = [2.0 if (q, d) in rel else 0.0 for q, d in zip(run_a.query_id, run_a.doc_id)]
    run_b = run_a.assign(score=run_a.score + boost)
    res = evaluate(qrels, {"a": run_a, "b": run_b}, ["ASL", "AP", "nDCG@10"], baseline="a",
                   n_resamples=500, per_document=True)
    assert res.kind == "asl-evaluate"
    assert list(res.table["model"]) == ["b", "a"]  # ASL: lower first
    sig = res.tables["significance"]
    assert set(sig["measure"]) == {"ASL", "AP", "nDCG@10"} and (sig["model"] == "b").all()
    assert (sig["ttest_p"] < 0.01).all() and sig["better"].all()
    assert (sig["ttest_p_adj"] >= sig["ttest_p"]).all()
    ci = res.tables["ci"]
    assert ((ci["ci_low"] <= ci["mean"]) & (ci["mean"] <= ci["ci_high"])).all()
    pdoc = res.tables["per_document"]
    means = pdoc[pdoc.model == "a"].groupby("query_id")["sl"].mean().mean()
    assert means == pytest.approx(float(res.table.set_index("model").loc["a", "ASL"]))
    assert res.provenance.params["unretrieved"] == "paper"  # eq. 3, the paper's default
    assert res.provenance.params["ties"] == "trec_eval"


def test_missing_queries_policies():
    run, qrels = random_track(2, n_q=4)
    run = run[run.query_id != "000"]
    skip = evaluate(qrels, {"r": run}, ["AP", "ASL"], n_resamples=20)
    zero = evaluate(qrels, {"r": run}, ["AP", "ASL"], missing="zero", n_resamples=20)
    assert skip.table["n_queries"].iloc[0] == 3 and zero.table["n_queries"].iloc[0] == 4
    ap_skip = skip.table["AP"].iloc[0]
    assert zero.table["AP"].iloc[0] == pytest.approx(ap_skip * 3 / 4)
    with pytest.raises(ValidationError, match="judged queries"):
        evaluate(qrels, {"r": run}, ["AP"], missing="error")


def test_unknown_baseline_and_measure_errors(tmp_path):
    run, qrels = random_track(3, n_q=2)
    with pytest.raises(ValidationError, match="baseline"):
        evaluate(qrels, {"r": run}, ["AP"], baseline="zzz")
    with pytest.raises(ValidationError, match="cannot parse"):
        evaluate(qrels, {"r": run}, ["ASL@x"])
    with pytest.raises(ValidationError, match="str ids"):
        evaluate(qrels, {"r": run.assign(query_id=np.arange(len(run)))}, ["AP"])


def test_files_and_directories(tmp_path):
    run, qrels = random_track(4, n_q=3)
    d = tmp_path / "runs"
    d.mkdir()
    for name, frame in (("x", run), ("y", run.assign(score=-run.score))):
        with open(d / f"{name}.run", "w") as f:
            for q, doc, s in frame.itertuples(index=False):
                f.write(f"{q} Q0 {doc} 0 {s!r} {name}\n")
    with open(tmp_path / "qrels.txt", "w") as f:
        for q, doc, r in qrels.itertuples(index=False):
            f.write(f"{q} 0 {doc} {r}\n")
    assert sorted(load_runs(d)) == ["x", "y"]
    res = evaluate(tmp_path / "qrels.txt", d, ["AP", "ASL"], n_resamples=20)
    mem = evaluate(qrels, {"x": run}, ["AP", "ASL"], n_resamples=20)
    got = res.table.set_index("model").loc["x"]
    assert got["AP"] == pytest.approx(mem.table["AP"].iloc[0], abs=1e-12)
    assert got["ASL"] == pytest.approx(mem.table["ASL"].iloc[0], abs=1e-12)
    out = res.save(tmp_path / "res")
    from ranklens.results import Result

    back = Result.load(out)
    assert back.kind == "asl-evaluate" and len(back.tables["per_query"]) == len(
        res.tables["per_query"])


def test_ir_measures_hook_matches_evaluate():
    import ir_measures

    from ranklens.asl import as_ir_measure

    run, qrels = random_track(9, n_q=5, ties="heavy")
    m = as_ir_measure("ASL@g1-10")
    got = {x.query_id: x.value for x in ir_measures.iter_calc([m], qrels, run)}
    res = evaluate(qrels, {"r": run}, ["ASL@g1-10"], n_resamples=20)
    pq = res.tables["per_query"].set_index("query_id")["value"]
    for q, v in pq.items():
        assert got[q] == pytest.approx(v)


@pytest.mark.parametrize(("run_cols", "qrels_cols", "words"), [
    (["query_id", "doc_id"], ["query_id", "doc_id", "relevance"], "run frame lacks column(s) ['score']"),
    (["query_id", "doc_id", "score"], ["query_id"], "qrels frame lacks column(s) ['doc_id', 'relevance']"),
])
def test_frames_missing_columns_are_named(run_cols, qrels_cols, words):
    full = {"query_id": ["1"], "doc_id": ["d1"], "score": [1.0], "relevance": [1]}
    run = pd.DataFrame({c: full[c] for c in run_cols})
    qrels = pd.DataFrame({c: full[c] for c in qrels_cols})
    with pytest.raises(ValidationError, match=re.escape(words)):
        evaluate(qrels, run, ["AP"])
