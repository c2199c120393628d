"""Embedder specs for N2O: everything :func:`ranklens.embedders.make_embedder` knows, plus
static word vectors (``word2vec``, ``fasttext``, ``fasttext-nosub`` trained on the corpus, and
``wordvec:PATH`` for a word2vec/GloVe file). ``NAME=SPEC`` names an embedder."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ValidationError

__all__ = ["make_n2o_embedder", "parse_embedders"]

_TRAINED = {
    "word2vec": {"method": "word2vec"},
    "fasttext": {"method": "fasttext", "subwords": True},
    "fasttext-nosub": {"method": "fasttext", "subwords": False},
}


def make_n2o_embedder(spec: str, corpus_texts: Sequence[str], *, precision: str | None = None) -> Any:
    """One embedder from a spec; ``tfidf`` and the trained word vectors are fitted on the corpus."""
    from ..embedders.wordvectors import TrainedWordVectorEmbedder, WordVectorFileEmbedder

    kind = spec.split(":", 1)[0]
    if spec in _TRAINED:
        return TrainedWordVectorEmbedder(corpus=tuple(corpus_texts), **_TRAINED[spec])
    if kind == "wordvec":
        path = spec.split(":", 1)[1] if ":" in spec else ""
        if not path:
            raise ValidationError("wordvec needs a path: wordvec:/path/to/vectors.txt")
        return WordVectorFileEmbedder(path=path)
    from ..embedders import make_embedder

    params: dict[str, Any] = {}
    if precision and kind in ("minilm", "st", "sentence-transformers", "hf"):
        params["precision"] = precision
    if kind == "tfidf":
        return make_embedder(spec, corpus=list(corpus_texts), **params)
    return make_embedder(spec, **params)


def parse_embedders(specs: Sequence[str], corpus_texts: Sequence[str], *,
                    precision: str | None = None) -> dict[str, Any]:
    """``[NAME=]SPEC`` strings -> ``{name: embedder}`` (name defaults to the spec)."""
    if not specs:
        raise ValidationError("give at least one embedder with -e/--embedder (e.g. -e tfidf -e minilm)")
    out: dict[str, Any] = {}
    for raw in specs:
        name, sep, spec = raw.partition("=")
        if not sep:
            name, spec = raw, raw
        if name in out:
            raise ValidationError(f"embedder name {name!r} given twice; use NAME=SPEC to tell them apart")
        out[name] = make_n2o_embedder(spec, corpus_texts, precision=precision)
    return out
