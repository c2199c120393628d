"""Rankers produced by the built-in trainers.

Each carries a ``training_id`` field (digest of the training split, qrels and trainer
parameters) that enters its fingerprint, so the engine's score cache never mixes two trained
variants, even when they were saved under the same path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .._hashing import sha256_json
from ..rankers.base import BaseRanker
from ..rankers.biencoder import BiEncoderRanker
from .similarity import analyze

__all__ = ["FineTunedBiEncoderRanker", "FineTunedCrossEncoderRanker", "MemorizingRanker", "tuned_bm25"]


def tuned_bm25(k1: float, b: float, corpus_texts: Sequence[str]) -> Any:
    """The BM25 a :class:`~.trainers.BM25Trainer` hands out: :class:`ranklens.rankers.BM25Ranker`
    (Lucene idf, as Anserini, which the paper uses) with the tuned ``k1``/``b``, fitted on the corpus.
    Its fingerprint is its parameters and corpus statistics: two trainings that pick the same
    ``k1``/``b`` give the same model and share cached scores."""
    from ..rankers import BM25Ranker

    return BM25Ranker(k1=float(k1), b=float(b), method="lucene").fit(list(corpus_texts))


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
class FineTunedBiEncoderRanker(BiEncoderRanker):
    """A (fine-tuned) sentence-transformers bi-encoder saved at ``model`` (a directory), scored by
    cosine similarity. A :class:`ranklens.rankers.BiEncoderRanker`: every text is encoded through
    the engine (its vector cache, no cache of its own), and :attr:`embedder` retrieves from a whole
    corpus. ``training_id`` (and the weights' sha256 in the embedder's fingerprint) keep two trained
    variants apart in the cache."""

    training_id: str = ""
    max_seq_length: int | None = 128

    @property
    def path(self) -> str:
        return str(self.model)

    def attach(self, model: Any) -> FineTunedBiEncoderRanker:
        """Use the model the trainer has just trained (and saved at ``model``) instead of reloading it."""
        emb = self.embedder
        model.max_seq_length = self.max_seq_length or model.max_seq_length
        emb._loaded = model
        return self


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
