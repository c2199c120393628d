"""``ranklens evaluate QRELS RUN [RUN ...] [MEASURE ...]``: trec_eval-style evaluation with ASL,
a top-level command the ``asl`` analysis declares (``Analysis.commands``).

With one run and no other option it prints exactly what the ir_measures CLI prints
(``measure<TAB>value``, 4 decimal places, the measures in the order given); with several runs
the same lines with a leading run column. Options that are ``asl`` parameters (``--ties``,
``--rel``, ``--unretrieved``, ``--collection-size``, ``--missing``, ``--duplicates``,
``--depth``, ``--grades``, ``--places``, ``--baseline``, ``--correction``, ``--confidence``,
``--n-resamples``) come from its ``Params``: the same names, defaults and checks as
``ranklens asl``. The peers' flags stay as ir_measures / trec_eval spell them: ``-m/--measure``
(trec_eval), ``-p`` (ir_measures' places), ``-n/--no_summary``, ``-o/--output_format``
(ir_measures); per-query values are ``--per-query`` (ir_measures' ``--by_query``): ``-q`` is
ranklens's ``--quiet`` before the command, so after ``evaluate`` it is refused, never guessed.

Examples::

    ranklens evaluate qrels.txt run.gz nDCG@10 AP ASL ASL@g1-10
    zcat run.gz | ranklens evaluate qrels.txt - nDCG@10 AP            # the run from stdin
    ranklens evaluate qrels.txt run.gz "nDCG@10 P@5 AP" --per-query -p 3 -o jsonl
    ranklens evaluate qrels.txt run.gz -m ASL -m AP --provider pytrec_eval
    ranklens evaluate qrels.txt runs/ --baseline bm25 --format table
    ranklens evaluate qrels.txt runs/ --ci --confidence 0.95 --format tsv
    ranklens evaluate qrels.txt run.gz NumQ NumRet NumRel NumRelRet --rel 2   # trec_eval -l 2 counts
    ranklens evaluate qrels.txt run.gz --per-document sl.tsv.gz
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_evaluate", "resolve_run_name", "split_runs_and_measures"]

#: ir_measures' ``--output_format`` names -> ranklens formats that print what ir_measures prints.
IR_MEASURES_FORMATS = {"tsv": "ir_measures", "jsonl": "ir_measures-jsonl"}
#: The ``asl`` parameters ``ranklens evaluate`` offers (options derived from ``Params``).
FIELDS = ("ties", "rel", "unretrieved", "collection_size", "missing", "duplicates", "depth", "grades",
          "places", "baseline", "correction", "confidence", "n_resamples")
#: Old spellings, accepted for one release with a FutureWarning.
ALIASES = {"n_resamples": ["--resamples"]}


_DESCRIPTION = (
    "Positional arguments after QRELS are run files/directories ('-' reads a run "
    "from stdin) or measures (anything that is not a path is parsed as measures; "
    "several may share one argument, separated by spaces, as in ir_measures). "
    "Measures: ASL, ASL@g1-N, ASL(rel=2), ASL(unretrieved=paper), ASL@CUTOFF and "
    "any ir_measures measure (AP, nDCG@10, P@20, RR, R@1000, Rprec, Bpref, NumQ, "
    "NumRet, NumRel, NumRelRet, ...). Default measures: ASL, ASL@g1-1, ASL@g1-10, "
    "AP, P@20, RR, nDCG@10. Runs and measures are printed in the order given.\n\n"
    "OUTPUT: by default what the ir_measures CLI prints: measure<TAB>value (one run; "
    "a leading run column with several runs), query_id<TAB>measure<TAB>value with "
    "--per-query plus 'all' rows (-n: none). --format tsv gives a table with a header "
    "(model, measure, value [, ci_low, ci_high with --ci or --baseline] [, delta, "
    "ttest_p, ttest_p_adj, rand_p, rand_p_adj with --baseline]; the default with "
    "--ci/--baseline/--show-depth), also jsonl and table. Count measures (NumQ, "
    "NumRet, NumRel, NumRelRet) are summed over queries, as trec_eval and ir_measures "
    "sum them; every other measure is a mean.\n\n"
    "DIFFERENCES FROM THE PEERS: (1) judged queries a run does not answer are left "
    "out by default (--missing skip, trec_eval's default, warned on stderr); the "
    "ir_measures CLI zero-fills them (trec_eval -c): --missing zero gives its "
    "numbers (and trec_eval -c's NumQ/NumRel, which count those queries). (2) --rel "
    "N is trec_eval's -l N: every relevance measure (AP, P, R, RR, NumRel, "
    "NumRelRet, ASL, ...) counts grades >= N; NumRet stays every retrieved document; "
    "nDCG keeps the graded gains. (3) Scores are compared as float32 under --ties "
    "trec_eval (trec_eval reads them into a C float): a score beyond float32's range "
    "(|s| > 3.4e38) compares as +-inf and ties with its like, counted in a warning; "
    "--ties float64 compares the exact values. (4) Duplicate (query, doc) rows are "
    "an error (--duplicates best keeps the best-ranked). ASL follows the paper (eq. "
    "3 for unretrieved documents); runs of different depths are warned about first.")


def _description() -> str:
    """The description, each paragraph wrapped (the raw formatter keeps the examples' layout)."""
    import textwrap

    return "\n\n".join(textwrap.fill(par, 100) for par in _DESCRIPTION.split("\n\n"))


def add_evaluate(sub: argparse._SubParsersAction) -> None:
    """Add ``ranklens evaluate`` to the CLI's subparsers (``func`` set)."""
    from ..declare import add_cli_options
    from .declaration import Params
    from .tools import FORMATS

    p = sub.add_parser(
        "evaluate", help="evaluate runs with ASL and the standard measures (trec_eval-like)",
        description=_description(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("Examples::", 1)[1],
    )
    p.add_argument("qrels", help="TREC qrels file (.gz ok) or irds:<id>")
    p.add_argument("runs", nargs="+", metavar="RUN_OR_MEASURE",
                   help="TREC run files (.gz ok; '-' = stdin) or directories of runs (runs with the "
                        "same file name are named by their folders, e.g. official/dl20/p_bm25), and "
                        "measures")
    peers = p.add_argument_group("ir_measures / trec_eval flags (spelled as the peers spell them)")
    peers.add_argument("-m", "--measure", action="append", dest="measure_flags",  # trec_eval peer flag
                       help="measure (repeatable), e.g. ASL, ASL@g1-10, AP, nDCG@10")
    peers.add_argument("-o", "--output_format", "--output-format", dest="ir_format",
                       choices=sorted(IR_MEASURES_FORMATS),
                       help="ir_measures' output format (tsv: measure<TAB>value, the default; jsonl)")
    peers.add_argument("--per-query", "--by-query", "--by_query", dest="by_query", action="store_true",
                       help="per-query values (ir_measures' --by_query: query_id, measure, value, then "
                            "the 'all' rows), queries in the order the run lists them as ir_measures prints "
                            "them; within a query the trec_eval measures (AP, nDCG@k, P@k, RR, ...) in "
                            "trec_eval's order as ir_measures prints them, then the others (ASL, ...) in the "
                            "order given; ranklens spells it --per-query: -q is --quiet")
    peers.add_argument("-q", dest="ambiguous_q", action="store_true", help=argparse.SUPPRESS)
    peers.add_argument("-n", "--no_summary", "--no-summary", dest="no_summary", action="store_true",
                       help="with --per-query in the ir_measures formats: no 'all' rows")
    peers.add_argument("-p", dest="p_places", metavar="PLACES",
                       help="decimal places printed (ir_measures' -p; the same as --places)")
    p.add_argument("--format", default=None, choices=[*FORMATS, "ir_measures", "ir_measures-jsonl"],
                   help="ir_measures (default; tsv with --ci, --baseline or --show-depth), "
                        "ir_measures-jsonl, tsv (a header, then model, measure, value, ...), jsonl, table")
    p.add_argument("--provider", default="ranklens", choices=["ranklens", "pytrec_eval"],
                   help="standard measures from ranklens's kernels (default; trec_eval 9.0.8 "
                        "definitions) or from pytrec_eval via ir_measures (the oracle); measures "
                        "without a kernel always go to ir_measures")
    p.add_argument("--ci", action="store_true",
                   help="add bootstrap confidence-interval columns (ci_low, ci_high) of each "
                        "mean; on with --baseline; off otherwise (no resampling unless asked)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the bootstrap (--ci) and the randomization test (--baseline) (default: 0)")
    p.add_argument("--per-document", metavar="OUT",
                   help="write the per-document table (query_id, doc_id, relevance, rank, ASL)")
    p.add_argument("--out", metavar="DIR", help="also save the full result directory")
    p.add_argument("--show-depth", action="store_true",
                   help="also print each run's depth (documents per query) and recall at that depth")
    add_cli_options(p, Params, fields=FIELDS, aliases=ALIASES,
                    title="asl parameters (the same names and defaults as `ranklens asl`; --baseline is "
                          "a run name)")
    p.set_defaults(func=run, engine_options=())  # runs no model: ranklens.cli.ENGINE_OPTIONS


def split_runs_and_measures(items: list[str], measures: list[str] | None) -> tuple[list[str], list[str] | None]:
    """Positional items -> (runs, measures): ``-`` (stdin), ``irds:...`` and an existing path are
    runs, anything else is one or more space-separated measures (checked by the parser).
    Measures keep their order; a repeated measure is kept once (as ir_measures does)."""
    from ..errors import ValidationError
    from .measures import parse_measure

    runs: list[str] = []
    found: list[str] = list(measures or [])
    for item in items:
        if item == "-" or item.startswith("irds:") or Path(item).exists():
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


def _format(args: argparse.Namespace) -> str:
    """The output format: ``-o`` (ir_measures' names), ``--format``, else ir_measures' own output
    (tsv when --ci, --baseline or --show-depth ask for columns it has no place for)."""
    if args.ir_format:
        return IR_MEASURES_FORMATS[args.ir_format]
    if args.format:
        return args.format
    return "tsv" if (args.ci or args.p_baseline is not None or args.show_depth) else "ir_measures"


def _conventions_note(conv: Any, provider: str) -> str | None:
    """One stderr line naming every convention that differs from the declared default (None when
    all are the defaults): stdout stays the peers' format, the choice is still printed."""
    from .conventions import Conventions

    default = Conventions()
    diff = [f"{k}={getattr(conv, k)}" for k in ("unretrieved", "rel", "ties", "missing", "depth", "duplicates",
                                                 "collection_size")
            if getattr(conv, k) != getattr(default, k)]
    if conv.grades:
        diff.append(f"grades={','.join(conv.grades)}")
    if provider != "ranklens":
        diff.append(f"provider={provider}")
    return "ranklens: conventions: " + " ".join(diff) if diff else None


def run(args: argparse.Namespace) -> int:
    from ..errors import ValidationError
    from ..io.trec import discover_runs
    from .conventions import Conventions
    from .evaluation import evaluate
    from .tools import write_frame

    if args.ambiguous_q:
        raise ValidationError("-q after `evaluate` is ambiguous in ranklens (before the command it is --quiet); "
                              "give --per-query for per-query values (ir_measures' -q/--by_query), or put -q "
                              "before `evaluate` for --quiet")
    from ..errors import IgnoredOptionError

    if args.no_summary and not args.by_query:  # an ignored option is an error, never a silent no-op
        raise IgnoredOptionError("-n/--no_summary leaves out the 'all' rows of --per-query output; without "
                              "--per-query there is nothing else to print: add --per-query or drop -n")
    params = _params(args)
    _refuse_unread(args, params)
    conv = Conventions.from_params(params)
    args.format = _format(args)
    extra = [flag for flag, on in (("--ci", args.ci), ("--baseline", params.baseline is not None),
                                   ("--show-depth", args.show_depth)) if on]
    if args.format.startswith("ir_measures") and extra:
        raise ValidationError(f"{', '.join(extra)} add columns that ir_measures' output has no place for; give "
                              "--format tsv, jsonl or table (the default with these options)")
    run_items, measures = split_runs_and_measures(args.runs, args.measure_flags)
    runs = discover_runs(run_items)
    baseline = resolve_run_name(params.baseline, runs)
    if args.per_document:
        _check_output(args.per_document)
    if args.format.startswith("ir_measures") and not (args.out or args.per_document):
        return _print_means(args, params, conv, runs, measures)  # no Result to build: no pandas
    res = evaluate(
        args.qrels, runs, measures, baseline=baseline,
        correction=params.correction, n_resamples=params.n_resamples, confidence=params.confidence,
        seed=args.seed or 0, per_document=bool(args.per_document), ci=args.ci, provider=args.provider,
        hash_inputs=bool(args.out), **conv.kwargs(),  # the provenance is kept only with --out
    )
    _notes(conv, args.provider, res.warnings)
    if args.format.startswith("ir_measures"):
        _write_ir_measures(res, args, params.places)
    else:
        write_frame(_long_table(res, args), args.format, places=params.places)
        if args.show_depth and not args.by_query:
            write_frame(_in_run_order(res, res.table)[["model", "depth_min", "depth_median", "depth_max",
                                                       "recall_at_depth"]], args.format, places=params.places)
    if args.per_document:
        _write_per_document(res, args.per_document)
    if args.out:
        res.save(args.out)
    return 0


def _refuse_unread(args: argparse.Namespace, params: Any) -> None:
    """Options evaluate would not read in this combination: an :class:`IgnoredOptionError` naming
    each, the option it needs and the fix (a silent no-op would look like a setting that ran)."""
    from ..errors import IgnoredOptionError

    ci, base = bool(args.ci), params.baseline is not None
    rules = [("--confidence", getattr(args, "p_confidence", None) is not None, ci, "unless --ci is given", "add --ci"),
             ("--correction", getattr(args, "p_correction", None) is not None, base, "unless --baseline is given",
              "add --baseline"),
             ("--n-resamples", getattr(args, "p_n_resamples", None) is not None, ci or base,
              "unless --ci or --baseline is given", "add --ci or --baseline"),
             ("--seed", args.seed is not None, ci or base, "unless --ci or --baseline is given",
              "add --ci or --baseline"),
             ("--show-depth", bool(args.show_depth), not args.by_query, "with --per-query (the depth table is "
              "printed after the means)", "drop --per-query")]
    bad = [f"{opt}: ignored {why}; {fix} or drop {opt}" for opt, given, read, why, fix in rules if given and not read]
    if bad:
        raise IgnoredOptionError("; ".join(bad) + " (an ignored option is an error)")


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


def _print_means(args: argparse.Namespace, params: Any, conv: Any, runs: dict[str, Any],
                 measures: list[str] | None) -> int:
    """The ir_measures formats without ``--out``/``--per-document``: :func:`evaluate_means`'
    numbers and warnings (those of :func:`evaluate`, no ``Result``, no pandas), printed."""
    from .._lazy import arrow_without_pandas
    from .evaluation import evaluate_means

    if args.provider == "ranklens" and not str(args.qrels).startswith("irds:") and _is_program():
        arrow_without_pandas()  # file inputs, ranklens kernels, then the process ends: no pandas
    means = evaluate_means(args.qrels, runs, measures, provider=args.provider, per_query=args.by_query,
                           **conv.kwargs())
    _notes(conv, args.provider, means.warnings)
    _print_ir_measures(args, params.places, means.measures, means.run_order,
                       lambda r: means.per_query[r], lambda r, n: means.values[r][n])
    return 0


def _is_program() -> bool:
    """Whether this process is the ``ranklens`` program (the console script or ``python -m
    ranklens``), not a caller of :func:`ranklens.cli.main` that goes on after it."""
    prog = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path()
    return prog.name == "ranklens" or (prog.name == "__main__.py" and prog.parent.name == "ranklens")


def _notes(conv: Any, provider: str, warnings: Any) -> None:
    """The conventions note and the warnings on stderr, before the numbers."""
    note = _conventions_note(conv, provider)
    if note:
        sys.stderr.write(note + "\n")
    for w in warnings:  # before the numbers: the depth mismatch is the first line a user sees
        sys.stderr.write(f"ranklens: warning: {w}\n")
    sys.stderr.flush()


def _write_ir_measures(res, args: argparse.Namespace, places: int) -> None:
    """:func:`_print_ir_measures` of a ``Result`` (``--out``, ``--per-document``)."""
    import pandas as pd

    names = list(res.summary["measures"])
    pq = res.tables["per_query"]
    means = res.table.set_index("model")
    rank = {m: i for i, m in enumerate(names)}  # per query, the measures in the order given

    def rows_of(run_name: str) -> list[tuple[str, str, float]]:
        sub = pq[pq["model"] == run_name]
        # queries in the order the run lists them (the per-query table's order), as ir_measures prints
        sub = sub.assign(_q=pd.factorize(sub["query_id"])[0], _m=sub["measure"].map(rank))
        sub = sub.sort_values(["_q", "_m"], kind="stable")
        return list(sub[["query_id", "measure", "value"]].itertuples(index=False, name=None))

    _print_ir_measures(args, places, names, list(res.summary["run_order"]), rows_of,
                       lambda r, n: float(means.loc[r, n]))


#: trec_eval's measure table order (pytrec_eval yields a query's measures in it), ir_measures' names
_TREC_ORDER = ("NumQ", "NumRet", "NumRel", "NumRelRet", "AP", "GMAP", "Rprec", "Bpref", "RR", "IPrec", "P", "R",
               "infAP", "nDCG", "nDCG@", "AP@", "Success", "SetP", "SetR", "SetRelP", "SetAP", "SetF")


def _query_order(names: Any) -> dict[str, tuple[int, float, int]]:
    """Within a query, the order the ir_measures CLI prints measures that its pytrec_eval
    provider computes: trec_eval's measure table order, cut-offs ascending (``P@5`` before
    ``P@10``). Every other measure (ASL, relevance levels other than the default, measures of
    ir_measures' other providers, which it prints in blocks of their own) follows, in the order given."""
    order: dict[str, tuple[int, float, int]] = {}
    for i, name in enumerate(names):
        base, at, cut = str(name).partition("@")
        fam = base + at if base in ("nDCG", "AP") and at else base
        if "(" in base or fam not in _TREC_ORDER:  # another relevance level or provider: as given, after
            order[name] = (len(_TREC_ORDER), 0.0, i)
        else:
            order[name] = (_TREC_ORDER.index(fam), float(cut) if cut else -1.0, i)
    return order


def _print_ir_measures(args: argparse.Namespace, places: int, names: Any, runs: Any, rows_of: Any,
                       value_of: Any) -> None:
    """What ``ir_measures QRELS RUN MEASURES [-q] [-n] [-p N] [-o tsv|jsonl]`` prints: summary
    ``measure value`` lines, or per-query ``query_id measure value`` lines followed by the
    ``all`` rows (unless --no_summary); with several runs a leading run column. ``rows_of(run)``
    gives a run's per-query rows, ``value_of(run, measure)`` its mean."""
    import json

    fmt = f".{places}f" if places >= 0 else ""
    for run_name in runs:
        lead = [run_name] if len(runs) > 1 else []
        rows: list[tuple[str, str, float]] = []
        if args.by_query:  # queries in the run's order; within one, the measures as ir_measures prints them
            rank = _query_order(names)
            seen: dict[str, int] = {}
            per_query = list(rows_of(run_name))
            for q, _m, _v in per_query:
                seen.setdefault(q, len(seen))
            rows.extend(sorted(per_query, key=lambda r: (seen[r[0]], rank.get(r[1], (len(_TREC_ORDER), 0.0, len(rank))))))
        if not (args.by_query and args.no_summary):
            rows.extend(("all", n, value_of(run_name, n)) for n in names)
        for q, m, v in rows:
            if args.format == "ir_measures-jsonl":
                rec = {"run": run_name} if lead else {}
                rec.update({"query_id": q} if args.by_query else {})
                rec.update({"measure": m, "value": v})
                sys.stdout.write(json.dumps(rec) + "\n")
            else:
                cells = [*lead, *([q] if args.by_query else []), m, f"{v:{fmt}}"]
                sys.stdout.write("\t".join(cells) + "\n")
