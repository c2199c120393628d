"""Real-data explanation consistency (issue 7): paper Tables 1-2 and the m sweep, with caps.

Parts (occlusion n = 2, masked sets per document = max(units, --samples), seed 0; m sweep):

- ``dl19``: TREC DL 2019 queries with >= 50 NIST-judged passages whose text is in
  ``trec_dl19_reannotation/passages.tsv`` (30 of 43); each query's judged passages are re-ranked;
  MRC@10/@50 for sentence and window:5 rationales, m = 2, 4, 6, with nDCG@10 (NIST qrels).
- ``cranfield``: abstracts (derived/docs.jsonl, one sentence per line: the abstracts are lower
  case, so sentences are split at " . " and granularity "line" is the sentence condition);
  candidate pool = BM25 top-100 of the 1,398
  non-empty abstracts per query, re-ranked by each ranker; same measures (gain = 5 - code).
- ``wikiqa``: a document = the candidate sentences of one Wikipedia page (test split), one
  sentence per line (``granularity="line"`` = the WikiQA sentences); candidate pool = BM25
  top-20 of the 619 test pages; relevant units = the question's answer sentences; MRC@10 and
  MER@10 (MiniLM cosine, and TF-IDF cosine as the bag-of-words baseline) for m = 1..6.

Two tiers per part: ``lexical`` (BM25, TF-IDF) on many queries and ``neural`` (MiniLM
bi-encoder, bf16 autocast) on the first few of them, because MiniLM on 2 shared CPU cores scored
only ~4 pairs/s under the load of the day (~80-100 pairs/s unloaded). The lexical rankers are
also reported on the neural tier's queries for a like-for-like comparison. Scores are cached
under ``--out/cache``: a re-run only re-reads them.

Usage (about 20 minutes with the defaults; run in the background):
    nohup python benchmarks/explain_real.py > benchmarks/out/explain_real.log 2>&1 &
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from pathlib import Path

import pandas as pd

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("RANKLENS_PROGRESS", "0")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def rankers_for(texts: list[str], which: str) -> dict:
    """``which="lexical"``: BM25 + TF-IDF; ``"neural"``: MiniLM bi-encoder (bf16 autocast, ~2.7x
    faster on CPU; cosine to fp32 >= 0.99996 per the perf baselines)."""
    from ranklens.rankers import make_ranker

    if which == "lexical":
        return {"bm25": make_ranker("bm25", corpus=texts), "tfidf": make_ranker("tfidf", corpus=texts)}
    return {"minilm": make_ranker("minilm", precision="bf16")}


TIERS = ("lexical", "neural")


def cap(args, part: str, tier: str) -> int:
    return getattr(args, f"{part}_{tier}")


def correlations(per_q: pd.DataFrame, measures) -> None:
    from scipy import stats

    for (rk, gr, m), g in per_q.groupby(["ranker", "granularity", "m"]):
        for meas in measures:
            x = g[[meas, "ndcg@10"]].dropna()
            if len(x) >= 3 and x[meas].nunique() > 1 and x["ndcg@10"].nunique() > 1:
                print(f"  corr {rk} {gr} m={m} {meas} vs nDCG@10 (n={len(x)}): "
                      f"pearson {stats.pearsonr(x[meas], x['ndcg@10']).statistic:.3f} "
                      f"spearman {stats.spearmanr(x[meas], x['ndcg@10']).statistic:.3f}", flush=True)


def subset_means(per_q: pd.DataFrame, qids, measures) -> None:
    sub = per_q[per_q["query_id"].isin(set(qids))]
    agg = sub.groupby(["ranker", "granularity", "m"])[list(measures)].mean().reset_index()
    print(f"  lexical rankers on the {len(set(qids))} neural-tier queries only:")
    print(agg.to_string(index=False, float_format=lambda v: f"{v:.4f}"), flush=True)


def show(res, cols) -> None:
    s = res.tables["summary"] if res.kind == "explain-consistency" else res.table
    keep = [c for c in ["ranker", "granularity", "m", *cols, "queries"] if c in s.columns]
    print(s[keep].to_string(index=False, float_format=lambda v: f"{v:.4f}"), flush=True)
    if res.kind == "explain-consistency":
        c = res.tables["correlations"]
        print(c.to_string(index=False, float_format=lambda v: f"{v:.3f}"), flush=True)


def _sweep_tiers(part, rankers_texts, queries, docs, qrels, cand_fn, grans, ks, args, engine, out, extra=None):
    """Run the m sweep (m = 2, 4, 6) for the lexical tier (large cap) and the neural tier (small
    cap; its queries are the first ones of the lexical tier)."""
    from ranklens.explain import OcclusionExplainer, explanation_sweep

    ex = OcclusionExplainer(n=2, samples=args.samples, seed=0)  # granularity replaced per entry of grans
    tier_q = {}
    for tier in TIERS:
        qs = queries.head(cap(args, part, tier))
        tier_q[tier] = list(qs["query_id"])
        rankers = rankers_for(rankers_texts, tier)
        cand = cand_fn(qs)
        t = time.time()
        res = explanation_sweep(
            rankers, qs, docs, ms=(2, 4, 6), granularities=grans, qrels=qrels[qrels["query_id"].isin(set(qs["query_id"]))],
            candidates=cand, ks=ks, explainer=ex, engine=engine,
        )
        res.save(out / f"{part}-{tier}-explain-sweep")
        log(f"{part} {tier}: {len(qs)} queries, {len(cand)} candidate pairs, done in {time.time() - t:.0f}s")
        meas = [f"mrc@{k}" for k in ks]
        show(res, [*meas, "ndcg@10"])
        correlations(res.tables["per_query"], meas)
        if tier == "lexical":
            lex = res.tables["per_query"]
        else:
            subset_means(lex, tier_q["neural"], [*meas, "ndcg@10"])


def part_dl19(shared: Path, out: Path, args, engine) -> None:
    from ranklens.io import read_qrels

    root = shared / "trec_dl19_reannotation"
    passages = pd.read_csv(root / "passages.tsv", sep="\t", dtype=str, keep_default_na=False)
    docs = dict(zip(passages["passage_id"], passages["text"]))
    queries = pd.read_csv(root / "queries.tsv", sep="\t", dtype=str, keep_default_na=False)
    queries = queries.rename(columns={"query": "text"})
    qrels = read_qrels(shared / "trec_dl_msmarco_passage" / "qrels.dl19-passage.txt")
    cand = qrels[qrels["doc_id"].isin(set(docs)) & qrels["query_id"].isin(set(queries["query_id"]))]
    sizes = cand.groupby("query_id").size()
    chosen = sorted(sizes[sizes >= 50].index)
    log(f"dl19: {len(sizes)} queries with judged passage text; {len(chosen)} with >= 50 candidates "
        f"(mean {sizes[chosen].mean():.1f} candidates); order: {chosen}")
    queries = queries.set_index("query_id").loc[chosen].reset_index()

    def cand_fn(qs):
        return cand[cand["query_id"].isin(set(qs["query_id"]))][["query_id", "doc_id"]]

    used = {d: docs[d] for d in sorted(set(cand["doc_id"]))}
    _sweep_tiers("dl19", list(docs.values()), queries, used, qrels, cand_fn, ("sentence", "window:5"), (10, 50),
                 args, engine, out)


def part_cranfield(shared: Path, out: Path, args, engine) -> None:
    from ranklens.explain import rank_candidates
    from ranklens.io import read_qrels

    root = shared / "cranfield" / "derived"
    recs = [json.loads(line) for line in (root / "docs.jsonl").open(encoding="utf-8")]
    # Cranfield abstracts are lower case with " . " between sentences, which ranklens.text's
    # sentence splitter (it needs an upper-case start) keeps as one sentence (1.14 per abstract).
    # Put each sentence on its own line (whitespace-only change; the rankers tokenise it away) and
    # use granularity "line" as the sentence condition.
    docs = {str(r["doc_id"]): re.sub(r"\s+\.\s+", " .\n", r["text"].strip()) for r in recs if r["text"].strip()}
    q = pd.read_csv(root / "queries.tsv", sep="\t", dtype=str, keep_default_na=False)
    queries = pd.DataFrame({"query_id": q["query_id"], "text": q["text"]})
    qrels = read_qrels(root / "qrels.trec")
    log(f"cranfield: {sum(d.count(chr(10)) + 1 for d in docs.values()) / len(docs):.2f} sentences (lines) per abstract")
    bm25 = rankers_for(list(docs.values()), "lexical")["bm25"]

    def cand_fn(qs):
        pool = rank_candidates(bm25, qs, docs, engine=engine)
        return pool[pool["rank"] <= 100][["query_id", "doc_id"]]

    log(f"cranfield: BM25 top-100 pools over {len(docs)} non-empty abstracts")
    _sweep_tiers("cran", list(docs.values()), queries, docs, qrels, cand_fn, ("line", "window:5"), (10, 50),
                 args, engine, out)


def load_wikiqa(shared: Path, n_queries: int):
    root = shared / "wikiqa" / "derived"
    corpus = pd.read_csv(root / "corpus.tsv", sep="\t", dtype=str, keep_default_na=False, quoting=3)
    qrels_s = pd.read_csv(root / "qrels.test.trec", sep=r"\s+", header=None, dtype=str,
                          names=["query_id", "iter", "sentence_id", "label"])
    qrels_s["label"] = qrels_s["label"].astype(int)
    queries = pd.read_csv(root / "queries.test.tsv", sep="\t", dtype=str, keep_default_na=False, quoting=3)
    queries = queries.rename(columns={"question": "text"})
    sent = corpus.set_index("sentence_id")
    qrels_s = qrels_s[qrels_s["sentence_id"].isin(sent.index)]
    qrels_s["doc_id"] = sent.loc[qrels_s["sentence_id"], "document_id"].to_numpy()
    test_docs = sorted(set(qrels_s["doc_id"]))
    corpus = corpus[corpus["document_id"].isin(test_docs)].copy()
    corpus["pos"] = corpus["sentence_id"].str.rsplit("-", n=1).str[1].astype(int)
    corpus = corpus.sort_values(["document_id", "pos"])
    docs = {d: "\n".join(g["sentence"].str.strip()) for d, g in corpus.groupby("document_id", sort=True)}
    pos = qrels_s[qrels_s["label"] > 0]
    with_pos = [q for q in queries["query_id"] if q in set(pos["query_id"])][:n_queries]
    queries = queries[queries["query_id"].isin(with_pos)]
    subdoc = pd.DataFrame({"query_id": pos["query_id"], "doc_id": pos["doc_id"],
                           "unit": sent.loc[pos["sentence_id"], "sentence"].str.strip().to_numpy(), "relevant": 1})
    subdoc = subdoc[subdoc["query_id"].isin(with_pos)]
    qrels = subdoc[["query_id", "doc_id"]].drop_duplicates().assign(relevance=1)
    qrels["relevance"] = qrels["relevance"].astype("int64")
    return docs, queries, qrels, subdoc


def part_wikiqa(shared: Path, out: Path, args, engine) -> None:
    from ranklens.embedders import make_embedder
    from ranklens.explain import OcclusionExplainer, explanation_sweep, rank_candidates, read_subdoc_qrels

    docs, queries, qrels, subdoc = load_wikiqa(shared, max(args.wiki_lexical, args.wiki_neural))
    subdoc = read_subdoc_qrels(subdoc)
    texts = list(docs.values())
    bm25 = rankers_for(texts, "lexical")["bm25"]
    log(f"wikiqa: {len(docs)} test pages (mean {pd.Series([d.count(chr(10)) + 1 for d in texts]).mean():.1f} "
        f"sentences), {len(queries)} questions with answers")
    ex = OcclusionExplainer(granularity="line", n=2, samples=args.samples, seed=0)
    embedders = {"minilm": make_embedder("minilm", precision="bf16"), "tfidf": make_embedder("tfidf", corpus=texts)}
    lex = None
    for tier in TIERS:
        qs = queries.head(cap(args, "wiki", tier))
        pool = rank_candidates(bm25, qs, docs, engine=engine)
        pool = pool[pool["rank"] <= 20][["query_id", "doc_id"]]
        gold = pool.merge(qrels, on=["query_id", "doc_id"]).shape[0]
        log(f"wikiqa {tier}: {len(qs)} questions; gold page in the BM25 top-20 pool for {gold}")
        for emb_name, emb in embedders.items():
            t = time.time()
            res = explanation_sweep(
                rankers_for(texts, tier), qs, docs, ms=(1, 2, 3, 4, 5, 6), granularities=("line",),
                qrels=qrels[qrels["query_id"].isin(set(qs["query_id"]))], candidates=pool, ks=(10,), mer_k=10,
                explainer=ex, subdoc=subdoc, embedder=emb, engine=engine,
            )
            res.save(out / f"wikiqa-{tier}-explain-sweep-{emb_name}")
            log(f"wikiqa {tier} sweep, MER with {emb_name}: {time.time() - t:.0f}s")
            show(res, ["mrc@10", "mer@10", "ndcg@10"])
            correlations(res.tables["per_query"][res.tables["per_query"]["m"].isin([3, 6])], ["mrc@10", "mer@10"])
            if tier == "lexical" and emb_name == "minilm":
                lex = res.tables["per_query"]
            if tier == "neural" and emb_name == "minilm" and lex is not None:
                sub = lex[lex["m"].isin([3, 6])]
                subset_means(sub, list(qs["query_id"]), ["mrc@10", "mer@10", "ndcg@10"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "out" / "explain_real"))
    ap.add_argument("--parts", default="dl19,wikiqa,cranfield")
    ap.add_argument("--dl19-lexical", type=int, default=43, help="DL19 queries for BM25/TF-IDF")
    ap.add_argument("--dl19-neural", type=int, default=2, help="DL19 queries for MiniLM (the first ones)")
    ap.add_argument("--cran-lexical", type=int, default=30)
    ap.add_argument("--cran-neural", type=int, default=1)
    ap.add_argument("--wiki-lexical", type=int, default=100)
    ap.add_argument("--wiki-neural", type=int, default=6)
    ap.add_argument("--samples", type=int, default=12)
    args = ap.parse_args()
    from ranklens.engine import ScoringEngine

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    engine = ScoringEngine(cache=out / "cache")
    log(f"caps (lexical/neural queries): dl19 {args.dl19_lexical}/{args.dl19_neural}, cranfield "
        f"{args.cran_lexical}/{args.cran_neural}, wikiqa {args.wiki_lexical}/{args.wiki_neural}; "
        f"masked sets/doc = max(units, {args.samples}), n = 2")
    t0 = time.time()
    parts = {"dl19": part_dl19, "cranfield": part_cranfield, "wikiqa": part_wikiqa}
    for name in args.parts.split(","):
        parts[name](Path(args.shared), out, args, engine)
        log(f"engine stats so far: {engine.stats.as_dict()}")
    log(f"total {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main()
