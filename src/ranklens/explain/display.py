"""Rationales highlighted inside their documents (paper Table 3): HTML and terminal (ANSI).

Shades follow the weights: the heaviest rationale of a document gets the darkest shade, the others
a shade proportional to ``weight / max weight`` (negative or missing weights get the lightest).
All document text is escaped with :func:`html.escape` in HTML output.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from .units import Rationale

__all__ = ["highlight_html", "highlight_terminal", "rationales_html"]

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
