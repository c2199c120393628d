"""Runs, qrels, queries and corpora: TREC / SMART / TSV / JSONL files, ir_datasets, validation.

Importing the package costs nothing: each name loads its module on first use
(:func:`ranklens._lazy.lazy_exports`), so ``ranklens evaluate`` importing the TREC reader
does not import the collection, SMART or ir_datasets modules (nor pandas through them).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ..errors import DataFormatError

if TYPE_CHECKING:
    from .collection import Collection

_WHERE = {
    **dict.fromkeys(("Collection", "DocStore"), ".collection"),
    **dict.fromkeys(("COLUMN_ALIASES", "count_ties", "rank_run", "validate_qrels", "validate_run"), ".frames"),
    **dict.fromkeys(("IrdsDocStore", "irds_qrels", "irds_queries", "irds_run", "load_irds"), ".irds"),
    **dict.fromkeys(("JsonlDocStore", "read_docs", "read_queries", "read_topics"), ".readers"),
    **dict.fromkeys(("SMART_COLLECTIONS", "detect_smart_collection", "load_smart_collection"), ".classic"),
    **dict.fromkeys(("parse_npl", "parse_smart", "read_npl", "read_raw_qrels", "read_smart"), ".smart"),
    **dict.fromkeys(("check_coverage", "depth_warnings", "discover_runs", "read_qrels", "read_qrels_table",
                     "read_run", "read_run_table", "read_runs", "reader_warnings", "run_name", "write_qrels",
                     "write_run"), ".trec"),
}
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

__all__ = [
    "COLUMN_ALIASES",
    "Collection",
    "DocStore",
    "IrdsDocStore",
    "JsonlDocStore",
    "SMART_COLLECTIONS",
    "check_coverage",
    "count_ties",
    "depth_warnings",
    "detect_smart_collection",
    "discover_runs",
    "irds_qrels",
    "irds_queries",
    "irds_run",
    "load_collection",
    "load_irds",
    "load_smart_collection",
    "parse_npl",
    "parse_smart",
    "rank_run",
    "read_docs",
    "read_npl",
    "read_qrels",
    "read_qrels_table",
    "read_queries",
    "read_raw_qrels",
    "read_run",
    "read_run_table",
    "read_runs",
    "read_smart",
    "reader_warnings",
    "read_topics",
    "run_name",
    "validate_qrels",
    "validate_run",
    "write_qrels",
    "write_run",
]

_QRELS_NAMES = ("qrels.trec", "qrels.txt", "qrels.tsv", "qrels.trec.gz", "qrels.txt.gz")
_DOCS_NAMES = ("docs.jsonl", "corpus.jsonl", "docs.jsonl.gz", "corpus.jsonl.gz", "docs.tsv", "collection.tsv")
_QUERY_NAMES = ("queries.tsv", "queries.jsonl", "topics.tsv", "queries.txt", "topics.txt")


def _first(d: Path, names: tuple[str, ...]) -> Path | None:
    return next((d / n for n in names if (d / n).is_file()), None)


def load_collection(spec: str | os.PathLike, *, include_title: bool = False, stream_docs: bool = False) -> Collection:
    """Load a collection from a spec.

    Args:
        spec: ``"demo"`` (the shipped demo collection), ``"irds:<dataset-id>"``, a directory with
            ``docs.jsonl``, ``queries.tsv`` and optional ``qrels.trec``/``qrels.txt`` (the derived
            layout; a Cranfield/CISI/CACM/NPL ``derived/`` folder is loaded with the same
            conventions as its raw files, see :func:`load_smart_collection`), a raw
            Cranfield/CISI/CACM/NPL directory, or one of the names
            ``cranfield``, ``cisi``, ``cacm``, ``npl`` (looked up by the data registry:
            ``$RANKLENS_DATA``, then the user data cache; collections with both ``raw/`` and
            ``derived/`` load from raw).
        include_title: For the derived layout, put each doc's ``title`` in front of its text.
        stream_docs: For the derived layout, keep docs on disk (:class:`JsonlDocStore`).

    Raises:
        DataFormatError: when the spec matches none of these, saying what was expected.
    """
    from .classic import detect_smart_collection, load_smart_collection
    from .readers import read_docs, read_queries
    from .trec import read_qrels

    s = str(spec)
    if s == "demo":
        from ..datasets.demo import load_demo

        return load_demo()
    if s.startswith("irds:"):
        from .irds import load_irds

        return load_irds(s)
    d = Path(spec)
    if d.is_dir():
        if d.name == "derived" and detect_smart_collection(d.parent / "raw") is not None:
            # the derived files of Cranfield/CISI/CACM/NPL: same conventions as their raw files
            return load_smart_collection(d.parent, source="derived")
        docs = _first(d, _DOCS_NAMES)
        queries = _first(d, _QUERY_NAMES)
        if docs is not None and queries is not None:
            qrels = _first(d, _QRELS_NAMES)
            from .classic import _collection

            return _collection(
                d.name,
                read_docs(docs, include_title=include_title, stream=stream_docs and docs.suffix == ".jsonl"),
                read_queries(queries),
                read_qrels(qrels) if qrels is not None else None,
                {"source": "directory", "path": str(d)},
            )
    try:
        return load_smart_collection(spec, source="raw")
    except DataFormatError as exc:
        raise DataFormatError(
            f"cannot load collection {s!r}: expected 'demo', 'irds:<id>', a directory with docs.jsonl + "
            f"queries.tsv (+ qrels.trec), or a Cranfield/CISI/CACM/NPL directory or name ({exc})"
        ) from None
