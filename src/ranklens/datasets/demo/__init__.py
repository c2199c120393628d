"""The ranklens demo collection: a small hand-written test collection shipped with the package.

Twelve clearly separated topics (astronomy, baking, cycling, volcanoes, coffee, medieval
history, beekeeping, machine learning, sailing, gardening, jazz, personal finance), 384
passages of 3-6 sentences, 40 test queries with graded qrels (0-3, judged non-relevant near
misses included), 84 training queries (``kind``: ``paraphrase`` of a test query, ``related``
intent in a test topic, or ``unlike`` any test query) with their own qrels, sentence-level
qrels for every graded-2+ test judgement, and text pairs for the seven dataset-transfer probe
kinds. All text is original, written for ranklens; see ``README.md`` next to this file.

Example:
    >>> from ranklens.datasets.demo import load_demo
    >>> coll = load_demo()
    >>> len(coll.queries), len(coll.docs)
    (40, 384)
"""

from __future__ import annotations

import csv
import json
from importlib import resources
from pathlib import Path

import pandas as pd

from ...errors import DataFormatError, ValidationError
from ...io.collection import Collection, DocStore
from ...types import DOC_ID, QUERY_ID, RELEVANCE, TEXT

__all__ = [
    "DEMO_PAIR_KINDS",
    "DEMO_TRAIN_KINDS",
    "demo_path",
    "load_demo",
    "load_demo_pairs",
    "load_demo_subdoc_qrels",
    "load_demo_train",
]

DEMO_PAIR_KINDS: tuple[str, ...] = (
    "paraphrase", "fluency", "formality", "simplicity", "neutrality", "succinctness", "factuality",
)
"""Pair files under ``pairs/``. ``text_a``/``text_b`` are: paraphrase (two wordings of one
meaning), fluency (fluent / disfluent), formality (formal / informal), simplicity (simple /
complex), neutrality (neutral / biased), succinctness (summary / full text; ``query`` = title),
factuality (factual / non-factual answer; ``query`` = question)."""

DEMO_TRAIN_KINDS: tuple[str, ...] = ("paraphrase", "related", "unlike")
"""Values of the ``kind`` column of the training queries."""

_PAIR_COLUMNS = ["pair_id", "text_a", "text_b", "query"]
_SUBDOC_COLUMNS = [QUERY_ID, DOC_ID, "sentence_index", "relevant"]


def demo_path() -> Path:
    """Directory holding the demo files (inside the installed package)."""
    return Path(str(resources.files(__name__)))


def _read_tsv(name: str, columns: list[str]) -> pd.DataFrame:
    path = demo_path() / name
    if not path.is_file():
        raise DataFormatError("demo file missing; reinstall ranklens (package data not installed)", path=path)
    frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, quoting=csv.QUOTE_NONE,
                        encoding="utf-8")
    if list(frame.columns[: len(columns)]) != columns:
        raise DataFormatError(f"header must start with {columns}, got {list(frame.columns)}", path=path, line=1)
    return frame


def _read_qrels(name: str) -> pd.DataFrame:
    path = demo_path() / name
    rows = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 4:
                raise DataFormatError(f"expected 4 columns (query_id 0 doc_id relevance), got {len(parts)}",
                                      path=path, line=lineno)
            try:
                rel = int(parts[3])
            except ValueError:
                raise DataFormatError(f"relevance {parts[3]!r} is not an integer", path=path, line=lineno) from None
            if not 0 <= rel <= 3:
                raise DataFormatError(f"relevance {rel} outside the demo's 0-3 scale", path=path, line=lineno)
            rows.append((parts[0], parts[2], rel))
    frame = pd.DataFrame(rows, columns=[QUERY_ID, DOC_ID, RELEVANCE])
    frame[QUERY_ID] = frame[QUERY_ID].astype(str)
    frame[DOC_ID] = frame[DOC_ID].astype(str)
    frame[RELEVANCE] = frame[RELEVANCE].astype("int64")
    return frame


def _check_ids(frame: pd.DataFrame, name: str, query_ids: set[str], doc_ids: set[str]) -> None:
    bad_q = sorted(set(frame[QUERY_ID]) - query_ids)
    bad_d = sorted(set(frame[DOC_ID]) - doc_ids)
    if bad_q or bad_d:
        raise DataFormatError(f"unknown query ids {bad_q[:5]} / doc ids {bad_d[:5]}", path=demo_path() / name)
    if frame.duplicated([QUERY_ID, DOC_ID]).any():
        raise DataFormatError("duplicate (query_id, doc_id) judgements", path=demo_path() / name)


def _docs() -> tuple[pd.DataFrame, DocStore]:
    path = demo_path() / "docs.jsonl"
    records = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataFormatError(f"invalid JSON: {exc}", path=path, line=lineno) from None
            missing = {DOC_ID, "title", TEXT, "topic"} - set(rec)
            if missing:
                raise DataFormatError(f"record lacks field(s) {sorted(missing)}", path=path, line=lineno)
            records.append(rec)
    frame = pd.DataFrame.from_records(records, columns=[DOC_ID, "title", TEXT, "topic"]).astype(str)
    store = DocStore(zip(frame[DOC_ID], frame[TEXT]), name="demo", metadata=frame.drop(columns=[TEXT]))
    return frame, store


def load_demo() -> Collection:
    """The demo test collection: 384 passages, 40 test queries, graded qrels (0-3).

    ``docs.metadata`` holds ``doc_id``, ``title`` and ``topic``; ``meta`` records the source.
    Each call parses the files again and returns a fresh :class:`~ranklens.io.collection.Collection`.
    """
    frame, store = _docs()
    queries = _read_tsv("queries.tsv", [QUERY_ID, TEXT])[[QUERY_ID, TEXT]]
    qrels = _read_qrels("qrels.trec")
    _check_ids(qrels, "qrels.trec", set(queries[QUERY_ID]), set(frame[DOC_ID]))
    meta = {"source": "ranklens demo collection (original text written for ranklens)",
            "path": str(demo_path()), "relevance_scale": "0-3"}
    return Collection(name="demo", docs=store, queries=queries, qrels=qrels, meta=meta)


def load_demo_train() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Training queries (``query_id``, ``text``, ``kind``) and their qrels (ids disjoint from test)."""
    queries = _read_tsv("train_queries.tsv", [QUERY_ID, TEXT, "kind"])
    bad = sorted(set(queries["kind"]) - set(DEMO_TRAIN_KINDS))
    if bad:
        raise DataFormatError(f"unknown kind(s) {bad}; expected {DEMO_TRAIN_KINDS}",
                              path=demo_path() / "train_queries.tsv")
    qrels = _read_qrels("train_qrels.trec")
    _check_ids(qrels, "train_qrels.trec", set(queries[QUERY_ID]), set(_docs()[0][DOC_ID]))
    return queries, qrels


def load_demo_subdoc_qrels() -> pd.DataFrame:
    """Sentence-level qrels: ``query_id``, ``doc_id``, ``sentence_index`` (0-based, as
    :func:`ranklens.text.sentence_spans`), ``relevant`` (0/1), for every test judgement of grade >= 2."""
    frame = _read_tsv("subdoc_qrels.tsv", _SUBDOC_COLUMNS)[_SUBDOC_COLUMNS]
    for col in ("sentence_index", "relevant"):
        try:
            frame[col] = frame[col].astype("int64")
        except ValueError:
            raise DataFormatError(f"column {col!r} must hold integers",
                                  path=demo_path() / "subdoc_qrels.tsv") from None
    return frame


def load_demo_pairs(kind: str) -> pd.DataFrame:
    """Text pairs of one probe kind: ``pair_id``, ``text_a``, ``text_b``, ``query`` (may be empty).

    Args:
        kind: one of :data:`DEMO_PAIR_KINDS`.

    Raises:
        ValidationError: ``kind`` is not a known pair kind (the message lists the valid ones).
    """
    if kind not in DEMO_PAIR_KINDS:
        raise ValidationError(f"unknown demo pair kind {kind!r}; valid kinds: {', '.join(DEMO_PAIR_KINDS)}")
    return _read_tsv(f"pairs/{kind}.tsv", _PAIR_COLUMNS)[_PAIR_COLUMNS]
