"""Bi-encoder ranker: similarity of sentence-transformers embeddings of query and text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ValidationError
from .base import BaseRanker

__all__ = ["BiEncoderRanker"]


@dataclass(kw_only=True)
class BiEncoderRanker(BaseRanker):
    """Score = cosine (or dot product) of the query and text embeddings.

    Args:
        model: sentence-transformers name or path (``None``: offline all-MiniLM-L6-v2).
        similarity: ``"cosine"`` (embeddings L2-normalised) or ``"dot"`` (raw embeddings).
        device, precision, backend, max_seq_length: as :class:`~ranklens.embedders.SentenceTransformerEmbedder`
            (``backend``: ``"torch"``, ``"onnx"`` or ``"onnx-int8"``, :mod:`ranklens.backends`).

    Embeddings are computed through :func:`ranklens.engine.encode_texts` (the engine that is
    scoring this ranker, else the process-wide one), so every distinct query and text is encoded once across all calls and its vector is
    cached on disk, shared with every analysis that encodes the same text with the same embedder.
    """

    model: str | None = None
    similarity: str = "cosine"
    device: str | None = None
    precision: str = "fp32"
    backend: str = "torch"
    max_seq_length: int | None = None
    batch_size: int = 32
    _emb: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.similarity not in ("cosine", "dot"):
            raise ValidationError(f"BiEncoderRanker: similarity must be 'cosine' or 'dot', got {self.similarity!r}")
        from ..backends import check_backend

        check_backend(type(self).__name__, self.backend, self.precision, self.device)

    @property
    def embedder(self) -> Any:
        """The :class:`SentenceTransformerEmbedder` doing the encoding."""
        if self._emb is None:
            from ..embedders.sentence_transformers import SentenceTransformerEmbedder

            self._emb = SentenceTransformerEmbedder(
                model=self.model, device=self.device, precision=self.precision, backend=self.backend,
                normalize=self.similarity == "cosine", batch_size=self.batch_size,
                max_seq_length=self.max_seq_length)
        return self._emb

    @property
    def fingerprint(self) -> str:
        """As :class:`~ranklens.embedders.SentenceTransformerEmbedder`'s: ``backend`` enters only
        when not the default ``"torch"``."""
        from ..backends import backend_fingerprint

        return backend_fingerprint(self, {"embedder": self.embedder.fingerprint,
                                            "precision": self.precision})

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        uniq: dict[str, int] = {}
        for s in (*queries, *texts):
            uniq.setdefault(s, len(uniq))
        from ..engine import encode_texts

        vecs = encode_texts(self.embedder, list(uniq)).astype(np.float64)
        qi = np.fromiter((uniq[q] for q in queries), dtype=np.int64, count=len(queries))
        ti = np.fromiter((uniq[t] for t in texts), dtype=np.int64, count=len(texts))
        return np.einsum("ij,ij->i", vecs[qi], vecs[ti])
