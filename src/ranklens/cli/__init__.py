"""Command-line interface: ``ranklens <subcommand> ...``.

Each subcommand is a module in this package that defines ``register(subparsers)``; the parser it
adds sets ``func`` (``func(args) -> int``). Modules load lazily-importing code only, so
``ranklens --help`` stays fast. stdout carries data; stderr carries progress and errors.
Exit codes: 0 success, 1 ranklens error (one line ``ranklens: error: ...``), 2 usage error.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from .. import __version__
from ..errors import RanklensError

EPILOG = """quick start:
  ranklens demo                                   # every analysis on the built-in demo collection
  ranklens evaluate QRELS RUN -m ASL -m nDCG@10   # trec_eval-style evaluation with ASL
  ranklens cache info                             # where cached scores live, and how big
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ranklens",
        description="Why ranking models and text embedders behave as they do, beyond nDCG.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ranklens {__version__}")
    parser.add_argument("--cache-dir", help="score/embedding cache directory (env RANKLENS_CACHE_DIR)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the on-disk cache")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    from ..registry import analyses
    from ._analysis import add_analysis_parser

    for name, analysis in analyses().items():
        if name not in sub.choices:
            add_analysis_parser(sub, analysis)
    return parser


def _configure(args: argparse.Namespace) -> None:
    if args.cache_dir:
        os.environ["RANKLENS_CACHE_DIR"] = args.cache_dir
    if args.no_cache:
        os.environ["RANKLENS_NO_CACHE"] = "1"
    if args.quiet:
        os.environ["RANKLENS_PROGRESS"] = "0"
    # the engine draws the progress that matters; the per-load "Loading weights" bars of
    # transformers would bury it (read once, when transformers is first imported)
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    from ..engine import set_default_engine

    set_default_engine(None)  # pick up the options above


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(argv) if argv is not None else None)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    _configure(args)
    try:
        return int(args.func(args) or 0)
    except RanklensError as exc:
        if args.debug:
            raise
        print(f"ranklens: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("ranklens: interrupted (finished batches are cached; re-run to resume)", file=sys.stderr)
        return 130
