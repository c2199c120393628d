"""Explaining a ranked list: occlusion rationales of each query's top documents, rationales cut
to the top ``m`` (the paper's Table 1 ``m`` by granularity), the rationale and document-text
tables a saved result shows, and :func:`explain_run` (the ``explain-rationales`` result).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._hashing import sha256_json
from ..engine import ScoringEngine
from ..errors import ValidationError
from ..results import Result, make_provenance
from .declaration import Params
from .diagnostics import _UNIT_COLUMNS, _unit_rows, unit_diagnostics
from .files import RationaleMap
from .occlusion import OcclusionExplainer
from .ranking import _TIES_RULE, _check_ties, _queries_map, _top
from .units import Explanation, Rationale

__all__ = ["PAPER_M", "cut_rationales", "explain_run", "top_rationales"]

DEFAULTS = Params()


PAPER_M: Mapping[str, int] = {"sentence": 1, "window": 6}
"""The paper's rationales per document (Table 1): 1 sentence, 6 word windows (Table 2: 1 sentence)."""


def _ms_for(m: int | Mapping[str, int], granularity: str) -> int:
    if isinstance(m, Mapping):
        kind = "window" if granularity.startswith("window") else "sentence"
        return int(m.get(granularity, m.get(kind, m.get("sentence", 1))))
    return int(m)


def _check_display(display_queries: int, display_docs: int) -> None:
    for name, v in (("display_queries", display_queries), ("display_docs", display_docs)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValidationError(f"{name} must be an integer >= 0 (0 stores no document texts), got {v!r}")


def _explain_top(
    ranker: Any, top: pd.DataFrame, qmap: Mapping[str, str], docs: Mapping[str, str],
    explainer: OcclusionExplainer, engine: ScoringEngine | None,
) -> dict[tuple[str, str], Explanation]:
    keys = list(zip(top["query_id"], top["doc_id"]))
    exps = explainer.explain(ranker, [qmap[q] for q, _ in keys], [docs[d] for _, d in keys], engine=engine)
    return dict(zip(keys, exps))


def top_rationales(explanations: Mapping[tuple[str, str], Explanation], m: int) -> RationaleMap:
    """``{(query_id, doc_id): top-m rationales}`` from explanations."""
    return {k: e.top(m) for k, e in explanations.items()}


def _weight_key(r: Rationale) -> tuple[float, int, int]:
    w = r.weight
    return (-w if w is not None and np.isfinite(w) else np.inf, r.start, r.end)


def cut_rationales(rationales: RationaleMap, m: int) -> RationaleMap:
    """The top-``m`` rationales of every pair by weight (descending; ties and missing weights:
    earlier ``start`` first, missing or non-finite weights last), most important first.

    This is how rationales from another explainer (a file) are cut to the ``m`` of the protocol.
    """
    if m < 0:
        raise ValidationError(f"m must be >= 0, got {m}")
    return {k: tuple(sorted(v, key=_weight_key)[:m]) for k, v in rationales.items()}


def _rationale_rows(top: pd.DataFrame, rationales: RationaleMap, label: dict[str, Any]) -> pd.DataFrame:
    rows = []
    for q, d, rank, score in zip(top["query_id"], top["doc_id"], top["rank"], top["score"]):
        for pos, r in enumerate(rationales.get((q, d), ()), start=1):
            rows.append({**label, "query_id": q, "doc_id": d, "rank": int(rank), "score": float(score),
                         "rationale_rank": pos, "unit": r.unit, "start": r.start, "end": r.end,
                         "weight": r.weight, "text": r.text})
    cols = [*label, "query_id", "doc_id", "rank", "score", "rationale_rank", "unit", "start", "end", "weight", "text"]
    return pd.DataFrame(rows, columns=cols)


_DOC_COLUMNS = ["model", "granularity", "query_id", "query", "doc_id", "rank", "score", "text"]


def _document_rows(
    top: pd.DataFrame, qmap: Mapping[str, str], docs: Mapping[str, str], label: dict[str, Any],
    display_queries: int, display_docs: int,
) -> pd.DataFrame:
    """Texts of the top ``display_docs`` documents of the first ``display_queries`` queries (in
    the order the queries were given), so a saved result can show its rationales in context."""
    cols = [*label, *_DOC_COLUMNS[2:]]
    if display_queries == 0 or display_docs == 0 or top.empty:
        return pd.DataFrame(columns=cols)
    present = set(top["query_id"])
    chosen = [q for q in qmap if q in present][:display_queries]
    sel = top[top["query_id"].isin(set(chosen)) & (top["rank"] <= display_docs)]
    order = {q: i for i, q in enumerate(chosen)}
    sel = sel.assign(_o=sel["query_id"].map(order)).sort_values(["_o", "rank"], kind="mergesort")
    rows = [{**label, "query_id": q, "query": qmap[q], "doc_id": d, "rank": int(r), "score": float(sc),
             "text": docs[d]}
            for q, d, r, sc in zip(sel["query_id"], sel["doc_id"], sel["rank"], sel["score"])]
    return pd.DataFrame(rows, columns=cols)


def explain_run(
    ranker: Any,
    run: pd.DataFrame,
    queries: pd.DataFrame | Mapping[str, str],
    docs: Mapping[str, str],
    *,
    explainer: OcclusionExplainer | None = None,
    k: int | Sequence[int] = DEFAULTS.k,
    m: int | None = DEFAULTS.m,
    ties: str = DEFAULTS.ties,
    display_queries: int = DEFAULTS.display_queries,
    display_docs: int = DEFAULTS.display_docs,
    engine: ScoringEngine | None = None,
) -> Result:
    """Occlusion rationales of the top-``k`` documents of each query of ``run``.

    ``k`` is a cut-off or several (the largest is explained; default the analysis's ``k``, 10 and
    50: the top 50). ``run`` is (re-)ordered by :func:`ranklens.io.rank_run` under ``ties``. ``m`` rationales
    per document; default the paper's for the explainer's granularity (:data:`PAPER_M`: 1 for
    sentences and lines, 6 for word windows).

    Returns:
        :class:`~ranklens.results.Result` of kind ``"explain-rationales"``: one table row per
        rationale (``query_id, doc_id, rank, score, rationale_rank, unit, start, end, weight,
        text``), a ``units`` table with every unit's weight and a ``documents`` table with the
        texts of the top ``display_docs`` documents of the first ``display_queries`` queries
        (for :func:`ranklens.explain.display.result_html`), and ``unit_diagnostics``
        (:func:`unit_diagnostics`, with its warnings).
    """
    _check_ties(ties)
    _check_display(display_queries, display_docs)
    k = int(k) if isinstance(k, (int, np.integer)) else max(int(x) for x in k)
    explainer = explainer or OcclusionExplainer()
    m = _ms_for(PAPER_M, str(explainer.granularity)) if m is None else int(m)
    qmap = _queries_map(queries)
    top = _top(run, k, ties)
    exps = _explain_top(ranker, top, qmap, docs, explainer, engine)
    rats = top_rationales(exps, m)
    table = _rationale_rows(top, rats, {})
    units = pd.DataFrame(
        [{"query_id": q, "doc_id": d, "unit": u.index, "start": u.start, "end": u.end,
          "weight": e.weights[u.index], "mode": e.mode, "guarded": e.guarded}
         for (q, d), e in exps.items() for u in e.units],
        columns=["query_id", "doc_id", "unit", "start", "end", "weight", "mode", "guarded"],
    )
    documents = _document_rows(top, qmap, docs, {}, display_queries, display_docs)
    diag, warns = unit_diagnostics(pd.DataFrame(_unit_rows("ranker", explainer.granularity, m, exps),
                                                columns=_UNIT_COLUMNS))
    prov = make_provenance(
        params={"k": k, "m": m, "explainer": repr(explainer), "ties": ties, "ties_rule": _TIES_RULE[ties],
                "aggregate": explainer.aggregate, "display_queries": display_queries, "display_docs": display_docs,
                "normalize": explainer.normalize, "guarded_explanations": int(sum(e.guarded for e in exps.values()))},
        components={"ranker": getattr(ranker, "fingerprint", repr(ranker))},
        inputs={"run": sha256_json(top[["query_id", "doc_id"]].values.tolist())},
        seed=explainer.seed,
    )
    summary = {"queries": int(top["query_id"].nunique()), "documents": len(exps), "m": m, "k": k,
               "granularity": explainer.granularity}
    return Result(kind="explain-rationales", summary=summary, table=table, provenance=prov,
                  tables={"units": units, "documents": documents, "unit_diagnostics": diag}, warnings=tuple(warns))
