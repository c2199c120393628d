"""Ray dispatcher vs the local dispatcher on one machine (issue 21). Ratios measured in one run.

1. MiniLM (the ``minilm`` bi-encoder ranker) on N (query, passage) pairs of NPL (50 queries x
   100 distinct passages each: no pair or passage repeats, so neither side gains from dedupe):
   the local dispatcher with torch on T threads vs Ray with T single-threaded actors.
   Ratio = local time / Ray time (goal >= 0.9: Ray costs at most 10 % on one machine).
2. Ray's overhead per batch: a model that does nothing (scores 0), B batches of 32 pairs,
   (Ray time - local time) / B, with T actors; and the round-trip latency of one batch with one
   actor and one batch in flight.

Warm-up first (models loaded in the driver and in every actor), then alternating order, >= 3
reps, min and median; every rep scores through a fresh in-memory cache.

Usage: flock /tmp/ranklens-heavy.lock python benchmarks/bench_ray.py [--pairs 5000] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np
from _harness import data_root

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def npl_pairs(shared: Path, n_pairs: int, per_query: int = 100) -> tuple[list[str], list[str]]:
    docs = [json.loads(line)["text"] for line in (shared / "npl/derived/docs.jsonl").open()]
    docs = [d for d in docs if d.strip()]
    queries = [line.split("\t", 1)[1].strip() for line in (shared / "npl/derived/queries.tsv").open()][1:]
    rng = np.random.default_rng(0)
    order = rng.permutation(len(docs))
    n_q = -(-n_pairs // per_query)
    if n_q > len(queries) or n_q * per_query > len(docs):
        raise SystemExit(f"NPL has {len(queries)} queries and {len(docs)} docs: too few for {n_pairs} pairs")
    qs, ts = [], []
    for i in range(n_q):
        for j in order[i * per_query:(i + 1) * per_query]:
            qs.append(queries[i])
            ts.append(docs[j])
    return qs[:n_pairs], ts[:n_pairs]


def zero_scores(queries, texts):
    return np.zeros(len(queries))


def timed(engine_factory, ranker, qs, ts) -> tuple[float, np.ndarray]:
    engine = engine_factory()
    t0 = time.perf_counter()
    out = engine.score(ranker, qs, ts)
    return time.perf_counter() - t0, out


def compare(name, local, remote, ranker, qs, ts, reps) -> tuple[list[float], list[float]]:
    tl, tr = [], []
    ref = None
    for rep in range(reps):
        for side in (("local", "ray") if rep % 2 == 0 else ("ray", "local")):
            t, out = timed(local if side == "local" else remote, ranker, qs, ts)
            (tl if side == "local" else tr).append(t)
            if ref is None:
                ref = out
            elif not np.allclose(out, ref, rtol=1e-5, atol=1e-6):
                raise SystemExit(f"{name}: {side} scores differ from the first run")
    print(f"{name}: local min {min(tl):.2f} s median {statistics.median(tl):.2f} s | "
          f"ray min {min(tr):.2f} s median {statistics.median(tr):.2f} s | "
          f"ratio local/ray (min) {min(tl) / min(tr):.3f} (median) {statistics.median(tl) / statistics.median(tr):.3f}")
    return tl, tr


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=5000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--overhead-batches", type=int, default=400)
    ap.add_argument("--worker-niceness", type=int, default=0, help="Ray workers' nice value (Ray's default: 15)")
    ap.add_argument("--shared", "--data-dir", dest="shared", default=None, help="data root (default: $RANKLENS_DATA)")
    args = ap.parse_args()
    import ray
    import torch

    from ranklens.engine import ScoringEngine
    from ranklens.engine.ray import RayDispatcher
    from ranklens.rankers.base import FunctionRanker
    from ranklens.specs import build_model

    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    # as RayDispatcher starts a local Ray: workers at the driver's priority (Ray's default is nice 15)
    ray.init(num_cpus=args.threads, include_dashboard=False, log_to_driver=False,
             _system_config={"worker_niceness": args.worker_niceness})
    print(f"ray {ray.__version__} started in {time.perf_counter() - t0:.1f} s; torch {torch.__version__}, "
          f"local threads {torch.get_num_threads()}, {args.threads} single-threaded actors (nice "
          f"{args.worker_niceness}), cpus {os.cpu_count()}")
    qs, ts = npl_pairs(data_root(args.shared), args.pairs)
    print(f"pairs {len(qs)}: distinct queries {len(set(qs))}, distinct passages {len(set(ts))}")
    disp = RayDispatcher(actors=args.threads, threads_per_actor=1)

    def local():
        return ScoringEngine(cache=False, show_progress=False)

    def remote():
        return ScoringEngine(cache=False, dispatcher=disp, show_progress=False)

    ranker = build_model("minilm", "ranker")
    bs = getattr(ranker, "batch_size", 32)
    warm_q, warm_t = qs[: bs * args.threads * 2], ts[: bs * args.threads * 2]
    for f in (local, remote):  # loads the model here and in every actor
        f().score(ranker, warm_q, warm_t)
    print(f"minilm batch size {bs}: {-(-len(qs) // bs)} batches; nice: driver {os.nice(0)}, actors "
          f"{[int(Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()[16]) for pid in disp.actor_pids()]} "
          "(equal values: a fair comparison on a loaded machine)")
    compare(f"minilm {len(qs)} pairs", local, remote, ranker, qs, ts, args.reps)

    n = args.overhead_batches * 32
    zq = [f"q{i}" for i in range(n)]
    zt = [f"t{i}" for i in range(n)]
    zero = FunctionRanker(fn=zero_scores, batch_size=32)
    for f in (local, remote):
        f().score(zero, zq[:256], zt[:256])
    tl, tr = compare(f"no-op model {args.overhead_batches} batches", local, remote, zero, zq, zt, args.reps)
    per = (min(tr) - min(tl)) / args.overhead_batches * 1000
    print(f"ray overhead per batch ({args.threads} actors, in flight 2 each): {per:.2f} ms (min); "
          f"{(statistics.median(tr) - statistics.median(tl)) / args.overhead_batches * 1000:.2f} ms (median)")
    disp.close()  # frees its CPUs for the one-actor pool
    one = RayDispatcher(actors=1, in_flight=1)
    lat_engine = ScoringEngine(cache=False, dispatcher=one, show_progress=False)
    lat_engine.score(zero, zq[:64], zt[:64])
    lat = []
    for _ in range(args.reps):
        e = ScoringEngine(cache=False, dispatcher=one, show_progress=False)
        t0 = time.perf_counter()
        e.score(zero, zq[:3200], zt[:3200])
        lat.append((time.perf_counter() - t0) / 100 * 1000)
    print(f"ray round trip per batch (1 actor, 1 in flight): min {min(lat):.2f} ms median {statistics.median(lat):.2f} ms")
    one.close()


if __name__ == "__main__":
    main()
