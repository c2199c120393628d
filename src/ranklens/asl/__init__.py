"""Atomized Search Length (ASL) and evaluation: the measure family, ``evaluate`` and the paper's
analyses (distribution, RRIE, MAP -> ASL chain with ΔSort, MAP coverage, Table 2 across tracks, ties).

Modules, one concern each: :mod:`~ranklens.asl.measures` (the measures as values and their
spelling), :mod:`~ranklens.asl.inputs` (run and qrels tables, grade mapping, ``runs`` arguments),
:mod:`~ranklens.asl.ranking` and :mod:`~ranklens.asl.duplicates` (ordering and judging a run:
:mod:`~ranklens.asl.ranked`'s ``RankedRun``), :mod:`~ranklens.asl.asl` (the ASL kernel, per query
and per document), :mod:`~ranklens.asl.kernels` (the standard measures), then
:mod:`~ranklens.asl.evaluation`, :mod:`~ranklens.asl.analyses` and :mod:`~ranklens.asl.chain`
(the paper's analyses), all under one :class:`~ranklens.asl.conventions.Conventions`. Heavy
modules load lazily.

Example:
    >>> from ranklens.asl import evaluate
    >>> res = evaluate("qrels.txt", ["runA.gz", "runB.gz"], ["ASL", "ASL@g1-10", "AP"],
    ...                baseline="runA")  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "ASL",
    "Conventions",
    "DEFAULT_DUPLICATES",
    "DEFAULT_MEASURES",
    "DEFAULT_UNRETRIEVED",
    "DUPLICATE_POLICIES",
    "RankedRun",
    "UNRETRIEVED_POLICIES",
    "as_ir_measure",
    "across_tracks",
    "asl_distribution",
    "asl_per_query",
    "depth_stats",
    "evaluate",
    "load_runs",
    "map_coverage",
    "map_grades",
    "map_to_asl_chain",
    "parse_measure",
    "plot_chain",
    "plot_deltas",
    "plot_distribution",
    "plot_evaluation",
    "plot_rrie",
    "plot_tracks",
    "rank_coded",
    "rank_runs",
    "rrie",
    "search_lengths",
    "tie_report",
    "track_summary",
    "tracks_report",
    "truncate",
]

_WHERE = {
    "ASL": "measures", "parse_measure": "measures",
    "DEFAULT_UNRETRIEVED": "asl", "UNRETRIEVED_POLICIES": "asl", "asl_per_query": "asl",
    "search_lengths": "asl", "depth_stats": "asl",
    "DEFAULT_DUPLICATES": "ranking", "DUPLICATE_POLICIES": "ranking", "rank_coded": "ranking",
    "rank_runs": "ranking",
    "RankedRun": "ranked", "truncate": "ranked",
    "load_runs": "inputs", "map_grades": "inputs",
    "Conventions": "conventions",
    "DEFAULT_MEASURES": "evaluation", "evaluate": "evaluation",
    "as_ir_measure": "ir_measures_ext",
    "asl_distribution": "analyses", "map_coverage": "chain", "map_to_asl_chain": "chain",
    "across_tracks": "chain", "tracks_report": "analyses",
    "rrie": "analyses", "tie_report": "analyses", "track_summary": "analyses",
    "plot_chain": "plots", "plot_deltas": "plots", "plot_distribution": "plots",
    "plot_tracks": "plots", "plot_evaluation": "plots", "plot_rrie": "plots",
}


def __getattr__(name: str) -> Any:
    mod = _WHERE.get(name)
    if mod is None:
        raise AttributeError(f"module 'ranklens.asl' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{mod}"), name)


def __dir__() -> list[str]:
    return sorted(__all__)
