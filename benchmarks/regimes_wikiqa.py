"""Interpolation vs. extrapolation on WikiQA, OOD correlation on Cranfield/CISI/CACM/NPL, and the
TREC DL 2019/2020 vs. MS MARCO dev-small query diagnostics (issue 6 real-data checks).

Run once, in the background (about 20 minutes on 2 shared CPU cores):

    nohup python benchmarks/regimes_wikiqa.py > benchmarks/out/regimes_wikiqa.log 2>&1 &

Resumable: trained variants live under ``benchmarks/out/regimes_wikiqa/models`` and scores in
the engine cache under ``benchmarks/out/regimes_wikiqa/cache``; a re-run skips both.

Speed section: each timing is printed as a ratio against a named peer measured in the same run
(ranklens sparse BM25 query-vs-query top-10 vs. ``bm25s``; exact blocked matmul vs. FAISS).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("RANKLENS_PROGRESS", "0")

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("RANKLENS_SHARED_DATA", REPO.parent / "shared" / "data"))


def log(*a):
    print(f"[{time.strftime('%H:%M:%S')}]", *a, flush=True)


def speed_section(train_texts, test_texts, embedder, engine):
    """Nearest-query search timings against named peers."""
    import bm25s

    from ranklens.resampling.similarity import embed_queries, nearest_queries

    # warm both sides first (imports, stemmer and stop-word tables), so only the search is timed
    nearest_queries(test_texts[:5], train_texts[:50], method="bm25", k=3)
    bm25s.BM25().index(bm25s.tokenize(list(train_texts[:50]), stopwords="en", show_progress=False),
                       show_progress=False)
    t = time.perf_counter()
    idx_ours, _ = nearest_queries(test_texts, train_texts, method="bm25", k=10)
    ours = time.perf_counter() - t
    t = time.perf_counter()
    tok = bm25s.tokenize(list(train_texts), stopwords="en", show_progress=False)
    model = bm25s.BM25(k1=0.9, b=0.4)
    model.index(tok, show_progress=False)
    res, _ = model.retrieve(bm25s.tokenize(list(test_texts), stopwords="en", show_progress=False), k=10,
                            show_progress=False)
    peer = time.perf_counter() - t
    top1 = float(np.mean(idx_ours[:, 0] == np.asarray(res)[:, 0]))
    log(f"speed: ranklens bm25 query-vs-query top-10 {ours:.3f}s vs bm25s {peer:.3f}s: ratio {ours / peer:.2f}x "
        f"(top-1 agreement {top1:.3f}; tokenisers differ)")
    embed_queries(embedder, list(train_texts) + list(test_texts), engine=engine)  # warm the cache
    t = time.perf_counter()
    ie, _ = nearest_queries(test_texts, train_texts, method=embedder, k=10, engine=engine)
    ex = time.perf_counter() - t
    t = time.perf_counter()
    iff, _ = nearest_queries(test_texts, train_texts, method=embedder, k=10, engine=engine, backend="faiss")
    fa = time.perf_counter() - t
    log(f"speed: exact blocked matmul kNN {ex:.3f}s vs faiss IndexFlatIP {fa:.3f}s: ratio {ex / fa:.2f}x "
        f"(top-1 agreement {float(np.mean(ie[:, 0] == iff[:, 0])):.3f})")
    return {"bm25_ours_s": ours, "bm25s_s": peer, "bm25_ratio": ours / peer, "bm25_top1_agreement": top1,
            "exact_s": ex, "faiss_s": fa, "exact_vs_faiss_ratio": ex / fa}


def diagnostics_wikiqa(w, embedder, engine, out):
    from ranklens.resampling import export_annotation_sheet, label_overlap, near_duplicates, query_similarity

    res = {}
    for name, method in (("bm25", "bm25"), ("minilm", embedder)):
        sim = query_similarity(w.test_queries, w.train_queries, method=method, k=10, engine=engine)
        sim.save(out / f"query-similarity-wikiqa-{name}")
        res[f"similarity_{name}"] = sim.summary
        log(f"wikiqa test->train nearest {name}: mean {sim.summary['nn_mean']:.4f} median "
            f"{sim.summary['nn_median']:.4f} q90 {sim.summary['nn_q90']:.4f}")
        if name == "minilm":
            for thr in (0.8, 0.9):
                nd = near_duplicates(sim, w.test_queries, w.train_queries, threshold=thr)
                res[f"near_duplicates_cos{thr}"] = len(nd)
                log(f"wikiqa near-duplicates (MiniLM cosine >= {thr}): {len(nd)} of {len(w.test_queries)} test queries")
                if thr == 0.9:
                    nd.to_csv(out / "wikiqa_near_duplicates.tsv", sep="\t", index=False)
                    for r in nd.head(5).itertuples():
                        log(f"   {r.score:.3f}  {r.test_query!r}  ~  {r.train_query!r}")
            export_annotation_sheet(sim, w.test_queries, w.train_queries, out / "wikiqa_annotation_sheet.csv",
                                    top_n=3, sample=50)
    test_qrels = w.qrels.loc[w.qrels["query_id"].isin(set(w.test_queries["query_id"]))]
    train_qrels = w.qrels.loc[w.qrels["query_id"].isin(set(w.train_queries["query_id"]))]
    for ms in (1, 2):
        lo = label_overlap(test_qrels, train_qrels, thresholds=(1,), min_shared=ms)
        lo.save(out / f"label-overlap-wikiqa-min{ms}")
        res[f"label_overlap_min{ms}"] = lo.summary
        log(f"wikiqa label overlap (>= {ms} shared positive): {lo.summary['share@1']:.4f} of "
            f"{lo.summary['n_queries@1']} test queries with a positive")
    return res


def diagnostics_dl(embedder, engine, out):
    from ranklens.resampling import label_overlap, near_duplicates, query_similarity
    from ranklens.resampling.data import load_dl_vs_dev

    d = load_dl_vs_dev(DATA / "trec_dl_msmarco_passage")
    res = {}
    for year in ("dl19", "dl20"):
        for name, method in (("bm25", "bm25"), ("minilm", embedder)):
            sim = query_similarity(d[f"{year}_queries"], d["dev_queries"], method=method, k=10, engine=engine)
            sim.save(out / f"query-similarity-{year}-vs-dev-{name}")
            res[f"{year}_{name}"] = sim.summary
            log(f"{year} -> dev-small nearest {name}: mean {sim.summary['nn_mean']:.4f} median "
                f"{sim.summary['nn_median']:.4f} q90 {sim.summary['nn_q90']:.4f} (n={sim.summary['n_test']})")
            if name == "minilm":
                nd = near_duplicates(sim, d[f"{year}_queries"], d["dev_queries"], threshold=0.9)
                nd.to_csv(out / f"{year}_near_duplicates.tsv", sep="\t", index=False)
                res[f"{year}_near_duplicates_cos0.9"] = len(nd)
                log(f"{year} near-duplicates of dev-small queries (cosine >= 0.9): {len(nd)}")
                for r in nd.head(3).itertuples():
                    log(f"   {r.score:.3f}  {r.test_query!r}  ~  {r.train_query!r}")
        lo = label_overlap(d[f"{year}_qrels"], d["dev_qrels"], thresholds=(1, 2, 3))
        res[f"{year}_label_overlap"] = lo.summary
        log(f"{year} judged passages that are dev-small positives (by passage id): "
            + ", ".join(f"rel>={t}: {lo.summary[f'share@{t}']:.4f}" for t in (1, 2, 3)))
    return res


def run_phase(trainers, splits, allq, w, engine, out, args, tag):
    """Train (resumable), evaluate both regimes, OOD zero-shot, correlations; log the tables."""
    from ranklens.io import load_collection
    from ranklens.resampling import (
        bm25_first_stage,
        evaluate_collection,
        evaluate_regimes,
        ood_correlation,
        plot_ood,
        queries_with_positives,
        train_variants,
        variant_scores,
    )

    summary = {}
    t0 = time.time()
    variants = train_variants(trainers, splits, allq, w.qrels, w.corpus, out / "models", engine=engine,
                              on_variant=lambda v: log(f"trained {v.trainer} on {v.split} {v.regimes} "
                                                       f"({'resumed' if v.resumed else f'{v.seconds:.0f}s'})"))
    log(f"training done in {time.time() - t0:.0f}s ({len(variants)} variants)")
    t0 = time.time()
    reg = evaluate_regimes(variants, splits, allq, w.qrels, w.corpus, measures=("nDCG@10", "RR@10", "R@3"),
                           engine=engine)
    reg.save(out / f"regime-table-wikiqa-{tag}")
    log(f"evaluation done in {time.time() - t0:.0f}s")
    paper = reg.tables["paper"]
    with pd.option_context("display.width", 250, "display.max_columns", 20, "display.float_format", "{:.4f}".format):
        log("REGIME TABLE (WikiQA, judged candidate pools, test queries with >= 1 positive):\n"
            + paper.to_string(index=False))
        log("paired tests:\n" + reg.tables["regime_table"][
            ["model", "setting", "measure", "n_paired", "t_pvalue", "randomization_pvalue", "wilcoxon_pvalue"]
        ].to_string(index=False))
    summary["regime_table"] = paper.to_dict(orient="records")

    t0 = time.time()
    rt_variants = [v for v in variants if v.split.startswith("resttest")]
    ood_rows = []
    os.environ.setdefault("RANKLENS_SHARED_DATA", str(DATA))
    for name in ("cranfield", "cisi", "cacm", "npl"):
        c = load_collection(name)
        judged = queries_with_positives(c.queries[["query_id", "text"]], c.qrels)
        rng = np.random.default_rng(0)
        pick = judged.iloc[np.sort(rng.choice(len(judged), size=min(args.ood_queries, len(judged)), replace=False))]
        corpus = dict(c.docs.iter_docs())
        cand = bm25_first_stage(pick, corpus, depth=args.ood_depth)
        ood_rows.append(evaluate_collection(rt_variants, name, pick, c.qrels, corpus, cand, measure="nDCG@10",
                                            engine=engine))
        log(f"OOD {name}: {len(pick)} queries x {args.ood_depth} BM25 candidates evaluated")
    ood = pd.concat(ood_rows, ignore_index=True)
    ood.to_csv(out / f"ood_scores-{tag}.tsv", sep="\t", index=False)
    corr = ood_correlation(variant_scores(reg, measure="nDCG@10"), ood)
    corr.save(out / f"ood-correlation-{tag}")
    plot_ood(corr).savefig(out / f"ood-correlation-{tag}.png", dpi=110)
    with pd.option_context("display.width", 250, "display.float_format", "{:.4f}".format):
        log("OOD scores (nDCG@10) per variant:\n"
            + ood.pivot_table(index="variant", columns="collection", values="value").to_string())
        log("OOD CORRELATION (across ReSTTest variants, nDCG@10):\n" + corr.table.to_string(index=False))
    log(f"OOD done in {time.time() - t0:.0f}s")
    summary["ood_correlation"] = corr.table.to_dict(orient="records")
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "out" / "regimes_wikiqa"))
    ap.add_argument("--sizes", default="120,300", help="ReSTrain interpolation-set sizes")
    ap.add_argument("--buckets", type=int, default=5)
    ap.add_argument("--max-steps", type=int, default=12, help="bi-encoder optimiser steps per variant")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--ood-queries", type=int, default=25, help="judged queries per OOD collection")
    ap.add_argument("--ood-depth", type=int, default=10, help="BM25 candidates re-ranked per OOD query")
    ap.add_argument("--skip-bi-encoder", action="store_true")
    ap.add_argument("--skip-diagnostics", action="store_true", help="re-runs: diagnostics already logged")
    args = ap.parse_args(argv)

    from ranklens.embedders import SentenceTransformerEmbedder
    from ranklens.engine import ScoringEngine
    from ranklens.io import load_collection
    from ranklens.resampling import (
    BiEncoderTrainer,
    BM25Trainer,
    CallableTrainer,
    FineTunedBiEncoderRanker,
    MemorizingTrainer,
    ReSTrain,
    ReSTTest,
    bm25_first_stage,
    evaluate_collection,
    evaluate_regimes,
    ood_correlation,
    plot_ood,
    plot_split_pca,
    queries_with_positives,
    split_similarity_stats,
    train_variants,
    variant_scores,
    )
    from ranklens.resampling.data import load_wikiqa
    from ranklens._models import default_model_path

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    engine = ScoringEngine(cache=out / "cache")
    embedder = SentenceTransformerEmbedder(max_seq_length=128)
    t_all = time.time()
    summary: dict = {}

    w = load_wikiqa(DATA / "wikiqa")
    log(f"wikiqa: {len(w.train_queries)} train / {len(w.dev_queries)} dev / {len(w.test_queries)} test queries, "
        f"{len(w.corpus)} sentences")
    if not args.skip_diagnostics:
        summary["speed"] = speed_section(w.train_queries["text"].tolist(), w.test_queries["text"].tolist(), embedder,
                                         engine)
        summary["wikiqa_diagnostics"] = diagnostics_wikiqa(w, embedder, engine, out)
        summary["dl_diagnostics"] = diagnostics_dl(embedder, engine, out)
        log(f"diagnostics done in {time.time() - t_all:.0f}s")

    # ---------------------------------------------------------------- splits
    train_pool = queries_with_positives(w.train_queries, w.qrels)
    test = queries_with_positives(w.test_queries, w.qrels)
    allq = pd.concat([w.train_queries, w.test_queries], ignore_index=True)
    splits = []
    for size in [int(s) for s in args.sizes.split(",")]:
        splits += ReSTrain(size=size, similarity="bm25", seed=0, name=f"restrain-{size}").fit(train_pool, test).splits_
    rt = ReSTTest(n_buckets=args.buckets, vectors=embedder, seed=0).fit(train_pool, test, engine=engine)
    splits += rt.splits_
    stats = []
    for s in splits:
        st = split_similarity_stats(s, allq, method=embedder, engine=engine)
        s.save(out / "splits" / s.name, qrels=w.qrels, stats=st)
        stats.append(st)
    stats = pd.concat(stats, ignore_index=True)
    log("splits (nearest-training-query MiniLM cosine of the test queries):\n" + stats.to_string(index=False))
    summary["split_stats"] = stats.to_dict(orient="records")
    for s in (splits[0], splits[len(splits) - args.buckets]):
        plot_split_pca(s, allq, vectors=embedder, engine=engine).savefig(out / f"pca-{s.name}.png", dpi=110)

    # ---------------------------------------------------------------- training
    base_path = default_model_path()

    def zero_shot(train_queries, qrels, corpus):
        """Un-tuned MiniLM: the same model whatever the training set (a control)."""
        return FineTunedBiEncoderRanker(path=base_path, training_id="zero-shot")

    cheap = [MemorizingTrainer(), BM25Trainer(k1_grid=(0.6, 1.2, 2.0), b_grid=(0.3, 0.6, 0.9)),
             CallableTrainer(fn=zero_shot, name="minilm-zero-shot")]
    phases = [("A", cheap)]
    if not args.skip_bi_encoder:
        phases.append(("B", cheap + [BiEncoderTrainer(
            max_steps=args.max_steps, batch_size=args.batch_size, max_seq_length=128, seed=0, name="minilm-ft")]))
    for phase, trainers in phases:
        log(f"=== phase {phase}")
        summary[f"phase {phase}"] = run_phase(trainers, splits, allq, w, engine, out, args, phase)
        (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    summary["seconds_total"] = time.time() - t_all
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    log(f"total {time.time() - t_all:.0f}s; results under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
