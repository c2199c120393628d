from __future__ import annotations

import math

import numpy as np
import pytest

from ranklens.engine import ScoringEngine, score_pairs
from ranklens.errors import ValidationError
from ranklens.rankers import BM25Ranker
from ranklens.rankers.bm25 import BM25_METHODS

CORPUS = ["apple banana", "banana cherry cherry", "date"]


def _synthetic_corpus(n=150, seed=0):
    rng = np.random.default_rng(seed)
    vocab = [f"term{i}" for i in range(60)]
    p = 1.0 / np.arange(1, 61)
    p /= p.sum()
    return [" ".join(rng.choice(vocab, size=rng.integers(1, 25), p=p)) for _ in range(n)]


def test_hand_computed_score_for_text_outside_corpus():
    r = BM25Ranker(k1=0.9, b=0.4, stem=False, stopwords=False).fit(CORPUS)
    # N = 3, avgdl = (2 + 3 + 1) / 3 = 2, df(cherry) = 1, text "cherry cherry" has length 2
    idf = math.log((3 - 1 + 0.5) / (1 + 0.5))
    tfc = 2 / (0.9 * (1 - 0.4 + 0.4 * 2 / 2) + 2)
    got = r.score(["cherry"], ["cherry cherry"])[0]
    assert got == pytest.approx(idf * tfc, rel=1e-12)
    # a repeated query term counts twice (as bm25s); an unknown term adds nothing
    assert r.score(["cherry cherry zebra"], ["cherry cherry"])[0] == pytest.approx(2 * idf * tfc, rel=1e-12)


def test_robertson_idf_is_clipped_at_zero():
    # "banana" is in 2 of 3 docs: (3 - 2 + .5) / (2 + .5) < 1 -> idf 0
    r = BM25Ranker(stem=False, stopwords=False).fit(CORPUS)
    assert r.score(["banana"], ["banana banana"])[0] == 0.0
    lucene = BM25Ranker(stem=False, stopwords=False, method="lucene").fit(CORPUS)
    assert lucene.score(["banana"], ["banana"])[0] > 0


@pytest.mark.parametrize("method", BM25_METHODS)
def test_pairwise_scores_equal_bm25s_on_corpus_docs(method):
    corpus = _synthetic_corpus()
    r = BM25Ranker(k1=1.2, b=0.75, method=method).fit(corpus)
    index = r._index()
    for q in ["term0 term5 term17", "term3 term3 term40", "term59 nothere"]:
        ids = [r.stats.vocab[t] for t in r.analyze(q) if t in r.stats.vocab]
        ref = index.get_scores_from_ids(ids)
        mine = r.score([q] * len(corpus), corpus)
        np.testing.assert_allclose(mine, ref, rtol=2e-6, atol=2e-6)  # bm25s stores float32


def test_retrieve_topk_matches_brute_force_sort():
    corpus = _synthetic_corpus(n=120, seed=1)
    r = BM25Ranker().fit(corpus)
    idx, _ = r.retrieve_topk(["term1 term7", "term2"], k=10)
    for row, q in zip(idx, ["term1 term7", "term2"]):
        s = r.score([q] * len(corpus), corpus)
        np.testing.assert_allclose(np.sort(s[row])[::-1], np.sort(s)[::-1][:10], atol=1e-5)


def test_fit_returns_copy_and_unfitted_refuses():
    base = BM25Ranker()
    fitted = base.fit(CORPUS)
    assert not base.fitted and fitted.fitted
    with pytest.raises(ValidationError, match="fit"):
        base.score(["apple"], ["apple"])
    with pytest.raises(ValidationError):
        base.fit([])


def test_fingerprint_tracks_corpus_and_parameters():
    a = BM25Ranker().fit(CORPUS)
    assert a.fingerprint == BM25Ranker().fit(list(CORPUS)).fingerprint
    assert a.fingerprint != BM25Ranker().fit(CORPUS + ["elder"]).fingerprint
    assert a.fingerprint != BM25Ranker(k1=1.2).fit(CORPUS).fingerprint
    assert a.fingerprint != BM25Ranker(stem=False).fit(CORPUS).fingerprint
    assert a.fingerprint != BM25Ranker().fingerprint


def test_stemming_and_stopwords_are_configurable():
    corpus = ["the cats purr", "dogs bark loudly", "a cat sleeps", "birds sing", "fish swim"]
    stemmed = BM25Ranker().fit(corpus)
    plain = BM25Ranker(stem=False).fit(corpus)
    assert stemmed.score(["cats"], ["one cat"])[0] > 0
    assert plain.score(["cats"], ["one cat"])[0] == 0
    assert "the" not in stemmed.analyze("the cats")
    assert "the" in BM25Ranker(stopwords=False).analyze("the cats")


def test_scores_through_engine_match_direct_and_inputs_untouched():
    r = BM25Ranker().fit(_synthetic_corpus(50))
    qs = ["term1 term2"] * 3 + ["term4"]
    ts = ["term1 term1", "term2", "term1 term1", "term4 term9"]
    before = (list(qs), list(ts))
    direct = r.score(qs, ts)
    via = score_pairs(r, qs, ts, engine=ScoringEngine(cache=False))
    np.testing.assert_array_equal(direct, via)
    assert (qs, ts) == before
    assert direct[0] == direct[2]


def test_bad_parameters_raise():
    with pytest.raises(ValidationError, match="method"):
        BM25Ranker(method="okapi")
    with pytest.raises(ValidationError):
        BM25Ranker(b=2.0)
