"""ranklens: why ranking models and text embedders behave as they do, beyond nDCG.

Importing ranklens is cheap: torch, sentence-transformers, faiss, spaCy and ir_datasets load
only when a component that needs them is used, and pandas with the first ``Result``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

__version__ = "0.1.0"

from .errors import (  # noqa: E402
    DataFormatError,
    MissingDependencyError,
    RanklensError,
    RanklensWarning,
    ValidationError,
)

if TYPE_CHECKING:  # for type checkers; at run time on first use (__getattr__ below)
    from .results import Provenance, Result, ResultList

logging.getLogger(__name__).addHandler(logging.NullHandler())


_LAZY = {"Provenance": "results", "Result": "results", "ResultList": "results", "evaluate": "face",
         "store": "face", "load_collection": "io", "check": "check"}


def __getattr__(name: str):
    """The face on first use (``rl.probes``, ``rl.Result``, ...): :mod:`ranklens.results` imports pandas
    (~40 MB, ~0.3 s), which ``import ranklens`` alone does not need."""
    import importlib

    if name in _LAZY:  # importlib: the face reaches drive, which no analysis may import (floor plan)
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Face(type(logging)):
    """An analysis package, callable: ``rl.probes(models, collection, **params)`` runs the analysis
    (:func:`ranklens.face.analysis_function`); ``import ranklens.probes`` is still the package."""

    def __call__(self, *args, **kwargs):
        return self.__dict__["_face"](*args, **kwargs)


class _Ranklens(type(logging)):
    """``rl.<analysis>`` is the analysis's package made callable (its face function, with the
    declared signature as ``__signature__``)."""

    def __getattribute__(self, name: str):
        try:
            value = super().__getattribute__(name)
        except AttributeError:
            value = None
        if (value is None or isinstance(value, type(logging))) and not name.startswith("_") \
                and not isinstance(value, _Face):
            import importlib

            if name in importlib.import_module(".registry", __name__).ANALYSES:
                face = importlib.import_module(".face", __name__).analysis_function(name)
                value = importlib.import_module(f".{name}", __name__)
                value.__dict__.update(_face=face, __signature__=face.__signature__)
                value.__class__ = _Face
        if value is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        return value


def __dir__() -> list[str]:
    """With the analyses (``rl.<TAB>`` in a notebook lists ``rl.probes`` ...)."""
    from .registry import analyses

    return sorted({*globals(), *__all__, *analyses()})


import sys as _sys  # noqa: E402

_sys.modules[__name__].__class__ = _Ranklens

__all__ = [
    "DataFormatError",
    "MissingDependencyError",
    "Provenance",
    "RanklensError",
    "RanklensWarning",
    "Result",
    "ResultList",
    "check",
    "evaluate",
    "load_collection",
    "store",
    "ValidationError",
    "__version__",
]
