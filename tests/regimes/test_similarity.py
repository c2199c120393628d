from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ranklens.engine import ScoringEngine
from ranklens.errors import ValidationError
from ranklens.regimes.similarity import (
    analyze,
    bm25_matrix,
    nearest_queries,
    query_similarity,
)
from ranklens.search import top_k as topk_dense  # moved: the one top-k of ranklens.search
from ranklens.testing import HashEmbedder

TRAIN = ["cheap flights to rome", "cat food brands", "rome hotels cheap", "dog food", "flights to paris"]
TEST = ["cheap flights rome", "food for cats", "paris"]


def _slow_bm25(q: str, docs: list[str], k1: float, b: float) -> list[float]:
    """Textbook BM25 (Lucene idf) written term by term."""
    toks = [analyze(d) for d in docs]
    n = len(docs)
    avg = sum(len(t) for t in toks) / n
    out = []
    for t in toks:
        s = 0.0
        for w in analyze(q):
            df = sum(1 for u in toks if w in u)
            if df == 0:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            f = t.count(w)
            s += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len(t) / avg))
        out.append(s)
    return out


@pytest.mark.parametrize("k1,b", [(0.9, 0.4), (1.2, 0.75), (2.0, 0.0)])
def test_bm25_matrix_matches_textbook_reference(k1, b):
    m = bm25_matrix(TEST + ["rome rome cheap"], TRAIN, k1=k1, b=b).toarray()
    for i, q in enumerate(TEST + ["rome rome cheap"]):
        np.testing.assert_allclose(m[i], _slow_bm25(q, TRAIN, k1, b), rtol=1e-12, atol=1e-12)


def test_bm25_rejects_bad_parameters():
    with pytest.raises(ValidationError, match="k1 >= 0 and 0 <= b <= 1"):
        bm25_matrix(TEST, TRAIN, b=1.5)


def test_topk_dense_matches_argsort_with_deterministic_ties():
    rng = np.random.default_rng(1)
    s = rng.integers(0, 4, size=(20, 15)).astype(float)  # many ties
    idx, val = topk_dense(s, 5)
    for r in range(20):
        ref = sorted(range(15), key=lambda j: (-s[r, j], j))[:5]
        assert idx[r].tolist() == ref
        assert val[r].tolist() == [s[r, j] for j in ref]


def test_nearest_queries_tfidf_top1_by_hand():
    idx, sc = nearest_queries(TEST, TRAIN, method="tfidf", k=2)
    assert idx[:, 0].tolist() == [0, 1, 4]  # rome flights, cat food, paris flights
    assert np.all(sc[:, 0] >= sc[:, 1])
    assert np.all((sc >= 0) & (sc <= 1 + 1e-12))


def test_embedder_exact_and_faiss_agree_and_go_through_engine():
    eng = ScoringEngine(cache=False)
    emb = HashEmbedder(dim=256)
    i1, s1 = nearest_queries(TEST, TRAIN, method=emb, k=3, engine=eng)
    i2, s2 = nearest_queries(TEST, TRAIN, method=emb, k=3, engine=eng, backend="faiss")
    np.testing.assert_allclose(s1, s2, atol=1e-5)
    assert eng.stats.texts_requested > 0
    # brute-force cosine reference
    a = emb.encode(TEST)
    t = emb.encode(TRAIN)
    ref = a @ t.T
    np.testing.assert_allclose(s1[:, 0], ref.max(axis=1), atol=1e-6)


def test_query_similarity_result_shape_and_summary():
    te = pd.DataFrame({"query_id": ["x", "y", "z"], "text": TEST})
    tr = pd.DataFrame({"query_id": [f"t{i}" for i in range(5)], "text": TRAIN})
    r = query_similarity(te, tr, method="bm25", k=3)
    assert r.kind == "regimes-query-similarity"
    assert len(r.table) == 9
    assert r.table.groupby("query_id")["rank"].apply(list).tolist() == [[1, 2, 3]] * 3
    top = r.table.loc[r.table["rank"] == 1].set_index("query_id")["train_query_id"]
    assert top["x"] == "t0"
    assert r.summary["nn_mean"] == pytest.approx(r.table.loc[r.table["rank"] == 1, "score"].mean())


def test_query_similarity_names_missing_columns():
    with pytest.raises(ValidationError, match="lacks column"):
        query_similarity(pd.DataFrame({"qid": ["a"], "text": ["x"]}), pd.DataFrame({"query_id": ["b"], "text": ["y"]}),
                         k=1)


def _tie_embedder():
    """Small integer vectors (exact cosine ties), duplicated texts (identical vectors) and a zero vector."""
    from ranklens.embedders.base import FunctionEmbedder

    def vec(t: str) -> list[float]:
        if t == "nothing":
            return [0.0, 0.0, 0.0]
        h = sum(ord(c) for c in t)
        return [float(h % 3 - 1), float(h % 5 - 2), 1.0 + h % 2]

    return FunctionEmbedder(fn=lambda ts: np.array([vec(t) for t in ts], np.float32), name_="ties")


@pytest.mark.parametrize("backend", ["exact", "faiss"])
@pytest.mark.parametrize("k", [1, 4, 30])
def test_embedder_neighbours_follow_the_one_tie_rule(backend, k):
    """Differential test against a brute-force reference written here: float64 cosine of the unit
    float32 vectors, stable argsort (ties to the lower training index); a zero test vector lists the
    first k training queries with score 0. The FAISS path used FAISS's own order under ties before it
    went through ranklens.search (the rows with exact ties changed); exact search settled near ties by
    float32 products (the order of near-tied neighbours and their last-bit scores changed)."""
    if backend == "faiss":
        pytest.importorskip("faiss")
    emb = _tie_embedder()
    train = [f"t{i % 7}" for i in range(21)]  # every text three times: identical vectors
    test = ["t1", "t3", "q9", "nothing"]
    idx, sc = nearest_queries(test, train, method=emb, k=k, backend=backend, engine=ScoringEngine(cache=False))
    a = emb.encode(test).astype(np.float32)
    t = emb.encode(train).astype(np.float32)
    an = np.linalg.norm(a, axis=1, keepdims=True)
    tn = np.linalg.norm(t, axis=1, keepdims=True)
    a = np.divide(a, an, out=np.zeros_like(a), where=an > 0).astype(np.float64)
    t = np.divide(t, tn, out=np.zeros_like(t), where=tn > 0).astype(np.float64)
    ref = a @ t.T
    kk = min(k, len(train))
    for r in range(len(test)):
        order = np.argsort(-ref[r], kind="stable")[:kk]
        assert idx[r].tolist() == order.tolist()
        np.testing.assert_allclose(sc[r], ref[r, order], atol=1e-6)
    assert idx[3].tolist() == list(range(kk)) and np.all(sc[3] == 0.0)


def test_method_default_is_the_declared_similarity():
    import inspect

    from ranklens.regimes.declaration import Params

    for fn in (nearest_queries, query_similarity):
        sig = inspect.signature(fn)
        assert sig.parameters["method"].default == Params().similarity
        assert sig.parameters["k"].default is inspect.Parameter.empty  # the analysis passes k / k_nn
