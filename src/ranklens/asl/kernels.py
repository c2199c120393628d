"""Standard IR measures from ranklens's own vectorised kernels on the ragged ranked run.

Each kernel reads the relevant (or, for bpref, judged) documents of
:class:`~ranklens.asl.ranked.RankedRun` -- their flat positions, queries and 0-based ranks,
from :meth:`~ranklens.asl.ranked.RankedRun.relevant_ranks` -- and returns one float64 value per
query of ``rr.query_ids``, with ``bincount``/``cumsum`` over those documents only: linear in
the judged documents (a few % of the rows), no run-sized mask, no Python loop over queries,
no dict of the run.

The definitions are trec_eval 9.0.8's (the version pytrec_eval wraps), read from its source
(``m_map.c``, ``m_map_cut.c``, ``m_P.c``, ``m_recall.c``, ``m_recip_rank.c``, ``m_Rprec.c``,
``m_bpref.c``, ``m_success.c``, ``m_ndcg.c``, ``m_ndcg_cut.c``, ``form_res_rels.c``):

- a document is relevant when its qrels grade is ``>= rel`` (trec_eval ``-l``); documents
  absent from the qrels are non-relevant; negative qrels grades are "in the pool but
  unjudged" (skipped by bpref, never relevant, never counted among the judged);
- ``R`` (``num_rel``) counts the qrels documents with grade ``>= rel``; AP, AP@k, R@k, Rprec
  and bpref divide by it and are 0 when it is 0;
- P@k divides by k even when fewer than k documents were retrieved;
- nDCG and nDCG@k use the raw grades as gains (positive grades only, whatever ``rel`` is),
  discount ``log2(rank + 1)``, and the ideal ranking of the qrels' positive grades; 0 when
  the ideal is 0;
- ``NumQ``, ``NumRet``, ``NumRet(rel=R)`` (``NumRelRet``) and ``NumRel`` are trec_eval's
  ``num_q``, ``num_ret``, ``num_rel_ret`` and ``num_rel`` per query; their summary is a sum
  (:func:`ranklens.asl.measures.is_summed`), as trec_eval and ir_measures print it;
- bpref: for each relevant retrieved document, ``1 - min(n, R) / min(N, R)`` with ``n`` the
  judged non-relevant documents (0 <= grade < rel) above it and ``N`` those in the qrels.

Measures are ir_measures objects (``ir_measures.parse_measure``); :func:`supports` says which
ones have a kernel here (default parameters only: ``judged_only``, ``gains`` and non-``log2``
DCG go to ir_measures). The proof of equality is in ``tests/asl/test_kernels.py``
(brute-force trec_eval loops, pytrec_eval on random runs, trec_eval 9.0.8's own test files).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._arrays import running_count

__all__ = ["KERNELS", "standard_per_query", "supports"]

#: ir_measures measure name -> the parameters the kernel accepts (others go to ir_measures).
KERNELS: dict[str, frozenset[str]] = {
    "AP": frozenset({"cutoff", "rel"}),
    "P": frozenset({"cutoff", "rel"}),
    "R": frozenset({"cutoff", "rel"}),
    "Success": frozenset({"cutoff", "rel"}),
    "RR": frozenset({"rel"}),
    "Rprec": frozenset({"rel"}),
    "Bpref": frozenset({"rel"}),
    "nDCG": frozenset({"cutoff", "dcg"}),
    "NumRel": frozenset({"rel"}),
    "NumRet": frozenset({"rel"}),
    "NumQ": frozenset(),
}


def supports(measure: Any) -> bool:
    """Whether ``measure`` (an ir_measures object) has a kernel here."""
    name = getattr(measure, "NAME", None)
    params = dict(getattr(measure, "params", {}) or {})
    if name not in KERNELS or not set(params) <= KERNELS[name]:
        return False
    if params.get("dcg", "log2") != "log2":
        return False
    if name in ("P", "R", "Success") and "cutoff" not in params:
        return False  # trec_eval has no uncut P/R/Success
    return True


def standard_per_query(rr, measure: Any) -> np.ndarray:
    """Per-query values (float64[Q], aligned with ``rr.query_ids``) of a supported measure."""
    params = dict(measure.params or {})
    rel = params.get("rel", None if measure.NAME == "NumRet" else 1)  # NumRet: rel unset = every document
    return _DISPATCH[measure.NAME](rr, rel, params.get("cutoff"))


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(num.shape, np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _count(rr, qi: np.ndarray) -> np.ndarray:
    return np.bincount(qi, minlength=len(rr.lengths))


def _precision(rr, rel: int, cutoff: int | None) -> np.ndarray:
    return _count(rr, rr.relevant_ranks(rel, cutoff)[1]) / float(cutoff)


def _recall(rr, rel: int, cutoff: int | None) -> np.ndarray:
    return _div(_count(rr, rr.relevant_ranks(rel, cutoff)[1]).astype(np.float64), rr.n_relevant(rel))


def _success(rr, rel: int, cutoff: int | None) -> np.ndarray:
    return (_count(rr, rr.relevant_ranks(rel, cutoff)[1]) > 0).astype(np.float64)


def _num_rel(rr, rel: int, cutoff: int | None) -> np.ndarray:
    return rr.n_relevant(rel).astype(np.float64)


def _num_ret(rr, rel: int | None, cutoff: int | None) -> np.ndarray:
    """trec_eval ``num_ret`` (no ``rel``: every retrieved document) or ``num_rel_ret`` (``rel``:
    the retrieved documents with grade >= rel); 0 for a query the run does not answer."""
    if rel is None:
        return rr.lengths.astype(np.float64)
    return _count(rr, rr.relevant_ranks(rel)[1]).astype(np.float64)


def _num_q(rr, rel: int | None, cutoff: int | None) -> np.ndarray:
    """trec_eval ``num_q``: 1 per query evaluated (summed, it counts them)."""
    return np.ones(len(rr.lengths), np.float64)


def _ap(rr, rel: int, cutoff: int | None) -> np.ndarray:
    _, qi, rank0 = rr.relevant_ranks(rel, cutoff)
    prec = running_count(qi) / (rank0 + 1.0)
    total = np.bincount(qi, weights=prec, minlength=len(rr.lengths))
    return _div(total, rr.n_relevant(rel))


def _rr(rr, rel: int, cutoff: int | None) -> np.ndarray:
    _, qi, rank0 = rr.relevant_ranks(rel)
    out = np.zeros(len(rr.lengths), np.float64)
    if qi.size:
        first = np.concatenate([[True], qi[1:] != qi[:-1]])  # flat order is rank order
        out[qi[first]] = 1.0 / (rank0[first] + 1.0)
    return out


def _rprec(rr, rel: int, cutoff: int | None) -> np.ndarray:
    nrel = rr.n_relevant(rel)
    _, qi, rank0 = rr.relevant_ranks(rel)
    return _div(np.bincount(qi[rank0 < nrel[qi]], minlength=len(nrel)).astype(np.float64), nrel)


def _bpref(rr, rel: int, cutoff: int | None) -> np.ndarray:
    # over the judged positions only: the judged non-relevant documents (0 <= grade < rel)
    # above each relevant one are a running count within its query
    g = rr.judged_grades
    qi, _ = rr.ranks_of(rr.judged_positions)
    nonrel = (g >= 0) & (g < rel)
    relm = g >= rel
    nrel = rr.n_relevant(rel)
    judged_nonrel = (rr.qrels_rel >= 0) & (rr.qrels_rel < rel)
    n_nonrel = np.bincount(rr.qrels_q[judged_nonrel], minlength=len(nrel))
    above = running_count(qi, nonrel)[relm].astype(np.float64)
    qr = qi[relm]
    big_r = nrel[qr].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        part = np.where(above > 0, 1.0 - np.minimum(above, big_r) / np.minimum(n_nonrel[qr], big_r), 1.0)
    return _div(np.bincount(qr, weights=part, minlength=len(nrel)), nrel)


def _ndcg(rr, rel: int, cutoff: int | None) -> np.ndarray:
    pos, qi, rank0 = rr.relevant_ranks(1, cutoff)  # positive grades are the gains, whatever rel is
    g = rr.flat_grades[pos]
    dcg = np.bincount(qi, weights=g / np.log2(rank0 + 2.0), minlength=len(rr.lengths))
    return _div(dcg, _ideal_dcg(rr, cutoff))


def _ideal_ranking(rr) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each query's qrels grades > 0 in decreasing order: (query, gain, 0-based rank), for the
    queries the run answers only: an absent query's DCG is 0, so its nDCG is 0 whatever its
    ideal (qrels of 100k other queries then cost a mask, not a sort)."""
    pos = (rr.qrels_rel > 0) & rr.in_run[rr.qrels_q]
    qq, gg = rr.qrels_q[pos], rr.qrels_rel[pos]
    o = np.lexsort((-gg, qq))
    out = qq[o], gg[o].astype(np.float64), running_count(qq[o]) - 1
    for a in out:
        a.flags.writeable = False  # memoised on the ranked run
    return out


def _ideal_dcg(rr, cutoff: int | None) -> np.ndarray:
    """DCG of each query's qrels grades > 0 in decreasing order (within the cutoff); the
    ideal ranking is sorted once per ranked run (memoised), whatever the cutoffs asked."""
    qq, gg, rank0 = rr.memoised("ideal_ranking", lambda: _ideal_ranking(rr))
    keep = rank0 < cutoff if cutoff is not None else np.ones(qq.size, bool)
    return np.bincount(qq[keep], weights=gg[keep] / np.log2(rank0[keep] + 2.0), minlength=len(rr.lengths))


_DISPATCH: dict[str, Callable[[Any, int, int | None], np.ndarray]] = {
    "AP": _ap, "P": _precision, "R": _recall, "Success": _success, "RR": _rr, "Rprec": _rprec,
    "Bpref": _bpref, "nDCG": _ndcg, "NumRel": _num_rel, "NumRet": _num_ret, "NumQ": _num_q,
}
