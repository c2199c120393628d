"""BM25 and dense retrieval at corpus scale (issue 21): index time, query time, peak RSS.

Each phase runs in its own process so its peak RSS (``ru_maxrss``) is its own:

- ``bm25-index``: N synthetic passages (MS MARCO-like: 56 words on average, words drawn with a
  Zipf law from the vocabulary of the shared test collections) streamed through
  ``ranklens.rankers.bm25.build_index`` (ranklens's one BM25 analyzer, bm25s index from token ids,
  saved with the scoring statistics);
- ``bm25-query``: ``load_index`` (the bm25s arrays memory-mapped), Q queries of 2-8 words through
  ``BM25Ranker.retrieve_topk`` (top 1,000);
- ``dense-exact``: N unit vectors (d = 384, a mixture of 2,000 Gaussian clusters spread in a
  48-dimensional subspace, so neighbours are meaningful) written to a ``.npy`` memmap chunk by chunk, then exact blocked search of Q
  queries (``search.exact_knn`` over the memmap, top-10), saved as ground truth;
- ``dense-ivf``: ``search.build_ivf`` (FAISS ``IndexIVFFlat``, nlist = ``default_nlist``:
  4 sqrt(N); k-means on max(100k, 39 nlist) sampled rows; added 100k rows at a time) and
  ``ivf_knn``, recall@10 vs exact at several ``nprobe``;
- ``dense-hnsw``: ``search.build_hnsw`` (FAISS HNSW; ranklens's defaults M = 32,
  efConstruction = 200 unless ``--hnsw-m``, ``--hnsw-efc``) over the first ``--hnsw-n`` rows,
  ``hnsw_knn`` recall@10 vs exact (on those rows) at several ``efSearch``.

Queries are held-out perturbations of corpus rows: a row plus Gaussian noise of norm
``--query-noise`` (default 0.3; the vectors have norm 1), renormalised. (Until 2026-11 the noise
was 0.3 *per dimension*, norm ~5.9 against a signal of 1: near-random directions whose top-10
similarities are near ties, e.g. 0.201 / 0.186 / 0.167 at ranks 1 / 10 / 100 on 20k rows. HNSW's
greedy search is weak on such out-of-distribution queries -- recall@10 0.16-0.39 at 1M with FAISS's
M 16 / efConstruction 40; on in-distribution queries the same index reaches 0.995 at efSearch 64
on 20k rows. ``dense-exact`` prints the similarity contrast of the queries.)

Usage: flock /tmp/ranklens-heavy.lock python benchmarks/bench_corpus_scale.py [--n 1000000] [--work DIR]
       [--phases bm25-index bm25-query dense-exact dense-ivf dense-hnsw] [--hnsw-n 1000000]
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from _harness import data_root

SHARED = data_root()
DIM = 384


def rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def vocabulary() -> list[str]:
    """Words of the shared collections, most frequent first (a Zipf law over them)."""
    counts: dict[str, int] = {}
    for name in ("npl", "cacm", "cisi", "cranfield"):
        for line in (SHARED / name / "derived" / "docs.jsonl").open():
            d = json.loads(line)
            for w in re.findall(r"[a-z]+", " ".join(str(d.get(f, "")) for f in ("title", "abstract", "text")).lower()):
                counts[w] = counts.get(w, 0) + 1
    return sorted(counts, key=lambda w: (-counts[w], w))


def passages(n: int, seed: int, chunk: int = 100_000, mean_len: int = 56):
    """``n`` synthetic passages, chunk by chunk (deterministic for a seed)."""
    words = np.array(vocabulary())
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, len(words) + 1) ** 1.07
    p /= p.sum()
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        lengths = np.clip(rng.poisson(mean_len, m), 3, None)
        flat = words[rng.choice(len(words), int(lengths.sum()), p=p)]
        bounds = np.concatenate([[0], np.cumsum(lengths)])
        yield [" ".join(flat[bounds[i]:bounds[i + 1]]) for i in range(m)]


def bm25_index(args) -> dict:
    from ranklens.rankers.bm25 import build_index

    t0 = time.perf_counter()
    out = build_index((t for texts in passages(args.n, 0) for t in texts), Path(args.work) / "bm25")
    t_build = time.perf_counter() - t0
    meta = json.loads((out / "ranklens-bm25.json").read_text())
    disk = sum(f.stat().st_size for f in out.iterdir())
    return {"docs": meta["n_docs"], "avgdl": meta["avgdl"], "build_s": t_build, "disk_mib": disk / 2**20,
            "peak_rss_gib": rss_gib()}


def bm25_query(args) -> dict:
    from ranklens.rankers.bm25 import load_index

    t0 = time.perf_counter()
    ranker = load_index(Path(args.work) / "bm25")
    ranker._index()
    t_load = time.perf_counter() - t0
    rss_loaded = rss_gib()
    texts = next(passages(args.queries, 7, mean_len=5))[: args.queries]
    times = []
    for q in texts:
        t0 = time.perf_counter()
        ranker.retrieve_topk([q], k=1000)
        times.append(time.perf_counter() - t0)
    return {"load_mmap_s": t_load, "rss_after_load_gib": rss_loaded, "queries": len(times),
            "query_ms_median": 1000 * float(np.median(times)), "query_ms_p90": 1000 * float(np.quantile(times, 0.9)),
            "query_ms_min": 1000 * min(times), "peak_rss_gib": rss_gib()}


def _vectors(args) -> Path:
    path = Path(args.work) / f"vectors-{args.n}.npy"
    if path.exists():
        return path
    rng = np.random.default_rng(0)
    centers = rng.standard_normal((2000, DIM)).astype(np.float32)
    basis = (rng.standard_normal((48, DIM)) * 0.05).astype(np.float32)
    out = np.lib.format.open_memmap(path.with_suffix(".tmp.npy"), mode="w+", dtype=np.float32, shape=(args.n, DIM))
    for s in range(0, args.n, 100_000):
        m = min(100_000, args.n - s)
        # clusters with low-dimensional spread (intrinsic dimension ~48, as sentence embeddings)
        spread = rng.standard_normal((m, 48)).astype(np.float32) @ basis
        v = centers[rng.integers(0, len(centers), m)] + spread + 0.1 * rng.standard_normal((m, DIM)).astype(np.float32)
        out[s:s + m] = v / np.linalg.norm(v, axis=1, keepdims=True)
    out.flush()
    del out
    path.with_suffix(".tmp.npy").rename(path)
    return path


def _queries(args, n_rows: int) -> np.ndarray:
    corpus = np.load(_vectors(args), mmap_mode="r")
    rng = np.random.default_rng(5)
    rows = np.sort(rng.choice(n_rows, args.queries, replace=False))
    noise = rng.standard_normal((args.queries, DIM)).astype(np.float32) * (args.query_noise / np.sqrt(DIM))
    q = np.asarray(corpus[rows]) + noise
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)


def dense_exact(args) -> dict:
    from ranklens.search import exact_knn

    t0 = time.perf_counter()
    path = _vectors(args)
    t_write = time.perf_counter() - t0
    corpus = np.load(path, mmap_mode="r")
    q = _queries(args, args.n)
    out = {"vectors": args.n, "dim": DIM, "write_memmap_s": t_write}
    for name, n in (("full", args.n), ("hnsw", args.hnsw_n)):
        if name == "hnsw" and n >= args.n:
            continue
        t0 = time.perf_counter()
        res = exact_knn(corpus[:n], q, 10, metric="ip", block_size=65_536)
        out[f"exact_{name}_s"] = time.perf_counter() - t0
        if name == "full":  # how distinct the true neighbours are: similarity at ranks 1 and 10
            out["sim_rank1_mean"] = float(res.scores[:, 0].mean())
            out["sim_rank10_mean"] = float(res.scores[:, 9].mean())
        np.save(Path(args.work) / f"exact-{n}-{args.query_noise:g}.npy", res.indices)
    out["exact_ms_per_query"] = 1000 * out["exact_full_s"] / len(q)
    out["peak_rss_gib"] = rss_gib()
    return out


def dense_ivf(args) -> dict:
    from ranklens.search import build_ivf, ivf_knn, recall_at_k

    corpus = np.load(_vectors(args), mmap_mode="r")
    t0 = time.perf_counter()
    index = build_ivf(corpus, metric="ip", seed=2)
    t_build = time.perf_counter() - t0
    q = _queries(args, args.n)
    exact = np.load(Path(args.work) / f"exact-{args.n}-{args.query_noise:g}.npy")
    out = {"nlist": index.nlist, "build_s": t_build, "rss_after_build_gib": rss_gib()}
    for nprobe in (8, 32, 128):
        t0 = time.perf_counter()
        res = ivf_knn(index, q, 10, metric="ip", nprobe=nprobe)
        out[f"nprobe{nprobe}_ms_per_query"] = 1000 * (time.perf_counter() - t0) / len(q)
        out[f"nprobe{nprobe}_recall10"] = recall_at_k(res.indices, exact)
    out["peak_rss_gib"] = rss_gib()
    return out


def dense_hnsw(args) -> dict:
    from ranklens.search import build_hnsw, hnsw_knn, recall_at_k

    n = min(args.hnsw_n, args.n)
    corpus = np.load(_vectors(args), mmap_mode="r")
    params = {k: v for k, v in (("M", args.hnsw_m), ("ef_construction", args.hnsw_efc)) if v is not None}
    t0 = time.perf_counter()
    index = build_hnsw(corpus[:n], metric="ip", **params)
    t_build = time.perf_counter() - t0
    q = _queries(args, args.n)
    exact = np.load(Path(args.work) / f"exact-{n}-{args.query_noise:g}.npy")
    out = {"hnsw_n": n, "M": index.hnsw.nb_neighbors(1), "efConstruction": index.hnsw.efConstruction,
           "build_s": t_build}
    for ef in (64, 128, 256):
        t0 = time.perf_counter()
        res = hnsw_knn(index, q, 10, metric="ip", ef_search=ef)
        out[f"ef{ef}_ms_per_query"] = 1000 * (time.perf_counter() - t0) / len(q)
        out[f"ef{ef}_recall10"] = recall_at_k(res.indices, exact)
    out["peak_rss_gib"] = rss_gib()
    return out


PHASES = {"bm25-index": bm25_index, "bm25-query": bm25_query, "dense-exact": dense_exact,
          "dense-ivf": dense_ivf, "dense-hnsw": dense_hnsw}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--hnsw-n", type=int, default=1_000_000)
    ap.add_argument("--hnsw-m", type=int, default=None, help="default: build_hnsw's (32)")
    ap.add_argument("--hnsw-efc", type=int, default=None, help="default: build_hnsw's (200)")
    ap.add_argument("--query-noise", type=float, default=0.3, help="norm of the noise added to a unit row")
    ap.add_argument("--work", default="/tmp/ranklens-corpus-scale")
    ap.add_argument("--phases", nargs="+", default=list(PHASES), choices=list(PHASES))
    ap.add_argument("--one", choices=list(PHASES), help=argparse.SUPPRESS)  # a phase in this process
    args = ap.parse_args()
    Path(args.work).mkdir(parents=True, exist_ok=True)
    if args.one:
        print("RESULT " + json.dumps(PHASES[args.one](args)), flush=True)
        return
    for phase in args.phases:
        cmd = [sys.executable, __file__, "--one", phase, "--n", str(args.n), "--queries", str(args.queries),
               "--hnsw-n", str(args.hnsw_n), "--query-noise", str(args.query_noise), "--work", args.work]
        cmd += [x for flag, v in (("--hnsw-m", args.hnsw_m), ("--hnsw-efc", args.hnsw_efc)) if v is not None
                for x in (flag, str(v))]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
        if proc.returncode or line is None:
            print(f"{phase}: failed ({proc.returncode})\n{proc.stderr[-2000:]}", flush=True)
            continue
        res = json.loads(line[7:])
        print(f"{phase} ({time.perf_counter() - t0:.0f} s wall): "
              + ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in res.items()), flush=True)


if __name__ == "__main__":
    main()
