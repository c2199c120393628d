"""The SQLite score cache at corpus scale (issue 21): 1M and 10M entries. One run, one file.

The cache is filled through ``SQLiteCache.put_scores`` in bulk batches (10,000 pairs per
transaction) up to each size; at each size we measure, through the engine's own calls:

- inserts/s with the engine's batch size (32 pairs per transaction, one commit per batch, as
  ``ScoringEngine.score`` commits) and with bulk batches (10,000);
- lookups/s of ``get_scores`` on 10,000 keys per call (all hits; all misses);
- bytes per entry on disk (database + WAL after a checkpoint).

>= 3 reps each, min and median; the ratio 10M / 1M of each rate is printed at the end.

Usage: flock /tmp/ranklens-heavy.lock python benchmarks/bench_cache_scale.py [--sizes 1000000 10000000] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

FP = "BiEncoderRanker@0123456789abcdef"  # the shape of a real fingerprint


def keys(rng: np.random.Generator, n: int) -> list[tuple[bytes, bytes]]:
    raw = rng.bytes(64 * n)
    return [(raw[i:i + 32], raw[i + 32:i + 64]) for i in range(0, 64 * n, 64)]


def fill(cache, rng, n: int, sample: list, every: int = 50) -> float:
    t0 = time.perf_counter()
    done = 0
    while done < n:
        m = min(10_000, n - done)
        ks = keys(rng, m)
        cache.put_scores(FP, [(q, t, float(i)) for i, (q, t) in enumerate(ks)])
        sample.extend(ks[::every])
        done += m
    return n / (time.perf_counter() - t0)


def rates(cache, rng, sample: list, reps: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"insert_b32": [], "insert_b10k": [], "lookup_hit": [], "lookup_miss": []}
    for _ in range(reps):
        ks = keys(rng, 32 * 100)
        t0 = time.perf_counter()
        for i in range(0, len(ks), 32):
            cache.put_scores(FP, [(q, t, 1.0) for q, t in ks[i:i + 32]])
        out["insert_b32"].append(len(ks) / (time.perf_counter() - t0))
        sample.extend(ks[::50])
        ks = keys(rng, 10_000)
        t0 = time.perf_counter()
        cache.put_scores(FP, [(q, t, 1.0) for q, t in ks])
        out["insert_b10k"].append(len(ks) / (time.perf_counter() - t0))
        sample.extend(ks[::50])
        hits = [sample[i] for i in rng.choice(len(sample), min(10_000, len(sample)), replace=False)]
        t0 = time.perf_counter()
        found = cache.get_scores(FP, hits)
        out["lookup_hit"].append(len(hits) / (time.perf_counter() - t0))
        if len(found) != len(hits):
            raise SystemExit(f"lookup found {len(found)} of {len(hits)} inserted keys")
        miss = keys(rng, 10_000)
        t0 = time.perf_counter()
        found = cache.get_scores(FP, miss)
        out["lookup_miss"].append(len(miss) / (time.perf_counter() - t0))
        if found:
            raise SystemExit("random keys were found")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", default=None, help="where the cache file is written (default: a temp dir)")
    args = ap.parse_args()
    from ranklens.engine import SQLiteCache

    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        cache = SQLiteCache(Path(tmp))
        sample: list = []
        have = 0
        results = {}
        for size in sorted(args.sizes):
            rate = fill(cache, rng, size - have, sample)
            have = size
            r = rates(cache, rng, sample, args.reps)
            have += args.reps * (3200 + 10_000)
            conn = cache._conn()
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            disk = sum(f.stat().st_size for f in Path(tmp).glob("cache.sqlite*"))
            results[size] = {k: (min(v), statistics.median(v)) for k, v in r.items()}
            print(f"{have:>11,} entries: bulk fill {rate:,.0f} inserts/s | "
                  + " | ".join(f"{k} min {v[0]:,.0f}/s median {v[1]:,.0f}/s" for k, v in results[size].items())
                  + f" | {disk / have:.1f} bytes/entry ({disk / 2**20:,.0f} MiB)", flush=True)
        if len(results) > 1:
            lo, hi = min(results), max(results)
            print(f"ratio {hi:,} / {lo:,} entries (median rates): "
                  + ", ".join(f"{k} {results[hi][k][1] / results[lo][k][1]:.2f}" for k in results[lo]))
        cache.close()
    print(f"pid {os.getpid()} done")


if __name__ == "__main__":
    main()
