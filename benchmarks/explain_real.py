"""Real-data explanation consistency (issue 17): segmenters, paper Tables 1-2 and sweeps, with caps.

Parts:

- ``segmenters``: boundary precision/recall/F1 against gold boundaries -- Cranfield abstracts (the
  " ." endings of the lower-case text), WikiQA pages (the WikiQA sentences joined by a space) --
  and units per DL19 passage (the paper: 3.4 sentences per MS MARCO passage), for
  ``ranklens.text.sentence_spans`` (spaCy senter + glued-period cut) and, when installed, pysbd
  and sentencex.
- ``cranfield``: BM25 top-``--pool`` of the 1,398 non-empty abstracts re-ranked by each model;
  sentence (m = 1) and window:5 (m = 6) rationales; MRC@10/@50; sweep m = 1, 3, 5.
- ``dl19``: DL19 queries with >= 50 judged passages in ``trec_dl19_reannotation``; judged
  passages re-ranked; same measures.
- ``dl19run``: the paper's protocol on a real first stage: each model re-ranks the official DL19
  ``bm25base_p`` top-100 run (``trec_dl_runs``; the passages with texts in the reannotation set).
- ``dl19w``: the paper's Fig. 2 on DL19: MRC@10 over window widths w = 1, 3, 5, 7, 9, 11 and
  m = 1, 3, 5 (lexical models; masked sets capped at ``--w-samples`` per passage, every
  singleton kept, so window:1 stays affordable; recorded as sampled).
- ``wikiqa`` (the paper's document task, Table 2): a document = one Wikipedia page (its WikiQA
  sentences joined by a space, cut by the project's segmenter); every model is MaxP over fixed
  3-sentence chunks (``maxp:SPEC:3``) and explained in document mode (greedy eq. 5, sentence
  rationales); BM25 top-``--wikiqa-pool`` pages per test question; MRC@10/@50, MER@10 and MER@50
  (MiniLM cosine; ``--mer-tfidf`` adds tf-idf cosine, the nearest to the reference code's
  bag-of-words ``CountVectorizer``) with eq. 3 (missing = 0) and the former ``skip``; m = 1, 3, 5.

Lexical models (BM25, TF-IDF) on ``--queries`` queries, MiniLM on ``--neural-queries`` of them.
Usage: ``nohup python benchmarks/explain_real.py --out benchmarks/out/explain > log 2>&1 &``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from pathlib import Path

import numpy as np
import pandas as pd

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("RANKLENS_PROGRESS", "0")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ----------------------------------------------------------------------------- segmenters
def _gold_cranfield(shared: Path, n: int) -> list[tuple[str, set[int]]]:
    rows = [json.loads(x) for x in open(shared / "cranfield/derived/docs.jsonl", encoding="utf-8")]
    texts = [r["text"] for r in rows if r["text"].strip()][:n]
    return [(t, {m.end() for m in re.finditer(r" \.(?=\s|$)", t)} | {len(t.rstrip())}) for t in texts]


def _gold_wikiqa(shared: Path, n: int) -> list[tuple[str, set[int]]]:
    c = pd.read_csv(shared / "wikiqa/derived/corpus.tsv", sep="\t", dtype=str, keep_default_na=False, quoting=3)
    c["pos"] = c["sentence_id"].str.rsplit("-", n=1).str[1].astype(int)
    out = []
    for _, g in list(c.groupby("document_id"))[:n]:
        text, gold = "", set()
        for s in g.sort_values("pos")["sentence"].str.strip():
            text = f"{text} {s}" if text else s
            gold.add(len(text))
        out.append((text, gold))
    return out


def _segmenters() -> dict:
    from ranklens.text import sentence_spans_many

    segs = {"ranklens (spacy senter + glued)": lambda ts: [[e for _, e in sp] for sp in sentence_spans_many(ts)]}
    try:
        import pysbd

        seg = pysbd.Segmenter(language="en", clean=False, char_span=True)
        segs["pysbd"] = lambda ts: [[len(t[:c.end].rstrip()) for c in seg.segment(t)] for t in ts]
    except ImportError:
        pass
    try:
        import sentencex

        def sx(ts):
            out = []
            for t in ts:
                pos, ends = 0, []
                for s in sentencex.segment("en", t):
                    i = t.find(s.strip(), pos)
                    if i >= 0:
                        pos = i + len(s.strip())
                        ends.append(pos)
                out.append(ends)
            return out
        segs["sentencex"] = sx
    except ImportError:
        pass
    return segs


def part_segmenters(shared: Path, out: Path, args) -> None:
    dl = pd.read_csv(shared / "trec_dl19_reannotation/passages.tsv", sep="\t", dtype=str, keep_default_na=False,
                     quoting=3)["text"].tolist()
    data = {"cranfield": _gold_cranfield(shared, 400), "wikiqa": _gold_wikiqa(shared, 400),
            "dl19": [(t, None) for t in dl]}
    rows = []
    for name, f in _segmenters().items():
        for ds, items in data.items():
            texts = [t for t, _ in items]
            t0 = time.time()
            ends = f(texts)
            row = {"segmenter": name, "dataset": ds, "docs": len(texts), "ms_per_doc": 1000 * (time.time() - t0) / len(texts),
                   "units_mean": float(np.mean([len(e) for e in ends])),
                   "one_unit_share": float(np.mean([len(e) == 1 for e in ends]))}
            if items[0][1] is not None:
                tp = fp = fn = 0
                for (t, gold), e in zip(items, ends):
                    e = {len(t[:x].rstrip()) for x in e}
                    tp, fp, fn = tp + len(e & gold), fp + len(e - gold), fn + len(gold - e)
                p, r = tp / (tp + fp), tp / (tp + fn)
                row.update(precision=p, recall=r, f1=2 * p * r / (p + r))
            rows.append(row)
            log(json.dumps(row))
    pd.DataFrame(rows).to_csv(out / "segmenters.tsv", sep="\t", index=False, float_format="%.4f")


# ----------------------------------------------------------------------------- collections
def load_cranfield(shared: Path):
    from ranklens.io import load_collection

    c = load_collection(str(shared / "cranfield"))
    docs = {d: t for d, t in c.docs.iter_docs() if t.strip()}
    return docs, c.queries, c.qrels


def load_dl19(shared: Path):
    from ranklens.io import read_qrels

    root = shared / "trec_dl19_reannotation"
    passages = pd.read_csv(root / "passages.tsv", sep="\t", dtype=str, keep_default_na=False, quoting=3)
    docs = dict(zip(passages["passage_id"], passages["text"]))
    queries = pd.read_csv(root / "queries.tsv", sep="\t", dtype=str, keep_default_na=False).rename(
        columns={"query": "text"})
    qrels = read_qrels(shared / "trec_dl_msmarco_passage" / "qrels.dl19-passage.txt")
    cand = qrels[qrels["doc_id"].isin(set(docs)) & qrels["query_id"].isin(set(queries["query_id"]))]
    chosen = sorted(cand.groupby("query_id").size().loc[lambda s: s >= 50].index)
    return docs, queries[queries["query_id"].isin(chosen)], qrels[qrels["query_id"].isin(chosen)], cand


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
    docs = {d: " ".join(g["sentence"].str.strip()) for d, g in corpus.groupby("document_id", sort=True)}
    pos = qrels_s[qrels_s["label"] > 0]
    with_pos = [q for q in queries["query_id"] if q in set(pos["query_id"])][:n_queries]
    queries = queries[queries["query_id"].isin(with_pos)]
    subdoc = pd.DataFrame({"query_id": pos["query_id"], "doc_id": pos["doc_id"],
                           "unit": sent.loc[pos["sentence_id"], "sentence"].str.strip().to_numpy(), "relevant": 1})
    subdoc = subdoc[subdoc["query_id"].isin(with_pos)]
    qrels = subdoc[["query_id", "doc_id"]].drop_duplicates().assign(relevance=1)
    qrels["relevance"] = qrels["relevance"].astype("int64")
    return docs, queries, qrels, subdoc



def load_dl19_run(shared: Path, docs, queries, depth: int = 100):
    """The official DL19 ``bm25base_p`` run, top-``depth``, restricted to passages with texts."""
    from ranklens.io import read_run
    from ranklens.io.frames import rank_run

    run = rank_run(read_run(shared / "trec_dl_runs/official/dl19/bm25base_p.top100.run.gz"))
    run = run[(run["rank"] <= depth) & run["doc_id"].isin(set(docs)) & run["query_id"].isin(set(queries["query_id"]))]
    return run[["query_id", "doc_id"]]


def run_part(name, docs, queries, qrels, cand, out, args, *, subdoc=None, pool=None,
             granularities=("sentence", "window:5"), maxp=False):
    from ranklens.specs import make_embedder
    from ranklens.engine import ScoringEngine
    from ranklens.explain import OcclusionExplainer, explanation_consistency, explanation_sweep, rank_candidates
    from ranklens.specs import make_ranker

    engine = ScoringEngine(str(out / "cache"))
    texts = list(docs.values())
    spec = (lambda s: f"maxp:{s}:3") if maxp else (lambda s: s)
    tiers = {"lexical": ({m: make_ranker(spec(m), corpus=texts) for m in ("bm25", "tfidf")}, args.queries),
             "neural": ({"minilm": make_ranker(spec("minilm"))}, args.neural_queries)}
    emb = make_embedder("minilm") if subdoc is not None else None
    # the paper's document task: greedy eq. 5 over 3-sentence chunks for every page of > 3 sentences
    explainer = OcclusionExplainer(samples=args.samples, long_document="auto" if maxp else "never",
                                    long_document_sentences=3)
    for tier, (rankers, nq) in tiers.items():
        if nq == 0:
            continue
        if tier == "neural" and name in args.neural_sentence_only.split(","):
            granularities = ("sentence",)  # MiniLM over every masked window of every abstract: too slow here
        qs = queries.head(nq)
        c = cand
        if pool is not None:
            c = rank_candidates(make_ranker("bm25", corpus=texts), qs, docs, engine=engine)
            c = c[c["rank"] <= pool][["query_id", "doc_id"]]
        elif c is not None:
            c = c[c["query_id"].isin(set(qs["query_id"]))]
        t0 = time.time()
        kw = dict(qrels=qrels, pairs=c, ks=(10, 50), mer_k=10, engine=engine, subdoc=subdoc, embedder=emb,
                  explainer=explainer)
        res = explanation_consistency(rankers, qs, docs, granularities=granularities, **kw)
        res.save(out / f"{name}-{tier}-consistency")
        log(f"{name} {tier}: {len(qs)} queries, {time.time() - t0:.0f}s")
        print(res.tables["summary"].to_string(index=False, float_format="%.4f"), flush=True)
        print(res.tables["unit_diagnostics"].to_string(index=False, float_format="%.3f"), flush=True)
        print(res.tables["ci"].to_string(index=False, float_format="%.4f"), flush=True)
        if len(res.tables["comparisons"]):
            print(res.tables["comparisons"].to_string(index=False, float_format="%.4f"), flush=True)
        for w in res.warnings:
            log(f"warning: {w}")
        sw = explanation_sweep(rankers, qs, docs, ms=(1, 3, 5), granularities=granularities, **kw)
        sw.save(out / f"{name}-{tier}-sweep")
        print(sw.table.to_string(index=False, float_format="%.4f"), flush=True)
        if subdoc is not None:
            _mer_variants(rankers, qs, docs, kw, out / f"{name}-{tier}", args, texts)


def window_sweep(docs, queries, qrels, cand, out, args):
    """Paper Fig. 2: MRC@10 as a function of the window width w for m = 1, 3, 5."""
    from ranklens.engine import ScoringEngine
    from ranklens.explain import OcclusionExplainer, explanation_sweep
    from ranklens.specs import make_ranker

    texts = list(docs.values())
    rankers = {m: make_ranker(m, corpus=texts) for m in ("bm25", "tfidf")}
    c = cand[cand["query_id"].isin(set(queries["query_id"]))]
    sw = explanation_sweep(rankers, queries, docs, ms=(1, 3, 5), windows=(1, 3, 5, 7, 9, 11), granularities=(),
                           qrels=qrels, pairs=c, ks=(10,), engine=ScoringEngine(str(out / "cache")),
                           explainer=OcclusionExplainer(samples=args.w_samples))
    sw.save(out / "dl19-window-sweep")
    log(f"dl19 window sweep: {len(queries)} queries")
    wide = sw.table.pivot_table(index=["model", "m"], columns="granularity", values="MRC@10")
    print(wide[[f"window:{w}" for w in (1, 3, 5, 7, 9, 11)]].to_string(float_format="%.4f"), flush=True)


def _mer_variants(rankers, qs, docs, kw, out, args, texts):
    """MER@50 (eq. 3), MER@10 with the former ``skip``, and (``--mer-tfidf``) MER with tf-idf cosine."""
    from ranklens.specs import make_embedder
    from ranklens.explain import explanation_sweep

    runs = [("MER@50 (eq. 3)", dict(kw, mer_k=50)), ("MER@10 skip (former default)", dict(kw, mer_missing="skip"))]
    if args.mer_tfidf:
        runs.append(("MER@10 tf-idf cosine", dict(kw, embedder=make_embedder("tfidf", corpus=texts))))
    for label, k in runs:
        sw = explanation_sweep(rankers, qs, docs, ms=(1, 3, 5), granularities=("sentence",), **k)
        sw.save(Path(f"{out}-{re.sub(r'[^A-Za-z0-9@]+', '-', label).strip('-')}"))
        log(f"{out.name}: {label}")
        print(sw.table.to_string(index=False, float_format="%.4f"), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--out", default="benchmarks/out/explain")
    ap.add_argument("--parts", default="segmenters,cranfield,dl19,dl19run,wikiqa")
    ap.add_argument("--queries", type=int, default=30)
    ap.add_argument("--neural-queries", type=int, default=5)
    ap.add_argument("--pool", type=int, default=100, help="Cranfield BM25 pool depth (paper: 1000)")
    ap.add_argument("--samples", type=int, default=0, help="masked sets per document (0: every combination)")
    ap.add_argument("--w-samples", type=int, default=100, help="masked sets per passage in the window sweep")
    ap.add_argument("--wikiqa-pool", type=int, default=50, help="BM25 pages per WikiQA question")
    ap.add_argument("--neural-sentence-only", default="cranfield", help="parts whose neural tier uses sentences only")
    ap.add_argument("--mer-tfidf", action="store_true", help="also MER with tf-idf cosine (bag-of-words)")
    args = ap.parse_args()
    shared, out = Path(args.shared), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for part in args.parts.split(","):
        if part == "segmenters":
            part_segmenters(shared, out, args)
        elif part == "cranfield":
            docs, queries, qrels = load_cranfield(shared)
            run_part("cranfield", docs, queries, qrels, None, out, args, pool=args.pool)
        elif part == "dl19":
            docs, queries, qrels, cand = load_dl19(shared)
            run_part("dl19", docs, queries, qrels, cand, out, args)
        elif part == "dl19w":
            docs, queries, qrels, cand = load_dl19(shared)
            window_sweep(docs, queries.head(args.queries), qrels, cand, out, args)
        elif part == "dl19run":
            docs, queries, qrels, _ = load_dl19(shared)
            run = load_dl19_run(shared, docs, queries)
            ok = run.groupby("query_id").size().loc[lambda s: s >= 20].index
            log(f"dl19run: {len(ok)} queries with >= 20 of the bm25base_p top-100 having texts")
            run_part("dl19run", docs, queries[queries["query_id"].isin(set(ok))], qrels, run, out, args)
        elif part == "wikiqa":
            from ranklens.explain import read_subdoc_qrels

            docs, queries, qrels, subdoc = load_wikiqa(shared, max(args.queries, args.neural_queries))
            # the paper's document task: MaxP rankers, sentence rationales by greedy eq. 5
            run_part("wikiqa", docs, queries, qrels, None, out, args, subdoc=read_subdoc_qrels(subdoc),
                     pool=args.wikiqa_pool, granularities=("sentence",), maxp=True)


if __name__ == "__main__":
    main()
