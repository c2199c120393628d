"""The one tie rule of ranklens.search, pinned against a brute-force reference written here: numpy's
stable argsort of float64 scores, ties to the lower index, on exact ties, near ties (float32 last-bit
noise), zero rows, k >= n and exclusions. Every exact path (``exact_knn`` on numpy, torch and FAISS
blocks, ``faiss_knn``, ``top_k`` and ``top_k_rows`` on score matrices) must agree with it."""

from __future__ import annotations

import numpy as np
import pytest

from ranklens.search import UnitRows, exact_knn, l2_normalize, top_k, top_k_rows


def reference(scores: np.ndarray, k: int, exclude=None) -> tuple[np.ndarray, np.ndarray]:
    """Full stable sort of float64 scores, descending, ties to the lower index; excluded columns
    dropped; rows padded with -1 / -inf when fewer than k remain."""
    n_rows, n = scores.shape
    kk = min(k, n)
    idx = np.full((n_rows, kk), -1, np.int64)
    val = np.full((n_rows, kk), -np.inf)
    for r in range(n_rows):
        keep = np.array([j for j in range(n) if exclude is None or j not in exclude[r]], np.int64)
        order = keep[np.argsort(-scores[r, keep], kind="stable")][:kk]  # stable: equal scores keep index order
        idx[r, : len(order)] = order
        val[r, : len(order)] = scores[r, order]
    return idx, val


def cosine64(corpus: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """float64 cosine of the float32-normalised rows (what the tie rule ranks); zero rows score 0."""
    c = l2_normalize(corpus).astype(np.float64)
    q = l2_normalize(queries).astype(np.float64)
    return q @ c.T


def _tied_corpus(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Small integer vectors (many exact ties), duplicated rows (float32 products differ in the last
    bit by position), scaled copies (near ties after normalisation) and a zero row."""
    rng = np.random.default_rng(seed)
    c = rng.integers(-2, 3, size=(90, 5)).astype(np.float32)
    c[10:20] = c[0]  # ten identical copies of row 0
    c[30:40] = c[1] * np.float32(3.0)  # same direction, other length: cosine ties up to rounding
    c[50] = 0.0
    q = np.vstack([c[0], c[1], rng.integers(-2, 3, size=(6, 5)).astype(np.float32), np.zeros(5, np.float32)])
    return c, q


@pytest.mark.parametrize("k", [1, 5, 12, 90, 200])
@pytest.mark.parametrize("backend", ["numpy", "torch", "faiss"])
def test_exact_knn_equals_the_reference(k, backend):
    if backend == "faiss":
        pytest.importorskip("faiss")
    if backend == "torch":
        pytest.importorskip("torch")
    c, q = _tied_corpus()
    exclude = [[0, 10], [], [3], [], [], [], [], [], [5]]
    res = exact_knn(c, q, k, exclude=exclude, backend=backend, block_size=17)
    ref_i, _ = reference(cosine64(c, q), k, exclude)
    ref_i[np.all(q == 0, axis=1)] = -1  # a zero query has no neighbours (exact_knn's rule for N2O)
    np.testing.assert_array_equal(res.indices, ref_i)


@pytest.mark.parametrize("k", [1, 7, 90, 200])
def test_faiss_knn_equals_the_reference(k):
    pytest.importorskip("faiss")
    from ranklens.search import faiss_knn

    c, q = _tied_corpus(1)
    res = faiss_knn(UnitRows(l2_normalize(c)), l2_normalize(q), k, metric="ip")
    ref_i, _ = reference(cosine64(c, q), k)
    ref_i[np.all(q == 0, axis=1)] = -1
    np.testing.assert_array_equal(res.indices, ref_i)


def test_identical_rows_tie_whatever_their_place_in_the_block():
    """Bitwise-identical corpus rows scored by one float32 product can differ in the last bit; the
    rule still lists them by index."""
    rng = np.random.default_rng(5)
    base = rng.standard_normal((1, 64)).astype(np.float32)
    c = np.vstack([rng.standard_normal((200, 64)).astype(np.float32), np.repeat(base, 40, axis=0)])
    res = exact_knn(UnitRows(l2_normalize(c)), l2_normalize(base), 25, metric="ip", backend="numpy")
    assert res.indices[0].tolist() == list(range(200, 225))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k", [1, 3, 6, 15, 40])
def test_top_k_equals_the_reference(k, dtype):
    rng = np.random.default_rng(2)
    s = rng.integers(0, 4, size=(30, 15)).astype(dtype)  # many exact ties
    s[4] = 0.0  # a row of zeros (a query sharing nothing): the first k
    s[7, 3] = -np.inf
    idx, val = top_k(s, k)
    ref_i, ref_v = reference(s.astype(np.float64), k)
    np.testing.assert_array_equal(idx, ref_i)
    np.testing.assert_array_equal(val, ref_v.astype(dtype))
    assert val.dtype == dtype
    assert idx[4].tolist() == list(range(min(k, 15)))
    before = s.copy()
    top_k(s, k)
    np.testing.assert_array_equal(s, before)  # not overwritten unless asked


@pytest.mark.parametrize("block", [1, 4, 1024])
def test_top_k_rows_equals_the_reference(block):
    rng = np.random.default_rng(3)
    s = np.round(rng.random((23, 40)), 1)  # ties
    idx, val = top_k_rows(lambda a, b: s[a:b], len(s), 6, block=block)
    ref_i, ref_v = reference(s, 6)
    np.testing.assert_array_equal(idx, ref_i)
    np.testing.assert_array_equal(val, ref_v)
    idx0, val0 = top_k_rows(lambda a, b: s[a:b], 0, 6)
    assert idx0.shape == (0, 6) and val0.shape == (0, 6)
