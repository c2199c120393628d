"""Engine overhead benchmark (issue 2). Prints ratios measured in one process.

1. MiniLM scoring of N (query, passage) pairs (Cranfield: 50 queries x 100 passages) through
   ``ScoringEngine`` (fresh cache) vs calling sentence-transformers directly (encode the distinct
   queries and passages, cosine). Goal: ratio <= 1.10.
2. The same run again, fully cached: goal <= 5 % of the first run.
3. bf16 autocast vs fp32 encoding speed-up, and the minimum cosine between their embeddings.

Usage: python benchmarks/bench_engine.py [--pairs 5000] [--shared ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from _harness import data_root

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def load_pairs(shared: Path, n_pairs: int) -> tuple[list[str], list[str]]:
    docs = [json.loads(line) for line in (shared / "cranfield/derived/docs.jsonl").open()]
    texts = [d["text"] for d in docs if d["text"].strip()]
    queries = [line.split("\t")[2].strip() for line in (shared / "cranfield/derived/queries.tsv").open()][1:]
    per_q = 100
    n_q = max(1, n_pairs // per_q)
    rng = np.random.default_rng(0)
    qs, ts = [], []
    for q in queries[:n_q]:
        for j in rng.choice(len(texts), per_q, replace=False):
            qs.append(q)
            ts.append(texts[j])
    return qs[:n_pairs], ts[:n_pairs]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=5000)
    ap.add_argument("--shared", "--data-dir", dest="shared", default=None, help="data root (default: $RANKLENS_DATA)")
    args = ap.parse_args()
    import torch
    from sentence_transformers import SentenceTransformer

    from ranklens._models import default_model_path
    from ranklens.engine import ScoringEngine, set_default_engine
    from ranklens.rankers import BiEncoderRanker

    qs, ts = load_pairs(data_root(args.shared), args.pairs)
    print(f"pairs: {len(qs)}  distinct queries: {len(set(qs))}  distinct passages: {len(set(ts))}  "
          f"torch threads: {torch.get_num_threads()}")
    model = SentenceTransformer(default_model_path(), device="cpu")
    model.encode(["warm up"] * 8)

    # direct sentence-transformers
    t0 = time.perf_counter()
    uq = list(dict.fromkeys(qs))
    ut = list(dict.fromkeys(ts))
    qv = model.encode(uq, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    tv = model.encode(ut, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    qi = {q: i for i, q in enumerate(uq)}
    ti = {t: i for i, t in enumerate(ut)}
    direct = np.einsum("ij,ij->i", qv[[qi[q] for q in qs]], tv[[ti[t] for t in ts]])
    t_direct = time.perf_counter() - t0

    with tempfile.TemporaryDirectory() as tmp:
        engine = ScoringEngine(cache=Path(tmp) / "cache", show_progress=False)
        set_default_engine(engine)
        ranker = BiEncoderRanker()
        ranker.score(["warm"], ["up"])  # model load outside the timing, as for the direct path
        engine.reset_stats()
        t0 = time.perf_counter()
        through = engine.score(ranker, qs, ts)
        t_engine = time.perf_counter() - t0
        stats = engine.stats.as_dict()
        t0 = time.perf_counter()
        cached = ScoringEngine(cache=Path(tmp) / "cache", show_progress=False).score(ranker, qs, ts)
        t_cached = time.perf_counter() - t0
        set_default_engine(None)
    print(f"direct sentence-transformers: {t_direct:7.2f} s  ({len(qs) / t_direct:6.1f} pairs/s)")
    print(f"through the engine (cold):    {t_engine:7.2f} s  ({len(qs) / t_engine:6.1f} pairs/s)  stats={stats}")
    print(f"through the engine (cached):  {t_cached:7.2f} s")
    print(f"max |engine - direct| score:  {np.max(np.abs(through - direct)):.2e}; cached identical: "
          f"{bool(np.array_equal(cached, through))}")
    print(f"RATIO engine/direct = {t_engine / t_direct:.3f}   (goal <= 1.10)")
    print(f"RATIO cached/cold   = {t_cached / t_engine:.3f}   (goal <= 0.05)")

    # bf16 vs fp32
    sample = ut[:800]
    t0 = time.perf_counter()
    v32 = model.encode(sample, batch_size=32, normalize_embeddings=True)
    t32 = time.perf_counter() - t0
    t0 = time.perf_counter()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        v16 = model.encode(sample, batch_size=32, normalize_embeddings=True)
    t16 = time.perf_counter() - t0
    cos = np.sum(v32 * v16, axis=1) / (np.linalg.norm(v32, axis=1) * np.linalg.norm(v16, axis=1))
    print(f"fp32 {len(sample) / t32:6.1f} passages/s, bf16 {len(sample) / t16:6.1f} passages/s: "
          f"SPEED-UP bf16/fp32 = {t32 / t16:.2f}x, min cosine = {cos.min():.6f}")


if __name__ == "__main__":
    main()
