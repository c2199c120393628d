from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ranklens.engine import ScoringEngine
from ranklens.rankers.base import FunctionRanker
from ranklens.regimes import (
    BM25Trainer,
    CallableTrainer,
    MemorizingTrainer,
    ReSTrain,
    ReSTTest,
    evaluate_regimes,
    ood_correlation,
    per_query_scores,
    plot_ood,
    plot_regimes,
    plot_split_pca,
    regime_table,
    train_variants,
)

from ._synth import synthetic


@pytest.fixture(scope="module")
def data():
    tq, eq, qrels, corpus = synthetic(n_topics=6, docs_per_topic=4, per_doc=2)
    return tq, eq, qrels, corpus, pd.concat([tq, eq], ignore_index=True)


def test_per_query_scores_hand_checked():
    # q1: d2 scored above the relevant d1 -> RR 1/2; q2: relevant d3 first -> RR 1
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d3"], "relevance": [1, 0, 1]})
    corpus = {"d1": "alp", "d2": "beta beta", "d3": "gamma"}
    queries = pd.DataFrame({"query_id": ["q1", "q2"], "text": ["x", "y"]})
    cand = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": ["d1", "d2", "d3", "d1"]})
    r = FunctionRanker(fn=lambda qs, ts: np.array([float(len(t)) for t in ts]), name_="len")
    pq = per_query_scores(r, queries, qrels, corpus, cand, measures=["RR@10"], engine=ScoringEngine(cache=False))
    got = dict(zip(pq["query_id"], pq["value"]))
    assert got == {"q1": 0.5, "q2": 1.0}


def test_regime_table_resttest_averaging_and_gap_by_hand():
    # ReSTTest: q1 interpolates in folds 0 and 1 (0.2, 0.6 -> 0.4), extrapolates in fold 2 (0.1)
    #           q2 interpolates in folds 1, 2 (1.0, 0.8 -> 0.9), extrapolates in fold 0 (0.3)
    rows = [("m", "resttest", "f0", "interpolation", "q1", 0.2), ("m", "resttest", "f1", "interpolation", "q1", 0.6),
            ("m", "resttest", "f2", "extrapolation", "q1", 0.1), ("m", "resttest", "f1", "interpolation", "q2", 1.0),
            ("m", "resttest", "f2", "interpolation", "q2", 0.8), ("m", "resttest", "f0", "extrapolation", "q2", 0.3)]
    pq = pd.DataFrame(rows, columns=["model", "setting", "split", "regime", "query_id", "value"])
    pq["measure"] = "nDCG@10"
    t = regime_table(pq).iloc[0]
    assert t["interpolation"] == pytest.approx(0.65)
    assert t["extrapolation"] == pytest.approx(0.2)
    assert t["gap"] == pytest.approx((0.2 - 0.65) / 0.65)
    assert t["n_paired"] == 2


def test_memorising_baseline_collapses_under_extrapolation(tmp_path, data):
    tq, eq, qrels, corpus, allq = data
    splits = ReSTTest(n_buckets=3, seed=0).fit(tq, eq).splits_
    eng = ScoringEngine(cache=False)
    vs = train_variants([MemorizingTrainer()], splits, allq, qrels, corpus, tmp_path, engine=eng)
    assert len(vs) == 3  # one model per fold (both regimes share the training set)
    res = evaluate_regimes(vs, splits, allq, qrels, corpus, measures=["nDCG@10"], evaluation="judged",
                           random_negatives=5, engine=eng)
    row = res.tables["regime_table"].iloc[0]
    assert row["interpolation"] > 0.9
    assert row["gap"] < -0.2
    assert row["t_pvalue"] < 0.01
    assert res.kind == "regimes-table"
    assert list(res.tables["paper"].columns) == ["model", "setting", "nDCG@10 interp", "nDCG@10 extrap", "nDCG@10 gap"]
    # the trainer's parameters (any deviation from the paper's settings) are in the provenance
    assert res.provenance.params["trainers"] == {"memorizing": {"class": "MemorizingTrainer", "rel": 1,
                                                                "name": "memorizing"}}


def test_bm25_trainer_picks_the_grid_optimum(tmp_path, data):
    tq, eq, qrels, corpus, _ = data
    tr = BM25Trainer(k1_grid=(0.5, 1.5), b_grid=(0.0, 0.9), grid_depth=10)
    ranker = tr.train(tq, qrels, corpus, output_dir=tmp_path, engine=ScoringEngine(cache=False))
    grid = pd.read_csv(tmp_path / "grid.tsv", sep="\t")
    best = grid.loc[grid["nDCG@10"].idxmax()]
    assert (ranker.k1, ranker.b) == (best["k1"], best["b"])
    assert json.loads((tmp_path / "done.json").read_text())["k1"] == ranker.k1


def test_train_variants_resumes_and_fingerprints_identify_training_sets(tmp_path, data):
    tq, eq, qrels, corpus, allq = data
    splits = ReSTrain(similarity="bm25", size=10, size_rule="fill").fit(tq, eq).splits_
    calls = []

    def fn(train_queries, qrels, corpus, output_dir=None):
        calls.append(output_dir)
        return MemorizingTrainer().train(train_queries, qrels, corpus)

    trainers = [MemorizingTrainer(), CallableTrainer(fn=fn, name="mine"),
                BM25Trainer(k1_grid=(0.9,), b_grid=(0.4,))]
    first = train_variants(trainers, splits, allq, qrels, corpus, tmp_path, engine=ScoringEngine(cache=False))
    assert len(first) == 6 and not any(v.resumed for v in first)
    assert all(c is not None for c in calls) and len(calls) == 2
    fps = {v.trainer: [] for v in first}
    for v in first:
        fps[v.trainer].append(v.ranker.fingerprint)
    assert len(set(fps["memorizing"])) == 2
    # tuned BM25 is its k1/b and corpus statistics: the same grid point is the same model (shared cache)
    assert len(set(fps["bm25-tuned"])) == 1
    second = train_variants([trainers[0], trainers[2]], splits, allq, qrels, corpus, tmp_path,
                            engine=ScoringEngine(cache=False))
    assert all(v.resumed for v in second)
    assert [v.ranker.fingerprint for v in second] == [v.ranker.fingerprint for v in first if v.trainer != "mine"]


def test_ood_correlation_by_hand():
    ind = pd.DataFrame({"variant": list("abcd"), "interpolation": [0.9, 0.8, 0.7, 0.6],
                        "extrapolation": [0.1, 0.2, 0.3, 0.4]})
    ood = pd.DataFrame({"variant": list("abcd"), "collection": "c", "value": [0.2, 0.3, 0.35, 0.5]})
    r = ood_correlation(ind, ood)
    t = r.table.set_index("regime")
    assert t.loc["extrapolation", "spearman"] == pytest.approx(1.0)
    assert t.loc["interpolation", "kendall"] == pytest.approx(-1.0)
    fig = plot_ood(r)
    assert len(fig.axes) == 1


def test_plots_return_figures(data):
    tq, eq, qrels, corpus, allq = data
    s = ReSTrain(similarity="bm25", k=1).fit(tq, eq).splits_[0]
    fig = plot_split_pca(s, allq)
    assert len(fig.axes) == 2
    pq = pd.DataFrame({"model": "m", "setting": "s", "split": "s", "regime": ["interpolation", "extrapolation"],
                       "query_id": ["q", "q"], "measure": "nDCG@10", "value": [0.5, 0.4]})

    class R:
        tables = {"regime_table": regime_table(pq)}

    assert plot_regimes(R()).axes


def test_two_resttest_configurations_are_separate_settings(tmp_path, data):
    tq, eq, qrels, corpus, allq = data
    a = ReSTTest(n_buckets=2, seed=0, name="rt-k2").fit(tq, eq).splits_
    b = ReSTTest(n_buckets=3, seed=0, name="rt-k3").fit(tq, eq).splits_
    splits = [*a, *b]
    eng = ScoringEngine(cache=False)
    vs = train_variants([MemorizingTrainer()], splits, allq, qrels, corpus, tmp_path, engine=eng)
    res = evaluate_regimes(vs, splits, allq, qrels, corpus, measures=["nDCG@10"], evaluation="judged",
                           random_negatives=2, engine=eng)
    assert set(res.table["setting"]) == {"rt-k2", "rt-k3"}
    t = res.tables["regime_table"].set_index("setting")
    # each configuration extrapolates every test query exactly once (not twice, as when merged)
    assert t.loc["rt-k2", "n_extrapolation"] == t.loc["rt-k3", "n_extrapolation"] == len(eq)
    assert len(res.tables["paper"]) == 2
    # ReSTrain splits keep their own name; the fold suffix only is stripped
    from ranklens.regimes.evaluation import setting_name

    assert [setting_name(s) for s in a] == ["rt-k2", "rt-k2"]
    assert setting_name(ReSTrain(similarity="bm25", k=1, k_exclude=1, name="restrain-fold-like").fit(tq, eq).splits_[0]) == \
        "restrain-fold-like"


def test_report_plots_return_figures_from_a_result_alone(tmp_path, data):
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    from ranklens.results import Result

    tq, eq, qrels, corpus, allq = data
    splits = ReSTTest(n_buckets=2, seed=0).fit(tq, eq).splits_
    eng = ScoringEngine(cache=False)
    vs = train_variants([MemorizingTrainer()], splits, allq, qrels, corpus, tmp_path / "m", engine=eng)
    reg = evaluate_regimes(vs, splits, allq, qrels, corpus, measures=["RR@10", "nDCG@5"], engine=eng)
    ood = ood_correlation(pd.DataFrame({"variant": list("abcd"), "interpolation": [0.9, 0.8, 0.7, 0.6],
                                        "extrapolation": [0.1, 0.2, 0.3, 0.4]}),
                          pd.DataFrame({"variant": list("abcd"), "collection": "c", "value": [0.2, 0.3, 0.35, 0.5]}))
    for res, fn in ((reg, plot_regimes), (ood, plot_ood)):
        for r in (res, Result.load(res.save(tmp_path / res.kind))):
            fig = fn(r)
            assert isinstance(fig, Figure) and fig.axes[0].has_data(), fn.__name__
            plt.close(fig)
            fig, ax = plt.subplots()
            assert fn(r, ax=ax) is fig and ax.has_data()
            plt.close(fig)
    # without nDCG@10 the first measure is drawn; an absent measure is a clear error
    assert plot_regimes(reg).axes[0].get_ylabel() == "RR@10"
    assert plot_regimes(reg, measure="nDCG@5").axes[0].get_ylabel() == "nDCG@5"
    with pytest.raises(Exception, match="not in the regime table"):
        plot_regimes(reg, measure="nDCG@10")
