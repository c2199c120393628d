"""``evaluate``: qrels + one or many runs -> ASL family and the standard IR measures.

Standard measures (AP, AP@k, nDCG, nDCG@k, P@k, R@k, RR, Rprec, Bpref, Success@k) come from
ranklens's own vectorised kernels (:mod:`ranklens.asl.kernels`, trec_eval 9.0.8's
definitions, proven equal to trec_eval's test outputs and to pytrec_eval); ``provider=
"pytrec_eval"`` computes them with ir_measures' pytrec_eval provider instead (the oracle), and
any measure without a kernel goes to ir_measures. Every run is first ordered under the chosen
tie rule by :func:`ranklens.asl.ranking.rank_coded`; what pytrec_eval receives is that order
written as strictly decreasing integer scores, so every measure sees the same ranking (for
``ties="trec_eval"`` this equals trec_eval's own order). Duplicate (query, doc) rows follow one
rule for every measure (``duplicates``, see :func:`~ranklens.asl.ranking.rank_coded`): an
error by default, or the best-ranked row kept, before any measure sees the run. Bootstrap
CIs are computed only when asked (``ci=True`` or a ``baseline``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ValidationError
from ..types import DOC_ID, QUERY_ID, RELEVANCE
from .asl import (
    _check_policy,
    asl_per_query,
    below_optimum,
    depth_stats,
    search_lengths,
    worst_case_asl,
)
from .declaration import Params
from .inputs import _as_qrels_table, load_runs, map_grades, parse_grade_mapping
from .measures import ASL, higher_is_better, is_summed, measure_at_rel
from .ranked import RankedRun
from .ranking import rank_runs, run_source
from .._lazy import LazyModule, is_frame

pd = LazyModule("pandas")  # imported on first use: evaluate runs without pandas

__all__ = [
    "DEFAULT_MEASURES",
    "MISSING_POLICIES",
    "PROVIDERS",
    "evaluate",
    "evaluate_means",
    "load_runs",
    "per_document_values",
    "per_query_values",
    "qrels_to_dict",
]

DEFAULTS = Params()
DEFAULT_MEASURES: tuple[str, ...] = DEFAULTS.measures
MISSING_POLICIES: tuple[str, ...] = ("skip", "zero", "error")


def qrels_to_dict(qrels_table) -> dict[str, dict[str, int]]:
    """Arrow/pandas qrels -> pytrec_eval's dict of dicts (duplicate judgments: last wins)."""
    t = _as_qrels_table(qrels_table)
    out: dict[str, dict[str, int]] = {}
    for q, d, r in zip(t.column(QUERY_ID).to_pylist(), t.column(DOC_ID).to_pylist(),
                       t.column(RELEVANCE).to_pylist()):
        out.setdefault(q, {})[d] = int(r)
    return out


def _rr_qrels_dict(rr: RankedRun) -> dict[str, dict[str, int]]:
    """The ranked run's own (de-duplicated) qrels as pytrec_eval's dict of dicts."""
    if "qrels_dict" not in rr._memo:
        out: dict[str, dict[str, int]] = {}
        qids = rr.query_ids[rr.qrels_q]
        for q, d, r in zip(qids.tolist(), rr.qrels_doc.to_pylist(), rr.qrels_rel.tolist()):
            out.setdefault(q, {})[d] = int(r)
        rr._memo["qrels_dict"] = out
    return rr._memo["qrels_dict"]


def _run_dict(rr: RankedRun) -> dict[str, dict[str, float]]:
    """The ranked order as strictly decreasing integer scores (exact in float32); memoised on
    the (immutable) ranked run, pytrec_eval does not modify it."""
    if "run_dict" in rr._memo:
        return rr._memo["run_dict"]
    docs = rr.doc_ids.take(pa_indices(rr.flat_rows)).to_pylist()
    off = rr.offsets
    out: dict[str, dict[str, float]] = {}
    for i in np.flatnonzero(rr.in_run):
        a, b = int(off[i]), int(off[i + 1])
        out[str(rr.query_ids[i])] = dict(zip(docs[a:b], np.arange(b - a, 0, -1, dtype=float).tolist()))
    rr._memo["run_dict"] = out
    return out


def pa_indices(idx: np.ndarray):
    import pyarrow as pa

    return pa.array(np.asarray(idx, dtype=np.int64))


PROVIDERS: tuple[str, ...] = ("ranklens", "pytrec_eval")


def per_query_values(
    rr: RankedRun, qrels_dict: Mapping[str, Mapping[str, int]] | None, measures: Sequence[Any], *,
    rel: int = DEFAULTS.rel, unretrieved: str = DEFAULTS.unretrieved,
    collection_size: int | None = DEFAULTS.collection_size, missing: str = DEFAULTS.missing,
    provider: str = "ranklens",
) -> pd.DataFrame:
    """Per-query values of ``measures`` for one ranked run (long format).

    Standard measures come from ranklens's own kernels (:mod:`ranklens.asl.kernels`,
    trec_eval 9.0.8's definitions) under ``provider="ranklens"``; from ir_measures'
    pytrec_eval provider under ``provider="pytrec_eval"`` (the oracle); measures without a
    kernel always go to ir_measures. ``qrels_dict`` (pytrec_eval's dict of dicts) is only
    needed there; None builds it from ``rr``'s qrels when needed.

    Returns:
        DataFrame ``query_id``, ``measure`` (canonical name), ``value``. ASL rows exist only for
        queries with at least one relevant document; standard rows for queries in the qrels
        (trec_eval semantics); under ``missing="skip"`` queries absent from the run are left
        out, under ``"zero"`` they get standard measures 0 (trec_eval ``-c``) and the worst-case
        ASL of :func:`~ranklens.asl.asl.worst_case_asl` (every relevant document
        unretrieved behind the run's depth of non-relevant documents: never a reward).
    """
    out = [pd.DataFrame({QUERY_ID: pd.array(rr.query_ids[ok], dtype="str"), "measure": name, "value": v[ok]})
           for name, v, ok in _per_query_columns(rr, qrels_dict, measures, rel=rel, unretrieved=unretrieved,
                                                 collection_size=collection_size, missing=missing,
                                                 provider=provider)]
    frame = pd.concat(out, ignore_index=True) if out else pd.DataFrame({QUERY_ID: [], "measure": [], "value": []})
    frame[QUERY_ID] = frame[QUERY_ID].astype("str")
    frame["measure"] = frame["measure"].astype("str")
    return frame


def _per_query_columns(rr: RankedRun, qrels_dict: Mapping[str, Mapping[str, int]] | None,
                       measures: Sequence[Any], *, rel: int, unretrieved: str, collection_size: int | None,
                       missing: str, provider: str) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """:func:`per_query_values` without a frame: per measure (in the order given), its canonical
    name, its values (float64[Q], aligned with ``rr.query_ids``) and the queries that have one
    (bool[Q])."""
    from .kernels import standard_per_query, supports

    absent = _absent_queries(rr, missing)
    if provider not in PROVIDERS:
        raise ValidationError(f"unknown provider {provider!r}; choose one of {', '.join(PROVIDERS)}")
    judged_q = rr.judged_queries()
    keep_q = judged_q & (rr.in_run if missing == "skip" else True)
    measures = [measure_at_rel(m, rel) for m in measures]
    values: dict[str, np.ndarray] = {}
    external = []
    for m in measures:
        if isinstance(m, ASL):
            values[str(m)] = _asl_values(rr, m, rel, unretrieved, collection_size, missing, absent)
        elif provider == "ranklens" and supports(m):
            values[str(m)] = standard_per_query(rr, m)
        else:
            external.append(m)
    if external:
        values.update(_external_values(rr, qrels_dict, external, provider, missing))
    out = []
    for m in measures:
        v = values[str(m)]
        out.append((str(m), v, keep_q & ~np.isnan(v)))
    return out


def _absent_queries(rr: RankedRun, missing: str) -> np.ndarray:
    """bool per query: judged but not in the run; checks ``missing`` and raises under ``"error"``
    when there are any (the one policy check of the per-query and per-document views)."""
    if missing not in MISSING_POLICIES:
        raise ValidationError(f"unknown missing policy {missing!r}; choose one of "
                              f"{', '.join(MISSING_POLICIES)}")
    absent = rr.judged_queries() & ~rr.in_run
    if missing == "error" and absent.any():
        raise ValidationError(f"{int(absent.sum())} judged queries have no run rows (e.g. "
                              f"{rr.query_ids[absent][0]!r}); use missing='skip' or 'zero'")
    return absent


def per_document_values(
    rr: RankedRun, *, rel: int = DEFAULTS.rel, unretrieved: str = DEFAULTS.unretrieved,
    collection_size: int | None = DEFAULTS.collection_size, missing: str = DEFAULTS.missing,
) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Per-document search lengths (:func:`~ranklens.asl.asl.search_lengths`) under the same
    ``missing`` policy as :func:`per_query_values`, so per-document views (the distribution,
    the chain's atomized precision, ``evaluate(per_document=True)``) treat a judged query the
    run never answered exactly as the per-query measures do.

    ``missing``: ``"skip"`` leaves such queries out (no row for their relevant documents);
    ``"zero"`` gives each of their relevant documents (unretrieved) the worst-case SL of
    :func:`~ranklens.asl.asl.worst_case_asl` (the run's depth of non-relevant documents above
    it: the SL whose mean is the worst-case ASL_q, never a reward); ``"error"`` raises.

    Returns:
        (the frame of :func:`~ranklens.asl.asl.search_lengths`, the ids of the judged queries
        with a relevant document at ``rel`` that the run does not answer).
    """
    absent = _absent_queries(rr, missing)
    sl = search_lengths(rr, rel=rel, unretrieved=unretrieved, collection_size=collection_size)
    nrel = rr.n_relevant(rel)
    absent &= nrel > 0
    ids = tuple(str(q) for q in rr.query_ids[absent])
    if not ids:
        return sl, ids
    hit = sl[QUERY_ID].isin(ids).to_numpy()
    if missing == "skip":
        return sl[~hit].reset_index(drop=True), ids
    worst = worst_case_asl(nrel[absent], rr.depth, unretrieved=unretrieved, collection_size=collection_size)
    sl.loc[hit, "sl"] = sl.loc[hit, QUERY_ID].map(dict(zip(ids, worst))).to_numpy(np.float64)
    return sl, ids


def missing_warning(name: str, ids: Sequence[str], missing: str, what: str) -> str:
    """The warning for judged queries (with a relevant document) a run does not answer, as
    :func:`per_document_values` handled them under ``missing``; ``what`` names the view."""
    n = len(ids)
    head = (f"run {name}: {n} judged quer{'y' if n == 1 else 'ies'} with relevant documents "
            f"{'is' if n == 1 else 'are'} not in the run (e.g. {ids[0]!r})")
    if missing == "skip":
        return (f"{head}: left out of {what} (missing='skip', as evaluate leaves them out; "
                "missing='zero' scores them as the worst case)")
    return f"{head}: their relevant documents get the worst-case search length in {what} (missing='zero')"


def _asl_values(rr: RankedRun, m: ASL, rel: int, unretrieved: str, collection_size: int | None,
                missing: str, absent: np.ndarray) -> np.ndarray:
    r = m.resolved(rel=rel, unretrieved=unretrieved)
    v = asl_per_query(rr, rel=r.rel, first=r.first, cutoff=r.cutoff,
                      unretrieved=r.unretrieved, collection_size=collection_size)
    if missing == "zero" and absent.any():  # never reward a missing query: worst case
        depth = rr.depth if r.cutoff is None else min(rr.depth, r.cutoff)
        v[absent] = worst_case_asl(rr.n_relevant(r.rel)[absent], depth, first=r.first,
                                   unretrieved=r.unretrieved, collection_size=collection_size)
    return v


def _external_values(rr: RankedRun, qrels_dict, measures: Sequence[Any], provider: str,
                     missing: str) -> dict[str, np.ndarray]:
    """Per-query values from ir_measures (pytrec_eval for ``provider="pytrec_eval"``, else
    whichever ir_measures provider supports the measure); judged queries without a value get
    0 under ``missing="zero"`` (trec_eval ``-c``), NaN otherwise."""
    import ir_measures

    qd = qrels_dict if qrels_dict is not None else _rr_qrels_dict(rr)
    calc = ir_measures.pytrec_eval.iter_calc if provider == "pytrec_eval" else ir_measures.iter_calc
    index = {q: i for i, q in enumerate(rr.query_ids.tolist())}
    fill = 0.0 if missing == "zero" else np.nan
    out = {str(m): np.full(len(rr.query_ids), fill) for m in measures}
    for metric in calc(list(measures), qd, _run_dict(rr)):
        if metric.query_id in index:
            out[str(metric.measure)][index[metric.query_id]] = float(metric.value)
    return out


def _prepare_measures(measures: Sequence[Any] | None, rel: int) -> list[Any]:
    specs = list(measures) if measures is not None else list(DEFAULTS.measures)
    if not specs:
        raise ValidationError("no measures given; e.g. -m ASL -m AP -m nDCG@10")
    out = [measure_at_rel(s, rel) for s in specs]
    names = [str(m) for m in out]
    if len(set(names)) != len(names):
        raise ValidationError(f"duplicate measures in {names}")
    return out


def evaluate(
    qrels: Any,
    runs: Any,
    measures: Sequence[Any] | None = DEFAULTS.measures,
    *,
    ties: str = DEFAULTS.ties,
    rel: int = DEFAULTS.rel,
    unretrieved: str = DEFAULTS.unretrieved,
    collection_size: int | None = DEFAULTS.collection_size,
    missing: str = DEFAULTS.missing,
    duplicates: str = DEFAULTS.duplicates,
    baseline: str | None = DEFAULTS.baseline,
    correction: str = DEFAULTS.correction,
    n_resamples: int = DEFAULTS.n_resamples,
    confidence: float = DEFAULTS.confidence,
    seed: int = 0,
    per_document: bool = False,
    depth: int | None = DEFAULTS.depth,
    grades: Any = DEFAULTS.grades,
    depth_ratio: float = DEFAULTS.depth_ratio,
    ci: bool = False,
    provider: str = "ranklens",
    hash_inputs: bool = True,
):
    """Evaluate runs with ASL and standard measures; optional paired tests against a baseline.

    Args:
        qrels: qrels path / DataFrame (``query_id``, ``doc_id``, ``relevance``) / ``irds:<id>``.
        runs: a run, a directory of runs (a track), a mapping ``{name: run}`` or a list; runs
            already ranked by :func:`ranklens.asl.ranking.rank_runs` under this call's ``ties``,
            ``duplicates``, ``depth`` and ``grades`` are used as they are (a track is ranked once).
        measures: measure strings or objects (default :data:`DEFAULT_MEASURES`, the declared
            ``Params.measures``; None means the same).
        ties: tie rule (``"trec_eval"`` default, ``"float64"``, ``"input_order"``).
        rel: minimum relevance for binary measures and ASL, unless a measure sets its own
            (like trec_eval ``-l``; nDCG keeps the graded labels; ``NumRet`` stays every
            retrieved document and ``NumRelRet`` becomes ``NumRet(rel=REL)``).
        unretrieved: ASL policy for unretrieved relevant documents (``"paper"`` = eq. 3, the
            default; ``"lower_bound"``; ``"expected"``).
        collection_size: N for ``unretrieved="expected"``.
        missing: judged queries absent from a run: ``"skip"`` (trec_eval default), ``"zero"``
            (``-c``; standard measures 0, ASL the worst case), ``"error"``.
        duplicates: a (query, doc) pair listed twice in a run: ``"error"`` (default; names the
            run, query, document and ranks) or ``"best"`` (keep the best-ranked row; every
            measure then sees the same de-duplicated ranking).
        baseline: name of the run to test every other run against (None = no tests; with a
            baseline the bootstrap CIs are computed too).
        correction: multiple-testing correction over the runs per measure (``"holm"``,
            ``"bonferroni"``, ``"bh"``, ``"none"``).
        n_resamples: resamples of the randomization test and the bootstrap.
        confidence: level of the bootstrap confidence intervals of each mean.
        seed: seed of the randomization test and the bootstrap.
        per_document: add the per-document ASL table (``tables["per_document"]``; queries a
            run does not answer follow ``missing``: see :func:`per_document_values`).
        depth: cut every run to its top ``depth`` documents per query first (None: as given).
        grades: qrels grade mapping applied first (``{1: 0}``, ``"1=0"``, ``"nist-dl20"``).
        depth_ratio: warn when the runs' median depths differ by more than this factor.
        ci: compute bootstrap confidence intervals of each mean (``tables["ci"]``); off by
            default (resampling only when asked).
        provider: ``"ranklens"`` (default: ranklens's own kernels for AP, AP@k, nDCG, nDCG@k,
            P@k, R@k, RR, Rprec, Bpref, Success@k, NumRel; other measures via ir_measures) or
            ``"pytrec_eval"`` (every standard measure via ir_measures' pytrec_eval provider,
            the oracle).
        hash_inputs: record each input file's sha256 in the provenance (default). False records
            ``unhashed:PATH`` instead: for a result that is printed and never saved (``ranklens
            evaluate`` without ``--out``), where hashing a 200 MB run costs ~0.5 s of CPU.

    Returns:
        ``Result`` of kind ``"asl-evaluate"``: ``table`` has one row per run (column ``model``,
        sorted by the first measure, best first) with a column per measure (the mean over
        queries; the count measures NumQ, NumRet, NumRel, NumRelRet summed, as trec_eval and
        ir_measures do: :func:`~ranklens.asl.measures.is_summed`), ``n_queries``,
        ``tied_rows`` and the run's depth (``depth_min/median/max``, ``recall_at_depth``);
        ``tables``: ``per_query`` (long), ``ci`` (bootstrap CIs, with ``ci`` or ``baseline``),
        ``significance`` (if
        ``baseline``), ``per_document``. ``warnings``: runs of different depths, eq. 3 scores
        below the optimum, dropped duplicates.
    """
    from ..results import Result, make_provenance

    _check_policy(unretrieved, collection_size)
    mlist = _prepare_measures(measures, rel)
    names = [str(m) for m in mlist]
    run_map = load_runs(runs)
    if baseline is not None and baseline not in run_map:
        raise ValidationError(f"baseline {baseline!r} is not one of the runs "
                              f"({', '.join(sorted(run_map)[:10])}...)")
    origins = {name: run.origin if isinstance(run, RankedRun) else run for name, run in run_map.items()}
    pool = ThreadPoolExecutor(1)  # input files hashed while the runs are scored (hashlib frees the GIL)
    hashes = pool.submit(_file_hashes if hash_inputs else _file_names, qrels, origins)
    pool.shutdown(wait=False)
    rr_map = rank_runs(qrels, run_map, ties=ties, duplicates=duplicates, depth=depth, grades=grades)
    conv = {"ties": ties, "rel": rel, "unretrieved": unretrieved, "collection_size": collection_size,
            "missing": missing, "duplicates": duplicates, "depth": depth, "provider": provider}
    pq_all, per_doc, info = _score_runs(rr_map, mlist, conv, per_document)
    table = _model_table(pq_all, run_map, names, mlist, info)
    tables: dict[str, pd.DataFrame] = {"per_query": pq_all}
    tables.update(_statistics(pq_all, names, mlist, list(run_map), baseline, ci, correction,
                              n_resamples, confidence, seed))
    summary = _summary(table, names, mlist, info, unretrieved, rel, run_map)
    if baseline is not None:
        summary["baseline"] = baseline
    if per_document:
        tables["per_document"] = pd.concat(per_doc, ignore_index=True)
    prov = make_provenance(
        params={"measures": names, **conv, "grades": parse_grade_mapping(grades), "baseline": baseline,
                "correction": correction, "n_resamples": n_resamples, "confidence": confidence,
                "depth_ratio": depth_ratio, "ci": bool(ci or baseline is not None),
                "standard_measures_provider": ("ranklens kernels (trec_eval 9.0.8 definitions); others "
                                               "ir_measures" if provider == "ranklens"
                                               else "ir_measures.pytrec_eval"),
                "asl_query_mean": "mean over queries with >= 1 relevant document"},
        inputs=_inputs(qrels, grades, origins, hashes.result()), seed=seed,
    )
    res = Result(kind="asl-evaluate", summary=summary, table=table, tables=tables, provenance=prov)
    return res.with_warnings(*evaluation_warnings(info, depth_ratio, unretrieved, mlist))


@dataclass(frozen=True)
class Means:
    """What :func:`evaluate_means` returns: per run (in the order given) its per-query rows and
    each measure's value over queries, and the warnings :func:`evaluate` gives."""

    measures: tuple[str, ...]
    run_order: tuple[str, ...]
    #: run -> ``(query_id, measure, value)`` rows: queries in the run's order, measures in the order given
    per_query: dict[str, list[tuple[str, str, float]]]
    #: run -> measure -> the mean over queries (the count measures: the sum)
    values: dict[str, dict[str, float]]
    warnings: tuple[str, ...]


def evaluate_means(
    qrels: Any, runs: Any, measures: Sequence[Any] | None = DEFAULTS.measures, *, ties: str = DEFAULTS.ties,
    rel: int = DEFAULTS.rel, unretrieved: str = DEFAULTS.unretrieved,
    collection_size: int | None = DEFAULTS.collection_size, missing: str = DEFAULTS.missing,
    duplicates: str = DEFAULTS.duplicates, depth: int | None = DEFAULTS.depth, grades: Any = DEFAULTS.grades,
    depth_ratio: float = DEFAULTS.depth_ratio, provider: str = "ranklens", per_query: bool = False,
) -> Means:
    """:func:`evaluate`'s per-query values and means, the same numbers and warnings, without a
    ``Result`` (no tables, provenance, CIs or tests): what ``ranklens evaluate`` prints in the
    ir_measures formats, read, ranked and scored on pyarrow and numpy alone (pandas is not
    imported unless an input is a DataFrame). ``per_query`` also keeps the per-query rows."""
    _check_policy(unretrieved, collection_size)
    mlist = _prepare_measures(measures, rel)
    names = tuple(str(m) for m in mlist)
    run_map = load_runs(runs)
    rr_map = rank_runs(qrels, run_map, ties=ties, duplicates=duplicates, depth=depth, grades=grades)
    conv = {"rel": rel, "missing": missing, "unretrieved": unretrieved}
    info: dict[str, dict[str, Any]] = {}
    rows: dict[str, list[tuple[str, str, float]]] = {}
    values: dict[str, dict[str, float]] = {}
    for name, rr in rr_map.items():
        info[name] = _run_info(name, rr, mlist, conv)
        cols = _per_query_columns(rr, None, mlist, rel=rel, unretrieved=unretrieved,
                                  collection_size=collection_size, missing=missing, provider=provider)
        values[name] = {n: aggregate(v[ok], is_summed(m)) for (n, v, ok), m in zip(cols, mlist)}
        if per_query:
            ids = rr.query_ids.tolist()
            per = [(n, v.tolist(), ok.tolist()) for n, v, ok in cols]
            rows[name] = [(ids[q], n, v[q]) for q in _printed_queries(rr, [c[2] for c in cols]).tolist()
                          for n, v, ok in per if ok[q]]
    return Means(names, tuple(run_map), rows, values,
                 tuple(evaluation_warnings(info, depth_ratio, unretrieved, mlist)))


def _statistics(pq_all: pd.DataFrame, names: Sequence[str], mlist: Sequence[Any], systems: list[str],
                baseline: str | None, ci: bool, correction: str, n_resamples: int, confidence: float,
                seed: int) -> dict[str, pd.DataFrame]:
    """Bootstrap CIs (``ci`` or a baseline) and the paired tests against ``baseline``; nothing
    is resampled unless asked."""
    if not ci and baseline is None:
        return {}
    wide = {n: pq_all[pq_all["measure"] == n].pivot(index=QUERY_ID, columns="model", values="value")
            for n in names}
    out = {"ci": _ci_table(wide, names, systems, confidence, n_resamples, seed)}
    if baseline is not None:
        out["significance"] = _significance(wide, names, mlist, systems, baseline, correction,
                                            n_resamples, seed)
    return out


def _summary(table, names, mlist, info, unretrieved, rel, run_order) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "n_runs": len(table), "measures": names, "unretrieved": unretrieved, "rel": rel,
        "run_order": list(run_order),
        "best": {n: _best(table, n, m, info) for n, m in zip(names, mlist)},
    }
    if len(table) == 1:
        summary.update({n: float(table[n].iloc[0]) for n in names})
    dropped = {k: v["dropped"] for k, v in info.items() if v["dropped"]}
    if dropped:
        summary["duplicates_dropped"] = dropped
    return summary


def _coverage(rr: RankedRun, name: str, rel: int, missing: str, mlist: Sequence[Any] = ()) -> tuple[str, ...]:
    """The readers' warnings, then :func:`ranklens.io.trec.coverage_warnings` on the ranked run's
    query sets (sorted ids, boolean per id: no second pass over the ids or the run's rows);
    raises when the run shares no query with the qrels."""
    from ..io.trec import coverage_warnings

    top = np.full(len(rr.query_ids), np.iinfo(np.int64).min, np.int64)
    np.maximum.at(top, rr.qrels_q, rr.qrels_rel)
    asked = [str(m) for m in mlist if not is_summed(m)] or None
    return (*rr.reader_warnings, *coverage_warnings(rr.query_ids, rr.in_run, rr.judged_queries(), top >= rel,
                                                    rel=rel, run_name=name, missing=missing, measures=asked))


def _score_runs(rr_map: Mapping[str, RankedRun], mlist: Sequence[Any], conv: Mapping[str, Any],
                per_document: bool) -> tuple[pd.DataFrame, list[pd.DataFrame], dict[str, dict[str, Any]]]:
    """Per-query values of every run (long, column ``model``), per-document tables and, per
    run, its tie/duplicate counts, depth statistics and eq. 3 below-optimum count."""
    per_query, per_doc = [], []
    info: dict[str, dict[str, Any]] = {}
    for name, rr in rr_map.items():
        info[name] = _run_info(name, rr, mlist, conv)
        pq = per_query_values(rr, None, mlist, rel=conv["rel"], unretrieved=conv["unretrieved"],
                              collection_size=conv["collection_size"], missing=conv["missing"],
                              provider=conv["provider"])
        pq.insert(0, "model", name)
        per_query.append(_in_run_order(pq, rr))
        if per_document:
            sl, _ = per_document_values(rr, rel=conv["rel"], unretrieved=conv["unretrieved"],
                                        collection_size=conv["collection_size"], missing=conv["missing"])
            sl.insert(0, "model", name)
            per_doc.append(sl)
    pq_all = pd.concat(per_query, ignore_index=True)
    pq_all["model"] = pq_all["model"].astype("str")
    return pq_all, per_doc, info


def _run_info(name: str, rr: RankedRun, mlist: Sequence[Any], conv: Mapping[str, Any]) -> dict[str, Any]:
    """A run's tie/duplicate counts, coverage warnings, depth statistics and eq. 3 below-optimum
    count (what :func:`evaluation_warnings` and the model table read)."""
    return {"tied": rr.tied_rows, "dropped": rr.duplicates_dropped,
            "coverage": _coverage(rr, run_source(name, rr), conv["rel"], conv["missing"], mlist),
            **depth_stats(rr, conv["rel"]),
            "below_optimum": below_optimum(rr, rel=conv["rel"], unretrieved=conv["unretrieved"])
            if any(isinstance(m, ASL) for m in mlist) else 0,
            "missing_queries": int(np.count_nonzero(~rr.in_run & rr.judged_queries()))}


def _printed_queries(rr: RankedRun, oks: Sequence[np.ndarray]) -> np.ndarray:
    """The query codes of the per-query rows in the order they are printed: as :func:`_in_run_order`
    orders the measure-major rows (the run's first listing; the queries it leaves out after, by
    their first measure with a value, then id), each query once."""
    qs = np.concatenate([np.flatnonzero(ok) for ok in oks]) if oks else np.zeros(0, np.int64)
    pos = _run_positions(rr)
    if pos is not None:
        qs = qs[np.argsort(pos[qs], kind="stable")]
    _, first = np.unique(qs, return_index=True)
    return qs[np.sort(first)]


def _run_positions(rr: RankedRun) -> np.ndarray | None:
    """Per query code, its place in the run's first listing of its queries (the queries the run
    leaves out: after all of them); ``None`` when the run's order is not known. The one order of
    the per-query rows, for frames (:func:`_in_run_order`) and arrays (:func:`_printed_queries`)."""
    if rr.run_order is None:
        return None
    pos = np.full(len(rr.query_ids), len(rr.run_order), np.int64)
    pos[np.asarray(rr.run_order, np.int64)] = np.arange(len(rr.run_order))
    return pos


def aggregate(values: np.ndarray, summed: bool) -> float:
    """A measure's value over queries: the mean (the count measures: the sum, as trec_eval sums
    them), from the exactly rounded sum (``math.fsum``: the same figure whatever the query order
    or the pandas version; NaN when no query has a value). The one aggregation of the model
    table and of :func:`evaluate_means`."""
    import math

    if values.size == 0:
        return float("nan")
    total = math.fsum(values.tolist())
    return total if summed else total / values.size


def _in_run_order(pq: pd.DataFrame, rr: RankedRun) -> pd.DataFrame:
    """Per-query rows in the order the run first lists its queries (as ir_measures prints them),
    queries the run leaves out after, in id order; within a query the measures keep their order."""
    run_pos = _run_positions(rr)
    if run_pos is None or pq.empty:
        return pq
    code = {str(q): i for i, q in enumerate(rr.query_ids.tolist())}
    pos = run_pos[pq["query_id"].astype(str).map(code).to_numpy(np.int64)]
    return pq.iloc[np.argsort(pos, kind="stable")].reset_index(drop=True)


_DEPTH_COLUMNS = ("depth_min", "depth_median", "depth_max", "recall_at_depth")


def _model_table(pq_all: pd.DataFrame, run_map: Mapping[str, Any], names: Sequence[str],
                 mlist: Sequence[Any], info: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    groups = pq_all.groupby(["model", "measure"], sort=False)["value"].indices
    values = pq_all["value"].to_numpy(np.float64)
    table = pd.DataFrame({"model": list(run_map)})
    for n, m in zip(names, mlist):  # the count measures are summed, as trec_eval does
        table[n] = [aggregate(values[groups[(r, n)]], is_summed(m)) if (r, n) in groups else np.nan
                    for r in table["model"]]
    table["n_queries"] = [max((len(groups[(r, n)]) for n in names if (r, n) in groups), default=0)
                          for r in table["model"]]
    table["n_queries"] = table["n_queries"].astype(np.int64)
    table["tied_rows"] = table["model"].map({k: v["tied"] for k, v in info.items()}).astype(np.int64)
    for c in _DEPTH_COLUMNS:
        table[c] = table["model"].map({k: v[c] for k, v in info.items()})
    asc = not higher_is_better(mlist[0])
    table = table.sort_values(names[0], ascending=asc, kind="stable", na_position="last")
    table = table.reset_index(drop=True)
    table["model"] = table["model"].astype("str")
    return table


def _ci_table(wide, names, run_map, confidence, n_resamples, seed) -> pd.DataFrame:
    from .. import stats

    rows = []
    for n in names:
        w = wide[n]
        for s in run_map:
            vals = w[s].to_numpy(np.float64) if s in w else np.array([])
            ci = stats.bootstrap_ci(vals, confidence=confidence, n_resamples=n_resamples, seed=seed)
            rows.append({"model": s, "measure": n, "mean": ci.mean, "ci_low": ci.low,
                         "ci_high": ci.high, "n": ci.n})
    return pd.DataFrame(rows)


def evaluation_warnings(info: Mapping[str, Mapping[str, Any]], depth_ratio: float,
                        unretrieved: str, asked: Sequence[Any] | None = None) -> list[str]:
    """Runs of different depths (:func:`ranklens.io.depth_warnings`, the one depth warning,
    always first); ragged runs; eq. 3 scores below the optimum; what each run and the qrels do
    not share (:func:`ranklens.io.check_coverage`). Only about what was asked: the ASL notes
    appear when ``asked`` (the parsed measures; None: all) holds an ASL measure."""
    from ..io.trec import depth_warnings

    asl = asked is None or any(isinstance(m, ASL) for m in asked)
    note = ("ASL counts the non-relevant documents a run lists, so a shallow run can score better "
            "by listing less -- " if asl else "")
    out = list(depth_warnings(
        {k: int(v["depth_max"]) for k, v in info.items()},
        note=note + "cut every run to a common depth (depth=N, --depth N) or compare recall_at_depth"))
    low = {k: v["depth_min"] for k, v in info.items()
           if v["depth_min"] and v["depth_min"] < v["depth_median"] / depth_ratio}
    if low:
        k = next(iter(low))
        out.append(f"{len(low)} run(s) list far fewer documents for some queries than for most (e.g. {k}: "
                   f"{low[k]} vs a median of {info[k]['depth_median']:g})")
    below = {k: v["below_optimum"] for k, v in info.items() if v["below_optimum"]} if asl else {}
    if below:
        k = next(iter(below))
        out.append(f"unretrieved={unretrieved} (eq. 3) scores an unretrieved relevant document behind 0 "
                   f"non-relevant ones as SL 0, below the optimum 1: {sum(below.values())} query/run "
                   f"case(s) in {len(below)} run(s), e.g. {k}; unretrieved=lower_bound never does")
    for v in info.values():
        out.extend(w for w in v.get("coverage", ()) if w not in out)
    return out


def _file_hashes(qrels: Any, run_map: Mapping[str, Any]) -> dict[str, str]:
    """``sha256:`` digests of the input files (run names as ``run:NAME``, ``qrels``)."""
    from .._hashing import sha256_file

    out = {f"run:{name}": "sha256:" + sha256_file(run) for name, run in run_map.items()
           if isinstance(run, (str, os.PathLike))}
    if isinstance(qrels, (str, os.PathLike)) and not str(qrels).startswith("irds:"):
        out["qrels"] = "sha256:" + sha256_file(qrels)
    return out


def _file_names(qrels: Any, run_map: Mapping[str, Any]) -> dict[str, str]:
    """:func:`_file_hashes`' keys with ``unhashed:PATH`` values (``hash_inputs=False``)."""
    out = {f"run:{name}": f"unhashed:{run}" for name, run in run_map.items() if isinstance(run, (str, os.PathLike))}
    if isinstance(qrels, (str, os.PathLike)) and not str(qrels).startswith("irds:"):
        out["qrels"] = f"unhashed:{qrels}"
    return out


def _inputs(qrels: Any, grades: Any, run_map: Mapping[str, Any], file_hashes: Mapping[str, str]) -> dict[str, str]:
    from .._hashing import sha256_frame

    inputs: dict[str, str] = {}
    for name, run in run_map.items():
        if isinstance(run, (str, os.PathLike)):
            inputs[f"run:{name}"] = file_hashes[f"run:{name}"]
        elif is_frame(run):
            inputs[f"run:{name}"] = "sha256:" + sha256_frame(run)
    if "qrels" in file_hashes:
        inputs["qrels"] = file_hashes["qrels"]
    elif isinstance(qrels, str):
        inputs["qrels"] = qrels
    else:
        inputs["qrels"] = "sha256:" + sha256_frame(map_grades(qrels, grades).to_pandas())
    return inputs

def _best(table: pd.DataFrame, name: str, m: Any, info: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The best run by ``m``. For an ASL measure only the deepest runs (largest median documents
    per query) compete: ASL counts the non-relevant documents a run lists, so a shallower run
    would "win" by listing less (``among`` says so when runs were left out)."""
    col = table[name]
    among = None
    if isinstance(m, ASL):
        depth = {str(k): float(v.get("depth_median", 0) or 0) for k, v in info.items()}
        if len(set(depth.values())) > 1:
            top = max(depth.values())
            keep = table["model"].astype(str).map(lambda r: depth.get(r, top) == top)
            col = col[keep.to_numpy()]
            among = f"the deepest runs (median {top:g} documents per query): ASL favours shallower runs"
    if col.isna().all():
        return {"model": None, "value": None}
    i = col.idxmax() if higher_is_better(m) else col.idxmin()
    out = {"model": str(table.loc[i, "model"]), "value": float(col.loc[i])}
    return {**out, "among": among} if among else out


def _significance(wide, names, mlist, systems, baseline, correction, n_resamples, seed):
    from .. import stats

    rows = []
    for n, m in zip(names, mlist):
        w = wide[n]
        base = w[baseline] if baseline in w else None
        block = []
        for s in systems:
            if s == baseline or base is None or s not in w:
                continue
            a, b = w[s].to_numpy(np.float64), base.to_numpy(np.float64)
            t = stats.paired_ttest(a, b)
            r = stats.randomization_test(a, b, n_resamples=n_resamples, seed=seed)
            block.append({"model": s, "measure": n, "baseline": baseline,
                          "mean": float(np.nanmean(a)), "baseline_mean": float(np.nanmean(b)),
                          "delta": t.mean_diff, "better": (t.mean_diff > 0) == higher_is_better(m)
                          if t.mean_diff != 0 else False,
                          "t": t.statistic, "ttest_p": t.pvalue, "rand_p": r.pvalue, "n": t.n})
        if block:
            f = pd.DataFrame(block)
            f["ttest_p_adj"] = stats.correct_pvalues(f["ttest_p"], correction)
            f["rand_p_adj"] = stats.correct_pvalues(f["rand_p"], correction)
            rows.append(f)
    if not rows:
        return pd.DataFrame(columns=["model", "measure", "baseline", "delta", "ttest_p",
                                     "ttest_p_adj", "rand_p", "rand_p_adj"])
    return pd.concat(rows, ignore_index=True)
