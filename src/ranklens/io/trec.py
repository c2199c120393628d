"""TREC run and qrels files: the one reader (fast and strict) and the writers.

Every command reads runs and qrels here: :func:`read_run` / :func:`read_qrels` give pandas
frames, :func:`read_run_table` / :func:`read_qrels_table` the Arrow tables the metrics use.
Both go through :func:`ranklens.io._columns.read_columns`, whose docstring states the format
rules (separators, comments, encodings, NaN/inf scores, duplicate qrels, ...). Reader warnings
(e.g. repeated qrels lines) travel with the result: ``df.attrs["warnings"]`` for frames, the
schema metadata for tables; :func:`reader_warnings` returns them for ``Result.with_warnings``.
:func:`check_coverage` and :func:`depth_warnings` state what a run and its qrels do not share.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DataFormatError, ValidationError
from ..types import DEFAULT_TIES, DOC_ID, QUERY_ID, RANK, RELEVANCE, SCORE
from ._columns import QRELS, RUN, locate, read_columns, table_warnings
from ._streams import STDIN, display_name, is_stream, stream_data
from ..files import atomic_output
from .frames import rank_run, validate_qrels, validate_run
from .._lazy import LazyModule, is_frame

pd = LazyModule("pandas")  # imported on first use: evaluate runs without pandas

__all__ = ["RUN_SUFFIXES", "check_coverage", "coverage_warnings", "depth_warnings", "discover_runs", "read_qrels", "read_qrels_table",
           "read_run", "read_run_table", "read_runs", "reader_warnings", "run_name", "write_qrels", "write_run"]

PathLike = str | os.PathLike
#: The one suffix list of run file names: :func:`run_name` drops them (repeatedly, from the end).
RUN_SUFFIXES = (".gz", ".run", ".txt", ".trec", ".res", ".tsv", ".out", ".top100", ".judged_topics")
_NOT_RUNS = {".md", ".json", ".jsonl", ".csv", ".py", ".parquet", ".yaml", ".yml", ".html", ".pdf"}

reader_warnings = table_warnings


def read_run_table(path: PathLike, *, encoding: str | None = None):
    """Read a TREC run into a ``pyarrow.Table`` (``query_id``, ``doc_id`` strings, ``score``
    float64, file order). The rank and tag fields are checked for presence and ignored, like
    trec_eval. Duplicate (query, doc) rows are kept (the metrics' ``duplicates=`` policy decides).

    Raises:
        DataFormatError: naming the file, the line, the field and the fix.
    """
    return read_columns(path, RUN, encoding=encoding)


def read_qrels_table(path: PathLike, *, encoding: str | None = None):
    """Read TREC qrels into a ``pyarrow.Table`` (``query_id``, ``doc_id`` strings, ``relevance``
    int64, file order; repeated identical lines dropped with a warning).

    Raises:
        DataFormatError: naming the file, the line, the field and the fix (conflicting
            duplicates name both lines).
    """
    return read_columns(path, QRELS, encoding=encoding)


def _to_frame(table, value: str) -> pd.DataFrame:
    df = pd.DataFrame({
        QUERY_ID: pd.Series(table.column("query_id").to_pandas(), dtype=str),
        DOC_ID: pd.Series(table.column("doc_id").to_pandas(), dtype=str),
        value: table.column(value).to_numpy(),
    })
    df.attrs["warnings"] = table_warnings(table)
    return df


def _read_run_file(path: PathLike, encoding: str | None) -> pd.DataFrame:
    p = Path(path)
    data = stream_data(p, "run")  # a pipe or stdin is read once; its bytes serve the second walk
    table = read_columns(p, RUN, encoding=encoding, data=data)
    df = _to_frame(table, SCORE)
    del table
    try:
        out = validate_run(df, source=str(display_name(p)))
    except ValidationError as exc:
        locate(p, RUN, encoding=encoding, data=data, run_duplicates=True)  # names both lines
        raise DataFormatError(str(exc), path=display_name(p)) from None
    out.attrs["warnings"] = df.attrs["warnings"]
    return out


def run_name(path: PathLike) -> str:
    """Run name from a file name: the name without its run suffixes (:data:`RUN_SUFFIXES`),
    dropped from the end as long as one matches: ``input.bm25.gz`` -> ``input.bm25``,
    ``x.top100.run.gz`` -> ``x``, ``bm25.run.txt`` -> ``bm25``. A name that is only a suffix
    stays as it is (``.run`` -> ``.run``)."""
    if str(path) == STDIN:
        return "stdin"
    name = Path(path).name
    changed = True
    while changed:
        changed = False
        for suf in RUN_SUFFIXES:
            if name.endswith(suf) and len(name) > len(suf):
                name = name[: -len(suf)]
                changed = True
    return name


def _is_run_file(f: Path, root: Path) -> bool:
    """A file under ``root`` that can be a run: not hidden (nor under a hidden folder), not a
    document/metadata file (``.md``, ``.json``, ...), not a README/SOURCE, not a summary table."""
    return (f.is_file() and not any(part.startswith(".") for part in f.relative_to(root).parts)
            and f.suffix.lower() not in _NOT_RUNS and not f.name.upper().startswith(("SOURCE", "README"))
            and not (f.suffix.lower() == ".tsv" and "summar" in f.name.lower()))


def discover_runs(items: PathLike | Iterable[PathLike]) -> dict[str, Path]:
    """Run files and directories of runs -> ``{name: path}``: the one run-discovery and
    run-naming rule of every command and function that takes a directory of runs.

    * a file is named :func:`run_name` (its name without :data:`RUN_SUFFIXES`);
    * a directory is searched recursively (hidden files, ``.md``/``.json``/..., README and
      SOURCE files skipped); a run in a sub-folder is named by its path relative to the
      directory (``dl19/bm25``); files in sorted path order;
    * when several runs get the same name (``official/dl20/p_bm25`` and
      ``official_full_depth/dl20/p_bm25`` given as two directories), each of them is named by as
      many parent folders as it takes to tell them apart (``official/dl20/p_bm25``,
      ``official_full_depth/dl20/p_bm25``).

    Raises:
        ValidationError: a path that does not exist, a directory without run files, the same
            file given twice, or runs of one name that their folders cannot tell apart.
    """
    paths = [items] if isinstance(items, (str, os.PathLike)) else list(items)
    found: list[tuple[str, Path]] = []
    for item in paths:
        p = Path(item)
        if str(item) == STDIN:
            found.append(("stdin", p))
        elif p.is_dir():
            files = sorted(f for f in p.rglob("*") if _is_run_file(f, p))
            if not files:
                raise ValidationError(f"{p}: directory has no run files")
            found.extend((run_name(f) if f.parent == p else str(f.relative_to(p).parent / run_name(f)), f)
                         for f in files)
        elif p.exists():
            found.append((run_name(p), p))
        else:
            raise ValidationError(f"{p}: run file not found")
    by_name: dict[str, list[Path]] = {}
    for name, path in found:
        by_name.setdefault(name, []).append(path)
    out: dict[str, Path] = {}
    for name, files in by_name.items():
        if len(files) == 1:
            out[name] = files[0]
            continue
        if any(str(f) == STDIN or is_stream(f) for f in files):
            raise ValidationError(f"{len(files)} runs are named {name!r} ({', '.join(map(str, files))}); a run read "
                                  "from a stream can be given once; pass the others as files")
        resolved = [f.resolve() for f in files]
        if len(set(resolved)) < len(resolved):
            dup = next(str(f) for f, r in zip(files, resolved) if resolved.count(r) > 1)
            raise ValidationError(f"run file {dup} is given twice; pass each run once")
        parts = [r.parent.parts[1:] for r in resolved]  # without the root
        labels: list[str] = []
        for depth in range(1, max(len(x) for x in parts) + 1):
            labels = ["/".join([*x[max(len(x) - depth, 0):], run_name(r)]) for x, r in zip(parts, resolved)]
            if len(set(labels)) == len(labels):
                break
        if len(set(labels)) < len(labels) or any(lab in by_name or lab in out for lab in labels):
            raise ValidationError(f"{len(files)} runs are named {name!r} ({', '.join(map(str, files))}) "
                                  "and their folders do not tell them apart; rename the files")
        out.update(zip(labels, files))
    return out


def read_run(path_or_frame: PathLike | pd.DataFrame, *, name: str | None = None,
             encoding: str | None = None) -> pd.DataFrame:
    """Read a TREC run (``qid Q0 docno rank score tag``) or validate a run DataFrame.

    Tabs or spaces, any second column (``Q0``, ``0``), plain or gzip (detected by magic bytes),
    ``#`` comment lines; the full rules are in :mod:`ranklens.io._columns`. File ranks and tags
    are ignored: rank with :func:`ranklens.io.rank_run`. ``irds:<id>`` reads the dataset's
    scoreddocs.

    Args:
        path_or_frame: File path, ``irds:<dataset-id>`` or a DataFrame.
        name: Run name stored in ``df.attrs["name"]`` (default: file name without suffixes).
        encoding: Text encoding of the file (default ``$RANKLENS_ENCODING`` or utf-8).

    Returns:
        Frame ``query_id`` (str), ``doc_id`` (str), ``score`` (float64) in file order;
        ``attrs["warnings"]`` holds the reader's warnings.

    Raises:
        DataFormatError: naming file, line and problem (column count, non-numeric or
            non-finite score, duplicate (query, doc) with both line numbers, empty file, bad
            encoding, corrupt gzip).
    """
    if is_frame(path_or_frame):
        out = validate_run(path_or_frame, source=name or "run")
        out.attrs["name"] = name or path_or_frame.attrs.get("name", "run")
        return out
    if isinstance(path_or_frame, str) and path_or_frame.startswith("irds:"):
        from .irds import irds_run

        out = irds_run(path_or_frame[5:])
        out.attrs["name"] = name or path_or_frame
        return out
    out = _read_run_file(path_or_frame, encoding)
    out.attrs["name"] = name or run_name(path_or_frame)
    return out


def read_runs(dir_or_paths: PathLike | Iterable[PathLike], *, encoding: str | None = None) -> dict[str, pd.DataFrame]:
    """Read many runs: the files :func:`discover_runs` finds, under the names it gives.

    Args:
        dir_or_paths: A directory (searched recursively; hidden files and ``.md``/``.json``/... are
            skipped), a file, or an iterable of them.

    Returns:
        ``{name: run}`` in sorted path order. For a directory the name is the path relative to it
        without run suffixes (``dl19/bm25``), for explicit paths the file's run name (told apart
        by folders when two share one).
    """
    return {n: read_run(f, name=n, encoding=encoding) for n, f in discover_runs(dir_or_paths).items()}


def read_qrels(path: PathLike, *, encoding: str | None = None) -> pd.DataFrame:
    """Read TREC qrels (``qid iter docno relevance``), plain or gzip, or ``irds:<id>``.

    Relevance must be an integer (negative grades such as ``-1`` are kept); a line repeating
    an earlier (query, doc) pair with the same grade is dropped (warned), with another grade
    it is an error naming both lines.

    Returns:
        Frame ``query_id`` (str), ``doc_id`` (str), ``relevance`` (int64) in file order;
        ``attrs["warnings"]`` holds the reader's warnings.

    A DataFrame is validated instead (PyTerrier's ``qid``, ``docno``, ``label`` accepted).

    Raises:
        DataFormatError: naming file, line and problem.
    """
    if is_frame(path):
        return validate_qrels(path, source="qrels frame")
    if isinstance(path, str) and path.startswith("irds:"):
        from .irds import irds_qrels

        return irds_qrels(path[5:])
    table = read_qrels_table(path, encoding=encoding)
    df = _to_frame(table, RELEVANCE)
    out = validate_qrels(df, source=str(display_name(Path(path))))
    out.attrs["warnings"] = df.attrs["warnings"]
    return out


def _write_frame(frame: pd.DataFrame, path: Path) -> None:
    """Write atomically (a unique temp file in the target directory, renamed into place)."""
    with atomic_output(path, what="output file") as tmp:
        if path.name.endswith(".gz"):
            with gzip.open(tmp, "wt", encoding="utf-8", newline="\n") as fh:
                frame.to_csv(fh, sep=" ", header=False, index=False, quoting=3)
        else:
            with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
                frame.to_csv(fh, sep=" ", header=False, index=False, quoting=3)


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
    _write_frame(frame, p)
    return p


def write_qrels(qrels: pd.DataFrame, path: PathLike) -> Path:
    """Write qrels in TREC format (``qid 0 docno relevance``), in input order; ``.gz`` compresses."""
    q = validate_qrels(qrels)
    _no_space_ids(q, "qrels")
    p = Path(path)
    frame = pd.DataFrame({QUERY_ID: q[QUERY_ID], "iter": "0", DOC_ID: q[DOC_ID], RELEVANCE: q[RELEVANCE]})
    _write_frame(frame, p)
    return p


def _no_space_ids(df: pd.DataFrame, what: str) -> None:
    for c in (QUERY_ID, DOC_ID):
        bad = df[c].str.contains(r"\s|^$", regex=True)
        if bad.any():
            v = df[c][bad].iloc[0]
            raise ValidationError(f"{what}: {c} {v!r} is empty or contains whitespace; TREC files cannot hold it")


def _query_set(obj: Any) -> Any:
    """The distinct query ids of a frame or table, as an Arrow string array (no Python set:
    qrels of 100k queries would cost tens of MB of Python strings)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    col = pa.array(obj[QUERY_ID].astype(str)) if is_frame(obj) else obj.column(QUERY_ID)
    return pc.unique(col.cast(pa.string()))


def _examples(ids: Any, k: int = 3) -> str:
    """The first ``k`` of sorted ids (a numpy array already in byte order, or any iterable)."""
    first = [str(i) for i in ids[:k]] if isinstance(ids, np.ndarray) else sorted(map(str, ids))[:k]
    more = f", ... ({len(ids)} in all)" if len(ids) > k else ""
    return ", ".join(repr(i) for i in first) + more


def check_coverage(run: Any, qrels: Any, *, rel: int = 1, run_name: str = "run", qrels_name: str = "qrels",
                   missing: str = "skip", measures: Iterable[str] | None = None) -> tuple[str, ...]:
    """What a run and its qrels do not share, as warnings (``Result.with_warnings``); an error
    when nothing is shared.

    Args:
        run, qrels: frames or Arrow tables (``query_id``, ``doc_id``, ``score`` / ``relevance``).
        rel: the relevance threshold the measures use.
        missing: the caller's policy for judged queries absent from the run, named in the warning.
        measures: the measures asked, named in the warning on queries without a relevant
            document (None: "AP/nDCG/ASL").

    Returns:
        Warnings for run queries without qrels (not evaluated), judged queries missing from the
        run (handled as ``missing``), judged queries without a document at ``rel`` or above, and
        qrels without any relevant document -- plus the readers' own warnings.

    Raises:
        ValidationError: empty qrels, or no query of the run in the qrels.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    rq, qq = _query_set(run), _query_set(qrels)
    if is_frame(qrels):
        has_rel = _query_set(qrels[np.asarray(qrels[RELEVANCE]) >= rel])
    else:
        has_rel = _query_set(qrels.filter(pc.greater_equal(qrels.column(RELEVANCE), rel)))
    ids = pc.unique(pa.concat_arrays([rq, qq]))
    ids = ids.take(pc.array_sort_indices(ids))
    masks = [pc.is_in(ids, value_set=v).to_numpy(zero_copy_only=False) for v in (rq, qq, has_rel)]
    out = (*reader_warnings(run), *reader_warnings(qrels))
    return out + coverage_warnings(ids.to_numpy(zero_copy_only=False), *masks, rel=rel, run_name=run_name,
                                   qrels_name=qrels_name, missing=missing, measures=measures)


def coverage_warnings(ids: np.ndarray, in_run: np.ndarray, judged: np.ndarray, has_rel: np.ndarray, *,
                      rel: int = 1, run_name: str = "run", qrels_name: str = "qrels", missing: str = "skip",
                      measures: Iterable[str] | None = None) -> tuple[str, ...]:
    """:func:`check_coverage` on query sets already at hand: ``ids`` (sorted, byte order) and, per
    id, whether the run answers it, the qrels judge it and it has a document at ``rel`` or above
    (boolean arrays; the evaluation's ranked run holds them: no second pass over the ids)."""
    if not judged.any():
        raise ValidationError(f"{qrels_name}: no judgments; every measure would be undefined")
    if not (in_run & judged).any():
        raise ValidationError(
            f"none of the {int(in_run.sum())} queries of {run_name} is in {qrels_name} (run ids "
            f"{_examples(ids[in_run])}; qrels ids {_examples(ids[judged])}); check that the files belong to the "
            "same topics")
    out = []
    if (run_only := in_run & ~judged).any():
        out.append(f"{run_name}: {int(run_only.sum())} of {int(in_run.sum())} run queries have no qrels and are "
                   f"not evaluated ({_examples(ids[run_only])})")
    if (judged_only := judged & ~in_run).any():
        out.append(f"{run_name}: {int(judged_only.sum())} of {int(judged.sum())} judged queries are not in the run "
                   f"(missing={missing!r}; {_examples(ids[judged_only])})")
    has_rel = has_rel & judged
    if not has_rel.any():
        out.append(f"{qrels_name}: no document has relevance >= {rel} (all-zero qrels?): every measure is 0 "
                   "or undefined")
    elif (no_rel := judged & ~has_rel).any():
        names = list(measures) if measures is not None else []
        out.append(f"{qrels_name}: {int(no_rel.sum())} judged queries have no document with relevance >= {rel} "
                   f"({_examples(ids[no_rel])}); their {'/'.join(names) if names else 'AP/nDCG/ASL'} are 0 "
                   "or undefined")
    return tuple(out)


def depth_warnings(runs: Mapping[str, Any], *, note: str = "") -> tuple[str, ...]:
    """A warning when runs compared with each other retrieve different numbers of documents per
    query (deepest query of each run): deep cutoffs and recall-based measures then favour the
    deeper run.

    Args:
        runs: ``{name: run}`` with frames or Arrow tables, or ``{name: depth}`` with each run's
            most documents per query already counted (an int).
        note: appended to the warning (e.g. what a caller's measure does with depth).
    """
    depths = {}
    for name, r in runs.items():
        if isinstance(r, (int, np.integer)):
            depths[name] = int(r)
            continue
        ids = r[QUERY_ID] if is_frame(r) else r.column(QUERY_ID).to_pandas()
        depths[name] = int(pd.Series(ids).value_counts().max()) if len(ids) else 0
    if len(set(depths.values())) <= 1:
        return ()
    lo, hi = min(depths, key=depths.get), max(depths, key=depths.get)
    return (f"runs of different depths are compared (most documents per query: {hi} {depths[hi]}, "
            f"{lo} {depths[lo]}); measures past rank {depths[lo]} and recall favour the deeper run"
            + (f"; {note}" if note else ""),)
