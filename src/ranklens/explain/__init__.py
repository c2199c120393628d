"""Explanation consistency of rankers: occlusion rationales, intrinsic MRC and extrinsic MER.

Implements the protocol of Pandian, Ganguly & MacAvaney, "Evaluating the Explainability of
Neural Rankers" for any ranker (scores through :mod:`ranklens.engine`) and any explainer
(built-in occlusion, or rationale files from LIME/SHAP/attention/...).

Quick start::

    from ranklens.explain import OcclusionExplainer, explanation_consistency
    res = explanation_consistency({"bm25": bm25}, queries, docs, qrels=qrels, ks=(10, 50))
    res.tables["summary"]
"""

from __future__ import annotations

from .consistency import explanation_consistency, explanation_sweep
from .diagnostics import unit_diagnostics
from .display import highlight_html, highlight_terminal, rationales_html, result_html
from .files import read_rationales, read_subdoc_qrels, relevant_units, subdoc_from_passages, write_rationales
from .measures import max_similarity, rank_correlation, rbo
from .occlusion import OcclusionExplainer
from .per_query import MER_MISSING, mer_per_query, mrc_per_query
from .plots import plot_consistency, plot_mer_scatter, plot_relevance_scatter, plot_sweep, plot_sweep_w
from .query_stats import ci_table, paired_tests
from .ranking import rank_candidates
from .rationales import PAPER_M, cut_rationales, explain_run, top_rationales
from .units import (
    Explanation,
    Granularity,
    Rationale,
    Unit,
    parse_granularity,
    pseudo_document,
    remove_spans,
    split_units,
)

__all__ = [
    "Explanation",
    "Granularity",
    "MER_MISSING",
    "PAPER_M",
    "ci_table",
    "paired_tests",
    "unit_diagnostics",
    "plot_mer_scatter",
    "plot_sweep_w",
    "OcclusionExplainer",
    "Rationale",
    "Unit",
    "cut_rationales",
    "explain_run",
    "explanation_consistency",
    "explanation_sweep",
    "highlight_html",
    "highlight_terminal",
    "max_similarity",
    "mer_per_query",
    "mrc_per_query",
    "parse_granularity",
    "plot_consistency",
    "plot_relevance_scatter",
    "plot_sweep",
    "pseudo_document",
    "rank_candidates",
    "rank_correlation",
    "rationales_html",
    "rbo",
    "read_rationales",
    "read_subdoc_qrels",
    "relevant_units",
    "remove_spans",
    "result_html",
    "split_units",
    "subdoc_from_passages",
    "top_rationales",
    "write_rationales",
]
