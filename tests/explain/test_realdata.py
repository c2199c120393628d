"""Real-data checks (run with ``pytest --realdata``): small, BM25/TF-IDF only; the full figures
come from ``benchmarks/explain_real.py``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.engine import ScoringEngine
from ranklens.explain import OcclusionExplainer, explanation_consistency, explanation_sweep, read_subdoc_qrels

pytestmark = pytest.mark.realdata


def _dl19(shared, n_queries):
    from ranklens.io import read_qrels

    root = shared / "trec_dl19_reannotation"
    passages = pd.read_csv(root / "passages.tsv", sep="\t", dtype=str, keep_default_na=False)
    docs = dict(zip(passages["passage_id"], passages["text"]))
    queries = pd.read_csv(root / "queries.tsv", sep="\t", dtype=str, keep_default_na=False).rename(
        columns={"query": "text"})
    qrels = read_qrels(shared / "trec_dl_msmarco_passage" / "qrels.dl19-passage.txt")
    cand = qrels[qrels["doc_id"].isin(set(docs)) & qrels["query_id"].isin(set(queries["query_id"]))]
    chosen = sorted(cand.groupby("query_id").size().loc[lambda s: s >= 50].index)[:n_queries]
    cand = cand[cand["query_id"].isin(chosen)]
    used = {d: docs[d] for d in set(cand["doc_id"])}
    return queries[queries["query_id"].isin(chosen)], used, qrels[qrels["query_id"].isin(chosen)], cand, docs


def test_dl19_full_rationales_reproduce_ranking_and_windows_do_not(shared_data):
    from ranklens.specs import make_ranker

    queries, docs, qrels, cand, all_docs = _dl19(shared_data, 2)
    bm25 = make_ranker("bm25", corpus=list(all_docs.values()))
    eng = ScoringEngine(cache=False)
    # m larger than any passage's sentence count: the pseudo-document is the passage itself (up to
    # whitespace), so the original order is reproduced exactly
    full = explanation_consistency({"bm25": bm25}, queries, docs, qrels=qrels, pairs=cand,
                                   granularities=("sentence",), m=100, ks=(10, 50), engine=eng)
    assert full.table["MRC@10"].tolist() == pytest.approx([1.0, 1.0])
    assert full.table["MRC@50"].tolist() == pytest.approx([1.0, 1.0])
    nd = full.table["nDCG@10"]
    assert ((nd > 0) & (nd <= 1)).all()
    win = explanation_consistency({"bm25": bm25}, queries, docs, qrels=qrels, pairs=cand,
                                  granularities=("window:5",), m=2, ks=(10, 50), engine=eng,
                                  explainer=OcclusionExplainer(samples=12))
    vals = win.table[["MRC@10", "MRC@50"]].to_numpy()
    assert np.all((vals >= -1) & (vals <= 1))
    assert vals.mean() < 1.0  # 10 of ~60 words cannot keep every BM25 order


def test_wikiqa_mer_with_tfidf(shared_data):
    from ranklens.specs import make_embedder
    from ranklens.specs import make_ranker

    root = shared_data / "wikiqa" / "derived"
    corpus = pd.read_csv(root / "corpus.tsv", sep="\t", dtype=str, keep_default_na=False, quoting=3)
    qr = pd.read_csv(root / "qrels.test.trec", sep=r"\s+", header=None, dtype=str,
                     names=["query_id", "it", "sentence_id", "label"])
    qs = pd.read_csv(root / "queries.test.tsv", sep="\t", dtype=str, keep_default_na=False, quoting=3)
    sent = corpus.set_index("sentence_id")
    pos = qr[qr["label"] == "1"].head(6)
    pos = pos.assign(doc_id=sent.loc[pos["sentence_id"], "document_id"].to_numpy())
    doc_ids = set(pos["doc_id"])
    sub = corpus[corpus["document_id"].isin(doc_ids)].copy()
    sub["pos"] = sub["sentence_id"].str.rsplit("-", n=1).str[1].astype(int)
    docs = {d: "\n".join(g.sort_values("pos")["sentence"].str.strip()) for d, g in sub.groupby("document_id")}
    queries = qs[qs["query_id"].isin(set(pos["query_id"]))].rename(columns={"question": "text"})
    subdoc = read_subdoc_qrels(pd.DataFrame({
        "query_id": pos["query_id"], "doc_id": pos["doc_id"],
        "unit": sent.loc[pos["sentence_id"], "sentence"].str.strip().to_numpy(), "relevant": 1}))
    for _q, d, u in zip(subdoc["query_id"], subdoc["doc_id"], subdoc["unit"]):
        assert u in docs[d].split("\n")  # relevant units are lines of their page
    texts = list(docs.values())
    eng = ScoringEngine(cache=False)
    emb = make_embedder("tfidf", corpus=texts)
    kw = dict(ks=(10,), subdoc=subdoc, embedder=emb, engine=eng, granularities=("line",),
              explainer=OcclusionExplainer(granularity="line", samples=12))
    bm25 = make_ranker("bm25", corpus=texts)
    res = explanation_sweep({"bm25": bm25}, queries, docs, ms=(1, 3), **kw)
    one = explanation_consistency({"bm25": bm25}, queries, docs, m=3, **kw)
    # eq. 3 by hand: per query, 1/k times the sum over the top-k pages (k = 10) of
    # sum_j max_r cos(d_j, r) / m, where a page without relevant lines counts 0, and so does a rank
    # the list does not fill (these queries rank fewer than 10 pages: warned)
    rats = one.tables["rationales"]
    top = one.tables["rationales"][["query_id", "doc_id", "rank"]].drop_duplicates()
    ref = {}
    for q, g in top[top["rank"] <= 10].groupby("query_id"):
        per_doc = []
        for d in g["doc_id"]:
            rel = subdoc[(subdoc["query_id"] == q) & (subdoc["doc_id"] == d)]["unit"].tolist()
            mine = rats[(rats["query_id"] == q) & (rats["doc_id"] == d)]["text"].tolist()
            if not rel:
                per_doc.append(0.0)
                continue
            a, b = np.asarray(emb.encode(mine), float), np.asarray(emb.encode(rel), float)
            a /= np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
            b /= np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
            per_doc.append(float((a @ b.T).max(axis=1).sum() / 3))
        ref[q] = float(np.sum(per_doc)) / 10
    assert any("rank fewer than 10 documents" in w for w in one.warnings)
    got = dict(zip(one.table["query_id"], one.table["MER@10"]))
    assert got.keys() == ref.keys() and len(ref) > 0
    for q in ref:
        assert got[q] == pytest.approx(ref[q], abs=1e-6)
    sw = res.tables["per_query"]
    assert dict(zip(sw[sw["m"] == 3]["query_id"], sw[sw["m"] == 3]["MER@10"])) == pytest.approx(got)


def test_cranfield_sentences_are_real_units_not_whole_documents(shared_data):
    """Issue 17: with the former punctuation rule 91% of Cranfield's lower-case abstracts were one
    "sentence", so the m = 1 rationale was the whole document and MRC@10 was 1.0000."""
    from ranklens.io import load_collection
    from ranklens.specs import make_ranker

    coll = load_collection(str(shared_data / "cranfield"))
    docs = {d: t for d, t in coll.docs.iter_docs() if t.strip()}
    queries = coll.queries.head(3)
    bm25 = make_ranker("bm25", corpus=list(docs.values()))
    eng = ScoringEngine(cache=False)
    from ranklens.explain import rank_candidates

    pool = rank_candidates(bm25, queries, docs, engine=eng)
    pool = pool[pool["rank"] <= 10][["query_id", "doc_id"]]
    res = explanation_consistency({"bm25": bm25}, queries, docs, qrels=coll.qrels, pairs=pool,
                                  granularities=("sentence",), ks=(10,), engine=eng)
    diag = res.tables["unit_diagnostics"].iloc[0]
    assert diag["whole_document_share"] < 0.2 and diag["units_median"] >= 4
    assert res.table["MRC@10"].mean() < 0.99
    assert not any("whole document" in w for w in res.warnings)
