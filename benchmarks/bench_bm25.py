"""BM25 on NPL (11,429 docs): index build time and pairwise scoring throughput vs bm25s.

Run once:  python benchmarks/bench_bm25.py [--data ../shared/data/npl/derived] [--docs-per-query 1000]

Measures (same process, same tokenisation: ranklens.text tokens, sklearn stopwords, Porter):
  * fit/index time: BM25Ranker.fit vs bm25s.BM25.index on the pre-tokenised corpus (+ its
    tokenisation time, reported separately) ;
  * pairwise throughput (pairs/s) on every query x N random docs: BM25Ranker.score (tokenises the
    texts, as for manipulated documents), exact_corpus_scores (in-corpus rows, no tokenising), vs
    bm25s.get_scores_from_ids per query (scores all docs) restricted to the given docs;
  * max |difference| between the pairwise scores and bm25s' scores.
Ratios are ranklens / bm25s time (lower is better).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[1].parent / "shared/data/npl/derived"))
    ap.add_argument("--docs-per-query", type=int, default=1000)
    args = ap.parse_args()

    import bm25s

    from ranklens.rankers import BM25Ranker
    from ranklens.rankers.bm25 import exact_corpus_scores

    data = Path(args.data)
    docs = [json.loads(line) for line in open(data / "docs.jsonl")]
    texts = [d["text"] for d in docs]
    queries = pd.read_csv(data / "queries.tsv", sep="\t", dtype=str)["text"].tolist()
    print(f"NPL: {len(texts)} docs, {len(queries)} queries")

    base = BM25Ranker()
    for x in texts + queries:  # warm the shared Porter-stem cache so neither side pays for it
        base.analyze(x)
    t = time.perf_counter()
    r = base.fit(texts)
    t_fit = time.perf_counter() - t

    t = time.perf_counter()
    tokens = [base.analyze(x) for x in texts]
    t_tok = time.perf_counter() - t
    t = time.perf_counter()
    ref = bm25s.BM25(k1=base.k1, b=base.b, method=base.method)
    ref.index(tokens, show_progress=False)
    t_idx = time.perf_counter() - t
    print(f"index build: ranklens fit {t_fit:.2f}s | bm25s tokenise {t_tok:.2f}s + index {t_idx:.2f}s "
          f"= {t_tok + t_idx:.2f}s | ratio fit/(tok+index) = {t_fit / (t_tok + t_idx):.2f}")

    rng = np.random.default_rng(0)
    k = min(args.docs_per_query, len(texts))
    picks = [rng.choice(len(texts), size=k, replace=False) for _ in queries]
    qs = [q for q, p in zip(queries, picks) for _ in p]
    ts = [texts[j] for p in picks for j in p]
    n = len(qs)

    t = time.perf_counter()
    mine = r.score(qs, ts)
    t_pair = time.perf_counter() - t
    t = time.perf_counter()
    r.score(qs, ts)
    t_pair_warm = time.perf_counter() - t

    t = time.perf_counter()
    exact = np.concatenate([exact_corpus_scores(r, q, p) for q, p in zip(queries, picks)])
    t_exact = time.perf_counter() - t

    t = time.perf_counter()
    theirs = []
    for q, p in zip(queries, picks):
        ids = ref.get_tokens_ids(base.analyze(q))
        s = ref.get_scores(ids) if ids else np.zeros(len(texts), dtype=np.float32)
        theirs.append(s[p])
    theirs = np.concatenate(theirs)
    t_ref = time.perf_counter() - t

    print(f"pairwise scoring of {n} pairs ({len(queries)} queries x {k} docs):")
    print(f"  ranklens BM25Ranker.score (tokenises texts): {t_pair:.2f}s = {n / t_pair:,.0f} pairs/s")
    print(f"  ranklens BM25Ranker.score, texts memoised:   {t_pair_warm:.2f}s = {n / t_pair_warm:,.0f} pairs/s")
    print(f"  ranklens exact_corpus_scores (in-corpus):    {t_exact:.3f}s = {n / t_exact:,.0f} pairs/s")
    print(f"  bm25s get_scores per query, restricted:      {t_ref:.3f}s = {n / t_ref:,.0f} pairs/s")
    print(f"  ratio time ranklens.score / bm25s = {t_pair / t_ref:.2f} (memoised {t_pair_warm / t_ref:.2f}); "
          f"exact_corpus_scores / bm25s = {t_exact / t_ref:.2f}")
    print(f"  max |ranklens - bm25s| = {np.abs(mine - theirs).max():.2e} (bm25s stores float32); "
          f"max |score - exact_corpus_scores| = {np.abs(mine - exact).max():.2e}")


if __name__ == "__main__":
    main()
