"""``ranklens evaluate QRELS RUN [RUN ...] [MEASURE ...]``: trec_eval-style evaluation with ASL,
a top-level command the ``asl`` analysis declares (``Analysis.commands``).

Options that are ``asl`` parameters (``--ties``, ``--rel``, ``--unretrieved``, ``--collection-size``,
``--missing``, ``--duplicates``, ``--depth``, ``--grades``, ``--places``, ``--baseline``,
``--correction``, ``--confidence``, ``--n-resamples``) come from its ``Params``: the same names,
defaults and checks as ``ranklens asl``. The peers' flags stay as ir_measures / trec_eval spell
them: ``-m/--measure`` (trec_eval), ``-p`` (ir_measures' places), ``-q/--by-query``,
``-n/--no_summary``, ``-o/--output_format`` (ir_measures).

Examples::

    ranklens evaluate qrels.txt run.gz nDCG@10 AP ASL ASL@g1-10
    ranklens evaluate qrels.txt run.gz "nDCG@10 P@5 AP" -q -p 3 -o tsv      # as ir_measures
    ranklens evaluate qrels.txt run.gz -m ASL -m AP --provider pytrec_eval
    ranklens evaluate qrels.txt runs/ --baseline bm25 --format table
    ranklens evaluate qrels.txt runs/ --ci --confidence 0.95 --format table
    ranklens evaluate qrels.txt run.gz -m "ASL(rel=2)@g1-1" --by-query
    ranklens evaluate qrels.txt run.gz --per-document sl.tsv.gz
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .tools import FORMATS, write_frame

__all__ = ["add_evaluate", "resolve_run_name", "split_runs_and_measures"]

#: ir_measures' ``--output_format`` names -> ranklens formats that print what ir_measures prints.
IR_MEASURES_FORMATS = {"tsv": "ir_measures", "jsonl": "ir_measures-jsonl"}
#: The ``asl`` parameters ``ranklens evaluate`` offers (options derived from ``Params``).
FIELDS = ("ties", "rel", "unretrieved", "collection_size", "missing", "duplicates", "depth", "grades",
          "places", "baseline", "correction", "confidence", "n_resamples")
#: Old spellings, accepted for one release with a FutureWarning.
ALIASES = {"n_resamples": ["--resamples"]}


def add_evaluate(sub: argparse._SubParsersAction) -> None:
    """Add ``ranklens evaluate`` to the CLI's subparsers (``func`` set)."""
    from ..declare import add_cli_options
    from .declaration import Params

    p = sub.add_parser(
        "evaluate", help="evaluate runs with ASL and the standard measures (trec_eval-like)",
        description="Positional arguments after QRELS are run files/directories or measures "
                    "(anything that is not a path is parsed as measures; several may share one "
                    "argument, separated by spaces, as in ir_measures). Measures: ASL, ASL@g1-N, "
                    "ASL(rel=2), ASL(unretrieved=paper), ASL@CUTOFF and any ir_measures measure "
                    "(AP, nDCG@10, P@20, RR, R@1000, Rprec, Bpref, ...). Default measures: ASL, "
                    "ASL@g1-1, ASL@g1-10, AP, P@20, RR, nDCG@10. Runs and measures are printed in "
                    "the order given. Formats: tsv (a first line '# unretrieved=... rel=...' names "
                    "the policies, then a header and the columns model, measure, value [, ci_low, "
                    "ci_high with --ci or --baseline] [, delta, ttest_p, ttest_p_adj, rand_p, "
                    "rand_p_adj with --baseline]), jsonl, table, and ir_measures' own outputs "
                    "(ir_measures = measure<TAB>value, or query_id<TAB>measure<TAB>value with "
                    "--by-query plus 'all' rows; ir_measures-jsonl; -o tsv / -o jsonl choose them "
                    "as in ir_measures; with several runs a first run column is added). ASL follows "
                    "the paper (eq. 3 for unretrieved documents); runs of different depths are "
                    "warned about.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("Examples::", 1)[1],
    )
    p.add_argument("qrels", help="TREC qrels file (.gz ok) or irds:<id>")
    p.add_argument("runs", nargs="+", metavar="RUN_OR_MEASURE",
                   help="TREC run files (.gz ok) or directories of runs (runs with the same file "
                        "name are named by their folders, e.g. official/dl20/p_bm25), and measures")
    peers = p.add_argument_group("ir_measures / trec_eval flags (spelled as the peers spell them)")
    peers.add_argument("-m", "--measure", action="append", dest="measure_flags",  # trec_eval peer flag
                       help="measure (repeatable), e.g. ASL, ASL@g1-10, AP, nDCG@10")
    peers.add_argument("-o", "--output_format", "--output-format", dest="ir_format",
                       choices=sorted(IR_MEASURES_FORMATS),
                       help="ir_measures' output format (tsv: measure<TAB>value; jsonl)")
    peers.add_argument("-q", "--by-query", "--by_query", dest="by_query", action="store_true",
                       help="per-query values (ir_measures formats: query_id, measure, value)")
    peers.add_argument("-n", "--no_summary", "--no-summary", dest="no_summary", action="store_true",
                       help="with --by-query in the ir_measures formats: no 'all' rows")
    peers.add_argument("-p", dest="p_places", metavar="PLACES",
                       help="decimal places printed (ir_measures' -p; the same as --places)")
    p.add_argument("--format", default="tsv", choices=[*FORMATS, "ir_measures", "ir_measures-jsonl"])
    p.add_argument("--provider", default="ranklens", choices=["ranklens", "pytrec_eval"],
                   help="standard measures from ranklens's kernels (default; trec_eval 9.0.8 "
                        "definitions) or from pytrec_eval via ir_measures (the oracle); measures "
                        "without a kernel always go to ir_measures")
    p.add_argument("--ci", action="store_true",
                   help="add bootstrap confidence-interval columns (ci_low, ci_high) of each "
                        "mean; on with --baseline; off otherwise (no resampling unless asked)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--per-document", metavar="OUT",
                   help="write the per-document table (query_id, doc_id, relevance, rank, ASL)")
    p.add_argument("--out", metavar="DIR", help="also save the full result directory")
    p.add_argument("--show-depth", action="store_true",
                   help="also print each run's depth (documents per query) and recall at that depth")
    add_cli_options(p, Params, fields=FIELDS, aliases=ALIASES,
                    title="asl parameters (the same names and defaults as `ranklens asl`; --baseline is "
                          "a run name)")
    p.set_defaults(func=run)


def split_runs_and_measures(items: list[str], measures: list[str] | None) -> tuple[list[str], list[str] | None]:
    """Positional items -> (runs, measures): an existing path is a run, anything else is one
    or more space-separated measures (checked by the parser). Measures keep their order;
    a repeated measure is kept once (as ir_measures does)."""
    from ..errors import ValidationError
    from .measures import parse_measure

    runs: list[str] = []
    found: list[str] = list(measures or [])
    for item in items:
        if item.startswith("irds:") or Path(item).exists():
            runs.append(item)
            continue
        for m in item.split():
            try:
                parse_measure(m)
            except ValidationError as exc:
                raise ValidationError(f"{item!r} is neither a run file nor a measure ({exc})") from None
            found.append(m)
    if not runs:
        raise ValidationError(f"no run file among {items}; give QRELS RUN [RUN ...] [MEASURE ...]")
    out = [m for i, m in enumerate(found) if m not in found[:i]]
    return runs, (out or None)


def _params(args: argparse.Namespace) -> Any:
    """The ``asl`` ``Params`` of the options (validated as ``ranklens asl`` validates them)."""
    from ..declare import params_from_args
    from ..errors import ValidationError
    from .declaration import Params

    c = getattr(args, "p_confidence", None)
    try:
        outside = c is not None and not 0 < float(c) < 1
    except ValueError:
        outside = False  # not a number: the Params check names it
    if outside:
        raise ValidationError(f"--confidence must be between 0 and 1, got {c}")
    return params_from_args(Params, args, fields=FIELDS)


def run(args: argparse.Namespace) -> int:
    from .conventions import Conventions
    from .evaluation import evaluate
    from ..io.trec import discover_runs

    params = _params(args)
    conv = Conventions.from_params(params)
    if args.ir_format:
        args.format = IR_MEASURES_FORMATS[args.ir_format]
    run_items, measures = split_runs_and_measures(args.runs, args.measure_flags)
    runs = discover_runs(run_items)
    baseline = resolve_run_name(params.baseline, runs)
    if args.per_document:
        _check_output(args.per_document)
    res = evaluate(
        args.qrels, runs, measures, baseline=baseline,
        correction=params.correction, n_resamples=params.n_resamples, confidence=params.confidence,
        seed=args.seed, per_document=bool(args.per_document), ci=args.ci, provider=args.provider,
        **conv.kwargs(),
    )
    if args.format.startswith("ir_measures"):
        _write_ir_measures(res, args, params.places)
    else:
        _write_ranklens(res, args, conv, params.places)
    for w in res.warnings:
        sys.stderr.write(f"ranklens: warning: {w}\n")
    if args.per_document:
        _write_per_document(res, args.per_document)
    if args.out:
        res.save(args.out)
    return 0


def _write_ranklens(res, args: argparse.Namespace, conv: Any, places: int) -> None:
    if args.format != "jsonl":
        sys.stdout.write(f"# unretrieved={conv.unretrieved} rel={conv.rel} ties={conv.ties} missing={conv.missing} "
                         f"depth={conv.depth or 'as given'} provider={args.provider}"
                         + (f" grades={','.join(conv.grades)}" if conv.grades else "") + "\n")
    write_frame(_long_table(res, args), args.format, places=places)
    if args.show_depth and not args.by_query:
        write_frame(_in_run_order(res, res.table)[["model", "depth_min", "depth_median", "depth_max",
                                                   "recall_at_depth"]], args.format, places=places)


def resolve_run_name(name: str | None, runs: dict[str, Any]) -> str | None:
    """``name`` as a key of ``runs``: exact, or the unique run whose name ends with
    ``/name``. Raises a ValidationError listing the candidates when it is ambiguous/unknown."""
    from ..errors import ValidationError

    if name is None or name in runs:
        return name
    hits = [k for k in runs if k.endswith("/" + name)]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise ValidationError(f"run name {name!r} is ambiguous: {', '.join(hits)}; give one of "
                              "these")
    raise ValidationError(f"no run is named {name!r}; runs: {', '.join(list(runs)[:12])}"
                          + (" ..." if len(runs) > 12 else ""))


def _check_output(path: str) -> None:
    """Fail before any work when the per-document output cannot be written (a located error)."""
    from ..errors import OutputError

    p = Path(path)
    for parent in p.parents:
        if parent.exists():
            if not parent.is_dir():
                raise OutputError(f"cannot write the per-document table: {parent} is a file, not a "
                                  "directory; choose another path", path=p)
            break
    if p.is_dir():
        raise OutputError("the per-document output is a directory; give a file name", path=p)


def _write_per_document(res, path: str) -> None:
    from ..files import atomic_output

    pdoc = res.tables["per_document"].rename(columns={"sl": "asl"})
    comp = "gzip" if str(path).endswith(".gz") else None
    with atomic_output(path, what="per-document table") as tmp:
        pdoc.to_csv(tmp, sep="\t", index=False, compression=comp)


def _in_run_order(res, frame):
    """``frame`` (column ``model``) in the order the runs were given."""
    order = {m: i for i, m in enumerate(res.summary["run_order"])}
    return frame.iloc[frame["model"].map(order).argsort(kind="stable")].reset_index(drop=True)


def _long_table(res, args: argparse.Namespace):
    """One row per model x measure (with CI and test columns), or per model x query x measure;
    runs and measures in the order given."""
    import pandas as pd

    names = list(res.summary["measures"])
    if args.by_query:
        pq = res.tables["per_query"][["model", "query_id", "measure", "value"]]
        return pq.reset_index(drop=True)
    long = _in_run_order(res, res.table).melt(id_vars=["model"], value_vars=names, var_name="measure")
    long["measure"] = pd.Categorical(long["measure"], categories=names)
    order = {s: i for i, s in enumerate(res.summary["run_order"])}
    long["_o"] = long["model"].map(order)
    out = long.sort_values(["_o", "measure"], kind="stable").drop(columns="_o")
    out["measure"] = out["measure"].astype(str)
    if "ci" in res.tables:
        ci = res.tables["ci"]
        out = out.merge(ci[["model", "measure", "ci_low", "ci_high"]], on=["model", "measure"], how="left")
    if "significance" in res.tables:
        sig = res.tables["significance"]
        out = out.merge(sig[["model", "measure", "delta", "ttest_p", "ttest_p_adj", "rand_p", "rand_p_adj"]],
                        on=["model", "measure"], how="left")
    return out.reset_index(drop=True)


def _write_ir_measures(res, args: argparse.Namespace, places: int) -> None:
    """What ``ir_measures QRELS RUN MEASURES [-q] [-n] [-p N] [-o tsv|jsonl]`` prints: summary
    ``measure value`` lines, or per-query ``query_id measure value`` lines followed by the
    ``all`` rows (unless --no_summary); with several runs a leading run column."""
    import json

    names = list(res.summary["measures"])
    runs = list(res.summary["run_order"])
    pq = res.tables["per_query"]
    means = res.table.set_index("model")
    fmt = f".{places}f" if places >= 0 else ""
    for run_name in runs:
        lead = [run_name] if len(runs) > 1 else []
        rows: list[tuple[str, str, float]] = []
        if args.by_query:
            sub = pq[pq["model"] == run_name]
            rank = {m: i for i, m in enumerate(names)}  # per query, the measures in the order given
            sub = sub.assign(_m=sub["measure"].map(rank)).sort_values(["query_id", "_m"], kind="stable")
            rows.extend(sub[["query_id", "measure", "value"]].itertuples(index=False, name=None))
        if not (args.by_query and args.no_summary):
            rows.extend(("all", n, float(means.loc[run_name, n])) for n in names)
        for q, m, v in rows:
            if args.format == "ir_measures-jsonl":
                rec = {"run": run_name} if lead else {}
                rec.update({"query_id": q} if args.by_query else {})
                rec.update({"measure": m, "value": v})
                sys.stdout.write(json.dumps(rec) + "\n")
            else:
                cells = [*lead, *([q] if args.by_query else []), m, f"{v:{fmt}}"]
                sys.stdout.write("\t".join(cells) + "\n")
