"""Options and output helpers shared by ``ranklens evaluate`` and ``ranklens asl``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

FORMATS = ("tsv", "jsonl", "table")


def add_convention_options(p: argparse.ArgumentParser) -> None:
    """--ties, --rel, --unretrieved, --collection-size, --missing, --duplicates, --depth,
    --grades for ``ranklens evaluate`` (defaults: the ``asl`` analysis's ``Params``)."""
    from ..asl.declaration import Params

    d = Params()
    p.add_argument("--ties", default=d.ties, choices=["trec_eval", "float64", "input_order"],
                   help="tie rule: trec_eval = float32 scores, doc_id descending (default)")
    p.add_argument("--rel", type=int, default=d.rel,
                   help="minimum relevance for binary measures and ASL (like trec_eval -l)")
    p.add_argument("--unretrieved", default=d.unretrieved, choices=["paper", "lower_bound", "expected"],
                   help="ASL of relevant docs the run never retrieved (default paper = eq. 3: "
                        "non-relevant retrieved; lower_bound = that + 1)")
    p.add_argument("--collection-size", type=int, default=None,
                   help="number of documents in the collection (for --unretrieved expected)")
    p.add_argument("--missing", default=d.missing, choices=["skip", "zero", "error"],
                   help="judged queries absent from a run: skip (trec_eval default), zero (-c; ASL "
                        "the worst case)")
    p.add_argument("--duplicates", default=d.duplicates, choices=["error", "best"],
                   help="a (query, doc) pair listed twice in a run: error (default) or best "
                        "(keep its best-ranked row; every measure sees the same ranking)")
    p.add_argument("--depth", type=int, default=None,
                   help="cut every run to its top DEPTH documents per query first")
    p.add_argument("--grades", action="append", default=None, metavar="OLD=NEW",
                   help="qrels grade mapping (repeatable), e.g. 1=0, or nist-dl20")
    p.add_argument("-p", "--places", type=int, default=d.places, help="decimal places printed")


def collect_runs(items: list[str]) -> dict[str, Any]:
    """Run files and directories of runs -> ``{name: path}``, names unique.

    A run is named by its file name (suffixes such as ``.gz``/``.run`` dropped). When several
    runs share a name (``official/dl20/p_bm25`` and ``official_full_depth/dl20/p_bm25``), each
    of them is named by as many parent folders as it takes to tell them apart
    (``official/dl20/p_bm25``, ``official_full_depth/dl20/p_bm25``).

    Raises:
        ValidationError: when the same file is given twice, or when runs of the same name cannot
            be told apart by their folders.
    """
    from ..errors import ValidationError
    from ..asl.evaluation import load_runs

    found: list[tuple[str, Any]] = []
    for r in items:
        found.extend(load_runs(r).items())
    by_name: dict[str, list[Any]] = {}
    for name, path in found:
        by_name.setdefault(name, []).append(path)
    out: dict[str, Any] = {}
    for name, paths in by_name.items():
        if len(paths) == 1:
            out[name] = paths[0]
            continue
        resolved = [Path(p).resolve() for p in paths]
        if len(set(resolved)) < len(resolved):
            dup = next(str(p) for p, r in zip(paths, resolved) if resolved.count(r) > 1)
            raise ValidationError(f"run file {dup} is given twice; pass each run once")
        parts = [r.parent.parts[1:] for r in resolved]  # without the root
        labels = []
        for depth in range(1, max(len(x) for x in parts) + 1):
            labels = ["/".join([*x[max(len(x) - depth, 0):], name]) for x in parts]
            if len(set(labels)) == len(labels):
                break
        if len(set(labels)) < len(labels) or any(lab in by_name or lab in out for lab in labels):
            raise ValidationError(f"{len(paths)} runs are named {name!r} ({', '.join(map(str, paths))}) "
                                  "and their folders do not tell them apart; rename the files")
        out.update(zip(labels, paths))
    return out


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


# --------------------------------------------------------------------------------------------
# ranklens asl TOOL: file tools under the derived `ranklens asl` command
# --------------------------------------------------------------------------------------------

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
        sp.set_defaults(func=run_tool)
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
    from ..asl import analyses, chain
    from ..asl.declaration import chain_options, conventions

    conv = conventions(p)
    cov = {k: conv[k] for k in ("ties", "rel", "missing", "duplicates", "depth", "grades")}
    if args.asl_tool == "tracks":
        return analyses.tracks_report(_tracks_arg(args), chain_options=chain_options(p), **conv)
    if args.asl_tool in ("distribution", "rrie"):
        paths = [x for x in (args.tool_run, args.tool_other) if x]
        names = _pair(paths)
        if args.asl_tool == "rrie":
            return [analyses.rrie(args.tool_qrels, paths[0], paths[1], name_a=names[0], name_b=names[1], **conv)]
        return [analyses.asl_distribution(args.tool_qrels, paths[0], paths[1] if len(paths) > 1 else None,
                                          name=names[0], other_name=names[1] if len(names) > 1 else None, **conv)]
    runs = collect_runs(args.tool_runs)
    if args.asl_tool == "chain":
        return [chain.map_to_asl_chain(args.tool_qrels, runs, **conv, **chain_options(p))]
    if args.asl_tool == "coverage":
        return [chain.map_coverage(args.tool_qrels, runs, **cov)]
    if args.asl_tool == "groups":
        if not args.tool_groups:
            raise ValidationError("asl groups: give --group NAME=GLOB at least twice (or a TSV file)")
        spec = args.tool_groups[0] if len(args.tool_groups) == 1 and "=" not in args.tool_groups[0] \
            else args.tool_groups
        return analyses.run_groups(args.tool_qrels, runs, spec, **conv)
    tie_kw = {k: conv[k] for k in ("rel", "unretrieved", "collection_size", "duplicates")}
    return [analyses.tie_report(args.tool_qrels, runs, **tie_kw)]


def run_tool(args: argparse.Namespace) -> int:
    """Run one file tool: print each result's table (with a header line naming the policies),
    save the results under ``--out`` (with their plots) and print the warnings to stderr."""
    from ..declare import params_from_args
    from ..drive import save_results
    from ..asl.declaration import Params, with_params

    p = params_from_args(Params, args)
    results = [with_params(r, p) for r in _tool_results(args, p)]
    for res in results:
        sys.stdout.write(f"# {res.kind}: unretrieved={p.unretrieved} rel={p.rel} ties={p.ties} "
                         f"missing={p.missing} depth={p.depth or 'as given'}"
                         + (f" grades={','.join(p.grades)}" if p.grades else "") + "\n")
        write_frame(res.table, args.asl_format, places=p.places)
    dirs = save_results(results, args.out, plots=not args.no_plots)
    for res, d in zip(results, dirs):
        print(f"ranklens: {res.kind} saved in {d}", file=sys.stderr)
        for w in res.warnings:
            print(f"ranklens: warning: {res.kind}: {w}", file=sys.stderr)
    return 0


def _pair(paths: list[str]) -> list[str]:
    """Names of the runs compared by distribution/rrie (told apart by folder if needed)."""
    from ..errors import ValidationError

    names = list(collect_runs(paths))
    if len(names) != len(paths):
        raise ValidationError("give one run file per argument (not a directory)")
    return names
