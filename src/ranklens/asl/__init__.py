"""Atomized Search Length (ASL) and evaluation: the measure family, ``evaluate`` and the paper's
analyses (distribution, RRIE, MAP -> ASL chain with ΔSort, MAP coverage, Table 2 across tracks, ties).

Standard measures come from ir_measures (pytrec_eval provider). Heavy modules load lazily.

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
    "DEFAULT_DUPLICATES",
    "DEFAULT_MEASURES",
    "DEFAULT_UNRETRIEVED",
    "DUPLICATE_POLICIES",
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
    "rrie",
    "search_lengths",
    "tie_report",
    "track_summary",
    "tracks_report",
    "truncate",
]

_WHERE = {
    "ASL": "asl", "DEFAULT_UNRETRIEVED": "asl", "DEFAULT_DUPLICATES": "asl",
    "DUPLICATE_POLICIES": "asl", "UNRETRIEVED_POLICIES": "asl",
    "asl_per_query": "asl", "parse_measure": "asl", "rank_coded": "asl",
    "search_lengths": "asl",
    "DEFAULT_MEASURES": "evaluation", "evaluate": "evaluation", "load_runs": "evaluation",
    "as_ir_measure": "ir_measures_ext",
    "asl_distribution": "analyses", "map_coverage": "chain", "map_to_asl_chain": "chain",
    "across_tracks": "chain", "tracks_report": "analyses", "map_grades": "asl", "truncate": "asl",
    "depth_stats": "asl",
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
