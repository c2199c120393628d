"""Results store: an SQLite index of every result directory under a results root.

Layout::

    RESULTS_DIR/
      index.sqlite              one row per result + long-format summary rows
      summary_rows.tsv          the long-format rows, for pandas / DuckDB / spreadsheets
      report-notes.json         optional: the title and notes the runner gave its report, shown again
                                when ``ranklens report RESULTS_DIR`` re-renders it later
      <result dirs ...>         written atomically by :meth:`ranklens.Result.save`

Crash safety: a result directory is complete before it is indexed (atomic rename), and indexing
is one SQLite transaction, so a run killed at any point leaves either the old or the new state;
:meth:`ResultsStore.reindex` rebuilds the index from the directories on disk.

Long-format rows have the columns ``analysis, item, model, dataset, metric, value, ci_low,
ci_high, n``. An analysis can supply them as ``summary["rows"]`` (a list of dicts with those
keys); otherwise numeric summary entries are flattened (``item`` = dotted key path). Results of
the built-in analyses also get one row per model and headline figure, read from their per-item
table (declared by each result kind's ``model_rows`` in its analysis declaration): these fill the report's "summary across models" and
``ranklens results compare``.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._hashing import sha256_json
from .errors import CacheError, DataFormatError, ValidationError
from .files import atomic_output, sqlite_disk_problem, write_text_atomic
from .results import Result

__all__ = ["ROW_COLUMNS", "ResultsStore", "model_rows", "read_labels", "read_report_notes", "summary_rows",
           "write_report_notes"]

#: written into each indexed result directory: the labels given to :meth:`ResultsStore.add`
LABELS_FILE = "index-labels.json"
#: written into a results root by whoever ran it (an experiment, the demo): the report's title and notes
NOTES_FILE = "report-notes.json"

ROW_COLUMNS = ["analysis", "item", "model", "dataset", "metric", "value", "ci_low", "ci_high", "n"]
_LABEL_KEYS = ("name", "model", "dataset")


def read_labels(result_dir: str | os.PathLike[str]) -> dict[str, str | None]:
    """The labels :meth:`ResultsStore.add` wrote next to a result (``{}`` when there are none),
    checked: an object whose ``name``, ``model`` and ``dataset`` are strings or null; anything
    else is a :class:`DataFormatError` naming the file, the key and the fix."""
    f = Path(result_dir) / LABELS_FILE
    if not f.is_file():
        return {}
    fix = "fix it, or delete it (the result is then indexed without labels)"
    try:
        labels = json.loads(f.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        raise DataFormatError(f"not UTF-8 text; {fix}", path=f) from None
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"invalid JSON: {exc.msg}; {fix}", path=f, line=exc.lineno) from None
    except RecursionError:
        raise DataFormatError(f"nested too deeply; {fix}", path=f) from None
    if not isinstance(labels, dict):
        raise DataFormatError(f"expected an object with {list(_LABEL_KEYS)}, got {type(labels).__name__}; {fix}",
                              path=f)
    for key in _LABEL_KEYS:
        if labels.get(key) is not None and not isinstance(labels[key], str):
            raise DataFormatError(f"{key}: {type(labels[key]).__name__}, expected a string or null; {fix}", path=f)
    return {k: labels.get(k) for k in _LABEL_KEYS}


def write_report_notes(root: str | os.PathLike[str], *, title: str, notes: list[str] | tuple[str, ...]) -> Path:
    """Record the title and notes a runner gave a results root's report (atomically), so a report
    rendered later from the folder shows them too."""
    f = Path(root) / NOTES_FILE
    write_text_atomic(f, json.dumps({"title": title, "notes": list(notes)}, indent=1), what="report notes")
    return f


def read_report_notes(root: str | os.PathLike[str]) -> tuple[str | None, list[str]]:
    """``(title, notes)`` recorded by :func:`write_report_notes` in ``root`` (``(None, [])`` when none),
    checked: a damaged file is a :class:`DataFormatError` naming it and the fix."""
    f = Path(root) / NOTES_FILE
    if not f.is_file():
        return None, []
    fix = "fix it, or delete it (the report then has no notes)"
    try:
        obj = json.loads(f.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataFormatError(f"not a JSON object ({exc}); {fix}", path=f) from None
    if not isinstance(obj, dict):
        raise DataFormatError(f"expected a JSON object with 'title' and 'notes'; {fix}", path=f)
    title, notes = obj.get("title"), obj.get("notes", [])
    if title is not None and not isinstance(title, str):
        raise DataFormatError(f"'title' must be a string, got {title!r}; {fix}", path=f)
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise DataFormatError(f"'notes' must be a list of strings, got {notes!r}; {fix}", path=f)
    return title, notes


def _flatten(prefix: str, obj: Any) -> Iterator[tuple[str, float]]:
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            if k == "rows":
                continue
            yield from _flatten(f"{prefix}.{k}" if prefix else str(k), v)
    elif isinstance(obj, bool):
        return
    elif isinstance(obj, (int, float)):
        yield prefix, float(obj)


def model_rows(result: Result, *, dataset: str = "") -> pd.DataFrame:
    """Per-model long-format rows of a built-in analysis (empty for other kinds)."""
    from .registry import kind_info

    info = kind_info(result.kind)
    spec = info.model_rows if info is not None else None
    table = result.table
    if spec is None or spec.model not in table.columns or table.empty:
        return pd.DataFrame(columns=ROW_COLUMNS)
    items = [c for c in spec.items if c in table.columns]
    if spec.long is not None:
        metric_col, value_col = spec.long
        if not {metric_col, value_col} <= set(table.columns):
            return pd.DataFrame(columns=ROW_COLUMNS)
        long = table[[spec.model, *items, metric_col, value_col]].rename(
            columns={metric_col: "metric", value_col: "value"})
    else:
        named = {spec.model, *spec.items, *(spec.ci or ()), spec.n or ""}
        metrics = ([c for c in spec.metrics if c in table.columns] if spec.metrics else
                   [c for c in table.columns if c not in named and pd.api.types.is_numeric_dtype(table[c])
                    and not pd.api.types.is_bool_dtype(table[c])])
        if not metrics:
            return pd.DataFrame(columns=ROW_COLUMNS)
        extra = [c for c in (*(spec.ci or ()), spec.n or "") if c and c in table.columns]
        long = table[[spec.model, *items, *metrics, *extra]].melt(
            id_vars=[spec.model, *items, *extra], value_vars=metrics, var_name="metric", value_name="value")
    long = long.copy()
    if spec.rename:
        long["metric"] = long["metric"].replace(dict(spec.rename))
    long["value"] = pd.to_numeric(long["value"], errors="coerce")
    long["item"] = (long[items].astype(str).agg("/".join, axis=1) if items else "")
    long["item"] = spec.prefix + long["item"] if spec.prefix else long["item"]
    keys = ["item", spec.model, "metric"]
    grouped = long.groupby(keys, sort=False, dropna=False)
    out = grouped["value"].mean().reset_index()
    sizes = grouped.size().to_numpy()
    for col, src in (("ci_low", spec.ci[0] if spec.ci else None), ("ci_high", spec.ci[1] if spec.ci else None),
                     ("n", spec.n)):
        if src and src in long.columns:
            firsts = grouped[src].first().to_numpy()
            # a CI or count read from the table is only meaningful for one row per group
            out[col] = np.where(sizes == 1, pd.to_numeric(firsts, errors="coerce"), np.nan)
        else:
            out[col] = sizes.astype(float) if col == "n" and sizes.max(initial=0) > 1 else np.nan
    out = out.rename(columns={spec.model: "model"})
    out["model"] = out["model"].astype(str)
    out["analysis"] = result.kind
    out["dataset"] = dataset
    return out[ROW_COLUMNS]


def _check_row(r: Any, i: int) -> None:
    """One ``summary["rows"]`` entry: an object, text columns text, number columns numbers (a
    number given as text would be dropped from the index without a word)."""
    if not isinstance(r, Mapping):
        raise ValidationError(f"summary.rows[{i}]: {type(r).__name__}, expected an object with {ROW_COLUMNS}")
    for c in ROW_COLUMNS:
        v = r.get(c)
        numeric = c in ("value", "ci_low", "ci_high", "n")
        if v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) if numeric else isinstance(v, str)):
            continue
        raise ValidationError(f"summary.rows[{i}].{c}: {v!r} is not {'a number' if numeric else 'text'}")


def summary_rows(result: Result, *, model: str = "", dataset: str = "") -> pd.DataFrame:
    """Long-format summary rows of a result (see module docstring)."""
    rows = []
    given = result.summary.get("rows") if isinstance(result.summary, Mapping) else None
    if isinstance(given, list) and given:
        for i, r in enumerate(given):
            _check_row(r, i)
            row = {c: r.get(c) for c in ROW_COLUMNS}
            row["analysis"] = row["analysis"] or result.kind
            row["model"] = row["model"] or model
            row["dataset"] = row["dataset"] or dataset
            rows.append(row)
    else:
        for key, value in _flatten("", result.summary):
            item, _, metric = key.rpartition(".")
            rows.append({"analysis": result.kind, "item": item, "model": model, "dataset": dataset,
                         "metric": metric, "value": value, "ci_low": None, "ci_high": None, "n": None})
    frame = pd.DataFrame(rows, columns=ROW_COLUMNS)
    per_model = model_rows(result, dataset=dataset)
    if not per_model.empty:
        frame = pd.concat([frame.astype(object), per_model.astype(object)], ignore_index=True)
    for c in ("value", "ci_low", "ci_high", "n"):
        frame[c] = pd.to_numeric(frame[c], errors="coerce")
    return frame


class ResultsStore:
    """Index of the result directories below ``root`` (created on first use)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def _conn(self, *, create: bool = True) -> sqlite3.Connection:
        """The index; reading (``create=False``) refuses a missing directory instead of making one."""
        from .files import ensure_dir, existing_dir

        if create:
            ensure_dir(self.root, what="results directory")
        else:
            existing_dir(self.root, what="results directory")
        try:
            return self._open()
        except sqlite3.DatabaseError as exc:
            self._disk_error(exc)
            raise CacheError(f"{self.root / 'index.sqlite'}: the results index cannot be read ({exc}); rebuild "
                             f"it from the result directories with `ranklens results reindex {self.root}` "
                             f"after deleting the file") from None

    def _disk_error(self, exc: sqlite3.Error) -> None:
        """A full disk or a failed write is an :class:`OutputError` saying so (never "corrupt")."""
        problem = sqlite_disk_problem(exc)
        if problem is not None:
            from .errors import OutputError

            raise OutputError(f"the results index cannot be written: {problem}; free space (or raise the limit) "
                              f"and run `ranklens results reindex {self.root}`", path=self.root / "index.sqlite"
                              ) from None

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.root / "index.sqlite", timeout=120, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS results (id TEXT PRIMARY KEY, kind TEXT, name TEXT, "
            "path TEXT, model TEXT, dataset TEXT, created_utc TEXT, params TEXT, components TEXT, "
            "summary TEXT, provenance TEXT)"
        )
        conn.execute(
            "CREATE TABLE IF NOT EXISTS rows (result_id TEXT, analysis TEXT, item TEXT, model TEXT, "
            "dataset TEXT, metric TEXT, value REAL, ci_low REAL, ci_high REAL, n REAL)"
        )
        conn.execute("CREATE INDEX IF NOT EXISTS rows_result ON rows(result_id)")
        return conn

    def _entry(self, d: Path, res: Result, name: str | None, model: str, dataset: str
               ) -> tuple[str, list[Any], list[list[Any]]]:
        try:
            rel = str(d.resolve().relative_to(self.root.resolve()))
        except ValueError:
            rel = str(d.resolve())
        prov = res.provenance.to_dict()
        rid = sha256_json({"path": rel})[:16]
        try:
            rows = summary_rows(res, model=model, dataset=dataset)
        except ValidationError as exc:  # a saved result: name its file
            raise DataFormatError(f"{exc}; the file was edited or damaged: re-run the analysis that wrote it",
                                  path=d / "result.json") from None
        result_row = [rid, res.kind, name or d.name, rel, model, dataset, prov.get("created_utc", ""),
                      json.dumps(prov.get("params", {}), sort_keys=True),
                      json.dumps(prov.get("components", {}), sort_keys=True),
                      json.dumps(res.summary, sort_keys=True, default=str), json.dumps(prov, sort_keys=True)]
        row_rows = [[rid, *[None if pd.isna(v) else v for v in r]] for r in rows[ROW_COLUMNS].itertuples(index=False)]
        return rid, result_row, row_rows

    def _write(self, entries: list[tuple[str, list[Any], list[list[Any]]]], *, replace_all: bool = False) -> None:
        """Write index entries in ONE transaction (a crash leaves the old index or the new one)."""
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
            if replace_all:
                conn.execute("DELETE FROM results")
                conn.execute("DELETE FROM rows")
            for rid, result_row, row_rows in entries:
                conn.execute("DELETE FROM results WHERE id=?", [rid])
                conn.execute("DELETE FROM rows WHERE result_id=?", [rid])
                conn.execute("INSERT INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?)", result_row)
                conn.executemany("INSERT INTO rows VALUES (?,?,?,?,?,?,?,?,?,?)", row_rows)
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                self._disk_error(exc)
                raise CacheError(f"{self.root / 'index.sqlite'}: the results index cannot be written ({exc}); "
                                 f"delete it and run `ranklens results reindex {self.root}`") from None
            raise
        finally:
            conn.close()
        self._export_rows()

    def add(self, result_dir: str | os.PathLike[str], *, name: str | None = None, model: str = "",
            dataset: str = "", result: Result | None = None) -> str:
        """Index a saved result directory (replacing an older entry for the same path).

        The labels (``name``, ``model``, ``dataset``) are also written next to the result
        (``LABELS_FILE``), so :meth:`reindex` restores them."""
        d = Path(result_dir)
        res = result or Result.load(d)
        for key, value in (("name", name), ("model", model), ("dataset", dataset)):
            if value is not None and not isinstance(value, str):
                raise ValidationError(f"ResultsStore.add: {key} must be a string, got {type(value).__name__}")
        labels = {"name": name, "model": model, "dataset": dataset}
        write_text_atomic(d / LABELS_FILE, json.dumps(labels), what="result labels file")
        entry = self._entry(d, res, name, model, dataset)
        self._write([entry])
        return entry[0]

    def reindex(self, *, warnings: list[str] | None = None) -> int:
        """Rebuild the index from every ``result.json`` below the root (labels from each result's
        ``LABELS_FILE``), in one transaction; returns the count. A damaged result is a located
        error (nothing is re-indexed); ``warnings``, if given, receives the warning of each result
        edited after it was saved (it is indexed, with that warning)."""
        from ._resultfile import EDITED

        entries = []
        for meta in sorted(self.root.rglob("result.json")):
            if any(part.startswith(".") for part in meta.relative_to(self.root).parts):
                continue  # temp or old copies of an atomic save
            d = meta.parent
            labels = read_labels(d)
            res = Result.load(d)
            if warnings is not None:
                warnings += [w for w in res.warnings if EDITED in w]
            entries.append(self._entry(d, res, labels.get("name"), labels.get("model") or "",
                                       labels.get("dataset") or ""))
        self._write(entries, replace_all=True)
        return len(entries)

    def list(self, *, kind: str | None = None, model: str | None = None,
             dataset: str | None = None) -> pd.DataFrame:
        """Indexed results (no table is loaded), optionally filtered (``kind`` may end in ``*``)."""
        q = "SELECT id, kind, name, model, dataset, created_utc, path FROM results WHERE 1=1"
        args: list[str] = []
        for col, val in (("kind", kind), ("model", model), ("dataset", dataset)):
            if val:
                if val.endswith("*"):
                    q += f" AND {col} LIKE ?"
                    args.append(val[:-1] + "%")
                else:
                    q += f" AND {col} = ?"
                    args.append(val)
        conn = self._conn(create=False)
        try:
            return pd.read_sql_query(q + " ORDER BY kind, name", conn, params=args)
        finally:
            conn.close()

    def get(self, result_id: str) -> dict[str, Any]:
        """One indexed result (summary, provenance, path) by id or unique id prefix or name."""
        conn = self._conn(create=False)
        try:
            rows = conn.execute(
                "SELECT id, kind, name, path, model, dataset, summary, provenance FROM results "
                "WHERE id LIKE ? OR name = ?", [result_id + "%", result_id]).fetchall()
        finally:
            conn.close()
        if len(rows) != 1:
            what = "no result" if not rows else f"{len(rows)} results"
            raise ValidationError(f"{what} match {result_id!r} in {self.root}; see `ranklens results list`")
        rid, kind, name, path, model, dataset, summary, prov = rows[0]
        try:
            summary, prov = json.loads(summary), json.loads(prov)
        except (TypeError, ValueError, RecursionError) as exc:
            raise DataFormatError(f"result {rid}: its stored summary or provenance is not valid JSON ({exc}); "
                                  f"delete the file and run `ranklens results reindex {self.root}`",
                                  path=self.root / "index.sqlite") from None
        return {"id": rid, "kind": kind, "name": name, "path": str(self.root / path), "model": model,
                "dataset": dataset, "summary": summary, "provenance": prov}

    def rows(self, **filters: str) -> pd.DataFrame:
        """Long-format summary rows, filtered by any of ``analysis, model, dataset, metric``."""
        q = "SELECT * FROM rows WHERE 1=1"
        args = []
        for col, val in filters.items():
            if col not in ROW_COLUMNS:
                raise ValidationError(f"unknown filter {col!r}; use one of {ROW_COLUMNS}")
            if val:
                q += f" AND {col} = ?"
                args.append(val)
        conn = self._conn(create=False)
        try:
            frame = pd.read_sql_query(q, conn, params=args)
        except sqlite3.DatabaseError as exc:
            raise CacheError(f"{self.root / 'index.sqlite'}: the results index cannot be read ({exc}); delete it "
                             f"and run `ranklens results reindex {self.root}`") from None
        finally:
            conn.close()
        for c in ("value", "ci_low", "ci_high", "n"):  # REAL columns: text here means the index was edited
            bad = frame[c].map(lambda v: v is not None and not isinstance(v, (int, float)))
            if bad.any():
                raise DataFormatError(f"rows.{c} holds {frame[c][bad].iloc[0]!r} (result "
                                      f"{frame['result_id'][bad].iloc[0]}), not a number: the index was edited; "
                                      f"delete it and run `ranklens results reindex {self.root}`",
                                      path=self.root / "index.sqlite")
        return frame

    def compare(self, metric: str | None = None, *, analysis: str | None = None) -> pd.DataFrame:
        """Pivot of summary rows: (analysis, dataset, item, metric) x model."""
        rows = self.rows(metric=metric or "", analysis=analysis or "")
        if rows.empty:
            return rows
        return rows.pivot_table(index=["analysis", "dataset", "item", "metric"], columns="model",
                                values="value", aggfunc="first")

    def _export_rows(self) -> None:
        rows = self.rows()
        with atomic_output(self.root / "summary_rows.tsv", what="summary rows export") as tmp:
            rows.to_csv(tmp, sep="\t", index=False)
