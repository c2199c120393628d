"""Unit diagnostics of explanations: units and masked sets per explained document, the share of
documents whose rationale is the whole document (``m`` >= units: MRC is trivially 1 for them)
and of documents whose masked sets were sampled, with the warnings they call for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from .units import Explanation

__all__ = ["WHOLE_DOCUMENT_WARN", "unit_diagnostics"]


WHOLE_DOCUMENT_WARN = 0.2
"""Share of explained documents whose rationale is the whole document above which a result warns."""


_UNIT_COLUMNS = ["model", "granularity", "query_id", "doc_id", "units", "masked_sets", "exhaustive", "mode",
                 "guarded", "whole_document"]


def _unit_rows(name: str, gname: str, m: int, exps: Mapping[tuple[str, str], Explanation]) -> list[dict]:
    return [{"model": name, "granularity": gname, "query_id": q, "doc_id": d, "units": len(e.units),
             "masked_sets": e.masked_sets, "exhaustive": e.exhaustive, "mode": e.mode, "guarded": e.guarded,
             "whole_document": len(e.units) <= m}
            for (q, d), e in exps.items()]


def unit_diagnostics(units: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Per (model, granularity): units per explained document (min/median/max), the share of
    documents whose rationale is the whole document (m >= units: MRC is then trivially 1 for
    them), masked sets per document (min/median/max) and the share explained by sampled rather
    than all combinations; plus the warnings (whole-document share above 20%, sampled sets)."""
    cols = ["model", "granularity", "documents", "units_min", "units_median", "units_max", "whole_document_share",
            "masked_sets_min", "masked_sets_median", "masked_sets_max", "sampled_share"]
    if units.empty:
        return pd.DataFrame(columns=cols), []
    rows, warnings = [], []
    for (mdl, gr), g in units.groupby(["model", "granularity"], sort=False):
        share = float(g["whole_document"].mean())
        sampled = float((~g["exhaustive"].astype(bool)).mean())
        rows.append({"model": mdl, "granularity": gr, "documents": len(g), "units_min": int(g["units"].min()),
                     "units_median": float(g["units"].median()), "units_max": int(g["units"].max()),
                     "whole_document_share": share, "masked_sets_min": int(g["masked_sets"].min()),
                     "masked_sets_median": float(g["masked_sets"].median()),
                     "masked_sets_max": int(g["masked_sets"].max()), "sampled_share": sampled})
        if share > WHOLE_DOCUMENT_WARN:
            warnings.append(f"{mdl}/{gr}: {share:.0%} of the explained documents have no more units than m, so "
                            "their rationale is the whole document (MRC is 1 for them); median "
                            f"{float(g['units'].median()):g} units per document")
        if sampled > 0:
            warnings.append(f"{mdl}/{gr}: {sampled:.0%} of the documents had more unit combinations than the "
                            "samples budget: their masked sets were sampled (see the units table)")
    return pd.DataFrame(rows, columns=cols), warnings


def _sweep_diagnostics(units: pd.DataFrame, ms: Sequence[int]) -> tuple[pd.DataFrame, list[str]]:
    """:func:`unit_diagnostics` for every ``m`` of a sweep (column ``m``): the whole-document
    share depends on ``m``; its warnings name the ``m``."""
    tables, warns = [], []
    for m_ in sorted({int(x) for x in ms}):
        d, w = unit_diagnostics(units.assign(whole_document=units["units"] <= m_))
        tables.append(d.assign(m=m_))
        warns += [f"m={m_}: {x}" if "whole document" in x else x for x in w]
    cols = ["m", *tables[0].columns.drop("m")] if tables else ["m"]
    return (pd.concat(tables, ignore_index=True)[cols] if tables else pd.DataFrame(columns=cols)), warns
