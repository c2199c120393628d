from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.errors import DataFormatError, ValidationError
from ranklens.regimes import (
    EXTRAPOLATION,
    INTERPOLATION,
    ReSTrain,
    ReSTTest,
    Split,
    split_similarity_stats,
)
from ranklens.regimes.similarity import bm25_matrix

from ._synth import synthetic


@pytest.fixture(scope="module")
def data():
    return synthetic(n_topics=6, docs_per_topic=4, per_doc=3)


def test_restrain_k1_is_union_of_nearest_neighbours(data):
    tq, eq, _, _ = data
    s = ReSTrain(similarity="bm25", k=1).fit(tq, eq).splits_[0]
    m = bm25_matrix(eq["text"].tolist(), tq["text"].tolist()).toarray()
    # reference: argmax with lowest-index tie-break
    expected = {tq["query_id"][int(np.flatnonzero(row == row.max())[0])] for row in m}
    assert set(s.train_ids(INTERPOLATION)) == expected
    assert s.test_ids(INTERPOLATION) == s.test_ids(EXTRAPOLATION) == tuple(eq["query_id"])
    assert len(s.train_ids(EXTRAPOLATION)) == len(s.train_ids(INTERPOLATION))
    assert not set(s.train_ids(EXTRAPOLATION)) & expected


def test_restrain_size_is_exact_and_extrap_excludes_top_kprime(data):
    tq, eq, _, _ = data
    s = ReSTrain(similarity="bm25", size=20, size_rule="fill", k_exclude=2, seed=3).fit(tq, eq).splits_[0]
    assert len(s.train_ids(INTERPOLATION)) == 20 == len(s.train_ids(EXTRAPOLATION))
    m = bm25_matrix(eq["text"].tolist(), tq["text"].tolist()).toarray()
    top2 = {tq["query_id"][j] for row in m for j in sorted(range(len(row)), key=lambda j: (-row[j], j))[:2]}
    assert not set(s.train_ids(EXTRAPOLATION)) & top2
    assert s.params["k_exclude_used"] == 2


def test_restrain_seeded(data):
    tq, eq, _, _ = data
    a = ReSTrain(similarity="bm25", k=1, seed=1).fit(tq, eq).splits_[0]
    b = ReSTrain(similarity="bm25", k=1, seed=1).fit(tq, eq).splits_[0]
    c = ReSTrain(similarity="bm25", k=1, seed=2).fit(tq, eq).splits_[0]
    assert a.regimes == b.regimes and a.fingerprint == b.fingerprint
    assert a.train_ids(EXTRAPOLATION) != c.train_ids(EXTRAPOLATION)
    assert a.fingerprint != c.fingerprint


def test_restrain_rejects_impossible_size(data):
    tq, eq, _, _ = data
    with pytest.raises(ValidationError, match="half the training pool"):
        ReSTrain(similarity="bm25", size=len(tq)).fit(tq, eq)


def test_restrain_interpolation_is_closer_than_extrapolation(data):
    tq, eq, _, _ = data
    s = ReSTrain(similarity="bm25", size=24, size_rule="fill").fit(tq, eq).splits_[0]
    st = split_similarity_stats(s, pd.concat([tq, eq]), method="tfidf").set_index("regime")
    assert st.loc[INTERPOLATION, "nn_mean"] > st.loc[EXTRAPOLATION, "nn_mean"]


def test_resttest_folds_partition_the_test_queries(data):
    tq, eq, _, _ = data
    rt = ReSTTest(n_buckets=3, seed=0).fit(tq, eq)
    assert rt.get_n_splits() == 6
    extrap = [x for s in rt.splits_ for x in s.test_ids(EXTRAPOLATION)]
    assert sorted(extrap) == sorted(eq["query_id"])  # each test query extrapolates exactly once
    b = rt.bucket_.set_index("query_id")["bucket"]
    for i, s in enumerate(rt.splits_):
        assert s.train_ids(INTERPOLATION) == s.train_ids(EXTRAPOLATION)
        assert all(b[x] != i for x in s.train_ids(INTERPOLATION))
        assert set(s.train_ids(INTERPOLATION)) == {x for x in tq["query_id"] if b[x] != i}
        assert set(s.test_ids(INTERPOLATION)) == set(eq["query_id"]) - set(s.test_ids(EXTRAPOLATION))


def test_sklearn_protocol_index_arrays_map_back(data):
    tq, eq, _, _ = data
    rt = ReSTTest(n_buckets=3).fit(tq, eq)
    pool = rt.pool_
    pairs = list(rt.split())
    assert len(pairs) == rt.get_n_splits()
    s0 = rt.splits_[0]
    tr_idx, te_idx = pairs[1]  # fold 0, extrapolation
    assert pool["query_id"].to_numpy()[tr_idx].tolist() == list(s0.train_ids(EXTRAPOLATION))
    assert pool["query_id"].to_numpy()[te_idx].tolist() == list(s0.test_ids(EXTRAPOLATION))
    # the Split itself is a splitter over any X holding its ids
    shuffled = pool.sample(frac=1.0, random_state=0)
    for (a, b), regime in zip(s0.split(shuffled), (INTERPOLATION, EXTRAPOLATION)):
        assert shuffled["query_id"].to_numpy()[a].tolist() == list(s0.train_ids(regime))
        assert shuffled["query_id"].to_numpy()[b].tolist() == list(s0.test_ids(regime))


def test_unfitted_splitter_says_so():
    with pytest.raises(ValidationError, match="not fitted"):
        list(ReSTTest().split())


def test_split_save_load_round_trip_with_qrels(tmp_path, data):
    tq, eq, qrels, _ = data
    s = ReSTrain(similarity="bm25", k=1).fit(tq, eq).splits_[0]
    d = s.save(tmp_path / "s", qrels=qrels)
    back = Split.load(d)
    assert back == s and back.fingerprint == s.fingerprint
    lines = (d / INTERPOLATION / "train_qrels.trec").read_text().splitlines()
    ids = set(s.train_ids(INTERPOLATION))
    assert len(lines) == int(qrels["query_id"].isin(ids).sum())
    assert all(line.split()[0] in ids and len(line.split()) == 4 for line in lines)


def test_split_load_errors_name_the_path(tmp_path):
    with pytest.raises(DataFormatError, match="no split.json"):
        Split.load(tmp_path)
    (tmp_path / "split.json").write_text("{bad")
    with pytest.raises(DataFormatError, match="split.json:1"):
        Split.load(tmp_path)


# ---------------------------------------------------------------- sklearn protocol with features
def test_split_accepts_a_feature_matrix_in_pool_order(data):
    tq, eq, _, _ = data
    for splitter in (ReSTTest(n_buckets=3, seed=0), ReSTrain(similarity="bm25", k=1, k_exclude=1)):
        splitter = splitter.fit(tq, eq)
        n = len(splitter.pool_)
        expected = [(a.tolist(), b.tolist()) for a, b in splitter.split()]
        X = np.random.default_rng(0).normal(size=(n, 4))  # features: not query ids
        assert [(a.tolist(), b.tolist()) for a, b in splitter.split(X)] == expected
        assert [(a.tolist(), b.tolist()) for a, b in splitter.split(pd.DataFrame(X))] == expected
        assert [(a.tolist(), b.tolist()) for a, b in splitter.split(np.arange(n))] == expected  # numbers are not ids
        with pytest.raises(ValidationError, match="one row per pooled query"):
            list(splitter.split(X[:-1]))
    # a single Split: rows in its pool_ids() order
    s = splitter.splits_[0]
    X = np.zeros((len(s.pool_ids()), 2))
    assert [(a.tolist(), b.tolist()) for a, b in s.split(X)] == [(a.tolist(), b.tolist()) for a, b in s.split()]


def test_splitter_drives_cross_validation_on_features(data):
    from sklearn.dummy import DummyRegressor
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import cross_val_score

    tq, eq, _, _ = data
    rt = ReSTTest(n_buckets=3, seed=0).fit(tq, eq)
    pool = rt.pool_
    rng = np.random.default_rng(1)
    X = rng.normal(size=(len(pool), 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.01 * rng.normal(size=len(pool))
    scores = cross_val_score(Ridge(alpha=1e-3), X, y, cv=rt)
    assert len(scores) == rt.get_n_splits() == 6
    assert (scores > 0.99).all()
    assert len(cross_val_score(DummyRegressor(), X, y, cv=rt)) == 6
    # the same iteration by hand, as cross_val_score does it
    for (tr_idx, te_idx), (split, regime) in zip(rt.split(X, y), [(s, r) for s in rt.splits_
                                                                  for r in (INTERPOLATION, EXTRAPOLATION)]):
        assert pool["query_id"].to_numpy()[tr_idx].tolist() == list(split.train_ids(regime))
        assert pool["query_id"].to_numpy()[te_idx].tolist() == list(split.test_ids(regime))
        Ridge().fit(X[tr_idx], y[tr_idx]).score(X[te_idx], y[te_idx])


def test_split_before_fit_says_fit_first():
    with pytest.raises(ValidationError, match=r"call \.fit\(train_queries, test_queries\) first"):
        list(ReSTrain(similarity="bm25").split(np.zeros((3, 2))))


# ---------------------------------------------------------------- ReSTrain checks and k'
@pytest.mark.parametrize("splitter", [ReSTrain(similarity="bm25", k=1), ReSTTest(n_buckets=2)])
def test_test_queries_in_training_pool_are_rejected(data, splitter):
    tq, eq, _, _ = data
    leaky = pd.concat([tq, eq.iloc[:2]], ignore_index=True)
    with pytest.raises(ValidationError, match="must not be in the training pool") as exc:
        splitter.fit(leaky, eq)
    assert repr(eq["query_id"].iloc[0]) in str(exc.value) or repr(eq["query_id"].iloc[1]) in str(exc.value)


def _top(eq, tq, k):
    m = bm25_matrix(eq["text"].tolist(), tq["text"].tolist()).toarray()
    return {tq["query_id"][j] for row in m for j in sorted(range(len(row)), key=lambda j: (-row[j], j))[:k]}


def test_restrain_default_k_exclude_is_ten_times_k(data, tmp_path):
    tq, eq, _, _ = data
    few = eq.iloc[:3].reset_index(drop=True)  # a large training pool relative to the test set
    s = ReSTrain(similarity="bm25", k=1).fit(tq, few).splits_[0]
    assert s.params["k_exclude"] is None
    assert s.params["k_exclude_used"] == 10 and s.params["k_exclude_rule"].startswith("default 10 x k")
    assert not set(s.train_ids(EXTRAPOLATION)) & _top(few, tq, 10)
    s2 = ReSTrain(similarity="bm25", k=2).fit(tq, few).splits_[0]
    assert s2.params["k_exclude_used"] == 20
    # recorded in the saved split (split.json params)
    import json

    meta = json.loads((s.save(tmp_path / "s") / "split.json").read_text())
    assert meta["params"]["k_exclude_used"] == 10


def test_restrain_default_k_exclude_lowered_with_a_warning_when_pool_is_small(data):
    tq, eq, _, _ = data
    fitted = ReSTrain(similarity="bm25", k=1).fit(tq, eq)
    assert any("k_exclude" in w for w in fitted.warnings)
    s = fitted.splits_[0]
    k_ex = s.params["k_exclude_used"]
    assert 1 <= k_ex < 10 and "lowered" in s.params["k_exclude_rule"]
    assert not set(s.train_ids(EXTRAPOLATION)) & _top(eq, tq, k_ex)
    assert len(s.train_ids(EXTRAPOLATION)) == len(s.train_ids(INTERPOLATION))
    # an explicit k' is used as given: too large is an error, not silently lowered
    with pytest.raises(ValidationError, match="lower k/size or k_exclude"):
        ReSTrain(similarity="bm25", k=1, k_exclude=10).fit(tq, eq)
