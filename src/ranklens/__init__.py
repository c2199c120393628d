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
    from .results import Provenance, Result

logging.getLogger(__name__).addHandler(logging.NullHandler())


def __getattr__(name: str):
    """``Result`` and ``Provenance`` on first use: :mod:`ranklens.results` imports pandas
    (~40 MB, ~0.3 s), which ``import ranklens`` alone does not need."""
    if name in ("Provenance", "Result"):
        from . import results

        return getattr(results, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DataFormatError",
    "MissingDependencyError",
    "Provenance",
    "RanklensError",
    "RanklensWarning",
    "Result",
    "ValidationError",
    "__version__",
]
