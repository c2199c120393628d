"""The ranked run: a run ordered under a tie rule and joined with the qrels, in a ragged (CSR)
layout (:class:`RankedRun`), the arrays every measure reads from it (memoised on the value), and
:func:`truncate` (a common depth). Built by :mod:`ranklens.asl.ranking`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..errors import ValidationError
from ..types import DOC_ID, QUERY_ID, RANK, SCORE
from .._lazy import LazyModule

pd = LazyModule("pandas")  # imported on first use: evaluate runs without pandas

__all__ = ["RankedRun", "truncate"]

_PAD = np.int32(-(2**31))
_UNJUDGED = np.int32(-(2**31) + 1)


@dataclass(frozen=True, eq=False)
class RankedRun:
    """A run ordered under a tie rule and joined with qrels, in a ragged (CSR) layout.

    Memory is proportional to the run's rows (plus a few integers per query), never to
    queries x maximum depth: the documents of query ``i`` sit at flat positions
    ``offsets[i]:offsets[i + 1]`` in rank order. Query and document ids are coded to integers
    once (Arrow dictionary encoding); queries present only in the qrels have empty segments.

    Attributes:
        query_ids: all query ids (run and qrels, sorted as strings), length Q.
        in_run: bool[Q], whether the run has rows for the query.
        lengths: int64[Q], number of retrieved documents.
        flat_grades: int32[n], relevance of the document at each flat position
            (``_UNJUDGED`` if not in the qrels).
        flat_rows: int32[n] (int64 for >= 2**31 rows), the run row at each flat position.
        doc_ids: Arrow string array of the run's doc ids (row order).
        qrels_q / qrels_rel / qrels_doc: the de-duplicated qrels (query code, relevance, doc id
            as Arrow strings); ``qrels_row`` is the run row that retrieved it (-1 if none).
        ties: the tie rule used.
        tied_rows: number of run rows that share their (compared) score with another row of
            the same query.
        duplicates_dropped: rows dropped because their (query, doc) pair appeared again at a
            better rank (only under ``duplicates="best"``).
        reader_warnings: what the run and qrels readers accepted with a warning (comment lines,
            repeated identical qrels lines, ...), for the analyses' output.
        origin: the run as it was given (a path or a frame), for provenance and messages.
        ranked_under: ``(ties, duplicates, depth, grade mapping)`` when the run was ranked by
            :func:`ranklens.asl.ranking.rank_runs` (a kernel handed the ranked run checks
            them against its own conventions); empty otherwise.
    """

    query_ids: np.ndarray
    in_run: np.ndarray
    lengths: np.ndarray
    flat_grades: np.ndarray
    flat_rows: np.ndarray
    doc_ids: Any
    qrels_q: np.ndarray
    qrels_rel: np.ndarray
    qrels_doc: Any
    qrels_row: np.ndarray
    ties: str
    tied_rows: int
    scores: Any = field(repr=False)  # Arrow (chunked) float64 scores, run row order
    _memo: dict = field(default_factory=dict, repr=False, compare=False)
    duplicates_dropped: int = 0
    reader_warnings: tuple[str, ...] = ()
    origin: Any = field(default=None, repr=False)  # the run as given (path or frame): provenance, messages
    ranked_under: tuple = ()  # (ties, duplicates, depth, grade mapping) when ranked by rank_runs
    run_order: Any = field(default=None, repr=False)  # int32 codes of the run's queries in the order the run
    #                                                    lists them first (ir_measures' per-query order)

    def memoised(self, key: str, make):
        """``make()`` once per ranked run and ``key`` (derived arrays the measures share; a
        ranked run is never changed after it is built, so the value stays true)."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    @property
    def depth(self) -> int:
        """The longest ranked list."""
        return int(self.lengths.max()) if self.lengths.size else 0

    @property
    def offsets(self) -> np.ndarray:
        """int64[Q + 1]: query ``i`` holds flat positions ``offsets[i]:offsets[i + 1]``."""
        return self.memoised("offsets", lambda: np.concatenate(
            [[0], np.cumsum(self.lengths)]).astype(np.int64))

    @property
    def seg(self) -> np.ndarray:
        """int32[n]: the query index of each flat position."""
        return self.memoised("seg", lambda: np.repeat(
            np.arange(len(self.lengths), dtype=np.int32), self.lengths))

    @property
    def rank0(self) -> np.ndarray:
        """int32[n]: the 0-based rank of each flat position within its query."""
        def make():
            n = self.flat_grades.size
            dt = np.int32 if n < 2**31 - 1 else np.int64
            r = np.arange(n, dtype=dt)
            r -= self.offsets[:-1].astype(dt)[self.seg]
            return r
        return self.memoised("rank0", make)

    def padded(self, values: np.ndarray, fill) -> np.ndarray:
        """A Q x depth matrix of a flat array (``fill`` past each list). O(Q x depth) memory:
        for small inputs and tests; the kernels work on the flat arrays."""
        out = np.full((len(self.lengths), self.depth), fill, dtype=values.dtype)
        out[self.seg, self.rank0] = values
        return out

    @property
    def grades(self) -> np.ndarray:
        """Padded Q x depth grades (``_PAD`` past the end); see :meth:`padded`."""
        return self.padded(self.flat_grades, _PAD)

    @property
    def rows(self) -> np.ndarray:
        """Padded Q x depth run rows (-1 past the end); see :meth:`padded`."""
        return self.padded(self.flat_rows.astype(np.int64), -1)

    def n_relevant(self, rel: int = 1) -> np.ndarray:
        """Relevant documents per query in the qrels (relevance >= ``rel``); read-only,
        memoised per ``rel`` (every measure of an evaluation asks for it)."""
        def make() -> np.ndarray:
            out = np.bincount(self.qrels_q[self.qrels_rel >= rel], minlength=len(self.query_ids)).astype(np.int64)
            out.flags.writeable = False
            return out

        return self.memoised(f"n_relevant:{rel}", make)

    @property
    def judged_positions(self) -> np.ndarray:
        """int64[k]: the flat positions holding a judged document, ascending (read-only;
        :func:`~ranklens.asl.ranking.rank_coded` fills it, so the kernels look for relevant documents among the judged
        positions, a few % of the run, not among all of them)."""
        def make() -> np.ndarray:
            out = np.flatnonzero(self.flat_grades != _UNJUDGED)
            out.flags.writeable = False
            return out

        return self.memoised("judged_positions", make)

    @property
    def judged_grades(self) -> np.ndarray:
        """int32[k]: the grades at :attr:`judged_positions` (read-only; a compact copy, so a
        relevance threshold reads k grades, not a gather over the run-sized array)."""
        def make() -> np.ndarray:
            out = self.flat_grades[self.judged_positions]
            out.flags.writeable = False
            return out

        return self.memoised("judged_grades", make)

    def relevant_positions(self, rel: int = 1) -> np.ndarray:
        """int64[r]: the flat positions of the documents with relevance >= ``rel``, ascending
        (each query's positions together, in rank order); read-only, memoised per ``rel``."""
        def make() -> np.ndarray:
            out = self.judged_positions[self.judged_grades >= rel]
            out.flags.writeable = False
            return out

        return self.memoised(f"relevant_positions:{rel}", make)

    def ranks_of(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Query index and 0-based rank of the ascending flat positions ``pos``: Q + 1 binary
        searches (each query's positions sit together), no run-sized array."""
        counts = np.diff(np.searchsorted(pos, self.offsets))
        qi = np.repeat(np.arange(len(self.lengths)), counts)
        return qi, pos - self.offsets[qi]

    def relevant_ranks(self, rel: int = 1, cutoff: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(pos, query, rank0)`` of the documents with relevance >= ``rel`` ranked in the top
        ``cutoff`` (None: all), in flat (query, rank) order: what the measures read instead
        of run-sized masks. Read-only; memoised per ``rel`` (a cutoff filters that)."""
        def make() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            pos = self.relevant_positions(rel)
            qi, rank0 = self.ranks_of(pos)
            qi.flags.writeable = rank0.flags.writeable = False
            return pos, qi, rank0

        pos, qi, rank0 = self.memoised(f"relevant_ranks:{rel}", make)
        if cutoff is not None:
            keep = rank0 < cutoff
            pos, qi, rank0 = pos[keep], qi[keep], rank0[keep]
        return pos, qi, rank0

    def judged_queries(self) -> np.ndarray:
        """bool[Q]: queries with at least one qrels line."""
        return np.bincount(self.qrels_q, minlength=len(self.query_ids)) > 0

    def ranks_frame(self) -> pd.DataFrame:
        """The ranked run as a frame (``query_id``, ``doc_id``, ``score``, ``rank``)."""
        r = self.flat_rows
        return pd.DataFrame({
            QUERY_ID: pd.array(self.query_ids[self.seg].astype(object), dtype="str"),
            DOC_ID: pd.array(np.asarray(self.doc_ids.take(_pa_idx(r)).to_pylist(), dtype=object), "str"),
            SCORE: np.asarray(self.scores.take(_pa_idx(r)).to_numpy(), np.float64),
            RANK: (self.rank0 + 1).astype(np.int64),
        })


def truncate(rr: RankedRun, depth: int | None) -> RankedRun:
    """The ranked run cut to its top ``depth`` documents per query (None: unchanged).

    Relevant documents ranked below the cut count as unretrieved; a query stays "in the run".
    """
    if depth is None or depth >= rr.depth:
        return rr
    if depth < 1:
        raise ValidationError(f"depth must be >= 1, got {depth}")
    keep = rr.rank0 < depth
    qrels_row = _within_cutoff(rr, rr.qrels_row, depth)
    return replace(rr, lengths=np.minimum(rr.lengths, depth), flat_grades=rr.flat_grades[keep],
                   flat_rows=rr.flat_rows[keep], qrels_row=qrels_row, _memo={})


def _within_cutoff(rr: RankedRun, qrels_row: np.ndarray, cutoff: int) -> np.ndarray:
    """``qrels_row`` with the run rows ranked at ``cutoff`` or below replaced by -1."""
    rank_of_row = np.full(len(rr.scores), np.iinfo(np.int32).max, np.int32)
    rank_of_row[rr.flat_rows] = rr.rank0
    hit = qrels_row >= 0
    out = qrels_row.copy()
    out[hit] = np.where(rank_of_row[qrels_row[hit]] < cutoff, qrels_row[hit], -1)
    return out


def _pa_idx(idx: np.ndarray):
    import pyarrow as pa

    return pa.array(np.asarray(idx, dtype=np.int64))
