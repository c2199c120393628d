"""The one registry of analyses: name -> its :class:`~ranklens.declare.Analysis` declaration.

Entries are lazy ``"module:attr"`` strings, so ``ranklens --help`` imports only the small
declaration modules. Another package adds an analysis through the entry-point group
``ranklens.analyses`` (``name = "pkg.declaration:ANALYSIS"``), or at run time with
:func:`register`. The CLI, experiment files, the demo, the report and the store all read it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from .declare import Analysis, ResultKind, resolve
from .errors import ValidationError

__all__ = ["ANALYSES", "analyses", "command_owner", "current_kind", "get_analysis", "kind_info", "listings",
           "owner_of", "register"]

#: The built-in analyses, in report order.
ANALYSES: dict[str, str] = {
    "asl": "ranklens.asl.declaration:ANALYSIS",
    "probes": "ranklens.probes.declaration:ANALYSIS",
    "neighbors": "ranklens.neighbors.declaration:ANALYSIS",
    "regimes": "ranklens.regimes.declaration:ANALYSIS",
    "explain": "ranklens.explain.declaration:ANALYSIS",
}

_EXTRA: dict[str, str | Analysis] = {}
_LOADED: dict[str, Analysis] = {}


@functools.cache
def _plugins() -> tuple[tuple[str, str], ...]:
    """The ``ranklens.analyses`` entry points, read once per process from the distributions'
    ``entry_points.txt`` files (:mod:`ranklens._entrypoints`: ``importlib.metadata`` would parse
    every installed distribution's metadata, half of ``ranklens --help``'s start-up)."""
    from ._entrypoints import entry_points

    try:
        return entry_points("ranklens.analyses")
    except Exception:  # noqa: BLE001 - a broken third-party distribution must not break ranklens
        return ()


def _entries() -> dict[str, str | Analysis]:
    out: dict[str, str | Analysis] = dict(ANALYSES)
    for name, value in _plugins():
        out.setdefault(name, value)
    out.update(_EXTRA)
    return out


def _load(name: str, entry: str | Analysis) -> Analysis:
    if isinstance(entry, Analysis):
        return entry
    key = f"{name}={entry}"
    if key not in _LOADED:
        obj = resolve(entry)
        if not isinstance(obj, Analysis):
            raise ValidationError(f"analysis {name!r}: {entry} is not a ranklens.declare.Analysis")
        if obj.name != name:
            raise ValidationError(f"analysis {name!r}: {entry} declares the name {obj.name!r}")
        _LOADED[key] = obj
    return _LOADED[key]


def analyses() -> dict[str, Analysis]:
    """Every registered analysis, built-in ones first."""
    return {name: _load(name, entry) for name, entry in _entries().items()}


def get_analysis(name: str) -> Analysis:
    entries = _entries()
    if name not in entries:
        raise ValidationError(f"unknown analysis {name!r}; use one of {sorted(entries)}")
    return _load(name, entries[name])


@contextmanager
def register(name: str, entry: str | Analysis) -> Iterator[Analysis]:
    """Register an analysis for the duration of a ``with`` block (tests, notebooks)."""
    _EXTRA[name] = entry
    try:
        yield get_analysis(name)
    finally:
        _EXTRA.pop(name, None)


def owner_of(kind: str) -> Analysis | None:
    """The analysis a result kind belongs to (longest matching prefix)."""
    best: Analysis | None = None
    for a in analyses().values():
        if a.owns(kind) and (best is None or len(a.name) > len(best.name)):
            best = a
    return best


def kind_info(kind: str) -> ResultKind | None:
    """The declaration of a result kind, if an analysis declares it."""
    for a in analyses().values():
        k = a.kind(kind)
        if k is not None:
            return k
    return None


def current_kind(kind: str) -> str:
    """A result kind's current name: an old name an analysis declares in ``renamed_kinds`` maps to
    the new one; every other name is returned as it is."""
    for a in analyses().values():
        if kind in a.renamed_kinds:
            return a.renamed_kinds[kind]
    return kind


def renamed_measures(kind: str) -> Mapping[str, str]:
    """The old -> current measure names the analysis owning ``kind`` declares (``renamed_measures``)."""
    for a in analyses().values():
        if a.owns(kind):
            return a.renamed_measures
    return {}


def command_owner(command: str) -> Analysis | None:
    """The analysis that adds the top-level command ``ranklens COMMAND`` (``Analysis.commands``)."""
    return next((a for a in analyses().values() if command in a.commands), None)


def listings() -> dict[str, str]:
    """``ranklens ls KIND`` entries the analyses add: kind -> ``"module:function"``."""
    out: dict[str, str] = {}
    for a in analyses().values():
        out.update(a.listings)
    return out


def describe() -> list[dict[str, Any]]:
    """Name, title and result kinds of every analysis (for ``ranklens ls analyses``)."""
    return [{"name": a.name, "title": a.title, "kinds": [k.name for k in a.kinds]} for a in analyses().values()]
