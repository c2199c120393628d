"""``ranklens ls KIND``: list registered components (probes, rankers, embedders, ...).

Extensible: each kind is a lazy ``"module:function"`` string returning rows
(``list[dict[str, str]]``): the core's in :data:`LISTERS`, an analysis's in its declaration's
``listings`` (``ranklens ls probes``), a third-party package's through the entry-point group
``ranklens.ls`` (name = kind, value = ``module:function``). Listing never imports torch.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable

LISTERS: dict[str, str] = {
    "analyses": "ranklens.cli.ls:_analyses",
    "models": "ranklens.cli.ls:_models",
    "rankers": "ranklens.cli.ls:_rankers",
    "embedders": "ranklens.cli.ls:_embedders",
}


def _analyses() -> list[dict[str, str]]:
    from ..registry import analyses

    return [{"name": a.name, "title": a.title, "result kinds": ", ".join(k.name for k in a.kinds)}
            for a in analyses().values()]


def _models(role: str | None = None) -> list[dict[str, str]]:
    from ..specs import SPECS

    return [{"spec": s.form, "ranker": "yes" if s.ranker else "no", "embedder": "yes" if s.embedder else "no",
             "corpus statistics": "yes" if s.needs_corpus else "no", "what": s.doc}
            for s in SPECS if role is None or getattr(s, role) is not None]


def _rankers() -> list[dict[str, str]]:
    return _models("ranker")


def _embedders() -> list[dict[str, str]]:
    return _models("embedder")


def _all_listers() -> dict[str, str]:
    from ..registry import listings

    out = {**LISTERS, **listings()}
    try:
        from importlib.metadata import entry_points

        for ep in entry_points(group="ranklens.ls"):
            out.setdefault(ep.name, ep.value)
    except Exception:  # broken metadata must not break `ls`
        pass
    return out


def _resolve(target: str) -> Callable[[], list[dict[str, str]]]:
    mod, _, fn = target.partition(":")
    return getattr(importlib.import_module(mod), fn)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ls", help="list analyses, model specs, rankers, embedders, probes ...",
                       description="List registered components of one kind as TSV on stdout.")
    p.add_argument("kind", help=f"what to list: {', '.join(sorted(LISTERS))}, what the analyses add (probes) "
                                     "and plug-in kinds")
    p.add_argument("--format", choices=["tsv", "text"], default="text")
    p.set_defaults(func=run, engine_options=())  # runs no model: ranklens.cli.ENGINE_OPTIONS


def run(args: argparse.Namespace) -> int:
    from ..errors import ValidationError

    listers = _all_listers()
    if args.kind not in listers:
        raise ValidationError(f"unknown kind {args.kind!r}; one of {', '.join(sorted(listers))}")
    rows = _resolve(listers[args.kind])()
    if not rows:
        return 0
    cols = list(rows[0])
    if args.format == "tsv":
        sys.stdout.write("\t".join(cols) + "\n")
        for r in rows:
            sys.stdout.write("\t".join(str(r.get(c, "")) for c in cols) + "\n")
        return 0
    widths = [max(len(c), *(len(str(r.get(c, ""))) for r in rows)) for c in cols]
    sys.stdout.write("  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip() + "\n")
    for r in rows:
        sys.stdout.write("  ".join(str(r.get(c, "")).ljust(w) for c, w in zip(cols, widths)).rstrip() + "\n")
    return 0
