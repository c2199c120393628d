"""Expose ASL to ir_measures through its custom-measure hook (``ir_measures.define_byquery``).

Example:
    >>> import ir_measures
    >>> m = as_ir_measure("ASL@g1-10")
    >>> # ir_measures.calc_aggregate([m, ir_measures.AP], qrels, run)

Each query is ranked under ranklens's tie rule before ASL is computed, so the value equals
:func:`ranklens.asl.evaluate` for that query. Caveat: ir_measures itself gives 0 to judged
queries that are absent from the run (its default); for ASL (lower is better) that reads as a
perfect score, so aggregate with :func:`ranklens.asl.evaluate` (``missing="skip"``) instead.
"""

from __future__ import annotations

import numpy as np

from .asl import asl_per_query
from .declaration import Params
from .measures import ASL, parse_measure
from .ranking import rank_coded

__all__ = ["as_ir_measure", "asl_directions"]

DEFAULTS = Params()


def as_ir_measure(measure: str | ASL = "ASL", *, ties: str = DEFAULTS.ties, rel: int = DEFAULTS.rel,
                  unretrieved: str = DEFAULTS.unretrieved, collection_size: int | None = DEFAULTS.collection_size,
                  duplicates: str = DEFAULTS.duplicates):
    """An ir_measures measure object computing an ASL variant per query.

    Args:
        measure: ``"ASL"``, ``"ASL@g1-10"``, ``"ASL(rel=2)"`` ... or an :class:`ASL`.
        ties, rel, unretrieved, collection_size, duplicates: as in
            :func:`ranklens.asl.evaluate` (duplicate rows raise by default).
    """
    import ir_measures

    m = parse_measure(measure)
    if not isinstance(m, ASL):
        raise TypeError(f"{measure!r} is not an ASL measure")
    r = m.resolved(rel=rel, unretrieved=unretrieved)

    def impl(qrels, run) -> float:
        rr = rank_coded(run[["query_id", "doc_id", "score"]], qrels[["query_id", "doc_id",
                                                                     "relevance"]], ties=ties,
                        duplicates=duplicates)
        v = asl_per_query(rr, rel=r.rel, first=r.first, cutoff=r.cutoff,
                          unretrieved=r.unretrieved, collection_size=collection_size)
        v = v[rr.in_run]
        return float(v[0]) if v.size and not np.isnan(v[0]) else float("nan")

    return ir_measures.define_byquery(impl, name=str(m), support_cutoff=False)




def asl_directions(table):
    """``pt.Experiment``'s table with each ASL measure's ``"<m> +"`` and ``"<m> -"`` columns swapped.

    PyTerrier counts ``"+"`` as the queries whose value went up against the baseline, which for
    every other measure is an improvement; ASL is lower-is-better, so there ``"+"`` would count the
    queries that got worse. After this call ``"ASL +"`` counts the queries that improved (ASL went
    down) and ``"ASL -"`` those that got worse, as for nDCG and AP. Returns a new frame (the
    p-values are unchanged: the paired test is symmetric). Give ``pt.Experiment(..., highlight=None)``
    (a styled table is not a frame).
    """
    import pandas as pd

    if not isinstance(table, pd.DataFrame):
        from ..errors import ValidationError

        raise ValidationError(f"asl_directions takes pt.Experiment's DataFrame (highlight=None), got {type(table).__name__}")
    out = table.copy()
    for col in table.columns:
        name = str(col)
        if not name.endswith(" +") or f"{name[:-2]} -" not in table.columns:
            continue
        try:
            is_asl = isinstance(parse_measure(name[:-2]), ASL)
        except Exception:  # noqa: BLE001 - a measure ranklens does not parse is not ASL
            is_asl = False
        if is_asl:
            out[col], out[f"{name[:-2]} -"] = table[f"{name[:-2]} -"], table[col]
    return out
