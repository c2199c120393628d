"""Runs, qrels, queries and corpora: TREC / SMART / TSV / JSONL files, ir_datasets, validation."""

from __future__ import annotations

from .collection import Collection, DocStore

__all__ = ["Collection", "DocStore"]
