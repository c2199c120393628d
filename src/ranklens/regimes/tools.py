"""File tools of the ``regimes`` analysis: ``ranklens regimes --out DIR TOOL ...`` (options of
``ranklens regimes`` itself, such as ``--out`` and ``--seed``, come before the tool name).

Examples::

    W=../shared/data/wikiqa/derived
    ranklens regimes --out out/diag diagnose --train-queries $W/queries.train.tsv \\
        --test-queries $W/queries.test.tsv --judgments $W/qrels.train.trec --judgments $W/qrels.test.trec
    ranklens regimes --out out/splits restrain --train-queries ... --test-queries ... --judgments ... --size 300
    ranklens regimes --out out/splits resttest --train-queries ... --test-queries ... --judgments ...
    ranklens regimes --out out/eval evaluate --splits out/splits --train-queries ... --test-queries ... \\
        --judgments ... --corpus $W/corpus.tsv --trainer bm25 --trainer memorizing
    ranklens regimes --out out/ann annotations A.csv B.csv

Defaults are the paper's, as for ``ranklens regimes`` (MiniLM similarity, ReSTTest K=5, the top-k
size rule, the paper's evaluation per model type with depth 1000).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_tools"]


def _common(t: argparse.ArgumentParser) -> None:
    t.add_argument("--train-queries", help="training queries (TSV id<TAB>text, JSONL, topics)")
    t.add_argument("--test-queries", help="test queries")
    t.add_argument("--judgments", dest="t_qrels", action="append", default=None,
                   help="qrels file(s) (TREC); repeatable")
    t.add_argument("--similarity", default="minilm",
                   help="minilm (the paper: dense), an embedder spec, bm25 or tfidf (default: minilm)")
    t.add_argument("--backend", default="exact", choices=["exact", "faiss"], help="(default: exact)")
    t.add_argument("--no-plot", action="store_true", help="no nearest-neighbour histogram / split PCA plots")


def _split_options(t: argparse.ArgumentParser, which: str) -> None:
    if which == "restrain":
        t.add_argument("-k", type=int, default=1, help="top-k neighbours per test query (default: 1)")
        t.add_argument("--size", type=int, action="append", default=None,
                       help="interpolation-set size (repeatable; default: the top-k union)")
        t.add_argument("--size-rule", default="topk", choices=["topk", "fill"],
                       help="topk = the paper's (every test query keeps its top-k); fill = exactly size, warned "
                       "(default: topk)")
        t.add_argument("--k-exclude", type=int, default=None, help="k' (default: 10 x k, lowered when needed)")
    else:
        t.add_argument("--buckets", type=int, default=5, help="k-means buckets K (default: 5, the paper's)")


def _train_options(t: argparse.ArgumentParser) -> None:
    t.add_argument("--splits", help="folder holding split folders (from restrain/resttest), or the authors' published "
                   "restrain_files/... / resttest_files/... folders (jingtaozhan/extrapolate-eval)")
    t.add_argument("--published-test-set", default="dev", choices=["dev", "trec19", "trec20"],
                   help="published ReSTTest buckets: which test qrels to read (default: dev)")
    t.add_argument("--corpus", help="documents: JSONL/TSV (corpus.tsv with sentence_id/sentence works too)")
    t.add_argument("--trainer", action="append", default=None,
                   help="bm25, memorizing, bi-encoder[:MODEL], cross-encoder[:MODEL], callable:MODULE:FUNC")
    t.add_argument("--epochs", type=int, default=1, help="(default: 1)")
    t.add_argument("--batch-size", type=int, default=16, help="(default: 16)")
    t.add_argument("--max-steps", type=int, default=None, help="(default: all epochs)")
    t.add_argument("--reranker-loss", default="pairwise", choices=["pairwise", "pointwise"],
                   help="cross-encoder loss (default: pairwise, the paper's)")
    t.add_argument("--dev-fraction", type=float, default=0.0,
                   help="share of training queries held out for dev-set checkpoint selection (default: 0 = last step)")
    t.add_argument("--measure", action="append", default=None,
                   help="ir_measures names (default: nDCG@10 R@100 RR@10)")
    t.add_argument("--evaluation", default="auto", choices=["auto", "full", "rerank", "judged"],
                   help="auto = the paper's per model type (default: auto)")
    t.add_argument("--depth", type=int, default=1000, help="retrieved / re-ranked per query (default: 1000)")
    t.add_argument("--first-stage", default=None, help="run file re-ranked by rerankers (default: BM25 top depth)")
    t.add_argument("--random-negatives", type=int, default=0, help="evaluation=judged only (default: 0)")


def add_tools(parser: argparse.ArgumentParser) -> None:
    """Add the file tools as optional sub-commands of ``ranklens regimes``."""
    sub = parser.add_subparsers(dest="regimes_tool", required=False, metavar="TOOL")
    d = sub.add_parser("diagnose", help="query similarity, label overlap, near duplicates, annotation sheet")
    _common(d)
    d.add_argument("-k", type=int, default=10, help="neighbours per test query (default: 10, the paper's)")
    d.add_argument("--near-dup-threshold", type=float, default=None, help="list test queries at >= this similarity")
    d.add_argument("--thresholds", default="1", help="regimes-label-overlap relevance thresholds, e.g. 1,2,3 (default: 1)")
    d.add_argument("--min-shared", type=int, default=1, help="shared positives needed (default: 1, the paper's)")
    d.add_argument("--sheet", help="write an annotation sheet (CSV) here")
    d.add_argument("--top-n", type=int, default=10,
                   help="training queries per test query in the sheet (default: 10, the paper's)")
    d.add_argument("--sample", type=int, default=None, help="test queries in the sheet (default: all)")
    for name in ("restrain", "resttest"):
        t = sub.add_parser(name, help=f"{name} splits written as split folders")
        _common(t)
        _split_options(t, name)
    for name in ("train", "evaluate"):
        t = sub.add_parser(name, help="train models on split folders" + (" and evaluate both regimes"
                                                                          if name == "evaluate" else ""))
        _common(t)
        _train_options(t)
    a = sub.add_parser("annotations", help="summarise filled annotation sheets (one per annotator)")
    a.add_argument("sheets", nargs="+", help="filled annotation sheets (CSV)")
    for name, t in sub.choices.items():
        t.set_defaults(func=_run_tool, action=name)


def _echo(text: str, file: Any = None) -> None:
    """One line to stdout (data) or ``file`` (stderr: progress); the CLI's output channel."""
    (file or sys.stdout).write(f"{text}\n")


def _run_tool(args: argparse.Namespace) -> int:
    if args.action == "diagnose":
        return _diagnose(args)
    if args.action in ("restrain", "resttest"):
        return _splits(args)
    if args.action in ("train", "evaluate"):
        return _train_eval(args)
    return _annotations(args)



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
        raise ValidationError("--judgments (qrels files) is required for this tool")
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
    from . import BiEncoderTrainer, BM25Trainer, CallableTrainer, CrossEncoderTrainer, MemorizingTrainer

    kind, _, arg = spec.partition(":")
    common = {"epochs": args.epochs, "batch_size": args.batch_size, "max_steps": args.max_steps, "seed": args.seed,
              "dev_fraction": args.dev_fraction}
    if kind == "bm25":
        return BM25Trainer()
    if kind in ("memorizing", "memorising"):
        return MemorizingTrainer()
    if kind == "bi-encoder":
        return BiEncoderTrainer(model=arg or "minilm", **common)
    if kind == "cross-encoder":
        return CrossEncoderTrainer(model=arg or "minilm", loss=args.reranker_loss, **common)
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
    from . import export_annotation_sheet, label_overlap, near_duplicates, query_similarity

    out = _out(args)
    tr, te = _read_queries(args.train_queries, "train-queries"), _read_queries(args.test_queries, "test-queries")
    sim = query_similarity(te, tr, method=_method(args.similarity), k=args.k, backend=args.backend)
    sim.save(out / "regimes-query-similarity")
    if not args.no_plot:
        from . import plot_nn_similarity

        fig = plot_nn_similarity(sim)
        fig.savefig(out / "nn_similarity.png", dpi=110)
        _close(fig)
    _echo(f"nearest training query ({sim.summary['method']}): mean {sim.summary['nn_mean']:.4f} "
          f"median {sim.summary['nn_median']:.4f} q90 {sim.summary['nn_q90']:.4f} over {len(te)} test queries")
    if args.t_qrels:
        qrels = _read_qrels(args.t_qrels)
        ts = [int(t) for t in args.thresholds.split(",")]
        lo = label_overlap(qrels.loc[qrels["query_id"].isin(set(te["query_id"]))],
                           qrels.loc[qrels["query_id"].isin(set(tr["query_id"]))], thresholds=ts,
                           min_shared=args.min_shared)
        lo.save(out / "regimes-label-overlap")
        for t in ts:
            _echo(f"label overlap (rel >= {t}, >= {args.min_shared} shared): {lo.summary[f'share@{t}']:.4f} "
                  f"of {lo.summary[f'n_queries@{t}']} test queries")
    if args.near_dup_threshold is not None:
        nd = near_duplicates(sim, te, tr, threshold=args.near_dup_threshold)
        nd.to_csv(out / "near_duplicates.tsv", sep="\t", index=False)
        _echo(f"near duplicates (>= {args.near_dup_threshold}): {len(nd)}")
        for r in nd.head(10).itertuples():
            _echo(f"  {r.score:.3f}\t{r.test_query}\t{r.train_query}")
    if args.sheet:
        p = export_annotation_sheet(sim, te, tr, args.sheet, top_n=args.top_n, sample=args.sample, seed=args.seed)
        _echo(f"annotation sheet: {p}")
    return 0


def _splits(args: argparse.Namespace) -> int:
    import pandas as pd

    from . import (
        ReSTrain,
        ReSTTest,
        plot_split_pca_result,
        queries_with_positives,
        split_pca,
        split_similarity_stats,
    )

    out = _out(args)
    tr, te = _read_queries(args.train_queries, "train-queries"), _read_queries(args.test_queries, "test-queries")
    qrels = _read_qrels(args.t_qrels) if args.t_qrels else None
    if qrels is not None:
        tr, te = queries_with_positives(tr, qrels), queries_with_positives(te, qrels)
    similarity = _method(args.similarity)
    if args.action == "restrain":
        sizes = args.size or [None]
        splits = []
        for size in sizes:
            name = f"restrain-{size}" if size else f"restrain-k{args.k}"
            fitted = ReSTrain(k=args.k, size=size, size_rule=args.size_rule, k_exclude=args.k_exclude,
                              similarity=similarity, seed=args.seed, backend=args.backend, name=name).fit(tr, te)
            splits += fitted.splits_
            for w in fitted.warnings:
                sys.stderr.write(f"ranklens: warning: {w}\n")
        # PCA of embedder vectors when the similarity is an embedder, else of TF-IDF (BM25 has no vectors)
        pca_vectors = similarity if not isinstance(similarity, str) else "tfidf"
    else:
        pca_vectors = similarity if not isinstance(similarity, str) else "tfidf"
        fitted = ReSTTest(n_buckets=args.buckets, vectors=pca_vectors, seed=args.seed).fit(tr, te)
        splits = fitted.splits_
        for w in fitted.warnings:
            sys.stderr.write(f"ranklens: warning: {w}\n")
    allq = pd.concat([tr, te], ignore_index=True)
    for s in splits:
        st = split_similarity_stats(s, allq, method=similarity)
        d = s.save(out / s.name, qrels=qrels, stats=st)
        if not args.no_plot:
            pca = split_pca(s, allq, vectors=pca_vectors, seed=args.seed)
            pca.save(d / "regimes-split-pca")
            fig = plot_split_pca_result(pca)
            fig.savefig(d / "pca.png", dpi=110)
            _close(fig)
        _echo(st.to_string(index=False, header=s is splits[0]))
    if not args.no_plot:
        _figure1(args, tr, te, pca_vectors, out)
    _echo(f"{len(splits)} split(s) written under {out}")
    return 0


def _figure1(args: argparse.Namespace, tr: Any, te: Any, vectors: Any, out: Path) -> None:
    """The paper's Figure 1: the queries reduced to 2-D first, then resampled in that plane."""
    from ..errors import ValidationError
    from . import illustrate_split, plot_split_pca_result

    opts = {"k": args.k, "k_exclude": args.k_exclude} if args.action == "restrain" else {"n_buckets": args.buckets}
    try:
        res = illustrate_split(tr, te, method=args.action, vectors=vectors, seed=args.seed, **opts)
    except ValidationError as exc:
        sys.stderr.write(f"ranklens: warning: no 2-D illustration ({exc})\n")
        return
    res.save(out / f"{args.action}-figure1")
    fig = plot_split_pca_result(res)
    fig.savefig(out / f"{args.action}-figure1" / "figure1.png", dpi=110)
    _close(fig)


def _close(fig: Any) -> None:
    import matplotlib.pyplot as plt

    plt.close(fig)


def _load_splits(path: str | None, test_ids: Any = None, test_set: str = "dev"):
    """Split folders written by restrain/resttest, or the authors' published split files
    (extrapolate-eval: ReSTrain sizes take the test queries' ids, ReSTTest buckets ``test_set``)."""
    from ..errors import ValidationError
    from . import Split, read_published_splits
    from .published import is_published_split

    if not path:
        raise ValidationError("--splits is required (a folder written by `ranklens regimes restrain|resttest`, or "
                              "the authors' restrain_files/... or resttest_files/... folders)")
    d = Path(path)
    dirs = [d] if (d / "split.json").is_file() else sorted(p.parent for p in d.glob("*/split.json"))
    if dirs:
        return [Split.load(p) for p in dirs]
    if is_published_split(d) or any(d.rglob("*-qrel.txt")):
        return read_published_splits(d, test_ids=test_ids, test_set=test_set)
    raise ValidationError(f"{d}: no split folders (split.json) and no published split files (*-qrel.txt) found")


def _train_eval(args: argparse.Namespace) -> int:
    import pandas as pd

    from ..errors import ValidationError
    from . import (
        DEFAULT_MEASURES,
        evaluate_regimes,
        train_variants,
    )

    out = _out(args)
    if not args.trainer:
        raise ValidationError("give at least one --trainer (bm25, memorizing, bi-encoder, cross-encoder, callable:...)")
    tr, te = _read_queries(args.train_queries, "train-queries"), _read_queries(args.test_queries, "test-queries")
    splits = _load_splits(args.splits, te["query_id"].tolist(), args.published_test_set)
    qrels, corpus = _read_qrels(args.t_qrels), _read_corpus(args.corpus)
    allq = pd.concat([tr, te], ignore_index=True).drop_duplicates("query_id")
    trainers = [_trainer(s, args) for s in args.trainer]
    variants = train_variants(trainers, splits, allq, qrels, corpus, out / "models",
                              on_variant=lambda v: _echo(f"{'resumed' if v.resumed else 'trained'} {v.trainer} "
                                                         f"on {v.split} {'+'.join(v.regimes)}", file=sys.stderr))
    if args.action == "train":
        _echo(f"{len(variants)} variant(s) under {out / 'models'}")
        return 0
    first = None
    if args.first_stage:
        from ..io import read_run

        first = read_run(args.first_stage)
    res = evaluate_regimes(variants, splits, allq, qrels, corpus, measures=tuple(args.measure or DEFAULT_MEASURES),
                           evaluation=args.evaluation, depth=args.depth, first_stage=first,
                           random_negatives=args.random_negatives, seed=args.seed)
    res.save(out / "regimes-table")
    if not args.no_plot and len(res.tables["regime_table"]):
        from . import plot_regimes

        fig = plot_regimes(res)
        fig.savefig(out / "regimes-table" / "regimes.png", dpi=110)
        _close(fig)
    _echo(res.tables["paper"].to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    for w in res.warnings:
        sys.stderr.write(f"ranklens: warning: {w}\n")
    return 0


def _annotations(args: argparse.Namespace) -> int:
    from ..errors import ValidationError
    from . import read_annotation_sheets

    if not args.sheets:
        raise ValidationError("annotations: give the filled sheet files (CSV) as arguments")
    r = read_annotation_sheets(args.sheets)
    for k, v in r.summary.items():
        _echo(f"{k}\t{v}")
    if args.out:
        r.save(Path(args.out) / "regimes-annotation-summary")
    return 0
