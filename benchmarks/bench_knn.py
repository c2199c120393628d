"""k-NN and N2O speed, with ratios against peers measured in the same run.

    python benchmarks/bench_knn.py            # 1M x 384 (about 3 GB RAM); --n 200000 for a quick run

1. Exact k-NN, 100 queries, k = 50, over N x 384 float32 unit vectors: ranklens ``exact_knn``
   (default "auto" = FAISS's BLAS k-NN per block when installed; numpy and torch backends)
   vs. the faster of FAISS ``IndexFlatIP`` (BLAS threshold lowered) and
   a plain blocked numpy matmul + argpartition. Ratio = ranklens / best peer (goal <= 1.2).
   Extra memory of the blocked search: n_queries x block_size floats (printed).
2. The whole N2O pipeline for 6 embedders over 100k "sentences" from cached (memory-mapped)
   embeddings: k = 50, 5 samples x 100 queries, all 15 pairs (goal < 60 s). The vectors are
   synthetic low-rank + noise (speed does not depend on the values).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np


def med(fn, reps):
    ts = []
    out = None
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts)), out


def plain_numpy(c, q, k, block=65536):
    """Peer: the textbook blocked matmul + argpartition (no tie handling, no exclusion)."""
    best_s = np.full((len(q), 0), -np.inf, np.float32)
    best_i = np.zeros((len(q), 0), np.int64)
    for s in range(0, len(c), block):
        sims = q @ c[s : s + block].T
        part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        best_s = np.concatenate([best_s, np.take_along_axis(sims, part, 1)], 1)
        best_i = np.concatenate([best_i, part + s], 1)
        top = np.argpartition(-best_s, k - 1, axis=1)[:, :k]
        best_s = np.take_along_axis(best_s, top, 1)
        best_i = np.take_along_axis(best_i, top, 1)
    o = np.argsort(-best_s, 1)
    return np.take_along_axis(best_i, o, 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--n2o-n", type=int, default=100_000)
    args = ap.parse_args()

    from ranklens.neighbors.knn import exact_knn, l2_normalize

    rng = np.random.default_rng(0)
    print(f"# exact kNN: {args.n} x 384 float32, 100 queries, k=50, median of {args.reps}")
    c = rng.standard_normal((args.n, 384), dtype=np.float32)
    c /= np.linalg.norm(c, axis=1, keepdims=True)
    q = l2_normalize(rng.standard_normal((100, 384), dtype=np.float32))
    times = {}
    plain_numpy(c[:200_000], q, 50)  # warm up BLAS threads and page in memory before timing
    t, ref = med(lambda: exact_knn(c, q, 50, metric="ip"), args.reps)
    times["ranklens auto (faiss blocks if installed)"] = t
    t, res_n = med(lambda: exact_knn(c, q, 50, metric="ip", backend="numpy"), args.reps)
    times["ranklens numpy"] = t
    assert np.array_equal(res_n.indices, ref.indices)
    try:
        import torch  # noqa: F401

        t, res_t = med(lambda: exact_knn(c, q, 50, metric="ip", backend="torch"), args.reps)
        times["ranklens torch"] = t
        assert np.array_equal(res_t.indices, ref.indices)
    except ImportError:
        pass
    t, peer_np = med(lambda: plain_numpy(c, q, 50), args.reps)
    times["peer numpy blocked"] = t
    try:
        import faiss

        faiss.cvar.distance_compute_blas_threshold = 1
        index = faiss.IndexFlatIP(384)
        index.add(c)
        t, (_, fi) = med(lambda: index.search(q, 50), args.reps)
        times["peer faiss IndexFlatIP (blas threshold 1)"] = t
        agree = np.mean([len(np.intersect1d(a, b)) / 50 for a, b in zip(fi, ref.indices)])
        print(f"faiss vs ranklens neighbour agreement: {agree:.4f}")
        index = None
    except ImportError:
        pass
    agree = np.mean([len(np.intersect1d(a, b)) / 50 for a, b in zip(peer_np, ref.indices)])
    print(f"numpy peer vs ranklens neighbour agreement: {agree:.4f}")
    for k, v in times.items():
        print(f"{k:45s} {v * 1000:8.0f} ms")
    peers = {k: v for k, v in times.items() if k.startswith("peer")}
    best = min(peers, key=peers.get)
    for k in ("ranklens auto (faiss blocks if installed)", "ranklens numpy", "ranklens torch"):
        if k in times:
            print(f"RATIO {k} / {best}: {times[k] / peers[best]:.2f}x (goal <= 1.2)")
    print(f"blocked search extra memory: 100 x 65536 x 4 B = {100 * 65536 * 4 / 2**20:.0f} MiB per block "
          f"(vs {100 * args.n * 4 / 2**20:.0f} MiB for the full query x corpus matrix)")
    c = None  # free the corpus before the N2O part

    # ---------------------------------------------------------------- N2O pipeline from memmaps
    from ranklens.neighbors.analysis import corpus_neighbors, n2o_per_sample, sample_queries

    n = args.n2o_n
    print(f"\n# N2O matrix: 6 embedders x {n} x 384 memory-mapped, k=50, 5 x 100 queries")
    base = rng.standard_normal((n, 32), dtype=np.float32)
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for e in range(6):
            w = rng.standard_normal((32, 384), dtype=np.float32)
            x = base @ w + (0.5 + 0.2 * e) * rng.standard_normal((n, 384), dtype=np.float32)
            p = os.path.join(d, f"e{e}.npy")
            np.save(p, x.astype(np.float32))
            paths.append(p)
            del x
        t0 = time.perf_counter()
        samples = sample_queries(n, 100, 5, 0)
        union, inverse = np.unique(np.concatenate(samples), return_inverse=True)
        positions = np.split(inverse, np.cumsum([len(s) for s in samples])[:-1])
        nn = {}
        for e, p in enumerate(paths):
            vecs = np.load(p, mmap_mode="r")
            nn[f"e{e}"] = corpus_neighbors(vecs, union, 50)[0].indices
        per = n2o_per_sample(nn, positions, 50)
        total = time.perf_counter() - t0
        print(per.groupby(["embedder_a", "embedder_b"])["n2o"].mean().round(3).head(5).to_string())
        print(f"N2O matrix, 6 embedders x {n} cached: {total:.1f} s (goal < 60 s)")


if __name__ == "__main__":
    main()
