"""Embedders: map texts to float32 vectors ``(n, d)``.

Built from spec strings by :func:`ranklens.specs.make_embedder` (the one registry of model specs,
which sits above this package: nothing here imports it):

=====================================  ===============================================
spec                                   class
=====================================  ===============================================
``tfidf``                              :class:`TfidfEmbedder` (fitted on ``corpus``; the N2O
                                       paper's tf-idf by default)
``wordvec:<path>``                     :class:`~.wordvectors.WordVectorFileEmbedder`: pretrained
                                       word2vec/GloVe/fastText vectors, averaged (the paper's)
``word2vec``, ``fasttext``,            :class:`~.wordvectors.TrainedWordVectorEmbedder` trained
``fasttext-nosub``                     on ``corpus`` (the paper used pretrained vectors instead)
``minilm``                             :class:`SentenceTransformerEmbedder` (offline MiniLM)
``st:<name|path>``                     :class:`SentenceTransformerEmbedder`
``hf:<path>[:cls|mean|last]``          :class:`HFPoolingEmbedder` (default pooling mean)
``callable:<module>:<func>``           :class:`FunctionEmbedder` over ``func(texts)``
=====================================  ===============================================

``ranklens.embedders.make_embedder``, ``EMBEDDER_SPECS`` and ``NEEDS_CORPUS`` are deprecated
aliases, kept for one release (a module ``__getattr__`` that warns and imports
:mod:`ranklens.specs` on first use): use :func:`ranklens.specs.make_embedder`,
:func:`ranklens.specs.spec_forms` ``("embedder")`` and :func:`ranklens.specs.needs_corpus`.
"""

from __future__ import annotations

import warnings
from typing import Any

from .base import BaseEmbedder, Embedder, FunctionEmbedder
from .hf import HFPoolingEmbedder
from .sentence_transformers import SentenceTransformerEmbedder
from .tfidf import TfidfEmbedder

__all__ = [
    "BaseEmbedder",
    "Embedder",
    "FunctionEmbedder",
    "HFPoolingEmbedder",
    "SentenceTransformerEmbedder",
    "TfidfEmbedder",
]

_DEPRECATED = {"make_embedder": "make_embedder", "EMBEDDER_SPECS": 'spec_forms("embedder")',
               "NEEDS_CORPUS": "needs_corpus"}


def __getattr__(name: str) -> Any:
    """The one-release deprecated aliases ``make_embedder``, ``EMBEDDER_SPECS`` and
    ``NEEDS_CORPUS`` (now in :mod:`ranklens.specs`); the import of the registry is lazy, on use
    of an alias only."""
    if name in _DEPRECATED:
        warnings.warn(f"ranklens.embedders.{name} is deprecated and goes in the next release: use "
                      f"ranklens.specs.{_DEPRECATED[name]}", DeprecationWarning, stacklevel=2)
        from .. import specs

        if name == "make_embedder":
            return specs.make_embedder
        if name == "EMBEDDER_SPECS":
            return tuple(specs.spec_forms("embedder"))
        return frozenset(s.kind for s in specs.SPECS if s.embedder is not None and s.needs_corpus)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
