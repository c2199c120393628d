"""Interpolation vs. extrapolation on WikiQA as the paper defines it (issue 18 real-data checks).

WikiQA's 873 training questions with a positive are the training pool, its 243 test questions
with a positive the test set, the 26,270 sentences the corpus. Query similarity: MiniLM
embeddings (the paper: dense embeddings). Splits: ReSTrain (top-k rule, k = 1; the ``fill`` rule
at size 100 and the top-k rule at size 100 are shown for what they lose / refuse) and ReSTTest
(K = 5 on MiniLM vectors). Models: tuned BM25 and the memorising baseline; with ``--neural``
also un-tuned MiniLM (control) and a fine-tuned MiniLM bi-encoder (40 steps of 32 pairs per
variant, the same budget for all; no dev-set selection -- both recorded in the result's
``provenance.params["trainers"]``). Measured on 2 shared CPU cores (load 4-5, 1 torch thread):
training ~2.5-3 min per variant, encoding the 26.4k sentences + queries ~5 min per trained model
(once: both regimes of a variant and every split of the zero-shot control share the vector
cache); ``--only restrain`` took 26 min, each ReSTTest fold ~8-9 min more. Evaluation: ``auto``
(BM25 and bi-encoders retrieve the top 1000 from the whole corpus, the memorising model
re-ranks BM25's top 1000), and ``judged`` for the memorising model to show the degenerate
protocol. Also the TREC DL 2019/2020 vs MS MARCO dev-small diagnostics.

    flock /tmp/ranklens-heavy.lock python benchmarks/regimes_wikiqa.py > benchmarks/out/regimes_wikiqa.log 2>&1
    # in chunks (resumable): --neural --epochs 6 --only restrain; then --only resttest --folds 0, 1, ...

Resumable: trained variants under ``benchmarks/out/regimes_wikiqa/models``, scores and vectors in
the engine cache under ``benchmarks/out/regimes_wikiqa/cache``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import pandas as pd
from _harness import data_root

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("RANKLENS_PROGRESS", "0")

REPO = Path(__file__).resolve().parents[1]
DATA = data_root()
FMT = {"display.width": 250, "display.max_columns": 30, "display.float_format": "{:.4f}".format}


def log(*a):
    print(f"[{time.strftime('%H:%M:%S')}]", *a, flush=True)


def diagnostics(w, pool, test, embedder, engine, out):
    from ranklens.regimes import label_overlap, query_similarity
    from ranklens.regimes.data import load_dl_vs_dev

    res = {}
    for name, method in (("bm25", "bm25"), ("minilm", embedder)):
        sim = query_similarity(test, pool, method=method, k=10, engine=engine)
        res[f"wikiqa_{name}"] = sim.summary
        log(f"wikiqa test->train nearest {name}: mean {sim.summary['nn_mean']:.4f} median "
            f"{sim.summary['nn_median']:.4f}; zero-similarity test queries {sim.summary['n_zero_nearest']}")
    tq = w.qrels.loc[w.qrels["query_id"].isin(set(test["query_id"]))]
    trq = w.qrels.loc[w.qrels["query_id"].isin(set(pool["query_id"]))]
    lo = label_overlap(tq, trq)
    log(f"wikiqa label overlap: {lo.summary['share@1']:.4f} of {lo.summary['n_queries@1']} test queries with a "
        f"positive (the paper's denominator); {lo.summary['share_of_all@1']:.4f} of all judged test queries")
    d = load_dl_vs_dev(DATA / "trec_dl_msmarco_passage")
    for year in ("dl19", "dl20"):
        sim = query_similarity(d[f"{year}_queries"], d["dev_queries"], method=embedder, k=10, engine=engine)
        lo = label_overlap(d[f"{year}_qrels"], d["dev_qrels"], thresholds=(1, 2, 3))
        res[year] = {"nn_mean": sim.summary["nn_mean"], **lo.summary}
        log(f"{year} -> dev-small MiniLM nearest mean {sim.summary['nn_mean']:.4f}; label overlap "
            + ", ".join(f"rel>={t}: {lo.summary[f'share@{t}']:.4f}" for t in (1, 2, 3)))
    return res


def make_splits(pool, test, embedder, engine):
    from ranklens.regimes import ReSTrain, ReSTTest

    out, warns = [], []
    for name, kw in (("restrain-k1", {}), ("restrain-fill100", {"size": 100, "size_rule": "fill"})):
        f = ReSTrain(similarity=embedder, seed=0, name=name, **kw).fit(pool, test, engine=engine)
        if name == "restrain-k1":  # the fill split is shown for what it loses, not trained
            out += f.splits_
        warns += f.warnings
        p = f.splits_[0].params
        log(f"{name}: interpolation set {len(f.splits_[0].train_ids('interpolation'))}, k_used {p['k_used']}, "
            f"k'_used {p['k_exclude_used']}, test queries lacking their nearest: {p['n_test_lacking_nearest']}")
    try:
        ReSTrain(similarity=embedder, size=100, name="topk100").fit(pool, test, engine=engine)
    except Exception as exc:  # noqa: BLE001 - the refusal is the point
        log(f"ReSTrain size=100 under the paper's top-k rule: {exc}")
    rt = ReSTTest(n_buckets=5, vectors=embedder, seed=0).fit(pool, test, engine=engine)
    out += rt.splits_
    warns += rt.warnings
    b = rt.bucket_
    log("ReSTTest buckets (train/test): " + ", ".join(
        f"{(b[(b.bucket == i) & (b.part == 'train')]).shape[0]}/{(b[(b.bucket == i) & (b.part == 'test')]).shape[0]}"
        for i in range(5)))
    for x in warns:
        log(f"warning: {x}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "out" / "regimes_wikiqa"))
    ap.add_argument("--max-steps", type=int, default=40,
                    help="bi-encoder optimiser steps per variant (the same budget for every variant)")
    ap.add_argument("--epochs", type=int, default=6,
                    help="epochs the step budget is cut from (6: the ~240 ReSTrain pairs give 7 batches an epoch, so every variant reaches --max-steps)")
    ap.add_argument("--batch-size", type=int, default=32, help="bi-encoder pairs per step (in-batch negatives)")
    ap.add_argument("--max-seq-length", type=int, default=128, help="MiniLM tokens per text (training and encoding)")
    ap.add_argument("--seed", type=int, default=0, help="bi-encoder training seed")
    ap.add_argument("--only", choices=("all", "restrain", "resttest"), default="all",
                    help="train/evaluate only these splits (run in chunks; models and vectors are cached)")
    ap.add_argument("--folds", default="", help="with --only resttest: comma-separated folds to run (default all; "
                    "a subset is a partial ReSTTest, named in the output file)")
    ap.add_argument("--torch-threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    ap.add_argument("--no-diagnostics", action="store_true", help="skip the similarity / DL19-DL20 diagnostics")
    ap.add_argument("--neural", action="store_true", help="also MiniLM zero-shot and the fine-tuned bi-encoder")
    args = ap.parse_args(argv)

    from ranklens._models import default_model_path
    from ranklens.embedders import SentenceTransformerEmbedder
    from ranklens.engine import ScoringEngine
    from ranklens.regimes import (
        BiEncoderTrainer,
        BM25Trainer,
        CallableTrainer,
        FineTunedBiEncoderRanker,
        MemorizingTrainer,
        evaluate_regimes,
        queries_with_positives,
        train_variants,
    )
    from ranklens.io.pairs import load_wikiqa

    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    engine = ScoringEngine(cache=out / "cache")
    embedder = SentenceTransformerEmbedder(max_seq_length=128)
    t0 = time.time()
    w = load_wikiqa(DATA / "wikiqa")
    pool, test = queries_with_positives(w.train_queries, w.qrels), queries_with_positives(w.test_queries, w.qrels)
    allq = pd.concat([w.train_queries, w.test_queries], ignore_index=True)
    log(f"wikiqa: pool {len(pool)}, test {len(test)}, corpus {len(w.corpus)}")
    summary = {"args": vars(args)}
    if not args.no_diagnostics:
        summary["diagnostics"] = diagnostics(w, pool, test, embedder, engine, out)
    splits = make_splits(pool, test, embedder, engine)
    if args.only != "all":
        splits = [s for s in splits if (s.fold is None) == (args.only == "restrain")]
    if args.folds:
        keep = {int(x) for x in args.folds.split(",")}
        splits = [s for s in splits if s.fold is None or s.fold in keep]
    tag = args.only + (f"-folds{args.folds.replace(',', '')}" if args.folds else "")
    log("splits: " + ", ".join(s.name for s in splits))
    base = default_model_path()

    def zero_shot(train_queries, qrels, corpus):
        """Un-tuned MiniLM: the same model whatever the training set (a control)."""
        return FineTunedBiEncoderRanker(model=base, training_id="zero-shot")

    trainers = [BM25Trainer(k1_grid=(0.6, 0.9, 1.2), b_grid=(0.4, 0.75)), MemorizingTrainer()]
    if args.neural:
        trainers += [CallableTrainer(fn=zero_shot, name="minilm-zero-shot"),
                     BiEncoderTrainer(max_steps=args.max_steps, epochs=args.epochs, batch_size=args.batch_size,
                                      max_seq_length=args.max_seq_length, seed=args.seed, name="minilm-ft")]

    def on_variant(v):
        info = json.loads((Path(v.output_dir) / "done.json").read_text())
        log(f"trained {v.trainer} on {v.split} {v.regimes} in {v.seconds:.0f}s (resumed {v.resumed}); "
            + ", ".join(f"{k} {info[k]}" for k in ("steps", "pairs", "loss_first", "loss_last", "k1", "b") if k in info))

    variants = train_variants(trainers, splits, allq, w.qrels, w.corpus, out / "models", engine=engine,
                              on_variant=on_variant)
    for mode, vs in (("auto", variants), ("judged", [v for v in variants if v.trainer == "memorizing"])):
        t1 = time.time()
        reg = evaluate_regimes(vs, splits, allq, w.qrels, w.corpus, evaluation=mode, engine=engine)
        reg.save(out / f"regime-table-{mode}-{tag}")
        t = reg.tables["regime_table"]
        with pd.option_context(*[x for kv in FMT.items() for x in kv]):
            log(f"REGIME TABLE ({mode}):\n" + reg.tables["paper"].to_string(index=False))
            log("CIs / tests / ties:\n" + t[["model", "setting", "measure", "diff_paired", "diff_ci_low",
                                             "diff_ci_high", "randomization_pvalue", "tied_top10_interpolation",
                                             "tied_top10_extrapolation"]].to_string(index=False))
        for x in reg.warnings:
            log(f"warning: {x}")
        log(f"evaluation {mode}: {time.time() - t1:.0f}s")
        summary[f"regime_{mode}"] = reg.tables["paper"].to_dict(orient="records")
    summary["seconds"] = time.time() - t0
    (out / f"summary-{tag}.json").write_text(json.dumps(summary, indent=2, default=str))
    log(f"total {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
