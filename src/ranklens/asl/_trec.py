"""The metrics' TREC readers: the one strict, Arrow-fast reader of :mod:`ranklens.io.trec`.

Kept under its old names so the metrics code needs no change: :func:`read_run_table` and
:func:`read_qrels_table` return ``pyarrow.Table`` objects (``query_id``, ``doc_id`` strings and
``score`` float64 / ``relevance`` int64); their format rules and errors are those of
:func:`ranklens.io.read_run` / :func:`ranklens.io.read_qrels`, and the reader's warnings are in
the schema metadata (:func:`ranklens.io.reader_warnings`).
"""

from __future__ import annotations

from ..io.trec import check_coverage, depth_warnings, read_qrels_table, read_run_table, reader_warnings

__all__ = ["check_coverage", "depth_warnings", "read_qrels_table", "read_run_table", "reader_warnings"]
