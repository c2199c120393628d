"""Deterministic, dependency-free toy components for tests and smoke runs."""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..embedders.base import BaseEmbedder
from ..io.collection import Collection, DocStore
from ..rankers.base import BaseRanker

_TOKEN = re.compile(r"\w+")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


@dataclass(kw_only=True)
class OverlapRanker(BaseRanker):
    """Score = number of query-token occurrences in the text (+ tiny length prior, no ties)."""

    length_weight: float = 1e-3

    def _score_batch(self, queries, texts):
        out = []
        for q, t in zip(queries, texts):
            qt = set(_tokens(q))
            tt = _tokens(t)
            out.append(sum(1 for w in tt if w in qt) - self.length_weight * len(tt))
        return np.array(out, dtype=np.float64)


@dataclass(kw_only=True)
class SlowHashRanker(BaseRanker):
    """A pseudo-random but deterministic score per (query, text) pair (from SHA-256, the same in
    every process), after sleeping ``delay`` seconds per batch: a stand-in for a slow model in
    kill-and-resume and multi-process tests. ``delay`` is not part of its identity (fingerprint)."""

    batch_size: int = 5
    delay: float = field(default=0.0, compare=False)

    def _score_batch(self, queries, texts):
        time.sleep(self.delay)
        return np.array([int.from_bytes(hashlib.sha256(f"{q}|{t}".encode()).digest()[:4], "big") / 1e6
                         for q, t in zip(queries, texts)], dtype=np.float64)


@dataclass(kw_only=True)
class HashEmbedder(BaseEmbedder):
    """Hashing-trick bag of words, L2-normalised, ``dim`` dimensions."""

    dim: int = 64

    def dimension(self) -> int:
        return self.dim

    def _encode_batch(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in _tokens(t):
                h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=8).digest(), "little")
                out[i, h % self.dim] += 1.0 if (h >> 63) & 1 else -1.0
            n = np.linalg.norm(out[i])
            if n > 0:
                out[i] /= n
        return out


def tiny_collection() -> Collection:
    """Six documents, three queries, graded qrels: small enough to check by hand."""
    docs = {
        "d1": "Cats are small domesticated felines. Cats purr when content.",
        "d2": "A dog is a loyal companion. Dogs bark at strangers.",
        "d3": "Felines such as cats and lions are carnivores.",
        "d4": "Python is a programming language. It is popular for data science.",
        "d5": "Snakes such as the python are reptiles. Pythons constrict their prey.",
        "d6": "The weather today is sunny with a light breeze.",
    }
    queries = pd.DataFrame(
        {"query_id": ["q1", "q2", "q3"], "text": ["cats felines", "python programming", "dog bark"]}
    )
    qrels = pd.DataFrame(
        {
            "query_id": ["q1", "q1", "q1", "q2", "q2", "q3", "q3"],
            "doc_id": ["d1", "d3", "d2", "d4", "d5", "d2", "d6"],
            "relevance": [3, 2, 0, 3, 0, 2, 0],
        }
    )
    qrels["relevance"] = qrels["relevance"].astype("int64")
    return Collection(name="tiny", docs=DocStore(docs, name="tiny"), queries=queries, qrels=qrels)
