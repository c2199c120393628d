"""The samples of a probe result with their texts: ``ranklens probes show`` (:func:`show_samples`)
and the report's HTML fragment (:func:`samples_html`, the ``ResultKind.extra_html``)."""

from __future__ import annotations

from ..errors import ValidationError
from ..results import Result
from .run import check_kind

__all__ = ["samples_html", "show_samples"]


def show_samples(result: Result, probe: str, *, n: int = 5, model: str | None = None, width: int = 300) -> str:
    """The first ``n`` samples of ``probe`` with their texts and scores, as text (``ranklens
    probes show``): query, d1 and d2 (cut to ``width`` characters), and per model the two scores,
    the difference and the effect."""
    check_kind(result, "probes-table")
    texts = result.tables.get("texts")
    if texts is None or texts.empty:
        raise ValidationError("this result has no saved texts (made before texts were saved)")
    t = texts[texts["probe"] == probe]
    if t.empty:
        known = sorted(set(texts["probe"]))
        raise ValidationError(f"no samples of probe {probe!r} in this result; probes: {', '.join(known)}")
    sc = result.tables["samples"]
    sc = sc[sc["probe"] == probe]
    if model is not None:
        sc = sc[sc["model"] == model]

    def cut(x: str) -> str:
        x = " ".join(str(x).split())
        return x if len(x) <= width else x[: width - 3] + "..."
    out = []
    for r in t.head(n).itertuples(index=False):
        out.append(f"## {probe} sample {r.sample_id}")
        out.append(f"query: {cut(r.query)}")
        out.append(f"d1 [{r.doc_1_id}]: {cut(r.text_1)}")
        out.append(f"d2 [{r.doc_2_id}]: {cut(r.text_2)}")
        for s in sc[sc["sample_id"] == r.sample_id].itertuples(index=False):
            out.append(f"  {s.model}: R(q,d1)={s.score_1:.4g} R(q,d2)={s.score_2:.4g} diff={s.diff:+.4g} "
                       f"effect={s.effect:+d}")
    return "\n".join(out) + "\n"


def samples_html(result: Result, *, per_probe: int = 2, width: int = 240) -> str:
    """An escaped HTML fragment for the report: the paper's tables of this result and, per probe,
    the first ``per_probe`` samples with their texts (what each probe did)."""
    import html

    from .paper import paper_tables

    parts = [paper_tables([result], fmt="html")]
    texts = result.tables.get("texts")
    if texts is not None and not texts.empty:
        parts.append("<details><summary>samples with their texts</summary>")
        for probe, g in texts.groupby("probe", sort=False):
            parts.append(f"<h4>{html.escape(str(probe))}</h4><ul>")
            for r in g.head(per_probe).itertuples(index=False):
                def cut(x: str) -> str:
                    x = " ".join(str(x).split())
                    return html.escape(x if len(x) <= width else x[: width - 3] + "...")
                parts.append(f"<li><b>q</b>: {cut(r.query)}<br><b>d1</b>: {cut(r.text_1)}<br>"
                             f"<b>d2</b>: {cut(r.text_2)}</li>")
            parts.append("</ul>")
        parts.append("</details>")
    return "".join(parts)
