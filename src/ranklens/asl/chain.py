"""The paper's system-reordering analyses: MAP -> ASL step by step with ΔSort, Kendall τ and
ΔValue (Table 2), MAP coverage (Appendix A.1), and both summarised across tracks.

Alex, Hall & Metzler, "Atomized Search Length: Beyond User Models", section 4.4 and appendix A.1.
Interpretations where the paper leaves room are stated in each docstring and recorded in the
result's provenance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from ..types import QUERY_ID
from .._arrays import running_count
from .declaration import Params
from .evaluation import per_document_values, per_query_values
from .measures import parse_measure, with_default_rel
from .ranked import RankedRun
from .ranking import rank_runs

__all__ = ["BETTER_SPACES", "STAGES", "TABLE2_ROWS", "across_tracks", "better_counts", "coverage_per_query",
           "map_coverage", "map_to_asl_chain", "sig_round"]

DEFAULTS = Params()
BETTER_SPACES = ("metric", "precision")

#: stage -> (per-query column, aggregate, higher is better). "harmonic mean across queries" is
#: 1 / mean_q ASL_q: its per-query values (for the t-test) are ASL_q.
STAGES: dict[str, tuple[str, str, bool]] = {
    "MAP": ("AP", "mean", True),
    "atomized precision": ("AtP", "mean", True),
    "harmonic mean within query": ("HMQ", "mean", True),
    "harmonic mean across queries": ("ASL", "inv_mean", True),
    "ASL": ("ASL", "mean", False),
    "P@20": ("P@20", "mean", True),
    "ASL@g1-10": ("ASL@g1-10", "mean", False),
    "MRR": ("RR", "mean", True),
    "ASL@g1-1": ("ASL@g1-1", "mean", False),
}

#: The rows of the paper's Table 2 (chain, row, from stage, to stage): each ablation row relative
#: to the prior row's metric; "Cumulative" = MAP -> ASL; plus the top-weighted chains of 4.4.
TABLE2_ROWS: tuple[tuple[str, str, str, str], ...] = (
    ("MAP->ASL", "Atomize P", "MAP", "atomized precision"),
    ("MAP->ASL", "Agg. docs within query", "atomized precision", "harmonic mean within query"),
    ("MAP->ASL", "Agg. rates across queries", "harmonic mean within query", "harmonic mean across queries"),
    ("MAP->ASL", "Cumulative", "MAP", "ASL"),
    ("P@20->ASL@g1-10", "Cumulative", "P@20", "ASL@g1-10"),
    ("MRR->ASL@g1-1", "Cumulative", "MRR", "ASL@g1-1"),
)


def _prov(params: Mapping[str, Any]):
    from ..results import make_provenance

    return make_provenance(params=params)


def sig_round(x: np.ndarray, digits: int) -> np.ndarray:
    """``x`` rounded to ``digits`` significant digits (so summation noise does not break ties)."""
    x = np.asarray(x, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mag = np.where((x != 0) & np.isfinite(x), np.floor(np.log10(np.abs(x))), 0)
    scale = 10.0 ** (digits - 1 - mag)
    return np.where(np.isfinite(x), np.round(x * scale) / scale, x)


# --------------------------------------------------------------------------------------------
# per-query values of every stage
# --------------------------------------------------------------------------------------------

def _per_query_chain(rr: RankedRun, qdict, rel, unretrieved, collection_size, missing) -> pd.DataFrame:
    """Per-query values of every stage for one run (index = query_id), on the queries with at
    least one relevant document at ``rel``.

    ``AtP`` = mean over the relevant documents of 1/SL (the reciprocal of eq. 2); ``HMQ`` =
    1/ASL_q. Under eq. 3 an unretrieved document can get SL 0 (and a query ASL_q 0): its
    reciprocal is taken at 1, the optimum (warned by ``evaluate``).

    A judged query the run never answered follows ``missing`` in every stage alike
    (:func:`~ranklens.asl.evaluation.per_document_values` for AtP, ``per_query_values`` for the
    others): ``"skip"`` leaves it out; ``"zero"`` scores it as the worst case, as if the run had
    listed its depth of non-relevant documents: AP, P@20 and RR 0 (trec_eval ``-c``), every
    relevant document unretrieved with the worst-case SL, so AtP = mean 1/SL over them =
    HMQ = 1/ASL_q (worst case), never the optimum an empty ranking would get under eq. 3.
    """
    base = ["AP", "P@20", "RR", "ASL", "ASL@g1-10", "ASL@g1-1"]
    pq = per_query_values(rr, qdict, base, rel=rel, unretrieved=unretrieved,
                          collection_size=collection_size, missing=missing)
    canon = {str(with_default_rel(parse_measure(m), rel)): m for m in base}
    pq = pq.assign(measure=pq["measure"].map(canon))
    has_rel = set(rr.query_ids[rr.n_relevant(rel) >= 1].tolist())
    pq = pq[pq[QUERY_ID].isin(has_rel)]
    w = pq.pivot(index=QUERY_ID, columns="measure", values="value").reindex(columns=base)
    sl, _ = per_document_values(rr, rel=rel, unretrieved=unretrieved, collection_size=collection_size,
                                missing=missing)
    atp = (1.0 / np.maximum(sl["sl"], 1.0)).groupby(sl[QUERY_ID]).mean()
    w["AtP"] = atp.reindex(w.index)
    w["HMQ"] = 1.0 / np.maximum(w["ASL"], 1.0)
    return w


def _stage_values(per_query: Mapping[str, pd.DataFrame], stage: str) -> tuple[np.ndarray, np.ndarray]:
    """(per-query matrix queries x systems, aggregate value per system) of one stage."""
    col, agg, _ = STAGES[stage]
    x = pd.concat({s: f[col] for s, f in per_query.items()}, axis=1).to_numpy(np.float64)
    mean = np.nanmean(x, axis=0)
    return x, (1.0 / mean if agg == "inv_mean" else mean)


def better_counts(values: np.ndarray, pvalues: np.ndarray, higher: bool, *, min_rel_diff: float = 0.10,
                  alpha: float = 0.05) -> np.ndarray:
    """``n[s]``: the number of systems *better than* system ``s`` (paper, section 4.4).

    System t is better than s when the metric is at least ``min_rel_diff`` better, relative to
    s's value in the metric's own direction (``(v_t - v_s) / v_s`` when higher is better,
    ``(v_s - v_t) / v_s`` when lower is better), and the two-tailed paired t-test on the
    per-query values gives ``p <= alpha``. The paper says "a two-tailed Student t-test on the
    per-query metrics" without saying paired or unpaired; the paired test (the systems are
    scored on the same queries) is ranklens's reading, not the paper's words.
    """
    v = np.asarray(values, np.float64)
    t, s = v[:, None], v[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        gain = (t - s) / np.abs(s) if higher else (s - t) / np.abs(s)
    better = (gain >= min_rel_diff - 1e-12) & (np.asarray(pvalues) <= alpha)
    np.fill_diagonal(better, False)
    return better.sum(axis=0).astype(np.int64)


def _stage_table(per_query, stages, min_rel_diff, alpha, better_space) -> dict[str, dict[str, np.ndarray]]:
    from ..stats import pairwise_ttest_matrix

    out = {}
    for stage in stages:
        x, value = _stage_values(per_query, stage)
        higher = STAGES[stage][2]
        _, p = pairwise_ttest_matrix(x)
        prec = value if higher else 1.0 / value
        if better_space == "precision":
            n = better_counts(prec, p, True, min_rel_diff=min_rel_diff, alpha=alpha)
        else:
            n = better_counts(value, p, higher, min_rel_diff=min_rel_diff, alpha=alpha)
        out[stage] = {"value": value, "precision_space": prec, "n_better": n}
    return out


def _kendall(a: np.ndarray, b: np.ndarray, digits: int) -> float:
    from scipy import stats as sst

    ra, rb = sig_round(a, digits), sig_round(b, digits)
    if np.unique(ra).size < 2 or np.unique(rb).size < 2:
        return float("nan")
    return float(sst.kendalltau(ra, rb, variant="b").statistic)


def _row_records(chain, row, a, b, st, systems, digits) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    n0, n1 = st[a]["n_better"], st[b]["n_better"]
    ds = 100.0 * np.abs(n0 - n1) / len(systems)
    ratio = st[b]["precision_space"] / st[a]["precision_space"]
    i = int(np.argmax(ds))
    rec = {"chain": chain, "step": row, "from": a, "to": b, "dsort": float(ds[i]),
           "dsort_model": systems[i], "kendall_tau": _kendall(st[a]["precision_space"], st[b]["precision_space"], digits),
           "dvalue_mean": float(np.nanmean(ratio)), "dvalue_min": float(np.nanmin(ratio)),
           "dvalue_max": float(np.nanmax(ratio)), "n_systems": len(systems)}
    per = [{"chain": chain, "step": row, "model": s, "n0": int(x0), "n1": int(x1), "dsort": float(d),
            "dvalue": float(r)} for s, x0, x1, d, r in zip(systems, n0, n1, ds, ratio)]
    return rec, per


def map_to_asl_chain(
    qrels: Any, runs: Any, *, ties: str = DEFAULTS.ties, rel: int = DEFAULTS.rel,
    unretrieved: str = DEFAULTS.unretrieved, collection_size: int | None = DEFAULTS.collection_size,
    missing: str = DEFAULTS.missing, duplicates: str = DEFAULTS.duplicates,
    min_rel_diff: float = DEFAULTS.min_rel_diff, alpha: float = DEFAULTS.alpha,
    per_query: Mapping[str, pd.DataFrame] | None = None, depth: int | None = DEFAULTS.depth,
    grades: Any = DEFAULTS.grades, better_space: str = DEFAULTS.better_space, tau_digits: int = DEFAULTS.tau_digits,
):
    """From MAP to ASL step by step over the systems of one track (the paper's Table 2).

    Stages: MAP -> atomized precision (per query, the mean of 1/SL over its relevant
    documents) -> harmonic mean within query (mean over queries of 1/ASL_q) -> harmonic mean
    across queries (1/mean_q ASL_q) -> ASL; and P@20 -> ASL@g1-10, MRR -> ASL@g1-1. Rows
    (:data:`TABLE2_ROWS`): "Atomize P", "Agg. docs within query", "Agg. rates across queries"
    (each relative to the prior row's metric) and "Cumulative" (MAP -> ASL).

    ΔSort as the paper defines it: per system s, ``n`` = the number of systems *better
    than* s (:func:`better_counts`: the metric at least ``min_rel_diff`` = 10% better relative to
    s, in the metric's own direction, AND a two-tailed t-test on the per-query values with
    p <= ``alpha`` = 0.05). The paper asks for "a two-tailed Student t-test on the per-query
    metrics" and does not say paired: ranklens reads it as the *paired* test (per-query values
    of two systems on the same queries are paired, the usual IR practice); that reading is
    ranklens's, not stated by the paper, and an unpaired test can disagree (it ignores the
    per-query pairing). ``ΔSort_s = 100 |n0 - n1| / |S|`` (n0 before the
    change, n1 after); a row reports the largest ΔSort over the systems (``dsort``, and which
    system: ``dsort_model``). The per-query values of "harmonic mean across queries" are
    ASL_q (the values it is the harmonic mean of), so that row and "Cumulative" can change
    significance only through the t-test's values and the 10% threshold, as the paper says.
    ``better_space="precision"`` is ranklens's earlier alternative (the 10% measured on the
    precision-space values of every stage, ASL as 1/ASL).

    Kendall τ: τ-b between the stages' values (precision space, so both orderings run the same
    way) rounded to ``tau_digits`` significant digits, so exactly tied systems stay tied.
    ΔValue: new/old per system in precision space (AP vs 1/ASL, as the paper), mean/min/max.
    Every stage uses the same queries: those with at least one relevant document at ``rel``.
    ``missing`` (judged queries a run never answered) applies to every stage alike, as in
    :func:`ranklens.asl.evaluate`: ``"skip"`` leaves them out of that run's values, ``"zero"``
    scores them as the worst case in every stage (as if the run had listed its depth of
    non-relevant documents: AP, P@20, RR 0; each relevant document the worst-case SL, so
    atomized precision and 1/ASL_q both 1/that SL), ``"error"`` raises.

    Returns:
        ``Result`` kind ``"asl-chain"``: ``table`` = one row per Table 2 row (chain, step, from,
        to, dsort, dsort_model, kendall_tau, dvalue_mean/min/max, n_systems); ``tables``:
        ``dsort`` (per row and model: n0, n1, dsort, dvalue), ``systems`` (per stage and
        model: value, precision_space, n_better).
    """
    from ..results import Result

    if better_space not in BETTER_SPACES:
        raise ValidationError(f"better_space must be one of {BETTER_SPACES}, got {better_space!r}")
    if per_query is None:
        per_query = chain_per_query(qrels, runs, ties=ties, rel=rel, unretrieved=unretrieved,
                                    collection_size=collection_size, missing=missing, duplicates=duplicates,
                                    depth=depth, grades=grades)
    per_query = {s: f[f["ASL"].notna()] for s, f in per_query.items()}
    systems = list(per_query)
    if len(systems) < 2:
        raise ValidationError("the chain compares systems: pass at least two runs")
    stages = list(dict.fromkeys(x for r in TABLE2_ROWS for x in r[2:]))
    st = _stage_table(per_query, stages, min_rel_diff, alpha, better_space)
    rows, per = [], []
    for chain, row, a, b in TABLE2_ROWS:
        rec, recs = _row_records(chain, row, a, b, st, systems, tau_digits)
        rows.append(rec)
        per.extend(recs)
    sys_rows = [{"stage": stage, "model": s, "value": float(v), "precision_space": float(p), "n_better": int(n)}
                for stage, d in st.items()
                for s, v, p, n in zip(systems, d["value"], d["precision_space"], d["n_better"])]
    table = _str_cols(pd.DataFrame(rows), ("chain", "step", "from", "to", "dsort_model"))
    summary: dict[str, Any] = {f"{r['chain']}: {r['step']}": {k: r[k] for k in ("dsort", "kendall_tau", "dvalue_mean")}
                               for r in rows}
    summary["n_systems"] = len(systems)
    summary["n_queries"] = int(len(set().union(*(set(f.index) for f in per_query.values()))))
    return Result(kind="asl-chain", summary=summary, table=table,
                  tables={"dsort": _str_cols(pd.DataFrame(per), ("chain", "step", "model")),
                          "systems": _str_cols(pd.DataFrame(sys_rows), ("stage", "model"))},
                  provenance=_prov({
                      "ties": ties, "rel": rel, "unretrieved": unretrieved, "missing": missing,
                      "duplicates": duplicates, "depth": depth, "grades": str(grades or None), "min_rel_diff": min_rel_diff,
                      "alpha": alpha, "better_space": better_space, "tau_digits": tau_digits,
                      "queries": f"queries with >= 1 document of relevance >= {rel}, every stage",
                      "better": "metric >= min_rel_diff better relative to s (own direction) AND two-tailed "
                                "paired t-test p <= alpha" if better_space == "metric" else
                                "precision-space value >= min_rel_diff better AND paired t-test p <= alpha",
                      "t_test": "paired (ranklens's reading of the paper's 'two-tailed Student t-test on the "
                                "per-query metrics', which does not say paired)",
                      "missing_queries": "every stage alike: skip = left out; zero = worst case (AP, P@20, "
                                         "RR 0; each relevant document the worst-case SL, AtP = 1/SL)",
                      "dsort": "100 |n0 - n1| / |S|, n = #systems better than s; max over s",
                      "kendall": f"tau-b on values rounded to {tau_digits} significant digits",
                      "dvalue": "new/old in precision space (ASL as 1/ASL)"}))


def chain_per_query(qrels: Any, runs: Any, *, ties: str = DEFAULTS.ties, rel: int = DEFAULTS.rel,
                    unretrieved: str = DEFAULTS.unretrieved, collection_size: int | None = DEFAULTS.collection_size,
                    missing: str = DEFAULTS.missing, duplicates: str = DEFAULTS.duplicates,
                    depth: int | None = DEFAULTS.depth, grades: Any = DEFAULTS.grades) -> dict[str, pd.DataFrame]:
    """Per-query values of every chain stage, per run (``missing`` applies to every stage alike:
    see :func:`map_to_asl_chain`; ``runs`` may be ranked already by
    :func:`ranklens.asl.ranking.rank_runs` under this call's conventions)."""
    return {name: _per_query_chain(rr, None, rel, unretrieved, collection_size, missing)
            for name, rr in rank_runs(qrels, runs, ties=ties, duplicates=duplicates, depth=depth,
                                      grades=grades).items()}


def _str_cols(frame: pd.DataFrame, cols: Sequence[str]) -> pd.DataFrame:
    for c in cols:
        if c in frame:
            frame[c] = frame[c].astype("str")
    return frame


# --------------------------------------------------------------------------------------------
# MAP coverage (appendix A.1)
# --------------------------------------------------------------------------------------------

def _map_precisions(rr: RankedRun, rel: int) -> tuple[np.ndarray, np.ndarray]:
    """MAP's own per-document precisions (eq. 6: (relevant above + 1) / rank; 0 when not
    retrieved) as a padded matrix queries x max R_q (NaN past R_q), and R_q."""
    nrel = rr.n_relevant(rel)
    width = int(nrel.max()) if nrel.size else 0
    mat = np.full((len(nrel), width), np.nan)
    _, qi, pos = rr.relevant_ranks(rel)
    cum = running_count(qi)
    mat[qi, cum - 1] = cum / (pos + 1.0)
    ret = np.bincount(qi, minlength=len(nrel))
    fill = (np.arange(width)[None, :] >= ret[:, None]) & (np.arange(width)[None, :] < nrel[:, None])
    mat[fill] = 0.0
    return mat, nrel


def coverage_per_query(precisions: np.ndarray, n_relevant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Appendix A.1 per query: the partition point n and AP.

    The R_q precisions P_i (MAP's own, unretrieved = 0) are sorted by decreasing precision
    (= decreasing weight); SL_i = 1/P_i; n in 1..R_q is the number of leading documents whose
    unweighted mean SL is closest to the P-space average expressed in SL space, 1/AP_q
    (AP_q = mean of the P_i). Ties prefer the smaller n. Queries with AP = 0 (nothing relevant
    retrieved) have no partition point: n = 0 there (NaN AP if R_q = 0).
    """
    p = np.where(np.isnan(precisions), -np.inf, precisions)
    p = -np.sort(-p, axis=1)  # decreasing, padding (-inf) last
    valid = np.isfinite(p)
    r = n_relevant.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        ap = np.where(valid, p, 0.0).sum(axis=1) / r
        sl = np.where(valid & (p > 0), 1.0 / np.where(p > 0, p, 1.0), np.inf)
        k = np.arange(1, p.shape[1] + 1, dtype=np.float64)
        running = np.cumsum(sl, axis=1) / k
        dist = np.abs(running - (1.0 / ap)[:, None])
    dist = np.where(valid & np.isfinite(dist), dist, np.inf)
    n = np.argmin(dist, axis=1) + 1 if p.shape[1] else np.zeros(len(r), np.int64)
    n = np.where(ap > 0, n, 0)
    return n.astype(np.int64), ap


def map_coverage(
    qrels: Any, runs: Any, *, ties: str = DEFAULTS.ties, rel: int = DEFAULTS.rel, missing: str = DEFAULTS.missing,
    duplicates: str = DEFAULTS.duplicates, depth: int | None = DEFAULTS.depth, grades: Any = DEFAULTS.grades,
):
    """How much of the ranking MAP "sees" (paper appendix A.1), per run and query.

    Per query: :func:`coverage_per_query` (MAP's own precisions, sorted by decreasing
    precision, SL_i = 1/P_i, the partition n whose SL-space mean is closest to 1/AP_q);
    coverage = n / R_q. Per run: ``coverage`` = mean over queries of n / R_q (each query
    weighs equally, as in MAP; the paper does not say how it pools) and ``coverage_docs`` =
    sum n / sum R_q. Queries with AP = 0 are left out (counted in ``queries_ap0``, warned).
    The summary averages over the runs of the track (the paper then averages over tracks:
    :func:`across_tracks`). It takes no ``unretrieved``/``collection_size``: the appendix works
    on MAP's precisions only.

    Returns:
        ``Result`` kind ``"asl-map-coverage"``; table per run (``model``); ``tables["per_query"]``.
    """
    from ..results import Result

    rows, per_q = [], []
    for name, rr in rank_runs(qrels, runs, ties=ties, duplicates=duplicates, depth=depth, grades=grades).items():
        judged = rr.judged_queries()
        keep = judged & (rr.n_relevant(rel) > 0) & (rr.in_run if missing == "skip" else True)
        prec, nrel = _map_precisions(rr, rel)
        n, ap = coverage_per_query(prec, nrel)
        ok = keep & (ap > 0)
        per = pd.DataFrame({"model": name, QUERY_ID: rr.query_ids[ok].astype(str), "ap": ap[ok],
                            "relevant": nrel[ok], "n": n[ok], "coverage": n[ok] / nrel[ok]})
        per_q.append(per)
        rows.append({"model": name, "coverage": float(per["coverage"].mean()) if len(per) else np.nan,
                     "coverage_docs": float(per["n"].sum() / per["relevant"].sum()) if len(per) else np.nan,
                     "queries": int(ok.sum()), "queries_ap0": int((keep & ~(ap > 0)).sum())})
    table = _str_cols(pd.DataFrame(rows), ("model",))
    ap0 = int(table["queries_ap0"].sum())
    res = Result(kind="asl-map-coverage",
                 summary={"mean_coverage": float(table["coverage"].mean()),
                          "sd_coverage": float(table["coverage"].std(ddof=1)) if len(table) > 1 else 0.0,
                          "mean_coverage_docs": float(table["coverage_docs"].mean()), "n_systems": len(table)},
                 table=table, tables={"per_query": _str_cols(pd.concat(per_q, ignore_index=True), ("model", QUERY_ID))},
                 provenance=_prov({"ties": ties, "rel": rel, "missing": missing, "duplicates": duplicates,
                                   "depth": depth, "grades": str(grades or None),
                                   "precisions": "MAP's own: (relevant above + 1) / rank; unretrieved 0",
                                   "match": "sort by decreasing precision; argmin_n |mean(1/P_1..n) - 1/AP_q|",
                                   "run": "mean over queries of n / R_q"}))
    if ap0:
        res = res.with_warnings(f"{ap0} query/run case(s) retrieve no relevant document (AP = 0): "
                                "no partition point, left out of the coverage")
    return res


# --------------------------------------------------------------------------------------------
# across tracks (Table 2 as mean ± sd)
# --------------------------------------------------------------------------------------------

def across_tracks(chains: Mapping[str, Any], coverages: Mapping[str, Any] | None = None):
    """The paper's Table 2 over tracks: per row, ΔSort (each track's largest) and Kendall τ as
    mean ± sd over the tracks, ΔValue as mean ± sd over every system of every track, each also
    as the paper's range (mean - sd)-(mean + sd); with coverages, MAP coverage mean ± sd over
    the tracks (the appendix's 57% ± 16).

    Returns:
        ``Result`` kind ``"asl-table2"``: table = chain, step, n_tracks, dsort_mean, dsort_sd,
        tau_mean, tau_sd, dvalue_mean, dvalue_sd, and the ``*_range`` strings.
    """
    from ..results import Result

    if not chains:
        raise ValidationError("across_tracks needs at least one track's chain")
    steps = pd.concat([c.table.assign(track=t) for t, c in chains.items()], ignore_index=True)
    per = pd.concat([c.tables["dsort"].assign(track=t) for t, c in chains.items()], ignore_index=True)
    rows = []
    for (chain, step), f in steps.groupby(["chain", "step"], sort=False):
        dv = per[(per["chain"] == chain) & (per["step"] == step)]["dvalue"]
        row = {"chain": chain, "step": step, "n_tracks": len(f)}
        for key, vals in (("dsort", f["dsort"]), ("tau", f["kendall_tau"]), ("dvalue", dv)):
            m, sd = float(vals.mean()), float(vals.std(ddof=1)) if vals.count() > 1 else 0.0
            row[f"{key}_mean"], row[f"{key}_sd"] = m, sd
            fmt = "{:.0f}%" if key == "dsort" else "{:.2g}"
            row[f"{key}_range"] = f"{fmt.format(m - sd)}-{fmt.format(m + sd)}"
        rows.append(row)
    table = _str_cols(pd.DataFrame(rows), ("chain", "step", "dsort_range", "tau_range", "dvalue_range"))
    summary: dict[str, Any] = {"n_tracks": len(chains), "tracks": list(chains)}
    if coverages:
        cov = np.array([c.summary["mean_coverage"] for c in coverages.values()])
        summary["map_coverage_mean"] = float(cov.mean())
        summary["map_coverage_sd"] = float(cov.std(ddof=1)) if cov.size > 1 else 0.0
    return Result(kind="asl-table2", summary=summary, table=table,
                  tables={"per_track": _str_cols(steps, ("track",))},
                  provenance=_prov({"dsort": "each track's largest ΔSort; mean and sd over tracks",
                                    "tau": "mean and sd over tracks", "dvalue": "mean and sd over all systems "
                                    "of all tracks", "sd": "sample sd (ddof=1)"}))
