"""TF-IDF vectors as a dense float32 embedder."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ValidationError
from ..rankers.base import component_fingerprint
from ..rankers.tfidf import fit_tfidf
from .base import BaseEmbedder

__all__ = ["TfidfEmbedder"]


@dataclass(kw_only=True)
class TfidfEmbedder(BaseEmbedder):
    """Dense TF-IDF vectors (L2-normalised, float32), fitted on a corpus.

    The dimension is capped in one of two ways:

    * ``dim=None`` (default): one dimension per vocabulary term, keeping the ``max_features``
      most frequent terms (default 4096) so the dense output stays bounded;
    * ``dim=k``: latent semantic analysis — scikit-learn ``TruncatedSVD(k, random_state=seed)``
      fitted on the corpus TF-IDF matrix, outputs re-normalised to unit length.

    Call :meth:`fit` first; it returns a fitted copy. The fingerprint includes a digest of the
    vocabulary, idf and SVD components.
    """

    stem: bool = True
    stopwords: bool = True
    sublinear_tf: bool = False
    max_features: int | None = 4096
    dim: int | None = None
    seed: int = 0
    batch_size: int = 1024
    _vec: Any = field(default=None, init=False, repr=False, compare=False)
    _svd: Any = field(default=None, init=False, repr=False, compare=False)
    _digest: str | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def fitted(self) -> bool:
        return self._vec is not None

    @property
    def fingerprint(self) -> str:
        return component_fingerprint(self, {"corpus_stats": self._digest or "unfitted"})

    def fit(self, corpus_texts: Iterable[str]) -> TfidfEmbedder:
        """Return a fitted copy (this one is unchanged)."""
        docs = list(corpus_texts)
        vec, digest = fit_tfidf(docs, stem=self.stem, stopwords=self.stopwords,
                                sublinear_tf=self.sublinear_tf, max_features=self.max_features,
                                owner=type(self).__name__)
        svd = None
        if self.dim is not None:
            from sklearn.decomposition import TruncatedSVD

            n_terms = len(vec.vocabulary_)
            if not 1 <= self.dim < n_terms:
                raise ValidationError(
                    f"TfidfEmbedder: dim must be in [1, {n_terms - 1}] for this corpus "
                    f"({n_terms} terms), got {self.dim}; use dim=None for raw TF-IDF vectors"
                )
            svd = TruncatedSVD(n_components=self.dim, random_state=self.seed).fit(vec.transform(docs))
            h = hashlib.sha256(digest.encode())
            h.update(np.ascontiguousarray(svd.components_, dtype=np.float64).tobytes())
            digest = h.hexdigest()
        new = dataclasses.replace(self)
        new._vec, new._svd, new._digest = vec, svd, digest
        return new

    def dimension(self) -> int:
        if self._vec is None:
            raise self._unfitted()
        return int(self.dim) if self._svd is not None else len(self._vec.vocabulary_)

    def _unfitted(self) -> ValidationError:
        return ValidationError("TfidfEmbedder is not fitted: call TfidfEmbedder().fit(corpus_texts) "
                               "or make_embedder('tfidf', corpus=docs)")

    def _encode_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        if self._vec is None:
            raise self._unfitted()
        x = self._vec.transform(texts)
        if self._svd is None:
            return x.toarray().astype(np.float32)
        z = self._svd.transform(x)
        norms = np.linalg.norm(z, axis=1, keepdims=True)
        return (z / np.where(norms > 0, norms, 1.0)).astype(np.float32)
