"""Rankers: score aligned (query, text) pairs; higher = more relevant.

Built-ins (neural ones import torch only when first used, so ``import ranklens.rankers`` is light),
built from spec strings by :func:`ranklens.specs.make_ranker` (the one registry of model specs,
which sits above this package: nothing here imports it):

=====================================  ===============================================
spec                                   class
=====================================  ===============================================
``bm25``                               :class:`BM25Ranker` (fitted on ``corpus``)
``tfidf``                              :class:`TfidfRanker` (fitted on ``corpus``)
``minilm``                             :class:`BiEncoderRanker` with the offline MiniLM
``st:<name|path>``                     :class:`BiEncoderRanker`
``cross-encoder:<path>``               :class:`CrossEncoderRanker`
``monot5:<path>``                      :class:`MonoT5Ranker`
``callable:<module>:<func>``           :class:`FunctionRanker` over ``func(queries, texts)``
``dt5q:<model dir>``                   :class:`DT5QRanker` (BM25 over doc2query-expanded texts)
``maxp:<SPEC>[:N]``                    :class:`PassageRanker` (MaxP of ``SPEC``)
=====================================  ===============================================

``ranklens.rankers.make_ranker`` and ``RANKER_SPECS`` are deprecated aliases, kept for one release
(a module ``__getattr__`` that warns and imports :mod:`ranklens.specs` on first use): use
:func:`ranklens.specs.make_ranker` and :func:`ranklens.specs.spec_forms` ``("ranker")``.
"""

from __future__ import annotations

import warnings
from typing import Any

from .base import BaseRanker, FunctionRanker, Ranker, component_fingerprint
from .biencoder import BiEncoderRanker
from .bm25 import BM25Ranker
from .callables import load_callable
from .cross_encoder import CrossEncoderRanker
from .doc2query import DT5QRanker
from .monot5 import MonoT5Ranker
from .passages import PassageRanker, split_passages
from .pyterrier import PyTerrierRanker
from .tfidf import TfidfRanker

__all__ = [
    "BM25Ranker",
    "BaseRanker",
    "BiEncoderRanker",
    "CrossEncoderRanker",
    "DT5QRanker",
    "FunctionRanker",
    "MonoT5Ranker",
    "PassageRanker",
    "PyTerrierRanker",
    "Ranker",
    "TfidfRanker",
    "component_fingerprint",
    "load_callable",
    "split_passages",
]


def __getattr__(name: str) -> Any:
    """The one-release deprecated aliases ``make_ranker`` and ``RANKER_SPECS`` (now in
    :mod:`ranklens.specs`); the import of the registry is lazy, on use of an alias only."""
    if name in ("make_ranker", "RANKER_SPECS"):
        new = "make_ranker" if name == "make_ranker" else 'spec_forms("ranker")'
        warnings.warn(f"ranklens.rankers.{name} is deprecated and goes in the next release: use "
                      f"ranklens.specs.{new}", DeprecationWarning, stacklevel=2)
        from .. import specs

        return specs.make_ranker if name == "make_ranker" else tuple(specs.spec_forms("ranker"))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
