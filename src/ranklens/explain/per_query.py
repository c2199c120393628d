"""The per-query measures of the protocol (Pandian, Ganguly & MacAvaney):

- **MRC@k** (intrinsic, eq. 2): the top-``m`` rationales of each of the top-k documents are
  concatenated (most important first, eq. 1; ``pseudo_order="document"``: in document order)
  into a pseudo-document; the ranker scores the pseudo-documents; the rank correlation (Kendall
  τ-b default) between the original top-k order and the pseudo scores;
- **MER@k** (extrinsic, eq. 3): for each top-k document, the maximum cosine (any embedder) of
  each of its rationales to a relevant sub-document unit, summed and divided by ``m``; mean over
  the k documents. Documents without relevant units (or rationales) count 0
  (``mer_missing="zero"``, eq. 3) or are left out (``"skip"``, a deviation).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..engine import ScoringEngine, encode_texts, score_pairs
from ..errors import ValidationError
from .declaration import Params
from .files import RationaleMap, relevant_units
from .measures import CORRELATIONS, max_similarity, rank_correlation
from .ranking import _check_ties, _order, _queries_map, _tie_scores
from .units import pseudo_document

__all__ = ["MER_MISSING", "mer_per_query", "mrc_per_query"]

DEFAULTS = Params()


MER_MISSING = ("skip", "zero")
"""Policies of MER for top-k documents without relevant units or without rationales."""


def _mer_ks(mer_k: int | Sequence[int]) -> tuple[int, ...]:
    """MER cut-offs as a tuple (one int or several); each must be >= 1."""
    ks = (int(mer_k),) if isinstance(mer_k, (int, np.integer)) else tuple(dict.fromkeys(int(k) for k in mer_k))
    if not ks or min(ks) < 1:
        raise ValidationError(f"mer_k: give MER cut-offs >= 1, got {mer_k!r}")
    return ks


def _is_nested(r: Mapping[Any, Any]) -> bool:
    for v in r.values():
        return isinstance(v, Mapping)
    return False


def mrc_per_query(
    ranker: Any,
    top: pd.DataFrame,
    queries: pd.DataFrame | Mapping[str, str],
    rationales: Mapping[Any, RationaleMap] | RationaleMap,
    *,
    ks: Sequence[int] = DEFAULTS.k,
    method: str = DEFAULTS.method,
    p: float = DEFAULTS.rbo_p,
    ties: str = DEFAULTS.ties,
    pseudo_order: str = DEFAULTS.pseudo_order,
    engine: ScoringEngine | None = None,
) -> pd.DataFrame:
    """Per-query MRC for one or several rationale sets (e.g. several ``m``).

    Args:
        ranker: the ranker that produced ``top`` (it scores the pseudo-documents).
        top: ranked run (``query_id, doc_id, score``), at least ``max(ks)`` deep where possible.
        queries: query texts.
        rationales: ``{(query_id, doc_id): rationales}``, or ``{label: that}`` for several sets
            (the label becomes the ``set`` column). Documents without rationales get an empty
            pseudo-document.
        ks: cut-offs.
        method: ``"kendall"`` | ``"spearman"`` | ``"rbo"``.
        p: RBO persistence.
        ties: tie rule of :func:`ranklens.io.rank_run` for the original order; under
            ``"trec_eval"`` Kendall/Spearman also compare the original scores as float32, so
            documents the rule ties are ties of τ-b.
        pseudo_order: rationale order in the pseudo-document (:func:`pseudo_document`).
        engine: scoring engine.

    Returns:
        ``set, query_id, k, n_docs, mrc`` (``mrc`` is nan for queries with fewer than two docs).
    """
    if method not in CORRELATIONS:
        raise ValidationError(f"method must be one of {CORRELATIONS}, got {method!r}")
    _check_ties(ties)
    qmap = _queries_map(queries)
    sets = rationales if _is_nested(rationales) else {None: rationales}
    ranked = _order(top, ties)
    kmax = max(ks)
    ranked = ranked[ranked["rank"] <= kmax]
    qs, ts, keys = [], [], []
    for label, rats in sets.items():
        for q, d in zip(ranked["query_id"], ranked["doc_id"]):
            qs.append(qmap[q])
            ts.append(pseudo_document(rats.get((q, d), ()), pseudo_order))
            keys.append((label, q, d))
    pseudo = score_pairs(ranker, qs, ts, engine=engine, desc="rationale-only documents")
    pmap = dict(zip(keys, pseudo))
    rows = []
    for label in sets:
        for q, g in ranked.groupby("query_id", sort=True):
            orig = _tie_scores(g["score"].to_numpy(), ties)
            rat = np.array([pmap[(label, q, d)] for d in g["doc_id"]])
            for k in ks:
                n = min(k, len(g))
                rows.append({"set": label, "query_id": q, "k": int(k), "n_docs": n,
                             "mrc": rank_correlation(orig[:n], rat[:n], method=method, p=p)})
    return pd.DataFrame(rows, columns=["set", "query_id", "k", "n_docs", "mrc"])


def mer_per_query(
    top: pd.DataFrame,
    docs: Mapping[str, str],
    rationales: Mapping[Any, RationaleMap] | RationaleMap,
    subdoc: pd.DataFrame,
    *,
    embedder: Any,
    k: int | Sequence[int] = DEFAULTS.mer_k,
    missing: str = DEFAULTS.mer_missing,
    ties: str = DEFAULTS.ties,
    engine: ScoringEngine | None = None,
) -> pd.DataFrame:
    """Per-query MER@k (eq. 3): per top-k document, the sum over its rationales of the max
    cosine to a relevant unit divided by ``m`` (the rationale count the set was cut to; a
    document with fewer units than ``m`` gets 0 for the missing terms), averaged over the k
    documents.

    Args:
        top: ranked run (``query_id, doc_id, score``).
        docs: ``doc_id -> text`` (to resolve sentence-index units).
        rationales: as in :func:`mrc_per_query`.
        subdoc: sub-document relevance from :func:`ranklens.explain.read_subdoc_qrels`.
        embedder: any :class:`ranklens.embedders.Embedder` (cosine of its vectors is ω).
        k: cut-off, or several (one row per cut-off; the units are encoded once for all);
            default the analysis's ``mer_k`` (10 and 50).
        missing: top-k documents without relevant units or without rationales:
            ``"skip"`` leaves them out of the mean (``n_docs`` counts the others and
            queries with none are left out); ``"zero"`` (default) scores them 0 (eq. 3, with the
            max over an empty set taken as 0), so every top-k document is in the mean and every
            query with a ranked document gets a value; a query that ranks fewer than ``k``
            documents is divided by ``k`` too (eq. 3's 1/(mk): the ranks it does not fill count
            0; ``n_docs`` is then ``k``).
        ties: tie rule of :func:`ranklens.io.rank_run` (which documents are the top-k).
        engine: encoding engine.

    Returns:
        ``set, query_id, k, n_docs, mer`` (``n_docs``: documents in the mean).
    """
    if missing not in MER_MISSING:
        raise ValidationError(f"MER missing-unit policy must be one of {MER_MISSING}, got {missing!r}")
    _check_ties(ties)
    sets = rationales if _is_nested(rationales) else {None: rationales}
    ks = _mer_ks(k)
    ranked = _order(top, ties)
    ranked = ranked[ranked["rank"] <= max(ks)]
    rel_cache: dict[tuple[str, str], list[str]] = {}
    for q, d in zip(ranked["query_id"], ranked["doc_id"]):
        rel_cache[(q, d)] = relevant_units(subdoc, q, d, docs[d])
    texts: dict[str, int] = {}
    for units in rel_cache.values():
        for t in units:
            texts.setdefault(t, len(texts))
    for rats in sets.values():
        for key, units in rel_cache.items():
            if units:
                for r in rats.get(key, ()):
                    texts.setdefault(r.text, len(texts))
    vecs = encode_texts(embedder, list(texts), engine=engine, desc="MER units") if texts else np.zeros((0, 1))
    rows = []
    for label, rats in sets.items():
        for q, g in ranked.groupby("query_id", sort=True):
            scored = []  # (rank, value or None: no relevant unit or no rationale)
            for d, rank in zip(g["doc_id"], g["rank"]):
                rel = rel_cache[(q, d)]
                rs = rats.get((q, d), ())
                if not rel or not rs:
                    scored.append((rank, None))
                    continue
                sims = max_similarity(vecs[[texts[r.text] for r in rs]], vecs[[texts[t] for t in rel]])
                # eq. 3 divides each document's sum by m (fewer units than m: missing terms are 0)
                m_eq3 = label if missing == "zero" and isinstance(label, int) else len(rs)
                scored.append((rank, float(sims.sum() / max(m_eq3, len(rs)))))
            for kk in ks:
                per_doc = [0.0 if v is None else v for r, v in scored
                           if r <= kk and (v is not None or missing == "zero")]
                if missing == "zero":  # eq. 3 divides by k: ranks the list does not fill count 0
                    per_doc.extend([0.0] * (kk - len(per_doc)))
                if per_doc:
                    rows.append({"set": label, "query_id": q, "k": int(kk), "n_docs": len(per_doc),
                                 "mer": float(np.mean(per_doc))})
    return pd.DataFrame(rows, columns=["set", "query_id", "k", "n_docs", "mer"])
