"""The headline table: per analysis result, one row per headline metric and one column per model
of that result, the best value in bold, significance marks against a baseline.

Headline metrics are the metrics a result kind declares in ``ResultKind.higher_is_better``
(with a direction, or ``None`` for a number without one: a similarity, an effect score, shown
without an arrow and never in bold) among its per-model rows (``ResultKind.model_rows``, read by
:func:`ranklens.store.model_rows`). Significance: the kind's ``significance`` function (paired
tests against the baseline over queries, Holm-adjusted within the result)."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .tables import number

__all__ = ["MAX_MODELS", "Block", "headline_block", "headline_html", "headline_markdown", "marks"]

MAX_MODELS = 8      # model columns a block shows (the baseline and the best by the first metric)
MAX_METRIC_ROWS = 8


@dataclass
class Block:
    """One result's headline rows."""

    section: str
    label: str
    anchor: str
    baseline: str
    models: list[str]
    rows: list[dict[str, Any]]          # {"metric", "item", "higher", "values": {model: v}, "p": {model: p}}
    dropped_models: int = 0
    dropped_rows: int = 0
    notes: list[str] = field(default_factory=list)


def marks(p: float | None) -> str:
    if p is None or p != p:
        return ""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""


def _baseline(res: Any, models: list[str], chosen: str | None) -> str:
    for cand in (chosen, res.summary.get("baseline") if isinstance(res.summary, dict) else None, "bm25"):
        if cand and cand in models:
            return str(cand)
    return models[0]


def headline_block(res: Any, *, section: str, label: str, anchor: str, dataset: str = "",
                   baseline: str | None = None) -> Block | None:
    """The headline rows of one result, or None when its kind declares none."""
    from ..declare import resolve
    from ..registry import kind_info
    from ..store import model_rows

    info = kind_info(res.kind)
    if info is None or info.model_rows is None or not info.higher_is_better:
        return None
    rows = model_rows(res, dataset=dataset)
    rows = rows[rows["metric"].isin(list(info.higher_is_better)) & rows["value"].notna()]
    if rows.empty:
        return None
    models = list(dict.fromkeys(rows["model"].astype(str)))
    base = _baseline(res, models, baseline)
    keys = list(dict.fromkeys(zip(rows["item"].astype(str), rows["metric"].astype(str))))
    pvals: dict[tuple[str, str, str], float] = {}
    notes = []
    if info.significance and len(models) > 1:
        try:
            sig = resolve(info.significance)(res, base)
            pvals = {(str(r.item), str(r.metric), str(r.model)): float(r.p) for r in sig.itertuples()}
        except Exception as exc:  # the table stays useful without its marks
            notes.append(f"significance failed: {type(exc).__name__}: {exc}")
    out = []
    for item, metric in keys[:MAX_METRIC_ROWS]:
        g = rows[(rows["item"].astype(str) == item) & (rows["metric"] == metric)]
        vals = dict(zip(g["model"].astype(str), g["value"].astype(float)))
        out.append({"metric": metric, "item": item, "higher": _direction(info.higher_is_better[metric]), "values": vals,
                    "p": {m: pvals.get((item, metric, m)) for m in vals}})
    shown = _pick_models(models, base, out[0])
    return Block(section=section, label=label, anchor=anchor, baseline=base, models=shown, rows=out,
                 dropped_models=len(models) - len(shown), dropped_rows=max(0, len(keys) - MAX_METRIC_ROWS),
                 notes=notes)


def _direction(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _pick_models(models: list[str], base: str, first: dict[str, Any]) -> list[str]:
    if len(models) <= MAX_MODELS or first["higher"] is None:
        return [base] + [m for m in models if m != base][:MAX_MODELS - 1]
    vals = first["values"]
    ranked = sorted((m for m in models if m != base and m in vals), key=lambda m: vals[m], reverse=first["higher"])
    return [base] + ranked[:MAX_MODELS - 1]


def _best(row: dict[str, Any], models: list[str]) -> set[str]:
    """The shown models holding the best value of the row over ALL its models (a hidden model
    that is better leaves the row without bold)."""
    vals = {m: v for m, v in row["values"].items() if v == v}
    if len(vals) < 2 or row["higher"] is None:  # no direction: no "best"
        return set()
    target = max(vals.values()) if row["higher"] else min(vals.values())
    return {m for m in models if vals.get(m) == target}


def _cell(row: dict[str, Any], m: str, places: int | None) -> str:
    """One headline number; counts (``n_*`` metrics of whole numbers) show as integers."""
    v = row["values"].get(m)
    if v is None or v != v:
        return ""
    if str(row["metric"]).startswith("n_") and all(float(x).is_integer() for x in row["values"].values()):
        return f"{v:.0f}"
    return number(v, places)


def _row_label(row: dict[str, Any]) -> str:
    arrow = {True: " ↑", False: " ↓", None: ""}[row["higher"]]
    return f"{row['metric']}{arrow}" + (f" · {row['item']}" if row["item"] else "")


def headline_html(blocks: list[Block], places: int | None = None) -> str:
    """Cards of small tables, one a result (flex-wrapped to fit the first screen)."""
    cards = []
    for b in blocks:
        head = "".join(f'<th title="{html.escape(m)}">{html.escape(m)}'
                       + ('<span class="base"> (base)</span>' if m == b.baseline else "") + "</th>" for m in b.models)
        body = []
        for row in b.rows:
            best = _best(row, b.models)
            cells = []
            for m in b.models:
                text = html.escape(_cell(row, m, places).replace("-", "−"))
                mk = marks(row["p"].get(m)) if m != b.baseline else ""
                text += f"<sup>{mk}</sup>" if mk else ""
                cells.append(f'<td class="num{" best" if m in best else ""}" data-model="{html.escape(m)}">{text}</td>')
            body.append(f'<tr><th scope="row">{html.escape(_row_label(row))}</th>{"".join(cells)}</tr>')
        more = []
        if b.dropped_models:
            more.append(f"{b.dropped_models} more models in the section")
        if b.dropped_rows:
            more.append(f"{b.dropped_rows} more rows in the section")
        foot = f'<p class="note">{html.escape("; ".join(more + b.notes))}</p>' if more or b.notes else ""
        cards.append(f'<div class="hcard"><h3><a href="#{html.escape(b.anchor)}">{html.escape(b.section)}</a>'
                     f' <span class="note">{html.escape(b.label)}</span></h3><table class="headline"><thead><tr>'
                     f'<th></th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>{foot}</div>')
    return f'<div class="hcards">{"".join(cards)}</div>'


LEGEND = ("bold: best value of the row (↑ higher is better, ↓ lower is better; a row without an arrow has no "
          "better direction: a similarity or an effect score); *, **, ***: differs from the "
          "baseline (base) at p < 0.05, 0.01, 0.001 (paired test over queries, Holm-adjusted within the result); "
          "numbers to 3 significant digits")


def headline_markdown(blocks: list[Block], places: int | None = None) -> str:
    from . import _md_text

    out = []
    for b in blocks:
        out.append(f"**{_md_text(b.section)}**" + (f" ({_md_text(b.label)})" if b.label else "") + "\n")
        cols = [f"{m} (base)" if m == b.baseline else m for m in b.models]
        out.append("| metric | " + " | ".join(_md_text(c).replace("|", r"\|") for c in cols) + " |")
        out.append("|---|" + "---:|" * len(cols))
        for row in b.rows:
            best = _best(row, b.models)
            cells = []
            for m in b.models:
                text = _cell(row, m, places)
                text = f"**{text}**" if m in best and text else text
                mk = marks(row["p"].get(m)) if m != b.baseline else ""
                cells.append(text + (f"<sup>{mk}</sup>" if mk else ""))
            out.append(f"| {_md_text(_row_label(row))} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def frame_of(blocks: list[Block]) -> pd.DataFrame:
    """The headline rows as one long frame (for tests and TSV)."""
    rows = [{"section": b.section, "result": b.label, "metric": r["metric"], "item": r["item"], "model": m,
             "value": v, "p_vs_baseline": r["p"].get(m), "baseline": b.baseline}
            for b in blocks for r in b.rows for m, v in r["values"].items()]
    return pd.DataFrame(rows)
