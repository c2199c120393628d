"""Issue 2 real-data check: BM25 and MiniLM retrieval on Cranfield, CISI, CACM and NPL.

Each collection is read twice, from its raw SMART/NPL files and from its derived files; the
script checks that both routes give identical qrels, then retrieves the top 1,000 documents per
query with BM25 (bm25s candidates, float64 pairwise scores) and with MiniLM (all-MiniLM-L6-v2,
exact cosine search; encoding through the ranklens engine) and evaluates nDCG@10 and MAP with
ir_measures. Prints one table and the wall time of each step; MiniLM's time is also given as
a ratio to BM25's measured in the same run.

Usage: HF_HUB_OFFLINE=1 python benchmarks/classic_retrieval.py [--shared ../shared/data]
       [--no-minilm] [--cache DIR]
"""

from __future__ import annotations

import argparse
import os
import time
from _harness import data_root

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    import ir_measures
    import pandas as pd
    from ir_measures import AP, nDCG

    from ranklens.specs import make_embedder
    from ranklens.engine import ScoringEngine
    from ranklens.io import load_smart_collection
    from ranklens.rankers import BM25Ranker
    from ranklens.rankers.retrieval import retrieve

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", "--data-dir", dest="shared", default=None, help="data root (default: $RANKLENS_DATA)")
    ap.add_argument("--no-minilm", action="store_true")
    ap.add_argument("--cache", default=None, help="engine cache dir (default: no on-disk cache)")
    args = ap.parse_args()
    shared = data_root(args.shared)
    engine = ScoringEngine(args.cache if args.cache else False, show_progress=False)
    minilm = None if args.no_minilm else make_embedder("minilm")

    rows = []
    for name in ("cranfield", "cisi", "cacm", "npl"):
        raw = load_smart_collection(shared / name, source="raw")
        der = load_smart_collection(shared / name, source="derived")
        key = ["query_id", "doc_id"]
        same = raw.qrels.sort_values(key).reset_index(drop=True).equals(
            der.qrels.sort_values(key).reset_index(drop=True))
        print(f"{name}: {len(raw.docs)} docs, {len(raw.queries)} queries, {len(raw.qrels)} qrels; "
              f"raw and derived qrels identical: {same}", flush=True)
        if not same:
            raise SystemExit(f"{name}: raw and derived qrels differ")
        # evaluate only queries that have at least one judged document (as trec_eval does)
        queries = raw.queries[raw.queries["query_id"].isin(raw.qrels["query_id"])]
        models = [("BM25", BM25Ranker())] + ([("MiniLM", minilm)] if minilm is not None else [])
        times = {}
        for label, model in models:
            t = time.perf_counter()
            run = retrieve(model, queries, raw.docs, k=1000, engine=engine)
            times[label] = time.perf_counter() - t
            agg = ir_measures.calc_aggregate([nDCG @ 10, AP], raw.qrels, run)
            rows.append({"collection": name, "model": label, "queries": len(queries),
                         "nDCG@10": round(agg[nDCG @ 10], 4), "MAP": round(agg[AP], 4),
                         "seconds": round(times[label], 1)})
            print(f"  {label:6s} nDCG@10={agg[nDCG @ 10]:.4f} MAP={agg[AP]:.4f} ({times[label]:.1f} s)",
                  flush=True)
        if "MiniLM" in times:
            print(f"  time ratio MiniLM / BM25 (same run): {times['MiniLM'] / times['BM25']:.1f}")
    print()
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
