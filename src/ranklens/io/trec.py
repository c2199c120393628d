"""TREC run and qrels files: fast readers with precise errors, and writers.

Reading strategy: the whole file is decoded once (to catch encoding errors with their line and
byte), then parsed by pyarrow's CSV reader (about 15x faster than ``pandas.read_csv`` with
``sep=r"\\s+"``; measured 0.2 s vs 3.6 s for 2M lines) when the separators are regular, or by
pandas' C whitespace parser otherwise. Only when the fast path fails (or finds NaN / duplicate
rows) is the file walked line by line, purely to report the exact file, line and problem.
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from .._lazy import available
from ..errors import DataFormatError, ValidationError
from ..types import DEFAULT_TIES, DOC_ID, QUERY_ID, RANK, RELEVANCE, SCORE
from .frames import rank_run, validate_qrels, validate_run

__all__ = ["read_qrels", "read_run", "read_runs", "run_name", "write_qrels", "write_run"]

PathLike = str | os.PathLike
_RUN_SUFFIXES = (".run", ".txt", ".trec", ".res", ".tsv", ".out")
_NOT_RUNS = {".md", ".json", ".jsonl", ".csv", ".py", ".parquet", ".yaml", ".yml", ".html", ".pdf"}


def _read_bytes(path: Path) -> bytes:
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
            fh.seek(0)
            if head == b"\x1f\x8b":  # gzip magic, whatever the suffix
                with gzip.open(fh) as gz:
                    return gz.read()
            return fh.read()
    except FileNotFoundError:
        raise DataFormatError("file not found; check the path", path=path) from None
    except (OSError, EOFError) as exc:
        raise DataFormatError(f"cannot read file ({exc}); is it a complete .gz file?", path=path) from None


def _decode(data: bytes, path: object, encoding: str) -> str:
    try:
        return data.decode(encoding)
    except LookupError:
        raise DataFormatError(f"unknown encoding {encoding!r}; pass e.g. encoding='utf-8' or 'latin-1'",
                              path=path) from None
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        bad = data[exc.start:exc.end]
        raise DataFormatError(
            f"byte {bad!r} at column {col} (file offset {exc.start}) is not valid {encoding}; "
            f"pass the file's encoding, e.g. encoding='latin-1'",
            path=path, line=line,
        ) from None


def _fast_table(utf8: bytes, ncols: int, float_col: int | None,
                keep: tuple[int, ...] = (0, 2)) -> pd.DataFrame | None:
    """Parse whitespace-separated UTF-8 columns (returning only ``keep`` and ``float_col``);
    ``None`` when the file needs the line validator."""
    names = [f"c{i}" for i in range(ncols)]
    wanted = [names[i] for i in keep] + ([names[float_col]] if float_col is not None else [])
    if b"\t" in utf8:
        utf8 = utf8.replace(b"\t", b" ")
    regular = (b"  " not in utf8 and b"\r" not in utf8 and b"\n " not in utf8
               and not utf8.startswith(b" ") and b" \n" not in utf8 and not utf8.endswith(b" "))
    if regular and available("pyarrow"):
        import pyarrow as pa
        import pyarrow.csv as pacsv

        types = {n: pa.string() for n in names}
        if float_col is not None:
            types[names[float_col]] = pa.float64()
        try:
            table = pacsv.read_csv(
                io.BytesIO(utf8),
                read_options=pacsv.ReadOptions(column_names=names, use_threads=True),
                parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False),
                convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                                     quoted_strings_can_be_null=False,
                                                     include_columns=wanted),
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return None
        return table.to_pandas(types_mapper=None)
    try:
        df = pd.read_csv(io.BytesIO(utf8), sep=r"\s+", header=None, names=names, dtype=str,
                         engine="c", quoting=3, keep_default_na=False, na_filter=True, na_values=[""])
    except (pd.errors.ParserError, ValueError):
        return None
    if df[names[-1]].isna().any():
        return None
    if float_col is not None:
        try:
            df[names[float_col]] = df[names[float_col]].astype(np.float64)
        except (ValueError, TypeError):
            return None
    return df


def _validate_lines(text: str, path: object, kind: str) -> None:
    """Walk the file line by line and raise :class:`DataFormatError` at the first problem."""
    ncols = 6 if kind == "run" else 4
    value_col = 4 if kind == "run" else 3
    what = "score" if kind == "run" else "relevance"
    layout = ("query_id Q0 doc_id rank score tag" if kind == "run" else "query_id 0 doc_id relevance")
    seen: dict[tuple[str, str], int] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != ncols:
            raise DataFormatError(
                f"expected {ncols} whitespace-separated columns ({layout}), found {len(parts)}: {line[:120]!r}",
                path=path, line=lineno,
            )
        value = parts[value_col]
        try:
            num = float(value) if kind == "run" else int(value)
        except ValueError:
            if kind == "qrels":
                try:
                    f = float(value)
                    if f == int(f):
                        num = int(f)
                    else:
                        raise ValueError
                except (ValueError, OverflowError):
                    raise DataFormatError(f"relevance {value!r} (column 4) is not an integer", path=path,
                                          line=lineno) from None
            else:
                raise DataFormatError(f"{what} {value!r} (column {value_col + 1}) is not a number", path=path,
                                      line=lineno) from None
        if kind == "run" and num != num:
            raise DataFormatError("score is NaN (column 5); every document needs a real score",
                                  path=path, line=lineno)
        key = (parts[0], parts[2])
        if key in seen:
            raise DataFormatError(
                f"duplicate (query_id, doc_id) = {key} also on line {seen[key]}; "
                f"a {kind} may list each document once per query",
                path=path, line=lineno,
            )
        seen[key] = lineno


def _read_table(path: PathLike, kind: str, encoding: str) -> pd.DataFrame:
    p = Path(path)
    data = _read_bytes(p)
    if data.startswith(b"\xef\xbb\xbf") and codecs.lookup(encoding).name == "utf-8":
        data = data[3:]  # UTF-8 byte-order mark (Windows editors) is not part of the first id
    text = _decode(data, p, encoding)
    if not text.strip():
        raise DataFormatError(f"empty file: no {kind} lines found", path=p)
    ncols = 6 if kind == "run" else 4
    value_col = 4 if kind == "run" else 3
    utf8 = data if codecs.lookup(encoding).name == "utf-8" else text.encode("utf-8")
    df = _fast_table(utf8, ncols, value_col)
    if df is not None and kind == "run" and df[f"c{value_col}"].isna().any():
        df = None
    if df is not None and kind == "qrels":
        rel = pd.to_numeric(df["c3"], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isnan(rel).any() or (rel != np.round(rel)).any():
            df = None
        else:
            df["c3"] = rel.astype(np.int64)
    if df is None:
        _validate_lines(text, p, kind)
        raise DataFormatError(f"cannot parse as a TREC {kind} file (no single bad line found)", path=p)
    cols = {"c0": QUERY_ID, "c2": DOC_ID, f"c{value_col}": SCORE if kind == "run" else RELEVANCE}
    out = df[list(cols)].rename(columns=cols)
    try:
        return validate_run(out, source=str(p)) if kind == "run" else validate_qrels(out, source=str(p))
    except ValidationError as exc:
        problem = str(exc)
    _validate_lines(text, p, kind)  # re-walk to name the exact lines
    raise DataFormatError(problem, path=p)


def run_name(path: PathLike) -> str:
    """Run name from a file name: ``input.bm25.gz`` -> ``input.bm25``, ``x.top100.run.gz`` -> ``x.top100``."""
    name = Path(path).name
    if name.endswith(".gz"):
        name = name[:-3]
    for suf in _RUN_SUFFIXES:
        if name.endswith(suf) and len(name) > len(suf):
            return name[: -len(suf)]
    return name


def read_run(path_or_frame: PathLike | pd.DataFrame, *, name: str | None = None,
             encoding: str = "utf-8") -> pd.DataFrame:
    """Read a TREC run (``qid Q0 docno rank score tag``) or validate a run DataFrame.

    Tabs or spaces, any second column (``Q0``, ``0``), plain or gzip (detected by magic bytes).
    File ranks and tags are ignored: rank with :func:`ranklens.io.rank_run`. ``irds:<id>`` reads
    the dataset's scoreddocs.

    Args:
        path_or_frame: File path, ``irds:<dataset-id>`` or a DataFrame.
        name: Run name stored in ``df.attrs["name"]`` (default: file name without suffixes).
        encoding: Text encoding of the file.

    Returns:
        Frame ``query_id`` (str), ``doc_id`` (str), ``score`` (float64) in file order.

    Raises:
        DataFormatError: naming file, line and problem (column count, non-numeric score,
            duplicate (query, doc) with both line numbers, empty file, bad encoding).
    """
    if isinstance(path_or_frame, pd.DataFrame):
        out = validate_run(path_or_frame, source=name or "run")
        out.attrs["name"] = name or path_or_frame.attrs.get("name", "run")
        return out
    if isinstance(path_or_frame, str) and path_or_frame.startswith("irds:"):
        from .irds import irds_run

        out = irds_run(path_or_frame[5:])
        out.attrs["name"] = name or path_or_frame
        return out
    out = _read_table(path_or_frame, "run", encoding)
    out.attrs["name"] = name or run_name(path_or_frame)
    return out


def read_runs(dir_or_paths: PathLike | Iterable[PathLike], *, encoding: str = "utf-8") -> dict[str, pd.DataFrame]:
    """Read many runs.

    Args:
        dir_or_paths: A directory (searched recursively; hidden files and ``.md``/``.json``/... are
            skipped) or an iterable of file paths.

    Returns:
        ``{name: run}`` in sorted path order. For a directory the name is the path relative to it
        without run suffixes (``dl19/bm25``), for explicit paths the file's run name.
    """
    if isinstance(dir_or_paths, (str, os.PathLike)) and Path(dir_or_paths).is_dir():
        root = Path(dir_or_paths)
        files = sorted(
            f for f in root.rglob("*")
            if f.is_file() and not any(part.startswith(".") for part in f.relative_to(root).parts)
            and f.suffix.lower() not in _NOT_RUNS and not f.name.upper().startswith(("SOURCE", "README"))
            and not (f.suffix.lower() == ".tsv" and "summar" in f.name.lower())
        )
        if not files:
            raise DataFormatError("no run files found in directory", path=root)
        names = [(run_name(f) if f.parent == root else str(f.relative_to(root).parent / run_name(f))) for f in files]
    else:
        files = [Path(p) for p in ([dir_or_paths] if isinstance(dir_or_paths, (str, os.PathLike)) else dir_or_paths)]
        names = [run_name(f) for f in files]
        if len(set(names)) != len(names):
            names = [str(f) for f in files]
    return {n: read_run(f, name=n, encoding=encoding) for n, f in zip(names, files)}


def read_qrels(path: PathLike, *, encoding: str = "utf-8") -> pd.DataFrame:
    """Read TREC qrels (``qid iter docno relevance``), plain or gzip, or ``irds:<id>``.

    Relevance must be an integer (negative grades such as ``-1`` are kept).

    Returns:
        Frame ``query_id`` (str), ``doc_id`` (str), ``relevance`` (int64) in file order.

    Raises:
        DataFormatError: naming file, line and problem.
    """
    if isinstance(path, str) and path.startswith("irds:"):
        from .irds import irds_qrels

        return irds_qrels(path[5:])
    return _read_table(path, "qrels", encoding)


def _open_out(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.endswith(".gz"):
        return gzip.open(path, "wt", encoding="utf-8", newline="\n")
    return open(path, "w", encoding="utf-8", newline="\n")


def write_run(run: pd.DataFrame, path: PathLike, *, tag: str = "ranklens", ties: str = DEFAULT_TIES) -> Path:
    """Write a run in TREC format (``qid Q0 docno rank score tag``); ``.gz`` compresses.

    Rows are ordered and ranked with :func:`rank_run` under ``ties``; scores are written with
    full float64 precision (``repr``), so reading the file back gives identical scores.

    Returns:
        The path written.
    """
    if any(c.isspace() for c in tag) or not tag:
        raise ValidationError(f"tag {tag!r} must be a non-empty string without whitespace")
    ranked = rank_run(run, ties=ties)
    _no_space_ids(ranked, "run")
    p = Path(path)
    frame = pd.DataFrame({
        QUERY_ID: ranked[QUERY_ID], "Q0": "Q0", DOC_ID: ranked[DOC_ID], RANK: ranked[RANK],
        SCORE: [repr(float(s)) for s in ranked[SCORE].to_numpy()], "tag": tag,
    })
    with _open_out(p) as fh:
        frame.to_csv(fh, sep=" ", header=False, index=False, quoting=3)
    return p


def write_qrels(qrels: pd.DataFrame, path: PathLike) -> Path:
    """Write qrels in TREC format (``qid 0 docno relevance``), in input order; ``.gz`` compresses."""
    q = validate_qrels(qrels)
    _no_space_ids(q, "qrels")
    p = Path(path)
    frame = pd.DataFrame({QUERY_ID: q[QUERY_ID], "iter": "0", DOC_ID: q[DOC_ID], RELEVANCE: q[RELEVANCE]})
    with _open_out(p) as fh:
        frame.to_csv(fh, sep=" ", header=False, index=False, quoting=3)
    return p


def _no_space_ids(df: pd.DataFrame, what: str) -> None:
    for c in (QUERY_ID, DOC_ID):
        bad = df[c].str.contains(r"\s|^$", regex=True)
        if bad.any():
            v = df[c][bad].iloc[0]
            raise ValidationError(f"{what}: {c} {v!r} is empty or contains whitespace; TREC files cannot hold it")
