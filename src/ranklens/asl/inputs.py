"""What the ASL measures read: a run or qrels (path, DataFrame, Arrow table, ``irds:`` id) as an
Arrow table with ranklens's column names, the qrels grade mapping (``1=0``, ``nist-dl20``), and the
``runs`` argument of every analysis normalised to ``{name: run}`` (:func:`load_runs`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ValidationError
from ..types import DOC_ID, QUERY_ID, RELEVANCE, SCORE
from .._lazy import LazyModule, is_frame

pd = LazyModule("pandas")  # imported on first use: evaluate runs without pandas

__all__ = ["GRADE_MAPPINGS", "load_runs", "map_grades", "parse_grade_mapping"]


def _aliased(frame: pd.DataFrame, required: tuple[str, ...]) -> pd.DataFrame:
    """PyTerrier/ranx/ir_datasets column names (``qid``, ``docno``, ``label``, ...) renamed to
    ranklens's, as :data:`ranklens.io.frames.COLUMN_ALIASES` lists them; a column already
    named canonically wins."""
    from ..io.frames import COLUMN_ALIASES

    mapping: dict[Any, str] = {}
    for alias, target in COLUMN_ALIASES.items():
        if alias in frame.columns and target in required and target not in frame.columns \
                and target not in mapping.values():
            mapping[alias] = target
    return frame.rename(columns=mapping) if mapping else frame


def _as_run_table(run: Any, *, source: str = "run"):
    """A path or a DataFrame (``query_id``, ``doc_id``, ``score``) -> Arrow table."""
    import pyarrow as pa

    if isinstance(run, pa.Table):
        missing = {QUERY_ID, DOC_ID, SCORE} - set(run.column_names)
        if missing:
            raise ValidationError(f"{source}: run table lacks column(s) {sorted(missing)}")
        if run.schema.field(SCORE).type != pa.float64():
            run = run.set_column(run.schema.get_field_index(SCORE), SCORE,
                                 run.column(SCORE).cast(pa.float64()))
        return run
    if is_frame(run):
        run = _frame_columns(run, SCORE, f"{source}: run")
        for c in (QUERY_ID, DOC_ID):
            if pd.api.types.is_numeric_dtype(run[c]):
                raise ValidationError(f"{source}: column {c!r} must hold str ids, got "
                                      f"{run[c].dtype}; read with dtype={{{c!r}: str}}")
        score = pd.to_numeric(run[SCORE], errors="coerce").to_numpy(np.float64)
        if np.isnan(score).any():
            bad = int(np.flatnonzero(np.isnan(score))[0])
            raise ValidationError(f"{source}: column 'score' has a missing/non-numeric value at "
                                  f"row {bad}; every row needs a numeric score")
        return _frame_table(run, SCORE, score)
    from ..io.trec import read_run_table

    return read_run_table(run)


def _frame_columns(frame: pd.DataFrame, value_name: str, what: str) -> pd.DataFrame:
    """The frame with its columns under their canonical names (``_aliased``); an error naming
    the missing ones."""
    frame = _aliased(frame, (QUERY_ID, DOC_ID, value_name))
    missing = {QUERY_ID, DOC_ID, value_name} - set(frame.columns)
    if missing:
        raise ValidationError(f"{what} frame lacks column(s) {sorted(missing)}; expected "
                              f"{QUERY_ID}, {DOC_ID}, {value_name}")
    return frame


def _frame_table(frame: pd.DataFrame, value_name: str, values: Any):
    """The Arrow table of a run or qrels frame: string ids, ``values`` under ``value_name``,
    and the reader warnings the frame carries (``attrs``)."""
    import pyarrow as pa

    from ..io._columns import _with_warnings, table_warnings

    table = pa.table({
        QUERY_ID: pa.array(frame[QUERY_ID].astype(str).to_numpy(object), pa.string()),
        DOC_ID: pa.array(frame[DOC_ID].astype(str).to_numpy(object), pa.string()),
        value_name: pa.array(values),
    })
    warns = table_warnings(frame)
    return _with_warnings(table, list(warns)) if warns else table


def _as_qrels_table(qrels: Any):
    import pyarrow as pa

    if isinstance(qrels, pa.Table):
        return qrels
    if is_frame(qrels):
        qrels = _frame_columns(qrels, RELEVANCE, "qrels")
        rel = pd.to_numeric(qrels[RELEVANCE], errors="coerce")
        if rel.isna().any():
            raise ValidationError("qrels: column 'relevance' must be integers (a value is missing)")
        return _frame_table(qrels, RELEVANCE, rel.to_numpy(np.int64))
    if isinstance(qrels, str) and qrels.startswith("irds:"):
        from ..io import read_qrels  # contract API (io helper)

        return _as_qrels_table(read_qrels(qrels))
    from ..io.trec import read_qrels_table

    return read_qrels_table(qrels)


def _col(table, name):
    c = table.column(name)
    return c.combine_chunks() if hasattr(c, "combine_chunks") else c


#: Named grade mappings: NIST's official DL 2020 ``trec_eval`` numbers map grade 1 to 0.
GRADE_MAPPINGS: dict[str, dict[int, int]] = {"nist-dl20": {1: 0}}


def parse_grade_mapping(spec: Any) -> dict[int, int]:
    """``("1=0", "3=2")``, ``"1=0,3=2"``, ``"nist-dl20"`` or a mapping -> ``{old: new}``."""
    if spec is None:
        return {}
    if isinstance(spec, Mapping):
        return {int(k): int(v) for k, v in spec.items()}
    items = [spec] if isinstance(spec, str) else list(spec)
    out: dict[int, int] = {}
    for item in items:
        for part in filter(None, (x.strip() for x in str(item).split(","))):
            if part in GRADE_MAPPINGS:
                out.update(GRADE_MAPPINGS[part])
                continue
            old, sep, new = part.partition("=")
            try:
                out[int(old)] = int(new)
            except ValueError:
                raise ValidationError(f"grade mapping {part!r}: give OLD=NEW integers (e.g. 1=0) or one "
                                      f"of {sorted(GRADE_MAPPINGS)}") from None
            if not sep:
                raise ValidationError(f"grade mapping {part!r}: give OLD=NEW (e.g. 1=0)")
    return out


def map_grades(qrels: Any, mapping: Any):
    """The qrels (as an Arrow table) with relevance grades replaced by ``mapping`` (``{1: 0}``,
    ``"1=0"`` or ``"nist-dl20"``); other grades are kept. No mapping -> the qrels unchanged."""
    import pyarrow as pa

    qt = _as_qrels_table(qrels)
    m = parse_grade_mapping(mapping)
    if not m:
        return qt
    rel = _col(qt, RELEVANCE).to_numpy(zero_copy_only=False).astype(np.int64)
    out = rel.copy()
    for old, new in m.items():
        out[rel == old] = new
    return qt.set_column(qt.schema.get_field_index(RELEVANCE), RELEVANCE, pa.array(out, pa.int64()))


def load_runs(runs: Any) -> dict[str, Any]:
    """Normalise the ``runs`` argument to ``{name: path | DataFrame | RankedRun}``.

    Accepts a path to a run file, a directory of run files (a track), a DataFrame, a mapping
    name -> run (a path, a DataFrame or a run already ranked by :func:`ranklens.asl.ranking.rank_runs`),
    or a sequence of paths and DataFrames. Files and directories are found and
    named by :func:`ranklens.io.trec.discover_runs` (the one rule: file names without
    :data:`~ranklens.io.trec.RUN_SUFFIXES`, runs in sub-folders by their relative path, runs of
    one name told apart by their folders); DataFrames in a sequence are ``run0``, ``run1``, ...
    """
    from ..io.trec import discover_runs

    if isinstance(runs, Mapping):
        return {str(k): v for k, v in runs.items()}
    if is_frame(runs):
        return {"run": runs}
    if isinstance(runs, (str, os.PathLike)):
        return dict(discover_runs(runs))
    if isinstance(runs, Sequence):
        frames = {f"run{i}": item for i, item in enumerate(runs) if is_frame(item)}
        files = discover_runs([item for item in runs if not is_frame(item)])
        clash = sorted(set(frames) & set(files))
        if clash:
            raise ValidationError(f"two runs are named {clash[0]!r}; pass a mapping {{name: run}} to name them")
        return _in_order(runs, frames, files) if frames else dict(files)
    raise ValidationError(f"runs must be a path, directory, DataFrame, mapping or list; got "
                          f"{type(runs).__name__}")


def _in_order(runs: Any, frames: dict[str, Any], files: dict[str, Any]) -> dict[str, Any]:
    """Frames and discovered files in the order their items were given."""
    out: dict[str, Any] = {}
    for i, item in enumerate(runs):
        if is_frame(item):
            out[f"run{i}"] = frames[f"run{i}"]
        else:
            root = Path(item)
            out.update({k: v for k, v in files.items() if Path(v) == root or root in Path(v).parents})
    return {**out, **{k: v for k, v in files.items() if k not in out}}
