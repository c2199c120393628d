"""Number format and table rendering shared by the HTML, Markdown and LaTeX reports.

One number format everywhere: ``places=None`` gives 3 significant digits (``0.310``, ``6.84``,
``−0.122``, ``1116``), ``places=N`` gives N decimals; integers stay integers; negative numbers
use a true minus sign in HTML. HTML tables are sortable, paginated in the browser (``PAGE_ROWS``
rows a page) and downloadable as TSV (the full table travels as a JSON string in an inert ``<script
type="application/json">`` block, ``<`` escaped)."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

__all__ = ["MAX_ROWS", "PAGE_ROWS", "Ids", "fmt", "number", "parenthesise", "table_html"]

MAX_ROWS = 400        # rows put into the page (the TSV download has them all, up to TSV_ROWS)
PAGE_ROWS = 15        # rows a page in the browser
TSV_ROWS = 20_000


def number(v: float, places: int | None = None) -> str:
    """``v`` in the report's one number format (see module docstring)."""
    f = float(v)
    if math.isnan(f):
        return ""
    if math.isinf(f):
        return "∞" if f > 0 else "-∞"
    if places is not None:
        text = f"{f:.{places}f}"
    elif f == 0:
        text = "0"
    elif abs(f) >= 1000 or (f.is_integer() and abs(f) >= 100):
        text = f"{f:.0f}"
    elif abs(f) < 1e-3:
        text = f"{f:.2e}"
    else:
        digits = max(0, 2 - int(math.floor(math.log10(abs(f)))))
        text = f"{f:.{digits}f}"
        if float(text) != 0 and abs(float(text)) >= 10 ** (3 - digits):  # 9.996 -> 10.00 -> 10.0
            text = f"{f:.{max(0, digits - 1)}f}"
    return text.lstrip("-") if float(text) == 0 else text  # no "-0.000"


def fmt(v: Any, places: int | None = None) -> tuple[str, str, bool]:
    """(display text, sort key, is_number) of one cell."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "", "", False
    if isinstance(v, bool) or (hasattr(v, "dtype") and str(getattr(v, "dtype", "")) == "bool"):
        return ("✓" if v else "✗"), str(int(bool(v))), True
    if isinstance(v, int) or (hasattr(v, "dtype") and str(getattr(v, "dtype", "")).startswith(("int", "uint"))):
        return f"{int(v)}", f"{int(v)}", True
    if isinstance(v, float) or hasattr(v, "dtype"):
        try:
            f = float(v)
        except (TypeError, ValueError):
            return str(v), str(v), False
        if math.isnan(f):
            return "", "", False
        return number(f, places), repr(f), True
    return str(v), str(v), False


class Ids:
    """Unique element ids within one rendered page."""

    def __init__(self) -> None:
        self.n = 0

    def next(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"


def _tsv(frame: pd.DataFrame) -> str:
    """The frame as a JSON string literal safe inside ``<script>`` (no ``<`` at all)."""
    text = frame.head(TSV_ROWS).to_csv(sep="\t", index=False)
    return json.dumps(text).replace("<", "\\u003c")


def table_html(frame: pd.DataFrame, ids: Ids, *, max_rows: int = MAX_ROWS, places: int | None = None,
               links: tuple[str, Mapping[str, str]] | None = None, page: int | None = PAGE_ROWS,
               download: str | None = None, full: pd.DataFrame | None = None, cls: str = "") -> str:
    """A sortable, escaped HTML table, paginated in the browser when longer than ``page`` rows.

    ``links = (column, {value: anchor})`` makes that column's cells links to ``#anchor``;
    ``download`` (a file name) adds a TSV download of ``full`` (default: the whole frame)."""
    tid = ids.next("tbl")
    shown = frame.head(max_rows)
    cols = [str(c) for c in frame.columns]
    model_col = cols.index("model") if "model" in cols else -1
    head = "".join(f'<th title="{html.escape(c)}">{html.escape(c)}</th>' for c in cols)
    body = []
    link_at = cols.index(links[0]) if links is not None and links[0] in cols else -1
    for row in shown.itertuples(index=False):
        cells = []
        for i, v in enumerate(row):
            text, key, num = fmt(v, places)
            shown_text = html.escape(text)
            if i == link_at and links is not None and text in links[1]:
                shown_text = f'<a href="#{html.escape(links[1][text])}">{shown_text}</a>'
            cls_ = ' class="num"' if num else ' class="txt"' if len(text) > 40 else ""
            cells.append(f'<td{cls_} data-v="{html.escape(key)}">{shown_text}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    paged = page is not None and len(shown) > page
    attrs = f' data-model-col="{model_col}"' if model_col >= 0 else ""
    attrs += f' data-page="{page}"' if paged else ""
    parts = [f'<div class="tablewrap"><table class="sortable{" " + cls if cls else ""}" id="{tid}"{attrs}><thead><tr>{head}</tr>'
             f'</thead><tbody>{"".join(body)}</tbody></table></div>']
    notes = []
    if len(frame) > max_rows:
        notes.append(f"first {max_rows} of {len(frame):,} rows in the page")
    if download:
        did = ids.next("tsv")
        full = frame if full is None else full
        parts.append(f'<script type="application/json" class="tsvdata" id="{did}">{_tsv(full)}</script>')
        size = min(len(full), TSV_ROWS)
        notes.append(f'<a href="#" class="tsv" data-src="{did}" data-name="{html.escape(download)}">'
                     f"download TSV ({size:,} rows)</a>")
    if notes:
        parts.append(f'<p class="note">{" · ".join(notes)}</p>')
    return "".join(parts)


def parenthesise(frame: pd.DataFrame, places: int | None = None) -> pd.DataFrame:
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
            out[c] = [("-" if pd.isna(v) else (fmt(v, places)[0] if g else f"({fmt(v, places)[0]})"))
                      for v, g in zip(frame[c], sig)]
        else:
            out[c] = frame[c]
    return out
