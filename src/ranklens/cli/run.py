"""``ranklens run experiment.toml``: run an experiment file (what is missing), then the report."""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run an experiment file (TOML/YAML): models x datasets x analyses")
    p.add_argument("file", help="experiment .toml / .yaml")
    p.add_argument("--check", action="store_true", help="only validate the file and list the steps")
    p.add_argument("--no-report", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..experiment import load_experiment, run_experiment

    if args.check and args.no_report:
        from ..errors import IgnoredOptionError

        raise IgnoredOptionError("ranklens run: --no-report is ignored with --check (it runs nothing and writes no "
                                 "report); drop it (an ignored option is an error)")
    exp = load_experiment(args.file)
    if args.check:
        for s in exp.steps:
            done = (exp.results_dir / s.step_id / ".done").is_file()
            print(f"{s.step_id}\t{'done' if done else 'todo'}\t{','.join(s.models)}")
        return 0
    info = run_experiment(exp, report=not args.no_report)
    for w in info.pop("warnings", []):  # once, on stderr, as every analysis command does
        print(f"ranklens: warning: {w}", file=sys.stderr)
    print(json.dumps(info, indent=2))
    return 0
