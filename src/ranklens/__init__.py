"""ranklens: why ranking models and text embedders behave as they do, beyond nDCG.

Importing ranklens is cheap: torch, sentence-transformers, faiss, spaCy and ir_datasets load
only when a component that needs them is used.
"""

from __future__ import annotations

import logging

__version__ = "0.1.0"

from .errors import (  # noqa: E402
    DataFormatError,
    MissingDependencyError,
    RanklensError,
    RanklensWarning,
    ValidationError,
)
from .results import Provenance, Result  # noqa: E402

logging.getLogger(__name__).addHandler(logging.NullHandler())

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
