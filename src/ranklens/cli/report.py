"""``ranklens report RESULTS_DIR [...] -o report.html``: one self-contained report."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="render result directories into one HTML / Markdown / LaTeX report")
    p.add_argument("dirs", nargs="+", help="result directories (searched recursively)")
    p.add_argument("-o", "--output", required=True, help="output file")
    p.add_argument("--format", choices=["html", "md", "latex"], default=None,
                   help="md: headline, findings and paper tables only, to paste into a paper draft or an issue; "
                        "default: from the output suffix (.md, .tex), else html")
    p.add_argument("--title", default=None,
                   help="the report's title (default: the one its runner recorded in DIR, else 'ranklens report')")
    p.add_argument("--places", type=int, default=None, metavar="N",
                   help="decimals of every number (default: 3 significant digits)")
    p.add_argument("--baseline", default=None, metavar="MODEL",
                   help="model the headline's significance marks compare with (default: each result's own "
                        "baseline, else bm25, else its first model)")
    p.add_argument("--diff", default=None, metavar="OTHER",
                   help="add a 'Results diff' section: every number the one DIR shares with the results "
                        "directory OTHER, its change (DIR - OTHER), its significance and the provenance that differs "
                        "(ranklens results diff OTHER DIR)")
    p.set_defaults(func=run, engine_options=())  # runs no model: ranklens.cli.ENGINE_OPTIONS


def run(args: argparse.Namespace) -> int:
    from .._resultfile import EDITED
    from ..report import Report

    fmt = args.format or ("md" if args.output.endswith(".md") else "latex" if args.output.endswith(".tex") else "html")
    if args.places is not None and not 0 <= args.places <= 10:
        from ..errors import ValidationError

        raise ValidationError(f"--places: expected 0 to 10 decimals, got {args.places}")
    diff = None
    if args.diff is not None:
        from ..diff import diff_results
        from ..errors import ValidationError

        if len(args.dirs) != 1:
            raise ValidationError(f"--diff {args.diff}: give one results directory to compare with it, got "
                                  f"{len(args.dirs)}: {args.dirs}")
        diff = diff_results(args.diff, args.dirs[0])
    report = Report.from_dirs(args.dirs, title=args.title, places=args.places, baseline=args.baseline, diff=diff)
    for _, res in report.results:  # a result edited after saving is never rendered without a word
        for w in res.warnings:
            if EDITED in w:
                print(f"ranklens: warning: {w}", file=sys.stderr)
    path = report.save(args.output, format=fmt)
    print(f"wrote {path} ({path.stat().st_size:,} bytes, {len(report.results)} results)", file=sys.stderr)
    return 0
