r"""Atomized Search Length (ASL): the vectorised kernel, the tie rule and the measure records.

Alex, Hall & Metzler, "Atomized Search Length: Beyond User Models" (arXiv:2201.01745).

For a query :math:`q` with relevant documents :math:`d_1..d_{R_q}` (relevance :math:`\ge`
``rel``; unjudged documents count as non-relevant), the search length of a retrieved relevant
document is

.. math:: SL(d) = 1 + \#\{\text{non-relevant documents ranked above } d\} = rank(d) - \#\{\text{relevant above } d\}

Per query :math:`ASL_q = \frac{1}{R_q}\sum_d SL(d)`; overall ASL is the mean of :math:`ASL_q`
over queries with :math:`R_q \ge 1`. ``ASL@g1-n`` averages only the first
:math:`\min(n, R_q)` relevant documents in rank order (unretrieved ones last). The paper's eq. 5
divides by :math:`n` and assumes a query has at least :math:`n` relevant documents; for
:math:`R_q < n` ranklens divides by :math:`R_q` (eq. 4's mean over the documents there are):
the literal :math:`1/n` would make a query with one relevant document at SL 3 score 0.3 under
``ASL@g1-10``, better than the optimum 1. This is ranklens's reading, not the paper's words.

Relevant documents the run never retrieved get, with :math:`irrel_q` the number of non-relevant
documents retrieved (within the cutoff):

- ``"paper"`` (default): :math:`SL = irrel_q`, the paper's eq. 3. A truncated list with few
  non-relevant documents can then score *below* the optimum 1 (an unretrieved document behind
  0 non-relevant ones gets SL 0); :func:`below_optimum` counts where that happens so callers
  warn;
- ``"lower_bound"``: :math:`SL = irrel_q + 1`: the best they could do, placed right after the
  list; consistent with the per-document definition (eq. 1) and never below 1;
- ``"expected"``: the :math:`M_q` missing relevant documents are spread uniformly at random over
  the :math:`N - n_q` unretrieved documents of a collection of size :math:`N`; the :math:`j`-th
  of them then has expected :math:`SL = 1 + irrel_q + j\,K_q/(M_q+1)` with
  :math:`K_q = N - n_q - M_q` the non-relevant unretrieved documents (order statistics of a
  uniform shuffle). Needs ``collection_size=N``.

A run must list each (query, document) pair once. Duplicate rows are an error by default
(``duplicates="error"``, naming the query, the document and both ranks, as
:func:`ranklens.io.validate_run` does for frames); ``duplicates="best"`` keeps each pair's
best-ranked row (highest score, ties broken by the tie rule) and drops the others *before* any
measure is computed, so ASL and the ir_measures measures see the same ranking.

The measure reads a :class:`~ranklens.asl.ranked.RankedRun` (a run ranked under a tie rule and
joined with the qrels by :mod:`ranklens.asl.ranking`): per query (:func:`asl_per_query`) and per
relevant document (:func:`search_lengths`), each a ``bincount``/``cumsum`` over the relevant
positions only. The measure strings (``ASL@g1-10``, ...) are parsed in :mod:`ranklens.asl.measures`.
"""

from __future__ import annotations

import numpy as np

from .._arrays import running_count
from ..errors import ValidationError
from ..types import DOC_ID, QUERY_ID, RANK, RELEVANCE
from .declaration import Params
from .measures import UNRETRIEVED_POLICIES
from .ranked import RankedRun, _pa_idx, _within_cutoff
from .._lazy import LazyModule

pd = LazyModule("pandas")  # imported on first use: evaluate runs without pandas

__all__ = [
    "DEFAULT_UNRETRIEVED",
    "UNRETRIEVED_POLICIES",
    "asl_per_query",
    "below_optimum",
    "depth_stats",
    "search_lengths",
    "worst_case_asl",
]

DEFAULTS = Params()
DEFAULT_UNRETRIEVED = DEFAULTS.unretrieved  # eq. 3 of the paper


def depth_stats(rr: RankedRun, rel: int = DEFAULTS.rel) -> dict[str, float]:
    """Documents per query of the run (queries present in the run): ``depth_min``,
    ``depth_median``, ``depth_max``; and ``recall_at_depth``: retrieved relevant / relevant
    over the judged queries the run answers."""
    lengths = rr.lengths[rr.in_run]
    nrel = rr.n_relevant(rel)
    ret = np.bincount(rr.relevant_ranks(rel)[1], minlength=len(nrel))
    keep = rr.in_run & (nrel > 0)
    if not lengths.size:
        return {"depth_min": 0, "depth_median": 0.0, "depth_max": 0, "recall_at_depth": float("nan")}
    return {"depth_min": int(lengths.min()), "depth_median": float(np.median(lengths)),
            "depth_max": int(lengths.max()),
            "recall_at_depth": float(ret[keep].sum() / nrel[keep].sum()) if keep.any() else float("nan")}


def below_optimum(rr: RankedRun, *, rel: int = DEFAULTS.rel, unretrieved: str = DEFAULTS.unretrieved,
                  cutoff: int | None = None) -> int:
    """Queries where eq. 3 (``unretrieved="paper"``) gives an unretrieved relevant document an
    SL below the optimum 1: it retrieved no non-relevant document yet missed a relevant one."""
    if unretrieved != "paper":
        return 0
    lengths = rr.lengths if cutoff is None else np.minimum(rr.lengths, cutoff)
    ret = np.bincount(rr.relevant_ranks(rel, cutoff)[1], minlength=len(rr.lengths))
    miss = rr.n_relevant(rel) - ret
    return int(np.count_nonzero(rr.in_run & (miss > 0) & (lengths - ret == 0)))


def worst_case_asl(n_relevant: np.ndarray, depth: int, *, first: int | None = None,
                   unretrieved: str = DEFAULTS.unretrieved, collection_size: int | None = DEFAULTS.collection_size) -> np.ndarray:
    """ASL of a query the run did not answer, as the worst case: the run listed ``depth``
    non-relevant documents and retrieved no relevant one (every relevant document unretrieved).

    Used by ``missing="zero"``: a missing query is never rewarded (an empty ranking would get
    SL 0 under eq. 3).
    """
    nrel = np.asarray(n_relevant, np.int64)
    m = nrel if first is None else np.minimum(nrel, first)
    irrel = np.full(nrel.shape, depth, np.int64)
    k_nonrel = np.zeros(nrel.shape) if collection_size is None else collection_size - depth - nrel
    with np.errstate(invalid="ignore", divide="ignore"):
        out = _missing_sum(m, irrel, k_nonrel, nrel, unretrieved) / m
    return np.where(m > 0, out, np.nan)


def _check_policy(unretrieved: str, collection_size: int | None) -> None:
    if unretrieved not in UNRETRIEVED_POLICIES:
        raise ValidationError(f"unknown unretrieved policy {unretrieved!r}; choose one of "
                              f"{', '.join(UNRETRIEVED_POLICIES)}")
    if unretrieved == "expected" and (collection_size is None or collection_size < 1):
        raise ValidationError("unretrieved='expected' needs collection_size=N (the number of "
                              "documents in the collection), e.g. --collection-size 8841823")


def _missing_sum(m: np.ndarray, irrel: np.ndarray, k_nonrel: np.ndarray, miss_total: np.ndarray,
                 unretrieved: str) -> np.ndarray:
    """Sum of SL over the first ``m`` of ``miss_total`` unretrieved relevant documents."""
    if unretrieved == "paper":
        return m * irrel.astype(np.float64)
    if unretrieved == "lower_bound":
        return m * (irrel + 1.0)
    return m * (irrel + 1.0) + k_nonrel / (miss_total + 1.0) * m * (m + 1) / 2.0


def asl_per_query(
    rr: RankedRun, *, rel: int = DEFAULTS.rel, first: int | None = None, cutoff: int | None = None,
    unretrieved: str = DEFAULTS.unretrieved, collection_size: int | None = DEFAULTS.collection_size,
) -> np.ndarray:
    """ASL (or ASL@g1-``first``) per query, aligned with ``rr.query_ids``.

    Args:
        rr: ranked run from :func:`rank_coded`.
        rel: minimum relevance counted as relevant.
        first: average only the first ``first`` relevant documents (ASL@g1-n); None = all.
        cutoff: consider only the top ``cutoff`` documents of each list (None = all).
        unretrieved: policy for relevant documents the run did not retrieve (module docstring).
        collection_size: N for ``unretrieved="expected"``.

    Returns:
        float64[Q]; NaN for queries without relevant documents. Queries absent from the run are
        scored as an empty ranking (callers drop them under ``missing="skip"``).
    """
    _check_policy(unretrieved, collection_size)
    if first is not None and first < 1:
        raise ValidationError(f"ASL@g1-n needs n >= 1, got {first}")
    nq = len(rr.lengths)
    lengths = rr.lengths if cutoff is None else np.minimum(rr.lengths, cutoff)
    # the relevant positions only (a few % of the rows): their query and 0-based rank, without
    # the run-sized seg/rank0 arrays
    _, pseg, rank0 = rr.relevant_ranks(rel, cutoff)
    ret = np.bincount(pseg, minlength=nq).astype(np.int64)
    irrel = lengths - ret
    nrel = rr.n_relevant(rel)
    miss = np.maximum(nrel - ret, 0)
    k_nonrel = np.zeros(len(nrel)) if collection_size is None else collection_size - lengths - miss
    if unretrieved == "expected" and np.any(k_nonrel < 0):
        raise ValidationError(f"collection_size={collection_size} is smaller than a ranked list "
                              "plus its unretrieved relevant documents")
    if first is None:
        k, denom, m = ret, nrel, miss
    else:
        # running count of the relevant documents within each query (positions ascending)
        keep = running_count(pseg) <= first
        rank0, pseg = rank0[keep], pseg[keep]
        k = np.minimum(ret, first)
        denom = np.minimum(nrel, first)
        m = np.maximum(denom - k, 0)
    # sum of SL = sum(pos0 + 2 - cum) over the first k relevant; cum runs 1..k
    pos_sum = np.bincount(pseg, weights=rank0, minlength=len(nrel))
    sl_sum = pos_sum + 2.0 * k - k * (k + 1) / 2.0
    sl_sum = sl_sum + _missing_sum(m, irrel, k_nonrel, miss, unretrieved)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = sl_sum / denom
    out[denom == 0] = np.nan
    return out


def search_lengths(
    rr: RankedRun, *, rel: int = DEFAULTS.rel, cutoff: int | None = None,
    unretrieved: str = DEFAULTS.unretrieved, collection_size: int | None = DEFAULTS.collection_size,
) -> pd.DataFrame:
    """Per-document search lengths: one row per relevant (query, document).

    Returns:
        DataFrame ``query_id``, ``doc_id``, ``relevance``, ``rank`` (Int64, <NA> if not
        retrieved within the cutoff), ``sl`` (float64; for unretrieved documents the policy's
        value, for ``"expected"`` the mean over the missing documents' expected positions),
        ``retrieved`` (bool), sorted by query then rank (unretrieved last, by doc_id).
    """
    _check_policy(unretrieved, collection_size)
    return rr.memoised(f"search_lengths:{rel}:{cutoff}:{unretrieved}:{collection_size}",
                       lambda: _search_lengths(rr, rel, cutoff, unretrieved, collection_size)).copy()


def _search_lengths(rr, rel, cutoff, unretrieved, collection_size) -> pd.DataFrame:
    lengths = rr.lengths if cutoff is None else np.minimum(rr.lengths, cutoff)
    flat, qi, pos = rr.relevant_ranks(rel, cutoff)
    sl_ret = (pos + 1 - (running_count(qi) - 1)).astype(np.float64)
    rows = rr.flat_rows[flat]
    ret = np.bincount(qi, minlength=len(rr.lengths))
    irrel = lengths - ret
    nrel = rr.n_relevant(rel)
    miss = np.maximum(nrel - ret, 0)
    # relevant qrels entries not retrieved (within the cutoff)
    qrel_keep = rr.qrels_rel >= rel
    retrieved_row = rr.qrels_row
    if cutoff is not None:
        retrieved_row = _within_cutoff(rr, retrieved_row, cutoff)
    miss_idx = np.flatnonzero(qrel_keep & (retrieved_row < 0))
    mq = rr.qrels_q[miss_idx]
    if unretrieved == "paper":
        sl_miss = irrel[mq].astype(np.float64)
    elif unretrieved == "lower_bound":
        sl_miss = irrel[mq] + 1.0
    else:
        k_nonrel = collection_size - lengths - miss
        sl_miss = 1.0 + irrel[mq] + k_nonrel[mq] / 2.0
    doc_ret = np.asarray(rr.doc_ids.take(_pa_idx(rows)).to_pylist(), dtype=object)
    doc_miss = np.asarray(rr.qrels_doc.take(_pa_idx(miss_idx)).to_pylist(), dtype=object)
    rel_ret = rr.flat_grades[flat].astype(np.int64)
    frame = pd.DataFrame({
        QUERY_ID: np.concatenate([rr.query_ids[qi], rr.query_ids[mq]]).astype(object),
        DOC_ID: np.concatenate([doc_ret, doc_miss]),
        RELEVANCE: np.concatenate([rel_ret, rr.qrels_rel[miss_idx]]),
        RANK: pd.array(np.concatenate([pos + 1, np.full(miss_idx.size, -1)]), dtype="Int64"),
        "sl": np.concatenate([sl_ret, sl_miss]),
        "retrieved": np.concatenate([np.ones(qi.size, bool), np.zeros(miss_idx.size, bool)]),
    })
    frame.loc[~frame["retrieved"], RANK] = pd.NA
    frame["_r"] = frame[RANK].fillna(np.iinfo(np.int64).max)
    frame = frame.sort_values([QUERY_ID, "_r", DOC_ID], kind="stable").drop(columns="_r")
    frame[QUERY_ID] = frame[QUERY_ID].astype("str")
    frame[DOC_ID] = frame[DOC_ID].astype("str")
    return frame.reset_index(drop=True)
