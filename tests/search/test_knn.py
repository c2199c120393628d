from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.errors import ValidationError
from ranklens.search.faiss import build_hnsw, build_ivf, default_nlist, faiss_knn, hnsw_knn, ivf_knn
from ranklens.search.knn import exact_knn, recall_at_k
from ranklens.search.rows import UnitRows, l2_normalize


def brute_force(corpus, queries, k, exclude=None, metric="cosine"):
    """Slow reference: full similarity matrix, full sort by (score desc, index asc)."""
    c = l2_normalize(corpus) if metric == "cosine" else np.asarray(corpus, np.float32)
    q = l2_normalize(queries) if metric == "cosine" else np.asarray(queries, np.float32)
    s = q.astype(np.float64) @ c.T.astype(np.float64)
    out = []
    for r in range(len(q)):
        cand = [j for j in range(len(c)) if not exclude or j not in exclude[r]]
        cand.sort(key=lambda j: (-s[r, j], j))
        # a zero-vector query has no neighbours (every similarity would be 0)
        out.append([-1] * len(cand[:k]) if not np.any(q[r]) else cand[:k])
    return np.array(out)


@pytest.mark.parametrize("block_size", [1, 7, 50, 10_000])
def test_exact_matches_brute_force(block_size):
    rng = np.random.default_rng(0)
    c = rng.normal(size=(123, 8)).astype(np.float32)
    q = rng.normal(size=(9, 8)).astype(np.float32)
    excl = [[i, i + 1] for i in range(9)]
    res = exact_knn(c, q, 10, block_size=block_size, exclude=excl)
    np.testing.assert_array_equal(res.indices, brute_force(c, q, 10, excl))
    assert np.all(np.diff(res.scores, axis=1) <= 0)
    assert not np.isin(res.indices[0], [0, 1]).any()


def test_ties_broken_by_lower_index_across_blocks():
    # many identical vectors: every similarity ties; the lowest indices must win
    c = np.ones((40, 4), np.float32)
    c[5] = [-1, -1, -1, -1]
    q = np.ones((2, 4), np.float32)
    res = exact_knn(c, q, 6, block_size=7, exclude=[[0], []])
    assert res.indices[0].tolist() == [1, 2, 3, 4, 6, 7]
    assert res.indices[1].tolist() == [0, 1, 2, 3, 4, 6]


def test_zero_vectors_have_similarity_zero():
    c = np.array([[0, 0], [1, 0], [-1, 0]], np.float32)
    res = exact_knn(c, np.array([[1, 0]], np.float32), 3)
    assert res.indices[0].tolist() == [1, 0, 2]
    np.testing.assert_allclose(res.scores[0], [1, 0, -1])


@pytest.mark.parametrize("metric", ["cosine", "ip"])
def test_zero_vector_query_has_no_neighbours(metric):
    # a query with no known token (all-zero embedding) used to get corpus rows 0..k-1
    rng = np.random.default_rng(7)
    c = l2_normalize(rng.normal(size=(50, 4)))
    q = np.vstack([np.zeros(4, np.float32), c[3]])
    for block_size, qbs in [(65_536, 1024), (7, 1)]:
        res = exact_knn(c, q, 5, metric=metric, block_size=block_size, query_block_size=qbs)
        assert res.indices[0].tolist() == [-1] * 5
        assert np.isneginf(res.scores[0]).all()
        assert res.indices[1, 0] == 3  # other queries are unaffected


def test_zero_vector_query_faiss_has_no_neighbours():
    pytest.importorskip("faiss")
    rng = np.random.default_rng(8)
    c = rng.normal(size=(60, 8)).astype(np.float32)
    q = np.vstack([np.zeros(8, np.float32), c[4]])
    assert faiss_knn(c, q, 5).indices[0].tolist() == [-1] * 5
    assert hnsw_knn(build_hnsw(c), q, 5).indices[0].tolist() == [-1] * 5
    np.testing.assert_array_equal(faiss_knn(c, q, 5).indices, exact_knn(c, q, 5).indices)


def test_k_larger_than_eligible_pads_with_minus_one():
    c = np.eye(3, dtype=np.float32)
    res = exact_knn(c, c[:1], 3, exclude=[[0]])
    assert res.indices[0].tolist()[:2] == [1, 2]
    assert res.indices[0, 2] == -1


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 60), k=st.integers(1, 12), bs=st.integers(1, 70), seed=st.integers(0, 10_000),
       discrete=st.booleans())
def test_exact_property(n, k, bs, seed, discrete):
    rng = np.random.default_rng(seed)
    c = rng.integers(-2, 3, size=(n, 3)).astype(np.float32) if discrete else rng.normal(size=(n, 3)).astype(np.float32)
    q = c[:2]
    excl = [[0], [1]]
    res = exact_knn(c, q, k, block_size=bs, exclude=excl, metric="ip")
    ref = brute_force(c, q, min(k, n), excl, metric="ip")
    kk = min(k, n - 1)
    # discrete vectors create many exact ties: the order must still match (score desc, index asc)
    np.testing.assert_array_equal(res.indices[:, :kk], ref[:, :kk])


def test_torch_backend_equals_numpy():
    pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    c = rng.normal(size=(200, 16)).astype(np.float32)
    q = rng.normal(size=(5, 16)).astype(np.float32)
    a = exact_knn(c, q, 7, block_size=33)
    b = exact_knn(c, q, 7, block_size=33, backend="torch")
    np.testing.assert_array_equal(a.indices, b.indices)


def test_memmap_corpus(tmp_path):
    rng = np.random.default_rng(2)
    c = rng.normal(size=(300, 8)).astype(np.float32)
    path = tmp_path / "c.npy"
    np.save(path, c)
    mm = np.load(path, mmap_mode="r")
    q = c[:4]
    np.testing.assert_array_equal(exact_knn(mm, q, 5, block_size=64).indices, exact_knn(c, q, 5).indices)


def test_faiss_flat_equals_exact():
    pytest.importorskip("faiss")
    rng = np.random.default_rng(3)
    c = rng.normal(size=(500, 32)).astype(np.float32)
    q = c[:20]
    excl = [[i] for i in range(20)]
    np.testing.assert_array_equal(faiss_knn(c, q, 10, exclude=excl).indices,
                                  exact_knn(c, q, 10, exclude=excl).indices)
    import faiss

    # the BLAS threshold is set for the duration of a call only: the process's setting is unchanged
    assert faiss.cvar.distance_compute_blas_threshold == 128000


def test_hnsw_recall_on_clustered_data():
    pytest.importorskip("faiss")
    rng = np.random.default_rng(4)
    centers = rng.normal(size=(20, 16))
    c = (centers[rng.integers(0, 20, 2000)] + 0.3 * rng.normal(size=(2000, 16))).astype(np.float32)
    q = c[:50]
    excl = [[i] for i in range(50)]
    exact = exact_knn(c, q, 10, exclude=excl)
    approx = hnsw_knn(build_hnsw(c, M=16, ef_construction=80), q, 10, ef_search=200, exclude=excl)
    assert recall_at_k(approx.indices, exact.indices) > 0.9
    assert not np.any(approx.indices == np.arange(50)[:, None])


def _clustered(seed=4, n=2000, d=16, n_centers=20):
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(n_centers, d))
    return (centers[rng.integers(0, n_centers, n)] + 0.3 * rng.normal(size=(n, d))).astype(np.float32)


def test_hnsw_default_parameters_recall_by_difference_with_exact():
    """The defaults (M 32, efConstruction 200, efSearch 256) on held-out in-distribution queries."""
    pytest.importorskip("faiss")
    c = _clustered(seed=9)
    q = c[:50]
    excl = [[i] for i in range(50)]
    exact = exact_knn(c, q, 10, exclude=excl)
    assert recall_at_k(hnsw_knn(build_hnsw(c), q, 10, exclude=excl).indices, exact.indices) > 0.95


def test_ivf_recall_and_exactness_by_difference_with_exact():
    pytest.importorskip("faiss")
    c = _clustered()
    q = c[:50]
    excl = [[i] for i in range(50)]
    exact = exact_knn(c, q, 10, exclude=excl)
    index = build_ivf(c, nlist=20)
    assert index.nlist == 20 and index.ntotal == len(c)
    # every list probed: IVF is exhaustive, so its neighbours are the exact ones
    full = ivf_knn(index, q, 10, nprobe=20, exclude=excl)
    assert recall_at_k(full.indices, exact.indices) == 1.0
    np.testing.assert_allclose(np.sort(full.scores, axis=1), np.sort(exact.scores, axis=1), rtol=1e-5, atol=1e-6)
    approx = ivf_knn(index, q, 10, nprobe=4, exclude=excl)
    assert 0.8 < recall_at_k(approx.indices, exact.indices) <= 1.0
    assert not np.any(approx.indices == np.arange(50)[:, None])
    one = ivf_knn(index, q, 10, nprobe=1, exclude=excl)
    assert recall_at_k(one.indices, exact.indices) <= recall_at_k(approx.indices, exact.indices)


def test_ivf_same_index_from_unit_rows_and_raw_rows():
    pytest.importorskip("faiss")
    c = _clustered(seed=3, n=600)
    q = c[:10]
    a = ivf_knn(build_ivf(c, nlist=8), q, 5, nprobe=8)
    b = ivf_knn(build_ivf(UnitRows(l2_normalize(c)), nlist=8), q, 5, nprobe=8)
    assert a.indices.tolist() == b.indices.tolist()
    assert a.indices.tolist() == exact_knn(c, q, 5).indices.tolist()


def test_ivf_zero_query_and_nlist_rules():
    pytest.importorskip("faiss")
    c = _clustered(seed=5, n=400)
    q = np.zeros((1, c.shape[1]), np.float32)
    assert ivf_knn(build_ivf(c, nlist=4), q, 3).indices[0].tolist() == [-1] * 3
    assert default_nlist(1_000_000) == 4000
    assert default_nlist(20_000) == 20_000 // 39  # 39 training points per centroid
    assert default_nlist(10) == 1
    with pytest.raises(ValidationError, match="nlist"):
        build_ivf(c, nlist=0)


def test_recall_at_k_hand_values():
    assert recall_at_k([[1, 2], [3, 4]], [[2, 1], [3, 5]]) == pytest.approx(0.75)
    assert recall_at_k([[1, -1]], [[1, 2]]) == pytest.approx(0.5)
    # a query with no exact neighbour at all (zero vector) has no recall to measure
    assert recall_at_k([[1, 2], [-1, -1]], [[1, 3], [-1, -1]]) == pytest.approx(0.5)
    assert np.isnan(recall_at_k([[-1, -1]], [[-1, -1]]))


def test_errors():
    with pytest.raises(ValidationError):
        exact_knn(np.zeros((3, 2)), np.zeros((1, 3)), 1)
    with pytest.raises(ValidationError):
        exact_knn(np.zeros((3, 2)), np.zeros((1, 2)), 0)
    with pytest.raises(ValidationError):
        exact_knn(np.zeros((3, 2)), np.zeros((1, 2)), 1, exclude=[[0], [1]])


def test_query_blocks_equal_single_block():
    rng = np.random.default_rng(5)
    c = rng.normal(size=(80, 6)).astype(np.float32)
    excl = [[i] for i in range(30)]
    a = exact_knn(c, c[:30], 4, exclude=excl, query_block_size=7, block_size=13)
    b = exact_knn(c, c[:30], 4, exclude=excl)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-6)


def test_faiss_backend_is_exact_under_ties_and_exclusions():
    """The FAISS per-block path gives exactly the numpy result, ties (index ascending) and
    exclusions included, on integer vectors full of ties."""
    pytest.importorskip("faiss")
    rng = np.random.default_rng(1)
    for _ in range(150):
        n, d, m, k = int(rng.integers(5, 200)), int(rng.integers(1, 6)), int(rng.integers(1, 8)), int(rng.integers(1, 12))
        c = rng.integers(-2, 3, (n, d)).astype(np.float32)
        q = rng.integers(-2, 3, (m, d)).astype(np.float32)
        bs = int(rng.integers(1, 60))
        exc = [list(rng.choice(n, size=int(rng.integers(0, 3)), replace=False)) for _ in range(m)]
        a = exact_knn(c, q, k, metric="ip", block_size=bs, exclude=exc, backend="faiss")
        b = exact_knn(c, q, k, metric="ip", block_size=bs, exclude=exc, backend="numpy")
        np.testing.assert_array_equal(a.indices, b.indices)
        np.testing.assert_allclose(a.scores, b.scores)


@pytest.mark.parametrize("block_size", [3, 1000])
def test_sparse_exact_matches_brute_force(block_size):
    import scipy.sparse as sp

    rng = np.random.default_rng(5)
    dense = (rng.random((60, 40)) < 0.1) * rng.integers(1, 4, (60, 40)).astype(np.float32)
    dense[7] = 0  # a zero row: no neighbours as a query, similarity 0 as a candidate
    m = sp.csr_matrix(dense)
    qidx = [0, 7, 13, 59]
    res = exact_knn(m, m[qidx], 6, exclude=[[i] for i in qidx], block_size=block_size)
    for r, q in enumerate(qidx):
        if not dense[q].any():
            assert (res.indices[r] == -1).all()
            continue
        def cos(a, b):
            na, nb = np.linalg.norm(a), np.linalg.norm(b)
            return 0.0 if na == 0 or nb == 0 else float(a @ b / (na * nb))
        sims = [(-cos(dense[q], dense[j]), j) for j in range(60) if j != q]
        expected = [j for _, j in sorted(sims, key=lambda t: (round(t[0], 6), t[1]))[:6]]
        assert res.indices[r].tolist() == expected


def test_faiss_blas_threshold_restored_after_concurrent_searches():
    """Two threads searching at once: the process-wide FAISS setting is lowered while either runs
    and is back to the process's own value (here a custom one) once both have ended."""
    faiss = pytest.importorskip("faiss")
    import threading

    from ranklens.search import faiss as search_faiss

    old = faiss.cvar.distance_compute_blas_threshold
    faiss.cvar.distance_compute_blas_threshold = 777
    try:
        inside = threading.Event()
        release = threading.Event()

        def slow():
            with search_faiss.faiss_blas():
                inside.set()
                release.wait(10)

        t = threading.Thread(target=slow)
        t.start()
        inside.wait(10)
        c = np.random.default_rng(0).standard_normal((300, 8)).astype(np.float32)
        exact_knn(c, c[:3], 4, backend="faiss")  # a second search starts and ends inside the first
        assert faiss.cvar.distance_compute_blas_threshold == 1
        release.set()
        t.join()
        assert faiss.cvar.distance_compute_blas_threshold == 777
    finally:
        faiss.cvar.distance_compute_blas_threshold = old


@pytest.mark.parametrize("backend", ["numpy", "faiss"])
def test_exact_knn_on_stored_unit_vectors_equals_brute_force(tmp_path, backend):
    """A unit view on the vector store (rows gathered from several shards in a scrambled order)
    gives the neighbours of brute-force cosine on the raw vectors."""
    if backend == "faiss":
        pytest.importorskip("faiss")
    import hashlib

    from ranklens.engine.vectors import VectorStore

    rng = np.random.default_rng(3)
    raw = rng.integers(-3, 4, size=(120, 6)).astype(np.float32)  # small integers: many exact ties
    raw[7] = 0
    hs = [hashlib.sha256(str(i).encode()).digest() for i in range(120)]
    store = VectorStore(tmp_path, shard_bytes=4 * 6 * 25)
    perm = rng.permutation(120)
    for s in range(0, 120, 30):
        store.put("m", [hs[i] for i in perm[s : s + 30]], raw[perm[s : s + 30]])
    view = store.view("m", hs, unit=True)
    q = np.arange(0, 120, 11)
    res = exact_knn(view, view[q], 6, exclude=[[int(i)] for i in q], block_size=17, backend=backend)
    nrm = np.linalg.norm(raw.astype(np.float64), axis=1)
    for r, i in enumerate(q):
        if nrm[i] == 0:
            assert (res.indices[r] == -1).all()
            continue
        sims = [(-(round(float(raw[i] @ raw[j]) / (nrm[i] * nrm[j]), 6) if nrm[j] else 0.0), j)
                for j in range(120) if j != i]
        assert res.indices[r].tolist() == [j for _, j in sorted(sims)[:6]]
