"""Command-line interface: ``ranklens <subcommand> ...``.

Each subcommand is a module in this package that defines ``register(subparsers)``; the parser it
adds sets ``func`` (``func(args) -> int``). Modules load lazily-importing code only, so
``ranklens --help`` stays fast. stdout carries data; stderr carries progress and errors.
Exit codes: 0 success, 1 ranklens error (one line ``ranklens: error: ...``), 2 usage error.
"""

from __future__ import annotations

import argparse
import importlib
import contextlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from typing import Any

from .. import __version__
from ..declare import resolve
from ..errors import RanklensError

EPILOG = """quick start:
  ranklens demo                                   # every analysis on the built-in demo collection
  ranklens evaluate QRELS RUN -m ASL -m nDCG@10   # trec_eval-style evaluation with ASL
  ranklens cache info                             # where cached scores live, and how big
"""


_VALUED = {"--cache-dir", "--engine", "--encoding"}


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (skipping global options and their values)."""
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a in _VALUED:
            skip = True
        elif not a.startswith("-"):
            return a
    return None


class _Absorb:
    """A parser stand-in that accepts every call and keeps nothing (see :class:`_HelpOnly`)."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: _Absorb()


class _HelpOnly:
    """A subparsers stand-in: ``add_parser`` adds the subcommand with its one-line ``help`` only; the
    options its module would add go nowhere. ``ranklens --help`` lists the commands without building
    each command's options (a command given on the line is built in full, alone)."""

    def __init__(self, sub: argparse._SubParsersAction) -> None:
        self._sub = sub
        self.choices = sub.choices

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        self._sub.add_parser(name, help=kwargs.get("help"), aliases=kwargs.get("aliases", ()))
        return _Absorb()


def _modules() -> list[str]:
    """The built-in command modules of this package (``cache``, ``data``, ...)."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def build_parser(only: str | None = None, *, lazy: bool = False) -> argparse.ArgumentParser:
    """The full parser; with ``only`` naming a built-in command module or an analysis's command
    (``evaluate``), a parser with that subcommand alone (no other analysis to load: a fast start);
    with ``lazy``, every subcommand but ``only`` is listed with its help line and no options (what
    ``ranklens --help`` shows, without building ~30 parsers)."""
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
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress bars (before the command; `evaluate --per-query` is ir_measures' -q)")
    parser.add_argument("--encoding", metavar="CODEC",
                        help="text encoding of every input file (default: $RANKLENS_ENCODING or utf-8)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = _modules()
    alone = only is not None and (only in modules or _analysis_command(only))
    for name in modules:
        if alone and name != only:
            continue
        module = importlib.import_module(f"{__name__}.{name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub if not lazy or name == only else _HelpOnly(sub))
    if only is not None and only in modules:
        return parser
    if only in _FAST:  # a built-in analysis's command: its declaration alone (no plugin scan)
        from ..registry import ANALYSES

        for entry in ANALYSES.values():
            adder = resolve(entry).commands.get(only)
            if adder is not None:
                resolve(adder)(sub)
                return parser
    from ..registry import analyses
    from ._analysis import add_analysis_parser

    declared = analyses()
    for analysis in declared.values():
        for command, adder in analysis.commands.items():  # top-level commands an analysis owns
            if (not alone or command == only) and command not in sub.choices:
                resolve(adder)(sub if not lazy or command == only else _HelpOnly(sub))
    if alone and only not in declared:
        return parser
    for name, analysis in declared.items():
        if name in sub.choices or (alone and name != only):
            continue
        if lazy and name != only:
            sub.add_parser(name, help=analysis.help or analysis.title)
        else:
            add_analysis_parser(sub, analysis)
    return parser


def _analysis_command(command: str) -> bool:
    """Whether ``command`` is a built-in analysis's top-level command (``evaluate``) or name, known
    without loading the plugins (a plugin's command is built among all the others)."""
    if command in _FAST:
        return True
    from ..registry import ANALYSES

    return command in ANALYSES


#: The global options that configure the scoring engine. A command that runs no model declares the
#: ones it reads (``parser.set_defaults(engine_options=(...))``; none by default for such a
#: command); a command that declares nothing reads them all.
ENGINE_OPTIONS = {"--engine": "engine", "--cache-dir": "cache_dir", "--no-cache": "no_cache"}


def _refuse_unread_engine_options(args: argparse.Namespace) -> None:
    """An engine option given to a command that runs no model is an :class:`IgnoredOptionError`."""
    reads = getattr(args, "engine_options", None)
    if reads is None:
        return
    from ..errors import IgnoredOptionError

    for option, dest in ENGINE_OPTIONS.items():
        value = getattr(args, dest, None)
        if value and option not in reads:
            shown = option if value is True else f"{option} {value}"
            raise IgnoredOptionError(f"{shown}: ignored by `ranklens {args.command}`, which runs no model"
                                     + (f" (it reads {', '.join(reads)} only)" if reads else "")
                                     + f"; drop {option} (an ignored option is an error)")


def _engine(args: argparse.Namespace) -> Any:
    """The engine the global options ask for (passed explicitly: the environment is not touched)."""
    _refuse_unread_engine_options(args)
    engine_spec = getattr(args, "engine", None)
    if args.cache_dir and args.no_cache:  # one of the two would be ignored
        from ..errors import IgnoredOptionError

        raise IgnoredOptionError(f"--cache-dir {args.cache_dir}: ignored with --no-cache (nothing is read from or "
                                 "written to a cache); drop one of them (an ignored option is an error)")
    if not (args.cache_dir or args.no_cache or args.quiet or engine_spec):
        return None
    from ..engine import ScoringEngine, default_engine, make_dispatcher

    cache: Any = False if args.no_cache else (args.cache_dir or None)
    base = default_engine() if not (args.cache_dir or args.no_cache) else None
    dispatcher = make_dispatcher(engine_spec) if engine_spec else (base.dispatcher if base is not None else None)
    return ScoringEngine(cache=base.cache if base is not None else cache, show_progress=False if args.quiet else None,
                         dispatcher=dispatcher or make_dispatcher(os.environ.get("RANKLENS_ENGINE")))


_FAST = ("evaluate",)  # analysis commands whose parser is built alone (no other analysis's parser, no engine)


def _stdout_out_of_room(exc: OSError) -> bool:
    """Whether standard output is a file at the file-size limit or on a full disk (the likely
    target of a write error that names no file: every output file is written by ``ranklens.files``)."""
    import errno
    import stat

    try:
        fd = sys.stdout.fileno()
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return False
        if exc.errno == errno.EFBIG:
            import resource

            soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
            return soft != resource.RLIM_INFINITY and st.st_size >= soft - (1 << 16)
        return os.fstatvfs(fd).f_bavail == 0
    except (OSError, ValueError, ImportError, AttributeError):
        return False


@contextlib.contextmanager
def _warnings_as_lines(debug: bool):
    """ranklens's own warnings, raised while a command runs, printed as one line on stderr
    (``ranklens: warning: TEXT``) instead of Python's file, line and source line; ``--debug``
    keeps Python's format. Only the format changes (``warnings.formatwarning``): where warnings
    go, and any recorder (``pytest.warns``, ``catch_warnings(record=True)``), are left alone."""
    import warnings

    from ..errors import RanklensWarning

    if debug:
        yield
        return
    fmt = warnings.formatwarning

    def one_line(message, category, filename, lineno, line=None):  # noqa: ANN001 - warnings' signature
        if isinstance(category, type) and issubclass(category, RanklensWarning):
            return f"ranklens: warning: {message}\n"
        return fmt(message, category, filename, lineno, line)

    warnings.formatwarning = one_line
    try:
        yield
    finally:
        warnings.formatwarning = fmt


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(argv) if argv is not None else sys.argv[1:]
    command = _command(argv)
    if command is None and "--version" in argv and not {"-h", "--help"} & set(argv):
        print(f"ranklens {__version__}")  # answered before any parser (or declaration) is built
        return 0
    parser = build_parser(only=command, lazy=True)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    from .._progress import progress_setting
    from ..io._columns import encoding_setting

    previous = None
    try:
        engine = _engine(args)
        if engine is not None:  # restored below: main() leaves no process-wide setting behind
            from ..engine import default_engine, set_default_engine

            previous = default_engine()
            set_default_engine(engine)
        with progress_setting(False if args.quiet else None), encoding_setting(args.encoding), \
                _warnings_as_lines(args.debug):
            return int(args.func(args) or 0)
    except RanklensError as exc:
        if args.debug:
            raise
        print(f"ranklens: error: {exc}", file=sys.stderr)
        from ..errors import IgnoredOptionError

        return 2 if isinstance(exc, IgnoredOptionError) else 1  # an ignored option: a usage error
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:  # e.g. standard output redirected to a full disk or over `ulimit -f`
        from ..files import disk_problem

        if disk_problem(exc) is None or args.debug:
            raise
        where = exc.filename or ("standard output" if _stdout_out_of_room(exc) else "an output file")
        print(f"ranklens: error: {where}: cannot write: {disk_problem(exc)}", file=sys.stderr)
        try:  # what is still buffered cannot be written either: no second error at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
    except KeyboardInterrupt:
        print("ranklens: interrupted (finished batches are cached; re-run to resume)", file=sys.stderr)
        return 130
    finally:
        if previous is not None:
            from ..engine import set_default_engine

            set_default_engine(previous)
            if engine.dispatcher is not previous.dispatcher:  # the Ray actors (and local Ray) this run started
                getattr(engine.dispatcher, "close", lambda: None)()
