"""One self-contained report for all analyses: HTML (inline CSS/JS/SVG, no CDN), Markdown, LaTeX.

What a reader sees first: a headline table (one small table per result: its headline metrics by
model, best in bold, significance against a baseline; :mod:`.headline`), then one section per
analysis that opens with generated findings (numbers, n, significance; :mod:`.findings`), then per
result its paper-shaped table and main figures; everything else (more figures, per-item tables
paginated and downloadable as TSV, provenance) is folded (:mod:`.views`). A table of contents
follows the page; each section has a model filter; rationales are paginated by query.

Every text from a dataset or model is escaped (Jinja2 autoescape plus :func:`html.escape` in the
table renderer). Charts are matplotlib figures embedded as inline SVG. Sections, plots, HTML extras,
paper tables, findings and headline metrics come from each analysis's declaration
(:mod:`ranklens.registry`, :class:`ranklens.declare.ResultKind`).

``--format md`` gives the headline, the findings and the paper tables only, ready to paste.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import ValidationError
from ..results import Result
from .diffview import diff_html
from .headline import LEGEND, Block, headline_block, headline_html, headline_markdown
from .tables import MAX_ROWS, Ids, fmt, parenthesise, table_html
from .views import kind_info, main_frame, result_view

__all__ = ["Report", "load_results", "table_html"]



def _family(kind: str) -> str:
    from ..registry import owner_of

    owner = owner_of(kind)
    return "Other results" if owner is None else owner.title


def _order(kind: str) -> tuple[int, int]:
    """(analysis position, kind position in its declaration)."""
    from ..registry import analyses, owner_of

    owner = owner_of(kind)
    names = list(analyses())
    if owner is None:
        return len(names), 0
    kinds = [k.name for k in owner.kinds]
    return names.index(owner.name) if owner.name in names else len(names), (
        kinds.index(kind) if kind in kinds else len(kinds))


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
            _labels(meta.parent)  # a damaged labels file is an error in every format, not only where shown
    return found


def _labels(path: Path) -> dict[str, Any]:
    from ..store import read_labels  # checked: a located error for a damaged labels file

    return read_labels(path)


@dataclass
class _Item:
    path: Path
    result: Result
    name: str        # unique label of the result (its directory, with its parent's on a clash)
    dataset: str     # the store's dataset label, if any
    anchor: str
    label: str = ""  # what tells it apart from the other results of its kind: dataset and/or name


@dataclass
class Report:
    """Render results into one HTML file (or Markdown / LaTeX).

    ``places``: decimals of every number (default ``None``: 3 significant digits);
    ``baseline``: the model the headline's significance marks compare with (default: the
    result's own baseline, else ``bm25``, else its first model); ``notes``: lines shown under the
    title (e.g. the demo's settings); ``diff``: a :class:`ranklens.diff.ResultsDiff` shown as a
    "Results diff" section after the headline (``ranklens report DIR --diff OTHER``)."""

    results: Sequence[tuple[Path, Result]]
    title: str = "ranklens report"
    notes: Sequence[str] = ()
    max_rows: int = MAX_ROWS
    places: int | None = None
    baseline: str | None = None
    diff: Any = None

    @classmethod
    def from_dirs(cls, paths: Iterable[str | os.PathLike[str]], **kw: Any) -> Report:
        """The results at or below ``paths``. Without ``title``/``notes``, those a runner recorded in
        the folders (:func:`ranklens.store.write_report_notes`: the demo's settings) are shown."""
        from ..store import read_report_notes

        paths = list(paths)
        if kw.get("title") is None or "notes" not in kw:
            recorded = [read_report_notes(p) for p in paths if Path(p).is_dir()]
            titles = list(dict.fromkeys(t for t, _ in recorded if t))
            if kw.get("title") is None:
                kw["title"] = titles[0] if len(titles) == 1 else "ranklens report"
            kw.setdefault("notes", list(dict.fromkeys(n for _, ns in recorded for n in ns)))
        return cls(load_results(paths), **kw)

    def _items(self, ids: Ids) -> list[_Item]:
        names = [p.name for p, _ in self.results]
        clash = {n for n in names if names.count(n) > 1}
        items = [_Item(p, r, f"{p.parent.name}/{p.name}" if p.name in clash else p.name,
                       str(_labels(p).get("dataset") or ""), ids.next("res")) for p, r in self.results]
        several = len({it.dataset for it in items}) > 1
        keys = [(it.result.kind, it.dataset if several else "") for it in items]
        for it, key in zip(items, keys):
            parts = [it.dataset if several else "", it.name if keys.count(key) > 1 else ""]
            it.label = " · ".join(dict.fromkeys(x for x in parts if x))
        return sorted(items, key=lambda it: _order(it.result.kind))  # stable: input order within a kind

    def _blocks(self, items: list[_Item]) -> list[Block]:
        blocks = []
        for it in items:
            fam = _family(it.result.kind)
            info = kind_info(it.result.kind)
            kind_title = info.title if info is not None and info.title else it.result.kind
            title = fam if kind_title in (fam, "") else f"{fam}: {kind_title}"
            b = headline_block(it.result, section=title, label=it.label, anchor=it.anchor,
                               dataset=it.dataset, baseline=self.baseline)
            if b is not None:
                blocks.append(b)
        return blocks

    # ---------------------------------------------------------------- HTML
    def render_html(self) -> str:
        from jinja2 import Environment

        from .. import __version__

        ids = Ids()
        items = self._items(ids)
        sections: dict[str, dict[str, Any]] = {}
        for it in items:
            fam = _family(it.result.kind)
            sec = sections.setdefault(fam, {"title": fam, "anchor": ids.next("sec"), "results": [],
                                            "findings": [], "models": [], "warnings": []})
            view = result_view(it.result, name=it.name, anchor=it.anchor, ids=ids, max_rows=self.max_rows,
                               places=self.places, dataset=it.dataset)
            sec["results"].append({"view": view, "label": it.label})
            sec["findings"] += [{"title": view.title, "label": it.label, "anchor": it.anchor, "text": f}
                                for f in view.findings]
            sec["warnings"] += [w for w in view.warnings if w not in sec["warnings"]]
            sec["models"] += [m for m in view.models if m not in sec["models"]]
        index = pd.DataFrame([{"section": _family(it.result.kind), "kind": it.result.kind, "result": it.name,
                               "dataset": it.dataset, "rows": len(it.result.table),
                               "created": it.result.provenance.created_utc} for it in items])
        blocks = self._blocks(items)
        tmpl = Environment(autoescape=True).from_string(_asset("templates/report.html.j2"))
        return tmpl.render(
            title=self.title, notes=list(self.notes), version=__version__, n_results=len(items),
            generated=_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            sections=list(sections.values()), headline=headline_html(blocks, self.places) if blocks else "",
            legend=LEGEND if self.places is None else LEGEND.replace("3 significant digits", f"{self.places} decimals"),
            index_table=table_html(index, ids, links=("result", {it.name: it.anchor for it in items}))
            if len(index) else "",
            css=_asset("static/report.css"), js=_asset("static/report.js"),
            diff=diff_html(self.diff, ids, places=self.places) if self.diff is not None else "",
        )

    # ---------------------------------------------------------------- Markdown / LaTeX
    def render_markdown(self) -> str:
        """The headline, the findings and the paper tables, ready to paste into a paper draft or
        an issue (values in parentheses: not significant)."""
        ids = Ids()
        items = self._items(ids)
        out = [f"# {_md_text(self.title)}", ""]
        if self.notes:
            out += [*(f"> {_md_text(n)}  " for n in self.notes), ""]
        blocks = self._blocks(items)
        if blocks:
            out += ["## Headline", "", headline_markdown(blocks, self.places), f"_{_md_text(LEGEND)}_", ""]
        current = None
        for it in items:
            fam = _family(it.result.kind)
            if fam != current:
                out += [f"## {_md_text(fam)}", ""]
                current = fam
            out += _md_result(it, self.places)
        if self.diff is not None:
            out += ["## Results diff", "", self.diff.to_markdown(changed_only=True)]
        return "\n".join(out)

    def render_latex(self) -> str:
        """LaTeX tables (booktabs). Boolean ``significant``/``*_sig`` columns become superscript
        marks on the value column to their left. Every text is escaped (captions, column names,
        cells: a kind or directory named ``\\input{...}`` prints as text); a result's warnings
        come before its table as LaTeX comments."""
        out = []
        for path, res in self.results:
            _, main = main_frame(res)
            frame = _latex_marks(main if main is not None else res.table.head(60), self.places)
            cap = _latex_escape(f"{path.name} ({res.kind})")
            notes = "".join(f"% warning: {_latex_escape(str(w))}\n" for w in res.warnings)
            out.append(notes + frame.to_latex(index=False, escape=False, caption=cap))
        return "\n".join(out)

    def save(self, path: str | os.PathLike[str], *, format: str = "html") -> Path:
        text = {"html": self.render_html, "md": self.render_markdown, "latex": self.render_latex}
        if format not in text:
            raise ValidationError(f"unknown report format {format!r}; use html, md or latex")
        from ..files import write_text_atomic

        # unique temp file in the target directory (two renders of one report never clash);
        # a file or unwritable directory in the way is a located OutputError
        return write_text_atomic(path, text[format](), what="report file")


def _md_result(it: _Item, places: int | None) -> list[str]:
    res = it.result
    info = kind_info(res.kind)
    title = info.title if info is not None and info.title else res.kind
    out = [f"### {_md_text(title)} ({_md_text(it.label or it.name)})", ""]
    if info is not None and info.findings:
        from ..declare import resolve

        try:
            found = [f"- {_md_text(s)}" for s in resolve(info.findings)(res)]
            out += found + ([""] if found else [])
        except Exception as exc:
            out += [f"- findings failed: {_md_text(type(exc).__name__)}: {_md_text(str(exc))}", ""]
    out += [f"- warning: {_md_text(str(w))}" for w in res.warnings] + ([""] if res.warnings else [])
    try:
        caption, main = main_frame(res)
    except Exception as exc:
        return out + [f"_paper table failed: {_md_text(type(exc).__name__)}: {_md_text(str(exc))}_", ""]
    if main is not None:
        out += [_md_table(parenthesise(main, places), places), ""]
        if caption:
            out += [f"_{_md_text(caption)}_", ""]
    return out


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text()


def _md_text(s: str) -> str:
    """Markdown text with HTML's ``&``, ``<``, ``>`` escaped (Markdown renderers pass raw HTML
    through, so a dataset or model name could otherwise inject markup)."""
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _md_escape(v: Any, places: int | None = None) -> str:
    return _md_text(fmt(v, places)[0]).replace("|", r"\|").replace("\n", " ")


def _md_table(frame: pd.DataFrame, places: int | None = None) -> str:
    cols = [_md_text(str(c)) for c in frame.columns]
    lines = ["| " + " | ".join(c.replace("|", r"\|") for c in cols) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(_md_escape(v, places) for v in row) + " |")
    return "\n".join(lines)


_LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def _latex_escape(s: str) -> str:
    """``s`` as LaTeX text: the ten special characters escaped, line breaks and other control
    characters turned into spaces (a blank line inside a table cell would end the paragraph)."""
    return "".join(_LATEX_SPECIAL.get(ch, " " if ch < " " or ch == "\x7f" else ch) for ch in s)


def _latex_marks(frame: pd.DataFrame, places: int | None = None) -> pd.DataFrame:
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
        vals = [_latex_escape(fmt(v, places)[0]) for v in frame[c]]
        if c in marks:
            vals = [v + (r"$^{*}$" if bool(m) else "") for v, m in zip(vals, marks[c])]
        out[_latex_escape(str(c))] = vals
    return out
