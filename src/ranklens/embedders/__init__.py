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

from ..errors import ValidationError
from ..rankers._specs import corpus_texts, need_arg, split_spec, unknown_spec
from .base import BaseEmbedder, Embedder, FunctionEmbedder
from .hf import POOLINGS, HFPoolingEmbedder
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

EMBEDDER_SPECS = ("tfidf", "minilm", "st:<name|path>", "hf:<path>[:cls|mean|last]", "wordvec:<path>",
                  "word2vec", "fasttext", "fasttext-nosub", "callable:<module>:<func>")
NEEDS_CORPUS = frozenset({"tfidf", "word2vec", "fasttext", "fasttext-nosub"})
"""Spec kinds fitted or trained on the corpus (``make_embedder(..., corpus=texts)``)."""

_TRAINED = {"word2vec": {"method": "word2vec"}, "fasttext": {"method": "fasttext", "subwords": True},
            "fasttext-nosub": {"method": "fasttext", "subwords": False}}


def make_embedder(spec: str, *, corpus: Any = None, **params: Any) -> Any:
    """Build an embedder from a spec string (see the module docstring).

    Args:
        spec: e.g. ``"minilm"``, ``"st:/models/e5"``, ``"hf:/models/bert:cls"``.
        corpus: texts to fit ``tfidf`` on and to train ``word2vec``/``fasttext`` on (ignored
            by the other kinds; those two kinds need it).
        **params: constructor parameters (e.g. ``precision="bf16"``, ``dim=128``, ``stem=True``,
            ``case="lower"``, ``vector_size=300``).
    """
    from ..rankers.callables import load_callable

    kind, arg = split_spec(spec)
    if kind == "tfidf":
        e = TfidfEmbedder(**params)
        return e.fit(corpus_texts(corpus)) if corpus is not None else e
    if kind in _TRAINED:
        from .wordvectors import TrainedWordVectorEmbedder

        if corpus is None:
            raise ValidationError(f"model spec {spec!r} trains word vectors on the corpus: pass corpus=texts "
                                  "(or use wordvec:/path/to/pretrained-vectors)")
        return TrainedWordVectorEmbedder(corpus=tuple(corpus_texts(corpus)), **{**_TRAINED[kind], **params})
    if kind == "wordvec":
        from .wordvectors import WordVectorFileEmbedder

        return WordVectorFileEmbedder(path=need_arg(spec, kind, arg, "wordvec:/path/to/vectors.txt"), **params)
    if kind == "minilm":
        return SentenceTransformerEmbedder(model=None, **params)
    if kind in ("st", "sentence-transformers"):
        return SentenceTransformerEmbedder(model=need_arg(spec, kind, arg, "st:/path/to/model"), **params)
    if kind == "hf":
        target = need_arg(spec, kind, arg, "hf:/path/to/model:mean")
        path, sep, pooling = target.rpartition(":")
        if sep and pooling in POOLINGS:
            params.setdefault("pooling", pooling)
            target = path
        return HFPoolingEmbedder(model=target, **params)
    if kind == "callable":
        target = need_arg(spec, kind, arg, "callable:mypkg.vectors:encode")
        return FunctionEmbedder(fn=load_callable(target), name_=target, **params)
    raise unknown_spec(spec, kind, EMBEDDER_SPECS, "embedder")
