"""``ranklens resample``: interpolation vs. extrapolation (train/test query overlap, ReSTrain, ReSTTest).

Examples::

    W=../shared/data/wikiqa/derived
    ranklens resample diagnose --train-queries $W/queries.train.tsv --test-queries $W/queries.test.tsv \\
        --qrels $W/qrels.train.trec --qrels $W/qrels.test.trec --similarity minilm --sheet out/sheet.csv --out out/diag
    ranklens resample restrain --train-queries ... --test-queries ... --qrels ... --size 120 --size 300 --out out/splits
    ranklens resample resttest --train-queries ... --test-queries ... --qrels ... --buckets 5 --out out/splits
    ranklens resample evaluate --splits out/splits --train-queries ... --test-queries ... --qrels ... \\
        --corpus $W/corpus.tsv --trainer bm25 --trainer memorizing --trainer bi-encoder --ood cranfield --out out/eval
    ranklens resample annotations A.csv B.csv
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ACTIONS = ("diagnose", "restrain", "resttest", "train", "evaluate", "annotations")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "resample",
        help="interpolation vs. extrapolation: query-overlap diagnostics, ReSTrain/ReSTTest, retraining",
        description=(__doc__ or "").split("\n\n")[0],
        epilog=(__doc__ or "").split("\n\n", 1)[1] if "\n\n" in (__doc__ or "") else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("action", choices=ACTIONS)
    p.add_argument("sheets", nargs="*", help="annotations: filled annotation sheets (CSV), one per annotator")
    p.add_argument("--train-queries", help="training queries (TSV id<TAB>text with/without header, JSONL, topics)")
    p.add_argument("--test-queries", help="test queries")
    p.add_argument("--qrels", action="append", default=[], help="qrels file(s) (TREC); repeatable")
    p.add_argument("--corpus", help="documents: JSONL/TSV (corpus.tsv with sentence_id/sentence works too)")
    p.add_argument("--similarity", default="bm25", help="bm25, tfidf or an embedder spec (minilm, st:PATH, ...)")
    p.add_argument("--backend", default="exact", choices=["exact", "faiss"])
    p.add_argument("-k", type=int, default=10, help="diagnose: neighbours per test query; restrain: k")
    p.add_argument("--near-dup-threshold", type=float, default=None,
                   help="diagnose: report test queries whose nearest training query scores >= this")
    p.add_argument("--thresholds", default="1", help="diagnose: relevance thresholds for label overlap, e.g. 1,2,3")
    p.add_argument("--min-shared", type=int, default=1, help="diagnose: shared positives needed (paper 1; script 2)")
    p.add_argument("--sheet", help="diagnose: write an annotation sheet (CSV) here")
    p.add_argument("--top-n", type=int, default=3, help="diagnose: training queries per test query in the sheet")
    p.add_argument("--sample", type=int, default=None, help="diagnose: test queries in the sheet (random)")
    p.add_argument("--size", type=int, action="append", default=[], help="restrain: interpolation-set size (repeatable)")
    p.add_argument("--k-exclude", type=int, default=None, help="restrain: k' neighbours excluded from extrapolation")
    p.add_argument("--buckets", type=int, default=5, help="resttest: k-means buckets")
    p.add_argument("--vectors", default="tfidf", help="resttest: tfidf or an embedder spec")
    p.add_argument("--splits", help="train/evaluate: folder holding split folders (from restrain/resttest)")
    p.add_argument("--trainer", action="append", default=[],
                   help="bm25, memorizing, bi-encoder[:MODEL], cross-encoder[:MODEL], callable:MODULE:FUNC")
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--max-steps", type=int, default=None)
    p.add_argument("--measure", action="append", default=[], help="evaluate: ir_measures names (default nDCG@10 R@100 RR@10)")
    p.add_argument("--random-negatives", type=int, default=0, help="evaluate: random corpus docs added per query")
    p.add_argument("--ood", action="append", default=[],
                   help="evaluate: OOD collection spec (cranfield, cisi, cacm, npl, a directory); repeatable")
    p.add_argument("--ood-queries", type=int, default=50)
    p.add_argument("--ood-depth", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="output directory")
    p.add_argument("--no-plot", action="store_true",
                   help="diagnose: no nearest-neighbour similarity histogram (nn_similarity.png); restrain/resttest: "
                        "no 2-D PCA of each split (split-pca/ result and pca.png next to each split)")
    p.set_defaults(func=run)


def _read_queries(path: str | None, what: str):
    import pandas as pd

    from ..errors import ValidationError
    from ..io import read_queries

    if not path:
        raise ValidationError(f"--{what} is required for this action")
    q = read_queries(path)
    if len(q) and q["query_id"].iloc[0] in {"query_id", "qid", "id"}:  # unrecognised header row
        q = q.iloc[1:].reset_index(drop=True)
    return pd.DataFrame({"query_id": q["query_id"].astype(str).to_numpy(dtype=object),
                         "text": q["text"].astype(str).to_numpy(dtype=object)})


def _read_qrels(paths: list[str]):
    import pandas as pd

    from ..errors import ValidationError
    from ..io import read_qrels

    if not paths:
        raise ValidationError("--qrels is required for this action")
    return pd.concat([read_qrels(p) for p in paths], ignore_index=True).drop_duplicates(["query_id", "doc_id"])


def _read_corpus(path: str | None) -> dict[str, str]:
    import pandas as pd

    from ..errors import ValidationError
    from ..io import read_docs

    if not path:
        raise ValidationError("--corpus is required for this action")
    if path.endswith(".tsv"):
        head = Path(path).open().readline().rstrip("\n").split("\t")
        if "sentence_id" in head and "sentence" in head:
            df = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=3)
            return dict(zip(df["sentence_id"], df["sentence"]))
    return {d: t for d, t in read_docs(path).iter_docs()}


def _method(spec: str) -> Any:
    if spec in ("bm25", "tfidf"):
        return spec
    from ..embedders import make_embedder

    return make_embedder(spec)


def _trainer(spec: str, args: argparse.Namespace) -> Any:
    from ..errors import ValidationError
    from ..resampling import BiEncoderTrainer, BM25Trainer, CallableTrainer, CrossEncoderTrainer, MemorizingTrainer

    kind, _, arg = spec.partition(":")
    common = {"epochs": args.epochs, "batch_size": args.batch_size, "max_steps": args.max_steps, "seed": args.seed}
    if kind == "bm25":
        return BM25Trainer(seed=args.seed)
    if kind in ("memorizing", "memorising"):
        return MemorizingTrainer()
    if kind == "bi-encoder":
        return BiEncoderTrainer(model=arg or "minilm", **common)
    if kind == "cross-encoder":
        return CrossEncoderTrainer(model=arg or "minilm", **common)
    if kind == "callable":
        from ..rankers.callables import load_callable

        return CallableTrainer(fn=load_callable(arg), name=arg.replace(":", "."))
    raise ValidationError(f"unknown trainer {spec!r}; use bm25, memorizing, bi-encoder[:MODEL], "
                          "cross-encoder[:MODEL] or callable:MODULE:FUNC")


def _out(args: argparse.Namespace) -> Path:
    from ..errors import ValidationError

    if not args.out:
        raise ValidationError("--out is required for this action")
    d = Path(args.out)
    d.mkdir(parents=True, exist_ok=True)
    return d


def _diagnose(args: argparse.Namespace) -> int:
    from ..resampling import export_annotation_sheet, label_overlap, near_duplicates, query_similarity

    out = _out(args)
    tr, te = _read_queries(args.train_queries, "train-queries"), _read_queries(args.test_queries, "test-queries")
    sim = query_similarity(te, tr, method=_method(args.similarity), k=args.k, backend=args.backend)
    sim.save(out / "query-similarity")
    if not args.no_plot:
        from ..resampling import plot_nn_similarity

        fig = plot_nn_similarity(sim)
        fig.savefig(out / "nn_similarity.png", dpi=110)
        _close(fig)
    print(f"nearest training query ({sim.summary['method']}): mean {sim.summary['nn_mean']:.4f} "
          f"median {sim.summary['nn_median']:.4f} q90 {sim.summary['nn_q90']:.4f} over {len(te)} test queries")
    if args.qrels:
        qrels = _read_qrels(args.qrels)
        ts = [int(t) for t in args.thresholds.split(",")]
        lo = label_overlap(qrels.loc[qrels["query_id"].isin(set(te["query_id"]))],
                           qrels.loc[qrels["query_id"].isin(set(tr["query_id"]))], thresholds=ts,
                           min_shared=args.min_shared)
        lo.save(out / "label-overlap")
        for t in ts:
            print(f"label overlap (rel >= {t}, >= {args.min_shared} shared): {lo.summary[f'share@{t}']:.4f} "
                  f"of {lo.summary[f'n_queries@{t}']} test queries")
    if args.near_dup_threshold is not None:
        nd = near_duplicates(sim, te, tr, threshold=args.near_dup_threshold)
        nd.to_csv(out / "near_duplicates.tsv", sep="\t", index=False)
        print(f"near duplicates (>= {args.near_dup_threshold}): {len(nd)}")
        for r in nd.head(10).itertuples():
            print(f"  {r.score:.3f}\t{r.test_query}\t{r.train_query}")
    if args.sheet:
        p = export_annotation_sheet(sim, te, tr, args.sheet, top_n=args.top_n, sample=args.sample, seed=args.seed)
        print(f"annotation sheet: {p}")
    return 0


def _splits(args: argparse.Namespace) -> int:
    import pandas as pd

    from ..resampling import (
        ReSTrain,
        ReSTTest,
        plot_split_pca_result,
        queries_with_positives,
        split_pca,
        split_similarity_stats,
    )

    out = _out(args)
    tr, te = _read_queries(args.train_queries, "train-queries"), _read_queries(args.test_queries, "test-queries")
    qrels = _read_qrels(args.qrels) if args.qrels else None
    if qrels is not None:
        tr, te = queries_with_positives(tr, qrels), queries_with_positives(te, qrels)
    similarity = _method(args.similarity)
    if args.action == "restrain":
        sizes = args.size or [None]
        splits = []
        for size in sizes:
            name = f"restrain-{size}" if size else f"restrain-k{args.k}"
            splits += ReSTrain(k=args.k if size is None else 1, size=size, k_exclude=args.k_exclude,
                               similarity=similarity, seed=args.seed, backend=args.backend,
                               name=name).fit(tr, te).splits_
        # PCA of embedder vectors when the similarity is an embedder, else of TF-IDF (BM25 has no vectors)
        pca_vectors = similarity if not isinstance(similarity, str) else "tfidf"
    else:
        pca_vectors = _method(args.vectors)
        splits = ReSTTest(n_buckets=args.buckets, vectors=pca_vectors, seed=args.seed).fit(tr, te).splits_
    allq = pd.concat([tr, te], ignore_index=True)
    for s in splits:
        st = split_similarity_stats(s, allq, method=similarity)
        d = s.save(out / s.name, qrels=qrels, stats=st)
        if not args.no_plot:
            pca = split_pca(s, allq, vectors=pca_vectors, seed=args.seed)
            pca.save(d / "split-pca")
            fig = plot_split_pca_result(pca)
            fig.savefig(d / "pca.png", dpi=110)
            _close(fig)
        print(st.to_string(index=False, header=s is splits[0]))
    print(f"{len(splits)} split(s) written under {out}")
    return 0


def _close(fig: Any) -> None:
    import matplotlib.pyplot as plt

    plt.close(fig)


def _load_splits(path: str | None):
    from ..errors import ValidationError
    from ..resampling import Split

    if not path:
        raise ValidationError("--splits is required (a folder written by `resample restrain|resttest`)")
    d = Path(path)
    dirs = [d] if (d / "split.json").is_file() else sorted(p.parent for p in d.glob("*/split.json"))
    if not dirs:
        raise ValidationError(f"{d}: no split folders (split.json) found")
    return [Split.load(p) for p in dirs]


def _train_eval(args: argparse.Namespace) -> int:
    import numpy as np
    import pandas as pd

    from ..errors import ValidationError
    from ..resampling import (
        DEFAULT_MEASURES,
        bm25_first_stage,
        evaluate_collection,
        evaluate_regimes,
        ood_correlation,
        plot_ood,
        queries_with_positives,
        train_variants,
        variant_scores,
    )

    out = _out(args)
    if not args.trainer:
        raise ValidationError("give at least one --trainer (bm25, memorizing, bi-encoder, cross-encoder, callable:...)")
    splits = _load_splits(args.splits)
    tr, te = _read_queries(args.train_queries, "train-queries"), _read_queries(args.test_queries, "test-queries")
    qrels, corpus = _read_qrels(args.qrels), _read_corpus(args.corpus)
    allq = pd.concat([tr, te], ignore_index=True).drop_duplicates("query_id")
    trainers = [_trainer(s, args) for s in args.trainer]
    variants = train_variants(trainers, splits, allq, qrels, corpus, out / "models",
                              on_variant=lambda v: print(f"{'resumed' if v.resumed else 'trained'} {v.trainer} "
                                                         f"on {v.split} {'+'.join(v.regimes)}", file=sys.stderr))
    if args.action == "train":
        print(f"{len(variants)} variant(s) under {out / 'models'}")
        return 0
    res = evaluate_regimes(variants, splits, allq, qrels, corpus, measures=tuple(args.measure) or DEFAULT_MEASURES,
                           random_negatives=args.random_negatives, seed=args.seed)
    res.save(out / "regime-table")
    print(res.tables["paper"].to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    if args.ood:
        from ..io import load_collection

        rows = []
        both = [v for v in variants if len(v.regimes) > 1]
        if not both:
            raise ValidationError("--ood needs ReSTTest splits (models evaluated in both regimes)")
        for spec in args.ood:
            c = load_collection(spec)
            judged = queries_with_positives(c.queries[["query_id", "text"]], c.qrels)
            rng = np.random.default_rng(args.seed)
            pick = judged.iloc[np.sort(rng.choice(len(judged), size=min(args.ood_queries, len(judged)), replace=False))]
            docs = dict(c.docs.iter_docs())
            cand = bm25_first_stage(pick, docs, depth=args.ood_depth)
            rows.append(evaluate_collection(both, c.name, pick, c.qrels, docs, cand, measure=str(
                (args.measure or ["nDCG@10"])[0])))
        ood = pd.concat(rows, ignore_index=True)
        corr = ood_correlation(variant_scores(res, measure=(args.measure or ["nDCG@10"])[0]), ood)
        corr.save(out / "ood-correlation")
        fig = plot_ood(corr)
        fig.savefig(out / "ood-correlation.png", dpi=110)
        _close(fig)
        print(corr.table.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    return 0


def _annotations(args: argparse.Namespace) -> int:
    from ..errors import ValidationError
    from ..resampling import read_annotation_sheets

    if not args.sheets:
        raise ValidationError("annotations: give the filled sheet files (CSV) as arguments")
    r = read_annotation_sheets(args.sheets)
    for k, v in r.summary.items():
        print(f"{k}\t{v}")
    if args.out:
        r.save(Path(args.out) / "annotation-summary")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.action == "diagnose":
        return _diagnose(args)
    if args.action in ("restrain", "resttest"):
        return _splits(args)
    if args.action in ("train", "evaluate"):
        return _train_eval(args)
    return _annotations(args)
