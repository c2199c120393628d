"""Embedders: map texts to float32 vectors ``(n, d)``.

=====================================  ===============================================
spec for :func:`make_embedder`         class
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
"""

from __future__ import annotations

from typing import Any

from ..specs import SPECS, spec_forms
from .base import BaseEmbedder, Embedder, FunctionEmbedder
from .hf import HFPoolingEmbedder
from .sentence_transformers import SentenceTransformerEmbedder
from .tfidf import TfidfEmbedder

__all__ = [
    "EMBEDDER_SPECS",
    "BaseEmbedder",
    "Embedder",
    "FunctionEmbedder",
    "HFPoolingEmbedder",
    "SentenceTransformerEmbedder",
    "NEEDS_CORPUS",
    "TfidfEmbedder",
    "make_embedder",
]

EMBEDDER_SPECS = tuple(spec_forms("embedder"))
"""The written forms of the embedder specs (from the one registry, :data:`ranklens.specs.SPECS`)."""
NEEDS_CORPUS = frozenset(s.kind for s in SPECS if s.embedder is not None and s.needs_corpus)
"""Spec kinds fitted or trained on the corpus (``make_embedder(..., corpus=texts)``)."""


def make_embedder(spec: str, *, corpus: Any = None, **params: Any) -> Any:
    """Build an embedder from a spec string, through the one model-spec registry
    (:func:`ranklens.specs.build_model`, as :func:`~ranklens.rankers.make_ranker` does).

    Args:
        spec: e.g. ``"minilm"``, ``"st:/models/e5"``, ``"hf:/models/bert:cls"``.
        corpus: texts to fit ``tfidf`` on and to train ``word2vec``/``fasttext`` on (ignored
            by the other kinds; those two kinds need it).
        **params: constructor parameters (e.g. ``precision="bf16"``, ``dim=128``, ``stem=True``,
            ``case="lower"``, ``vector_size=300``).

    Raises:
        ValidationError: unknown spec (with the valid ones and a did-you-mean), a spec that is
            not an embedder, a missing argument, or a corpus-trained kind without ``corpus``.
    """
    from ..specs import build_model

    return build_model(spec, "embedder", corpus=corpus, **params)
