"""Explanation-consistency cost benchmark (issue 7). Prints ratios measured in one process.

A full MRC run (rank the candidates, occlusion-explain the top-k with sentence and window:5 units,
score the rationale-only documents) on Cranfield abstracts with BM25, through a fresh
``ScoringEngine``:

1. model calls (pairs that reached the ranker, counted by a wrapper around it) vs the number of
   distinct (query, text) pairs the run needs, computed independently from
   ``OcclusionExplainer.plan`` and the rationale table: goal ratio = 1.00; and vs the pairs a
   naive loop would send (every requested pair, duplicates included);
2. the same run again with the same engine (cache warm): model calls must be 0 and the time is
   reported as a ratio to the cold run (peer = the cold run);
3. the same again from a new process-equivalent: a new engine on the same on-disk SQLite cache.

Usage: python benchmarks/bench_explain.py [--queries 10] [--k 20] [--shared ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from _harness import data_root

os.environ.setdefault("RANKLENS_PROGRESS", "0")


@dataclass(kw_only=True)
class CountingRanker:
    """Passes pairs to ``inner`` and counts them (the model calls)."""

    inner: Any
    calls: int = 0
    seen: set = field(default_factory=set)

    @property
    def fingerprint(self) -> str:
        return "Counting:" + self.inner.fingerprint

    def score(self, queries, texts):
        self.calls += len(queries)
        self.seen.update(zip(queries, texts))
        return self.inner.score(queries, texts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", "--data-dir", dest="shared", default=None, help="data root (default: $RANKLENS_DATA)")
    ap.add_argument("--queries", type=int, default=10)
    ap.add_argument("--k", type=int, default=20)
    args = ap.parse_args()

    from ranklens.engine import ScoringEngine
    from ranklens.explain import OcclusionExplainer, Rationale, explanation_consistency, pseudo_document
    from ranklens.specs import make_ranker

    root = data_root(args.shared) / "cranfield" / "derived"
    recs = [json.loads(line) for line in (root / "docs.jsonl").open(encoding="utf-8")]
    docs = {str(r["doc_id"]): r["text"] for r in recs if r["text"].strip()}
    q = pd.read_csv(root / "queries.tsv", sep="\t", dtype=str, keep_default_na=False)
    queries = pd.DataFrame({"query_id": q["query_id"], "text": q["text"]}).head(args.queries)
    ranker = CountingRanker(inner=make_ranker("bm25", corpus=list(docs.values())))
    grans = ("sentence", "window:5")
    kw = dict(granularities=grans, m=6, ks=(10, args.k), explainer=OcclusionExplainer(n=2, samples=30, seed=0))

    with tempfile.TemporaryDirectory() as tmp:
        engine = ScoringEngine(cache=Path(tmp) / "cache")
        t = time.perf_counter()
        res = explanation_consistency({"bm25": ranker}, queries, docs, engine=engine, **kw)
        cold = time.perf_counter() - t
        calls_cold = ranker.calls
        requested = engine.stats.pairs_requested

        # independent count of the distinct pairs the run needs
        qmap = dict(zip(queries["query_id"], queries["text"]))
        need = {(qt, d) for qt in qmap.values() for d in docs.values()}
        rats = res.tables["rationales"]
        for g in grans:
            ex = OcclusionExplainer(granularity=g, n=2, samples=30, seed=0)
            sub = rats[rats["granularity"] == g]
            for (qid, did), grp in sub.groupby(["query_id", "doc_id"]):
                need.update((qmap[qid], t_) for t_ in ex.plan(qmap[qid], docs[did]))
                rs = [Rationale(int(u), int(s), int(e), str(x), float(w)) for u, s, e, x, w in
                      zip(grp["unit"], grp["start"], grp["end"], grp["text"], grp["weight"])]
                need.add((qmap[qid], pseudo_document(rs)))

        t = time.perf_counter()
        explanation_consistency({"bm25": ranker}, queries, docs, engine=engine, **kw)
        warm = time.perf_counter() - t
        calls_warm = ranker.calls - calls_cold

        engine2 = ScoringEngine(cache=Path(tmp) / "cache")
        t = time.perf_counter()
        res2 = explanation_consistency({"bm25": ranker}, queries, docs, engine=engine2, **kw)
        disk = time.perf_counter() - t
        calls_disk = ranker.calls - calls_cold - calls_warm
        same = np.allclose(res.table["MRC@10"].to_numpy(float), res2.table["MRC@10"].to_numpy(float), equal_nan=True)

    print(f"Cranfield, {len(queries)} queries x {len(docs)} abstracts, BM25, sentence + window:5, k={args.k}, m=6")
    print(f"pairs requested by the run (naive loop would score): {requested}")
    print(f"distinct (query, text) pairs needed (independent count): {len(need)}")
    print(f"model calls, cold run: {calls_cold}   ratio calls/distinct = {calls_cold / len(need):.3f} (goal 1.000)")
    print(f"naive/engine call ratio: {requested / calls_cold:.2f}x fewer model calls through the engine")
    print(f"cold run {cold:.2f}s; warm re-run {warm:.2f}s with {calls_warm} model calls "
          f"-> ratio warm/cold = {warm / cold:.3f}")
    print(f"new engine on the same SQLite cache: {disk:.2f}s with {calls_disk} model calls "
          f"-> ratio disk/cold = {disk / cold:.3f}; identical MRC: {same}")


if __name__ == "__main__":
    main()
