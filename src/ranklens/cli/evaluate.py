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
                    "ASL@g1-1, ASL@g1-10, AP, P@20, RR, nDCG@10. TSV columns (no header): run, "
                    "measure, value [, ci_low, ci_high with --ci or --baseline] [, delta, "
                    "ttest_p, ttest_p_adj, rand_p, rand_p_adj with --baseline]; --format table "
                    "prints the same with a header.",
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
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import pandas as pd

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
        seed=args.seed, per_document=bool(args.per_document),
    )
    names = list(res.summary["measures"])
    if args.by_query:
        out = res.tables["per_query"].rename(columns={"system": "run"})
        out = out[["run", "query_id", "measure", "value"]]
    else:
        long = res.table.melt(id_vars=["system"], value_vars=names, var_name="measure")
        long["measure"] = pd.Categorical(long["measure"], categories=names)
        long = long.sort_values(["measure"], kind="stable")
        order = {s: i for i, s in enumerate(res.table["system"])}
        long["_o"] = long["system"].map(order)
        out = long.sort_values(["_o", "measure"], kind="stable").drop(columns="_o")
        out["measure"] = out["measure"].astype(str)
        out = out.rename(columns={"system": "run"})
        if args.ci or baseline is not None:
            ci = res.tables["ci"].rename(columns={"system": "run"})
            out = out.merge(ci[["run", "measure", "ci_low", "ci_high"]], on=["run", "measure"],
                            how="left")
        if "significance" in res.tables:
            sig = res.tables["significance"].rename(columns={"system": "run"})
            out = out.merge(sig[["run", "measure", "delta", "ttest_p", "ttest_p_adj", "rand_p",
                                 "rand_p_adj"]], on=["run", "measure"], how="left")
    write_frame(out.reset_index(drop=True), args.format)
    if args.per_document:
        pdoc = res.tables["per_document"].rename(columns={"system": "run", "sl": "asl"})
        comp = "gzip" if str(args.per_document).endswith(".gz") else None
        pdoc.to_csv(args.per_document, sep="\t", index=False, compression=comp)
    if args.out:
        res.save(args.out)
    return 0
