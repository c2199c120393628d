"""Fast TREC run / qrels readers into Arrow tables (the metrics fast path).

``ranklens.io.read_run`` returns pandas frames with Python ``str`` ids, which is the public
contract; for 10M-row runs the string handling dominates the cost (perf-baselines.md, 6 s with
``pd.read_csv``), so the metrics code reads files with :mod:`pyarrow.csv` (multi-threaded C++,
~1 s) and keeps ids as Arrow string arrays. Files that do not parse with a single delimiter
(mixed tabs/spaces, repeated blanks, trailing junk columns, ``#`` comments) fall back to a
line-by-line parser that reports ``path:line`` on errors.
"""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path


from ..errors import DataFormatError

__all__ = ["read_qrels_table", "read_run_table"]


def _open_text(path: Path):
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def _first_line(path: Path) -> str:
    with _open_text(path) as f:
        for line in f:
            if line.strip():
                return line
    return ""


def _arrow_read(path: Path, names: list[str], keep: list[str], types: dict):
    import pyarrow as pa
    from pyarrow import csv

    first = _first_line(path)
    if not first or first.lstrip().startswith("#"):
        return None
    delim = "\t" if "\t" in first else " "
    if delim == " " and ("  " in first.rstrip("\n") or first.startswith(" ")):
        return None
    if len(first.split()) != len(names):
        return None
    try:
        table = csv.read_csv(
            str(path),
            # 4 MiB blocks: 16 MiB blocks read ~10% faster but leave ~130 MB more resident
            read_options=csv.ReadOptions(column_names=names, block_size=1 << 22),
            parse_options=csv.ParseOptions(delimiter=delim, quote_char=False),
            convert_options=csv.ConvertOptions(column_types=types, include_columns=keep),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    return table


def _python_read(path: Path, ncols: int, keep_idx: list[int], conv: list, what: str):
    cols: list[list] = [[] for _ in keep_idx]
    with _open_text(path) as f:
        for lineno, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            parts = s.split()
            if len(parts) < ncols:
                raise DataFormatError(
                    f"{what} line has {len(parts)} fields, expected {ncols} "
                    f"({'qid Q0 docno rank score tag' if what == 'run' else 'qid iter docno rel'})",
                    path=path, line=lineno,
                )
            for c, (i, fn) in enumerate(zip(keep_idx, conv)):
                try:
                    cols[c].append(fn(parts[i]))
                except ValueError:
                    raise DataFormatError(
                        f"{what} field {i + 1} must be a number, got {parts[i]!r}", path=path,
                        line=lineno,
                    ) from None
    return cols


def read_run_table(path: str | os.PathLike[str]):
    """Read a TREC run (``qid Q0 docno rank score tag``; tabs or spaces; ``.gz``).

    Returns:
        ``pyarrow.Table`` with ``query_id`` (string), ``doc_id`` (string), ``score`` (float64).
        The file's rank column is ignored, like trec_eval.
    """
    import pyarrow as pa

    p = Path(path)
    if not p.is_file():
        raise DataFormatError("run file not found", path=p)
    names = ["query_id", "q0", "doc_id", "rank", "score", "tag"]
    types = {"query_id": pa.string(), "doc_id": pa.string(), "score": pa.float64()}
    t = _arrow_read(p, names, ["query_id", "doc_id", "score"], types)
    if t is None:
        q, d, s = _python_read(p, 6, [0, 2, 4], [str, str, float], "run")
        t = pa.table({"query_id": pa.array(q, pa.string()), "doc_id": pa.array(d, pa.string()),
                      "score": pa.array(s, pa.float64())})
    if t.num_rows == 0:
        raise DataFormatError("run file has no rows", path=p)
    import pyarrow.compute as pc

    n_nan = pc.sum(pc.is_nan(t.column("score"))).as_py() or 0  # Arrow kernel: no numpy copy
    if n_nan:
        raise DataFormatError(f"run has {n_nan} NaN score(s); fix the scores", path=p)
    # hand the CSV parser's freed buffers back to the OS (the allocator keeps them otherwise,
    # ~40% of the table's size on a 10M-row run)
    pa.default_memory_pool().release_unused()
    return t


def read_qrels_table(path: str | os.PathLike[str]):
    """Read TREC qrels (``qid iter docno rel``; ``.gz``) into a ``pyarrow.Table``
    (``query_id``, ``doc_id`` strings, ``relevance`` int64)."""
    import pyarrow as pa

    p = Path(path)
    if not p.is_file():
        raise DataFormatError("qrels file not found", path=p)
    names = ["query_id", "iter", "doc_id", "relevance"]
    types = {"query_id": pa.string(), "doc_id": pa.string(), "relevance": pa.int64()}
    t = _arrow_read(p, names, ["query_id", "doc_id", "relevance"], types)
    if t is None:
        q, d, r = _python_read(p, 4, [0, 2, 3], [str, str, int], "qrels")
        t = pa.table({"query_id": pa.array(q, pa.string()), "doc_id": pa.array(d, pa.string()),
                      "relevance": pa.array(r, pa.int64())})
    return t
