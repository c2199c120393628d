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
from typing import Any

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
    parser.add_argument("--engine", metavar="SPEC", help="where model batches run: local (default), ray (a local "
                        "Ray) or ray:ADDRESS (a cluster); env RANKLENS_ENGINE")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    parser.add_argument("--encoding", metavar="CODEC",
                        help="text encoding of every input file (default: $RANKLENS_ENCODING or utf-8)")
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


def _engine(args: argparse.Namespace) -> Any:
    """The engine the global options ask for (passed explicitly: the environment is not touched)."""
    from ..engine import ScoringEngine, default_engine, make_dispatcher

    engine_spec = getattr(args, "engine", None)
    if not (args.cache_dir or args.no_cache or args.quiet or engine_spec):
        return None
    cache: Any = False if args.no_cache else (args.cache_dir or None)
    base = default_engine() if not (args.cache_dir or args.no_cache) else None
    dispatcher = make_dispatcher(engine_spec) if engine_spec else (base.dispatcher if base is not None else None)
    return ScoringEngine(cache=base.cache if base is not None else cache, show_progress=False if args.quiet else None,
                         dispatcher=dispatcher or make_dispatcher(os.environ.get("RANKLENS_ENGINE")))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(argv) if argv is not None else None)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    from .._progress import progress_setting
    from ..engine import default_engine, set_default_engine
    from ..io._columns import encoding_setting

    previous = None
    try:
        engine = _engine(args)
        if engine is not None:  # restored below: main() leaves no process-wide setting behind
            previous = default_engine()
            set_default_engine(engine)
        with progress_setting(False if args.quiet else None), encoding_setting(args.encoding):
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
    finally:
        if previous is not None:
            set_default_engine(previous)
            if getattr(args, "engine", None):  # the Ray actors (and a local Ray) this run started
                getattr(engine.dispatcher, "close", lambda: None)()
