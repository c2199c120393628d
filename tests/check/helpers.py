"""Models of the `ranklens check` example (docs/check.md), used through ``callable:`` specs.

- :func:`bag_of_words`: query-term overlap; blind to word order (a shuffled text scores the same);
- :func:`ordered`: the same overlap plus the share of the text's word bigrams that are bigrams of
  the demo collection's own documents: a word-order-sensitive model (shuffled text scores lower);
- :func:`first_words`: a degraded first stage, an embedder that sees only a text's first 4 words.
"""

from __future__ import annotations

import re
import zlib
from functools import lru_cache

import numpy as np

_WORD = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _overlap(query: str, text: str) -> float:
    return float(len(set(_words(query)) & set(_words(text))))


@lru_cache(maxsize=1)
def _corpus_bigrams() -> frozenset[tuple[str, str]]:
    from ranklens.io import load_collection

    docs = load_collection("demo").docs
    return frozenset(b for d in docs.values() for w in [_words(d)] for b in zip(w, w[1:]))


def bag_of_words(query: str, text: str) -> float:
    return _overlap(query, text)


def ordered(query: str, text: str) -> float:
    w = _words(text)
    pairs = list(zip(w, w[1:]))
    fluency = sum(p in _corpus_bigrams() for p in pairs) / max(1, len(pairs))
    return _overlap(query, text) + 3.0 * fluency


def first_words(texts: list[str]) -> np.ndarray:
    out = np.zeros((len(texts), 256), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in _words(t)[:4]:
            out[i, zlib.crc32(w.encode()) % 256] += 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms == 0, 1.0, norms)
