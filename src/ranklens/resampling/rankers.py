"""Rankers produced by the built-in trainers.

Each carries a ``training_id`` field (digest of the training split, qrels and trainer
parameters) that enters its fingerprint, so the engine's score cache never mixes two trained
variants, even when they were saved under the same path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from .._hashing import sha256_json, sha256_texts
from ..rankers.base import BaseRanker
from .similarity import analyze

__all__ = ["FineTunedBiEncoderRanker", "FineTunedCrossEncoderRanker", "MemorizingRanker", "SparseBM25Ranker"]


@lru_cache(maxsize=200_000)
def _terms(text: str) -> tuple[str, ...]:
    return tuple(analyze(text))


@dataclass(kw_only=True)
class SparseBM25Ranker(BaseRanker):
    """BM25 (Lucene idf) over a corpus whose statistics are fitted by :meth:`fit`.

    Uses the same analyzer as the query-similarity code (stop words removed, Snowball stems).
    Fields ``k1``, ``b`` and ``corpus_digest`` are the identity; the statistics are state.
    """

    k1: float = 0.9
    b: float = 0.4
    corpus_digest: str = ""
    training_id: str = ""
    batch_size: int = 4096
    _idf: Mapping[str, float] = field(default_factory=dict, repr=False, compare=False)
    _avgdl: float = field(default=1.0, repr=False, compare=False)

    def fit(self, corpus_texts: Sequence[str]) -> SparseBM25Ranker:
        """A new ranker with document frequencies and average length of ``corpus_texts``."""
        texts = list(corpus_texts)
        df: dict[str, int] = {}
        total = 0
        for t in texts:
            terms = _terms(t)
            total += len(terms)
            for w in set(terms):
                df[w] = df.get(w, 0) + 1
        n = len(texts)
        idf = {w: float(np.log1p((n - c + 0.5) / (c + 0.5))) for w, c in df.items()}
        new = SparseBM25Ranker(k1=self.k1, b=self.b, corpus_digest=sha256_texts(sorted(texts))[:16],
                               training_id=self.training_id, batch_size=self.batch_size)
        new._idf = idf
        new._avgdl = total / n if n and total else 1.0
        return new

    def with_params(self, k1: float, b: float, training_id: str | None = None) -> SparseBM25Ranker:
        """Same corpus statistics, other parameters."""
        new = SparseBM25Ranker(k1=k1, b=b, corpus_digest=self.corpus_digest,
                               training_id=self.training_id if training_id is None else training_id,
                               batch_size=self.batch_size)
        new._idf, new._avgdl = self._idf, self._avgdl
        return new

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        out = np.zeros(len(queries), dtype=np.float64)
        k1, b, avg, idf = self.k1, self.b, self._avgdl, self._idf
        for i, (q, t) in enumerate(zip(queries, texts)):
            dt = _terms(t)
            if not dt:
                continue
            tf: dict[str, int] = {}
            for w in dt:
                tf[w] = tf.get(w, 0) + 1
            norm = k1 * (1.0 - b + b * len(dt) / avg)
            s = 0.0
            for w in _terms(q):
                f = tf.get(w)
                if f:
                    s += idf.get(w, 0.0) * f * (k1 + 1.0) / (f + norm)
            out[i] = s
        return out


@dataclass(kw_only=True)
class MemorizingRanker(BaseRanker):
    """Scores a document by how similar the query is to training queries that have it as a positive.

    ``score(q, d) = max_{t in T(d)} cos(tfidf(q), tfidf(t))`` where ``T(d)`` is the set of training
    queries with ``d`` among their positives (0 when ``d`` is no training positive). TF-IDF is fitted
    on the training queries. A deliberately memorising model: it should do well when test queries
    resemble training queries (interpolation) and collapse otherwise.
    """

    training_id: str = ""
    batch_size: int = 4096
    _positives: Mapping[str, tuple[int, ...]] = field(default_factory=dict, repr=False, compare=False)
    _vectorizer: Any = field(default=None, repr=False, compare=False)
    _train_vecs: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def build(cls, train_texts: Sequence[str], positives: Mapping[str, Sequence[int]], *, training_id: str = "") -> MemorizingRanker:
        """``positives``: document text -> indices into ``train_texts`` of the queries that judged it relevant."""
        from sklearn.feature_extraction.text import TfidfVectorizer

        r = cls(training_id=training_id or sha256_json({"q": list(train_texts),
                                                        "p": {k: list(v) for k, v in positives.items()}})[:16])
        vec = TfidfVectorizer(analyzer=analyze)
        r._train_vecs = vec.fit_transform(list(train_texts)).tocsr() if len(train_texts) else None
        r._vectorizer = vec
        r._positives = {k: tuple(v) for k, v in positives.items()}
        return r

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        out = np.zeros(len(queries), dtype=np.float64)
        if self._train_vecs is None:
            return out
        uq = list(dict.fromkeys(queries))
        qv = self._vectorizer.transform(uq).tocsr()
        row = {q: i for i, q in enumerate(uq)}
        for i, (q, t) in enumerate(zip(queries, texts)):
            idx = self._positives.get(t)
            if idx:
                sims = (self._train_vecs[list(idx)] @ qv[row[q]].T).toarray().ravel()
                out[i] = float(sims.max())
        return out


@dataclass(kw_only=True)
class FineTunedBiEncoderRanker(BaseRanker):
    """Cosine similarity of a (fine-tuned) sentence-transformers bi-encoder saved at ``path``.

    Keeps an in-memory memo of embeddings (texts repeat across the engine's batches); the
    engine's cache stores the pair scores.
    """

    path: str
    training_id: str = ""
    max_seq_length: int = 128
    device: str | None = None
    batch_size: int = 64
    _memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def _load(self) -> Any:
        from .._lazy import require
        from .._models import resolve_device

        st = require("sentence_transformers", feature="bi-encoder rankers")
        model = st.SentenceTransformer(self.path, device=resolve_device(self.device))
        model.max_seq_length = self.max_seq_length
        return model

    def attach(self, model: Any) -> FineTunedBiEncoderRanker:
        """Use an already loaded model (the trainer hands over the model it just trained)."""
        self._loaded = model
        return self

    def _embed(self, texts: list[str]) -> None:
        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if todo:
            vecs = self._model().encode(todo, batch_size=self.batch_size, normalize_embeddings=True,
                                        convert_to_numpy=True, show_progress_bar=False)
            for t, v in zip(todo, vecs):
                self._memo[t] = np.asarray(v, dtype=np.float32)

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        self._embed(list(queries) + list(texts))
        return np.array([float(self._memo[q] @ self._memo[t]) for q, t in zip(queries, texts)], dtype=np.float64)


@dataclass(kw_only=True)
class FineTunedCrossEncoderRanker(BaseRanker):
    """Logit of a (fine-tuned) sentence-transformers cross-encoder saved at ``path``."""

    path: str
    training_id: str = ""
    max_length: int = 256
    device: str | None = None
    batch_size: int = 32

    def _load(self) -> Any:
        from .._lazy import require
        from .._models import resolve_device

        st = require("sentence_transformers", feature="cross-encoder rankers")
        return st.CrossEncoder(self.path, device=resolve_device(self.device), max_length=self.max_length)

    def attach(self, model: Any) -> FineTunedCrossEncoderRanker:
        """Use an already loaded model."""
        self._loaded = model
        return self

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        out = self._model().predict(list(zip(queries, texts)), batch_size=self.batch_size,
                                    show_progress_bar=False, convert_to_numpy=True)
        return np.asarray(out, dtype=np.float64).reshape(-1)
