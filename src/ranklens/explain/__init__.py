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

from .._lazy import lazy_exports

# the public names load from their modules on first use: importing the package (and its
# declaration, for `ranklens --help`) costs nothing
_WHERE = {
    "explanation_consistency": ".consistency",
    "explanation_sweep": ".consistency",
    "unit_diagnostics": ".diagnostics",
    "highlight_html": ".display",
    "highlight_terminal": ".display",
    "rationales_html": ".display",
    "result_html": ".display",
    "read_rationales": ".files",
    "read_subdoc_qrels": ".files",
    "relevant_units": ".files",
    "subdoc_from_passages": ".files",
    "write_rationales": ".files",
    "max_similarity": ".measures",
    "rank_correlation": ".measures",
    "rbo": ".measures",
    "OcclusionExplainer": ".occlusion",
    "MER_MISSING": ".per_query",
    "mer_per_query": ".per_query",
    "mrc_per_query": ".per_query",
    "plot_consistency": ".plots",
    "plot_mer_scatter": ".plots",
    "plot_relevance_scatter": ".plots",
    "plot_sweep": ".plots",
    "plot_sweep_w": ".plots",
    "ci_table": ".query_stats",
    "paired_tests": ".query_stats",
    "rank_candidates": ".ranking",
    "PAPER_M": ".rationales",
    "cut_rationales": ".rationales",
    "explain_run": ".rationales",
    "top_rationales": ".rationales",
    "Explanation": ".units",
    "Granularity": ".units",
    "Rationale": ".units",
    "Unit": ".units",
    "parse_granularity": ".units",
    "pseudo_document": ".units",
    "remove_spans": ".units",
    "split_units": ".units",
}
__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

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
