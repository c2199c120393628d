"""Helpers for testing ranklens components and plug-ins (conformance checks and toys)."""

from __future__ import annotations

from .checks import ConformanceError, check_embedder, check_ranker
from .toys import HashEmbedder, OverlapRanker, SlowHashRanker, tiny_collection

__all__ = [
    "ConformanceError",
    "HashEmbedder",
    "OverlapRanker",
    "SlowHashRanker",
    "check_embedder",
    "check_ranker",
    "tiny_collection",
]
