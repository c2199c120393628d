"""Issue 18: each construction compared with a small brute-force reference written here."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ranklens.engine import ScoringEngine
from ranklens.errors import ValidationError
from ranklens.regimes import (
    EXTRAPOLATION,
    INTERPOLATION,
    ReSTrain,
    evaluate_regimes,
    label_overlap,
    model_run,
    train_variants,
    tuned_bm25,
)
from ranklens.regimes.scoring import tied_top
from ranklens.regimes.similarity import analyze, bm25_matrix, nearest_queries

from ._synth import synthetic


@pytest.fixture(scope="module")
def data():
    return synthetic(n_topics=5, docs_per_topic=4, per_doc=3)


def _ranked(row):
    """Neighbour order of one test query: score descending, lower index first (plain Python)."""
    return sorted(range(len(row)), key=lambda j: (-row[j], j))


def _union(m, k):
    return {j for row in m for j in _ranked(row)[:k] if row[j] > 0}


def test_size_rule_topk_is_the_largest_k_whose_union_fits(data):
    tq, eq, _, _ = data
    m = bm25_matrix(eq["text"].tolist(), tq["text"].tolist()).toarray()
    n1 = len(_union(m, 1))
    size = n1 + 5
    k_ref = max(k for k in range(1, 30) if len(_union(m, k)) <= size)
    s = ReSTrain(size=size, similarity="bm25", k_exclude=1).fit(tq, eq).splits_[0]
    assert set(s.train_ids(INTERPOLATION)) == {tq["query_id"][j] for j in _union(m, k_ref)}
    assert s.params["k_used"] == k_ref and s.params["n_test_lacking_nearest"] == 0
    with pytest.raises(ValidationError, match=f"already {n1} distinct"):
        ReSTrain(size=n1 - 1, similarity="bm25").fit(tq, eq)


def test_size_rule_fill_counts_and_warns_the_test_queries_losing_their_nearest(data):
    tq, eq, _, _ = data
    m = bm25_matrix(eq["text"].tolist(), tq["text"].tolist()).toarray()
    size = len(_union(m, 1)) - 4
    f = ReSTrain(size=size, size_rule="fill", similarity="bm25", k_exclude=1).fit(tq, eq)
    s = f.splits_[0]
    interp = {tq["query_id"][j] for j in range(len(tq))} & set(s.train_ids(INTERPOLATION))
    lacking = sum(1 for row in m if row.max() > 0 and tq["query_id"][_ranked(row)[0]] not in interp)
    assert len(interp) == size and s.params["n_test_lacking_nearest"] == lacking > 0
    assert any(f"{lacking} of {len(eq)} test queries" in w for w in f.warnings)


def test_zero_similarity_neighbours_never_enter_the_interpolation_set():
    tr = pd.DataFrame({"query_id": ["a", "b", "c", "d"], "text": ["cheap flights", "cat food", "dog food", "red car"]})
    te = pd.DataFrame({"query_id": ["x", "y"], "text": ["cheap flights rome", "quantum chromodynamics"]})
    f = ReSTrain(k=1, similarity="bm25", k_exclude=1).fit(tr, te)
    s = f.splits_[0]
    assert s.train_ids(INTERPOLATION) == ("a",)  # y shares no term: no arbitrary lowest-index neighbour
    assert s.params["n_test_without_similar"] == 1 and any("1 of 2 test queries" in w for w in f.warnings)
    # y cannot be an interpolation query: kept out of that regime's test set, not of extrapolation's
    assert s.test_ids(INTERPOLATION) == ("x",) and s.test_ids(EXTRAPOLATION) == ("x", "y")
    assert s.params["test_without_similar"] == ["y"]


def test_no_query_is_emptied_by_the_stop_list():
    assert analyze("describe the fire system bill") != []
    assert analyze("The cats were running") == ["cat", "run"]


def test_tfidf_is_fitted_on_train_and_test_vocabulary():
    # "fiscal" occurs only in the test query: fitted on training texts alone it vanished and the
    # two queries had cosine 1.0
    idx, sc = nearest_queries(["what is a fiscal quarter"], ["who is on the quarter", "cat food"], method="tfidf", k=1)
    assert idx[0, 0] == 0 and sc[0, 0] < 0.99


def test_label_overlap_both_denominators_by_hand():
    tr = pd.DataFrame({"query_id": ["t"] * 2, "doc_id": ["d1", "d2"], "relevance": [1, 1]})
    te = pd.DataFrame({"query_id": ["x", "x", "y", "z"], "doc_id": ["d1", "d2", "d1", "d9"], "relevance": [1, 1, 1, 0]})
    lo = label_overlap(te, tr, min_shared=2)
    # x shares 2 positives; y one; z has no positive: paper denominator 2 (x, y), script's 3 (x, y, z)
    assert lo.summary["share@1"] == 0.5 and lo.summary["share_of_all@1"] == pytest.approx(1 / 3)


def test_full_retrieval_equals_exhaustive_scoring(data):
    tq, eq, qrels, corpus = data
    ranker = tuned_bm25(1.2, 0.75, list(corpus.values()))
    run = model_run(ranker, "full", eq.iloc[:6], corpus, depth=5, engine=ScoringEngine(cache=False))
    ids = list(corpus)
    for qid, text in zip(eq["query_id"][:6], eq["text"][:6]):
        s = ranker.score([text] * len(ids), [corpus[d] for d in ids])
        ref = [ids[j] for j in sorted(range(len(ids)), key=lambda j: (-s[j], j)) if s[j] > 0][:5]
        got = run.loc[run["query_id"] == qid].sort_values("score", ascending=False, kind="stable")["doc_id"].tolist()
        assert set(got[: len(ref)]) >= set(ref[: len(got)]) and len(got) <= 5
        np.testing.assert_allclose(sorted(run.loc[run["query_id"] == qid, "score"], reverse=True)[: len(ref)],
                                   sorted([s[ids.index(d)] for d in ref], reverse=True), rtol=1e-9)


def test_tied_top_by_hand():
    run = pd.DataFrame({"query_id": ["a"] * 3 + ["b"] * 3 + ["c"],
                        "doc_id": list("xyzxyzx"), "score": [0, 0, 0, 2, 1, 1, 5]})
    got = tied_top(run, 2)
    # a: top-2 both 0 -> tied; b: 2 and 1 -> not; c: one document -> not a tie
    assert got.to_dict() == {"a": True, "b": False, "c": False}


def test_auto_evaluation_is_the_papers_per_model_type_and_judged_is_warned(tmp_path, data):
    from ranklens.regimes import BM25Trainer, MemorizingTrainer, ReSTTest

    tq, eq, qrels, corpus = data
    allq = pd.concat([tq, eq], ignore_index=True)
    splits = ReSTTest(n_buckets=2, seed=0).fit(tq, eq).splits_
    eng = ScoringEngine(cache=False)
    vs = train_variants([BM25Trainer(k1_grid=(0.9,), b_grid=(0.4,)), MemorizingTrainer()], splits, allq, qrels,
                        corpus, tmp_path, engine=eng)
    auto = evaluate_regimes(vs, splits, allq, qrels, corpus, measures=["nDCG@10"], depth=10, engine=eng)
    modes = auto.table.groupby("model")["evaluation"].agg(set).to_dict()
    assert modes == {"bm25-tuned": {"full"}, "memorizing": {"rerank"}}
    judged = evaluate_regimes([v for v in vs if v.trainer == "memorizing"], splits, allq, qrels, corpus,
                              measures=["nDCG@10"], evaluation="judged", engine=eng)
    assert any("evaluation='judged'" in w for w in judged.warnings)
    # the regime table's CI of the paired difference brackets the mean difference
    r = auto.tables["regime_table"].iloc[0]
    assert r["diff_ci_low"] <= r["diff_paired"] <= r["diff_ci_high"]
    # the paired difference is the mean over common queries of extrapolation - mean interpolation
    t = auto.table.loc[(auto.table["model"] == r["model"]) & (auto.table["measure"] == r["measure"])]
    per = t.groupby(["regime", "query_id"])["value"].mean()
    common = sorted(set(per["interpolation"].index) & set(per["extrapolation"].index))
    ref = sum(per["extrapolation"][q] - per["interpolation"][q] for q in common) / len(common)
    assert math.isclose(r["diff_paired"], ref, rel_tol=1e-12, abs_tol=1e-12)


def test_a_planted_pickle_in_the_checkpoint_is_refused_not_run(tmp_path):
    """state.pt is read with torch.load(weights_only=True): a pickle that would run code is refused
    with a located error, and the code does not run."""
    import torch

    from ranklens.errors import DataFormatError
    from ranklens.regimes.optimise import CHECKPOINT_DIR, _optimise

    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    ckpt = tmp_path / CHECKPOINT_DIR / "state.pt"
    ckpt.parent.mkdir(parents=True)
    torch.save({"model": Evil(), "step": torch.tensor(1)}, ckpt)
    (ckpt.with_suffix(".json")).write_text('{"step": 1, "losses": [0.5], "n_batches": 2, "scheduler": {}}')
    model = torch.nn.Linear(2, 1)
    with pytest.raises(DataFormatError, match="refused"):
        _optimise(model, [[0], [1]], lambda b: model(torch.ones(1, 2)).sum(), lr=1e-3, warmup_ratio=0.0,
                  output_dir=tmp_path, checkpoint_every=1, desc="x", show_progress=False)
    assert not marker.exists()
