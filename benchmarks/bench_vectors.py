"""The vector store (issue 22, item 4): embeddings stored once, bytes per vector, write and read
speed, against the floor measured in the same run (harness: ``_harness.py``).

    python benchmarks/bench_vectors.py              # 1M x 384 (1.5 GB on disk under $TMPDIR)
    python benchmarks/bench_vectors.py --n 200000   # quicker

1. Cold write of N x 384 float32 vectors through the engine's cache (``SQLiteCache.put_vectors``
   -> ``VectorStore.put``) in batches of 1,024, vs. the floor: writing the same rows to one
   ``.npy`` file. Bytes on disk per vector vs. the raw 1,536 bytes (goal <= 1.1x), inserts/s.
2. Reads: ``get`` of 100k random hashes (lookups/s) and a full ``view`` gathered block by block
   (what the N2O search does) vs. reading the ``.npy`` memmap in the same blocks.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import compare_calls as compare, ratio  # noqa: E402


def _bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    from ranklens.engine import SQLiteCache

    n, d = args.n, args.dim
    rng = np.random.default_rng(0)
    hashes = [hashlib.sha256(f"sentence {i}".encode()).digest() for i in range(n)]
    vecs = rng.standard_normal((n, d), dtype=np.float32)
    raw = n * d * 4
    print(f"# vector store: {n} x {d} float32 (raw {raw / 2**20:.0f} MiB), batches of 1024")
    with tempfile.TemporaryDirectory(prefix="bench-vectors-") as tmp:
        tmp = Path(tmp)
        cache = SQLiteCache(tmp / "cache")
        t = time.perf_counter()
        for s in range(0, n, 1024):
            cache.put_vectors("bench@1", list(zip(hashes[s : s + 1024], vecs[s : s + 1024])))
        t_store = time.perf_counter() - t
        t = time.perf_counter()
        np.save(tmp / "floor.npy", vecs)
        os.sync()
        t_npy = time.perf_counter() - t
        store = cache.vector_store
        store.close()
        conn = sqlite3.connect(store.index_path)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        size = _bytes(store.root)
        print(f"cold write: store {t_store:.1f} s ({n / t_store:,.0f} vectors/s) vs np.save floor {t_npy:.1f} s "
              f"-> {t_store / t_npy:.2f}x")
        print(f"bytes per vector: {size / n:,.0f} (raw {d * 4:,}) -> {size / raw:.3f}x raw (goal <= 1.1); "
              f"index {store.index_path.stat().st_size / n:.1f} B/vector")
        pick = [hashes[i] for i in rng.choice(n, min(n, 100_000), replace=False)]
        t = time.perf_counter()
        got = cache.get_vectors("bench@1", pick)
        t_get = time.perf_counter() - t
        assert len(got) == len(pick)
        print(f"get {len(pick):,} random hashes: {t_get:.2f} s ({len(pick) / t_get:,.0f} lookups/s)")
        view = store.view("bench@1", hashes)
        floor = np.load(tmp / "floor.npy", mmap_mode="r")

        def blocks(x):
            acc = 0.0
            for s in range(0, n, 65536):
                acc += float(np.asarray(x[s : s + 65536])[:, 0].sum())
            return acc

        assert np.array_equal(np.asarray(view[:1000]), vecs[:1000])
        times = compare({"store view, blocks of 65,536 (N2O read path)": lambda: blocks(view),
                         "floor: .npy memmap, same blocks (copied)": lambda: blocks(
                             type("C", (), {"__getitem__": lambda self, k: np.array(floor[k])})())},
                        reps=args.reps)
        ratio(times, "store view, blocks of 65,536 (N2O read path)", "floor: .npy memmap, same blocks (copied)")


if __name__ == "__main__":
    main()
