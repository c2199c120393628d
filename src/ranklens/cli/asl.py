"""``ranklens asl distribution|rrie|chain|coverage|tracks|ties``: the ASL paper's analyses.

Examples::

    ranklens asl distribution qrels.txt bm25.run neural.run --out out/dist
    ranklens asl rrie qrels.txt bm25.run neural.run
    ranklens asl chain qrels.txt runs/ --out out/chain
    ranklens asl coverage qrels.txt runs/
    ranklens asl tracks tracks_dir/ --out out/tracks
    ranklens asl ties qrels.txt runs/
"""

from __future__ import annotations

import argparse

from ._asl_common import FORMATS, add_convention_options, collect_runs, write_frame


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("asl", help="ASL analyses: distribution, RRIE, MAP->ASL chain, ...",
                       description=__doc__.split("Examples::")[0],
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=__doc__.split("Examples::", 1)[1])
    s = p.add_subparsers(dest="analysis", metavar="ANALYSIS", required=True)

    def common(sp: argparse.ArgumentParser, conventions: bool = True) -> None:
        if conventions:
            add_convention_options(sp)
        sp.add_argument("--format", default="table", choices=FORMATS)
        sp.add_argument("--out", metavar="DIR", help="save the result directory (+ plots)")
        sp.set_defaults(func=run)

    d = s.add_parser("distribution", help="per-document ASL histogram (+ wins/losses vs OTHER)")
    d.add_argument("qrels")
    d.add_argument("run")
    d.add_argument("other", nargs="?")
    common(d)
    r = s.add_parser("rrie", help="relative reduction in error of RUN_B over RUN_A")
    r.add_argument("qrels")
    r.add_argument("run_a")
    r.add_argument("run_b")
    common(r)
    c = s.add_parser("chain", help="MAP -> ASL step by step over a track (dSort, tau, dValue)")
    c.add_argument("qrels")
    c.add_argument("runs", nargs="+")
    c.add_argument("--min-rel-diff", type=float, default=0.10)
    c.add_argument("--alpha", type=float, default=0.05)
    common(c)
    v = s.add_parser("coverage", help="how much of the ranking MAP sees")
    v.add_argument("qrels")
    v.add_argument("runs", nargs="+")
    common(v)
    t = s.add_parser("tracks", help="best system per track by P@20, ASL@g1-10, AP, ASL")
    t.add_argument("directory", help="directory of tracks (each: *qrels* file + runs/)")
    common(t)
    x = s.add_parser("ties", help="score ties per run and the effect of each tie rule")
    x.add_argument("qrels")
    x.add_argument("runs", nargs="+")
    common(x)


def _pair(*paths):
    """Names of the runs compared by distribution/rrie (told apart by folder if needed)."""
    names = list(collect_runs([p for p in paths if p]))
    if len(names) != len([p for p in paths if p]):
        from ..errors import ValidationError

        raise ValidationError("give one run file per argument (not a directory)")
    return names


def run(args: argparse.Namespace) -> int:
    from ..metrics import analyses, plots

    conv = {"ties": args.ties, "rel": args.rel, "unretrieved": args.unretrieved,
            "duplicates": args.duplicates} if hasattr(args, "ties") else {}
    figs = {}
    if args.analysis == "distribution":
        names = _pair(args.run, args.other)
        res = analyses.asl_distribution(
            args.qrels, args.run, args.other, name=names[0],
            other_name=names[1] if args.other else None,
            collection_size=args.collection_size, **conv)
        figs["distribution"] = plots.plot_distribution(res)
        if args.other:
            figs["deltas"] = plots.plot_deltas(res)
    elif args.analysis == "rrie":
        name_a, name_b = _pair(args.run_a, args.run_b)
        res = analyses.rrie(args.qrels, args.run_a, args.run_b, name_a=name_a,
                            name_b=name_b, collection_size=args.collection_size,
                            missing=args.missing, **conv)
        figs["rrie"] = plots.plot_rrie(res)
    elif args.analysis == "chain":
        res = analyses.map_to_asl_chain(args.qrels, collect_runs(args.runs),
                                        collection_size=args.collection_size,
                                        missing=args.missing, min_rel_diff=args.min_rel_diff,
                                        alpha=args.alpha, **conv)
        figs["chain"] = plots.plot_chain(res)
    elif args.analysis == "coverage":
        res = analyses.map_coverage(args.qrels, collect_runs(args.runs),
                                    collection_size=args.collection_size, missing=args.missing,
                                    **conv)
    elif args.analysis == "tracks":
        res = analyses.track_summary(args.directory, missing=args.missing,
                                     collection_size=args.collection_size, **conv)
        figs["tracks"] = plots.plot_tracks(res)
    else:
        res = analyses.tie_report(args.qrels, collect_runs(args.runs), rel=args.rel,
                                  unretrieved=args.unretrieved,
                                  collection_size=args.collection_size,
                                  duplicates=args.duplicates)
    write_frame(res.table, args.format)
    if args.out:
        from pathlib import Path

        out = res.save(args.out)
        for name, fig in figs.items():
            fig.savefig(Path(out) / f"{name}.png", dpi=120)
    return 0
