"""One self-contained report for all analyses: HTML (inline CSS/JS/SVG, no CDN), Markdown, LaTeX.

Every text from a dataset or model is escaped (Jinja2 autoescape plus :func:`html.escape` in the
table renderer). Charts are matplotlib figures embedded as inline SVG. Sections are chosen by
``Result.kind``: each analysis's declaration (:mod:`ranklens.registry`) names its section title and,
per result kind, its plots, extra HTML blocks (e.g. highlighted rationales) and paper table.
"""

from __future__ import annotations

import datetime as _dt
import html
import io
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import ValidationError
from ..results import Result

__all__ = ["Report", "load_results"]

# Sections, plots, HTML extras and paper tables come from the analyses' declarations
# (ranklens.registry): an analysis's title is its section; each result kind declares its
# plots (``fn(result)`` -> Figure/Axes/list; a failing plot is reported in its section), an HTML
# fragment (it must escape its own text) and a paper-shaped table (boolean ``X_sig`` columns mark
# column ``X`` as significant: non-significant values in parentheses in HTML/Markdown,
# significant ones with a superscript * in LaTeX).


def _kind(kind: str) -> Any:
    from ..registry import kind_info

    return kind_info(kind)


MAX_ROWS = 400


def _family(kind: str) -> str:
    from ..registry import owner_of

    owner = owner_of(kind)
    return "Other results" if owner is None else owner.title


def _family_order(title: str) -> int:
    from ..registry import analyses

    titles = list(dict.fromkeys(a.title for a in analyses().values()))
    return titles.index(title) if title in titles else len(titles)


def load_results(paths: Iterable[str | os.PathLike[str]]) -> list[tuple[Path, Result]]:
    """Every result directory at or below ``paths`` (sorted, hidden dirs skipped)."""
    found: list[tuple[Path, Result]] = []
    for p in paths:
        root = Path(p)
        if not root.exists():
            raise ValidationError(f"{root}: no such results directory")
        metas = [root / "result.json"] if (root / "result.json").is_file() else sorted(root.rglob("result.json"))
        for meta in metas:
            rel = meta.parent.relative_to(root) if meta.parent != root else Path(".")
            if any(part.startswith(".") for part in rel.parts):
                continue
            found.append((meta.parent, Result.load(meta.parent)))
    return found


def _fmt(v: Any) -> tuple[str, str, bool]:
    """(display text, sort value, is_number)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "", "", False
    if isinstance(v, bool):
        return ("✓" if v else "✗"), str(int(v)), True
    if isinstance(v, (int,)) or (hasattr(v, "dtype") and str(getattr(v, "dtype", "")).startswith("int")):
        return f"{int(v)}", f"{int(v)}", True
    if isinstance(v, float) or hasattr(v, "dtype"):
        try:
            f = float(v)
        except (TypeError, ValueError):
            return str(v), str(v), False
        if f != 0 and (abs(f) < 1e-3 or abs(f) >= 1e6):
            return f"{f:.3g}", repr(f), True
        return f"{f:.4f}".rstrip("0").rstrip(".") if "." in f"{f:.4f}" else f"{f:.4f}", repr(f), True
    return str(v), str(v), False


class _Ids:
    def __init__(self) -> None:
        self.n = 0

    def next(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"


def table_html(frame: pd.DataFrame, ids: _Ids, *, max_rows: int = MAX_ROWS,
               links: tuple[str, Mapping[str, str]] | None = None) -> str:
    """A sortable, escaped HTML table (with a model filter when a ``model`` column exists).

    ``links = (column, {value: anchor})`` makes that column's cells links to ``#anchor`` (the
    result a number comes from, with its provenance)."""
    tid = ids.next("tbl")
    shown = frame.head(max_rows)
    cols = [str(c) for c in frame.columns]
    parts = []
    if "model" in cols and frame["model"].nunique() > 1:
        col = cols.index("model")
        opts = "".join(f'<option value="{html.escape(str(m))}">{html.escape(str(m))}</option>'
                       for m in sorted(frame["model"].astype(str).unique()))
        parts.append(f'<div class="controls">model: <select class="model-filter" data-table="{tid}" '
                     f'data-col="{col}"><option value="">all</option>{opts}</select></div>')
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = []
    link_at = cols.index(links[0]) if links is not None and links[0] in cols else -1
    for row in shown.itertuples(index=False):
        cells = []
        for i, v in enumerate(row):
            text, key, num = _fmt(v)
            cls = ' class="num"' if num else ""
            shown_text = html.escape(text)
            if i == link_at and links is not None and text in links[1]:
                shown_text = f'<a href="#{html.escape(links[1][text])}">{shown_text}</a>'
            cells.append(f'<td{cls} data-v="{html.escape(key)}">{shown_text}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    parts.append(f'<div class="tablewrap"><table class="sortable" id="{tid}"><thead><tr>{head}</tr></thead>'
                 f'<tbody>{"".join(body)}</tbody></table></div>')
    if len(frame) > max_rows:
        parts.append(f'<p class="note">{max_rows} of {len(frame)} rows shown; the full table is in the '
                     "result directory.</p>")
    return "".join(parts)


def _summary_frame(summary: dict[str, Any]) -> pd.DataFrame | None:
    flat = []
    for k, v in summary.items():
        if k == "rows":
            continue
        if isinstance(v, (str, int, float, bool)) or v is None:
            flat.append((k, v))
        elif isinstance(v, dict) and all(not isinstance(x, (dict, list)) for x in v.values()) and len(v) <= 12:
            flat.append((k, ", ".join(f"{a}={_fmt(b)[0]}" for a, b in v.items())))
    if not flat:
        return None
    return pd.DataFrame(flat, columns=["figure", "value"])


def _resolve(spec: str) -> Any:
    from ..declare import resolve

    return resolve(spec)


def _figure_svgs(result: Result) -> tuple[list[str], list[str]]:
    svgs, errors = [], []
    info = _kind(result.kind)
    specs = list(info.plots) if info is not None else []
    if not specs:
        return svgs, errors
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for spec in specs:
        try:
            figs = _resolve(spec)(result)
        except Exception as exc:  # a broken plot must not lose the rest of the report
            errors.append(f"plot {spec} failed: {type(exc).__name__}: {exc}")
            continue
        for fig in figs if isinstance(figs, (list, tuple)) else [figs]:
            if fig is None:
                continue
            if not hasattr(fig, "savefig"):  # an Axes (or array of them): draw its figure
                fig = getattr(fig, "figure", None) or getattr(getattr(fig, "flat", [None])[0], "figure", None)
                if fig is None:
                    errors.append(f"plot {spec} returned neither a Figure nor an Axes")
                    continue
            buf = io.StringIO()
            fig.savefig(buf, format="svg", bbox_inches="tight")
            plt.close(fig)
            svg = buf.getvalue()
            svgs.append(svg[svg.find("<svg"):])
    return svgs, errors


def _paper_frame(result: Result) -> pd.DataFrame | None:
    info = _kind(result.kind)
    spec = info.paper_table if info is not None else None
    if spec is None:
        return None
    frame = _resolve(spec)(result)
    return frame.drop(columns=[c for c in ("symmetric",) if c in frame.columns])


def _parenthesise(frame: pd.DataFrame) -> pd.DataFrame:
    """``X`` + boolean ``X_sig`` -> one text column: the value, in parentheses when not
    significant, ``-`` when missing."""
    out = pd.DataFrame(index=frame.index)
    cols = [str(c) for c in frame.columns]
    for c in frame.columns:
        sc = str(c)
        if sc.endswith("_sig") and sc[:-4] in cols:
            continue
        if f"{sc}_sig" in cols:
            sig = frame[f"{sc}_sig"].astype(bool)
            out[c] = [("-" if pd.isna(v) else (_fmt(v)[0] if g else f"({_fmt(v)[0]})"))
                      for v, g in zip(frame[c], sig)]
        else:
            out[c] = frame[c]
    return out


@dataclass
class Report:
    """Render results into one HTML file (or Markdown / LaTeX)."""

    results: Sequence[tuple[Path, Result]]
    title: str = "ranklens report"
    max_rows: int = MAX_ROWS
    _ids: _Ids = field(default_factory=_Ids, repr=False)

    @classmethod
    def from_dirs(cls, paths: Iterable[str | os.PathLike[str]], **kw: Any) -> Report:
        return cls(load_results(paths), **kw)

    # ---------------------------------------------------------------- HTML
    def render_html(self) -> str:
        from jinja2 import Environment

        from .. import __version__

        ids = self._ids = _Ids()
        sections: dict[str, dict[str, Any]] = {}
        index_rows = []
        overview_rows = []
        anchors: dict[str, str] = {}
        # a result's label: its directory name, with its parent's where two results share a name
        names = [p.name for p, _ in self.results]
        clash = {n for n in names if names.count(n) > 1}
        for path, res in self.results:
            fam = _family(res.kind)
            sec = sections.setdefault(fam, {"title": fam, "anchor": ids.next("sec"), "family": fam, "results": []})
            anchor = ids.next("res")
            name = f"{path.parent.name}/{path.name}" if path.name in clash else path.name
            svgs, errors = _figure_svgs(res)
            tables = [{"title": f"per-item table ({len(res.table)} rows)", "html": table_html(res.table, ids, max_rows=self.max_rows)}]
            try:
                paper = _paper_frame(res)
            except Exception as exc:
                paper = None
                errors.append(f"paper table failed: {type(exc).__name__}: {exc}")
            if paper is not None:
                tables.insert(0, {"title": "paper table (values in parentheses: not significant)",
                                  "html": table_html(_parenthesise(paper), ids, max_rows=self.max_rows)})
            for tname, frame in res.tables.items():
                tables.append({"title": f"{tname} ({len(frame)} rows)", "html": table_html(frame, ids, max_rows=self.max_rows)})
            extra = ""
            extra_spec = getattr(_kind(res.kind), "extra_html", None)
            if extra_spec:
                try:
                    extra = _resolve(extra_spec)(res)
                except Exception as exc:
                    errors.append(f"{extra_spec} failed: {type(exc).__name__}: {exc}")
            sf = _summary_frame(dict(res.summary))
            sec["results"].append({
                "name": name, "kind": res.kind, "anchor": anchor, "figures": svgs, "errors": errors,
                "summary_table": table_html(sf, ids) if sf is not None else "", "tables": tables,
                "extra_html": extra,
                "provenance": json.dumps(res.provenance.to_dict(), indent=2, sort_keys=True),
            })
            index_rows.append({"section": fam, "kind": res.kind, "result": name,
                               "created": res.provenance.created_utc, "rows": len(res.table)})
            from ..store import LABELS_FILE, summary_rows

            labels = {}
            if (path / LABELS_FILE).is_file():  # the dataset/model labels of the results store
                labels = json.loads((path / LABELS_FILE).read_text())
            rows = summary_rows(res, model=labels.get("model") or "", dataset=labels.get("dataset") or "")
            rows["result"] = name
            anchors[name] = anchor
            rows = rows[rows["model"].astype(str) != ""] if "model" in rows else rows
            overview_rows.append(rows)
        overview = ""
        if overview_rows:
            allrows = pd.concat(overview_rows, ignore_index=True)
            allrows = allrows[allrows["model"].fillna("").astype(str) != ""]
            if not allrows.empty:
                allrows = allrows.assign(dataset=allrows["dataset"].fillna("").astype(str))
                keys = ["analysis", "dataset", "item", "metric", "result"]
                piv = allrows.pivot_table(index=keys, columns="model", values="value", aggfunc="first",
                                          dropna=False).reset_index()
                models = [c for c in piv.columns if c not in keys]
                piv = piv.dropna(axis=0, how="all", subset=models)
                # models that appear in the most rows first (the track's 100 runs after them)
                models.sort(key=lambda c: -int(piv[c].notna().sum()))
                piv = piv[keys + models]
                overview = table_html(piv, ids, max_rows=self.max_rows, links=("result", anchors))
        tmpl = Environment(autoescape=True).from_string(_asset("templates/report.html.j2"))
        return tmpl.render(
            title=self.title, version=__version__, n_results=len(self.results),
            generated=_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            sections=sorted(sections.values(), key=lambda sec: _family_order(sec["title"])), overview=overview,
            index_table=table_html(pd.DataFrame(index_rows), ids, links=("result", anchors)) if index_rows else "",
            css=_asset("static/report.css"), js=_asset("static/report.js"),
        )

    # ---------------------------------------------------------------- Markdown / LaTeX
    def render_markdown(self) -> str:
        out = [f"# {_md_text(self.title)}", ""]
        for path, res in self.results:
            out += [f"## {_md_text(path.name)} ({_md_text(res.kind)})", ""]
            sf = _summary_frame(dict(res.summary))
            if sf is not None:
                out += [_md_table(sf), ""]
            paper = _paper_frame(res)
            if paper is not None:
                out += [_md_table(_parenthesise(paper)), "", "_values in parentheses: not significant_", ""]
                continue
            out += [_md_table(res.table.head(30)), ""]
            if len(res.table) > 30:
                out += [f"_{len(res.table) - 30} more rows in {_md_text(str(path))}_", ""]
        return "\n".join(out)

    def render_latex(self) -> str:
        """LaTeX tables (booktabs). Boolean ``significant``/``*_sig`` columns become superscript
        marks on the value column to their left."""
        out = []
        for path, res in self.results:
            paper = _paper_frame(res)
            frame = _latex_marks(paper if paper is not None else res.table.head(60))
            cap = f"{path.name} ({res.kind})".replace("_", r"\_")
            out.append(frame.to_latex(index=False, escape=False, caption=cap, float_format="%.4f"))
        return "\n".join(out)

    def save(self, path: str | os.PathLike[str], *, format: str = "html") -> Path:
        text = {"html": self.render_html, "md": self.render_markdown, "latex": self.render_latex}
        if format not in text:
            raise ValidationError(f"unknown report format {format!r}; use html, md or latex")
        from ..io._files import write_text_atomic

        # unique temp file in the target directory (two renders of one report never clash);
        # a file or unwritable directory in the way is a located OutputError
        return write_text_atomic(path, text[format](), what="report file")


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text()


def _md_text(s: str) -> str:
    """Markdown text with HTML's ``&``, ``<``, ``>`` escaped (Markdown renderers pass raw HTML
    through, so a dataset or model name could otherwise inject markup)."""
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _md_escape(v: Any) -> str:
    return _md_text(_fmt(v)[0]).replace("|", r"\|").replace("\n", " ")


def _md_table(frame: pd.DataFrame) -> str:
    cols = [_md_text(str(c)) for c in frame.columns]
    lines = ["| " + " | ".join(c.replace("|", r"\|") for c in cols) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(_md_escape(v) for v in row) + " |")
    return "\n".join(lines)


_LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def _latex_escape(s: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in s)


def _latex_marks(frame: pd.DataFrame) -> pd.DataFrame:
    """Escape cells; a boolean ``X_sig`` column marks column ``X`` and ``significant`` marks the
    ``score`` (else ``value``, else the column to its left) with a superscript ``*``."""
    cols = list(frame.columns)
    skip = {c for c in cols if str(c) == "significant" or str(c).endswith("_sig")}
    marks: dict[Any, Any] = {}
    for c in skip:
        sc = str(c)
        if sc.endswith("_sig") and sc[: -len("_sig")] in map(str, cols):
            target = next(x for x in cols if str(x) == sc[: -len("_sig")])
        else:
            target = next((x for x in cols if str(x) in ("score", "value")), None)
            if target is None:
                i = cols.index(c)
                target = cols[i - 1] if i > 0 else None
        if target is not None and target not in skip:
            marks[target] = frame[c]
    out = pd.DataFrame(index=frame.index)
    for c in cols:
        if c in skip:
            continue
        vals = [_latex_escape(_fmt(v)[0]) for v in frame[c]]
        if c in marks:
            vals = [v + (r"$^{*}$" if bool(m) else "") for v, m in zip(vals, marks[c])]
        out[_latex_escape(str(c))] = vals
    return out
