"""``ranklens check FILE``: evaluate an expectations file (a behavioural release gate).

Exit codes: 0 every expectation passes, 1 one or more fail (or a run fails), 2 the file is broken
(every problem is printed with its key path).
"""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="behavioural release gate: evaluate an expectations file (exit 1 on failure)")
    p.add_argument("file", help="expectations .toml / .yaml (an experiment file with [[expect]] rows)")
    p.add_argument("--model", action="append", default=[], metavar="NAME=SPEC",
                   help="replace (or add) the file's model NAME, e.g. candidate=st:/models/new")
    p.add_argument("--junit", metavar="PATH", help="write the verdicts as JUnit XML")
    p.add_argument("--markdown", metavar="PATH", help="write a Markdown summary (a pull-request comment)")
    p.add_argument("--update-baseline", action="store_true",
                   help="record the current numbers (with provenance) as the new reference")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..check import prepare, run_check
    from ..errors import DataFormatError, ValidationError
    from ..files import write_text_atomic

    models = {}
    for m in args.model:
        name, sep, spec = m.partition("=")
        if not sep or not name or not spec:
            print(f"ranklens: error: --model {m}: write NAME=SPEC (e.g. candidate=bm25)", file=sys.stderr)
            return 2
        models[name] = spec
    try:
        exps, objects = prepare(args.file, models)
    except (ValidationError, DataFormatError) as exc:
        print(f"ranklens: error: {exc}", file=sys.stderr)
        return 2
    report = run_check(exps, objects, update_baseline=args.update_baseline)
    print(report.text(), end="")
    if args.junit:
        write_text_atomic(args.junit, report.to_junit(), what="--junit file")
    if args.markdown:
        write_text_atomic(args.markdown, report.to_markdown(), what="--markdown file")
    if args.update_baseline:
        print(f"reference recorded in {exps.reference}", file=sys.stderr)
    return 0 if report.passed else 1
