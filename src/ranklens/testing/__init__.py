"""Helpers for testing ranklens components and plug-ins (conformance checks and toys)."""

from __future__ import annotations

from .toys import HashEmbedder, OverlapRanker, tiny_collection

__all__ = ["HashEmbedder", "OverlapRanker", "tiny_collection"]
