from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ranklens.io.collection import DocStore
from ranklens.rankers import BM25Ranker, TfidfRanker
from ranklens.rankers.retrieval import rerank, retrieve


def _load(root):
    docs = DocStore(((d["doc_id"], d["text"]) for d in map(json.loads, open(root / "docs.jsonl"))), name="npl")
    queries = pd.read_csv(root / "queries.tsv", sep="\t", dtype=str)
    qrels = pd.read_csv(root / "qrels.trec", sep=r"\s+", header=None, dtype=str,
                        names=["query_id", "it", "doc_id", "relevance"]).drop(columns="it")
    qrels["relevance"] = qrels["relevance"].astype("int64")
    return docs, queries, qrels


@pytest.mark.realdata
def test_npl_bm25_retrieval_quality_and_bm25s_agreement(shared_data):
    import ir_measures
    from ir_measures import AP, nDCG

    docs, queries, qrels = _load(shared_data / "npl" / "derived")
    assert len(docs) == 11429 and len(queries) == 93
    run = retrieve(BM25Ranker(), queries, docs, k=1000)
    agg = ir_measures.calc_aggregate([nDCG @ 10, AP], qrels, run)
    print(f"NPL BM25 nDCG@10={agg[nDCG @ 10]:.4f} MAP={agg[AP]:.4f}")
    # published BM25 figures on NPL/Vaswani are around MAP 0.2-0.3 (no stemming differences fixed)
    assert 0.15 < agg[AP] < 0.40 and 0.2 < agg[nDCG @ 10] < 0.6

    # the pairwise scorer agrees with bm25s over the whole corpus for a few queries
    r = BM25Ranker().fit(list(docs.values()))
    texts = list(docs.values())
    for q in queries["text"].head(3):
        ids = [r.stats.vocab[t] for t in r.analyze(q) if t in r.stats.vocab]
        np.testing.assert_allclose(r.score([q] * len(texts), texts), r._index().get_scores_from_ids(ids),
                                   atol=1e-5)

    tf = TfidfRanker().fit(texts)
    rr = rerank(tf, run, queries, docs, k=100)
    agg_tf = ir_measures.calc_aggregate([nDCG @ 10, AP], qrels, rr)
    print(f"NPL TF-IDF rerank of BM25 top-100 nDCG@10={agg_tf[nDCG @ 10]:.4f} MAP@100={agg_tf[AP]:.4f}")
    assert agg_tf[nDCG @ 10] > 0.1
