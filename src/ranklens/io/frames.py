"""Validation and tie-broken ranking of run / qrels DataFrames.

Every frame that enters an analysis goes through :func:`validate_run` or :func:`validate_qrels`
(the file readers call them too), and every ranking goes through :func:`rank_run`, the single
place where ties are broken (see :data:`ranklens.types.TieRule`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._arrays import running_count
from .._lazy import LazyModule, available
from ..errors import ValidationError
from ..types import DEFAULT_TIES, DOC_ID, QUERY_ID, RANK, RELEVANCE, SCORE, TIE_RULES

pd = LazyModule("pandas")  # imported on first use: evaluate runs without pandas

__all__ = ["COLUMN_ALIASES", "count_ties", "rank_run", "validate_qrels", "validate_run"]

#: Column names accepted on input and the canonical (ir_measures) names they map to
#: (PyTerrier ``qid``/``docno``/``label``, ranx ``q_id``/``doc_id``, ir_datasets names).
COLUMN_ALIASES: Mapping[str, str] = {
    "qid": QUERY_ID,
    "q_id": QUERY_ID,
    "topic": QUERY_ID,
    "docno": DOC_ID,
    "docid": DOC_ID,
    "did": DOC_ID,
    "label": RELEVANCE,
    "rel": RELEVANCE,
    "grade": RELEVANCE,
    "sim": SCORE,
}


def _rename(df: pd.DataFrame, required: tuple[str, ...], source: str) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise ValidationError(f"{source}: expected a pandas DataFrame, got {type(df).__name__}")
    mapping = {}
    present = {str(c): c for c in df.columns}
    for alias, target in COLUMN_ALIASES.items():  # dict order = priority (qid before topic, ...)
        if alias in present and target in required and target not in df.columns and target not in mapping.values():
            mapping[present[alias]] = target
    out = df.rename(columns=mapping) if mapping else df.copy()
    missing = [c for c in required if c not in out.columns]
    if missing:
        raise ValidationError(
            f"{source}: missing column(s) {missing}; found {[str(c) for c in df.columns]}. "
            f"Rename them (accepted aliases: qid->query_id, docno->doc_id, label->relevance)."
        )
    return out


def _id_column(out: pd.DataFrame, col: str, source: str) -> None:
    s = out[col]
    if s.isna().any():
        pos = int(np.flatnonzero(s.isna().to_numpy())[0])
        raise ValidationError(f"{source}: column {col!r} has a missing value at row {pos}; ids must be non-empty strings")
    if pd.api.types.is_float_dtype(s.dtype):
        raise ValidationError(
            f"{source}: column {col!r} holds floats ({s.iloc[0]!r}), so ids may already have been "
            f"mangled (e.g. '001' -> 1.0); read the file with dtype={{{col!r}: str}}"
        )
    if pd.api.types.is_bool_dtype(s.dtype):
        raise ValidationError(f"{source}: column {col!r} holds booleans, not ids")
    if not (isinstance(s.dtype, pd.StringDtype) and s.dtype.na_value is np.nan):
        out[col] = s.astype(str)  # int ids -> "1"; object/"string[python]" -> pandas str dtype


def _numeric(out: pd.DataFrame, col: str, source: str) -> np.ndarray:
    s = out[col]
    if pd.api.types.is_bool_dtype(s.dtype):
        raise ValidationError(f"{source}: column {col!r} holds booleans; expected numbers")
    if pd.api.types.is_numeric_dtype(s.dtype):
        vals = s.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        conv = pd.to_numeric(s, errors="coerce")
        bad = conv.isna() & s.notna()
        if bad.any():
            pos = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValidationError(f"{source}: column {col!r} row {pos}: non-numeric value {s.iloc[pos]!r}")
        vals = conv.to_numpy(dtype=np.float64, na_value=np.nan)
    nan = np.isnan(vals)
    if nan.any():
        pos = int(np.flatnonzero(nan)[0])
        raise ValidationError(f"{source}: column {col!r} row {pos} is missing (NaN); every row needs a value")
    return vals


def _sorted_positions(uniq) -> np.ndarray:
    """``pos[i]`` = place of ``uniq[i]`` in byte order (C ``strcmp``; equals code-point order)."""
    if available("pyarrow"):
        import pyarrow as pa
        import pyarrow.compute as pc

        order = pc.array_sort_indices(pa.array(np.asarray(uniq, dtype=object), type=pa.string())).to_numpy()
    else:
        order = np.argsort(np.asarray(uniq, dtype=object), kind="stable")
    pos = np.empty(len(order), dtype=np.int64)
    pos[order] = np.arange(len(order), dtype=np.int64)
    return pos


def _factorize(out: pd.DataFrame, col: str) -> tuple[np.ndarray, np.ndarray]:
    codes, uniq = pd.factorize(out[col])
    return codes.astype(np.int64, copy=False), np.asarray(uniq, dtype=object)


def _codes(out: pd.DataFrame, col: str, *, sort: bool = False) -> np.ndarray:
    """Integer codes of a string column; with ``sort=True`` in byte order (C ``strcmp``)."""
    codes, uniq = _factorize(out, col)
    if sort and len(uniq) > 1:
        # Sort only the uniques (pandas' factorize(sort=True) is ~5x slower on arrow strings).
        codes = _sorted_positions(uniq)[codes]
    return codes


def _check_duplicates(out: pd.DataFrame, source: str, qc: np.ndarray, dc: np.ndarray,
                      grades: np.ndarray | None = None) -> None:
    """Raise on a repeated (query, doc) pair (with ``grades``: only pairs whose grades differ)."""
    # Integer codes + a hash-based duplicated(): O(n) and far cheaper than hashing string pairs.
    key = qc * (int(dc.max()) + 1 if len(dc) else 1) + dc
    if grades is not None:
        pairs = pd.DataFrame({"k": key, "r": grades})
        per_key = pairs.groupby("k")["r"].transform("nunique").to_numpy()
        dup = per_key > 1
        what = "with different grades"
    else:
        dup = pd.Series(key).duplicated(keep=False).to_numpy()
        what = ""
    if dup.any():
        rows = np.flatnonzero(dup)
        first = rows[0]
        second = rows[1:][key[rows[1:]] == key[first]][0]
        raise ValidationError(
            f"{source}: duplicate (query_id, doc_id) = ({out[QUERY_ID].iloc[first]!r}, "
            f"{out[DOC_ID].iloc[first]!r}) {what + ' ' if what else ''}at rows {int(first)} and {int(second)} "
            f"({int(dup.sum())} rows involved); keep one row per pair, e.g. "
            f"df.drop_duplicates([{QUERY_ID!r}, {DOC_ID!r}])"
        )


def _coerce_run(df: pd.DataFrame, source: str) -> tuple[pd.DataFrame, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    out = _rename(df, (QUERY_ID, DOC_ID, SCORE), source)
    _id_column(out, QUERY_ID, source)
    _id_column(out, DOC_ID, source)
    out[SCORE] = _numeric(out, SCORE, source)
    inf = np.isinf(out[SCORE].to_numpy())
    if inf.any():
        pos = int(np.flatnonzero(inf)[0])
        raise ValidationError(f"{source}: column 'score' row {pos} is infinite; every row needs a finite score")
    qc = _codes(out, QUERY_ID, sort=True)
    docs = _factorize(out, DOC_ID)
    _check_duplicates(out, source, qc, docs[0])
    return out, qc, docs


def validate_run(df: pd.DataFrame, *, source: str = "run") -> pd.DataFrame:
    """Check and coerce a run frame; never mutates ``df``.

    Renames alias columns (``qid``, ``docno``, ...), turns ids into ``str``, ``score`` into
    float64, and rejects missing columns, missing values, non-numeric or infinite scores and
    duplicate (query_id, doc_id) pairs. Other columns are kept unchanged.

    Args:
        df: The run, with ``query_id``, ``doc_id``, ``score`` (or aliases).
        source: Name used in error messages (a file name, a system name).

    Returns:
        A coerced copy.

    Raises:
        ValidationError: naming the column, the row and the fix.
    """
    return _coerce_run(df, source)[0]


def validate_qrels(df: pd.DataFrame, *, source: str = "qrels") -> pd.DataFrame:
    """Check and coerce a qrels frame; never mutates ``df``.

    Like :func:`validate_run`; ``relevance`` must hold integers (``1.0`` is accepted, ``0.5`` is
    not) within +-2,147,483,645 and becomes int64. Negative grades (e.g. ``-1``) are kept. A
    (query, doc) pair listed twice with the same grade is kept once (``attrs["warnings"]`` says
    so); with different grades it is an error (the same policy as :func:`ranklens.io.read_qrels`).

    Raises:
        ValidationError: naming the column, the row and the fix.
    """
    out = _rename(df, (QUERY_ID, DOC_ID, RELEVANCE), source)
    _id_column(out, QUERY_ID, source)
    _id_column(out, DOC_ID, source)
    rel = _numeric(out, RELEVANCE, source)
    frac = rel != np.round(rel)
    if frac.any():
        pos = int(np.flatnonzero(frac)[0])
        raise ValidationError(f"{source}: column 'relevance' row {pos}: {rel[pos]!r} is not an integer grade")
    big = np.abs(rel) > 2**31 - 3
    if big.any():
        pos = int(np.flatnonzero(big)[0])
        raise ValidationError(f"{source}: column 'relevance' row {pos}: {rel[pos]!r} is out of range "
                              f"(|grade| <= 2,147,483,645); use small integer grades")
    out[RELEVANCE] = rel.astype(np.int64)
    return _qrels_duplicates(out, source)


def _qrels_duplicates(out: pd.DataFrame, source: str) -> pd.DataFrame:
    qc, dc = _codes(out, QUERY_ID), _codes(out, DOC_ID)
    key = qc * (int(dc.max()) + 1 if len(dc) else 1) + dc
    dup = pd.Series(key).duplicated().to_numpy()
    if not dup.any():
        return out
    rel = out[RELEVANCE].to_numpy()
    conflict = pd.DataFrame({"k": key, "r": rel}).groupby("k")["r"].nunique()
    if (conflict > 1).any():
        _check_duplicates(out.assign(**{RELEVANCE: rel}), source, qc, dc, grades=rel)
    first = int(np.flatnonzero(dup)[0])
    kept = out.loc[~dup].reset_index(drop=True)
    kept.attrs["warnings"] = (*out.attrs.get("warnings", ()),
                              f"{source}: {int(dup.sum())} duplicate qrels row(s) with the same grade ignored "
                              f"(e.g. row {first}: ({out[QUERY_ID].iloc[first]!r}, {out[DOC_ID].iloc[first]!r}))")
    return kept


#: The float32 rule of ``ties="trec_eval"``: trec_eval reads each score into a C ``float``, so
#: scores compare as float32 -- values closer than float32 resolves tie, and a finite score beyond
#: float32's range (``|s| > FLOAT32_MAX``, about 3.4e38) becomes +-inf and ties with every other
#: score so converted. Such scores are counted in a warning (:func:`float32_overflow_warning`);
#: ``ties="float64"`` compares the exact values.
FLOAT32_MAX = float(np.finfo(np.float32).max)


def as_float32(score: np.ndarray) -> np.ndarray:
    """Scores as trec_eval compares them (the float32 rule above): no numpy overflow warning."""
    with np.errstate(over="ignore"):
        return np.asarray(score, dtype=np.float64).astype(np.float32)


def float32_overflow_warning(n: int, source: str) -> str:
    """The warning for ``n`` finite scores beyond float32's range under ``ties="trec_eval"``."""
    return (f"{source}: {n} score(s) beyond float32's range (|score| > {FLOAT32_MAX:.4g}) compare as +-inf under "
            "ties=trec_eval (trec_eval reads scores into a C float) and tie with each other; rescale the scores "
            "or use ties=float64 (--ties float64) to compare the exact values")


def _score_key(run: pd.DataFrame, ties: str) -> np.ndarray:
    score = run[SCORE].to_numpy(dtype=np.float64)
    if ties == "trec_eval":
        return -as_float32(score)  # trec_eval keeps scores as C float
    return -score


def _rank_order(out: pd.DataFrame, qcode: np.ndarray, ties: str,
                docs: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Row order: query ascending, score descending, then the tie rule."""
    skey = _score_key(out, ties)
    order = np.lexsort((skey, qcode))  # stable: equal keys keep input order
    if ties == "input_order" or len(order) < 2:
        return order
    qs, ss = qcode[order], skey[order]
    same = (qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1])
    if not same.any():
        return order
    # Break ties by doc_id descending, sorting only the rows that tie (usually a small subset).
    in_tie = np.zeros(len(order), dtype=bool)
    in_tie[1:] |= same
    in_tie[:-1] |= same
    group = np.r_[0, np.cumsum(~same)]
    pos = np.flatnonzero(in_tie)
    rows = order[pos]
    # byte-order positions of just the doc ids involved in ties (reusing the validation codes)
    dc, duniq = docs
    involved, local = np.unique(dc[rows], return_inverse=True)
    dcode = _sorted_positions(duniq[involved])[local]
    sub = np.lexsort((-dcode, group[pos]))
    order[pos] = rows[sub]
    return order


def rank_run(run: pd.DataFrame, *, ties: str = DEFAULT_TIES) -> pd.DataFrame:
    """Order a run into ranks under an explicit tie rule.

    Args:
        run: A run frame (``query_id``, ``doc_id``, ``score``); validated first. Ranks already
            present in the frame are ignored and replaced.
        ties: ``"trec_eval"`` (default: scores compared as float32, ties by ``doc_id``
            descending, as trec_eval does), ``"float64"`` (exact scores, same tie-break) or
            ``"input_order"`` (ties keep input row order). See :data:`ranklens.types.TieRule`.

    Returns:
        A new frame sorted by (``query_id``, ``rank``) with an int64, 1-based ``rank`` column
        and a fresh RangeIndex.
    """
    if ties not in TIE_RULES:
        raise ValidationError(f"ties={ties!r} is not a tie rule; choose one of {list(TIE_RULES)}")
    out, qcode, docs = _coerce_run(run, "run")
    if RANK in out.columns:
        out = out.drop(columns=[RANK])
    order = _rank_order(out, qcode, ties, docs)
    out = out.iloc[order].reset_index(drop=True)
    qs = qcode[order]
    out[RANK] = running_count(qs)
    return out


def count_ties(run: pd.DataFrame, *, ties: str = DEFAULT_TIES) -> pd.DataFrame:
    """Per-query counts of tied scores, as the tie rule sees them.

    Under ``"trec_eval"`` scores are compared as float32 (so 1e-9 apart is a tie); under
    ``"float64"`` and ``"input_order"`` exactly.

    Returns:
        Frame with ``query_id``, ``n_rows``, ``tied_groups`` (number of score values shared by
        two or more rows) and ``tied_rows`` (rows in such groups), sorted by ``query_id``.
    """
    if ties not in TIE_RULES:
        raise ValidationError(f"ties={ties!r} is not a tie rule; choose one of {list(TIE_RULES)}")
    out, qcode, _ = _coerce_run(run, "run")
    quniq = np.asarray(pd.unique(out[QUERY_ID]).astype(str))
    quniq.sort()
    score = out[SCORE].to_numpy(dtype=np.float64)
    if ties == "trec_eval":
        score = as_float32(score).astype(np.float64)
    score = np.where(score == 0.0, 0.0, score)  # -0.0 ties with 0.0
    grp = pd.DataFrame({"q": qcode, "s": score}).groupby(["q", "s"], sort=False).size()
    sizes = grp.to_numpy()
    gq = grp.index.get_level_values(0).to_numpy()
    nq = len(quniq)
    tied = sizes > 1
    tied_groups = np.bincount(gq[tied], minlength=nq)
    tied_rows = np.bincount(gq[tied], weights=sizes[tied], minlength=nq).astype(np.int64)
    n_rows = np.bincount(qcode, minlength=nq)
    return pd.DataFrame({
        QUERY_ID: pd.Series(np.asarray(quniq, dtype=object), dtype=str),
        "n_rows": n_rows.astype(np.int64),
        "tied_groups": tied_groups.astype(np.int64),
        "tied_rows": tied_rows,
    })
