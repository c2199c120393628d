"""ReSTrain audit fixes: each compared with a small reference computed here on hand-made vectors.

1. size_rule='topk' picks the largest k whose union fits in ``size`` however deep that is, and
   the choice does not depend on ``k_exclude``.
2. With an embedder, neighbours are the plain top-k by cosine (negative cosines included) and the
   test set is kept whole; only lexical similarity drops score-0 neighbours.
3. Resampling with a lexical similarity is warned (the paper uses embeddings, §4.1.1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.embedders.base import FunctionEmbedder
from ranklens.engine import ScoringEngine
from ranklens.regimes import EXTRAPOLATION, INTERPOLATION, ReSTrain


def _frames(vectors: dict[str, tuple[float, ...]], train: list[str], test: list[str], name: str):
    emb = FunctionEmbedder(fn=lambda texts: np.array([vectors[t] for t in texts], dtype=float), name_=name)
    tr = pd.DataFrame({"query_id": train, "text": train})
    te = pd.DataFrame({"query_id": test, "text": test})
    return emb, tr, te


def _cos(a, b) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def _ranked(vectors, q: str, train: list[str]) -> list[str]:
    """Training ids by cosine to ``q``, best first, ties to the earlier id (plain Python)."""
    return sorted(train, key=lambda t: (-_cos(vectors[q], vectors[t]), train.index(t)))


# ------------------------------------------------------------------ 1. size rule depth
@pytest.fixture(scope="module")
def arc():
    """60 training vectors on a quarter arc, 10 test queries with the same direction: every test
    query has the same top-k, so the top-k union has exactly k queries."""
    n = 60
    ang = np.linspace(0, np.pi / 2, n)
    vectors = {f"t{i}": (float(np.cos(a)), float(np.sin(a))) for i, a in enumerate(ang)}
    vectors.update({f"x{j}": (1.0, 0.0) for j in range(10)})
    train, test = [f"t{i}" for i in range(n)], [f"x{j}" for j in range(10)]
    return (vectors, train, test, *_frames(vectors, train, test, "audit-arc"))


def _largest_k_within(vectors, train, test, size):
    ranked = {q: _ranked(vectors, q, train) for q in test}
    union = lambda k: {t for q in test for t in ranked[q][:k]}  # noqa: E731
    k = max(k for k in range(1, len(train) + 1) if len(union(k)) <= size)
    return k, union(k)


@pytest.mark.parametrize("k_exclude", [None, 5, 30])
def test_topk_size_rule_searches_deep_enough_and_ignores_k_exclude(arc, k_exclude):
    vectors, train, test, emb, tr, te = arc
    size = 30
    k_ref, interp_ref = _largest_k_within(vectors, train, test, size)
    assert k_ref == 30 and len(interp_ref) == 30  # by hand: union of top-k is k queries
    s = ReSTrain(size=size, similarity=emb, k_exclude=k_exclude).fit(tr, te, engine=ScoringEngine(cache=False)).splits_[0]
    assert s.params["k_used"] == k_ref
    assert set(s.train_ids(INTERPOLATION)) == interp_ref
    assert len(s.train_ids(EXTRAPOLATION)) == len(interp_ref)


def test_fill_size_rule_searches_deep_enough(arc):
    vectors, train, test, emb, tr, te = arc
    size = 30
    # rank by rank: all test queries share one ranking, so the first `size` of it
    ref = set(_ranked(vectors, test[0], train)[:size])
    s = ReSTrain(size=size, size_rule="fill", similarity=emb).fit(tr, te, engine=ScoringEngine(cache=False)).splits_[0]
    assert set(s.train_ids(INTERPOLATION)) == ref and s.params["k_used"] == size


# ------------------------------------------------------------------ 2. non-positive cosines
@pytest.fixture(scope="module")
def signed():
    """x has positive and negative cosines; y=(0,-1) has only negative ones (its best is t3 at -0.05)."""
    vectors = {"t1": (1, 0.1), "t2": (0.1, 1), "t3": (-1, 0.05), "t4": (-0.1, 1), "t5": (0, 1),
               "t6": (-1, 1), "t7": (0.5, 1), "t8": (-0.5, 1), "x": (1, 0), "y": (0, -1)}
    train, test = [f"t{i}" for i in range(1, 9)], ["x", "y"]
    return (vectors, train, test, *_frames(vectors, train, test, "audit-signed"))


@pytest.mark.parametrize("k", [1, 2])
def test_embedder_takes_plain_topk_and_keeps_the_test_set(signed, k):
    vectors, train, test, emb, tr, te = signed
    ref = {t for q in test for t in _ranked(vectors, q, train)[:k]}
    assert max(_cos(vectors["y"], vectors[t]) for t in train) < 0  # y: every cosine negative
    f = ReSTrain(k=k, similarity=emb, k_exclude=k).fit(tr, te, engine=ScoringEngine(cache=False))
    s = f.splits_[0]
    assert set(s.train_ids(INTERPOLATION)) == ref
    assert s.test_ids(INTERPOLATION) == ("x", "y") and s.test_ids(EXTRAPOLATION) == ("x", "y")
    assert s.params["n_test_without_similar"] == 0 and s.params["drop_nonpositive"] is False
    assert s.params["similarity_kind"] == "embedding"
    assert not [w for w in f.warnings if "positive" in w]
    # the extrapolation set avoids every test query's top-k' (here k' = k)
    assert not set(s.train_ids(EXTRAPOLATION)) & ref


def test_embedder_fill_takes_negative_cosines_rank_by_rank(signed):
    vectors, train, test, emb, tr, te = signed
    size = 3
    ranked = {q: _ranked(vectors, q, train) for q in test}
    ref: list[str] = []
    for r in range(len(train)):  # rank r of every test query, higher cosine first
        for q in sorted(test, key=lambda q: -_cos(vectors[q], vectors[ranked[q][r]])):
            if ranked[q][r] not in ref and len(ref) < size:
                ref.append(ranked[q][r])
    s = ReSTrain(size=size, size_rule="fill", similarity=emb, k_exclude=1).fit(
        tr, te, engine=ScoringEngine(cache=False)).splits_[0]
    assert set(s.train_ids(INTERPOLATION)) == set(ref) == {"t1", "t3", "t7"}
    assert s.params["n_test_lacking_nearest"] == 0


# ------------------------------------------------------------------ 3. lexical similarity warned
def test_lexical_resampling_is_warned_and_recorded():
    tr = pd.DataFrame({"query_id": ["a", "b", "c", "d"], "text": ["cheap flights", "cat food", "dog food", "red car"]})
    te = pd.DataFrame({"query_id": ["x"], "text": ["cheap flights rome"]})
    for sim in ("bm25", "tfidf"):
        f = ReSTrain(k=1, similarity=sim, k_exclude=1).fit(tr, te)
        assert f.splits_[0].params["similarity_kind"] == "lexical"
        assert f.splits_[0].params["drop_nonpositive"] is True
        assert any("§4.1.1" in w and "embedd" in w for w in f.warnings)


def test_embedder_resampling_is_not_warned_as_lexical(signed):
    _, _, _, emb, tr, te = signed
    f = ReSTrain(k=1, similarity=emb, k_exclude=1).fit(tr, te, engine=ScoringEngine(cache=False))
    assert not [w for w in f.warnings if "§4.1.1" in w]
