"""Reading a saved result back, checked: ``result.json`` against its schema, each table against
the column types ``result.json`` declares for it, and both against the digest written with them.

What a tampered or damaged result gives (never a traceback, never a silently different number):

- ``result.json`` that is not UTF-8, not JSON, nested deeper than :data:`MAX_DEPTH`, holds a
  ``NaN`` (ranklens writes a missing number as ``null``), misses a key or has a key of the wrong
  type: a :class:`~ranklens.errors.DataFormatError` naming the file, the key path and the fix;
- a table file that is missing, not gzip, truncated, ragged (a row with more or fewer fields
  than the header), whose columns differ from the declared ones, or whose values do not fit the
  declared type (text in a number column, ``maybe`` in a boolean one): a located error (file,
  row/line, column);
- a result whose summary, provenance, warnings or tables were changed after ranklens wrote them
  (every value still well-typed): it loads, with a warning saying so (the digest
  ``result.json["digest"]`` no longer matches); the CLI and the report show the warning.

``schema_version`` 1 (results saved before the digest) is read without the digest check.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import re
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .declare import SUMMARY_TYPES, summary_type_problem
from .errors import DataFormatError

__all__ = ["EDITED", "MAX_DEPTH", "SCHEMA_VERSION", "SUMMARY_TYPES", "check_summary", "content_digest",
           "edited_warning", "read_meta", "read_table", "summary_type_problem"]

SCHEMA_VERSION = 2  # 2: result.json carries "digest"; 1: written before it (read without the check)
MAX_DEPTH = 64      # nesting of result.json (ranklens writes at most ~6 levels)

_FIX = "the file was edited or damaged; re-run the analysis that wrote it (or restore the file)"
_TOP: dict[str, tuple[type, ...]] = {"schema_version": (int,), "kind": (str,), "summary": (dict,),
                                      "provenance": (dict,), "tables": (dict,), "warnings": (list,)}
_PROVENANCE: dict[str, tuple[type, ...]] = {
    "ranklens_version": (str,), "created_utc": (str,), "params": (dict,), "components": (dict,),
    "inputs": (dict,), "seed": (int, type(None)), "environment": (dict,), "component_params": (dict,),
    "analysis_params": (dict,)}
_PROVENANCE_REQUIRED = ("ranklens_version", "created_utc")
_DIGESTED = ("schema_version", "kind", "summary", "provenance", "tables", "warnings")

_INT = re.compile(r"^(u?int|U?Int)(8|16|32|64)$")
_FLOAT = re.compile(r"^[Ff]loat(16|32|64)$")
_STR = ("object", "str", "string")  # read as text, as written
_OTHER = re.compile(r"^(category|datetime64.*|timedelta64.*|period.*|interval.*)$")  # read as pandas infers


class _NaN:
    """Stands for a ``NaN`` literal while the JSON is parsed (located afterwards)."""


def _type_name(v: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "null"}.get(type(v), type(v).__name__)


def _want(types: tuple[type, ...]) -> str:
    return " or ".join(_type_name(t()) if t is not type(None) else "null" for t in types)


def _is(v: Any, types: tuple[type, ...]) -> bool:
    if isinstance(v, bool) and bool not in types:
        return False  # JSON true is not an integer here
    return isinstance(v, types)


def _walk(meta: Any, path: Path) -> None:
    """Depth and NaN check without recursion (a deep file must not overflow the stack)."""
    stack: list[tuple[Any, str, int]] = [(meta, "", 0)]
    while stack:
        obj, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DataFormatError(f"{where or 'the top level'}: nested more than {MAX_DEPTH} levels deep (ranklens "
                                  f"writes a few); {_FIX}", path=path)
        if isinstance(obj, _NaN):
            raise DataFormatError(f"{where}: NaN is not a value ranklens writes (a missing number is null); {_FIX}",
                                  path=path)
        if isinstance(obj, dict):
            stack += [(v, f"{where}.{k}" if where else str(k), depth + 1) for k, v in obj.items()]
        elif isinstance(obj, list):
            stack += [(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(obj)]


def read_meta(path: Path) -> dict[str, Any]:
    """``result.json`` parsed and checked (see module docstring)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataFormatError(f"cannot read it ({exc.strerror or exc}); check its permissions", path=path) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataFormatError(f"not UTF-8 text (byte {raw[exc.start]:#04x} at offset {exc.start}); {_FIX}",
                              path=path) from None
    try:
        meta = json.loads(text, parse_constant=lambda c: _NaN() if c == "NaN" else float(c))
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"invalid JSON: {exc}", path=path, line=exc.lineno) from None
    except RecursionError:
        raise DataFormatError(f"nested more deeply than JSON can be read (more than {MAX_DEPTH} levels is never "
                              f"written by ranklens); {_FIX}", path=path) from None
    if not isinstance(meta, dict):
        raise DataFormatError(f"the top level is {_type_name(meta)}, not an object: not a ranklens result; {_FIX}",
                              path=path)
    _walk(meta, path)
    _check_keys(meta, _TOP, "", path, required=tuple(_TOP))
    version = meta["schema_version"]
    if version > SCHEMA_VERSION or version < 1:
        raise DataFormatError(f"schema_version {version} is not one this ranklens reads (1 to {SCHEMA_VERSION}); "
                              f"a newer ranklens wrote it: upgrade ranklens (pip install -U ranklens)", path=path)
    if version >= 2 and not isinstance(meta.get("digest"), str):
        raise DataFormatError(f"digest: missing or not a string (schema_version {version} results carry one); "
                              f"{_FIX}", path=path)
    if not meta["kind"].strip():
        raise DataFormatError(f"kind: empty; {_FIX}", path=path)
    _check_keys(meta["provenance"], _PROVENANCE, "provenance", path, required=_PROVENANCE_REQUIRED)
    for name, schema in meta["tables"].items():
        if not isinstance(schema, dict):
            raise DataFormatError(f"tables.{name}: {_type_name(schema)}, expected an object of column -> type; "
                                  f"{_FIX}", path=path)
        for col, dtype in schema.items():
            if not isinstance(dtype, str) or not (_INT.match(dtype) or _FLOAT.match(dtype) or dtype in _STR
                                                  or _OTHER.match(dtype) or dtype in ("bool", "boolean")):
                raise DataFormatError(f"tables.{name}.{col}: {dtype!r} is not a column type ranklens writes; "
                                      f"{_FIX}", path=path)
    for i, w in enumerate(meta["warnings"]):
        if not isinstance(w, str):
            raise DataFormatError(f"warnings[{i}]: {_type_name(w)}, expected a string; {_FIX}", path=path)
    return meta


def _check_keys(obj: dict[str, Any], spec: Mapping[str, tuple[type, ...]], where: str, path: Path, *,
                required: tuple[str, ...]) -> None:
    for key in required:
        if key not in obj:
            raise DataFormatError(f"{where + '.' if where else ''}{key}: missing; {_FIX}", path=path)
    for key, types in spec.items():
        if key in obj and not _is(obj[key], types):
            raise DataFormatError(f"{where + '.' if where else ''}{key}: {_type_name(obj[key])}, expected "
                                  f"{_want(types)}; {_FIX}", path=path)


# --------------------------------------------------------------------------- declared summary values
# SUMMARY_TYPES and summary_type_problem live in ranklens.declare (light: `ranklens --help` builds the
# declarations without importing pandas, which this module needs)
_SCALAR: dict[str, tuple[type, ...]] = {"number": (int, float), "integers": (int,), "integer": (int,),
                                        "numbers": (int, float), "text": (str,), "boolean": (bool,),
                                        "list": (list,), "object": (dict,)}
_NOUN = {"number": "a number", "integer": "an integer", "text": "a string", "boolean": "a boolean",
         "list": "a list", "object": "an object", "numbers": "a number", "integers": "an integer"}


def _value_ok(v: Any, noun: str, *, null: bool) -> bool:
    if v is None:
        return null
    return _is(v, _SCALAR[noun])


def check_summary(summary: Mapping[str, Any], declared: Mapping[str, str], path: Path, kind: str) -> None:
    """Each summary value the kind declares (``ResultKind.summary``: key -> type) has that type when
    present; else a :class:`~ranklens.errors.DataFormatError` naming the file, the key and the fix
    (a report would show a wrong-typed value without a word, or fail on it)."""
    for key, spec in declared.items():
        if key not in summary:
            continue
        v = summary[key]
        base, null = spec.removesuffix("?"), spec.endswith("?")
        outer, _, inner = base.partition(" of ")
        want = _NOUN[outer] + (f" of {inner}" if inner else "") + (" or null" if null else "")
        bad: str | None = None
        if not _value_ok(v, outer, null=null):
            bad = _type_name(v) + (f" ({json.dumps(v)[:40]})" if isinstance(v, (str, int, float)) else "")
        elif inner and v is not None:
            items = v.items() if isinstance(v, dict) else enumerate(v)
            nullable = inner in ("numbers",)
            for k, x in items:
                if not _value_ok(x, inner, null=nullable):
                    key = f"{key}[{k!r}]" if isinstance(v, dict) else f"{key}[{k}]"
                    bad = _type_name(x) + (f" ({json.dumps(x)[:40]})" if isinstance(x, (str, int, float)) else "")
                    want = _NOUN[inner] + (" or null" if nullable else "")
                    break
        if bad is not None:
            raise DataFormatError(f"summary.{key}: {bad}, expected {want} (result kind {kind!r} declares it); "
                                  f"{_FIX}", path=path)


# --------------------------------------------------------------------------- digest
def content_digest(meta: Mapping[str, Any], tables: Mapping[str, bytes]) -> str:
    """SHA-256 over what a reader trusts: the digested keys of ``meta`` (canonical JSON) and the
    bytes of every table file."""
    h = hashlib.sha256()
    body = {k: meta.get(k) for k in _DIGESTED}
    h.update(json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode())
    for name in sorted(tables):
        h.update(f"\0{name}\0".encode())
        h.update(hashlib.sha256(tables[name]).digest())
    return "sha256:" + h.hexdigest()


EDITED = "edited after ranklens saved it"  # the words of the warning below (the CLI looks for them)


def edited_warning(path: Path) -> str:
    return (f"{path}: {EDITED} (its digest no longer matches the summary, provenance, "
            f"warnings and tables): the numbers shown may not be the ones computed; re-run the analysis for "
            f"trusted numbers")


# --------------------------------------------------------------------------- tables
def read_table(path: Path, schema: Mapping[str, str]) -> tuple[pd.DataFrame, bytes]:
    """(the table, its file's bytes), checked against ``schema`` (column -> dtype name)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DataFormatError(f"table file missing; the result is incomplete: re-run the analysis that wrote it, "
                              f"or delete the result directory {path.parent}", path=path) from None
    except OSError as exc:
        raise DataFormatError(f"cannot read the table ({exc.strerror or exc}); a file is needed here", path=path
                              ) from None
    try:
        data = gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:
        what = "truncated gzip" if isinstance(exc, EOFError) else f"not a gzip file ({exc})"
        raise DataFormatError(f"{what}; {_FIX}", path=path) from None
    cols = list(schema)
    if not data.strip(b"\n") and not cols:
        return pd.DataFrame(), raw  # an empty table is written as one blank line
    if not data:
        raise DataFormatError(f"empty table file (no header); {_FIX}", path=path)
    _check_fields(data, cols, path)
    str_cols = [c for c, t in schema.items() if t in _STR]
    try:
        frame = pd.read_csv(io.BytesIO(data), sep="\t", dtype={c: str for c in str_cols},
                            keep_default_na=False, na_values=[""])
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise DataFormatError(f"cannot be read as a table ({exc}); {_FIX}", path=path) from None
    for c in str_cols:
        frame[c] = frame[c].astype(object).where(frame[c].notna(), None)
    for c, t in schema.items():
        if c not in str_cols and not _OTHER.match(t):
            frame[c] = _typed(frame[c], t, path, data)
    return frame, raw


def _check_fields(data: bytes, cols: list[str], path: Path) -> None:
    """Header = the declared columns; every row has exactly as many fields (pandas would pad a
    short row with missing values without a word)."""
    quoted = b'"' in data
    reader = csv.reader(io.StringIO(data.decode("utf-8", "replace"), newline=""), delimiter="\t") if quoted else None
    header = next(reader, []) if reader is not None else data.split(b"\n", 1)[0].decode("utf-8", "replace").split("\t")
    if set(header) != set(cols):  # a set: duplicate column names are one schema entry
        missing = [c for c in cols if c not in header]
        extra = [c for c in header if c not in cols]
        raise DataFormatError(f"columns differ from those result.json declares (missing: {missing}, not "
                              f"declared: {extra}); {_FIX}", path=path, line=1)
    cols = header
    if len(cols) < 2:
        return
    if reader is None:  # no quoted field: count tabs and newlines at memchr speed
        n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
        if data.count(b"\t") == n_lines * (len(cols) - 1):
            return
        for i, line in enumerate(data.split(b"\n"), 1):
            n = line.count(b"\t") + 1
            if line and n != len(cols):
                raise DataFormatError(f"{n} fields where the header has {len(cols)}; {_FIX}", path=path, line=i)
        return
    for row in reader:
        if len(row) != len(cols):
            raise DataFormatError(f"{len(row)} fields where the header has {len(cols)}; {_FIX}", path=path,
                                  line=reader.line_num)


def _where(series: pd.Series, bad: np.ndarray) -> tuple[int, str]:
    """(row index, the cell as the message shows it) of the first bad cell."""
    i = int(np.flatnonzero(bad)[0])
    v = series.iloc[i]
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return i, "an empty cell"
    return i, repr(v.item() if isinstance(v, np.generic) else v)


def _typed(col: pd.Series, dtype: str, path: Path, data: bytes) -> pd.Series:
    """``col`` as read, checked against its declared ``dtype`` (empty cells are missing values)."""
    name = col.name
    if dtype in ("bool", "boolean"):
        if pd.api.types.is_bool_dtype(col):
            return col
        vals = col.astype(object)
        true, missing = vals.isin([True, "True"]), vals.isna()
        ok = true | vals.isin([False, "False"]) | (missing if dtype == "boolean" else False)
        if not ok.all():
            i, v = _where(col, ~ok.to_numpy())
            raise DataFormatError(f"row {i + 1}, column {name!r} ({dtype}): {v} is not True or False; {_FIX}",
                                  path=path, line=None if b'"' in data else i + 2)
        return true if dtype == "bool" else true.astype(object).where(~missing, np.nan)
    nums = pd.to_numeric(col, errors="coerce") if not pd.api.types.is_bool_dtype(col) else col.astype(float) * np.nan
    bad = (nums.isna() & col.notna()).to_numpy()
    if _INT.match(dtype):
        nonint = nums.notna() & ~np.isclose(np.mod(nums.fillna(0).astype(float), 1), 0)
        nullable = dtype[0].isupper()
        bad = bad | nonint.to_numpy() | (~nullable & col.isna()).to_numpy()
        kind = "an integer"
    else:
        kind = "a number"
    if bad.any():
        i, v = _where(col, bad)
        raise DataFormatError(f"row {i + 1}, column {name!r} ({dtype}): {v} is not {kind}; {_FIX}", path=path,
                              line=None if b'"' in data else i + 2)
    if len(col) == 0:
        return col.astype("float64" if _FLOAT.match(dtype) else dtype)
    return nums if col.dtype == object else col
