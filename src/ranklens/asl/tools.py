"""``ranklens asl TOOL``: the paper's analyses on run files (``distribution``, ``rrie``, ``chain``,
``coverage``, ``tracks``, ``ties``, ``groups``), added under the derived ``ranklens asl`` command
(``Analysis.tools``); their conventions are the ``asl`` options (one ``Params``). Also the table
writer :func:`write_frame` that ``ranklens evaluate`` (:mod:`ranklens.asl.evaluate_cli`) shares.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["FORMATS", "add_tools", "run_tool", "write_frame"]

FORMATS = ("tsv", "jsonl", "table")


def _fmt_cell(v: Any, places: int) -> str:
    if isinstance(v, float):
        if v != v:
            return "nan"
        if v != 0 and abs(v) < 1e-4:
            return f"{v:.{max(places - 2, 1)}e}"
        return f"{v:.{places}f}"
    return str(v)


def write_frame(frame, fmt: str, out=None, *, places: int = 4, header: bool = True) -> None:
    """Write a DataFrame to stdout as tsv (with a header), jsonl or an aligned table; floats
    with ``places`` decimals, values below 1e-4 (p-values) in scientific notation."""
    out = out or sys.stdout
    if fmt == "jsonl":
        for rec in frame.to_dict(orient="records"):
            out.write(json.dumps({k: (None if v != v else v) if isinstance(v, float) else v
                                  for k, v in rec.items()}, default=str) + "\n")
        return
    cells = [[_fmt_cell(v, places) for v in row] for row in frame.itertuples(index=False)]
    cols = [str(c) for c in frame.columns]
    if fmt == "tsv":
        if header:
            out.write("\t".join(cols) + "\n")
        for row in cells:
            out.write("\t".join(row) + "\n")
        return
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(cols)]
    out.write("  ".join(c.rjust(w) for c, w in zip(cols, widths)) + "\n")
    for row in cells:
        out.write("  ".join(v.rjust(w) for v, w in zip(row, widths)) + "\n")


# written out, not imported: building the parser imports no kernel module (tests/cli/test_startup.py); checked
# equal to conventions.Conventions, ChainOptions, COVERAGE and TIES_REPORT by tests/cli/test_no_silent_options.py
_CONVENTIONS = ("ties", "rel", "unretrieved", "collection_size", "missing", "duplicates", "depth", "grades")
_CHAIN = ("min_rel_diff", "alpha", "better_space", "tau_digits")
_OUT = ("out", "no_plots", "places")
#: what each tool reads of the options of `ranklens asl` (the CLI refuses the others: they would be ignored);
#: the subsets are those :func:`_tool_results` passes
TOOL_READS = {
    "distribution": (*_CONVENTIONS, *_OUT), "rrie": (*_CONVENTIONS, *_OUT), "groups": (*_CONVENTIONS, *_OUT),
    "chain": (*_CONVENTIONS, *_CHAIN, *_OUT), "tracks": (*_CONVENTIONS, *_CHAIN, *_OUT),
    "coverage": ("ties", "rel", "missing", "duplicates", "depth", "grades", *_OUT),
    "ties": ("rel", "unretrieved", "collection_size", "duplicates", *_OUT),
}

TOOLS_HELP = """file tools (the options of `ranklens asl`, e.g. --out, --rel, --unretrieved, --depth,
go BEFORE the tool name):
  ranklens asl --out out/dist distribution qrels.txt bm25.run neural.run
  ranklens asl --out out/rrie rrie qrels.txt bm25.run neural.run
  ranklens asl --out out/chain chain qrels.txt runs/
  ranklens asl --out out/cov coverage qrels.txt runs/
  ranklens asl --out out/tracks tracks tracks_dir/          # Table 2 across tracks
  ranklens asl --out out/tracks tracks --track dl19 qrels19.txt runs19/ --track dl20 ...
  ranklens asl --out out/ties ties qrels.txt runs/
  ranklens asl --out out/groups groups qrels.txt runs/ --group traditional='*bm25*' --group neural='*'
"""


def add_tools(parser: argparse.ArgumentParser) -> None:
    """``ranklens asl distribution|rrie|chain|coverage|tracks|ties``: the paper's analyses on run
    files. Their conventions are the ``asl`` analysis's own options (one ``Params``)."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = TOOLS_HELP
    s = parser.add_subparsers(dest="asl_tool", metavar="TOOL", required=False)

    def tool(name: str, help_: str, *positionals: tuple[str, str]) -> argparse.ArgumentParser:
        sp = s.add_parser(name, help=help_, description=help_)
        for dest, spec in positionals:
            nargs = {"?": "?", "+": "+"}.get(spec[-1:], None)
            sp.add_argument(dest, metavar=spec.rstrip("?+"), nargs=nargs)
        sp.add_argument("--format", dest="asl_format", default="table", choices=FORMATS)
        sp.set_defaults(func=run_tool, tool_reads=TOOL_READS[name])
        return sp

    tool("distribution", "per-document ASL histogram (+ wins/losses vs OTHER)",
         ("tool_qrels", "QRELS"), ("tool_run", "RUN"), ("tool_other", "OTHER?"))
    tool("rrie", "relative reduction in error of RUN_B over RUN_A (eqs. 11-12)",
         ("tool_qrels", "QRELS"), ("tool_run", "RUN_A"), ("tool_other", "RUN_B"))
    tool("chain", "MAP -> ASL step by step over one track (ΔSort, tau, ΔValue; Table 2)",
         ("tool_qrels", "QRELS"), ("tool_runs", "RUNS+"))
    tool("coverage", "how much of the ranking MAP sees (Appendix A.1)",
         ("tool_qrels", "QRELS"), ("tool_runs", "RUNS+"))
    t = tool("tracks", "best system per track (Figs. 1-4) and Table 2 across tracks (mean ± sd)",
             ("tool_dir", "DIRECTORY?"))
    t.add_argument("--track", dest="tool_tracks", nargs=3, action="append", default=None,
                   metavar=("NAME", "QRELS", "RUNS"), help="a track (repeatable) instead of DIRECTORY")
    tool("ties", "score ties per run and the effect of each tie rule",
         ("tool_qrels", "QRELS"), ("tool_runs", "RUNS+"))
    g = tool("groups", "best run of each group and RRIE (Table 1); best vs median system (Fig. 6)",
             ("tool_qrels", "QRELS"), ("tool_runs", "RUNS+"))
    g.add_argument("--group", dest="tool_groups", action="append", default=None, metavar="NAME=GLOB",
                   help="a run group (repeatable; the first is the baseline), e.g. "
                        "traditional='*bm25*' neural='*bert*'; or --group FILE.tsv (run<TAB>group)")


def _tracks_arg(args: argparse.Namespace) -> Any:
    from ..errors import ValidationError

    if args.tool_tracks:
        return {name: (q, r) for name, q, r in args.tool_tracks}
    if not args.tool_dir:
        raise ValidationError("asl tracks: give a DIRECTORY of tracks or --track NAME QRELS RUNS")
    return args.tool_dir


def _tool_results(args: argparse.Namespace, p: Any) -> list[Any]:
    from ..errors import ValidationError
    from ..io.trec import discover_runs
    from . import analyses, chain
    from .conventions import COVERAGE, TIES_REPORT, ChainOptions, Conventions

    conventions = Conventions.from_params(p)
    conv, cov = conventions.kwargs(), conventions.kwargs(*COVERAGE)
    chain_options = ChainOptions.from_params(p).kwargs()
    if args.asl_tool == "tracks":
        return analyses.tracks_report(_tracks_arg(args), chain_options=chain_options, **conv)
    if args.asl_tool in ("distribution", "rrie"):
        paths = [x for x in (args.tool_run, args.tool_other) if x]
        names = _pair(paths)
        if args.asl_tool == "rrie":
            return [analyses.rrie(args.tool_qrels, paths[0], paths[1], name_a=names[0], name_b=names[1], **conv)]
        return [analyses.asl_distribution(args.tool_qrels, paths[0], paths[1] if len(paths) > 1 else None,
                                          name=names[0], other_name=names[1] if len(names) > 1 else None, **conv)]
    runs = discover_runs(args.tool_runs)
    if args.asl_tool == "chain":
        return [chain.map_to_asl_chain(args.tool_qrels, runs, **conv, **chain_options)]
    if args.asl_tool == "coverage":
        return [chain.map_coverage(args.tool_qrels, runs, **cov)]
    if args.asl_tool == "groups":
        if not args.tool_groups:
            raise ValidationError("asl groups: give --group NAME=GLOB at least twice (or a TSV file)")
        spec = args.tool_groups[0] if len(args.tool_groups) == 1 and "=" not in args.tool_groups[0] \
            else args.tool_groups
        return analyses.run_groups(args.tool_qrels, runs, spec, **conv)
    return [analyses.tie_report(args.tool_qrels, runs, **conventions.kwargs(*TIES_REPORT))]


def run_tool(args: argparse.Namespace) -> int:
    """Run one file tool: print each result's table on stdout (the line naming the policies on stderr),
    save the results under ``--out`` (with their plots) and print the warnings to stderr."""
    from ..declare import params_dict, params_from_args
    from ..results import save_results
    from .conventions import Conventions
    from .declaration import Params

    p = params_from_args(Params, args)
    stamped = params_dict(p)  # as the door stamps an analysis's results: provenance.analysis_params
    results = [r.with_analysis_params(stamped) for r in _tool_results(args, p)]
    header = Conventions.from_params(p).header()
    for i, res in enumerate(results):  # stdout: the tables as they are (pandas.read_csv reads one as is)
        sys.stderr.write(f"ranklens: {res.kind}: {header}\n")
        if i:
            sys.stdout.write("\n")  # tables of several results are separated by a blank line
        write_frame(res.table, args.asl_format, places=p.places)
    dirs = save_results(results, Path(args.out), plots=not args.no_plots)
    for res, d in zip(results, dirs):
        sys.stderr.write(f"ranklens: {res.kind} saved in {d}\n")
        for w in res.warnings:
            sys.stderr.write(f"ranklens: warning: {res.kind}: {w}\n")
    return 0


def _pair(paths: list[str]) -> list[str]:
    """Names of the runs compared by distribution/rrie (told apart by folder if needed)."""
    from ..errors import ValidationError
    from ..io.trec import discover_runs

    names = list(discover_runs(paths))
    if len(names) != len(paths):
        raise ValidationError("give one run file per argument (not a directory)")
    return names
