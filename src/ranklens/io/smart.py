"""The classic test collections in their original formats.

- SMART records (``.I id`` then ``.T`` title, ``.A`` author, ``.B`` bibliographic entry, ``.W``
  text, ``.X`` citations, ``.K`` keywords, ``.N`` entry info, ``.C`` categories): Cranfield
  (``cran.all.1400``, ``cran.qry``), CISI (``CISI.ALL``, ``CISI.QRY``), CACM (``cacm.all``,
  ``query.text``).
- NPL's own ``id / text lines / "/"`` records (``doc-text``, ``query-text``, ``rlv-ass``).
- Each collection's raw qrels: ``cranqrel`` (queries numbered by POSITION 1..225 in ``cran.qry``,
  codes 1 = complete answer .. 4 = minimum interest, -1 = no interest; mapped to gain
  ``5 - code`` and 0 for -1), ``CISI.REL`` and CACM ``qrels.text`` (binary), NPL ``rlv-ass``.

Text fields are whitespace-normalised (line breaks in these files are layout, not content).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DataFormatError
from ..types import DOC_ID, QUERY_ID, RELEVANCE, TEXT

__all__ = [
    "SMART_FIELD_NAMES",
    "parse_npl",
    "parse_smart",
    "read_npl",
    "read_raw_qrels",
    "read_smart",
]

PathLike = str | os.PathLike

#: Column names given to SMART field letters in :func:`read_smart` frames.
SMART_FIELD_NAMES = {"T": "title", "A": "author", "B": "bib", "W": "abstract", "X": "citations",
                     "K": "keywords", "N": "entry", "C": "categories"}
_MARKER = re.compile(r"^\.([A-Za-z])(?:[ \t]+(.*?))?[ \t]*$")
_KNOWN = set("ITABWXKNC")


def _norm(text: str) -> str:
    return " ".join(text.split())


def _read_text(path: Path, encoding: str | None) -> str:
    from ._columns import decode, default_encoding, read_bytes

    return decode(read_bytes(path), path, default_encoding(encoding))


def parse_smart(text: str, *, source: object = "<string>",
                warnings: list[str] | None = None) -> list[tuple[str, dict[str, list[str]]]]:
    """Split SMART text into records, checking every record boundary and field marker.

    Lines are split at ``\\n`` only (a form feed inside a text is content: its words are kept).

    Returns:
        ``[(id, {letter: [raw block, ...]})]`` in file order; a field that occurs twice in a
        record (several ``.A`` authors, Cranfield's duplicated ``.W``) keeps every block.
        Records with no field at all (e.g. CACM's ``.I 0`` sentinel) are dropped.

    Warnings (appended to ``warnings``): records where a field comes back (Cranfield 576 and 578
    have two ``.W`` blocks, 240 has ``.A``/``.B`` lines inside its text): kept, with the count and the
    lines, because a record that lost its ``.I`` line and holds only that field looks the same.

    Raises:
        DataFormatError: naming the line: text before the first ``.I``; a ``.I`` without an id, with
            more than one word, or with a signed number; a lower-case marker (``.i 2``); a record
            whose first field or text field (``.W``) comes back after another field (two records
            merged: a ``.I`` line is missing); a duplicate id; numeric ids out of order.
    """
    records: list[tuple[str, dict[str, list[str]]]] = []
    lines_of: list[int] = []
    current: dict[str, list[str]] | None = None
    field: str | None = None
    buf: list[str] = []
    back_at: int | None = None  # line where a field of the current record first came back
    repeated: list[tuple[str, int]] = []

    def flush() -> None:
        if current is not None and field is not None:
            current.setdefault(field, []).append("\n".join(buf))

    def close_record() -> None:
        if back_at is not None and records:
            repeated.append((records[-1][0], back_at))

    for lineno, line in enumerate(text.removesuffix("\n").split("\n"), start=1):
        line = line[:-1] if line.endswith("\r") else line
        m = _MARKER.match(line)
        if m and m.group(1).upper() in _KNOWN:
            letter, rest = m.group(1), m.group(2) or ""
            if letter.islower():
                raise DataFormatError(f"lower-case field marker '.{letter}'; SMART markers are upper-case: write "
                                      f"'.{letter.upper()}{' ' + rest if rest else ''}'", path=source, line=lineno)
            if letter == "I":
                flush()
                close_record()
                rid = rest.strip()
                if not rid:
                    raise DataFormatError(".I line without an id; write '.I <id>'", path=source, line=lineno)
                if len(rid.split()) > 1:
                    raise DataFormatError(f".I line with more than one word ({rid!r}); the id is one word: write "
                                          f"'.I {rid.split()[0]}' and put the rest under a field", path=source,
                                          line=lineno)
                if re.fullmatch(r"[+-]\d+", rid):
                    raise DataFormatError(f".I {rid}: a record id is a non-negative number or a word without a "
                                          f"sign", path=source, line=lineno)
                current = {}
                records.append((rid, current))
                lines_of.append(lineno)
                field, buf, back_at = None, [], None
            else:
                if current is None:
                    raise DataFormatError(f"field .{letter} before the first .I record", path=source, line=lineno)
                flush()
                first = next(iter(current), None)
                if current and letter == first and field is not None:
                    raise DataFormatError(
                        f"field .{letter} opens record .I {records[-1][0]} (line {lines_of[-1]}) and appears "
                        f"again here: two records are merged; a '.I <id>' line is probably missing before "
                        f"this line", path=source, line=lineno)
                if letter in current and letter != field:
                    if letter == "W":
                        at = back_at if back_at is not None else lineno
                        raise DataFormatError(
                            f"fields of record .I {records[-1][0]} (line {lines_of[-1]}) come back from line {at} "
                            f"on, .W included: two records are merged; a '.I <id>' line is probably missing "
                            f"before line {at}", path=source, line=at)
                    back_at = back_at if back_at is not None else lineno
                elif letter == field and back_at is None:
                    back_at = lineno
                field, buf = letter, ([rest] if rest else [])
            continue
        if current is None:
            if line.strip():
                raise DataFormatError(f"text before the first .I record: {line[:80]!r}", path=source, line=lineno)
            continue
        if field is not None:
            buf.append(line)
    flush()
    close_record()
    kept = [(rid, f, ln) for (rid, f), ln in zip(records, lines_of) if f]
    _check_ids(kept, source)
    if repeated and warnings is not None:
        shown = ", ".join(f".I {rid} (line {ln})" for rid, ln in repeated[:4])
        warnings.append(f"{source}: {len(repeated)} record(s) have a field that comes back ({shown}"
                        f"{', ...' if len(repeated) > 4 else ''}); its blocks are kept and joined. A record whose "
                        f"'.I' line was lost looks the same: check these lines if the count is not expected")
    return [(rid, f) for rid, f, _ in kept]


def _check_ids(records: list[tuple[str, dict, int]], source: object) -> None:
    """Unique ids; numeric ids strictly increasing (as in every classic collection)."""
    seen: dict[str, int] = {}
    numeric = all(rid.isdigit() for rid, _, _ in records)
    prev: tuple[int, str, int] | None = None
    for rid, _, ln in records:
        if rid in seen:
            raise DataFormatError(f"duplicate record id .I {rid} (first on line {seen[rid]}); ids must be unique",
                                  path=source, line=ln)
        seen[rid] = ln
        if numeric:
            if prev is not None and int(rid) <= prev[0]:
                raise DataFormatError(
                    f"record id .I {rid} comes after .I {prev[1]} (line {prev[2]}): ids out of order (a "
                    f"mislabelled or moved record?); fix the id or the order", path=source, line=ln)
            prev = (int(rid), rid, ln)


def read_smart(path: PathLike, fields: Sequence[str] = ("T", "W"), *, id_column: str = DOC_ID,
               encoding: str | None = None, strip_zeros: bool = False) -> pd.DataFrame:
    """Read a SMART file into a frame.

    Args:
        path: The file (``cran.all.1400``, ``CISI.QRY``, ...), plain or gzip.
        fields: Field letters joined (in this order, space-separated) into ``text``.
        id_column: Name of the id column (``doc_id`` or ``query_id``).
        encoding: File encoding.
        strip_zeros: Turn numeric ids like ``001`` into ``1``.

    Returns:
        Frame with ``id_column``, ``text`` and one column per field present in the file
        (``title``, ``author``, ``bib``, ``abstract``, ``keywords``, ...; repeated fields joined
        with ``"; "``), all whitespace-normalised; ``original_id`` when ``strip_zeros``.
    """
    p = Path(path)
    notes: list[str] = []
    records = parse_smart(_read_text(p, encoding), source=p, warnings=notes)
    if not records:
        raise DataFormatError("no SMART records (.I lines) found", path=p)
    present = sorted({k for _, f in records for k in f if k != "I"}, key="TABWXKNC".index)
    rows = []
    for rid, f in records:
        row = {id_column: str(int(rid)) if strip_zeros and rid.isdigit() else rid}
        if strip_zeros:
            row["original_id"] = rid
        row[TEXT] = _norm(" ".join(" ".join(f.get(k, [])) for k in fields))
        for k in present:
            if k == "X":
                continue
            sep = "; " if k == "A" else " "
            row[SMART_FIELD_NAMES.get(k, k)] = sep.join(_norm(b) for b in f.get(k, []) if b.strip())
        rows.append(row)
    out = _str_frame(rows)
    out.attrs["warnings"] = tuple(notes)
    return out


def _str_frame(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    for c in df.columns:
        df[c] = df[c].astype(str)
    return df


def parse_npl(text: str) -> list[tuple[str, str]]:
    """Split NPL text (``id`` line, text lines, a line holding only ``/``) into ``(id, text)``."""
    out: list[tuple[str, str]] = []
    lines: list[str] = []
    for line in text.removesuffix("\n").split("\n"):
        if line.strip() == "/":
            if lines:
                out.append((lines[0].strip(), "\n".join(lines[1:])))
            lines = []
        elif line.strip() or lines:
            lines.append(line)
    if any(x.strip() for x in lines):
        out.append((lines[0].strip(), "\n".join(lines[1:])))
    return out


def read_npl(path: PathLike, *, id_column: str = DOC_ID, encoding: str | None = None) -> pd.DataFrame:
    """Read NPL ``doc-text`` / ``query-text`` into ``id_column``, ``text`` (whitespace-normalised)."""
    p = Path(path)
    recs = parse_npl(_read_text(p, encoding))
    if not recs:
        raise DataFormatError("no NPL records found (expected 'id', text lines, '/')", path=p)
    seen: set[str] = set()
    for n, (rid, _) in enumerate(recs, start=1):
        if not rid or len(rid.split()) != 1:
            raise DataFormatError(f"NPL record {n}: id {rid!r} is not a single token (a '/' line missing "
                                  f"before it?)", path=p)
        if rid in seen:
            raise DataFormatError(f"NPL record {n}: duplicate id {rid!r}; ids must be unique", path=p)
        seen.add(rid)
    return _str_frame([{id_column: rid, TEXT: _norm(t)} for rid, t in recs])


def _qrels_frame(q: list[str], d: list[str], r: list[int], path: Path) -> pd.DataFrame:
    from .frames import validate_qrels

    df = pd.DataFrame({QUERY_ID: pd.Series(q, dtype=str), DOC_ID: pd.Series(d, dtype=str),
                       RELEVANCE: np.asarray(r, dtype=np.int64)})
    return validate_qrels(df, source=str(path))


def read_raw_qrels(path: PathLike, *, fmt: str, encoding: str | None = None) -> pd.DataFrame:
    """Read a classic collection's own qrels file.

    Args:
        path: The file.
        fmt: ``"cranqrel"`` (``qpos docid code``: gain = 5 - code for codes 1..4, 0 for -1),
            ``"cisi"`` (``qid docid 0 0.0``, relevance 1), ``"cacm"`` (``qid docid 0 0``,
            relevance 1) or ``"npl"`` (``rlv-ass`` records, relevance 1).

    Returns:
        qrels frame; numeric ids lose leading zeros (CACM's ``01`` -> ``1``).
    """
    p = Path(path)
    text = _read_text(p, encoding)
    qs: list[str] = []
    ds: list[str] = []
    rs: list[int] = []
    if fmt == "npl":
        for qid, body in parse_npl(text):
            for d in body.split():
                qs.append(str(int(qid)))
                ds.append(str(int(d)))
                rs.append(1)
        return _qrels_frame(qs, ds, rs, p)
    ncols = {"cranqrel": 3, "cisi": 4, "cacm": 4}.get(fmt)
    if ncols is None:
        raise DataFormatError(f"unknown raw qrels format {fmt!r}; use cranqrel, cisi, cacm or npl", path=p)
    for lineno, line in enumerate(text.split("\n"), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != ncols:
            raise DataFormatError(f"expected {ncols} columns for {fmt} qrels, found {len(parts)}: {line!r}",
                                  path=p, line=lineno)
        if not all(re.fullmatch(r"[0-9]+", x) for x in parts[:2]) or (
                fmt == "cranqrel" and not re.fullmatch(r"-?[0-9]+", parts[2])):
            raise DataFormatError(f"non-integer field in {line!r}; ids and codes are decimal integers",
                                  path=p, line=lineno)
        qid, did = str(int(parts[0])), str(int(parts[1]))
        code = int(parts[2]) if fmt == "cranqrel" else 1
        if fmt == "cranqrel":
            if code == -1:
                gain = 0
            elif 1 <= code <= 4:
                gain = 5 - code
            else:
                raise DataFormatError(f"cranqrel code {code} is not one of -1, 1, 2, 3, 4", path=p, line=lineno)
        else:
            gain = 1
        qs.append(qid)
        ds.append(did)
        rs.append(gain)
    if not qs:
        raise DataFormatError("empty qrels file", path=p)
    return _qrels_frame(qs, ds, rs, p)
