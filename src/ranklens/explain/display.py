"""Rationales highlighted inside their documents (paper Table 3): HTML and terminal (ANSI).

Shades follow the weights: the heaviest rationale of a document gets the darkest shade, the others
a shade proportional to ``weight / max weight`` (negative or missing weights get the lightest).
All text (documents, queries, ids, ranker names) is escaped with :func:`html.escape` in HTML
output. :func:`result_html` renders a saved explanation result (``Result.load``) on its own: the
result carries the texts of a capped set of explained documents (table ``documents``) next to
the rationale offsets and weights (table ``rationales``).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

from ..errors import ValidationError
from .units import Rationale

__all__ = ["highlight_html", "highlight_terminal", "rationales_html", "result_html"]

# light to dark yellow-orange backgrounds (5 levels), for HTML and 256-colour terminals
_HTML_SHADES = ("#fff7bc", "#fee391", "#fec44f", "#fe9929", "#ec7014")
_ANSI_SHADES = (230, 229, 221, 214, 208)


def _levels(rationales: Sequence[Rationale]) -> list[int]:
    ws = [r.weight if r.weight is not None and math.isfinite(r.weight) else 0.0 for r in rationales]
    top = max([w for w in ws if w > 0], default=0.0)
    out = []
    for w in ws:
        frac = w / top if top > 0 and w > 0 else 0.0
        out.append(min(len(_HTML_SHADES) - 1, int(frac * len(_HTML_SHADES))))
    return out


def _segments(text: str, rationales: Sequence[Rationale]) -> list[tuple[str, int | None, Rationale | None]]:
    """Split ``text`` into (piece, shade level or None, rationale) in document order.

    Overlapping rationales: the earlier-starting one wins the overlap.
    """
    levels = _levels(rationales)
    spans = sorted(
        ((r.start, r.end, lv, r) for r, lv in zip(rationales, levels) if 0 <= r.start < r.end <= len(text)),
        key=lambda x: (x[0], -x[1]),
    )
    out: list[tuple[str, int | None, Rationale | None]] = []
    pos = 0
    for s, e, lv, r in spans:
        if e <= pos:
            continue
        s = max(s, pos)
        if s > pos:
            out.append((text[pos:s], None, None))
        out.append((text[s:e], lv, r))
        pos = e
    if pos < len(text):
        out.append((text[pos:], None, None))
    return out


def highlight_html(text: str, rationales: Sequence[Rationale]) -> str:
    """An HTML fragment of ``text`` with each rationale in a ``<mark>`` shaded by its weight.

    Examples:
        >>> highlight_html("a <b> c", [Rationale(0, 2, 5, "<b>", 1.0)])
        'a <mark class="rl-rationale" style="background:#ec7014" title="weight 1">&lt;b&gt;</mark> c'
    """
    parts = []
    for piece, lv, r in _segments(text, rationales):
        if lv is None or r is None:
            parts.append(html.escape(piece))
        else:
            parts.append(
                f'<mark class="rl-rationale" style="background:{_HTML_SHADES[lv]}" '
                f'title="weight {r.weight:.4g}">{html.escape(piece)}</mark>'
            )
    return "".join(parts)


def rationales_html(
    items: Sequence[tuple[str, str, str, Sequence[Rationale]]], *, title: str = "Rationales"
) -> str:
    """A standalone HTML page: for each ``(query, doc_id, text, rationales)`` a highlighted block."""
    blocks = []
    for query, doc_id, text, rats in items:
        blocks.append(
            f"<section><h3>{html.escape(doc_id)}</h3><p class='q'>query: {html.escape(query)}</p>"
            f"<p>{highlight_html(text, rats)}</p></section>"
        )
    legend = "".join(f'<span style="background:{c}">&nbsp;{i + 1}&nbsp;</span>' for i, c in enumerate(_HTML_SHADES))
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>"
        + html.escape(title)
        + "</title><style>body{font-family:sans-serif;max-width:60em;margin:auto}"
        "section{border-bottom:1px solid #ddd;padding:.5em 0}.q{color:#555}</style></head><body><h2>"
        + html.escape(title)
        + f"</h2><p>weight shade (light = low, dark = high): {legend}</p>"
        + "".join(blocks)
        + "</body></html>"
    )


def highlight_terminal(text: str, rationales: Sequence[Rationale], *, color: bool = True) -> str:
    """``text`` with rationales highlighted for a terminal.

    Args:
        text: the document.
        rationales: spans to highlight.
        color: ANSI 256-colour backgrounds shaded by weight; ``False`` marks rationales as
            ``[[text]]{rank}`` instead (rank 1 = heaviest), for pipes and logs.
    """
    order = {id(r): i + 1 for i, r in enumerate(sorted(rationales, key=lambda r: -(r.weight or 0.0)))}
    parts = []
    for piece, lv, r in _segments(text, rationales):
        if lv is None or r is None:
            parts.append(piece)
        elif color:
            parts.append(f"\x1b[30;48;5;{_ANSI_SHADES[lv]}m{piece}\x1b[0m")
        else:
            parts.append(f"[[{piece}]]{{{order[id(r)]}}}")
    return "".join(parts)


# ---------------------------------------------------------------------------- saved results
_RESULT_KINDS = ("explain-consistency", "explain-rationales")


def _legend() -> str:
    cells = "".join(
        f'<span style="background:{c};padding:0 .4em">{i + 1}</span>' for i, c in enumerate(_HTML_SHADES)
    )
    return f'<p class="rl-legend">rationale weight (relative to the heaviest of its document): light {cells} dark</p>'


def _num(v: Any, fmt: str = ".4g") -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return ""
    return "" if math.isnan(f) else format(f, fmt)


def _str(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return str(v)


def _doc_rationales(rows: Any, text: str) -> tuple[list[Rationale], int]:
    """Rationales of one document from table rows; those whose offsets fall outside the text or
    whose stored text differs from ``text[start:end]`` are dropped (and counted)."""
    out: list[Rationale] = []
    bad = 0
    for unit, start, end, rtext, weight in zip(rows["unit"], rows["start"], rows["end"], rows["text"], rows["weight"]):
        try:
            s, e = int(start), int(end)
        except (TypeError, ValueError):
            bad += 1
            continue
        stored = _str(rtext)
        if not 0 <= s < e <= len(text) or (stored and stored != text[s:e]):
            bad += 1
            continue
        w = float(weight) if _num(weight) else float("nan")
        u = int(unit) if _num(unit) else -1
        out.append(Rationale(u, s, e, text[s:e], w))
    return out, bad


def result_html(result: Any, *, max_queries: int | None = None, max_docs: int = 3) -> str:
    """An HTML fragment showing, per ranker and granularity, a few queries with their top
    documents and the rationales highlighted inside them, shaded by weight (paper Table 3).

    Works from a saved result alone (``Result.load(dir)``): the texts come from the result's
    ``documents`` table (the capped display set stored by :func:`explanation_consistency` /
    :func:`explain_run`), the spans and weights from its rationale table. Every text is escaped.

    Args:
        result: a Result of kind ``"explain-consistency"`` or ``"explain-rationales"``.
        max_queries: queries shown per model and granularity (default: every stored query; the
            analysis stores ``display_queries`` of them). A query index at the top links to each.
        max_docs: top documents shown per query (of those stored).

    Returns:
        The fragment (a ``<div class="rl-explain-docs">``). A result without stored document
        texts (made before they were stored, or with ``display_docs=0``) gives a short note
        instead.

    Raises:
        ValidationError: for another result kind, or ``max_queries``/``max_docs`` < 1.
    """
    kind = getattr(result, "kind", None)
    if kind not in _RESULT_KINDS:
        raise ValidationError(f"result_html needs a result of kind {' or '.join(map(repr, _RESULT_KINDS))}, got {kind!r}")
    if (max_queries is not None and max_queries < 1) or max_docs < 1:
        raise ValidationError(f"max_queries and max_docs must be >= 1, got {max_queries} and {max_docs}")
    docs = result.tables.get("documents")
    rats = result.tables.get("rationales") if kind == "explain-consistency" else result.table
    if docs is None or len(docs) == 0:
        return ('<div class="rl-explain-docs"><p class="rl-note">This result stores no document texts, so its '
                "rationales cannot be shown in context (re-run the explanation with display_docs &gt; 0).</p></div>")
    group_cols = [c for c in ("model", "ranker", "granularity") if c in docs.columns]
    need = {"query_id", "doc_id", "unit", "start", "end", "text", "weight"}
    if rats is None or not need <= set(rats.columns):
        rats = None
    parts = ['<div class="rl-explain-docs">', _legend()]
    groups = docs.groupby(group_cols, sort=False) if group_cols else [((), docs)]
    dropped = 0
    nav: list[tuple[str, list[str]]] = []
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        label = " / ".join(_str(k) for k in key)
        if label:
            parts.append(f'<h4 class="rl-explain-group">{html.escape(label)}</h4>')
        sub_rats = rats
        if rats is not None:
            for col, val in zip(group_cols, key):
                if col in rats.columns:
                    sub_rats = sub_rats[sub_rats[col].astype(str) == str(val)]
        by_doc = {k: v for k, v in sub_rats.groupby(["query_id", "doc_id"], sort=False)} if sub_rats is not None else {}
        qids = list(dict.fromkeys(g["query_id"].astype(str)))[:max_queries]
        gi = len(nav)
        nav.append((label, qids))
        for qi, q in enumerate(qids):
            gq = g[g["query_id"].astype(str) == q].sort_values("rank", kind="mergesort").head(max_docs)
            qtext = _str(gq["query"].iloc[0]) if "query" in gq.columns else ""
            parts.append(
                f'<div class="rl-explain-query" id="rl-q-{gi}-{qi}"><p><b>query {html.escape(q)}</b>'
                + (f": {html.escape(qtext)}" if qtext else "") + "</p>" + _pager(gi, qi, len(qids))
            )
            for _, row in gq.iterrows():
                text = _str(row["text"])
                d = _str(row["doc_id"])
                found = by_doc.get((q, d))
                rs, bad = _doc_rationales(found, text) if found is not None else ([], 0)
                dropped += bad
                score = f" · score {html.escape(_num(row['score']))}" if "score" in row and _num(row["score"]) else ""
                weights = ", ".join(html.escape(_num(r.weight, ".3g")) for r in sorted(rs, key=lambda r: r.start))
                parts.append(
                    f'<div class="rl-explain-doc"><p class="rl-doc-head">rank {html.escape(_num(row["rank"], ".0f"))}'
                    f" · doc {html.escape(d)}{score} · {len(rs)} rationale(s)"
                    + (f" (weights in document order: {weights})" if rs else "")
                    + '</p><p class="rl-doc-text" style="white-space:pre-wrap">'
                    + highlight_html(text, rs)
                    + "</p></div>"
                )
            parts.append("</div>")
    return _close(parts, nav, dropped)


def _close(parts: list[str], nav: list[tuple[str, list[str]]], dropped: int) -> str:
    if dropped:
        parts.append(f'<p class="rl-note">{dropped} rationale(s) did not match their document text '
                     "(offsets out of range or different text) and are not shown.</p>")
    parts.append("</div>")
    parts.insert(2, _query_index(nav))
    return "".join(parts)


def _pager(gi: int, qi: int, n: int) -> str:
    """Navigation of one query's section: its position, previous / next query, the index."""
    prev = f'<a href="#rl-q-{gi}-{qi - 1}">&larr; previous</a>' if qi > 0 else "&larr; previous"
    nxt = f'<a href="#rl-q-{gi}-{qi + 1}">next &rarr;</a>' if qi + 1 < n else "next &rarr;"
    return (f'<p class="rl-explain-pager">query {qi + 1} of {n} · {prev} · '
            f'<a href="#rl-explain-index">index</a> · {nxt}</p>')


def _query_index(nav: list[tuple[str, list[str]]]) -> str:
    """Links to every shown query, per model and granularity (the page's navigation)."""
    rows = []
    for gi, (label, qids) in enumerate(nav):
        links = " ".join(f'<a href="#rl-q-{gi}-{i}">{html.escape(q)}</a>' for i, q in enumerate(qids))
        rows.append(f"<li>{html.escape(label) or 'queries'}: {links}</li>")
    return f'<ul class="rl-explain-index" id="rl-explain-index">{"".join(rows)}</ul>' if rows else ""
