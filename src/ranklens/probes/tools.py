"""Tools under ``ranklens probes`` that work on saved results (no model is loaded):

* ``ranklens probes show RESULT PROBE [-n 5] [--model M]``: the samples of a probe with their texts
  and scores (what a probe actually did);
* ``ranklens probes table RESULT [RESULT ...] [--format text|markdown|latex|html] [--tables 1,2,3]``:
  the paper's Tables 1-3, several datasets side by side;
* ``ranklens probes seed-variance RESULT [RESULT ...] --models [NAME=]A,B,C ...``: the paper's Table 4
  (square root of the mean variance across checkpoints of one model, by probe type, x 100), one
  column per ``NAME``; checkpoints in one result or one result each.

``RESULT`` is a ``probes-table`` result directory (or a folder holding ``probes-table/``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_tools"]


def _load(path: str) -> Any:
    from ..results import Result

    p = Path(path)
    if not (p / "result.json").is_file() and (p / "probes-table" / "result.json").is_file():
        p = p / "probes-table"
    return Result.load(p)


def _show(args: argparse.Namespace) -> int:
    from .show import show_samples

    sys.stdout.write(show_samples(_load(args.result), args.probe, n=args.n, model=args.show_model))
    return 0


def _table(args: argparse.Namespace) -> int:
    from .paper import paper_tables

    tables = [int(t) for t in args.tables.split(",") if t.strip()]
    sys.stdout.write(paper_tables([_load(r) for r in args.results], fmt=args.format, tables=tables))
    return 0


def _groups(specs: list[str]) -> dict[str, list[str]]:
    """``--models`` values: ``A,B,C`` (one model) or ``NAME=A,B,C`` (one column per NAME)."""
    from ..errors import ValidationError

    out: dict[str, list[str]] = {}
    for spec in specs:
        name, eq, labels = spec.partition("=")
        name, labels = (name.strip(), labels) if eq else ("model" if len(specs) == 1 else "", spec)
        if not name:
            raise ValidationError(f"--models {spec!r}: with several --models give each a name: NAME=A,B,C")
        if name in out:
            raise ValidationError(f"--models: {name!r} given twice")
        out[name] = [m.strip() for m in labels.split(",") if m.strip()]
    return out


def _seed_variance(args: argparse.Namespace) -> int:
    from .seeds import seed_variance_table

    sys.stdout.write(seed_variance_table([_load(r) for r in args.results], _groups(args.models), fmt=args.format,
                                         per_probe=args.per_probe))
    return 0


def _needs_out(func: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        from ..errors import ValidationError

        if not getattr(args, "out", None):
            raise ValidationError("ranklens probes: --out DIR is required to run the probes")
        return int(func(args) or 0)
    return run


def add_tools(parser: argparse.ArgumentParser) -> None:
    """Add ``show``, ``table`` and ``seed-variance`` under ``ranklens probes``; ``--out`` is then
    needed only when the probes themselves run."""
    for action in parser._actions:
        if action.dest == "out":
            action.required = False
    set_defaults = parser.set_defaults

    def _set_defaults(**kw: Any) -> None:  # the derived CLI sets func after the tools: check --out there
        if "func" in kw:
            kw["func"] = _needs_out(kw["func"])
        set_defaults(**kw)

    parser.set_defaults = _set_defaults  # type: ignore[method-assign]
    sub = parser.add_subparsers(dest="probes_tool", metavar="TOOL", required=False,
                                title="tools on saved results (no --model needed)")
    p = sub.add_parser("show", help="samples of a probe with their texts and scores")
    p.add_argument("result", help="probes-table result directory")
    p.add_argument("probe", help="probe name")
    p.add_argument("-n", type=int, default=5, help="samples to show (default: 5)")
    p.add_argument("--model", dest="show_model", default=None, help="only this model's scores")
    p.set_defaults(func=_show, tool_reads=())  # reads saved results, no option of `ranklens probes`
    p = sub.add_parser("table", help="the paper's Tables 1-3 from one or several results")
    p.add_argument("results", nargs="+", help="probes-table result directories (one per dataset)")
    p.add_argument("--format", choices=["text", "markdown", "latex", "html"], default="text")
    p.add_argument("--tables", default="1,2,3", help="which tables (default: 1,2,3)")
    p.set_defaults(func=_table, tool_reads=())  # reads saved results, no option of `ranklens probes`
    p = sub.add_parser("seed-variance", help="the paper's Table 4 from checkpoints of one model (or of several)",
                       description="Average standard deviation (square root of the mean variance) of the probe "
                                   "scores across checkpoints of one model, by probe type, x 100 (the paper's Table "
                                   "4). Run the probes with every checkpoint as a model (--model s1=SPEC --model "
                                   "s2=SPEC ..., in one run or one run each with the same --seed), then give the "
                                   "result(s) here.")
    p.add_argument("results", nargs="+", metavar="result", help="probes-table result directories (one run with "
                   "every checkpoint, or one run per checkpoint)")
    p.add_argument("--models", required=True, action="append",
                   help="the checkpoints: A,B,C (one model) or NAME=A,B,C, repeatable (one column per NAME, e.g. "
                        "VBERT=vbert-s1,vbert-s2 EPIC=epic-s*); labels may be glob patterns")
    p.add_argument("--format", choices=["text", "markdown", "latex", "html"], default="text")
    p.add_argument("--per-probe", action="store_true", help="also each probe's standard deviation")
    p.set_defaults(func=_seed_variance, tool_reads=())  # reads saved results, no option of `ranklens probes`


def probe_listing() -> list[dict[str, str]]:
    """``ranklens ls probes``: every registered probe (declared as the analysis's ``listings``)."""
    from .catalog import list_probes

    return [{"name": p.name, "family": p.family, "symmetric": "yes" if p.symmetric else "no",
             "description": p.description} for p in list_probes()]
