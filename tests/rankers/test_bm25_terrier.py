"""bm25:terrier against a plain-Python transcription of Terrier's weighting model BM25, the presets,
and unknown spec arguments refused at every door."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from ranklens.errors import ValidationError
from ranklens.io.collection import DocStore
from ranklens.rankers import BM25Ranker
from ranklens.specs import check_spec, make_ranker

# a hand-made index: tokens as the ranker sees them (no stemming, no stopwords)
DOCS = ["apple banana apple", "banana cherry", "cherry cherry cherry date", "banana", "elder apple fig"]


def terrier_bm25(query: str, doc: str, docs: list[str], k1=1.2, b=0.75, k3=8.0) -> float:
    """org.terrier.matching.models.BM25.score, summed over the distinct query terms (Terrier's
    keyFrequency = the term's count in the query; WeightingModelLibrary.log = log base 2)."""
    toks = [d.split() for d in docs]
    n = len(toks)
    avgdl = sum(map(len, toks)) / n
    tf_doc = Counter(doc.split())
    dl = len(doc.split())
    total = 0.0
    for term, qtf in Counter(query.split()).items():
        df = sum(term in t for t in toks)
        tf = tf_doc.get(term, 0)
        if df == 0 or tf == 0:
            continue
        big_k = k1 * ((1 - b) + b * dl / avgdl)
        total += (math.log((n - df + 0.5) / (df + 0.5)) / math.log(2) * ((k1 + 1) * tf / (big_k + tf))
                  * ((k3 + 1) * qtf / (k3 + qtf)))
    return total


QUERIES = ["apple", "cherry cherry", "banana apple", "fig elder date zebra", "banana banana banana"]


def test_terrier_preset_equals_the_transcription_of_terriers_weighting_model():
    r = make_ranker("bm25:terrier", corpus=DOCS, stem=False, stopwords=False)
    assert (r.k1, r.b, r.method) == (1.2, 0.75, "terrier")
    for q in QUERIES:
        texts = [*DOCS, "apple apple apple cherry", "unseen words only"]
        got = r.score([q] * len(texts), texts)
        want = [terrier_bm25(q, t, DOCS) for t in texts]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # banana is in 3 of 5 documents: Terrier's idf is negative (not clipped as Robertson's is)
    assert r.score(["banana"], ["banana"])[0] < 0


def test_terrier_retrieval_is_the_pairwise_ranking():
    r = make_ranker("bm25:terrier", corpus=DOCS, stem=False, stopwords=False)
    idx, sc = r.retrieve_topk(["cherry apple"], k=3)
    want = np.array([terrier_bm25("cherry apple", d, DOCS) for d in DOCS])
    order = sorted(range(len(DOCS)), key=lambda i: (-want[i], i))[:3]
    assert idx[0].tolist() == order
    np.testing.assert_allclose(sc[0], want[order], rtol=1e-6)


def test_anserini_preset_is_the_default():
    a = make_ranker("bm25:anserini", corpus=DOCS)
    d = make_ranker("bm25", corpus=DOCS)
    assert (a.k1, a.b, a.method) == (0.9, 0.4, "robertson")
    assert a.fingerprint == d.fingerprint
    # an explicit parameter still wins over the preset
    assert make_ranker("bm25:terrier", corpus=DOCS, k1=2.0).k1 == 2.0


@pytest.mark.parametrize("spec", ["bm25:nonsense", "bm25:Terrier", "tfidf:x", "minilm:foo", "maxp:bm25:nonsense"])
def test_unknown_spec_argument_is_an_error(spec):
    problems = check_spec(spec, "ranker")
    assert problems and "unknown argument" in problems[0]
    with pytest.raises(ValidationError, match="unknown argument"):
        make_ranker(spec, corpus=DOCS)


def test_known_presets_pass_the_check():
    assert check_spec("bm25:terrier") == [] and check_spec("bm25:anserini") == [] and check_spec("bm25") == []
    assert check_spec("maxp:bm25:terrier:3") == []


def test_runs_for_models_uses_the_preset():
    from types import SimpleNamespace

    from ranklens.specs import runs_for_models

    coll = SimpleNamespace(queries=pd.DataFrame({"query_id": ["q1"], "text": ["cherry apple"]}),
                           docs=DocStore({f"d{i}": t for i, t in enumerate(DOCS)}))
    runs, skipped = runs_for_models(coll, {"t": {"spec": "bm25:terrier", "params": {"stem": False,
                                                                                    "stopwords": False}}}, 5, None)
    assert not skipped
    want = {f"d{i}": terrier_bm25("cherry apple", d, DOCS) for i, d in enumerate(DOCS)}
    got = dict(zip(runs["t"]["doc_id"], runs["t"]["score"]))
    for doc_id, score in got.items():
        assert score == pytest.approx(want[doc_id], abs=1e-9)
    with pytest.raises(ValidationError, match="unknown argument"):
        runs_for_models(coll, {"t": {"spec": "bm25:nonsense"}}, 5, None)


def test_build_index_refuses_terrier(tmp_path):
    from ranklens.rankers.bm25 import build_index

    with pytest.raises(ValidationError, match="no bm25s index"):
        build_index(DOCS, tmp_path / "i", ranker=BM25Ranker(method="terrier"))
