"""One result as the report shows it: findings, its paper-shaped (or small main) table, its main
figures; everything else (more figures, per-item tables, provenance) folded."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..results import Result
from .tables import Ids, parenthesise, table_html

__all__ = ["ResultView", "figures", "main_frame", "paper_frame", "result_view"]

OPEN_FIGURES = 2          # figures shown before the fold
MAIN_TABLE_ROWS = 12      # a result table this small is its main table (when no paper table)
MAIN_PAGE_ROWS = 40       # a paper table is paginated only beyond this
MIN_FONT_PT = 9.0         # labels at report size
PAIR_WIDTH_IN = 5.5       # two figures side by side in the page's width
HIDDEN_COLUMNS = ("hash", "fingerprint", "describe")  # column-name endings kept out of shown tables


def kind_info(kind: str) -> Any:
    from ..registry import kind_info as _ki

    return _ki(kind)


def _resolve(spec: str) -> Any:
    from ..declare import resolve

    return resolve(spec)


@dataclass
class ResultView:
    name: str
    kind: str
    title: str
    anchor: str
    findings: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)      # plots left out, and why
    main_table: str = ""
    main_table_title: str = ""
    figures: list[str] = field(default_factory=list)    # shown
    more_figures: list[str] = field(default_factory=list)
    tables: list[dict[str, str]] = field(default_factory=list)  # folded
    extra_html: str = ""
    fold_extra: bool = False  # the extra HTML goes under the fold when a paper table comes first
    provenance: str = ""
    models: list[str] = field(default_factory=list)
    primary: bool = True


def _readable(fig: Any) -> None:
    """Labels of at least MIN_FONT_PT points (the report shows figures at their natural size)."""
    from matplotlib.text import Text

    for t in fig.findobj(Text):
        if t.get_text() and t.get_fontsize() < MIN_FONT_PT:
            t.set_fontsize(MIN_FONT_PT)


def figures(result: Result) -> tuple[list[str], list[str], list[str]]:
    """(inline SVGs, notes of plots left out, errors). A plot function may return a string: a
    note saying why it draws nothing (a degenerate chart)."""
    info = kind_info(result.kind)
    specs = list(info.plots) if info is not None else []
    svgs: list[str] = []
    notes: list[str] = []
    errors: list[str] = []
    if not specs:
        return svgs, notes, errors
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made: list[Any] = []
    for spec in specs:
        try:
            with plt.rc_context({"font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10,
                                 "xtick.labelsize": 9, "ytick.labelsize": 9, "legend.fontsize": 9}):
                figs = _resolve(spec)(result)
        except Exception as exc:  # a broken plot must not lose the rest of the report
            errors.append(f"plot {spec} failed: {type(exc).__name__}: {exc}")
            continue
        for fig in figs if isinstance(figs, (list, tuple)) else [figs]:
            if fig is None:
                continue
            if isinstance(fig, str):
                notes.append(fig)
                continue
            if not hasattr(fig, "savefig"):  # an Axes (or array of them): draw its figure
                fig = getattr(fig, "figure", None) or getattr(getattr(fig, "flat", [None])[0], "figure", None)
                if fig is None:
                    errors.append(f"plot {spec} returned neither a Figure nor an Axes")
                    continue
            _readable(fig)
            made.append(fig)
    _fit_pair(made[:OPEN_FIGURES])
    for fig in made:
        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight")
        plt.close(fig)
        svg = buf.getvalue()
        svgs.append(svg[svg.find("<svg"):])
    return svgs, notes, errors


def _fit_pair(figs: list[Any]) -> None:
    """Two figures shown side by side: narrow each to half the page (fonts keep their size in
    points, so labels stay readable; the layout is redone)."""
    import warnings

    if len(figs) != 2 or sum(f.get_size_inches()[0] for f in figs) <= 2 * PAIR_WIDTH_IN:
        return
    for fig in figs:
        w, h = fig.get_size_inches()
        # a legend anchored outside its axes would squeeze the data: such a figure keeps its width
        outside = fig.legends or any(getattr(a.get_legend(), "_bbox_to_anchor", None) is not None
                                     for a in fig.axes if a.get_legend() is not None)
        if PAIR_WIDTH_IN < w <= 1.5 * PAIR_WIDTH_IN and not outside:
            fig.set_size_inches(PAIR_WIDTH_IN, h)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if not fig.get_constrained_layout():
                    fig.tight_layout()


def paper_frame(result: Result) -> pd.DataFrame | None:
    info = kind_info(result.kind)
    spec = info.paper_table if info is not None else None
    if spec is None:
        return None
    frame = _resolve(spec)(result)
    return frame.drop(columns=[c for c in ("symmetric",) if c in frame.columns])


def shown_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` without hash/fingerprint columns and all-empty columns (kept in the TSV)."""
    drop = [c for c in frame.columns if str(c).lower().endswith(HIDDEN_COLUMNS)
            or (len(frame) and frame[c].isna().all())]
    return frame.drop(columns=drop)


def main_frame(result: Result) -> tuple[str, pd.DataFrame | None]:
    """The table shown first: the paper table, else the per-item table when it is small."""
    paper = paper_frame(result)
    if paper is not None:
        return "paper table (values in parentheses: not significant)", paper
    # an analysis's own paper-shaped or summary table first
    for t in (result.tables.get("paper"), result.tables.get("summary"), result.table):
        if isinstance(t, pd.DataFrame) and 0 < len(t) <= MAIN_TABLE_ROWS and len(t.columns) <= 16:
            return "", shown_columns(t)
    return "", None


def _models(result: Result) -> list[str]:
    t = result.table
    if "model" in t.columns:
        return [str(m) for m in dict.fromkeys(t["model"].astype(str))]
    return []


def result_view(result: Result, *, name: str, anchor: str, ids: Ids, max_rows: int,
                places: int | None = None, dataset: str = "") -> ResultView:
    """Everything the HTML report shows of one result."""
    info = kind_info(result.kind)
    view = ResultView(name=name, kind=result.kind, title=(info.title if info is not None and info.title else result.kind),
                      anchor=anchor, warnings=[str(w) for w in result.warnings], models=_models(result),
                      primary=info is not None and bool(info.findings or info.paper_table or info.extra_html))
    if info is not None and info.findings:
        try:
            view.findings = [str(s) for s in _resolve(info.findings)(result)]
        except Exception as exc:
            view.errors.append(f"findings {info.findings} failed: {type(exc).__name__}: {exc}")
    svgs, view.notes, errs = figures(result)
    view.errors += errs
    view.figures, view.more_figures = svgs[:OPEN_FIGURES], svgs[OPEN_FIGURES:]
    try:
        view.main_table_title, main = main_frame(result)
    except Exception as exc:
        main = None
        view.errors.append(f"paper table failed: {type(exc).__name__}: {exc}")
    if main is not None:
        view.main_table = table_html(parenthesise(main, places), ids, max_rows=max_rows, places=places,
                                     cls="main", page=MAIN_PAGE_ROWS)
    stem = name.replace("/", "_")
    view.tables.append({"title": f"per-item table ({len(result.table):,} rows)",
                        "html": table_html(shown_columns(result.table), ids, max_rows=max_rows, places=places,
                                           download=f"{stem}.tsv", full=result.table)})
    for tname, frame in result.tables.items():
        view.tables.append({"title": f"{tname} ({len(frame):,} rows)",
                            "html": table_html(shown_columns(frame), ids, max_rows=max_rows, places=places,
                                               download=f"{stem}.{tname}.tsv", full=frame)})
    if info is not None and info.extra_html:
        try:
            view.extra_html = _resolve(info.extra_html)(result)
            view.fold_extra = bool(info.paper_table)
        except Exception as exc:
            view.errors.append(f"{info.extra_html} failed: {type(exc).__name__}: {exc}")
    view.provenance = json.dumps(result.provenance.to_dict(), indent=2, sort_keys=True)
    return view
