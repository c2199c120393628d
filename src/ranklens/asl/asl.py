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

Runs are ordered under a tie rule (:data:`ranklens.types.TieRule`) exactly like
:func:`ranklens.io.rank_run`: ``"trec_eval"`` compares scores as float32 and breaks ties by
``doc_id`` descending (byte order, as ``strcmp``). The ranked run is ragged (CSR, see
:class:`RankedRun`): memory proportional to the rows, query ids coded to integers once; a file
already grouped by query in score order is not sorted again, doc ids are only compared among
rows that tie, relevance comes from a hashed join of the judged documents, and every kernel is
a ``bincount``/``cumsum`` over the rows.
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .._arrays import running_count
from ..errors import ValidationError
from ..types import DEFAULT_TIES, DOC_ID, QUERY_ID, RANK, RELEVANCE, SCORE, TIE_RULES

__all__ = [
    "ASL",
    "DEFAULT_DUPLICATES",
    "DEFAULT_UNRETRIEVED",
    "DUPLICATE_POLICIES",
    "UNRETRIEVED_POLICIES",
    "RankedRun",
    "asl_per_query",
    "below_optimum",
    "depth_stats",
    "map_grades",
    "ranked",
    "parse_measure",
    "rank_coded",
    "search_lengths",
    "truncate",
    "worst_case_asl",
]

UNRETRIEVED_POLICIES: tuple[str, ...] = ("lower_bound", "paper", "expected")
DEFAULT_UNRETRIEVED = "paper"  # eq. 3 of the paper
DUPLICATE_POLICIES: tuple[str, ...] = ("error", "best")
DEFAULT_DUPLICATES = "error"

_PAD = np.int32(-(2**31))
_UNJUDGED = np.int32(-(2**31) + 1)


# --------------------------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------------------------

def _aliased(frame: pd.DataFrame, required: tuple[str, ...]) -> pd.DataFrame:
    """PyTerrier/ranx/ir_datasets column names (``qid``, ``docno``, ``label``, ...) renamed to
    ranklens's, as :data:`ranklens.io.frames.COLUMN_ALIASES` lists them; a column already
    named canonically wins."""
    from ..io.frames import COLUMN_ALIASES

    mapping: dict[Any, str] = {}
    for alias, target in COLUMN_ALIASES.items():
        if alias in frame.columns and target in required and target not in frame.columns \
                and target not in mapping.values():
            mapping[alias] = target
    return frame.rename(columns=mapping) if mapping else frame


def _as_run_table(run: Any, *, source: str = "run"):
    """A path or a DataFrame (``query_id``, ``doc_id``, ``score``) -> Arrow table."""
    import pyarrow as pa

    if isinstance(run, pa.Table):
        missing = {QUERY_ID, DOC_ID, SCORE} - set(run.column_names)
        if missing:
            raise ValidationError(f"{source}: run table lacks column(s) {sorted(missing)}")
        if run.schema.field(SCORE).type != pa.float64():
            run = run.set_column(run.schema.get_field_index(SCORE), SCORE,
                                 run.column(SCORE).cast(pa.float64()))
        return run
    if isinstance(run, pd.DataFrame):
        run = _frame_columns(run, SCORE, f"{source}: run")
        for c in (QUERY_ID, DOC_ID):
            if pd.api.types.is_numeric_dtype(run[c]):
                raise ValidationError(f"{source}: column {c!r} must hold str ids, got "
                                      f"{run[c].dtype}; read with dtype={{{c!r}: str}}")
        score = pd.to_numeric(run[SCORE], errors="coerce").to_numpy(np.float64)
        if np.isnan(score).any():
            bad = int(np.flatnonzero(np.isnan(score))[0])
            raise ValidationError(f"{source}: column 'score' has a missing/non-numeric value at "
                                  f"row {bad}; every row needs a numeric score")
        return _frame_table(run, SCORE, score)
    from ..io.trec import read_run_table

    return read_run_table(run)


def _frame_columns(frame: pd.DataFrame, value_name: str, what: str) -> pd.DataFrame:
    """The frame with its columns under their canonical names (``_aliased``); an error naming
    the missing ones."""
    frame = _aliased(frame, (QUERY_ID, DOC_ID, value_name))
    missing = {QUERY_ID, DOC_ID, value_name} - set(frame.columns)
    if missing:
        raise ValidationError(f"{what} frame lacks column(s) {sorted(missing)}; expected "
                              f"{QUERY_ID}, {DOC_ID}, {value_name}")
    return frame


def _frame_table(frame: pd.DataFrame, value_name: str, values: Any):
    """The Arrow table of a run or qrels frame: string ids, ``values`` under ``value_name``,
    and the reader warnings the frame carries (``attrs``)."""
    import pyarrow as pa

    from ..io._columns import _with_warnings, table_warnings

    table = pa.table({
        QUERY_ID: pa.array(frame[QUERY_ID].astype(str).to_numpy(object), pa.string()),
        DOC_ID: pa.array(frame[DOC_ID].astype(str).to_numpy(object), pa.string()),
        value_name: pa.array(values),
    })
    warns = table_warnings(frame)
    return _with_warnings(table, list(warns)) if warns else table


def _as_qrels_table(qrels: Any):
    import pyarrow as pa

    if isinstance(qrels, pa.Table):
        return qrels
    if isinstance(qrels, pd.DataFrame):
        qrels = _frame_columns(qrels, RELEVANCE, "qrels")
        rel = pd.to_numeric(qrels[RELEVANCE], errors="coerce")
        if rel.isna().any():
            raise ValidationError("qrels: column 'relevance' must be integers (a value is missing)")
        return _frame_table(qrels, RELEVANCE, rel.to_numpy(np.int64))
    if isinstance(qrels, str) and qrels.startswith("irds:"):
        from ..io import read_qrels  # contract API (io helper)

        return _as_qrels_table(read_qrels(qrels))
    from ..io.trec import read_qrels_table

    fk = _file_key(qrels)
    if fk is not None and fk in _QRELS_CACHE:  # one (immutable) table per file: the ranked-run
        _QRELS_CACHE.move_to_end(fk)           # cache then recognises it across analyses
        return _QRELS_CACHE[fk]
    table = read_qrels_table(qrels)
    if fk is not None:
        _QRELS_CACHE[fk] = table
        while len(_QRELS_CACHE) > 8:
            _QRELS_CACHE.popitem(last=False)
    return table


def _col(table, name):
    c = table.column(name)
    return c.combine_chunks() if hasattr(c, "combine_chunks") else c


# --------------------------------------------------------------------------------------------
# ranking
# --------------------------------------------------------------------------------------------

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
        :func:`rank_coded` fills it, so the kernels look for relevant documents among the judged
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


_BLOCK = 1 << 20  # rows per block of the blocked passes over a run
_CACHE: OrderedDict[tuple, tuple[Any, RankedRun]] = OrderedDict()
_QRELS_CACHE: OrderedDict[tuple, Any] = OrderedDict()
_CACHE_MAX_ENTRIES = 512
_CACHE_MAX_ROWS = 1_000_000


def _file_key(x: Any) -> tuple | None:
    if isinstance(x, (str, os.PathLike)) and not str(x).startswith("irds:"):
        try:
            st = os.stat(x)
        except OSError:
            return None
        return (os.path.realpath(x), st.st_size, st.st_mtime_ns)
    return None


def _qrels_key(qrels: Any) -> tuple | None:
    """Cache key of qrels: the file, or the identity of an Arrow table (a table read from a
    file is one object per file, see :func:`_as_qrels_table`)."""
    import pyarrow as pa

    if isinstance(qrels, pa.Table):  # only the tables read from files (no unbounded retention)
        return ("table", id(qrels)) if any(qrels is t for t in _QRELS_CACHE.values()) else None
    return _file_key(qrels)


def rank_coded(run: Any, qrels: Any, *, ties: str = DEFAULT_TIES,
               duplicates: str = DEFAULT_DUPLICATES, source: str | None = None) -> RankedRun:
    """Order a run under ``ties`` and join it with ``qrels`` (memoised for small files).

    When ``run`` is a file path, ``qrels`` a file path or an Arrow table (the qrels file's one
    table), and the run has fewer than a million rows, the result is kept in a small in-process
    LRU keyed by (path, size, mtime, qrels, tie rule), so the analyses of one track (evaluate,
    chain, coverage, ...) read and rank each file once.

    Args:
        run: path to a TREC run (``.gz`` ok), a run DataFrame, or an Arrow table.
        qrels: path, DataFrame or Arrow table of qrels.
        ties: ``"trec_eval"`` (float32 scores, doc_id descending), ``"float64"`` (exact scores,
            doc_id descending) or ``"input_order"`` (score descending, stable in row order).
        duplicates: a (query, doc) pair listed more than once: ``"error"`` (default) raises
            :class:`~ranklens.errors.ValidationError` naming the query, the document and both
            ranks; ``"best"`` keeps the best-ranked row of the pair (under ``ties``) and drops
            the others (counted in :attr:`RankedRun.duplicates_dropped`).
        source: name used in error messages (default: the file path, or ``"run"``).

    Returns:
        The :class:`RankedRun`.

    Raises:
        ValidationError: unknown rule/policy, or duplicate pairs under ``duplicates="error"``.
    """
    if ties not in TIE_RULES:
        raise ValidationError(f"unknown tie rule {ties!r}; choose one of {', '.join(TIE_RULES)}")
    if duplicates not in DUPLICATE_POLICIES:
        raise ValidationError(f"unknown duplicates policy {duplicates!r}; choose one of "
                              f"{', '.join(DUPLICATE_POLICIES)}")
    rk, qk = _file_key(run), _qrels_key(qrels)
    key = (rk, qk, ties, duplicates) if rk is not None and qk is not None else None
    if key is not None and key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key][1]
    if source is None:
        source = str(run) if isinstance(run, (str, os.PathLike)) else "run"
    out = _rank_coded(run, qrels, ties, duplicates, source)
    if key is not None and len(out.scores) < _CACHE_MAX_ROWS:
        _CACHE[key] = (qrels, out)  # the qrels object is kept alive: its id stays its own
        while len(_CACHE) > _CACHE_MAX_ENTRIES:
            _CACHE.popitem(last=False)
    return out


def _rank_coded(run: Any, qrels: Any, ties: str, duplicates: str = DEFAULT_DUPLICATES,
                source: str = "run") -> RankedRun:
    import pyarrow as pa

    from ..io.trec import reader_warnings

    rt = _as_run_table(run, source=source)
    qt = _as_qrels_table(qrels)
    rd = rt.column(DOC_ID)  # stays chunked (no 10M-string copy); Arrow kernels take it
    all_q, qcode, qr_code = _query_codes(rt.column(QUERY_ID), _col(qt, QUERY_ID))
    nq = len(all_q)
    jn = _judge(rd, qt, qcode, qr_code)
    pa.default_memory_pool().release_unused()  # the hash kernels' freed buffers (peak memory)
    order, tied_rows = _rank_order(rt.column(SCORE), qcode, ties, rd)
    pa.default_memory_pool().release_unused()
    counts = np.bincount(qcode, minlength=nq).astype(np.int64)
    dup = _find_duplicates(order, qcode, counts, rd) if order.size > 1 else None
    del qcode
    if dup is not None:
        if duplicates == "error":
            raise ValidationError(_duplicate_message(dup, all_q, rt.column(SCORE), source))
        keep = np.ones(order.size, bool)
        keep[dup["drop_rows"]] = False
        out = _rank_coded(rt.filter(pa.array(keep)), qt, ties, "error", source)
        return replace(out, duplicates_dropped=int(dup["drop_rows"].size))
    grades = jn["grade_row"][order]
    del jn["grade_row"]
    qrels_row = np.full(jn["ku"].size, -1, np.int64)
    qrels_row[jn["hit_pos"]] = jn["hit_rows"]
    out = RankedRun(
        query_ids=all_q, in_run=counts > 0, lengths=counts,
        flat_grades=grades, flat_rows=order, doc_ids=rd, qrels_q=jn["ku"] // jn["nj"],
        qrels_rel=jn["rel_u"], qrels_doc=_col(qt, DOC_ID).take(pa.array(jn["src_u"])),
        qrels_row=qrels_row, ties=ties, tied_rows=tied_rows, scores=rt.column(SCORE),
        reader_warnings=(*reader_warnings(rt), *reader_warnings(qt)),
    )
    out.judged_grades  # noqa: B018 -- one pass over the grades here, none in each measure
    return out


def _query_codes(rq, qq) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted union of run and qrels query ids (object array, byte order = code-point order);
    int32 codes of the run rows, int64 codes of the qrels rows. One dictionary encoding per
    column; the union, its sort and the code maps stay in Arrow (no Python dict of ids)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    renc = pc.dictionary_encode(rq)
    if isinstance(renc, pa.ChunkedArray):
        renc = renc.unify_dictionaries()
        r_dictionary = renc.chunks[0].dictionary if renc.num_chunks else pa.array([], pa.string())
        r_indices = (np.concatenate([c.indices.to_numpy() for c in renc.chunks])
                     if renc.num_chunks else np.zeros(0, np.int32))
    else:
        r_dictionary, r_indices = renc.dictionary, renc.indices.to_numpy()
    qenc = pc.dictionary_encode(qq) if len(qq) else None
    q_dictionary = qenc.dictionary if qenc is not None else pa.array([], pa.string())
    union = pc.unique(pa.concat_arrays([r_dictionary.cast(pa.string()), q_dictionary.cast(pa.string())]))
    union = union.take(pc.array_sort_indices(union))
    run_map = pc.index_in(r_dictionary, value_set=union).to_numpy(zero_copy_only=False).astype(np.int32)
    qcode = run_map[r_indices] if r_indices.size else np.zeros(0, np.int32)
    if qenc is not None:
        q_map = pc.index_in(q_dictionary, value_set=union).to_numpy(zero_copy_only=False).astype(np.int64)
        qr_code = q_map[qenc.indices.to_numpy()]
    else:
        qr_code = np.zeros(0, np.int64)
    return union.to_numpy(zero_copy_only=False).astype(object), qcode, qr_code


def _judge(rd, qt, qcode: np.ndarray, qr_code: np.ndarray) -> dict[str, Any]:
    """Relevance of each run row: a join on (query code, judged-doc code).

    The qrels' (query, doc) pairs are de-duplicated by a stable sort (the last judgment wins,
    like a dict); only the docs judged for the run's queries are hashed (one
    ``pc.dictionary_encode``: no sort of the doc id strings), so qrels of many other queries
    cost a sort, not a hash table (Arrow's holds ~180 bytes per distinct id). Returns
    ``grade_row`` (int32[n], ``_UNJUDGED`` if not judged), the pair keys ``ku`` (query * nj +
    doc code, in (query, doc id) order) with ``rel_u`` and their qrels rows ``src_u``, and the
    matched pairs ``hit_rows``/``hit_pos``.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    qrel = _col(qt, RELEVANCE).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    qdoc = _col(qt, DOC_ID)
    o = pc.sort_indices(pa.table({"q": qr_code, "d": qdoc}), [("q", "ascending"), ("d", "ascending")]).to_numpy()
    qs, ds = qr_code[o], qdoc.take(pa.array(o))
    if isinstance(ds, pa.ChunkedArray):
        ds = ds.combine_chunks()
    last = np.ones(o.size, bool)  # the last row of each run of equal (query, doc): the judgment kept
    if o.size > 1:
        last[:-1] = (qs[1:] != qs[:-1]) | pc.not_equal(ds.slice(1), ds.slice(0, o.size - 1)).to_numpy(
            zero_copy_only=False)
    src_u, qu, du = o[last], qs[last], ds.filter(pa.array(last))
    del o, qs, ds
    in_run = np.zeros(int(max(qcode.max(initial=-1), qr_code.max(initial=-1))) + 1, bool)
    in_run[qcode] = True
    sel = in_run[qu]
    # doc codes: one hash pass over the docs judged for the run's queries (their dictionary is
    # the value set the run's docs are looked up in), a within-query rank for the other
    # queries; nj above both keeps the keys unique
    code = np.zeros(qu.size, np.int64)
    if sel.any():
        denc = pc.dictionary_encode(du.filter(pa.array(sel)))
        judged = denc.dictionary
        code[sel] = denc.indices.to_numpy(zero_copy_only=False)
        del denc
    else:
        judged = du.slice(0, 0)
    other = np.flatnonzero(~sel)
    if other.size:
        code[other] = running_count(qu[other]) - 1
    nj = max(len(judged), int(code.max(initial=0)) + 1, 1)
    ku = qu.astype(np.int64) * nj + code
    rel_u = qrel[src_u]
    run_dcode = pc.index_in(rd, value_set=judged).fill_null(-1).to_numpy()
    jrows = np.flatnonzero(run_dcode >= 0)
    grade_row = np.full(qcode.size, _UNJUDGED, np.int32)
    hit_rows, hit_pos = np.zeros(0, np.int64), np.zeros(0, np.int64)
    if ku.size and jrows.size:
        rkey = qcode[jrows].astype(np.int64) * nj + run_dcode[jrows]
        ko = np.argsort(ku)  # ku stays in (query, doc id) order; the lookup goes through ko
        pos = np.minimum(np.searchsorted(ku[ko], rkey), ku.size - 1)
        found = ku[ko[pos]] == rkey
        hit_rows, hit_pos = jrows[found], ko[pos[found]]
        grade_row[hit_rows] = rel_u[hit_pos]
    return {"grade_row": grade_row, "ku": ku, "rel_u": rel_u, "src_u": src_u, "nj": nj,
            "hit_rows": hit_rows, "hit_pos": hit_pos}


def _score_keys(scores, ties: str) -> np.ndarray:
    """Negated scores, chunk by chunk (float32 for trec_eval: no float64 copy of the column);
    -0.0 becomes 0.0 so that it ties with 0.0."""
    kdt = np.float32 if ties == "trec_eval" else np.float64
    key = np.empty(len(scores), kdt)
    at = 0
    for chunk in scores.chunks:
        c = chunk.to_numpy(zero_copy_only=False)
        np.negative(c, out=key[at:at + c.size], casting="same_kind")
        at += c.size
    key += kdt(0.0)
    return key


def _sort_rows(key: np.ndarray, qcode: np.ndarray) -> np.ndarray:
    """Row order by (query code, key), stable. TREC files usually list each query in one block
    already in score order (checked in one pass; the blocks are then only reordered); float32
    keys otherwise sort as one uint64 (query << 32 | order-preserving bits)."""
    n = key.size
    idt = np.int32 if n < 2**31 - 1 else np.int64
    if n < 2:
        return np.arange(n, dtype=idt)
    same_q = qcode[1:] == qcode[:-1]
    if bool(np.all(~same_q | (key[1:] >= key[:-1]))):
        starts = np.concatenate([[0], np.flatnonzero(~same_q) + 1])
        bq = qcode[starts]
        if np.unique(bq).size == bq.size:  # one block per query: reorder the blocks only
            ob = np.argsort(bq, kind="stable")
            lens = np.diff(np.concatenate([starts, [n]]))[ob]
            new_start = np.concatenate([[0], np.cumsum(lens)[:-1]])
            order = np.arange(n, dtype=idt)
            if not np.array_equal(ob, np.arange(ob.size)):
                order += np.repeat((starts[ob] - new_start).astype(idt), lens)
            return order
    if key.dtype == np.float32:
        bits = key.view(np.uint32).astype(np.uint64)
        neg = bits >> np.uint64(31) == 1
        bits[neg] ^= np.uint64(0xFFFFFFFF)  # negative floats: reverse their order
        bits[~neg] |= np.uint64(0x80000000)  # positive floats after all negative ones
        bits |= qcode.astype(np.uint64) << np.uint64(32)
        order = np.argsort(bits, kind="stable")
    else:
        order = np.lexsort((key, qcode))
    return order.astype(idt, copy=False)


def _rank_order(scores, qcode: np.ndarray, ties: str, rd) -> tuple[np.ndarray, int]:
    """Run rows in rank order (query ascending, score descending, then the tie rule: doc_id
    descending in byte order, or input order) and the number of tied rows."""
    import pyarrow as pa

    key = _score_keys(scores, ties)
    order = _sort_rows(key, qcode)
    if order.size < 2:
        return order, 0
    ks = key[order]
    del key
    same = ks[1:] == ks[:-1]
    del ks
    same &= qcode[order[1:]] == qcode[order[:-1]]
    in_tie = np.zeros(order.size, bool)
    in_tie[1:] |= same
    in_tie[:-1] |= same
    tied_rows = int(np.count_nonzero(in_tie))
    if not tied_rows or ties == "input_order":
        return order, tied_rows
    # doc_id descending, sorting only the rows that tie (usually a small subset)
    pos = np.flatnonzero(in_tie)
    dt = np.int32 if order.size < 2**31 - 1 else np.int64
    group = np.concatenate([np.zeros(1, dt), np.cumsum(~same, dtype=dt)])[pos]  # tie group ids
    rows = order[pos]
    taken = rd.take(pa.array(rows.astype(np.int64)))
    if isinstance(taken, pa.ChunkedArray):
        taken = taken.combine_chunks()
    order[pos] = rows[_doc_desc_order(taken, group)]
    return order, tied_rows


def _doc_desc_order(docs, group: np.ndarray) -> np.ndarray:
    """Permutation that sorts rows by (group, doc id descending in byte order): Arrow's stable
    multi-key sort, which compares strings as bytes (trec_eval's strcmp) and is ~4x faster here
    than ranking the strings first and sorting the ranks with numpy."""
    import pyarrow as pa
    import pyarrow.compute as pc

    t = pa.table({"g": group, "d": docs})
    return pc.sort_indices(t, [("g", "ascending"), ("d", "descending")]).to_numpy()


def _doc_fingerprints(docs) -> np.ndarray:
    """A 32-bit fingerprint per string (length + first, middle and last 8 bytes), read straight
    from the Arrow buffers. Equal strings always get equal fingerprints; different strings
    rarely do, so callers verify candidate matches on the strings themselves."""
    import pyarrow as pa

    chunks = docs.chunks if isinstance(docs, pa.ChunkedArray) else [docs]
    # folded to 32 bits: half the memory of a 10M-row run; a collision only makes a query a
    # candidate that the exact string check then clears (~1 in 10^4 queries of 1,000 docs)
    out = np.zeros(sum(len(c) for c in chunks), np.uint32)
    at = 0
    c1, c2, c3 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), \
        np.uint64(0x165667B19E3779F9)
    for c in chunks:
        n = len(c)
        if n == 0:
            continue
        if pa.types.is_large_string(c.type) or pa.types.is_large_binary(c.type):
            odt = np.dtype(np.int64)
        elif pa.types.is_string(c.type) or pa.types.is_binary(c.type):
            odt = np.dtype(np.int32)
        else:
            c = c.cast(pa.string())
            odt = np.dtype(np.int32)
        bufs = c.buffers()
        off = np.frombuffer(bufs[1], odt, count=n + 1, offset=c.offset * odt.itemsize)
        data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
        lo, hi = int(off[0]), int(off[-1])
        pad = np.zeros(hi - lo + 24, np.uint8)
        pad[8:8 + hi - lo] = data[lo:hi]
        # u[i] = the 8 bytes data[lo + i - 8 .. lo + i - 1] as a little-endian integer
        u = np.ndarray(shape=(hi - lo + 9,), dtype="<u8", buffer=pad, offset=0, strides=(1,))
        start = off[:-1].astype(np.int64) - lo
        length = np.diff(off).astype(np.int64)
        k = np.minimum(length, 8).astype(np.uint64)
        # last min(L, 8) bytes: the high (later) bytes of the word that ends at the string end
        fp = u[start + length]
        fp >>= (np.uint64(8) - k) * np.uint64(8)  # k = 0 (empty string): shift 64, fixed below
        short = np.flatnonzero(k < 8)
        if short.size:
            fp[short[k[short] == 0]] = 0
        fp *= c1
        # first min(L, 8) bytes; bytes past the end of short strings masked off
        first = u[start + 8]
        if short.size:
            first[short] &= (np.uint64(1) << (k[short] * np.uint64(8))) - np.uint64(1)
        first *= c2
        fp ^= first
        del first
        # middle 8 bytes, only for strings longer than 16 (shorter ones are covered already)
        long_ = np.flatnonzero(length > 16)
        if long_.size:
            fp[long_] ^= u[start[long_] + length[long_] // 2 + 4] * c3
        fp ^= length.astype(np.uint64) << np.uint64(48)
        fp ^= fp >> np.uint64(32)
        out[at:at + n] = fp.astype(np.uint32)
        at += n
    return out


def _find_duplicates(order: np.ndarray, qcode: np.ndarray, counts: np.ndarray, docs) -> dict | None:
    """Repeated (query, doc) pairs in a ranked run (flat rank order ``order``, query codes
    ``qcode`` of the run rows).

    A 32-bit fingerprint per row joined with its query code (one uint64 each) is sorted once;
    only queries with a repeated key are then checked on the doc id strings, so the result is
    exact.

    Returns:
        ``None`` when every pair is unique, else ``{"drop_rows": run rows of the later
        (worse-ranked) occurrences, "first": (query index, doc id, rank a, rank b, row a,
        row b), "queries": number of queries with duplicates}``.
    """
    import pyarrow as pa

    fps = _doc_fingerprints(docs)
    key = np.empty(order.size, np.uint64)
    for at in range(0, order.size, _BLOCK):  # blocks: no full-size temporaries beside the key
        rows = order[at:at + _BLOCK]
        np.left_shift(qcode[rows].astype(np.uint64), np.uint64(32), out=key[at:at + rows.size])
        key[at:at + rows.size] |= fps[rows]
    del fps
    # rows are in rank order, so the query codes in the high bits are already sorted: the stable
    # sort (timsort-like, it merges the presorted runs) takes half the time of the SIMD quicksort
    key.sort(kind="stable")
    rep = key[1:][key[1:] == key[:-1]]
    del key
    if not rep.size:
        return None
    offsets = np.concatenate([[0], np.cumsum(counts)])
    drop: list[int] = []
    first = None
    queries = 0
    for qi in np.unique(rep >> np.uint64(32)).astype(np.int64).tolist():
        rr = order[offsets[qi]:offsets[qi + 1]]
        ids = docs.take(pa.array(rr.astype(np.int64))).to_pylist()
        seen: dict[str, int] = {}
        found = False
        for pos, d in enumerate(ids):
            if d in seen:
                drop.append(int(rr[pos]))
                found = True
                if first is None:
                    first = (qi, d, seen[d] + 1, pos + 1, int(rr[seen[d]]), int(rr[pos]))
            else:
                seen[d] = pos
        queries += found
    if not drop:
        return None
    return {"drop_rows": np.asarray(drop, np.int64), "first": first, "queries": queries}


def _duplicate_message(dup: dict, query_ids: list, scores, source: str) -> str:
    qi, doc, ra, rb, row_a, row_b = dup["first"]
    sa, sb = scores[row_a].as_py(), scores[row_b].as_py()
    n = int(dup["drop_rows"].size)
    return (f"{source}: duplicate (query_id, doc_id) = ({query_ids[qi]!r}, {doc!r}) at ranks "
            f"{ra} and {rb} (scores {sa:g} and {sb:g}); {n} repeated row(s) in "
            f"{dup['queries']} quer{'y' if dup['queries'] == 1 else 'ies'}. A run must list each "
            "pair once: remove the repeats (e.g. df.drop_duplicates(['query_id', 'doc_id'])), or "
            "pass duplicates='best' (CLI: --duplicates best) to keep each pair's best-ranked row")


def tie_totals(run: Any) -> dict[str, int]:
    """Score ties of a whole run under float32 (trec_eval) and float64 comparison: the totals of
    :func:`ranklens.io.count_ties` (per query) over both rules, computed on the Arrow run table
    the metrics read (duplicate pairs allowed: the duplicates policy is applied later).

    Returns:
        ``rows``, ``queries``, ``tied_rows_float32``, ``tied_rows_float64`` (rows sharing their
        score with another row of the same query), ``tie_groups_float32/64`` and
        ``queries_with_ties_float32``.
    """
    import pyarrow.compute as pc

    rt = _as_run_table(run)
    q = pc.dictionary_encode(_col(rt, QUERY_ID)).indices.to_numpy().astype(np.int64)
    s = _col(rt, SCORE).to_numpy(zero_copy_only=False).astype(np.float64)
    out: dict[str, int] = {"rows": int(s.size), "queries": int(np.unique(q).size)}
    for name, key in (("float32", s.astype(np.float32).astype(np.float64)), ("float64", s)):
        o = np.lexsort((key, q))
        qs, ks = q[o], key[o]
        eq = (qs[1:] == qs[:-1]) & (ks[1:] == ks[:-1])
        tied = np.zeros(s.size, bool)
        tied[1:] |= eq
        tied[:-1] |= eq
        starts = tied & ~np.concatenate([[False], eq])
        out[f"tied_rows_{name}"] = int(tied.sum())
        out[f"tie_groups_{name}"] = int(starts.sum())
        if name == "float32":
            out["queries_with_ties_float32"] = int(np.unique(qs[tied]).size)
    return out


# --------------------------------------------------------------------------------------------
# depth, grade mapping
# --------------------------------------------------------------------------------------------

#: Named grade mappings: NIST's official DL 2020 ``trec_eval`` numbers map grade 1 to 0.
GRADE_MAPPINGS: dict[str, dict[int, int]] = {"nist-dl20": {1: 0}}


def parse_grade_mapping(spec: Any) -> dict[int, int]:
    """``("1=0", "3=2")``, ``"1=0,3=2"``, ``"nist-dl20"`` or a mapping -> ``{old: new}``."""
    if spec is None:
        return {}
    if isinstance(spec, Mapping):
        return {int(k): int(v) for k, v in spec.items()}
    items = [spec] if isinstance(spec, str) else list(spec)
    out: dict[int, int] = {}
    for item in items:
        for part in filter(None, (x.strip() for x in str(item).split(","))):
            if part in GRADE_MAPPINGS:
                out.update(GRADE_MAPPINGS[part])
                continue
            old, sep, new = part.partition("=")
            try:
                out[int(old)] = int(new)
            except ValueError:
                raise ValidationError(f"grade mapping {part!r}: give OLD=NEW integers (e.g. 1=0) or one "
                                      f"of {sorted(GRADE_MAPPINGS)}") from None
            if not sep:
                raise ValidationError(f"grade mapping {part!r}: give OLD=NEW (e.g. 1=0)")
    return out


def map_grades(qrels: Any, mapping: Any):
    """The qrels (as an Arrow table) with relevance grades replaced by ``mapping`` (``{1: 0}``,
    ``"1=0"`` or ``"nist-dl20"``); other grades are kept. No mapping -> the qrels unchanged."""
    import pyarrow as pa

    qt = _as_qrels_table(qrels)
    m = parse_grade_mapping(mapping)
    if not m:
        return qt
    rel = _col(qt, RELEVANCE).to_numpy(zero_copy_only=False).astype(np.int64)
    out = rel.copy()
    for old, new in m.items():
        out[rel == old] = new
    return qt.set_column(qt.schema.get_field_index(RELEVANCE), RELEVANCE, pa.array(out, pa.int64()))


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


def ranked(run: Any, qrels: Any, *, ties: str = DEFAULT_TIES, duplicates: str = DEFAULT_DUPLICATES,
           depth: int | None = None, source: str | None = None) -> RankedRun:
    """:func:`rank_coded`, then :func:`truncate` to ``depth`` (None: the whole run)."""
    return truncate(rank_coded(run, qrels, ties=ties, duplicates=duplicates, source=source), depth)


def depth_stats(rr: RankedRun, rel: int = 1) -> dict[str, float]:
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


def below_optimum(rr: RankedRun, *, rel: int = 1, unretrieved: str = DEFAULT_UNRETRIEVED,
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
                   unretrieved: str = DEFAULT_UNRETRIEVED, collection_size: int | None = None) -> np.ndarray:
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


# --------------------------------------------------------------------------------------------
# search lengths
# --------------------------------------------------------------------------------------------

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
    rr: RankedRun, *, rel: int = 1, first: int | None = None, cutoff: int | None = None,
    unretrieved: str = DEFAULT_UNRETRIEVED, collection_size: int | None = None,
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
    rr: RankedRun, *, rel: int = 1, cutoff: int | None = None,
    unretrieved: str = DEFAULT_UNRETRIEVED, collection_size: int | None = None,
) -> pd.DataFrame:
    """Per-document search lengths: one row per relevant (query, document).

    Returns:
        DataFrame ``query_id``, ``doc_id``, ``relevance``, ``rank`` (Int64, <NA> if not
        retrieved within the cutoff), ``sl`` (float64; for unretrieved documents the policy's
        value, for ``"expected"`` the mean over the missing documents' expected positions),
        ``retrieved`` (bool), sorted by query then rank (unretrieved last, by doc_id).
    """
    _check_policy(unretrieved, collection_size)
    key = ("search_lengths", rel, cutoff, unretrieved, collection_size)
    if key not in rr._memo:
        rr._memo[key] = _search_lengths(rr, rel, cutoff, unretrieved, collection_size)
    return rr._memo[key].copy()


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


def _pa_idx(idx: np.ndarray):
    import pyarrow as pa

    return pa.array(np.asarray(idx, dtype=np.int64))


# --------------------------------------------------------------------------------------------
# measure records
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ASL:
    """The ASL measure family as a value: ``ASL``, ``ASL@g1-10``, ``ASL(rel=2)@g1-1``.

    Attributes:
        rel: minimum relevance (None = the evaluate call's ``rel``, default 1).
        first: ASL@g1-n (None = all relevant documents).
        cutoff: evaluate only the top-``cutoff`` documents (written ``ASL@100``).
        unretrieved: policy override (None = the evaluate call's ``unretrieved``).
    """

    rel: int | None = None
    first: int | None = None
    cutoff: int | None = None
    unretrieved: str | None = None
    higher_is_better: ClassVar[bool] = False
    citation: ClassVar[str] = ("Alex, Hall & Metzler. Atomized Search Length: Beyond User "
                               "Models. arXiv:2201.01745 (2022)")

    def __str__(self) -> str:
        params = []
        if self.rel is not None:
            params.append(f"rel={self.rel}")
        if self.unretrieved is not None:
            params.append(f"unretrieved={self.unretrieved}")
        s = "ASL" + (f"({','.join(params)})" if params else "")
        if self.first is not None:
            s += f"@g1-{self.first}"
        if self.cutoff is not None:
            s += f"@{self.cutoff}"
        return s

    def __matmul__(self, cutoff: int) -> ASL:
        return replace(self, cutoff=int(cutoff))

    def resolved(self, *, rel: int, unretrieved: str) -> ASL:
        """This measure with the call-level defaults filled in."""
        return replace(self, rel=self.rel if self.rel is not None else rel,
                       unretrieved=self.unretrieved or unretrieved)


_ASL_RE = re.compile(r"^ASL(?:\((?P<params>[^)]*)\))?(?P<suffix>(?:@(?:g1-\d+|\d+))*)$")


def parse_measure(spec: Any):
    """Parse a measure string: ``ASL...`` -> :class:`ASL`, anything else -> ir_measures.

    Args:
        spec: e.g. ``"ASL"``, ``"ASL@g1-10"``, ``"ASL(rel=2)@g1-1"``, ``"ASL@100"``, ``"AP"``,
            ``"nDCG@10"``, ``"P(rel=2)@20"``, ``"RR"``, or an already-parsed measure.
    """
    if isinstance(spec, ASL):
        return spec
    if not isinstance(spec, str):
        return spec  # an ir_measures measure object
    s = spec.strip()
    m = _ASL_RE.match(s)
    if m:
        kw: dict[str, Any] = {}
        if m.group("params"):
            for part in m.group("params").split(","):
                k, _, v = part.partition("=")
                k, v = k.strip(), v.strip()
                if k in ("rel", "cutoff"):
                    try:
                        kw[k] = int(v)
                    except ValueError:
                        raise ValidationError(f"measure {spec!r}: {k} must be an integer") from None
                elif k == "unretrieved":
                    if v not in UNRETRIEVED_POLICIES:
                        raise ValidationError(f"measure {spec!r}: unretrieved must be one of "
                                              f"{', '.join(UNRETRIEVED_POLICIES)}")
                    kw[k] = v
                else:
                    raise ValidationError(f"measure {spec!r}: unknown parameter {k!r} "
                                          "(ASL takes rel, unretrieved, cutoff)")
        for part in filter(None, m.group("suffix").split("@")):
            if part.startswith("g1-"):
                kw["first"] = int(part[3:])
            else:
                kw["cutoff"] = int(part)
        return ASL(**kw)
    if s.upper().startswith("ASL"):
        raise ValidationError(f"cannot parse measure {spec!r}; ASL forms: ASL, ASL@g1-10, "
                              "ASL(rel=2), ASL(rel=2)@g1-1, ASL(unretrieved=paper), ASL@100")
    import ir_measures

    try:
        return ir_measures.parse_measure(s)
    except (ValueError, NameError, SyntaxError, TypeError, AttributeError) as exc:
        raise ValidationError(f"cannot parse measure {spec!r}: {exc}. Examples: AP, nDCG@10, "
                              "P@20, RR, P(rel=2)@10, ASL, ASL@g1-10") from None


def measure_name(m: Any) -> str:
    """Canonical name of a parsed measure."""
    return str(m)


def higher_is_better(m: Any) -> bool:
    """Direction of a measure (ASL: lower is better)."""
    return not isinstance(m, ASL)


def with_default_rel(m: Any, rel: int) -> Any:
    """Apply a call-level ``rel`` to ir_measures measures that take it and did not set it."""
    if isinstance(m, ASL) or rel == 1:
        return m
    params = getattr(m, "SUPPORTED_PARAMS", {})
    if "rel" in params and "rel" not in getattr(m, "params", {}):
        return m(rel=rel)
    return m
