"""``ranklens demo``: run every analysis on the built-in demo collection and write a report."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="run every analysis on the built-in demo collection, then the report")
    p.add_argument("--out", default=None,
                   help="results directory (default: ./ranklens-demo, with --full ./ranklens-demo-full)")
    p.add_argument("--full", action="store_true",
                   help="the larger demo settings (every sweep, the neural trainer; minutes) instead of the quick ones")
    p.add_argument("--only", action="append", help="run only this analysis (repeatable): asl, probes, neighbors, regimes, explain")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..demo import run_demo

    info = run_demo(args.out or ("ranklens-demo-full" if args.full else "ranklens-demo"), only=args.only,
                    full=args.full)
    for w in info.get("warnings", []):
        print(f"ranklens: warning: {w}", file=sys.stderr)
    for name, secs in info["seconds"].items():
        print(f"  {name:<10} {secs:8.1f} s", file=sys.stderr)
    print(info["notes"][0], file=sys.stderr)
    print(f"report: {info['report']}")
    return 0
