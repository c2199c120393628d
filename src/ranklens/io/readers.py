"""Queries and documents: TSV, JSONL, TREC topics, SMART; a streaming JSONL document store."""

from __future__ import annotations

import json
import os
import re
import threading
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import pandas as pd

from ..errors import DataFormatError, RanklensWarning
from ..types import DOC_ID, QUERY_ID, TEXT
from .collection import DocStore

__all__ = ["DOC_ID_FIELDS", "DOC_TEXT_FIELDS", "JsonlDocStore", "QUERY_ID_FIELDS", "QUERY_TEXT_FIELDS",
           "read_docs", "read_queries", "read_topics"]

PathLike = str | os.PathLike

QUERY_ID_FIELDS = ("query_id", "qid", "_id", "id", "topic", "num")
QUERY_TEXT_FIELDS = ("text", "query", "title")
DOC_ID_FIELDS = ("doc_id", "docno", "_id", "id")
DOC_TEXT_FIELDS = ("text", "contents", "body", "abstract", "passage")


def _text(path: Path, encoding: str | None) -> str:
    from ._columns import decode, default_encoding, read_bytes

    return decode(read_bytes(path), path, default_encoding(encoding))


def _pick(fields: Sequence[str], keys, path: object, lineno: int | None, what: str) -> str:
    for f in fields:
        if f in keys:
            return f
    raise DataFormatError(f"no {what} field; expected one of {list(fields)}, found {sorted(keys)}",
                          path=path, line=lineno)


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)``, split at ``\\n`` only (a form feed, U+0085 or U+2028 inside a record is
    content, not a line end), a ``\\r`` before it dropped."""
    from ._columns import iter_lines

    for lineno, line in iter_lines(text, None):
        yield lineno, line[:-1] if line.endswith("\r") else line


def _jsonl_records(text: str, path: Path) -> Iterator[tuple[int, dict]]:
    for lineno, line in _lines(text):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataFormatError(f"invalid JSON at column {exc.colno}: {exc.msg}", path=path, line=lineno) from None
        if not isinstance(rec, dict):
            raise DataFormatError(f"expected a JSON object per line, got {type(rec).__name__}", path=path, line=lineno)
        yield lineno, rec


def jsonl_records(path: Path, encoding: str | None = None) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` for each non-blank line of a JSON-lines file (the one JSONL reader:
    the file's encoding checked as everywhere, errors name the file and line)."""
    return _jsonl_records(_text(path, encoding), path)


def _is_jsonl(path: Path, text: str) -> bool:
    name = path.name.lower().removesuffix(".gz")
    return name.endswith((".jsonl", ".json", ".ndjson")) or text.lstrip().startswith("{")


def check_id(s: str, path: object, lineno: int | None, field: str) -> str:
    """The one id rule of every reader: a non-empty string without whitespace (a run or qrels file
    separates its fields by blanks, so ``'zz 1'`` or ``'ast01 '`` could never be matched)."""
    if not s:
        raise DataFormatError(f"{field} is empty; every record needs an id", path=path, line=lineno)
    if any(c.isspace() for c in s):
        raise DataFormatError(f"{field} {s!r} contains whitespace; ids cannot hold blanks (a run or qrels file "
                              f"could not name it): replace them, e.g. with '_'", path=path, line=lineno)
    return s


def _id_str(v: object, path: object, lineno: int, field: str) -> str:
    if isinstance(v, bool) or v is None or isinstance(v, (float, list, dict)):
        what = f"a JSON {type(v).__name__}" if isinstance(v, (list, dict)) else repr(v)
        raise DataFormatError(f"{field} must be a string or integer, got {what} ({json.dumps(v)[:40]})",
                              path=path, line=lineno)
    return check_id(str(v), path, lineno, field)


def _warn_ids(ids, what: str, path: object) -> list[str]:
    """:func:`ranklens.io._columns.id_warnings`, also issued as :class:`RanklensWarning`."""
    from ._columns import id_warnings

    notes = id_warnings(ids, what, path)
    for n in notes:
        warnings.warn(n, RanklensWarning, stacklevel=3)
    return notes


def _text_str(v: object, path: object, lineno: int | None, field: str, required: bool) -> str:
    """A text field must be a JSON string (``null`` only where the text is optional)."""
    if isinstance(v, str):
        return v
    if v is None and not required:
        return ""
    what = "null" if v is None else f"a JSON {type(v).__name__} ({json.dumps(v)[:40]})"
    raise DataFormatError(f"field {field!r} is {what}; texts must be JSON strings (quote them, or drop the "
                          f"record)", path=path, line=lineno)


def _tsv(text: str, path: Path, id_fields: Sequence[str], text_fields: Sequence[str],
         id_col: str) -> pd.DataFrame:
    first = text.split("\n", 1)[0].rstrip("\r").split("\t")
    header = first[0].strip().lower() in id_fields and any(c.strip().lower() in text_fields for c in first[1:])
    rows = []
    start = 1 if header else 0
    cols = [c.strip() for c in first] if header else None
    ids_at: list[int] = []
    for lineno, line in _lines(text):
        if lineno <= start or not line.strip():
            continue
        parts = line.split("\t")
        ids_at.append(lineno)
        if header:
            if len(parts) != len(cols):
                raise DataFormatError(f"expected {len(cols)} tab-separated columns {cols}, found {len(parts)}",
                                      path=path, line=lineno)
            rows.append(parts)
        else:
            if len(parts) < 2:
                raise DataFormatError("expected 'id<TAB>text', found no tab", path=path, line=lineno)
            rows.append([parts[0], "\t".join(parts[1:])])
    if header:
        df = pd.DataFrame(rows, columns=cols, dtype=str)
        lower = {c.lower(): c for c in cols}
        idc = lower[_pick(id_fields, lower, path, 1, "id")]
        txc = lower[_pick(text_fields, lower, path, 1, "text")]
        df = df.rename(columns={idc: id_col, txc: TEXT})
        df = df[[id_col, TEXT] + [c for c in df.columns if c not in (id_col, TEXT)]]
    else:
        df = pd.DataFrame(rows, columns=[id_col, TEXT], dtype=str)
    if df.empty:
        raise DataFormatError("empty file", path=path)
    for c in df.columns:
        df[c] = df[c].astype(str)
    for lineno, v in zip(ids_at, df[id_col]):
        check_id(v, path, lineno, id_col)
    _no_dup_ids(df, id_col, path)
    df.attrs["warnings"] = tuple(_warn_ids(df[id_col], id_col, path))
    return df


def _no_dup_ids(df: pd.DataFrame, id_col: str, path: object) -> None:
    dup = df[id_col].duplicated()
    if dup.any():
        v = df[id_col][dup].iloc[0]
        raise DataFormatError(f"duplicate {id_col} {v!r}; ids must be unique", path=path)


_TOP = re.compile(r"<top>(.*?)</top>", re.S | re.I)
_TAG = re.compile(r"<(num|title|desc|narr)>", re.I)


def read_topics(text: str, *, field: str = "title", source: object = "<string>") -> pd.DataFrame:
    """Parse classic TREC ``<top>`` topics (``<num> Number: 301``, ``<title>``, ``<desc>``, ``<narr>``).

    Args:
        field: ``"title"``, ``"desc"``, ``"narr"`` or ``"title+desc"`` for ``text``.

    Returns:
        Frame ``query_id``, ``text``, ``title``, ``desc``, ``narr``.
    """
    rows = []
    opened = [m.start() for m in re.finditer(r"<top>", text, re.I)]
    closed = {m.start() for m in _TOP.finditer(text)}
    for pos in opened:
        if pos not in closed:
            raise DataFormatError("<top> block without </top> (the topic would be dropped); close it with </top>",
                                  path=source, line=text.count("\n", 0, pos) + 1)
    for m in _TOP.finditer(text):
        body = m.group(1)
        parts = _TAG.split(body)
        rec = {}
        for tag, val in zip(parts[1::2], parts[2::2]):
            val = re.sub(r"</\w+>", " ", val)
            val = re.sub(r"^\s*(Number|Description|Narrative|Topic)\s*:", "", val.strip(), flags=re.I)
            rec[tag.lower()] = " ".join(val.split())
        line = text.count("\n", 0, m.start()) + 1
        if "num" not in rec:
            raise DataFormatError("a <top> block has no <num>", path=source, line=line)
        rec["num"] = check_id(rec["num"], source, line, "<num>")
        rows.append(rec)
    if not rows:
        raise DataFormatError("no <top> blocks found", path=source)
    df = pd.DataFrame(rows).fillna("")
    for c in ("title", "desc", "narr"):
        if c not in df.columns:
            df[c] = ""
    if field == "title+desc":
        txt = (df["title"] + " " + df["desc"]).str.strip()
    elif field in ("title", "desc", "narr"):
        txt = df[field]
    else:
        raise DataFormatError(f"field={field!r}; use title, desc, narr or title+desc", path=source)
    out = pd.DataFrame({QUERY_ID: df["num"], TEXT: txt, "title": df["title"], "desc": df["desc"], "narr": df["narr"]})
    return out.astype(str)


def _queries_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A queries frame under any accepted column names -> ``query_id``, ``text`` (+ other columns)."""
    idf = next((f for f in QUERY_ID_FIELDS if f in frame.columns), None)
    txf = next((f for f in QUERY_TEXT_FIELDS if f in frame.columns), None)
    if idf is None or txf is None:
        raise DataFormatError(f"queries frame has columns {list(frame.columns)}; expected an id column "
                              f"({'|'.join(QUERY_ID_FIELDS)}) and a text column ({'|'.join(QUERY_TEXT_FIELDS)})",
                              path="queries frame")
    rest = [c for c in frame.columns if c not in (idf, txf, QUERY_ID, TEXT)]
    df = pd.DataFrame({QUERY_ID: frame[idf].astype(str).str.strip(), TEXT: frame[txf].astype(str)})
    df = pd.concat([df.reset_index(drop=True), frame[rest].reset_index(drop=True)], axis=1)
    _no_dup_ids(df, QUERY_ID, "queries frame")
    return df


def read_queries(path: PathLike, *, encoding: str | None = None, field: str = "title") -> pd.DataFrame:
    """Read queries from TSV (``id<TAB>text``, with or without a header), JSONL
    (``query_id|qid|_id`` + ``text|query``), TREC ``<top>`` topics or SMART ``.I/.W``.

    Returns:
        Frame ``query_id`` (str), ``text`` (str), plus any extra columns of the file.

    A DataFrame is accepted too (PyTerrier topics ``qid``, ``query``; or ``query_id``, ``text``).

    Raises:
        DataFormatError: naming the file, line and problem.
    """
    if isinstance(path, pd.DataFrame):
        return _queries_frame(path)
    p = Path(path)
    text = _text(p, encoding)
    if not text.strip():
        raise DataFormatError("empty file: no queries", path=p)
    head = text.lstrip()
    if head.lower().startswith("<top>"):
        return read_topics(text, field=field, source=p)
    if head.startswith(".I"):
        from .smart import read_smart

        return read_smart(p, ("W",), id_column=QUERY_ID, encoding=encoding)
    if _is_jsonl(p, text):
        rows = []
        for lineno, rec in _jsonl_records(text, p):
            idf = _pick(QUERY_ID_FIELDS, rec, p, lineno, "query id")
            txf = _pick(QUERY_TEXT_FIELDS, rec, p, lineno, "query text")
            row = {QUERY_ID: _id_str(rec[idf], p, lineno, idf), TEXT: _text_str(rec[txf], p, lineno, txf, True)}
            rows.append(row)
        df = pd.DataFrame(rows, dtype=str)
        _no_dup_ids(df, QUERY_ID, p)
        df.attrs["warnings"] = tuple(_warn_ids(df[QUERY_ID], QUERY_ID, p))
        return df
    return _tsv(text, p, QUERY_ID_FIELDS, QUERY_TEXT_FIELDS, QUERY_ID)


def _doc_text(rec: dict, text_field: str | None, include_title: bool, title_sep: str,
              path: object = None, lineno: int | None = None) -> str:
    body = _text_str(rec.get(text_field), path, lineno, text_field, False) if text_field else ""
    if include_title or not body:
        title = _text_str(rec.get("title"), path, lineno, "title", False)
        if title:
            return f"{title}{title_sep}{body}" if body else str(title)
    return body


def _docs_frame(frame: pd.DataFrame, *, include_title: bool, title_sep: str, text_field: str | None) -> DocStore:
    """A docs frame under any accepted column names -> :class:`DocStore` (other columns as metadata)."""
    idf = next((f for f in DOC_ID_FIELDS if f in frame.columns), None)
    txf = text_field if text_field in frame.columns else next((f for f in DOC_TEXT_FIELDS if f in frame.columns), None)
    if idf is None or txf is None:
        raise DataFormatError(f"docs frame has columns {list(frame.columns)}; expected an id column "
                              f"({'|'.join(DOC_ID_FIELDS)}) and a text column ({'|'.join(DOC_TEXT_FIELDS)})",
                              path="docs frame")
    ids = frame[idf].astype(str).str.strip()
    texts = frame[txf].fillna("").astype(str)
    if "title" in frame.columns:  # as the JSONL reader: title in front on request, and where the text is empty
        titles = frame["title"].fillna("").astype(str)
        empty = texts.str.strip() == ""
        if include_title:
            texts = (titles + title_sep + texts).str.strip()
        texts = texts.where(~empty, titles)
    rest = frame.drop(columns=[c for c in (idf, txf) if c in frame.columns])
    df = pd.concat([pd.DataFrame({DOC_ID: ids, TEXT: texts}).reset_index(drop=True), rest.reset_index(drop=True)],
                   axis=1)
    _no_dup_ids(df, DOC_ID, "docs frame")
    return DocStore.from_frame(df.loc[:, ~df.columns.duplicated()], name="docs frame")


def read_docs(path: PathLike, *, include_title: bool = False, title_sep: str = " ", text_field: str | None = None,
              encoding: str | None = None, stream: bool = False) -> DocStore:
    """Read a corpus into a :class:`DocStore`.

    Formats: JSONL (id from ``doc_id|docno|_id|id``, text from ``text|contents|body|abstract|passage``,
    optional ``title``), TSV (``id<TAB>text``, header optional), SMART (``.I/.T/.W``: title + text),
    NPL ``doc-text``.

    Args:
        include_title: Put the ``title`` in front of the text (joined by ``title_sep``). Records
            whose text is missing or empty use the title either way.
        text_field: Force the JSONL text field.
        stream: For plain JSONL, return a :class:`JsonlDocStore` (byte-offset index, texts read
            on demand) instead of loading everything.

    A DataFrame is accepted too (PyTerrier's ``docno``, ``text``; or any id/text field above).

    Raises:
        DataFormatError: naming the file, line and problem (missing fields, bad JSON, duplicates).
    """
    if isinstance(path, pd.DataFrame):
        return _docs_frame(path, include_title=include_title, title_sep=title_sep, text_field=text_field)
    p = Path(path)
    if stream:
        return JsonlDocStore(p, include_title=include_title, title_sep=title_sep, text_field=text_field,
                             encoding=encoding)
    text = _text(p, encoding)
    if not text.strip():
        raise DataFormatError("empty file: no documents", path=p)
    if text.lstrip().startswith(".I"):
        from .smart import read_smart

        return DocStore.from_frame(read_smart(p, ("T", "W") if include_title else ("W",), encoding=encoding),
                                   name=p.name)
    if p.name.lower() == "doc-text":
        from .smart import read_npl

        return DocStore.from_frame(read_npl(p, encoding=encoding), name=p.name)
    if _is_jsonl(p, text):
        items: list[tuple[str, str]] = []
        meta: list[dict] = []
        seen: dict[str, int] = {}
        for lineno, rec in _jsonl_records(text, p):
            idf = _pick(DOC_ID_FIELDS, rec, p, lineno, "doc id")
            txf = text_field or next((f for f in DOC_TEXT_FIELDS if f in rec), None)
            if txf is None and "title" not in rec:
                _pick(DOC_TEXT_FIELDS, rec, p, lineno, "doc text")
            doc_id = _id_str(rec[idf], p, lineno, idf)
            if doc_id in seen:
                raise DataFormatError(f"duplicate doc id {doc_id!r} (first on line {seen[doc_id]})", path=p, line=lineno)
            seen[doc_id] = lineno
            items.append((doc_id, _doc_text(rec, txf, include_title, title_sep, p, lineno)))
            meta.append({DOC_ID: doc_id, **{k: v for k, v in rec.items() if k not in (idf, txf)}})
        md = pd.DataFrame(meta)
        store = DocStore(items, name=p.name, metadata=md if md.shape[1] > 1 else None)
        store.warnings = tuple(_warn_ids(seen, DOC_ID, p))
        return store
    df = _tsv(text, p, DOC_ID_FIELDS, DOC_TEXT_FIELDS, DOC_ID)
    if include_title and "title" in df.columns:
        df[TEXT] = (df["title"] + title_sep + df[TEXT]).str.strip()
    store = DocStore.from_frame(df, name=p.name)
    store.warnings = tuple(df.attrs.get("warnings", ()))
    return store


class JsonlDocStore(DocStore):
    """A :class:`DocStore` over a plain JSONL file that keeps only ``doc_id -> byte offset`` in memory.

    The index is built by one pass over the file at construction (a streaming reader has to
    know its ids to answer ``len`` and ``in``); texts are read on demand with a seek. Safe to
    share between threads; pickles without its file handle.
    """

    def __init__(self, path: PathLike, *, include_title: bool = False, title_sep: str = " ",
                 text_field: str | None = None, encoding: str | None = None) -> None:
        from ._columns import default_encoding

        encoding = default_encoding(encoding)
        p = Path(path)
        with open(p, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                raise DataFormatError("JsonlDocStore needs an uncompressed file for random access; "
                                      "gunzip it or use read_docs(path) to load it into memory", path=p)
        self.path = p
        self.name = p.name
        self.metadata = None
        self._include_title = include_title
        self._title_sep = title_sep
        self._text_field = text_field
        self._encoding = encoding
        self._offsets: dict[str, int] = {}
        self._fh = None
        self._lock = threading.Lock()
        with open(p, "rb") as fh:
            offset = 0
            for lineno, raw in enumerate(fh, start=1):
                if raw.strip():
                    rec = self._parse(raw, lineno)
                    idf = _pick(DOC_ID_FIELDS, rec, p, lineno, "doc id")
                    doc_id = _id_str(rec[idf], p, lineno, idf)
                    self._record_text(rec, lineno)  # the same text checks as read_docs
                    if doc_id in self._offsets:
                        raise DataFormatError(f"duplicate doc id {doc_id!r}", path=p, line=lineno)
                    self._offsets[doc_id] = offset
                offset += len(raw)
        if not self._offsets:
            raise DataFormatError("empty file: no documents", path=p)

    def _parse(self, raw: bytes, lineno: int | None) -> dict:
        try:
            rec = json.loads(raw.decode(self._encoding))
        except UnicodeDecodeError as exc:
            raise DataFormatError(f"byte {raw[exc.start:exc.end]!r} at column {exc.start + 1} is not valid "
                                  f"{self._encoding}", path=self.path, line=lineno) from None
        except json.JSONDecodeError as exc:
            raise DataFormatError(f"invalid JSON at column {exc.colno}: {exc.msg}", path=self.path,
                                  line=lineno) from None
        if not isinstance(rec, dict):
            raise DataFormatError("expected a JSON object per line", path=self.path, line=lineno)
        return rec

    def _record_text(self, rec: dict, lineno: int | None = None) -> str:
        txf = self._text_field or next((f for f in DOC_TEXT_FIELDS if f in rec), None)
        return _doc_text(rec, txf, self._include_title, self._title_sep, self.path, lineno)

    def __getitem__(self, doc_id: str) -> str:
        try:
            off = self._offsets[doc_id]
        except KeyError:
            raise KeyError(f"{self.name}: no document with doc_id {doc_id!r}") from None
        with self._lock:
            if self._fh is None:
                self._fh = open(self.path, "rb")
            self._fh.seek(off)
            raw = self._fh.readline()
        return self._record_text(self._parse(raw, None))

    def __iter__(self) -> Iterator[str]:
        return iter(self._offsets)

    def __len__(self) -> int:
        return len(self._offsets)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._offsets

    def get_many(self, doc_ids: Sequence[str]) -> list[str]:
        # Read in file order (sequential I/O), return in the requested order.
        order = sorted(range(len(doc_ids)), key=lambda i: self._offsets.get(doc_ids[i], -1))
        out: list[str] = [""] * len(doc_ids)
        for i in order:
            out[i] = self[doc_ids[i]]
        return out

    def iter_docs(self) -> Iterator[tuple[str, str]]:
        with open(self.path, "rb") as fh:
            for raw in fh:
                if raw.strip():
                    rec = self._parse(raw, None)
                    idf = _pick(DOC_ID_FIELDS, rec, self.path, None, "doc id")
                    yield str(rec[idf]), self._record_text(rec)

    def to_frame(self) -> pd.DataFrame:
        ids, texts = zip(*self.iter_docs()) if len(self) else ((), ())
        return pd.DataFrame({DOC_ID: pd.Series(ids, dtype=str), TEXT: pd.Series(texts, dtype=str)})

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_fh"] = None
        state["_lock"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"JsonlDocStore(path={str(self.path)!r}, n={len(self)})"

