"""Whitespace-separated column files (TREC runs and qrels) into Arrow tables: fast and strict.

One reader behind every command (``read_run``, ``read_qrels``, the metrics' Arrow tables).

Format rules (one policy for every caller):

- fields are separated by runs of spaces and/or tabs; leading/trailing blanks are ignored; any
  other character (including non-breaking spaces) belongs to the field;
- a line must have exactly the layout's number of fields (run: 6, qrels: 4), so an id that
  contains a space, a missing or an extra column is an error naming the line;
- blank lines and lines whose first non-blank character is ``#`` are skipped (comments);
- ``\\r\\n`` line ends and a UTF-8 byte-order mark are accepted; a carriage return inside a
  line, a NUL byte, a UTF-16 byte-order mark or bytes that are not valid in ``encoding`` are
  errors naming the line and column;
- compression (gzip, bzip2, xz, lz4) is sniffed from the first bytes of ONE open of the path, never
  from its name; ``-`` is stdin; pipes and FIFOs are read once (rules: :mod:`ranklens.io._streams`);
  a truncated or corrupt stream is an error;
- run scores must be finite numbers (``nan``, ``NA``, ``null``, ``inf`` are errors); qrels
  relevance must be a decimal integer (:data:`GRADE`: ``1.0`` is accepted; ``0.5``, ``0x10``, ``1e1`` are not)
  within +-2,147,483,645;
- ids containing invisible characters or not in Unicode NFC are accepted and warned (with the count);
- qrels: a (query, doc) pair listed twice with the same grade is kept once (with a warning); with
  different grades it is an error naming both lines. Run duplicates are left to the caller
  (``rank_coded(duplicates=...)`` in the metrics, an error in :func:`ranklens.io.read_run`).

Strategy: a clean file (one separator kind, no CR/NUL/BOM/comments; checked by memchr searches of
a memory map, block by block, beside the parse for files from 8 MiB: ~0.06 s for 400 MB) is
parsed by pyarrow's multi-threaded CSV reader straight from disk. Anything else is decoded and normalised (separators collapsed, comments blanked, line
numbers kept) and parsed by pyarrow from memory. Only when pyarrow rejects the bytes, or a check
after parsing fails (non-finite score, out-of-range grade, conflicting qrels), is the text walked
line by line -- to name the exact line, field and fix, or, if every line is fine, to build the
table in Python.
"""

from __future__ import annotations

import codecs
import contextvars
import io
import json
import mmap
import os
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DataFormatError, ValidationError
from ._streams import _check_path, _regular_format, display_name, is_stream, read_bytes

__all__ = ["QRELS", "RUN", "Layout", "read_columns", "table_warnings"]

WARNINGS_KEY = b"ranklens.warnings"
MAX_GRADE = 2**31 - 3  # the metrics keep grades as int32 with two sentinels below -2**31 + 2
ENCODING_ENV = "RANKLENS_ENCODING"


@dataclass(frozen=True)
class Layout:
    kind: str                 # "run" or "qrels"
    names: tuple[str, ...]    # every field, in file order
    value: int                # index of the numeric field
    value_name: str           # output column of that field
    integer: bool             # integer values (qrels) or finite floats (runs)

    @property
    def spec(self) -> str:
        return " ".join(self.names)


RUN = Layout("run", ("query_id", "Q0", "doc_id", "rank", "score", "tag"), 4, "score", False)
QRELS = Layout("qrels", ("query_id", "iteration", "doc_id", "relevance"), 3, "relevance", True)


_ENCODING: contextvars.ContextVar[str | None] = contextvars.ContextVar("ranklens_encoding", default=None)


@contextmanager
def encoding_setting(encoding: str | None) -> Iterator[None]:
    """Within the block, text inputs without an explicit encoding are read with ``encoding``
    (the CLI's ``--encoding``); the environment is not touched."""
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except LookupError as exc:
            raise ValidationError(f"--encoding {encoding!r} is not a known text encoding; use a Python codec "
                                  f"name such as utf-8, latin-1 or utf-16") from exc
    token = _ENCODING.set(encoding)
    try:
        yield
    finally:
        _ENCODING.reset(token)


def default_encoding(encoding: str | None) -> str:
    """``encoding``, else the CLI's ``--encoding`` (:func:`encoding_setting`), else ``$RANKLENS_ENCODING``,
    else utf-8."""
    return encoding or _ENCODING.get() or os.environ.get(ENCODING_ENV) or "utf-8"


def _encoding_fix(example: str = "latin-1") -> str:
    return (f"pass the file's encoding (encoding='{example}' in Python, --encoding {example} on the "
            f"command line) or convert it: iconv -f {example} -t utf-8 FILE > FILE.utf8")


# ------------------------------------------------------------------------------------ bytes
# (opening, streams and compression: :mod:`ranklens.io._streams`)
def _line_col(data: bytes, pos: int) -> tuple[int, int]:
    return data.count(b"\n", 0, pos) + 1, pos - (data.rfind(b"\n", 0, pos) + 1) + 1


def _check_raw(data: bytes, p: object, encoding: str, name: str) -> None:
    """UTF-16/32 byte-order marks read as another encoding, and NUL bytes, are errors."""
    p = display_name(p)
    if data[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff") and not name.startswith("utf-32"):
        raise DataFormatError(f"the file starts with a UTF-32 byte-order mark but is read as {encoding}; "
                              + _encoding_fix("utf-32"), path=p, line=1)
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") and not name.startswith(("utf-16", "utf-32")):
        raise DataFormatError(f"the file starts with a UTF-16 byte-order mark but is read as {encoding}; "
                              + _encoding_fix("utf-16"), path=p, line=1)
    if not name.startswith(("utf-16", "utf-32")):
        nul = data.find(b"\x00")
        if nul >= 0:
            line, col = _line_col(data, nul)
            raise DataFormatError(f"NUL byte at column {col}: this is a binary file, not text (or UTF-16: "
                                  + _encoding_fix("utf-16") + ")", path=p, line=line)


def decode(data: bytes, p: object, encoding: str) -> str:
    """Decode ``data`` strictly: UTF-16/32 marks, NUL bytes and invalid bytes give located errors;
    a UTF-8 byte-order mark is dropped."""
    _check_raw(data, p, encoding, _codec(encoding, p))
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line, col = _line_col(data, exc.start)
        raise DataFormatError(f"byte {data[exc.start:exc.end]!r} at column {col} is not valid {encoding}; "
                              + _encoding_fix(), path=display_name(p), line=line) from None
    return text[1:] if text.startswith("\ufeff") else text


# ------------------------------------------------------------------------------------ arrow
def _scan_clean(p: Path, sep: bytes, chunk: int = 1 << 18) -> bool:
    """True when the file needs no normalisation: only ``sep`` separates fields, no CR, NUL,
    byte-order mark or comment line. Single-byte memchr searches over a memory map, all four
    on one 256 KiB block before the next (the block stays in the CPU cache: 2x faster than four
    passes over the whole file, measured on a 400 MB run); written by hand because no library
    scans bytes for several characters without a copy."""
    other = b"\t" if sep == b" " else b" "
    with open(p, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        if mm[:1] in (b"#", b"\xef", b"\xff", b"\xfe", b" ", b"\t"):
            return False
        find, size = mm.find, len(mm)
        for start in range(0, size, chunk):
            end = min(size, start + chunk)
            if find(other, start, end) >= 0 or find(b"\r", start, end) >= 0 or find(b"\x00", start, end) >= 0:
                return False
            if find(b"#", start, end) >= 0 and find(b"\n#", max(start - 1, 0), end) >= 0:
                return False
        return True


def _first_sep(p: Path) -> bytes:
    with open(p, "rb") as fh:
        for raw in fh:
            if raw.strip():
                return b"\t" if b"\t" in raw else b" "
    return b" "


def _size(source: Any) -> int:
    """Bytes of a path or an in-memory buffer (``io.BytesIO``)."""
    if isinstance(source, io.BytesIO):
        return len(source.getbuffer())
    return os.stat(source).st_size


def _arrow(source: Any, layout: Layout, sep: bytes):
    import pyarrow as pa
    from pyarrow import csv

    names = list(layout.names)
    keep = ["query_id", "doc_id", names[layout.value]]
    # grades are read as text and checked by _post_check (pyarrow's int64 parser takes 0x10 as 16)
    vtype = pa.string() if layout.integer else pa.float64()
    types = {"query_id": pa.string(), "doc_id": pa.string(), names[layout.value]: vtype}
    size = _size(source)
    if isinstance(source, str):  # a path: opened without pyarrow's compression-by-suffix guess
        source = pa.input_stream(source, compression=None)
    try:
        table = csv.read_csv(
            source,
            # 4 MiB blocks: 16 MiB blocks read ~10% faster but leave ~130 MB more resident; one
            # thread below 8 MiB (as fast there, ~10 MB less peak: no per-thread parse buffers)
            read_options=csv.ReadOptions(column_names=names, block_size=1 << 22,
                                         use_threads=size >= 1 << 23),
            parse_options=csv.ParseOptions(delimiter=sep.decode(), quote_char=False, escape_char=False,
                                           newlines_in_values=False),
            convert_options=csv.ConvertOptions(column_types=types, include_columns=keep, null_values=[],
                                               strings_can_be_null=False, quoted_strings_can_be_null=False,
                                               true_values=[], false_values=[]),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        pa.default_memory_pool().release_unused()
        return None
    if names[layout.value] != layout.value_name:
        table = table.rename_columns(["query_id", "doc_id", layout.value_name])
    pa.default_memory_pool().release_unused()  # hand the parser's freed buffers back to the OS
    return table


_COMMENT = re.compile(rb"^#[^\n]*", re.M)


def _normalise(data: bytes) -> bytes | None:
    """UTF-8 bytes with one space between fields, no blanks at line edges and comment lines
    blanked (line numbers kept); ``None`` when a carriage return sits inside a line."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
        if b"\r" in data:
            return None
    if b"\t" in data:
        data = data.replace(b"\t", b" ")
    while b"  " in data:
        data = data.replace(b"    ", b" ").replace(b"  ", b" ")
    data = data.replace(b"\n ", b"\n").replace(b" \n", b"\n")
    if data.startswith(b" "):
        data = data[1:]
    if data.startswith(b"#") or b"\n#" in data:
        data = _COMMENT.sub(b"", data)
    return data


#: The one grade rule: a decimal integer (an optional sign, ASCII digits; ``1.0`` is accepted as 1).
#: ``0x10``, ``1e1``, ``1_0`` and non-ASCII digits are refused, in qrels as in run scores.
GRADE = re.compile(r"[+-]?[0-9]+(?:\.0*)?")


def _post_check(table, layout: Layout):
    """Checks pyarrow cannot make while parsing: finite scores; grades that follow :data:`GRADE`,
    converted to int64 and within range. The table, or ``None`` when a check fails."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if table.num_rows == 0:
        if layout.integer:
            return table.set_column(2, layout.value_name, pa.array([], pa.int64()))
        return table
    col = table.column(layout.value_name)
    if layout.integer:
        if pc.all(pc.ascii_is_decimal(col)).as_py():  # plain digits (the usual qrels): GRADE, nothing to strip
            digits = col
        elif not pc.all(pc.match_substring_regex(col, "^" + GRADE.pattern + "$")).as_py():
            return None
        else:
            digits = pc.replace_substring_regex(pc.replace_substring_regex(col, r"\.0*$", ""), r"^\+", "")
        try:
            ints = pc.cast(digits, pa.int64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
        mm = pc.min_max(ints).as_py()
        if not (-MAX_GRADE <= mm["min"] and mm["max"] <= MAX_GRADE):
            return None
        return table.set_column(2, layout.value_name, ints)
    return table if bool(pc.all(pc.is_finite(col)).as_py()) else None


# ------------------------------------------------------------------------------------ lines
def _fields_error(parts: list[str], line: str, layout: Layout) -> str:
    n, want = len(parts), len(layout.names)
    msg = (f"expected {want} fields ({layout.spec}) separated by spaces or tabs, found {n}: {line[:120]!r}; ")
    if layout.kind == "qrels" and n == 6:
        return msg + "this looks like a run line -- are the run and qrels arguments swapped?"
    if layout.kind == "run" and n == 4:
        return msg + "this looks like a qrels line -- are the run and qrels arguments swapped?"
    if n > want:
        return msg + "an id containing a space or an extra column; ids cannot contain blanks (replace them, e.g. with '_')"
    return msg + "a column is missing; every line needs all of them"


def _value(raw: str, layout: Layout, lineno: int, p: object) -> float | int:
    field = f"{layout.value_name} {raw!r} (field {layout.value + 1})"
    if "_" in raw or not raw.isascii():  # Python reads 1_000 and non-ASCII digits; C and pyarrow do not
        raw = "not a number"
    if layout.integer:
        if not GRADE.fullmatch(raw):
            raise DataFormatError(f"{field} is not an integer grade; relevance must be a whole decimal "
                                  f"number such as 0, 1 or 2 (as trec_eval reads it: no 0x.., 1e1 or 0.5)",
                                  path=p, line=lineno)
        v = int(raw.split(".")[0])
        if not -MAX_GRADE <= v <= MAX_GRADE:
            raise DataFormatError(f"{field} is out of range (|grade| <= {MAX_GRADE:,}); "
                                  f"use small integer grades", path=p, line=lineno)
        return v
    try:
        v = float(raw)
    except ValueError:
        raise DataFormatError(f"{field} is not a number; every document needs a numeric score",
                              path=p, line=lineno) from None
    if v != v or v in (float("inf"), float("-inf")):
        raise DataFormatError(f"{field} is not a finite number (NaN/infinite scores would silently "
                              f"reorder the ranking); give every document a real score or drop the line",
                              path=p, line=lineno)
    return v


def iter_lines(source: Any, p: object, encoding: str = "utf-8") -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a text (split at ``\\n`` only, never at form feeds or U+2028) or of
    an iterable of raw byte lines (an open binary file, ``io.BytesIO``), decoded line by line so
    that no second copy of a big file is held; a trailing ``\\r`` stays on the line."""
    if isinstance(source, str):
        start, n, size = 0, 1, len(source)
        while start <= size:
            end = source.find("\n", start)
            if end < 0:
                end = size
            yield n, source[start:end]
            start, n = end + 1, n + 1
        return
    for n, raw in enumerate(source, start=1):
        if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        try:
            line = raw.decode(encoding)
        except UnicodeDecodeError as exc:
            raise DataFormatError(f"byte {raw[exc.start:exc.end]!r} at column {exc.start + 1} is not valid "
                                  f"{encoding}; " + _encoding_fix(), path=display_name(p), line=n) from None
        yield n, line


def walk(text: Any, p: object, layout: Layout, *, run_duplicates: bool = False, encoding: str = "utf-8",
         keep: bool = True):
    """Parse ``text`` (a string, or raw byte lines: :func:`iter_lines`) line by line; raise at the
    first bad line (file, line, field, fix).

    Returns ``(query_ids, doc_ids, values, warnings)``; qrels duplicates with the same grade are
    dropped (warned), conflicting ones raise; with ``run_duplicates`` a run pair listed twice
    raises naming both lines. ``keep=False`` only checks (nothing is kept: a bad last line of a
    big file is found without a second copy of it in memory).
    """
    p = display_name(p)
    qs: list[str] = []
    ds: list[str] = []
    vs: list[Any] = []
    seen: dict[tuple[str, str], tuple[int, Any]] = {}
    dropped: list[tuple[int, int]] = []
    track = layout.integer or run_duplicates
    for lineno, line in iter_lines(text, p, encoding):
        if line.endswith("\r"):
            line = line[:-1]
        if "\r" in line:
            raise DataFormatError("carriage return inside the line (old Mac line ends?); convert the file "
                                  "to \\n line ends (e.g. dos2unix / mac2unix)", path=p, line=lineno)
        s = line.strip(" \t")
        if not s or s.startswith("#"):
            continue
        parts = [x for x in s.replace("\t", " ").split(" ") if x]
        if len(parts) != len(layout.names):
            raise DataFormatError(_fields_error(parts, line, layout), path=p, line=lineno)
        v = _value(parts[layout.value], layout, lineno, p)
        key = (parts[0], parts[2])
        if track:
            prev = seen.get(key)
            if prev is not None:
                if layout.integer and prev[1] == v:
                    dropped.append((prev[0], lineno))
                    continue
                what = (f"with grade {prev[1]} on line {prev[0]} and grade {v} here; keep the right one"
                        if layout.integer else f"also on line {prev[0]}; a run lists each document once per query")
                raise DataFormatError(f"duplicate (query_id, doc_id) = {key} {what}", path=p, line=lineno)
            seen[key] = (lineno, v)
        if keep:
            qs.append(parts[0])
            ds.append(parts[2])
            vs.append(v)
    warnings = []
    if dropped:
        first = dropped[0]
        warnings.append(f"{p}: {len(dropped)} duplicate qrels line(s) with the same grade ignored "
                        f"(e.g. line {first[1]} repeats line {first[0]})")
    return qs, ds, vs, warnings


def _walk_table(text: Any, p: object, layout: Layout, encoding: str = "utf-8"):
    import pyarrow as pa

    qs, ds, vs, warnings = walk(text, p, layout, encoding=encoding)
    vtype = pa.int64() if layout.integer else pa.float64()
    table = pa.table({"query_id": pa.array(qs, pa.string()), "doc_id": pa.array(ds, pa.string()),
                      layout.value_name: pa.array(vs, vtype)})
    return table, warnings


# ------------------------------------------------------------------------------------ qrels
_MIX1, _MIX2, _MIX3 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9


def _chunk_sketch(arr) -> Any:
    """:func:`_sketch` of one Arrow string array, read in place (no copy of its buffers)."""
    import numpy as np
    import pyarrow as pa

    wide = pa.types.is_large_string(arr.type)
    offsets = np.frombuffer(arr.buffers()[1], np.int64 if wide else np.int32, count=len(arr) + 1,
                            offset=arr.offset * (8 if wide else 4)).astype(np.int64)
    buf = arr.buffers()[2]
    raw = np.frombuffer(buf, np.uint8) if buf is not None else np.zeros(0, np.uint8)
    if raw.size < 8:
        raw = np.concatenate([raw, np.zeros(8 - raw.size, np.uint8)])
    size, eight = raw.size, np.uint64(8)
    # the 8 bytes starting at every byte offset, as one overlapping (1-byte stride) view: a gather
    # per string, no strings x 8 index matrix
    words = np.ndarray((size - 7,), dtype="<u8", buffer=raw, strides=(1,))
    start, end = offsets[:-1], offsets[1:]
    length = (end - start).astype(np.uint64)
    # a word that would run past either end of the buffer is read at the edge and shifted, so
    # the bytes outside the buffer come out as zeros (numpy shifts by >= 64 bits give 0)
    at = np.minimum(start, size - 8)
    head = words[at] >> ((start - at).astype(np.uint64) * eight)
    at = np.maximum(end - 8, 0)
    tail = words[at] << ((at - (end - 8)).astype(np.uint64) * eight)
    nbits = length * eight
    head &= (np.uint64(1) << nbits) - np.uint64(1)  # a short string's bytes only
    tail >>= np.where(length < eight, np.uint64(64) - nbits, np.uint64(0))
    with np.errstate(over="ignore"):
        return (head * np.uint64(_MIX1)) ^ (tail * np.uint64(_MIX2)) ^ length


def _sketch(col) -> Any:
    """Per string: a 64-bit mix of its length and its first and last 8 bytes (two vectorised
    gathers over the Arrow buffers). Equal strings give equal sketches; rows whose sketches
    differ are certainly different, the rest are compared exactly by the caller. Written by
    hand: Arrow exposes no string hash to Python and its hash kernels (``dictionary_encode``,
    ``unique``) cost ~4x more on a million ids."""
    import numpy as np
    import pyarrow as pa

    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    parts = [_chunk_sketch(c) for c in chunks if len(c)]
    return np.concatenate(parts) if parts else np.zeros(0, np.uint64)


def _exact_codes(col) -> Any:
    """int64 per row, equal exactly where the strings are equal. Only the first row of each
    run of equal neighbours is hashed (qrels list a query's lines together: ~2 runs per query
    instead of a row each)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(col)
    if n == 0:
        return np.zeros(0, np.int64)
    change = pc.not_equal(col.slice(1), col.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    heads = np.concatenate([[0], np.flatnonzero(change) + 1])
    head_ids = col.take(pa.array(heads))
    if isinstance(head_ids, pa.ChunkedArray):  # one array, so one dictionary for all rows
        head_ids = head_ids.combine_chunks()
    run_code = pc.dictionary_encode(head_ids).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    return np.repeat(run_code, np.diff(np.append(heads, n)))


def _pair_keys(table) -> Any:
    """Per row a 64-bit key of its (query, doc) pair: the query's exact code mixed with the doc
    id's sketch. Equal pairs give equal keys."""
    import numpy as np

    codes = _exact_codes(table.column("query_id"))
    with np.errstate(over="ignore"):
        mixed = _sketch(table.column("doc_id")) ^ (codes.astype(np.uint64) * np.uint64(_MIX3))
        return mixed * np.uint64(_MIX1)  # spreads every bit into the top ones


def _shared_bucket(bucket, bits: int) -> Any:
    """bool per row: another row falls in its bucket (a bool table: 8x less to gather from)."""
    import numpy as np

    return (np.bincount(bucket, minlength=1 << bits) > 1)[bucket]


def _repeated_keys(keys) -> Any:
    """Rows whose key occurs more than once. Two counting passes, over the keys' top bits and
    then the candidates' low bits (about 2 buckets per row each), rule out most rows; only
    the few left are sorted (a sort of every key cost as much as the qrels parse itself)."""
    import numpy as np

    def bits(n: int) -> int:
        return int(min(max(np.ceil(np.log2(max(n, 2))) + 1, 8), 25))

    b = bits(keys.size)
    cand = np.flatnonzero(_shared_bucket((keys >> np.uint64(64 - b)).astype(np.intp), b))
    sub = keys[cand]
    if sub.size > 1024:
        b = bits(sub.size)
        keep = np.flatnonzero(_shared_bucket((sub & np.uint64((1 << b) - 1)).astype(np.intp), b))
        cand, sub = cand[keep], sub[keep]
    srt = np.sort(sub)
    dup = srt[1:][srt[1:] == srt[:-1]]
    if dup.size == 0:
        return cand[:0]
    return cand[np.isin(sub, dup)]


def _qrels_duplicates(table, locate, p: object):
    """Drop repeated (query, doc) pairs with the same grade (warned); conflicting grades raise."""
    import numpy as np
    import pyarrow as pa

    if table.num_rows < 2:
        return table, []
    cand = _repeated_keys(_pair_keys(table))
    if cand.size == 0:
        return table, []
    sub = table.take(pa.array(cand))
    pairs = list(zip(sub.column("query_id").to_pylist(), sub.column("doc_id").to_pylist()))
    grades = sub.column("relevance").to_pylist()
    seen: dict[tuple[str, str], int] = {}
    drop: list[int] = []
    for row, pair, grade in zip(cand.tolist(), pairs, grades):
        if pair in seen:
            if seen[pair] != grade:
                locate()  # raises, naming both lines
            drop.append(row)
        else:
            seen[pair] = grade
    if not drop:
        return table, []
    keep = np.setdiff1d(np.arange(table.num_rows), np.asarray(drop))
    qd = (table.column("query_id")[drop[0]].as_py(), table.column("doc_id")[drop[0]].as_py())
    return table.take(pa.array(keep)), [f"{display_name(p)}: {len(drop)} duplicate qrels line(s) with the same grade ignored "
                                        f"(e.g. (query_id, doc_id) = {qd})"]


# ------------------------------------------------------------------------------------ entry
def _with_warnings(table, warnings: list[str]):
    meta = dict(table.schema.metadata or {})
    meta[WARNINGS_KEY] = json.dumps(list(warnings)).encode()
    return table.replace_schema_metadata(meta)


def table_warnings(obj: Any) -> tuple[str, ...]:
    """Warnings a reader attached to an Arrow table (schema metadata) or a frame (``attrs``)."""
    attrs = getattr(obj, "attrs", None)
    if isinstance(attrs, dict):
        return tuple(attrs.get("warnings", ()))
    schema = getattr(obj, "schema", None)
    meta = getattr(schema, "metadata", None) or {}
    raw = meta.get(WARNINGS_KEY)
    return tuple(json.loads(raw)) if raw else ()


_OVERLAP_BYTES = 1 << 23  # files from 8 MiB: scan and parse side by side


def _fast(p: Path, layout: Layout):
    """The clean-file path: pyarrow straight from disk. ``(table, False)``; ``(None, False)`` when the
    file needs normalising; ``(None, True)`` when a clean file is refused by pyarrow or the checks
    (then only a line-by-line walk can name the line)."""
    sep = _first_sep(p)
    if p.stat().st_size < _OVERLAP_BYTES:
        if not _scan_clean(p, sep):
            return None, False
        table = _arrow(str(p), layout, sep)
    else:
        # the scan (memchr, holding the GIL) runs beside pyarrow's parse (which releases it):
        # 5-8% off a 400 MB run on two cores; a file that is not clean wastes the parse and
        # takes the normalising path as before
        with ThreadPoolExecutor(1) as pool:
            clean = pool.submit(_scan_clean, p, sep)
            table = _arrow(str(p), layout, sep)
            if not clean.result():
                return None, False
    if table is not None:
        table = _post_check(table, layout)
    return table, table is None


_INVISIBLE = re.compile("[\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000\ufeff]")


def id_surprise(value: str) -> str | None:
    """What is surprising about an id that the readers accept: invisible or unusual blank characters,
    or a form that is not Unicode NFC (``'e\\u0301'`` and ``'\\u00e9'`` look alike and never match)."""
    import unicodedata

    if value.isascii():
        return None
    m = _INVISIBLE.search(value)
    if m:
        return f"an invisible or unusual blank character U+{ord(m.group()):04X}"
    if unicodedata.normalize("NFC", value) != value:
        return "a form that is not Unicode NFC"
    return None


def id_warnings(ids: Any, what: str, source: object) -> list[str]:
    """One warning (with the count) for the ids of ``ids`` (strings) that :func:`id_surprise` flags."""
    bad = [(i, why) for i in dict.fromkeys(ids) if (why := id_surprise(i)) is not None]
    if not bad:
        return []
    return [f"{display_name(source)}: {len(bad)} {what}(s) contain surprises that match no look-alike id in "
            f"other files (e.g. {bad[0][0]!r}: {bad[0][1]}); normalise them (unicodedata.normalize('NFC', id), "
            f"drop zero-width characters) if that is not intended"]


def _table_id_warnings(table, p: object) -> list[str]:
    import pyarrow.compute as pc

    out = []
    for col in ("query_id", "doc_id"):
        c = table.column(col)
        ascii_ = pc.string_is_ascii(c)
        if pc.all(ascii_).as_py():
            continue
        out += id_warnings(pc.unique(c.filter(pc.invert(ascii_))).to_pylist(), col, p)
    return out


def locate(p: Path, layout: Layout, *, encoding: str | None = None, data: bytes | None = None,
           run_duplicates: bool = False) -> None:
    """Walk an input line by line, raising at its first bad line; nothing is kept (a regular file is
    read from disk line by line). ``data``: the bytes of a stream already read."""
    enc = default_encoding(encoding)
    name = display_name(p)
    if _codec(enc, name) != "utf-8":
        raw = data if data is not None else read_bytes(p, layout.kind)
        walk(decode(raw, p, enc), p, layout, run_duplicates=run_duplicates, keep=False)
    elif data is not None or _regular_format(p) is not None:
        raw = data if data is not None else read_bytes(p, layout.kind)
        _check_raw(raw, p, enc, "utf-8")
        walk(io.BytesIO(raw), p, layout, run_duplicates=run_duplicates, encoding=enc, keep=False)
    else:
        with open(p, "rb") as fh:
            head = fh.read(4)
            fh.seek(0)
            _check_raw(head, p, enc, "utf-8")
            walk(fh, p, layout, run_duplicates=run_duplicates, encoding=enc, keep=False)


def read_columns(path: str | os.PathLike[str], layout: Layout, *, encoding: str | None = None,
                 data: bytes | None = None):
    """Read a run or qrels file into ``pyarrow.Table`` (``query_id``, ``doc_id`` strings and
    ``score`` float64 / ``relevance`` int64) under the rules of this module; reader warnings are
    in the schema metadata (:func:`table_warnings`).

    ``path`` may be ``-`` (stdin), a pipe or a FIFO: such a stream is read once, into memory
    (``data``: its bytes, when the caller has read them already). A regular, uncompressed UTF-8
    file is parsed from disk. When a line is bad, the file is walked once more line by line to
    name it, without holding a second copy."""
    p = Path(path)
    name = display_name(p)
    _check_path(p, layout.kind)
    enc = default_encoding(encoding)
    utf8 = _codec(enc, name) == "utf-8"
    if data is None and is_stream(p):
        data = read_bytes(p, layout.kind)
    table = None
    rejected = False
    if data is None:
        if utf8 and _regular_format(p) is None and p.stat().st_size:
            table, rejected = _fast(p, layout)
        if table is None and not rejected:
            data = read_bytes(p, layout.kind)
    text: str | None = None
    warnings: list[str] = []
    walked = False
    if table is None:
        if not rejected:
            if utf8:  # pyarrow validates the UTF-8 of the id columns itself
                _check_raw(data, p, enc, "utf-8")
                norm = _normalise(data)
            else:
                text = decode(data, p, enc)
                norm = _normalise(text.encode("utf-8"))
            if norm is not None:
                table = _arrow(io.BytesIO(norm), layout, b" ")
                if table is not None:
                    table = _post_check(table, layout)
            del norm
        if table is None:
            # name the bad line without keeping anything, then (rarely: every line is fine but
            # pyarrow refused the bytes) build the table in Python
            locate(p, layout, encoding=enc, data=data if text is None else text.encode(enc))
            if text is not None:
                source: Any = text
            elif data is not None:
                source = io.BytesIO(data)
            else:
                source = open(p, "rb")  # noqa: SIM115 -- closed below
            try:
                table, warnings = _walk_table(source, p, layout, enc)
            finally:
                if not isinstance(source, (str, io.BytesIO)):
                    source.close()
            walked = True
    if table.num_rows == 0:
        raise DataFormatError(f"empty file: no {layout.kind} lines (only blank or comment lines, if any); "
                              f"expected lines of '{layout.spec}'", path=name)
    if layout.integer and not walked:
        table, warnings = _qrels_duplicates(
            table, lambda: locate(p, layout, encoding=enc, data=data if text is None else text.encode(enc)), p)
    warnings = [*warnings, *_table_id_warnings(table, p)]
    return _with_warnings(table, warnings)


def located_text(path: str | os.PathLike[str], kind: str = "input", encoding: str | None = None) -> str:
    """The decoded text of a file (for re-walking it to name a line)."""
    p = Path(path)
    return decode(read_bytes(p, kind), p, default_encoding(encoding))


def _codec(enc: str, p: object) -> str:
    try:
        return codecs.lookup(enc).name
    except LookupError:
        raise DataFormatError(f"unknown encoding {enc!r}; use e.g. 'utf-8' or 'latin-1'", path=p) from None
