"""TF-IDF cosine ranker (scikit-learn ``TfidfVectorizer`` fitted on a corpus)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._hashing import sha256_json
from ..errors import ValidationError
from ..text import term_analyzer
from .base import BaseRanker, component_fingerprint

__all__ = ["TfidfRanker", "fit_tfidf"]


def fit_tfidf(texts: Iterable[str], *, stem: bool, stopwords: bool, sublinear_tf: bool,
              max_features: int | None, owner: str) -> tuple[Any, str]:
    """Fit a ``TfidfVectorizer`` (ranklens tokens, L2 norm, smooth idf) and digest its state."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    docs = list(texts)
    if not docs:
        raise ValidationError(f"{owner}.fit: the corpus is empty")
    for i, t in enumerate(docs):
        if not isinstance(t, str):
            raise ValidationError(f"{owner}.fit: corpus_texts[{i}] must be str, got {type(t).__name__}")
    vec = TfidfVectorizer(analyzer=term_analyzer(stem, stopwords), sublinear_tf=sublinear_tf,
                          max_features=max_features, dtype=np.float64)
    try:
        vec.fit(docs)
    except ValueError as exc:  # "empty vocabulary"
        raise ValidationError(f"{owner}.fit: {exc} (every corpus text is empty or stopwords)") from exc
    terms = vec.get_feature_names_out().tolist()
    digest = sha256_json({"terms": terms, "idf": [repr(float(x)) for x in vec.idf_], "n": len(docs)})
    return vec, digest


@dataclass(kw_only=True)
class TfidfRanker(BaseRanker):
    """Cosine similarity between TF-IDF vectors of query and text (idf from a fitted corpus).

    Args:
        stem: Porter-stem tokens; stopwords: drop English stopwords (both via :mod:`ranklens.text`).
        sublinear_tf: use ``1 + log(tf)``.
        max_features: keep only the most frequent terms (``None``: all).

    Call :meth:`fit` first; it returns a fitted copy. Terms unseen in the corpus are ignored.
    """

    stem: bool = True
    stopwords: bool = True
    sublinear_tf: bool = False
    max_features: int | None = None
    batch_size: int = 4096
    _vec: Any = field(default=None, init=False, repr=False, compare=False)
    _digest: str | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def fitted(self) -> bool:
        return self._vec is not None

    @property
    def fingerprint(self) -> str:
        return component_fingerprint(self, {"corpus_stats": self._digest or "unfitted"})

    def fit(self, corpus_texts: Iterable[str]) -> TfidfRanker:
        """Return a fitted copy (this one is unchanged)."""
        vec, digest = fit_tfidf(corpus_texts, stem=self.stem, stopwords=self.stopwords,
                                sublinear_tf=self.sublinear_tf, max_features=self.max_features,
                                owner=type(self).__name__)
        new = dataclasses.replace(self)
        new._vec, new._digest = vec, digest
        return new

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        if self._vec is None:
            raise ValidationError("TfidfRanker is not fitted: call TfidfRanker().fit(corpus_texts) "
                                  "or make_ranker('tfidf', corpus=docs)")
        q = self._vec.transform(queries)
        t = self._vec.transform(texts)
        # rows are L2-normalised (or all-zero), so the row-wise dot product is the cosine
        return np.asarray(q.multiply(t).sum(axis=1), dtype=np.float64).ravel()
