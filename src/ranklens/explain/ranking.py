"""Ranking the candidates: each ranker scores each query's candidate documents, ordered by
:func:`ranklens.io.rank_run` under the project's tie rule ``ties`` (default ``"trec_eval"``:
scores compared as float32, ties by ``doc_id`` descending; ``"float64"``; ``"input_order"``).
The rule is recorded in provenance (its wording is :data:`_TIES_RULE`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..engine import ScoringEngine, score_pairs
from ..errors import ValidationError
from ..io.frames import rank_run
from ..types import TIE_RULES
from .declaration import Params

__all__ = ["rank_candidates"]

DEFAULTS = Params()


_TIES_RULE = {
    "trec_eval": "rank_run(ties='trec_eval'): score desc compared as float32, then doc_id desc",
    "float64": "rank_run(ties='float64'): score desc (float64), then doc_id desc",
    "input_order": "rank_run(ties='input_order'): score desc (float64), ties keep input order",
}


def _check_ties(ties: str) -> None:
    if ties not in TIE_RULES:
        raise ValidationError(f"ties={ties!r} is not a tie rule; choose one of {list(TIE_RULES)}")


def _queries_map(queries: pd.DataFrame | Mapping[str, str]) -> dict[str, str]:
    if isinstance(queries, pd.DataFrame):
        missing = {"query_id", "text"} - set(queries.columns)
        if missing:
            raise ValidationError(f"queries frame lacks column(s) {sorted(missing)}; need query_id, text")
        return dict(zip(queries["query_id"].astype(str), queries["text"].astype(str)))
    return {str(k): str(v) for k, v in queries.items()}


def _order(run: pd.DataFrame, ties: str) -> pd.DataFrame:
    """``query_id, doc_id, score, rank`` ordered by :func:`ranklens.io.rank_run` under ``ties``."""
    return rank_run(run[["query_id", "doc_id", "score"]], ties=ties)


def _tie_scores(scores: np.ndarray, ties: str) -> np.ndarray:
    """Scores as the tie rule compares them (float32 for ``"trec_eval"``), so documents the rule
    treats as tied are ties for Kendall/Spearman too."""
    s = np.asarray(scores, dtype=np.float64)
    return s.astype(np.float32).astype(np.float64) if ties == "trec_eval" else s


def rank_candidates(
    ranker: Any,
    queries: pd.DataFrame | Mapping[str, str],
    docs: Mapping[str, str],
    pairs: pd.DataFrame | None = None,
    *,
    ties: str = DEFAULTS.ties,
    engine: ScoringEngine | None = None,
) -> pd.DataFrame:
    """Score each query's candidate documents with ``ranker`` and rank them.

    Args:
        ranker: any :class:`ranklens.rankers.Ranker`.
        queries: ``query_id``/``text`` frame or mapping.
        docs: ``doc_id -> text``.
        pairs: the candidates, a ``query_id``/``doc_id`` frame (e.g. the judged documents);
            ``None`` = every document for every query.
        ties: tie rule of :func:`ranklens.io.rank_run` (``"trec_eval"`` default,
            ``"float64"``, ``"input_order"``).
        engine: scoring engine (default engine when ``None``).

    Returns:
        Run frame ``query_id, doc_id, score, rank`` sorted by query and rank.
    """
    _check_ties(ties)
    qmap = _queries_map(queries)
    if pairs is None:
        ids = list(docs)
        pairs = [(q, d) for q in qmap for d in ids]
    else:
        c = pairs[["query_id", "doc_id"]].astype(str).drop_duplicates()
        unknown_q = sorted(set(c["query_id"]) - set(qmap))
        if unknown_q:
            raise ValidationError(f"pairs name query ids without text: {unknown_q[:5]}")
        unknown_d = sorted(set(c["doc_id"]) - set(docs))
        if unknown_d:
            raise ValidationError(
                f"pairs name {len(unknown_d)} doc ids without text (e.g. {unknown_d[:3]}); "
                "filter them out first"
            )
        pairs = list(zip(c["query_id"], c["doc_id"]))
    scores = score_pairs(ranker, [qmap[q] for q, _ in pairs], [docs[d] for _, d in pairs], engine=engine, desc="ranking")
    run = pd.DataFrame({"query_id": [q for q, _ in pairs], "doc_id": [d for _, d in pairs], "score": scores})
    return _order(run, ties)


def _top(run: pd.DataFrame, k: int, ties: str) -> pd.DataFrame:
    r = _order(run, ties)
    return r[r["rank"] <= k].reset_index(drop=True)
