"""``ranklens evaluate QRELS RUN [RUN ...] -m MEASURE ...``: trec_eval-style evaluation with ASL.

Examples::

    ranklens evaluate qrels.txt run.gz -m ASL -m ASL@g1-10 -m AP -m nDCG@10
    ranklens evaluate qrels.txt runs/ --baseline bm25 --format table
    ranklens evaluate qrels.txt runs/ --ci --confidence 0.95 --format table
    ranklens evaluate qrels.txt run.gz -m "ASL(rel=2)@g1-1" --by-query
    ranklens evaluate qrels.txt run.gz --per-document sl.tsv.gz
"""

from __future__ import annotations

import argparse
import sys

from ._asl_common import (
    FORMATS,
    add_convention_options,
    collect_runs,
    resolve_run_name,
    write_frame,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate", help="evaluate runs with ASL and ir_measures' measures (trec_eval-like)",
        description="One row per run x measure. Measures: ASL, ASL@g1-N, ASL(rel=2), "
                    "ASL(unretrieved=paper), ASL@CUTOFF and any ir_measures measure (AP, "
                    "nDCG@10, P@20, RR, R@1000, Rprec, Bpref, ...). Default measures: ASL, "
                    "ASL@g1-1, ASL@g1-10, AP, P@20, RR, nDCG@10. A first line '# unretrieved=... "
                    "rel=...' names the policies; then a header and the columns model, measure, "
                    "value [, ci_low, ci_high with --ci or --baseline] [, delta, ttest_p, "
                    "ttest_p_adj, rand_p, rand_p_adj with --baseline]. ASL follows the paper "
                    "(eq. 3 for unretrieved documents); runs of different depths are warned about.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("Examples::", 1)[1],
    )
    p.add_argument("qrels", help="TREC qrels file (.gz ok) or irds:<id>")
    p.add_argument("runs", nargs="+",
                   help="TREC run files (.gz ok) or directories of runs; runs with the same "
                        "file name are named by their folders (e.g. official/dl20/p_bm25)")
    p.add_argument("-m", "--measure", action="append", dest="measures",
                   help="measure (repeatable), e.g. ASL, ASL@g1-10, AP, nDCG@10")
    p.add_argument("--format", default="tsv", choices=FORMATS)
    p.add_argument("--by-query", action="store_true", help="per-query values")
    add_convention_options(p)
    p.add_argument("--baseline", help="run name to test the others against (paired t-test, "
                                      "randomization test, multiple-testing correction)")
    p.add_argument("--correction", default="holm", choices=["holm", "bonferroni", "bh", "none"])
    p.add_argument("--ci", action="store_true",
                   help="add bootstrap confidence-interval columns (ci_low, ci_high) of each "
                        "mean; on by default with --baseline")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="level of the bootstrap confidence intervals (default 0.95)")
    p.add_argument("--resamples", type=int, default=5000,
                   help="resamples of the randomization test and bootstrap CIs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--per-document", metavar="OUT",
                   help="write the per-document table (query_id, doc_id, relevance, rank, ASL)")
    p.add_argument("--out", metavar="DIR", help="also save the full result directory")
    p.add_argument("--show-depth", action="store_true",
                   help="also print each run's depth (documents per query) and recall at that depth")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..errors import ValidationError
    from ..metrics.evaluation import evaluate

    if not 0 < args.confidence < 1:
        raise ValidationError(f"--confidence must be between 0 and 1, got {args.confidence}")
    runs = collect_runs(args.runs)
    baseline = resolve_run_name(args.baseline, runs)
    res = evaluate(
        args.qrels, runs, args.measures, ties=args.ties, rel=args.rel,
        unretrieved=args.unretrieved, collection_size=args.collection_size,
        missing=args.missing, duplicates=args.duplicates, baseline=baseline,
        correction=args.correction, n_resamples=args.resamples, confidence=args.confidence,
        seed=args.seed, per_document=bool(args.per_document), depth=args.depth, grades=args.grades,
    )
    if args.format != "jsonl":
        print(f"# unretrieved={args.unretrieved} rel={args.rel} ties={args.ties} missing={args.missing} "
              f"depth={args.depth or 'as given'}" + (f" grades={','.join(args.grades)}" if args.grades else ""))
    write_frame(_long_table(res, args, baseline), args.format, places=args.places)
    if args.show_depth and not args.by_query:
        write_frame(res.table[["model", "depth_min", "depth_median", "depth_max", "recall_at_depth"]],
                    args.format, places=args.places)
    for w in res.warnings:
        print(f"ranklens: warning: {w}", file=sys.stderr)
    if args.per_document:
        pdoc = res.tables["per_document"].rename(columns={"sl": "asl"})
        comp = "gzip" if str(args.per_document).endswith(".gz") else None
        pdoc.to_csv(args.per_document, sep="\t", index=False, compression=comp)
    if args.out:
        res.save(args.out)
    return 0


def _long_table(res, args: argparse.Namespace, baseline: str | None):
    """One row per model x measure (with CI and test columns), or per model x query x measure."""
    import pandas as pd

    names = list(res.summary["measures"])
    if args.by_query:
        return res.tables["per_query"][["model", "query_id", "measure", "value"]].reset_index(drop=True)
    long = res.table.melt(id_vars=["model"], value_vars=names, var_name="measure")
    long["measure"] = pd.Categorical(long["measure"], categories=names)
    order = {s: i for i, s in enumerate(res.table["model"])}
    long["_o"] = long["model"].map(order)
    out = long.sort_values(["_o", "measure"], kind="stable").drop(columns="_o")
    out["measure"] = out["measure"].astype(str)
    if args.ci or baseline is not None:
        ci = res.tables["ci"]
        out = out.merge(ci[["model", "measure", "ci_low", "ci_high"]], on=["model", "measure"], how="left")
    if "significance" in res.tables:
        sig = res.tables["significance"]
        out = out.merge(sig[["model", "measure", "delta", "ttest_p", "ttest_p_adj", "rand_p", "rand_p_adj"]],
                        on=["model", "measure"], how="left")
    return out.reset_index(drop=True)
