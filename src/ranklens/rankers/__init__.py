"""Rankers: score aligned (query, text) pairs; higher = more relevant.

Built-ins (neural ones import torch only when first used, so ``import ranklens.rankers`` is light):

=====================================  ===============================================
spec for :func:`make_ranker`           class
=====================================  ===============================================
``bm25``                               :class:`BM25Ranker` (fitted on ``corpus``)
``tfidf``                              :class:`TfidfRanker` (fitted on ``corpus``)
``minilm``                             :class:`BiEncoderRanker` with the offline MiniLM
``st:<name|path>``                     :class:`BiEncoderRanker`
``cross-encoder:<path>``               :class:`CrossEncoderRanker`
``monot5:<path>``                      :class:`MonoT5Ranker`
``callable:<module>:<func>``           :class:`FunctionRanker` over ``func(queries, texts)``
=====================================  ===============================================
"""

from __future__ import annotations

from typing import Any

from .base import BaseRanker, FunctionRanker, Ranker, component_fingerprint
from .biencoder import BiEncoderRanker
from .bm25 import BM25Ranker
from .callables import load_callable
from .cross_encoder import CrossEncoderRanker
from .monot5 import MonoT5Ranker
from .passages import PassageRanker, split_passages
from .pyterrier import PyTerrierRanker
from .tfidf import TfidfRanker

__all__ = [
    "RANKER_SPECS",
    "BM25Ranker",
    "BaseRanker",
    "BiEncoderRanker",
    "CrossEncoderRanker",
    "FunctionRanker",
    "MonoT5Ranker",
    "PassageRanker",
    "PyTerrierRanker",
    "Ranker",
    "TfidfRanker",
    "component_fingerprint",
    "load_callable",
    "make_ranker",
    "split_passages",
]

RANKER_SPECS = ("bm25", "tfidf", "minilm", "st:<name|path>", "cross-encoder:<path>",
                "monot5:<path>", "callable:<module>:<func>[@VERSION]")  # see ranklens.specs


def make_ranker(spec: str, *, corpus: Any = None, **params: Any) -> Any:
    """Build a ranker from a spec string (the one registry: :mod:`ranklens.specs`).

    Args:
        spec: e.g. ``"bm25"``, ``"st:sentence-transformers/all-MiniLM-L6-v2"``,
            ``"cross-encoder:/models/ce"``, ``"callable:mypkg.scoring:score"``.
        corpus: texts (DocStore, mapping or sequence) to fit corpus statistics for the specs
            that need them (``bm25``, ``tfidf``); ignored by the other kinds. Without it those
            come back unfitted.
        **params: constructor parameters of the class (e.g. ``k1=1.2``, ``precision="bf16"``).

    Raises:
        ValidationError: unknown spec (with the valid ones and a did-you-mean) or missing argument.
    """
    from ..specs import build_model

    return build_model(spec, "ranker", corpus=corpus, **params)
