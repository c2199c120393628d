"""The one result type of every analysis: summary + per-item table(s) + provenance.

A result directory holds::

    result.json          kind, summary, provenance, table schemas
    table.tsv.gz         the per-item table (main)
    <name>.tsv.gz        further named tables (e.g. per-document, per-sample)

Reloading a result needs no model: ``Result.load(dir)``. :func:`save_results` writes a door's
results (each under ``OUT/<kind>/``, with the plots its kind declares).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import platform
import re
import sys
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._resultfile import SCHEMA_VERSION as _SCHEMA_VERSION
from ._resultfile import check_summary, content_digest, edited_warning, read_meta, read_table
from .errors import DataFormatError, OutputError, ValidationError
from .files import atomic_output, disk_problem, ensure_dir, replace_dir, umask_mode, write_text_atomic

__all__ = ["Provenance", "Result", "make_provenance", "safe_name", "save_results"]

def _jsonable(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        f = float(obj)
        return None if np.isnan(f) else f
    if isinstance(obj, float) and np.isnan(obj):
        return None
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (Path,)):
        return str(obj)
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    return repr(obj)


@dataclass(frozen=True, kw_only=True)
class Provenance:
    """Where a number came from: versions, parameters, components, input hashes, seed."""

    ranklens_version: str
    created_utc: str
    params: Mapping[str, Any] = field(default_factory=dict)
    components: Mapping[str, str] = field(default_factory=dict)
    inputs: Mapping[str, str] = field(default_factory=dict)
    seed: int | None = None
    environment: Mapping[str, str] = field(default_factory=dict)
    component_params: Mapping[str, Any] = field(default_factory=dict)
    analysis_params: Mapping[str, Any] = field(default_factory=dict)  # the analysis's Params, stamped
    #                                                                    once by the door (drive.run_analysis)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return _jsonable(dataclasses.asdict(self))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Provenance:
        """Inverse of :meth:`to_dict` (unknown keys are ignored)."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})


def make_provenance(
    *,
    params: Mapping[str, Any] | None = None,
    components: Mapping[str, str] | None = None,
    inputs: Mapping[str, str] | None = None,
    seed: int | None = None,
) -> Provenance:
    """Build a :class:`Provenance` stamped with the current versions and time."""
    from . import __version__

    env = {"python": platform.python_version(), "numpy": np.__version__, "pandas": pd.__version__}
    torch = sys.modules.get("torch")  # only when a neural model ran: never import torch here
    if torch is not None:
        env["torch"] = str(torch.__version__)
        env["device"] = "cuda" if torch.cuda.is_available() else "cpu"
    from ._hashing import FINGERPRINT_PARAMS

    comps = dict(components or {})
    readable = {name: FINGERPRINT_PARAMS[fp] for name, fp in comps.items()
                if isinstance(fp, str) and fp in FINGERPRINT_PARAMS}
    return Provenance(
        ranklens_version=__version__,
        created_utc=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        params=_jsonable(dict(params or {})),
        components=comps,
        inputs=dict(inputs or {}),
        seed=seed,
        environment=env,
        component_params=readable,
    )


def _write_table(frame: pd.DataFrame, path: Path) -> dict[str, str]:
    frame.to_csv(path, sep="\t", index=False, compression="gzip")
    return {str(c): str(t) for c, t in frame.dtypes.items()}


def _check_table_name(name: object, where: object, *, loading: bool = False) -> None:
    """Table names are file names inside the result directory: letters, digits, ``-``, ``_``."""
    ok = isinstance(name, str) and name and name.replace("_", "").replace("-", "").isalnum() and name.isascii()
    if ok:
        return
    if loading:
        raise DataFormatError(f"table name {name!r} is not alphanumeric (with - or _); refusing to read a "
                              f"file outside the result directory", path=where)
    raise ValidationError(f"{where}: table name {name!r} must be alphanumeric (with - or _)")


@dataclass(frozen=True, kw_only=True)
class Result:
    """Summary figures, a per-item table, optional further tables, and provenance.

    Attributes:
        kind: analysis name, e.g. ``"asl-evaluate"``, ``"probe"``, ``"n2o"``; the report's
            section renderer is chosen by it.
        summary: JSON-serialisable figures (the headline numbers).
        table: the per-item table (per query, per sample, per document ...).
        tables: further named tables.
        provenance: versions, parameters, fingerprints, input hashes, seed.
        warnings: why a number may not mean what it seems (degenerate input, skipped models,
            deviations from the paper); printed by the CLI and shown in the report.
    """

    kind: str
    summary: Mapping[str, Any]
    table: pd.DataFrame
    provenance: Provenance
    tables: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def with_warnings(self, *warnings: str) -> Result:
        """A copy with ``warnings`` added (duplicates dropped)."""
        new = tuple(w for w in warnings if w not in self.warnings)
        return dataclasses.replace(self, warnings=(*self.warnings, *new)) if new else self

    def with_analysis_params(self, params: Mapping[str, Any]) -> Result:
        """A copy whose provenance records the analysis's ``Params`` (as a plain dict)."""
        prov = dataclasses.replace(self.provenance, analysis_params=dict(params))
        return dataclasses.replace(self, provenance=prov)

    def save(self, directory: str | os.PathLike[str], *, plots: Sequence[str] = ()) -> Path:
        """Write the result directory atomically: a unique temp dir (``mkdtemp``) renamed into
        place, so concurrent saves of one target never clash and a reader sees a whole result.
        The directory gets the usual permissions under the umask (not ``mkdtemp``'s 0700).
        ``plots`` (``module:function`` specs) are drawn into the temp dir too, so a concurrent
        save of the same target never swaps the directory away under a half-written chart.

        Raises:
            OutputError: the target or a parent is a file, or the location is not writable.
            ValidationError: a table name that is not alphanumeric (with ``-``/``_``).
        """
        target = Path(directory)
        if target.exists() and not target.is_dir():
            raise OutputError("result directory is a file; choose another --out", path=target)
        for name in self.tables:
            _check_table_name(name, target)
        ensure_dir(target.parent, what="results directory")
        try:
            tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        except OSError as exc:
            raise OutputError(f"cannot write here ({exc.strerror}); choose a writable --out", path=target) from None
        try:
            self._write_into(tmp)
            if plots:
                _save_plots(self, plots, tmp)
            os.chmod(tmp, umask_mode(0o777))
            replace_dir(tmp, target, "result directory")  # the one swap (ranklens.files)
        except BaseException as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            problem = disk_problem(exc)
            if problem is not None and not isinstance(exc, OutputError):
                raise OutputError(f"cannot write the result: {problem} (no partial result was left)",
                                  path=target) from exc
            raise
        return target

    def _write_into(self, tmp: Path) -> None:
        schemas = {"table": _write_table(self.table, tmp / "table.tsv.gz")}
        for name, frame in self.tables.items():
            schemas[name] = _write_table(frame, tmp / f"{name}.tsv.gz")
        meta = {
            "schema_version": _SCHEMA_VERSION,
            "kind": self.kind,
            "summary": _jsonable(dict(self.summary)),
            "provenance": self.provenance.to_dict(),
            "tables": schemas,
            "warnings": [str(w) for w in self.warnings],
        }
        # the digest lets a reader tell a result edited after saving (see ranklens._resultfile)
        meta["digest"] = content_digest(json.loads(json.dumps(meta)),
                                        {name: (tmp / f"{name}.tsv.gz").read_bytes() for name in schemas})
        (tmp / "result.json").write_text(json.dumps(meta, indent=2, sort_keys=True))
        mode = umask_mode(0o666)
        for f in tmp.iterdir():
            os.chmod(f, mode)

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> Result:
        """Reload a saved result (no model is needed). A result saved under a kind name from
        before the analyses' one-name rename (``probe-table``, ``n2o-matrix``, ...) is read under
        its current name (``Analysis.renamed_kinds``, :func:`ranklens.registry.current_kind`), so that the report finds its section and plots.

        Raises:
            DataFormatError: no/invalid ``result.json``, or a table name in it that would read a
                file outside the result directory.
        """
        d = Path(directory)
        meta_path = d / "result.json"
        if not meta_path.is_file():
            raise DataFormatError("not a ranklens result directory (no result.json)", path=d)
        meta = read_meta(meta_path)  # schema-checked: a located error names the key path and the fix
        schemas = meta["tables"]
        for name in schemas:
            _check_table_name(name, meta_path, loading=True)
        if "table" not in schemas:
            raise DataFormatError("tables.table: missing (every result has a main table); the file was edited or "
                                  "is not a ranklens result", path=meta_path)
        read = {name: read_table(d / f"{name}.tsv.gz", schema) for name, schema in schemas.items()}
        kind = _current_kind(meta["kind"])
        warnings = tuple(meta["warnings"])
        if meta["schema_version"] >= 2 and content_digest(meta, {n: raw for n, (_, raw) in read.items()}
                                                          ) != meta["digest"]:
            warnings += (edited_warning(meta_path),)
        rename = _measure_renamer(kind)
        summary = {rename(k): v for k, v in meta["summary"].items()} if rename else meta["summary"]
        frames = {n: _renamed_frame(f, rename) if rename else f for n, (f, _) in read.items()}
        check_summary(summary, _declared_summary(kind), meta_path, kind)  # the types the report reads
        return cls(
            kind=kind,
            summary=summary,
            table=frames["table"],
            tables={name: frame for name, frame in frames.items() if name != "table"},
            provenance=Provenance.from_dict(meta["provenance"]),
            warnings=warnings,
        )

    def to_frame(self) -> pd.DataFrame:
        """The per-item table (a copy)."""
        return self.table.copy()

    def plot(self) -> list[Any]:
        """The kind's declared plots as matplotlib figures (a str in the list: why a chart is left out)."""
        from .declare import resolve
        from .registry import kind_info

        info = kind_info(self.kind)
        out: list[Any] = []
        for spec in (getattr(info, "plots", None) or ()):
            figs = resolve(spec)(self)
            out.extend(figs if isinstance(figs, list) else [figs])
        return out

    def _repr_html_(self) -> str:  # notebook view: warnings, summary, plots inline, the table's head
        import base64
        import html
        import io

        warn = "".join(f"<li>{html.escape(str(w))}</li>" for w in self.warnings)
        rows = "".join(
            f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(f'{v:.4f}' if isinstance(v, float) else str(v))}"
            f"</td></tr>" for k, v in self.summary.items() if not isinstance(v, (dict, list)))
        imgs = []
        try:
            import matplotlib.pyplot as plt

            for fig in self.plot():
                if isinstance(fig, str):
                    imgs.append(f"<p><i>{html.escape(fig)}</i></p>")
                    continue
                fig = getattr(fig, "figure", fig)
                buf = io.BytesIO()
                fig.savefig(buf, format="png", dpi=80)
                plt.close(fig)
                imgs.append(f'<img src="data:image/png;base64,{base64.b64encode(buf.getvalue()).decode()}"/>')
        except Exception as exc:  # a display must not fail: say why the plots are missing
            imgs.append(f"<p><i>plots not shown: {html.escape(type(exc).__name__)}: {html.escape(str(exc))}</i></p>")
        return (f"<div class='ranklens-result'><h4>{html.escape(self.kind)}</h4>"
                + (f"<ul class='warnings'>{warn}</ul>" if warn else "") + f"<table>{rows}</table>" + "".join(imgs)
                + self.table.head(20).to_html(escape=True) + "</div>")


class ResultList(list):  # type: ignore[type-arg]
    """The results of one analysis call: a list of :class:`Result` that displays in a notebook."""

    def to_frame(self) -> pd.DataFrame:
        """The main tables stacked, with a ``kind`` column."""
        return pd.concat([r.table.assign(kind=r.kind) for r in self], ignore_index=True) if self else pd.DataFrame()

    def plot(self) -> list[Any]:
        return [fig for r in self for fig in r.plot()]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):  # by kind
            for r in self:
                if r.kind == key:
                    return r
            raise KeyError(f"no result of kind {key!r}; kinds: {[r.kind for r in self]}")
        return super().__getitem__(key)

    def _repr_html_(self) -> str:
        return "".join(r._repr_html_() for r in self)

    def __repr__(self) -> str:
        return "ResultList([" + ", ".join(f"<{r.kind}: {len(r.table)} rows>" for r in self) + "])"


def _current_kind(kind: str) -> str:
    from .registry import current_kind  # lazy: the registry loads the analyses' declarations

    return current_kind(str(kind))


def _measure_renamer(kind: str) -> Callable[[str], str] | None:
    """Old -> current measure spelling for a saved result of ``kind`` (``Analysis.renamed_measures``):
    a name, or its last ``/`` part, equal to an old measure or to ``old@cutoff``; ``None`` when the
    kind's analysis renamed none."""
    from .registry import renamed_measures  # lazy, as above

    names = renamed_measures(kind)
    if not names:
        return None

    def rename(key: str) -> str:
        head, sep, last = str(key).rpartition("/")
        base, at, cut = last.partition("@")
        return f"{head}{sep}{names[base]}{at}{cut}" if base in names else key

    return rename


def _renamed_frame(frame: pd.DataFrame, rename: Callable[[str], str]) -> pd.DataFrame:
    frame = frame.rename(columns=rename)
    if "measure" in frame.columns:  # text values renamed; anything else left as it is
        frame["measure"] = frame["measure"].map(lambda v: rename(v) if isinstance(v, str) else v)
    return frame


def _declared_summary(kind: str) -> Mapping[str, str]:
    """The summary types the kind's declaration gives (``ResultKind.summary``; none for an undeclared kind)."""
    from .registry import kind_info  # lazy, as above

    info = kind_info(kind)
    return getattr(info, "summary", None) or {}


# --------------------------------------------------------------------------------------------
# saving a door's results
# --------------------------------------------------------------------------------------------

_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


def safe_name(name: str) -> str:
    """A name usable as one directory name: no separators, no leading dots (``"/../x"`` -> ``"x"``)."""
    out = _UNSAFE.sub("_", str(name)).strip("._") or "_"
    return out[:120]


def save_results(results: Sequence[Any], out_dir: str | Path, *, plots: bool = True,
                 skipped: Mapping[str, str] | None = None) -> list[Path]:
    """Each result under ``out_dir/<kind>/`` (``<kind>-2`` ... when a kind repeats), with the PNG
    plots its kind declares; ``skipped.json`` lists the models an analysis could not use."""
    from .registry import kind_info  # the kinds' declared plots (registry is core; imported late)

    out = ensure_dir(out_dir, what="results directory")
    if skipped:
        write_text_atomic(out / "skipped.json", json.dumps(skipped, indent=2), what="skipped-models file")
    dirs: list[Path] = []
    seen: dict[str, int] = {}
    for res in results:
        n = seen[res.kind] = seen.get(res.kind, 0) + 1
        info = kind_info(res.kind)
        d = res.save(out / (safe_name(res.kind) if n == 1 else f"{safe_name(res.kind)}-{n}"),
                     plots=info.plots if plots and info is not None else ())
        dirs.append(Path(d))
    return dirs


def _save_plots(res: Any, specs: Sequence[str], d: Path) -> None:
    import matplotlib

    from .declare import resolve

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    for spec in specs:
        figs = resolve(spec)(res)
        figs = figs if isinstance(figs, list) else [figs]
        base = spec.rpartition(":")[2].removeprefix("plot_")
        notes = [f for f in figs if isinstance(f, str)]  # a str: why a degenerate chart is left out
        if notes:  # degenerate is not silent: the reason sits where the chart would have been
            write_text_atomic(d / f"{base}.left-out.txt", "\n".join(notes) + "\n", what="left-out note")
        for i, fig in enumerate(f for f in figs if not isinstance(f, str)):
            fig = getattr(fig, "figure", fig)
            name = base + (f"-{i + 1}" if i else "")
            try:
                with atomic_output(d / f"{name}.png", what="plot") as tmp:
                    fig.savefig(tmp, dpi=110, format="png")
            finally:
                plt.close(fig)


class _ResultsModule(type(sys)):
    """``rl.results(DIR)``: this module, called, opens the results store of ``DIR``
    (:class:`ranklens.store.ResultsStore`) -- the name ``ranklens.results`` is both."""

    def __call__(self, directory: str | os.PathLike[str]) -> Any:
        import importlib  # not `from .store import`: the store imports this module

        return importlib.import_module(".store", __package__).ResultsStore(directory)


sys.modules[__name__].__class__ = _ResultsModule
