"""Reduced WikiQA / TREC DL checks (the full run is benchmarks/regimes_wikiqa.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from ranklens.engine import ScoringEngine
from ranklens.regimes import (
    EXTRAPOLATION,
    INTERPOLATION,
    BM25Trainer,
    MemorizingTrainer,
    ReSTrain,
    ReSTTest,
    evaluate_regimes,
    label_overlap,
    query_similarity,
    queries_with_positives,
    split_similarity_stats,
    train_variants,
)
from ranklens.io.pairs import load_wikiqa
from ranklens.regimes.data import load_dl_vs_dev

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def wikiqa(shared_data):
    return load_wikiqa(shared_data / "wikiqa")


def test_wikiqa_counts_and_label_overlap(wikiqa):
    w = wikiqa
    assert (len(w.train_queries), len(w.dev_queries), len(w.test_queries), len(w.corpus)) == (2118, 296, 633, 26270)
    te = w.qrels.loc[w.qrels["query_id"].isin(set(w.test_queries["query_id"]))]
    tr = w.qrels.loc[w.qrels["query_id"].isin(set(w.train_queries["query_id"]))]
    lo = label_overlap(te, tr)
    assert lo.summary["n_queries@1"] == 243  # SOURCE.md: 243 test questions with >= 1 positive
    # differential check against a direct set computation
    pos_tr = set(tr.loc[tr["relevance"] >= 1, "doc_id"])
    pos_te = te.loc[te["relevance"] >= 1]
    direct = pos_te.groupby("query_id")["doc_id"].apply(lambda s: bool(set(s) & pos_tr)).mean()
    assert lo.summary["share@1"] == pytest.approx(direct)


def test_wikiqa_bm25_similarity_and_reduced_regimes(wikiqa, tmp_path):
    w = wikiqa
    sim = query_similarity(w.test_queries, w.train_queries, method="bm25", k=5)
    assert sim.summary["n_test"] == 633 and len(sim.table) == 633 * 5
    pool = queries_with_positives(w.train_queries, w.qrels)
    test = queries_with_positives(w.test_queries, w.qrels).iloc[:80]
    allq = pd.concat([w.train_queries, w.test_queries], ignore_index=True)
    rs = ReSTrain(size=100, size_rule="fill", similarity="bm25", seed=0).fit(pool, test).splits_[0]
    st = split_similarity_stats(rs, allq, method="tfidf").set_index("regime")
    assert st.loc[INTERPOLATION, "nn_mean"] > st.loc[EXTRAPOLATION, "nn_mean"]
    rt = ReSTTest(n_buckets=3, seed=0).fit(pool, test)  # 3 buckets keep the test quick; the paper's 5 is a param
    assert sorted(x for s in rt.splits_ for x in s.test_ids(EXTRAPOLATION)) == sorted(test["query_id"])
    splits = [rs, *rt.splits_]
    eng = ScoringEngine(cache=False)
    vs = train_variants([MemorizingTrainer(), BM25Trainer(k1_grid=(0.9,), b_grid=(0.4, 0.75))],
                        splits, allq, w.qrels, w.corpus, tmp_path, engine=eng)
    res = evaluate_regimes(vs, splits, allq, w.qrels, w.corpus, measures=["nDCG@10", "RR@10"], depth=100,
                           engine=eng)
    t = res.tables["regime_table"].set_index(["model", "setting", "measure"])
    # tuned BM25 retrieving from all 26k sentences: well above zero in both regimes
    assert t.loc[("bm25-tuned", "resttest", "nDCG@10"), "interpolation"] > 0.2
    assert t.loc[("bm25-tuned", "resttest", "nDCG@10"), "extrapolation"] > 0.2
    assert {"memorizing", "bm25-tuned"} == set(res.tables["paper"]["model"])


def test_dl_vs_dev_small_diagnostics(shared_data):
    d = load_dl_vs_dev(shared_data / "trec_dl_msmarco_passage")
    assert (len(d["dl19_queries"]), len(d["dl20_queries"]), len(d["dev_queries"])) == (43, 54, 6980)
    sim = query_similarity(d["dl19_queries"], d["dev_queries"], method="tfidf", k=3)
    assert sim.summary["n_test"] == 43 and 0 < sim.summary["nn_mean"] < 1
    lo = label_overlap(d["dl19_qrels"], d["dev_qrels"], thresholds=(1, 2, 3))
    pos_dev = set(d["dev_qrels"]["doc_id"])
    q = d["dl19_qrels"]
    direct = q.loc[q["relevance"] >= 2].groupby("query_id")["doc_id"].apply(lambda s: bool(set(s) & pos_dev)).mean()
    assert lo.summary["share@2"] == pytest.approx(direct)
