"""Deterministic toy components for the explain tests (module-level functions: stable fingerprints)."""

from __future__ import annotations

import re

import numpy as np

from ranklens.embedders.base import FunctionEmbedder
from ranklens.rankers.base import FunctionRanker


def count_x(queries, texts):
    """1 + number of 'x' tokens (always positive)."""
    return np.array([1.0 + len(re.findall(r"\bx\b", t, flags=re.I)) for t in texts])


def neg_count_x(queries, texts):
    """Negative scores: -(10 - number of 'x' tokens)."""
    return np.array([-(10.0 - len(re.findall(r"\bx\b", t, flags=re.I))) for t in texts])


def zero_score(queries, texts):
    return np.zeros(len(texts))


def ab_vectors(texts):
    """2-d vectors: (#'a' tokens, #'b' tokens)."""
    return np.array([[len(re.findall(r"\ba\b", t)), len(re.findall(r"\bb\b", t))] for t in texts], dtype=np.float32)


X_RANKER = FunctionRanker(fn=count_x, name_="count_x")
NEG_RANKER = FunctionRanker(fn=neg_count_x, name_="neg_count_x")
ZERO_RANKER = FunctionRanker(fn=zero_score, name_="zero")
AB_EMBEDDER = FunctionEmbedder(fn=ab_vectors, name_="ab")


def near_tie(queries, texts):
    """1.0 for every text, 1.0 + 1e-9 for texts containing 'up': a tie as float32, not as float64."""
    return np.array([1.0 + 1e-9 if "up" in t else 1.0 for t in texts])


NEAR_TIE_RANKER = FunctionRanker(fn=near_tie, name_="near_tie")
