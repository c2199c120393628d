"""Files of the explanation protocol: user-provided rationales and sub-document relevance.

Rationales (JSONL, one rationale per line; from LIME, SHAP, attention, occlusion, ...)::

    {"query_id": "q1", "doc_id": "d3", "start": 0, "end": 42, "weight": 0.31}
    {"query_id": "q1", "doc_id": "d3", "start": 57, "end": 80, "weight": 0.12, "text": "...", "unit": 2}

``start``/``end`` are character offsets ``[start, end)`` into the document text; ``weight``
defaults to 1.0; ``text`` and ``unit`` are optional (``text`` is checked against the document
when documents are given). A line may instead hold ``"rationales": [{...}, ...]`` for one
(query, document) pair.

Sub-document relevance (which units of a document are relevant), TSV with a header or JSONL::

    doc_id  unit  relevant                # query-independent
    query_id  doc_id  unit  relevant      # per query
    query_id  doc_id  sentence_index  relevant   # the demo collection's spelling

``unit`` is an integer sentence index (0-based, :func:`ranklens.text.sentence_spans` of the
document) or, when not an integer, the text of the relevant unit itself.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from ..errors import DataFormatError, ValidationError
from ..io.readers import jsonl_records
from .units import Rationale

__all__ = ["read_rationales", "read_subdoc_qrels", "subdoc_from_passages", "write_rationales"]

RationaleMap = dict[tuple[str, str], tuple[Rationale, ...]]


def _int(value: object, field: str, path: object, line: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise DataFormatError(f"field {field!r} must be an integer, got {value!r}", path=path, line=line)
    try:
        f = float(value)
    except ValueError:
        raise DataFormatError(f"field {field!r} must be an integer, got {value!r}", path=path, line=line) from None
    if f != int(f):
        raise DataFormatError(f"field {field!r} must be an integer, got {value!r}", path=path, line=line)
    return int(f)


def read_rationales(
    path: str | os.PathLike[str],
    *,
    docs: Mapping[str, str] | None = None,
) -> RationaleMap:
    """Read a rationale JSONL file into ``{(query_id, doc_id): rationales}``.

    Rationales of a pair are returned most important first (weight descending, then offset).

    Args:
        path: the JSONL file.
        docs: optional ``doc_id -> text``; when given, offsets are checked against the text,
            missing ``text`` fields are filled from it, and given ``text`` must match.

    Raises:
        DataFormatError: naming the file, the line and the field, for malformed lines.
    """
    p = Path(path)
    if not p.is_file():
        raise DataFormatError("rationale file not found", path=p)
    found: dict[tuple[str, str], list[Rationale]] = {}
    for lineno, rec in jsonl_records(p):
        for key in ("query_id", "doc_id"):
            if key not in rec:
                raise DataFormatError(
                    f"missing field {key!r} (each line needs query_id, doc_id, start, end)", path=p, line=lineno
                )
        qid, did = str(rec["query_id"]), str(rec["doc_id"])
        items = rec["rationales"] if "rationales" in rec else [rec]
        if not isinstance(items, list):
            raise DataFormatError("field 'rationales' must be a list of objects", path=p, line=lineno)
        for item in items:
            found.setdefault((qid, did), []).append(_rationale(item, did, docs, p, lineno))
    return {k: tuple(sorted(v, key=lambda r: (-r.weight, r.start))) for k, v in found.items()}


def _rationale(item: object, did: str, docs: Mapping[str, str] | None, p: Path, lineno: int) -> Rationale:
    """One rationale object of a JSONL line, checked against the document text when given."""
    if not isinstance(item, dict):
        raise DataFormatError("each rationale must be a JSON object", path=p, line=lineno)
    for key in ("start", "end"):
        if key not in item:
            raise DataFormatError(f"missing field {key!r} (character offset into the document)", path=p, line=lineno)
    start = _int(item["start"], "start", p, lineno)
    end = _int(item["end"], "end", p, lineno)
    if not 0 <= start < end:
        raise DataFormatError(f"need 0 <= start < end, got start={start}, end={end}", path=p, line=lineno)
    try:
        weight = float(item.get("weight", 1.0))
    except (TypeError, ValueError):
        raise DataFormatError(f"field 'weight' must be a number, got {item.get('weight')!r}", path=p,
                              line=lineno) from None
    unit = _int(item.get("unit", -1), "unit", p, lineno)
    text = item.get("text")
    if text is not None and not isinstance(text, str):
        raise DataFormatError("field 'text' must be a string", path=p, line=lineno)
    if docs is not None:
        if did not in docs:
            raise DataFormatError(f"unknown doc_id {did!r} (not in the documents given)", path=p, line=lineno)
        doc = docs[did]
        if end > len(doc):
            raise DataFormatError(f"end={end} is past the end of document {did!r} ({len(doc)} characters)",
                                  path=p, line=lineno)
        if text is None:
            text = doc[start:end]
        elif text != doc[start:end]:
            raise DataFormatError(
                f"field 'text' {text[:40]!r} does not match document {did!r} at [{start}, {end}) "
                f"({doc[start:end][:40]!r}); fix the offsets or drop 'text'", path=p, line=lineno)
    return Rationale(unit, start, end, text or "", weight)


def write_rationales(rationales: Mapping[tuple[str, str], tuple[Rationale, ...]], path: str | os.PathLike[str]) -> Path:
    """Write ``{(query_id, doc_id): rationales}`` as JSONL (one rationale per line)."""
    from ..files import atomic_output

    p = Path(path)
    with atomic_output(p, what="rationales file") as tmp, tmp.open("w", encoding="utf-8") as fh:
        for (qid, did), rs in rationales.items():
            for r in rs:
                fh.write(json.dumps({"query_id": qid, "doc_id": did, "unit": r.unit, "start": r.start,
                                     "end": r.end, "weight": r.weight, "text": r.text}, ensure_ascii=False))
                fh.write("\n")
    return p


def _normalise_subdoc(frame: pd.DataFrame, source: object, first_line: int = 2) -> pd.DataFrame:
    frame = frame.reset_index(drop=True).rename(
        columns={"sentence_index": "unit", "sentence": "unit", "label": "relevant"}
    )
    missing = [c for c in ("doc_id", "unit", "relevant") if c not in frame.columns]
    if missing:
        raise DataFormatError(
            f"sub-document relevance lacks column(s) {missing}; need doc_id, unit (or sentence_index), "
            "relevant and optionally query_id",
            path=source,
        )
    out = pd.DataFrame({"doc_id": frame["doc_id"].astype(str)})
    if "query_id" in frame.columns:
        out.insert(0, "query_id", frame["query_id"].astype(str))
    units: list[object] = []
    rel: list[int] = []
    for i, (u, r) in enumerate(zip(frame["unit"], frame["relevant"])):
        line = i + first_line  # TSV: the header is line 1
        s = str(u).strip()
        units.append(int(s) if s.lstrip("-").isdigit() else s)
        if isinstance(units[-1], int) and units[-1] < 0:
            raise DataFormatError(f"unit index must be >= 0, got {s}", path=source, line=line)
        try:
            rel.append(int(float(str(r).strip())))
        except ValueError:
            raise DataFormatError(f"field 'relevant' must be 0/1 (or a grade), got {r!r}", path=source, line=line) from None
    out["unit"] = pd.Series(units, dtype=object)
    out["relevant"] = pd.Series(rel, dtype="int64")
    return out


def read_subdoc_qrels(source: str | os.PathLike[str] | pd.DataFrame) -> pd.DataFrame:
    """Read sub-document relevance (TSV with header, JSONL, or a DataFrame).

    Returns:
        DataFrame with ``doc_id`` (str), ``unit`` (int sentence index or str unit text),
        ``relevant`` (int64) and, when present, ``query_id`` (str) first.

    Raises:
        DataFormatError: naming file and line for missing columns or bad values.
    """
    if isinstance(source, pd.DataFrame):
        return _normalise_subdoc(source.copy(), "subdoc qrels frame", first_line=0)
    p = Path(source)
    if not p.is_file():
        raise DataFormatError("sub-document relevance file not found", path=p)
    if p.suffix in {".jsonl", ".json"}:
        rows = [rec for _, rec in jsonl_records(p)]
        return _normalise_subdoc(pd.DataFrame(rows), p, first_line=1)
    with p.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t")
        header = next(reader, None)
        if header is None:
            raise DataFormatError("empty sub-document relevance file", path=p)
        rows = []
        for lineno, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) != len(header):
                raise DataFormatError(
                    f"expected {len(header)} tab-separated fields ({', '.join(header)}), got {len(row)}",
                    path=p, line=lineno,
                )
            rows.append(row)
    return _normalise_subdoc(pd.DataFrame(rows, columns=[h.strip() for h in header]), p)


def relevant_units(
    subdoc: pd.DataFrame, query_id: str, doc_id: str, document: str
) -> list[str]:
    """Texts of the relevant units of ``doc_id`` (for ``query_id`` when the data is per query)."""
    from ..text import sentence_spans

    rows = subdoc[subdoc["doc_id"] == doc_id]
    if "query_id" in subdoc.columns:
        rows = rows[rows["query_id"] == query_id]
    rows = rows[rows["relevant"] > 0]
    if rows.empty:
        return []
    spans = None
    out = []
    for u in rows["unit"]:
        if isinstance(u, (int,)) or (hasattr(u, "dtype") and str(getattr(u, "dtype", "")).startswith("int")):
            if spans is None:
                spans = sentence_spans(document)
            ui = int(u)
            if ui >= len(spans):
                raise ValidationError(
                    f"sub-document relevance: unit {ui} of doc {doc_id!r} is past its {len(spans)} sentences"
                )
            out.append(document[spans[ui][0] : spans[ui][1]])
        else:
            out.append(str(u))
    return out


def subdoc_from_passages(mapping: pd.DataFrame, passage_qrels: pd.DataFrame, *, min_relevance: int = 1,
                         ) -> pd.DataFrame:
    """Sub-document relevance of documents from passage-level qrels (the paper's document ->
    passage mapping, §4.1: MS MARCO documents are made of passages whose qrels are known).

    Args:
        mapping: ``doc_id, passage_id, text`` -- the passages each document is made of (their
            texts are the units MER compares rationales with).
        passage_qrels: ``query_id, doc_id, relevance`` where ``doc_id`` is a passage id.
        min_relevance: grade from which a passage is relevant.

    Returns:
        ``query_id, doc_id, unit, relevant`` (as :func:`read_subdoc_qrels`): per query, every
        relevant passage of every document that contains it, the passage text as the unit.
    """
    need = {"doc_id", "passage_id", "text"} - set(mapping.columns)
    if need:
        raise ValidationError(f"subdoc_from_passages: mapping lacks column(s) {sorted(need)}; need doc_id, "
                              "passage_id, text")
    rel = passage_qrels[passage_qrels["relevance"].astype(int) >= min_relevance]
    rel = rel.rename(columns={"doc_id": "passage_id"})[["query_id", "passage_id"]].astype(str)
    m = mapping[["doc_id", "passage_id", "text"]].astype(str)
    out = rel.merge(m, on="passage_id", how="inner")
    frame = pd.DataFrame({"query_id": out["query_id"], "doc_id": out["doc_id"], "unit": out["text"].str.strip(),
                          "relevant": 1})
    return read_subdoc_qrels(frame.drop_duplicates().reset_index(drop=True))
