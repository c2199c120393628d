"""TF-IDF sentence vectors: by default the tf-idf of the N2O paper (Lin & Smith, App. A).

The paper used gensim's ``TfidfModel`` with its defaults, fitted on the neighbour corpus with each
sentence as a "document", over the full vocabulary of lower-cased tokens:

* weight of term t in text d = ``tf(t, d) * log2(N / df(t))`` (raw count times gensim's
  ``df2idf`` with base 2), then the vector is L2-normalised (``idf="gensim"``, the default);
* no stemming, no stopword removal, no vocabulary cap; terms not seen in the fitting corpus are
  ignored; a term that occurs in every fitted text has idf 0 (gensim drops it, so do we).

Tokens come from gensim's tokenizer, as in the paper (``tokenizer="gensim"``, the default:
``gensim.utils.tokenize(text, lowercase=True)``, maximal runs of letters -- "3.6" and "2010" are
no tokens, "don't" is "don" and "t"); ``tokenizer="ranklens"`` uses :func:`ranklens.text.tokenize`
(lower-cased words, digits and inner apostrophes kept; ranklens <= 0.x). The vectors are sparse (:meth:`TfidfEmbedder.encode_sparse`, ``scipy.sparse.csr_matrix``),
so the vocabulary is never capped; :meth:`encode` gives the dense array the engine expects (one
column per term: for small corpora only).

Named deviations (every one a field, recorded in the fingerprint): ``tokenizer="ranklens"``, ``idf="smooth"``
(scikit-learn's ``ln((1+N)/(1+df)) + 1``), ``sublinear_tf`` (``1 + ln tf``), ``stem`` (Porter),
``stopwords`` (scikit-learn's English list), ``max_features`` (keep the most frequent terms) and
``dim`` (LSA: a seeded ``TruncatedSVD``). ranklens <= 0.x used ``stem=True, stopwords=True,
max_features=4096, idf="smooth", tokenizer="ranklens"``: give those values to get it back.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._hashing import sha256_json
from ..errors import ValidationError
from ..rankers.base import component_fingerprint
from ..text import gensim_tokens, term_analyzer
from .base import BaseEmbedder

__all__ = ["IDF_KINDS", "TOKENIZERS", "TfidfEmbedder", "gensim_tokens", "tfidf_weights"]

IDF_KINDS = ("gensim", "smooth")
TOKENIZERS = ("gensim", "ranklens")
def tfidf_weights(df: npt.ArrayLike, n_docs: int, idf: str) -> npt.NDArray[np.float64]:
    """Global term weights from document frequencies: gensim's ``log2(N / df)`` or sklearn's
    smoothed ``ln((1 + N) / (1 + df)) + 1``."""
    d = np.asarray(df, dtype=np.float64)
    if idf == "gensim":
        return np.log2(n_docs / d)
    if idf == "smooth":
        return np.log((1.0 + n_docs) / (1.0 + d)) + 1.0
    raise ValidationError(f"TfidfEmbedder: idf must be one of {IDF_KINDS}, got {idf!r}")


def _row_normalize(x: Any) -> Any:
    """L2-normalise the rows of a CSR matrix in place (zero rows stay zero); drop zeros."""
    x.eliminate_zeros()
    sq = np.asarray(x.multiply(x).sum(axis=1)).ravel()
    norms = np.sqrt(sq)
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    x.data *= np.repeat(scale, np.diff(x.indptr))
    return x


@dataclass(kw_only=True)
class TfidfEmbedder(BaseEmbedder):
    """TF-IDF vectors fitted on a corpus; the paper's tf-idf by default (module docstring).

    Args:
        tokenizer: ``"gensim"`` (the paper's: lower-cased letter runs) or ``"ranklens"``
            (:func:`ranklens.text.tokenize`: digits and inner apostrophes kept).
        idf: ``"gensim"`` (``log2(N/df)``, the paper's) or ``"smooth"`` (scikit-learn's).
        stem: Porter-stem tokens (not in the paper).
        stopwords: drop scikit-learn's English stopwords (not in the paper).
        sublinear_tf: ``1 + ln(tf)`` instead of the raw count (not in the paper).
        max_features: keep only the most frequent terms (``None``: the full vocabulary, the paper's).
        dim: LSA dimension (``TruncatedSVD(dim, random_state=seed)``, unit-length outputs);
            ``None``: the sparse tf-idf vectors themselves.

    Call :meth:`fit` first; it returns a fitted copy. The fingerprint includes a digest of the
    vocabulary, the idf values and the SVD components.
    """

    tokenizer: str = "gensim"
    idf: str = "gensim"
    stem: bool = False
    stopwords: bool = False
    sublinear_tf: bool = False
    max_features: int | None = None
    dim: int | None = None
    seed: int = 0
    batch_size: int = 1024
    _vec: Any = field(default=None, init=False, repr=False, compare=False)
    _idf: Any = field(default=None, init=False, repr=False, compare=False)
    _svd: Any = field(default=None, init=False, repr=False, compare=False)
    _digest: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.idf not in IDF_KINDS:
            raise ValidationError(f"TfidfEmbedder: idf must be one of {IDF_KINDS}, got {self.idf!r}")
        if self.tokenizer not in TOKENIZERS:
            raise ValidationError(f"TfidfEmbedder: tokenizer must be one of {TOKENIZERS}, got {self.tokenizer!r}")
        if self.max_features is not None and self.max_features < 1:
            raise ValidationError(f"TfidfEmbedder: max_features must be >= 1 or None, got {self.max_features}")

    @property
    def name(self) -> str:
        return "tfidf"

    @property
    def fitted(self) -> bool:
        return self._vec is not None

    @property
    def sparse(self) -> bool:
        """True when :meth:`encode_sparse` gives the vectors (no LSA)."""
        return self.dim is None

    @property
    def fingerprint(self) -> str:
        return component_fingerprint(self, {"corpus_stats": self._digest or "unfitted"})

    def fit(self, corpus_texts: Iterable[str]) -> TfidfEmbedder:
        """Return a fitted copy (this one is unchanged)."""
        vec, idf, counts, digest = self._fit_counts(list(corpus_texts))
        svd = None
        if self.dim is not None:
            svd, digest = self._fit_svd(counts, idf, digest)
        new = dataclasses.replace(self)
        new._vec, new._idf, new._svd, new._digest = vec, idf, svd, digest
        return new

    def _fit_counts(self, docs: list[str]) -> tuple[Any, np.ndarray, Any, str]:
        from sklearn.feature_extraction.text import CountVectorizer

        owner = type(self).__name__
        if not docs:
            raise ValidationError(f"{owner}.fit: the corpus is empty")
        for i, t in enumerate(docs):
            if not isinstance(t, str):
                raise ValidationError(f"{owner}.fit: corpus_texts[{i}] must be str, got {type(t).__name__}")
        vec = CountVectorizer(analyzer=term_analyzer(self.stem, self.stopwords, self.tokenizer), max_features=self.max_features,
                              dtype=np.float64)
        try:
            counts = vec.fit_transform(docs).tocsr()
        except ValueError as exc:  # "empty vocabulary"
            raise ValidationError(f"{owner}.fit: {exc} (every corpus text is empty or stopwords)") from exc
        df = np.bincount(counts.indices, minlength=counts.shape[1])
        idf = tfidf_weights(df, len(docs), self.idf)
        terms = vec.get_feature_names_out().tolist()
        digest = sha256_json({"terms": terms, "idf": [repr(float(x)) for x in idf], "n": len(docs)})
        return vec, idf, counts, digest

    def _fit_svd(self, counts: Any, idf: np.ndarray, digest: str) -> tuple[Any, str]:
        from sklearn.decomposition import TruncatedSVD

        n_terms = counts.shape[1]
        if not 1 <= self.dim < n_terms:  # type: ignore[operator]
            raise ValidationError(
                f"TfidfEmbedder: dim must be in [1, {n_terms - 1}] for this corpus "
                f"({n_terms} terms), got {self.dim}; use dim=None for raw TF-IDF vectors"
            )
        x = self._weigh(counts.copy(), idf)
        svd = TruncatedSVD(n_components=self.dim, random_state=self.seed).fit(x)
        h = hashlib.sha256(digest.encode())
        h.update(np.ascontiguousarray(svd.components_, dtype=np.float64).tobytes())
        return svd, h.hexdigest()

    def _weigh(self, counts: Any, idf: np.ndarray) -> Any:
        if self.sublinear_tf:
            counts.data = 1.0 + np.log(counts.data)
        counts.data *= idf[counts.indices]
        return _row_normalize(counts)

    def dimension(self) -> int:
        if self._vec is None:
            raise self._unfitted()
        return int(self.dim) if self._svd is not None else len(self._idf)

    def _unfitted(self) -> ValidationError:
        return ValidationError("TfidfEmbedder is not fitted: call TfidfEmbedder().fit(corpus_texts) "
                               "or make_embedder('tfidf', corpus=docs)")

    def encode_sparse(self, texts: Iterable[str]) -> Any:
        """L2-normalised tf-idf vectors of ``texts`` as a float32 CSR matrix ``(n, |V|)``."""
        if self._vec is None:
            raise self._unfitted()
        if self._svd is not None:
            raise ValidationError("TfidfEmbedder(dim=...) gives dense LSA vectors: use encode()")
        texts = list(texts)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise ValidationError(f"texts[{i}] must be str, got {type(t).__name__}")
        x = self._weigh(self._vec.transform(texts).tocsr().astype(np.float64), self._idf)
        return x.astype(np.float32)

    def _encode_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        if self._vec is None:
            raise self._unfitted()
        x = self._weigh(self._vec.transform(texts).tocsr().astype(np.float64), self._idf)
        if self._svd is None:
            return x.toarray().astype(np.float32)
        z = self._svd.transform(x)
        norms = np.linalg.norm(z, axis=1, keepdims=True)
        return (z / np.where(norms > 0, norms, 1.0)).astype(np.float32)
