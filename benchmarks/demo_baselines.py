"""Baseline effectiveness on the demo collection (full ranking of all 384 passages).

Prints nDCG@10, AP and R@100 (ir_measures) on the 40 test queries and the 84 training queries
for a term-overlap toy ranker, BM25, TF-IDF cosine and MiniLM (dense, cosine), and each
system's nDCG@10 as a ratio to BM25 measured in the same run. It is a sanity check that the
collection orders systems sensibly (toy < lexical < neural), not a timed benchmark; MiniLM
takes one to two minutes on a 2-core CPU.

Run: ``HF_HUB_OFFLINE=1 python benchmarks/demo_baselines.py [--no-minilm]``
"""

from __future__ import annotations

import argparse
import time

import ir_measures
import numpy as np
import pandas as pd
from ir_measures import AP, R, nDCG

from ranklens.datasets.demo import load_demo, load_demo_train
from ranklens.specs import make_embedder
from ranklens.engine import ScoringEngine, encode_texts, score_pairs
from ranklens.rankers import BM25Ranker
from ranklens.testing import OverlapRanker

MEASURES = [nDCG @ 10, AP, R @ 100]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-minilm", action="store_true", help="skip the neural model")
    args = parser.parse_args()

    coll = load_demo()
    train_q, train_qrels = load_demo_train()
    doc_ids = list(coll.docs)
    texts = coll.docs.get_many(doc_ids)
    engine = ScoringEngine(cache=False)

    def pair_run(ranker, queries: pd.DataFrame) -> pd.DataFrame:
        qids, qtexts = queries["query_id"].tolist(), queries["text"].tolist()
        scores = score_pairs(ranker, [t for t in qtexts for _ in doc_ids], texts * len(qids), engine=engine)
        return pd.DataFrame({"query_id": np.repeat(qids, len(doc_ids)), "doc_id": doc_ids * len(qids),
                             "score": scores})

    def dense_run(embedder, queries: pd.DataFrame) -> pd.DataFrame:
        d = encode_texts(embedder, texts, engine=engine)
        q = encode_texts(embedder, queries["text"].tolist(), engine=engine)
        d = d / np.linalg.norm(d, axis=1, keepdims=True)
        q = q / np.linalg.norm(q, axis=1, keepdims=True)
        return pd.DataFrame({"query_id": np.repeat(queries["query_id"].tolist(), len(doc_ids)),
                             "doc_id": doc_ids * len(queries), "score": (q @ d.T).ravel().astype(float)})

    systems = [
        ("overlap", lambda qs: pair_run(OverlapRanker(), qs)),
        ("bm25", lambda qs: pair_run(BM25Ranker().fit(texts), qs)),
        ("tfidf", lambda qs: dense_run(make_embedder("tfidf", corpus=texts), qs)),
    ]
    if not args.no_minilm:
        systems.append(("minilm", lambda qs: dense_run(make_embedder("minilm"), qs)))

    results = {}
    for name, make_run in systems:
        t0 = time.perf_counter()
        test = ir_measures.calc_aggregate(MEASURES, coll.qrels, make_run(coll.queries))
        train = ir_measures.calc_aggregate(MEASURES, train_qrels, make_run(train_q))
        results[name] = (test, train, time.perf_counter() - t0)

    base = results["bm25"][0][nDCG @ 10]
    print(f"{'system':8s} {'split':5s} {'nDCG@10':>8s} {'AP':>7s} {'R@100':>7s}  ratio nDCG@10 vs bm25 (test)")
    for name, (test, train, secs) in results.items():
        for split, agg in (("test", test), ("train", train)):
            ratio = f"  {test[nDCG @ 10] / base:.3f}  ({secs:.1f}s)" if split == "test" else ""
            print(f"{name:8s} {split:5s} {agg[nDCG @ 10]:8.4f} {agg[AP]:7.4f} {agg[R @ 100]:7.4f}{ratio}")


if __name__ == "__main__":
    main()
