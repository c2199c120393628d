"""Ranking and judging: a run ordered under a tie rule (:data:`ranklens.types.TieRule`) exactly
like :func:`ranklens.io.rank_run` and joined with the qrels, as a :class:`~ranklens.asl.ranked.RankedRun`
(:func:`rank_coded`, :func:`ranked`), every run of a track ranked once (:func:`rank_runs`), and the
score ties of a run (:func:`tie_totals`).

``"trec_eval"`` compares scores as float32 and breaks ties by ``doc_id`` descending (byte order,
as ``strcmp``). Query ids are coded to integers once; a file already grouped by query in score
order is not sorted again, doc ids are only compared among rows that tie, and relevance comes
from a join on (query, doc fingerprint) keys confirmed on the strings (no hash of every run doc
id). Duplicate (query, doc) rows are found on the same keys by :mod:`ranklens.asl.duplicates`.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import numpy as np

from ..errors import ValidationError
from ..types import DOC_ID, QUERY_ID, RELEVANCE, SCORE, TIE_RULES
from .._arrays import running_count
from .declaration import Params
from .duplicates import _doc_fingerprints, _duplicate_message, _find_duplicates, pair_keys
from .inputs import _as_qrels_table, _as_run_table, _col, load_runs, map_grades, parse_grade_mapping
from .ranked import _UNJUDGED, RankedRun, truncate

__all__ = ["DEFAULT_DUPLICATES", "DUPLICATE_POLICIES", "rank_coded", "rank_runs", "ranked", "ranking_key",
           "run_source", "tie_totals"]

DEFAULTS = Params()
DUPLICATE_POLICIES: tuple[str, ...] = ("error", "best")
DEFAULT_DUPLICATES = DEFAULTS.duplicates


def rank_coded(run: Any, qrels: Any, *, ties: str = DEFAULTS.ties,
               duplicates: str = DEFAULTS.duplicates, source: str | None = None) -> RankedRun:
    """Order a run under ``ties`` and join it with ``qrels``.

    Nothing is cached: an analysis ranks each run of a track once (:func:`rank_runs`) and hands
    the ranked runs on.

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
        The :class:`RankedRun` (its ``origin`` is ``run``).

    Raises:
        ValidationError: unknown rule/policy, or duplicate pairs under ``duplicates="error"``.
    """
    if ties not in TIE_RULES:
        raise ValidationError(f"unknown tie rule {ties!r}; choose one of {', '.join(TIE_RULES)}")
    if duplicates not in DUPLICATE_POLICIES:
        raise ValidationError(f"unknown duplicates policy {duplicates!r}; choose one of "
                              f"{', '.join(DUPLICATE_POLICIES)}")
    if source is None:
        source = str(run) if isinstance(run, (str, os.PathLike)) else "run"
    return replace(_rank_coded(run, qrels, ties, duplicates, source), origin=run)


def _rank_coded(run: Any, qrels: Any, ties: str, duplicates: str = DEFAULTS.duplicates,
                source: str = "run") -> RankedRun:
    import pyarrow as pa

    from ..io.frames import float32_overflow_warning
    from ..io.trec import reader_warnings

    rt = _as_run_table(run, source=source)
    qt = _as_qrels_table(qrels)
    rd = rt.column(DOC_ID)  # stays chunked (no 10M-string copy); Arrow kernels take it
    all_q, qcode, qr_code, run_order = _query_codes(rt.column(QUERY_ID), _col(qt, QUERY_ID))
    nq = len(all_q)
    keys = pair_keys(qcode, rd)  # (query, doc fingerprint) per row: the join and the duplicate check
    jn = _judge(rd, qt, qcode, qr_code, keys)
    pa.default_memory_pool().release_unused()  # the hash kernels' freed buffers (peak memory)
    order, tied_rows, n_over = _rank_order(rt.column(SCORE), qcode, ties, rd)
    pa.default_memory_pool().release_unused()
    counts = np.bincount(qcode, minlength=nq).astype(np.int64)
    dup = _find_duplicates(order, qcode, counts, rd, keys) if order.size > 1 else None
    del qcode, keys
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
        qrels_row=qrels_row, ties=ties, tied_rows=tied_rows, scores=rt.column(SCORE), run_order=run_order,
        reader_warnings=(*reader_warnings(rt), *reader_warnings(qt),
                         *((float32_overflow_warning(n_over, source),) if n_over else ())),
    )
    out.judged_grades  # noqa: B018 -- one pass over the grades here, none in each measure
    return out


def _query_codes(rq, qq) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sorted union of run and qrels query ids (object array, byte order = code-point order);
    int32 codes of the run rows, int64 codes of the qrels rows; the run's query codes in the
    order the run first lists them (Arrow's dictionaries keep first-seen order). One dictionary encoding per
    column; the union, its sort and the code maps stay in Arrow (no Python dict of ids)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    grouped = _grouped_codes(rq)  # a TREC file lists each query in one block: encode the blocks only
    if grouped is not None:
        r_dictionary, r_indices = grouped
    else:
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
    return union.to_numpy(zero_copy_only=False).astype(object), qcode, qr_code, run_map


def _grouped_codes(rq) -> tuple[Any, np.ndarray] | None:
    """(dictionary, int32 index per row) of the run's query ids from their blocks of equal
    consecutive ids (Arrow's run-end encoding compares neighbours, ~3x cheaper than hashing every
    row); None when the ids are not in long blocks (then every row is hashed)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(rq)
    if n < 1024:
        return None
    ree = pc.run_end_encode(rq)
    chunks = ree.chunks if isinstance(ree, pa.ChunkedArray) else [ree]
    runs = sum(len(c.values) for c in chunks)
    if runs * 8 > n:
        return None
    values = pa.concat_arrays([c.values for c in chunks]) if chunks else pa.array([], pa.string())
    lengths = np.concatenate([np.diff(c.run_ends.to_numpy(zero_copy_only=False), prepend=0) for c in chunks]
                             if chunks else [np.zeros(0, np.int64)])
    enc = pc.dictionary_encode(values)
    idx = np.repeat(enc.indices.to_numpy(zero_copy_only=False).astype(np.int32), lengths)
    return enc.dictionary, idx


def _judge(rd, qt, qcode: np.ndarray, qr_code: np.ndarray, keys: np.ndarray | None = None) -> dict[str, Any]:
    """Relevance of each run row: a join on (query code, judged-doc code).

    The qrels' (query, doc) pairs are de-duplicated by a stable sort (the last judgment wins,
    like a dict); only the docs judged for the run's queries are hashed (one
    ``pc.dictionary_encode``: no sort of the doc id strings), so qrels of many other queries
    cost a sort, not a hash table (Arrow's holds ~180 bytes per distinct id). Returns
    ``grade_row`` (int32[n], ``_UNJUDGED`` if not judged), the pair keys ``ku`` (query * nj +
    doc code, in (query, doc id) order) with ``rel_u`` and their qrels rows ``src_u``, and the
    matched pairs ``hit_rows``/``hit_pos``. ``keys``: the run rows' :func:`pair_keys`; given,
    the run's doc ids are matched by fingerprint and checked on the strings
    (:func:`_fingerprint_join`) instead of hashed.
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
    grade_row = np.full(qcode.size, _UNJUDGED, np.int32)
    hit_rows, hit_pos = np.zeros(0, np.int64), np.zeros(0, np.int64)
    hits = _fingerprint_join(keys, rd, qu, du, sel) if keys is not None and ku.size else None
    if hits is not None:
        hit_rows, hit_pos = hits
    elif ku.size:  # hash every run doc id against the judged ones
        run_dcode = pc.index_in(rd, value_set=judged).fill_null(-1).to_numpy()
        jrows = np.flatnonzero(run_dcode >= 0)
        rkey = qcode[jrows].astype(np.int64) * nj + run_dcode[jrows]
        ko = np.argsort(ku)  # ku stays in (query, doc id) order; the lookup goes through ko
        pos = np.minimum(np.searchsorted(ku[ko], rkey), ku.size - 1)
        found = ku[ko[pos]] == rkey
        hit_rows, hit_pos = jrows[found], ko[pos[found]]
    grade_row[hit_rows] = rel_u[hit_pos]
    return {"grade_row": grade_row, "ku": ku, "rel_u": rel_u, "src_u": src_u, "nj": nj,
            "hit_rows": hit_rows, "hit_pos": hit_pos}


def _fingerprint_join(keys: np.ndarray, rd, qu: np.ndarray, du, sel: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray] | None:
    """(run rows, judged-pair index) of the run rows whose (query, doc) is judged: the judged
    pairs of the run's queries (``qu``/``du`` where ``sel``) keyed like the run rows
    (:func:`pair_keys`), the run keys passed through a bit table of the judged keys, the few
    left looked up by binary search and every match confirmed on the strings. None when two
    judged docs of one query share a fingerprint (the caller then hashes the strings)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..io._columns import _MIX1

    empty = np.zeros(0, np.int64), np.zeros(0, np.int64)
    pos_sel = np.flatnonzero(sel)
    if not pos_sel.size or not keys.size:
        return empty
    jdocs = du.take(pa.array(pos_sel))
    jkey = qu[pos_sel].astype(np.uint64) << np.uint64(32)
    jkey |= _doc_fingerprints(jdocs)
    ko = np.argsort(jkey)
    js = jkey[ko]
    if bool(np.any(js[1:] == js[:-1])):
        return None
    bits = int(min(max(np.ceil(np.log2(js.size)) + 4, 10), 27))  # ~1/16 of the slots set

    def slot(k: np.ndarray) -> np.ndarray:
        k = k * np.uint64(_MIX1)
        k >>= np.uint64(64 - bits)
        return k.astype(np.intp)

    table = np.zeros(1 << bits, bool)
    table[slot(js)] = True
    block = 1 << 20  # blocks: no full-size temporaries beside the keys
    cand = np.concatenate([np.flatnonzero(table[slot(keys[at:at + block])]) + at
                           for at in range(0, keys.size, block)])
    del table
    ck = keys[cand]
    at = np.minimum(np.searchsorted(js, ck), js.size - 1)
    ok = js[at] == ck
    cand, pair = cand[ok], ko[at[ok]]
    if not cand.size:
        return empty
    run_docs = rd.take(pa.array(cand))
    if isinstance(run_docs, pa.ChunkedArray):
        run_docs = run_docs.combine_chunks()
    judged_docs = jdocs.take(pa.array(pair))
    if isinstance(judged_docs, pa.ChunkedArray):
        judged_docs = judged_docs.combine_chunks()
    if judged_docs.type != run_docs.type:
        judged_docs = judged_docs.cast(run_docs.type)
    same = pc.equal(run_docs, judged_docs).to_numpy(zero_copy_only=False)
    return cand[same].astype(np.int64), pos_sel[pair[same]].astype(np.int64)


def _score_keys(scores, ties: str) -> tuple[np.ndarray, int]:
    """Negated scores, chunk by chunk (float32 for trec_eval: no float64 copy of the column);
    -0.0 becomes 0.0 so that it ties with 0.0. Also the number of finite scores beyond float32's
    range (the float32 rule, :data:`ranklens.io.frames.FLOAT32_MAX`: they become +-inf), counted
    only when numpy reports an overflow (no extra pass otherwise)."""
    kdt = np.float32 if ties == "trec_eval" else np.float64
    key = np.empty(len(scores), kdt)
    at, n_over = 0, 0
    flagged: list[str] = []  # numpy calls back once per overflowing operation
    for chunk in scores.chunks:
        c = chunk.to_numpy(zero_copy_only=False)
        flagged.clear()
        with np.errstate(over="call", call=lambda err, flag: flagged.append(err)):
            np.negative(c, out=key[at:at + c.size], casting="same_kind")
        if flagged:
            n_over += int(np.count_nonzero(np.isinf(key[at:at + c.size]) & np.isfinite(c)))
        at += c.size
    key += kdt(0.0)
    return key, n_over


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


def _rank_order(scores, qcode: np.ndarray, ties: str, rd) -> tuple[np.ndarray, int, int]:
    """Run rows in rank order (query ascending, score descending, then the tie rule: doc_id
    descending in byte order, or input order), the number of tied rows and the number of scores
    beyond float32's range (``ties="trec_eval"``)."""
    import pyarrow as pa

    key, n_over = _score_keys(scores, ties)
    order = _sort_rows(key, qcode)
    if order.size < 2:
        return order, 0, n_over
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
        return order, tied_rows, n_over
    # doc_id descending, sorting only the rows that tie (usually a small subset)
    pos = np.flatnonzero(in_tie)
    dt = np.int32 if order.size < 2**31 - 1 else np.int64
    group = np.concatenate([np.zeros(1, dt), np.cumsum(~same, dtype=dt)])[pos]  # tie group ids
    rows = order[pos]
    taken = rd.take(pa.array(rows.astype(np.int64)))
    if isinstance(taken, pa.ChunkedArray):
        taken = taken.combine_chunks()
    order[pos] = rows[_doc_desc_order(taken, group)]
    return order, tied_rows, n_over


def _doc_desc_order(docs, group: np.ndarray) -> np.ndarray:
    """Permutation that sorts rows by (group, doc id descending in byte order): Arrow's stable
    multi-key sort, which compares strings as bytes (trec_eval's strcmp) and is ~4x faster here
    than ranking the strings first and sorting the ranks with numpy."""
    import pyarrow as pa
    import pyarrow.compute as pc

    t = pa.table({"g": group, "d": docs})
    return pc.sort_indices(t, [("g", "ascending"), ("d", "descending")]).to_numpy()

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
    from ..io.frames import as_float32

    for name, key in (("float32", as_float32(s).astype(np.float64)), ("float64", s)):
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


def ranked(run: Any, qrels: Any, *, ties: str = DEFAULTS.ties, duplicates: str = DEFAULTS.duplicates,
           depth: int | None = DEFAULTS.depth, source: str | None = None) -> RankedRun:
    """:func:`rank_coded`, then :func:`~ranklens.asl.ranked.truncate` to ``depth`` (None: the whole run)."""
    return truncate(rank_coded(run, qrels, ties=ties, duplicates=duplicates, source=source), depth)


def ranking_key(ties: str, duplicates: str, depth: int | None, grades: Any) -> tuple:
    """What a ranked run depends on besides the run and the qrels: the tie rule, the duplicates
    policy, the common depth and the grade mapping (as sorted ``(old, new)`` pairs)."""
    return (ties, duplicates, depth, tuple(sorted(parse_grade_mapping(grades).items())))


def run_source(name: str, run: Any) -> str:
    """How a run is named in error messages: its path, else its name."""
    if isinstance(run, RankedRun):
        run = run.origin
    return str(run) if isinstance(run, (str, os.PathLike)) else f"run {name!r}"


def rank_runs(qrels: Any, runs: Any, *, ties: str = DEFAULTS.ties, duplicates: str = DEFAULTS.duplicates,
              depth: int | None = DEFAULTS.depth, grades: Any = DEFAULTS.grades) -> dict[str, RankedRun]:
    """Every run of a track ranked once: ``{name: RankedRun}`` (``runs``: anything
    :func:`~ranklens.asl.inputs.load_runs` takes). The qrels are read and their grades mapped
    once; each run is ordered under ``ties``, de-duplicated under ``duplicates``, joined with the
    qrels and cut to ``depth``. The analyses take these ranked runs wherever they take runs
    (:meth:`ranklens.asl.conventions.Conventions.rank` calls this under one set of conventions).

    A run that is already a :class:`RankedRun` from this function is kept as it is when it was
    ranked under the same ``ties``, ``duplicates``, ``depth`` and ``grades``, and is an error
    otherwise (the call's conventions would silently not apply).
    """
    want = ranking_key(ties, duplicates, depth, grades)
    qt = None
    out: dict[str, RankedRun] = {}
    for name, run in load_runs(runs).items():
        if isinstance(run, RankedRun):
            if run.ranked_under != want:
                got = run.ranked_under or "rank_coded (conventions not recorded)"
                raise ValidationError(
                    f"run {name!r} was ranked under {got} (ties, duplicates, depth, grades), not this call's "
                    f"{want}; rank the runs under the call's conventions (ranklens.asl.ranking.rank_runs or "
                    "Conventions.rank) or pass the run files")
            out[name] = run
            continue
        if qt is None:
            qt = map_grades(qrels, grades)
        rr = ranked(run, qt, ties=ties, duplicates=duplicates, depth=depth, source=run_source(name, run))
        out[name] = replace(rr, origin=run, ranked_under=want)
    return out
