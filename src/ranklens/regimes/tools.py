"""File tools of the ``regimes`` analysis: ``ranklens regimes --out DIR TOOL ...`` (``--out`` and
``--seed`` of ``ranklens regimes`` come before the tool name, the tool's options after it).

Examples::

    W=../shared/data/wikiqa/derived
    ranklens regimes --out out/diag diagnose --train-queries $W/queries.train.tsv \\
        --test-queries $W/queries.test.tsv --qrels $W/qrels.train.trec --qrels $W/qrels.test.trec
    ranklens regimes --out out/splits restrain --train-queries ... --test-queries ... --qrels ... --size 300
    ranklens regimes --out out/splits resttest --train-queries ... --test-queries ... --qrels ...
    ranklens regimes --out out/eval evaluate --splits out/splits --train-queries ... --test-queries ... \\
        --qrels ... --corpus $W/corpus.tsv --trainers bm25,memorizing
    ranklens regimes --out out/ann annotations A.csv B.csv

Every option that is a parameter of the analysis (``--similarity``, ``--k``, ``--k-nn``, ``--trainers``,
``--measures``, ...) is declared once in :class:`~.declaration.Params`: the same name, default and
validation as ``ranklens regimes`` and experiment files (the paper's defaults: MiniLM similarity,
ReSTTest K=5, the top-k size rule, the paper's evaluation per model type with depth 1000). Old spellings
(``--judgments``, ``--trainer``, ``--measure``, ``-k``, ``--no-plot``) are accepted with a FutureWarning.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..declare import add_cli_options, params_from_args
from .declaration import Params

__all__ = ["add_tools"]

_TITLE = "analysis parameters (as `ranklens regimes` and experiment files)"
_COMMON = ["train_queries"]
_SIMILARITY = ["similarity", "backend"]
#: the Params fields each tool offers
FIELDS = {
    "diagnose": [*_COMMON, *_SIMILARITY, "k_nn", "thresholds", "min_shared"],
    "restrain": [*_COMMON, *_SIMILARITY, "k", "size", "size_rule", "k_exclude"],
    "resttest": [*_COMMON, *_SIMILARITY, "buckets"],
    "train": [*_COMMON, "trainers", "base_model", "epochs", "batch_size", "max_steps", "reranker_loss",
              "dev_fraction"],
}
FIELDS["evaluate"] = [*FIELDS["train"], "measures", "evaluation", "depth", "first_stage", "random_negatives"]
#: old option spellings, accepted with a FutureWarning for one release
ALIASES = {"trainers": ["--trainer"], "measures": ["--measure"], "k": ["-k"], "k_nn": ["-k"]}


class _Deprecated(argparse.Action):
    """An old spelling of a tool option that is not a ``Params`` field (``--judgments``, ``--no-plot``)."""

    def __init__(self, option_strings: Any, dest: str, new: str = "", append: bool = False, **kw: Any) -> None:
        self.new, self.append = new, append
        super().__init__(option_strings, dest, nargs=None if append else 0, **kw)

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        import warnings

        warnings.warn(f"{option_string} is deprecated; use {self.new} (the old spelling goes in the next release)",
                      FutureWarning, stacklevel=2)
        if self.append:
            setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), values])
        else:
            setattr(namespace, self.dest, True)



PUBLISHED_RESOURCE = "restrain-splits"  # the data registry's name for the authors' published splits

def _common(t: argparse.ArgumentParser) -> None:
    t.add_argument("--test-queries", help="test queries (TSV id<TAB>text, JSONL, topics)")
    t.add_argument("--qrels", dest="t_qrels", action="append", default=None, metavar="FILE",
                   help="qrels file(s) (TREC); repeatable")
    t.add_argument("--judgments", dest="t_qrels", action=_Deprecated, new="--qrels", append=True,
                   help=argparse.SUPPRESS)
    # SUPPRESS: a --no-plots given before the tool name (ranklens regimes --no-plots ... TOOL) is kept
    t.add_argument("--no-plots", dest="no_plots", action="store_true", default=argparse.SUPPRESS,
                   help="no nearest-neighbour histogram / split PCA / regime plots")
    t.add_argument("--no-plot", dest="no_plots", action=_Deprecated, new="--no-plots", default=argparse.SUPPRESS,
                   help=argparse.SUPPRESS)


def _tool(sub: Any, name: str, help_: str) -> argparse.ArgumentParser:
    t = sub.add_parser(name, help=help_, description=help_)
    _common(t)
    add_cli_options(t, Params, fields=FIELDS[name], aliases={f: ALIASES[f] for f in FIELDS[name] if f in ALIASES},
                    title=_TITLE, inherit=True)
    # what the tool reads of the options of `ranklens regimes` (the CLI refuses the others before the tool name)
    t.set_defaults(tool_reads=(*FIELDS[name], "out", "seed", "no_plots"))
    return t


def add_tools(parser: argparse.ArgumentParser) -> None:
    """Add the file tools as optional sub-commands of ``ranklens regimes``."""
    sub = parser.add_subparsers(dest="regimes_tool", required=False, metavar="TOOL")
    d = _tool(sub, "diagnose", "query similarity, label overlap, near duplicates, annotation sheet")
    d.add_argument("--near-dup-threshold", type=float, default=None, help="list test queries at >= this similarity")
    d.add_argument("--sheet", help="write an annotation sheet (CSV) here")
    d.add_argument("--top-n", type=int, default=10,
                   help="training queries per test query in the sheet (default: 10, the paper's)")
    d.add_argument("--sample", type=int, default=None, help="test queries in the sheet (default: all)")
    r = _tool(sub, "restrain", "restrain splits written as split folders")
    r.add_argument("--sizes", default=None, metavar="N[,N...]",
                   help="several interpolation-set sizes, one split each (the paper: 14k, 45k, 200k); each checked "
                        "as --size (default: --size alone)")
    _tool(sub, "resttest", "resttest splits written as split folders")
    for name in ("train", "evaluate"):
        t = _tool(sub, name, "train models on split folders" + (" and evaluate both regimes"
                                                                  if name == "evaluate" else ""))
        t.add_argument("--splits", help="folder holding split folders (from restrain/resttest), or the authors' "
                       "published restrain_files/... / resttest_files/... folders (jingtaozhan/extrapolate-eval); "
                       "'restrain-splits' = the data registry's copy of them (`ranklens data info restrain-splits`)")
        t.add_argument("--published-test-set", default="dev", choices=["dev", "trec19", "trec20"],
                       help="published ReSTTest buckets: which test qrels to read (default: dev)")
        t.add_argument("--corpus", help="documents: JSONL/TSV (corpus.tsv with sentence_id/sentence works too)")
    a = sub.add_parser("annotations", help="summarise filled annotation sheets (one per annotator)")
    a.add_argument("sheets", nargs="+", help="filled annotation sheets (CSV)")
    a.set_defaults(tool_reads=("out",))
    for name, t in sub.choices.items():
        t.set_defaults(func=_run_tool, action=name)


def _params(args: argparse.Namespace) -> Params:
    """The tool's ``Params`` (its options; the other fields keep their declared defaults). With
    ``restrain --sizes``, each size is checked as ``--size`` (and ``--size`` itself would be ignored)."""
    sizes = getattr(args, "sizes", None)
    if sizes and getattr(args, "p_size", None) is not None:
        from ..errors import IgnoredOptionError

        raise IgnoredOptionError(f"--size {args.p_size}: ignored when --sizes {sizes} is given (one split per size "
                                 "of --sizes); drop one (an ignored option is an error)")
    if sizes:  # --size-rule applies to each of --sizes (checked as though --size were the first)
        args = argparse.Namespace(**{**vars(args), "p_size": sizes.split(",")[0].strip() or None})
    return params_from_args(Params, args, fields=FIELDS[args.action])


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
    from ..errors import ValidationError

    if not path:
        raise ValidationError(f"--{what} is required for this action")
    if path == "demo" and what == "train-queries":
        from .driver import _train_queries

        return _train_queries(path)
    from .driver import read_query_file

    return read_query_file(path)


def _read_qrels(paths: list[str]):
    import pandas as pd

    from ..errors import ValidationError
    from ..io import read_qrels

    if not paths:
        raise ValidationError("--qrels (qrels files) is required for this tool")
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


def _out(args: argparse.Namespace) -> Path:
    from ..errors import ValidationError

    if not args.out:
        raise ValidationError("--out is required for this action")
    from ..files import ensure_dir

    return ensure_dir(args.out, what="--out directory")


def _diagnose(args: argparse.Namespace) -> int:
    from . import export_annotation_sheet, label_overlap, near_duplicates, query_similarity

    from .similarity import similarity_method

    p = _params(args)
    out = _out(args)
    tr, te = _read_queries(p.train_queries, "train-queries"), _read_queries(args.test_queries, "test-queries")
    sim = query_similarity(te, tr, method=similarity_method(p.similarity), k=p.k_nn, backend=p.backend)
    sim.save(out / "regimes-query-similarity")
    if not args.no_plots:
        from . import plot_nn_similarity

        _save_figure(plot_nn_similarity(sim), out / "nn_similarity.png")
    _echo(f"nearest training query ({sim.summary['method']}): mean {sim.summary['nn_mean']:.4f} "
          f"median {sim.summary['nn_median']:.4f} q90 {sim.summary['nn_q90']:.4f} over {len(te)} test queries")
    if args.t_qrels:
        qrels = _read_qrels(args.t_qrels)
        ts = list(p.thresholds)
        lo = label_overlap(qrels.loc[qrels["query_id"].isin(set(te["query_id"]))],
                           qrels.loc[qrels["query_id"].isin(set(tr["query_id"]))], thresholds=ts,
                           min_shared=p.min_shared)
        lo.save(out / "regimes-label-overlap")
        for t in ts:
            _echo(f"label overlap (rel >= {t}, >= {p.min_shared} shared): {lo.summary[f'share@{t}']:.4f} "
                  f"of {lo.summary[f'n_queries@{t}']} test queries")
    if args.near_dup_threshold is not None:
        nd = near_duplicates(sim, te, tr, threshold=args.near_dup_threshold)
        from ..files import atomic_output

        with atomic_output(out / "near_duplicates.tsv", what="near-duplicates table") as tmp:
            nd.to_csv(tmp, sep="\t", index=False)
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

    from ..declare import make_params
    from .similarity import similarity_method

    p = _params(args)
    out = _out(args)
    tr, te = _read_queries(p.train_queries, "train-queries"), _read_queries(args.test_queries, "test-queries")
    qrels = _read_qrels(args.t_qrels) if args.t_qrels else None
    if qrels is not None:
        tr, te = queries_with_positives(tr, qrels), queries_with_positives(te, qrels)
    similarity = similarity_method(p.similarity)
    if args.action == "restrain":
        sizes = [make_params(Params, {"size": x}, where="option --sizes").size for x in args.sizes.split(",")
                 if x.strip()] if args.sizes else [p.size]
        splits = []
        for size in sizes:
            name = f"restrain-{size}" if size else f"restrain-k{p.k}"
            fitted = ReSTrain(k=p.k, size=size, size_rule=p.size_rule, k_exclude=p.k_exclude,
                              similarity=similarity, seed=args.seed, backend=p.backend, name=name).fit(tr, te)
            splits += fitted.splits_
            for w in fitted.warnings:
                sys.stderr.write(f"ranklens: warning: {w}\n")
        # PCA of embedder vectors when the similarity is an embedder, else of TF-IDF (BM25 has no vectors)
        pca_vectors = similarity if not isinstance(similarity, str) else "tfidf"
    else:
        pca_vectors = similarity if not isinstance(similarity, str) else "tfidf"
        fitted = ReSTTest(n_buckets=p.buckets, vectors=pca_vectors, seed=args.seed).fit(tr, te)
        splits = fitted.splits_
        for w in fitted.warnings:
            sys.stderr.write(f"ranklens: warning: {w}\n")
    allq = pd.concat([tr, te], ignore_index=True)
    for s in splits:
        st = split_similarity_stats(s, allq, method=similarity)
        d = s.save(out / s.name, qrels=qrels, stats=st)
        if not args.no_plots:
            pca = split_pca(s, allq, vectors=pca_vectors, seed=args.seed)
            pca.save(d / "regimes-split-pca")
            _save_figure(plot_split_pca_result(pca), d / "pca.png")
        _echo(st.to_string(index=False, header=s is splits[0]))
    if not args.no_plots:
        _figure1(args, p, tr, te, pca_vectors, out)
    _echo(f"{len(splits)} split(s) written under {out}")
    return 0


def _figure1(args: argparse.Namespace, p: Params, tr: Any, te: Any, vectors: Any, out: Path) -> None:
    """The paper's Figure 1: the queries reduced to 2-D first, then resampled in that plane."""
    from ..errors import ValidationError
    from . import illustrate_split, plot_split_pca_result

    opts = {"k": p.k, "k_exclude": p.k_exclude} if args.action == "restrain" else {"n_buckets": p.buckets}
    try:
        res = illustrate_split(tr, te, method=args.action, vectors=vectors, seed=args.seed, **opts)
    except ValidationError as exc:
        sys.stderr.write(f"ranklens: warning: no 2-D illustration ({exc})\n")
        return
    res.save(out / f"{args.action}-figure1")
    _save_figure(plot_split_pca_result(res), out / f"{args.action}-figure1" / "figure1.png")


def _close(fig: Any) -> None:
    import matplotlib.pyplot as plt

    plt.close(fig)


def _save_figure(fig: Any, path: Path) -> None:
    """``fig`` as a PNG at ``path``, atomically (a full disk: an ``OutputError`` naming it, no half file), closed."""
    from ..files import atomic_output

    try:
        with atomic_output(path, what="figure") as tmp:
            fig.savefig(tmp, dpi=110, format="png")
    finally:
        _close(fig)


def _load_splits(path: str | None, test_ids: Any = None, test_set: str = "dev"):
    """Split folders written by restrain/resttest, or the authors' published split files
    (extrapolate-eval: ReSTrain sizes take the test queries' ids, ReSTTest buckets ``test_set``)."""
    from ..errors import ValidationError
    from . import Split, read_published_splits
    from .published import is_published_split, qrel_files

    if not path:
        raise ValidationError("--splits is required (a folder written by `ranklens regimes restrain|resttest`, or "
                              "the authors' restrain_files/... or resttest_files/... folders)")
    d = Path(path)
    if path == PUBLISHED_RESOURCE and not d.exists():  # the registry's copy: --data-dir/$RANKLENS_DATA, the cache
        from ..datareg import resolve

        d = resolve(PUBLISHED_RESOURCE)
    dirs = [d] if (d / "split.json").is_file() else sorted(p.parent for p in d.glob("*/split.json"))
    if dirs:
        return [Split.load(p) for p in dirs]
    if is_published_split(d) or qrel_files(d):
        return read_published_splits(d, test_ids=test_ids, test_set=test_set)
    raise ValidationError(f"{d}: no split folders (split.json) and no published split files (*-qrel.txt) found")


def _train_eval(args: argparse.Namespace) -> int:
    import pandas as pd

    from . import evaluate_regimes, train_variants
    from .driver import make_trainers

    p = _params(args)
    out = _out(args)
    tr, te = _read_queries(p.train_queries, "train-queries"), _read_queries(args.test_queries, "test-queries")
    splits = _load_splits(args.splits, te["query_id"].tolist(), args.published_test_set)
    qrels, corpus = _read_qrels(args.t_qrels), _read_corpus(args.corpus)
    allq = pd.concat([tr, te], ignore_index=True).drop_duplicates("query_id")
    variants = train_variants(make_trainers(p, args.seed), splits, allq, qrels, corpus, out / "models",
                              on_variant=lambda v: _echo(f"{'resumed' if v.resumed else 'trained'} {v.trainer} "
                                                         f"on {v.split} {'+'.join(v.regimes)}", file=sys.stderr))
    if args.action == "train":
        _echo(f"{len(variants)} variant(s) under {out / 'models'}")
        return 0
    res = evaluate_regimes(variants, splits, allq, qrels, corpus, measures=p.measures, evaluation=p.evaluation,
                           depth=p.depth, first_stage=p.first_stage, random_negatives=p.random_negatives,
                           seed=args.seed)
    res.save(out / "regimes-table")
    if not args.no_plots and len(res.tables["regime_table"]):
        from . import plot_regimes

        _save_figure(plot_regimes(res), out / "regimes-table" / "regimes.png")
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
