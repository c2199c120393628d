"""Helpers for testing ranklens components and plug-ins (conformance checks and toys).

``check_ranker`` / ``check_embedder`` check a model, ``check_analysis`` an analysis (its
declaration, its one vocabulary and its doors)."""

from __future__ import annotations

from .analysis import check_analysis, check_declaration, check_doors, check_vocabulary
from .checks import ConformanceError, check_embedder, check_ranker
from .toys import HashEmbedder, OverlapRanker, SlowHashRanker, tiny_collection

__all__ = [
    "ConformanceError",
    "HashEmbedder",
    "OverlapRanker",
    "SlowHashRanker",
    "check_analysis",
    "check_declaration",
    "check_doors",
    "check_embedder",
    "check_ranker",
    "check_vocabulary",
    "tiny_collection",
]
