"""Audit fixes, each checked against a small obviously-correct reference computed here:

- the tie rule (lower corpus index) holds on every exact backend, FAISS included, for ties at the
  k-th place and for bitwise-identical vectors that a float32 product scores differently;
- popular neighbours default to the 5-nearest neighbourhood (paper Table 2);
- token overlap averages over the N2O matrix's queries (paper Fig. 5).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ranklens.engine import ScoringEngine
from ranklens.search import knn
from ranklens.neighbors.corpus import build_corpus
from ranklens.neighbors.declaration import Params
from ranklens.search.faiss import faiss_knn
from ranklens.search.knn import exact_knn
from ranklens.search.rows import UnitRows, l2_normalize
from ranklens.neighbors.n2o import n2o_matrix
from ranklens.neighbors.search import NeighborSearch, sample_queries
from ranklens.neighbors.tokens import popular_outliers, token_overlap
from ranklens.text import tokenize

EXACT = ["auto", "numpy", "torch", "faiss"]


def ref_knn(x, queries, k, exclude=None):
    """Reference: cosine of the float32 unit vectors summed exactly (math.fsum, so identical
    vectors score identically), full sort by (similarity desc, index asc)."""
    u = [[float(v) for v in row] for row in l2_normalize(x)]
    out = []
    for r, qv in enumerate(l2_normalize(queries)):
        sims = [math.fsum(float(a) * b for a, b in zip(qv, row)) for row in u]
        cand = [j for j in range(len(u)) if not exclude or j not in exclude[r]]
        out.append(sorted(cand, key=lambda j: (-sims[j], j))[:k])
    return np.array(out)


def _search(c, q, k, backend, exclude=None, **kw):
    if backend == "torch":
        pytest.importorskip("torch")
    if backend == "faiss":
        pytest.importorskip("faiss")
    return exact_knn(UnitRows(l2_normalize(c)), q, k, exclude=exclude, backend=backend, **kw)


# ------------------------------------------------------------------ finding 1: FAISS, tie at k-th place
def test_faiss_flat_tie_at_kth_place_goes_to_lower_index():
    pytest.importorskip("faiss")
    a = np.array([[1, 0], [0, 1], [0, 1], [1, 1]], np.float32)  # query 0: row 3, then rows 1 and 2 tie (cos 0)
    ref = ref_knn(a, a[:1], 2, [[0]])
    assert ref.tolist() == [[3, 1]]
    np.testing.assert_array_equal(faiss_knn(a, a[:1], 2, exclude=[[0]]).indices, ref)


@pytest.mark.parametrize("k", [3, 12])  # 12: the tie group is larger than the candidates first asked for
def test_faiss_flat_many_tied_rows_at_kth_place(k):
    pytest.importorskip("faiss")
    rng = np.random.default_rng(0)
    c = rng.normal(size=(200, 16)).astype(np.float32)
    q = rng.normal(size=(3, 16)).astype(np.float32)
    for r in range(3):  # 25 identical rows close to each query, scattered through the corpus
        v = q[r] + 0.3 * rng.normal(size=16).astype(np.float32)
        c[rng.choice(200, size=25, replace=False)] = v
    ref = ref_knn(c, q, k)
    np.testing.assert_array_equal(faiss_knn(c, q, k).indices, ref)


def test_n2o_faiss_backend_follows_the_tie_rule():
    pytest.importorskip("faiss")
    a = np.array([[1, 0], [0, 1], [0, 1], [1, 1]], float)
    b = np.array([[1, 0], [0.1, 1], [-0.1, 1], [1, 1]], float)
    corpus = build_corpus([(f"d{i}", f"sentence number {i}") for i in range(4)], split=False)
    ra, rb = ref_knn(a, a[:1], 2, [[0]]), ref_knn(b, b[:1], 2, [[0]])
    expected = len(set(ra[0]) & set(rb[0])) / 2  # = 1.0
    res = n2o_matrix({"A": a, "B": b}, corpus, k=2, n_queries=1, n_samples=1, pool=[0],
                     search=NeighborSearch(backend="faiss"), n_bootstrap=100, n_resamples=100)
    assert res.table.n2o_mean.tolist() == [expected]


# ------------------------------------------------------------------ finding 2: identical rows, float32 noise
def _duplicates():
    """17 rows, three distinct directions; rows 4, 6, 8, 11, 14, 16 are bitwise copies."""
    a, b, c = (np.array([np.cos(np.deg2rad(t)), np.sin(np.deg2rad(t))]) * s for t, s in ((81, 1), (133, 1), (251, 2)))
    return np.array([{"a": a, "b": b, "c": c}[ch] for ch in "aaabcbcacbacaacbc"])


@pytest.mark.parametrize("backend", EXACT)
def test_identical_rows_tie_on_every_exact_backend(backend):
    x = _duplicates()
    excl = [[i] for i in range(17)]
    ref = ref_knn(x, x, 1, excl)
    assert ref[4].tolist() == [6]
    np.testing.assert_array_equal(_search(x, x, 1, backend, excl).indices, ref)


def test_n2o_auto_identical_rows():
    x = _duplicates()
    rot = np.deg2rad(3)
    y = x.copy()
    y[[8, 11, 14, 16]] = y[[8, 11, 14, 16]] @ np.array([[np.cos(rot), np.sin(rot)], [-np.sin(rot), np.cos(rot)]])
    excl = [[i] for i in range(17)]
    expected = np.mean([len(set(p) & set(q)) for p, q in zip(ref_knn(x, x, 1, excl), ref_knn(y, y, 1, excl))])
    corpus = build_corpus([(f"d{i}", f"s{i}") for i in range(17)], split=False)
    res = n2o_matrix({"A": x, "B": y}, corpus, k=1, n_queries=17, n_samples=1, n_bootstrap=50, n_resamples=50)
    assert res.table.n2o_mean.tolist() == [pytest.approx(expected)]


@pytest.mark.parametrize("k", [2, 15])  # 15: more tied rows (30) at the k-th place than the k + 8 candidates kept
def test_float32_product_noise_does_not_decide_ties(monkeypatch, k):
    """A float32 product may score identical rows a few ulps apart: simulate it on the numpy
    path; the result must still be the reference's (lower index among identical vectors)."""
    rng = np.random.default_rng(5)
    c = rng.normal(size=(120, 6)).astype(np.float32)
    q = rng.normal(size=(4, 6)).astype(np.float32)
    excl = []
    for r in range(4):
        rows = rng.choice(120, size=30, replace=False)
        c[rows] = q[r] + 0.5 * rng.normal(size=6).astype(np.float32)
        excl.append([int(rows.min()), int(rows.max()), 3])  # exclusions inside and outside the tie group
    real = knn.block_similarities
    noise = np.random.default_rng(9)

    def noisy(a, b):
        s = real(a, b)
        return (s * (1 + noise.integers(-4, 5, size=s.shape) * 2.0 ** -24)).astype(np.float32)

    monkeypatch.setattr(knn, "block_similarities", noisy)
    ref = ref_knn(c, q, k, excl)
    res = exact_knn(UnitRows(l2_normalize(c)), q, k, backend="numpy", block_size=37, exclude=excl)
    np.testing.assert_array_equal(res.indices, ref)


# ------------------------------------------------------------------ approximate backends: stated in provenance
def test_tie_rule_in_provenance_exact_vs_approximate():
    pytest.importorskip("faiss")
    rng = np.random.default_rng(0)
    vecs = {"A": rng.normal(size=(60, 4)), "B": rng.normal(size=(60, 4))}
    corpus = build_corpus([(f"d{i}", f"s{i}") for i in range(60)], split=False)
    kw = dict(k=3, n_queries=5, n_samples=1, n_bootstrap=100, n_resamples=100)
    exact = n2o_matrix(vecs, corpus, **kw).provenance.params["tie_break"]
    approx = n2o_matrix(vecs, corpus, search=NeighborSearch(backend="hnsw", n_holdout=0), **kw)
    assert "identical vectors always tie" in exact
    assert "not guaranteed" in approx.provenance.params["tie_break"]


# ------------------------------------------------------------------ finding 3: popular = 5-nearest (paper)
def test_popular_neighbours_default_to_the_5_nearest():
    ang = np.deg2rad(np.arange(12) * 8.0)  # query 0 at 0 degrees, the others 8, 16, ... 88 degrees away
    a = np.stack([np.cos(ang), np.sin(ang)], 1)
    b = a.copy()
    b[1:, 1] *= 1.01  # the same order
    corpus = build_corpus([(f"d{i}", f"sentence number {i}") for i in range(12)], split=False)
    top5 = [set(ref_knn(v, v[:1], 5, [[0]])[0]) for v in (a, b)]
    popular = {corpus.ids[j] for j in set.intersection(*top5)}  # in every embedder's 5-nearest neighbourhood
    assert Params().m == 5
    res = popular_outliers({"A": a, "B": b}, corpus, 0)
    assert res.summary["m"] == 5
    assert set(res.table[res.table.kind == "popular"].corpus_id) == popular


# ------------------------------------------------------------------ finding 4: token overlap over the N2O queries
def test_token_overlap_averages_over_the_n2o_queries():
    rng = np.random.default_rng(0)
    texts = [f"word{i} common w{i % 5} x{i % 7}" for i in range(60)]
    corpus = build_corpus([(f"d{i}", t) for i, t in enumerate(texts)], split=False)
    vecs = {"A": rng.normal(size=(60, 3)), "B": rng.normal(size=(60, 3))}
    k, nq, ns = 5, 10, 5
    queries = sorted({int(i) for s in sample_queries(60, nq, ns, 0) for i in s})  # the N2O matrix's queries
    res = token_overlap(vecs, corpus, k=k, n_queries=nq, n_samples=ns, terms="tokens",
                        engine=ScoringEngine(cache=False))
    m = n2o_matrix(vecs, corpus, k=k, n_queries=nq, n_samples=ns, n_bootstrap=100, n_resamples=100)
    assert m.table.n_queries.tolist() == [len(queries)]

    def jac(a, b):
        sa, sb = set(tokenize(a)), set(tokenize(b))
        return len(sa & sb) / len(sa | sb)

    t = res.table.set_index("model")
    for name, v in vecs.items():
        nn = ref_knn(v, v[queries], k, [[q] for q in queries])
        expected = np.mean([np.mean([jac(texts[q], texts[j]) for j in row]) for q, row in zip(queries, nn)])
        assert t.loc[name, "mean"] == pytest.approx(expected)
        assert t.loc[name, "n_queries"] == len(queries)
