"""k-NN and N2O speed, with ratios against peers measured in the same run (harness: ``_harness.py``).

    python benchmarks/bench_knn.py            # 1M x 384 (about 5 GB RAM); --n 200000 for a quick run

1. Exact cosine k-NN, 100 queries, k = 50, over N x 384 float32 vectors (issue 22, item 5):
   ranklens ``exact_knn(metric="cosine")`` on vectors normalised once (``UnitRows``: what the
   N2O searches) vs. FAISS ``IndexFlatIP`` on the same normalised vectors (BLAS threshold 1;
   goal <= 1.1x); also ranklens on raw vectors (normalising every block: the old path), the
   inner-product path, the numpy and torch backends, and a plain blocked numpy peer.
2. The whole N2O pipeline for 6 embedders over 100k "sentences" from cached (memory-mapped)
   embeddings: k = 50, 5 samples x 100 queries, all 15 pairs (goal < 60 s). The vectors are
   synthetic low-rank + noise (speed does not depend on the values).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import compare_calls as compare, ratio  # noqa: E402


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
    ap.add_argument("--skip-n2o", action="store_true")
    args = ap.parse_args()

    from ranklens.search import UnitRows, exact_knn, l2_normalize

    rng = np.random.default_rng(0)
    print(f"# exact cosine kNN: {args.n} x 384 float32, 100 queries, k=50; {args.reps} reps, alternating order")
    raw = rng.standard_normal((args.n, 384), dtype=np.float32) * rng.uniform(0.5, 2, (args.n, 1)).astype(np.float32)
    unit = UnitRows(l2_normalize(raw))  # normalised once, as the N2O stores them
    q_raw = rng.standard_normal((100, 384), dtype=np.float32)
    q = l2_normalize(q_raw)
    ref = exact_knn(unit, q_raw, 50)
    cases = {
        "ranklens cosine, normalised once (UnitRows; N2O path)": lambda: exact_knn(unit, q_raw, 50),
        "ranklens inner product on unit vectors": lambda: exact_knn(unit.data, q, 50, metric="ip"),
    }
    try:
        import faiss

        old = faiss.cvar.distance_compute_blas_threshold
        faiss.cvar.distance_compute_blas_threshold = 1
        index = faiss.IndexFlatIP(384)
        index.add(unit.data)
        cases["peer faiss IndexFlatIP (unit vectors, blas threshold 1)"] = lambda: index.search(q, 50)
        _, fi = index.search(q, 50)
        agree = np.mean([len(np.intersect1d(a, b)) / 50 for a, b in zip(fi, ref.indices)])
        print(f"faiss vs ranklens neighbour agreement: {agree:.4f}")
    except ImportError:
        faiss = None
    times = compare(cases, reps=args.reps)
    if faiss is not None:
        ratio(times, "ranklens cosine, normalised once (UnitRows; N2O path)",
              "peer faiss IndexFlatIP (unit vectors, blas threshold 1)", goal=1.1)
        ratio(times, "ranklens inner product on unit vectors", "peer faiss IndexFlatIP (unit vectors, blas threshold 1)")
        faiss.cvar.distance_compute_blas_threshold = old
        index = None
    # the other paths, once more against the same peer set (slower: fewer of them per run)
    more = {"ranklens cosine on raw vectors (normalises every block)": lambda: exact_knn(raw, q_raw, 50),
            "ranklens numpy backend (unit)": lambda: exact_knn(unit, q_raw, 50, backend="numpy"),
            "peer numpy blocked (no ties/exclusions)": lambda: plain_numpy(unit.data, q, 50)}
    try:
        import torch  # noqa: F401

        more["ranklens torch backend (unit)"] = lambda: exact_knn(unit, q_raw, 50, backend="torch")
    except ImportError:
        pass
    more["ranklens cosine, normalised once (UnitRows; N2O path)"] = cases[
        "ranklens cosine, normalised once (UnitRows; N2O path)"]
    t2 = compare(more, reps=args.reps)
    ratio(t2, "ranklens cosine on raw vectors (normalises every block)",
          "ranklens cosine, normalised once (UnitRows; N2O path)")
    assert np.array_equal(exact_knn(unit, q_raw, 50, backend="numpy").indices, ref.indices)
    print(f"blocked search extra memory: 100 x 65536 x 4 B = {100 * 65536 * 4 / 2**20:.0f} MiB per block "
          f"(vs {100 * args.n * 4 / 2**20:.0f} MiB for the full query x corpus matrix)")
    raw = unit = None  # free the corpus before the N2O part
    if args.skip_n2o:
        return

    # ---------------------------------------------------------------- N2O pipeline from memmaps
    from ranklens.neighbors.n2o import n2o_per_sample
    from ranklens.neighbors.search import corpus_neighbors, sample_queries

    n = args.n2o_n
    print(f"\n# N2O matrix: 6 embedders x {n} x 384 memory-mapped, k=50, 5 x 100 queries")
    base = rng.standard_normal((n, 32), dtype=np.float32)
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for e in range(6):
            w = rng.standard_normal((32, 384), dtype=np.float32)
            x = base @ w + (0.5 + 0.2 * e) * rng.standard_normal((n, 384), dtype=np.float32)
            p = os.path.join(d, f"e{e}.npy")
            np.save(p, l2_normalize(x))
            paths.append(p)
            del x
        t0 = time.perf_counter()
        samples = sample_queries(n, 100, 5, 0)
        union, inverse = np.unique(np.concatenate(samples), return_inverse=True)
        positions = np.split(inverse, np.cumsum([len(s) for s in samples])[:-1])
        nn = {}
        for e, p in enumerate(paths):
            vecs = UnitRows(np.load(p, mmap_mode="r"))  # stored normalised (the N2O's unit vectors)
            nn[f"e{e}"] = corpus_neighbors(vecs, union, 50)[0].indices
        per = n2o_per_sample(nn, positions, 50)
        total = time.perf_counter() - t0
        print(per.groupby(["model", "other_model"])["n2o"].mean().round(3).head(5).to_string())
        print(f"N2O matrix, 6 embedders x {n} cached: {total:.1f} s (goal < 60 s)")


if __name__ == "__main__":
    main()
