"""The ASL paper's analyses over runs and whole tracks (each returns a ``Result``).

- :func:`asl_distribution`: per-document search lengths in log-spaced buckets plus a
  "not retrieved" bucket (paper Fig. 5); with a second run, per-document deltas as a
  wins/losses histogram (Fig. 6).
- :func:`rrie`: relative reduction in error between two runs (paper eqs. 11-12, Table 1).
- :func:`map_to_asl_chain`: MAP -> atomized precision -> harmonic mean within query ->
  harmonic mean across queries -> ASL, with dSort / Kendall tau / dValue per step (Table 2); and
  P@20 -> ASL@g1-10, MRR -> ASL@g1-1.
- :func:`map_coverage`: how much of the ranking MAP "sees" (appendix A.1).
- :func:`track_summary`: best system per track by P@20, ASL@g1-10, MAP, ASL (Figs. 1-4).
- :func:`tie_report`: score ties per run and the effect of each tie rule.

Interpretations where the paper leaves room are stated in each docstring and recorded in the
result's provenance.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from ..types import DEFAULT_TIES, QUERY_ID, TIE_RULES
from .asl import (
    DEFAULT_DUPLICATES,
    DEFAULT_UNRETRIEVED,
    _as_qrels_table,
    count_ties,
    parse_measure,
    rank_coded,
    search_lengths,
    with_default_rel,
)
from .evaluation import load_runs, per_query_values, qrels_to_dict

__all__ = [
    "asl_distribution",
    "log_buckets",
    "map_coverage",
    "map_to_asl_chain",
    "rrie",
    "tie_report",
    "track_summary",
]


def _prov(params: Mapping[str, Any], seed: int | None = None):
    from ..results import make_provenance

    return make_provenance(params=params, seed=seed)


# --------------------------------------------------------------------------------------------
# 2. distribution
# --------------------------------------------------------------------------------------------

def log_buckets(values: np.ndarray, retrieved: np.ndarray) -> pd.Series:
    """Bucket labels: ``"1"``, ``"2-3"``, ``"4-7"``, ... (powers of two), ``"not retrieved"``."""
    v = np.asarray(values, dtype=np.float64)
    b = np.floor(np.log2(np.maximum(v, 1.0))).astype(np.int64)
    lo, hi = 2**b, 2 ** (b + 1) - 1
    lab = np.where(lo == hi, lo.astype(str), np.char.add(np.char.add(lo.astype(str), "-"),
                                                           hi.astype(str)))
    return pd.Series(np.where(retrieved, lab, "not retrieved"), dtype="str")


def _bucket_order(labels) -> list[str]:
    nums = sorted({s for s in labels if s != "not retrieved"}, key=lambda s: int(s.split("-")[0]))
    return nums + (["not retrieved"] if "not retrieved" in set(labels) else [])


def _signed_bucket(d: np.ndarray) -> np.ndarray:
    """Symmetric log2 buckets of deltas: ``0``, ``+1``, ``+2-3``, ..., ``-4-7``."""
    a = np.abs(d)
    b = np.floor(np.log2(np.maximum(a, 1.0))).astype(np.int64)
    lo, hi = 2**b, 2 ** (b + 1) - 1
    mag = np.where(lo == hi, lo.astype(str), np.char.add(np.char.add(lo.astype(str), "-"),
                                                           hi.astype(str)))
    sign = np.where(d > 0, "+", "-")
    return np.where(a < 1, "0", np.char.add(sign, mag))


def asl_distribution(
    qrels: Any, run: Any, other: Any | None = None, *, name: str | None = None,
    other_name: str | None = None, ties: str = DEFAULT_TIES, rel: int = 1,
    unretrieved: str = DEFAULT_UNRETRIEVED, collection_size: int | None = None,
    duplicates: str = DEFAULT_DUPLICATES,
):
    """Histogram of per-document search lengths (and, with ``other``, of per-document deltas).

    Args:
        qrels: qrels path / frame.
        run: the run (path / frame).
        other: optional second run; deltas are ``SL(other) - SL(run)`` per relevant document
            (negative = ``other`` finds the document sooner = a win for ``other``).
        name, other_name: display names.
        ties, rel, unretrieved, collection_size, duplicates: as in
            :func:`ranklens.metrics.evaluate`.

    Returns:
        ``Result`` kind ``"asl-distribution"``: ``table`` = bucket, count, fraction (per
        system); ``tables["per_document"]``; ``tables["deltas"]`` (bucket, count) if ``other``.
    """
    from ..results import Result

    qt = _as_qrels_table(qrels)
    runs = {name or "A": run}
    if other is not None:
        if (other_name or "B") in runs:
            raise ValidationError(f"both runs are named {other_name or 'B'!r}; give name= and "
                                  "other_name= that differ")
        runs[other_name or "B"] = other
    frames, tabs = [], []
    for sys_name, r in runs.items():
        rr = rank_coded(r, qt, ties=ties, duplicates=duplicates,
                        source=str(r) if isinstance(r, (str, os.PathLike)) else sys_name)
        sl = search_lengths(rr, rel=rel, unretrieved=unretrieved, collection_size=collection_size)
        sl.insert(0, "system", sys_name)
        frames.append(sl)
        lab = log_buckets(sl["sl"].to_numpy(), sl["retrieved"].to_numpy())
        counts = lab.value_counts()
        order = _bucket_order(lab.tolist())
        tabs.append(pd.DataFrame({"system": sys_name, "bucket": order,
                                  "count": [int(counts[o]) for o in order]}))
    table = pd.concat(tabs, ignore_index=True)
    table["fraction"] = table["count"] / table.groupby("system")["count"].transform("sum")
    table["system"] = table["system"].astype("str")
    table["bucket"] = table["bucket"].astype("str")
    per_doc = pd.concat(frames, ignore_index=True)
    per_doc["system"] = per_doc["system"].astype("str")
    summary: dict[str, Any] = {}
    for sys_name, f in per_doc.groupby("system", sort=False):
        summary[str(sys_name)] = {
            "relevant": int(len(f)), "not_retrieved": int((~f["retrieved"]).sum()),
            "median_sl_retrieved": float(f.loc[f["retrieved"], "sl"].median())
            if f["retrieved"].any() else None,
        }
    tables = {"per_document": per_doc}
    if other is not None:
        a_name, b_name = list(runs)
        a = per_doc[per_doc["system"] == a_name].set_index([QUERY_ID, "doc_id"])["sl"]
        b = per_doc[per_doc["system"] == b_name].set_index([QUERY_ID, "doc_id"])["sl"]
        j = pd.concat({"a": a, "b": b}, axis=1).dropna()
        d = (j["b"] - j["a"]).to_numpy()
        lab = _signed_bucket(d)
        vc = pd.Series(lab).value_counts()

        def key(s: str) -> float:
            if s == "0":
                return 0.0
            v = float(s[1:].split("-")[0])
            return v if s[0] == "+" else -v

        order = sorted(vc.index, key=key)
        tables["deltas"] = pd.DataFrame({"bucket": pd.array(order, dtype="str"),
                                         "count": [int(vc[o]) for o in order]})
        summary["deltas"] = {"wins_other": int((d < 0).sum()), "losses_other": int((d > 0).sum()),
                             "ties": int((d == 0).sum()), "mean_delta": float(d.mean())
                             if d.size else None}
    return Result(kind="asl-distribution", summary=summary, table=table, tables=tables,
                  provenance=_prov({"ties": ties, "rel": rel, "unretrieved": unretrieved,
                                    "collection_size": collection_size, "duplicates": duplicates,
                                    "buckets": "log2: 1, 2-3, 4-7, ... + not retrieved",
                                    "delta": "SL(other) - SL(run)"}))


# --------------------------------------------------------------------------------------------
# 3. RRIE
# --------------------------------------------------------------------------------------------

def _error(measure: str, value: float) -> float:
    return value - 1.0 if measure.startswith("ASL") else 1.0 - value


def rrie(
    qrels: Any, run_a: Any, run_b: Any, *, name_a: str = "A", name_b: str = "B",
    measures: Sequence[str] = ("P@10", "P@20", "AP", "RR", "ASL", "ASL@g1-1", "ASL@g1-10"),
    ties: str = DEFAULT_TIES, rel: int = 1, unretrieved: str = DEFAULT_UNRETRIEVED,
    collection_size: int | None = None, missing: str = "skip",
    duplicates: str = DEFAULT_DUPLICATES,
):
    """Relative reduction in error of run B over run A (paper eqs. 11-12, Table 1).

    The error of a precision-like measure (best value 1) is ``1 - value``; the error of an ASL
    measure (best value 1: every relevant document first among its non-relevant peers) is
    ``value - 1``. ``RRIE = (err_A - err_B) / err_A``: the fraction of A's error that B removes
    (negative when B is worse).

    Returns:
        ``Result`` kind ``"asl-rrie"``; table: measure, value_a, value_b, error_a, error_b, rrie.
    """
    from ..results import Result
    from .evaluation import evaluate

    if name_a == name_b:
        raise ValidationError(f"both runs are named {name_a!r}; give name_a= and name_b= that "
                              "differ")
    ev = evaluate(qrels, {name_a: run_a, name_b: run_b}, list(measures), ties=ties, rel=rel,
                  unretrieved=unretrieved, collection_size=collection_size, missing=missing,
                  duplicates=duplicates, n_resamples=200)
    t = ev.table.set_index("system")
    rows = []
    for m in [str(c) for c in ev.summary["measures"]]:
        va, vb = float(t.loc[name_a, m]), float(t.loc[name_b, m])
        ea, eb = _error(m, va), _error(m, vb)
        rows.append({"measure": m, "value_a": va, "value_b": vb, "error_a": ea, "error_b": eb,
                     "rrie": (ea - eb) / ea if ea != 0 else np.nan})
    table = pd.DataFrame(rows)
    table["measure"] = table["measure"].astype("str")
    return Result(kind="asl-rrie", summary={"a": name_a, "b": name_b,
                                            **{r["measure"]: r["rrie"] for r in rows}},
                  table=table, tables={"per_query": ev.tables["per_query"]},
                  provenance=_prov({"ties": ties, "rel": rel, "unretrieved": unretrieved,
                                    "missing": missing, "duplicates": duplicates,
                                    "error": "1-v (precision), v-1 (ASL)",
                                    "rrie": "(err_a - err_b) / err_a"}))


# --------------------------------------------------------------------------------------------
# 4. MAP -> ASL chain
# --------------------------------------------------------------------------------------------

def _per_query_chain(rr, qdict, rel, unretrieved, collection_size, missing) -> pd.DataFrame:
    """Per-query values of every chain step for one run (index = query_id), restricted to the
    queries with at least one relevant document at ``rel``."""
    base = ["AP", "P@20", "RR", "ASL", "ASL@g1-10", "ASL@g1-1"]
    pq = per_query_values(rr, qdict, base, rel=rel, unretrieved=unretrieved,
                          collection_size=collection_size, missing=missing)
    # at rel != 1 the standard measures are named e.g. "AP(rel=2)": back to the chain's names
    canon = {str(with_default_rel(parse_measure(m), rel)): m for m in base}
    pq = pq.assign(measure=pq["measure"].map(canon))
    has_rel = set(rr.query_ids[rr.n_relevant(rel) >= 1].tolist())
    pq = pq[pq[QUERY_ID].isin(has_rel)]
    w = pq.pivot(index=QUERY_ID, columns="measure", values="value").reindex(columns=base)
    sl = search_lengths(rr, rel=rel, unretrieved=unretrieved, collection_size=collection_size)
    atp = (1.0 / np.maximum(sl["sl"], 1.0)).groupby(sl[QUERY_ID]).mean()
    w["AtP"] = atp.reindex(w.index)
    w["HMQ"] = 1.0 / w["ASL"]
    return w


def _wins(prec: np.ndarray, p: np.ndarray, min_rel_diff: float, alpha: float) -> np.ndarray:
    """Number of other systems each system is significantly better than.

    ``prec``: aggregate values in precision space (higher is better; ASL-type values enter as
    1/value). System i beats j when ``prec_i > prec_j``, the relative difference
    ``(prec_i - prec_j) / prec_j`` (improvement over the worse system, in precision space) is at
    least ``min_rel_diff``, and the paired test gives ``p_ij <= alpha``. Because the difference
    is always measured in the same space with the same denominator, a step that only rescales
    the values monotonically (e.g. 1/mean ASL_q -> mean ASL_q) cannot change the count.
    """
    a = prec[:, None]
    b = prec[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        rel_diff = (a - b) / b
    better = (a > b) & (rel_diff >= min_rel_diff) & (p <= alpha)
    np.fill_diagonal(better, False)
    return better.sum(axis=1)


_CHAINS: dict[str, list[tuple[str, str, str, bool]]] = {
    # (step label, per-query column, aggregate, higher is better)
    "MAP->ASL": [
        ("MAP", "AP", "mean", True),
        ("atomized precision", "AtP", "mean", True),
        ("harmonic mean within query", "HMQ", "mean", True),
        ("harmonic mean across queries", "ASL", "inv_mean", True),
        ("ASL", "ASL", "mean", False),
    ],
    "P@20->ASL@g1-10": [("P@20", "P@20", "mean", True), ("ASL@g1-10", "ASL@g1-10", "mean", False)],
    "MRR->ASL@g1-1": [("MRR", "RR", "mean", True), ("ASL@g1-1", "ASL@g1-1", "mean", False)],
}


def map_to_asl_chain(
    qrels: Any, runs: Any, *, ties: str = DEFAULT_TIES, rel: int = 1,
    unretrieved: str = DEFAULT_UNRETRIEVED, collection_size: int | None = None,
    missing: str = "skip", duplicates: str = DEFAULT_DUPLICATES, min_rel_diff: float = 0.10,
    alpha: float = 0.05, per_query: Mapping[str, pd.DataFrame] | None = None,
):
    """From MAP to ASL step by step over the systems of a track (paper Table 2).

    Steps: MAP -> atomized precision (mean over relevant documents of 1/SL) -> harmonic mean
    within query (1/ASL_q, averaged over queries) -> harmonic mean across queries
    (1/mean_q ASL_q = 1/ASL) -> ASL; plus P@20 -> ASL@g1-10 and MRR -> ASL@g1-1.

    Query set: every step uses the same queries, those with at least one relevant document at
    ``rel`` (ASL is undefined elsewhere; AP, P@20 and RR would otherwise add zeros for them, e.g.
    at ``rel=2`` for queries without a grade-2 document).

    For each step (old -> new): ``dsort`` = the largest change, over systems, in the number of
    other systems a system is significantly better than. "Better" has one convention for every
    step: the aggregate values are put in precision space (higher is better; ASL-type values as
    1/value), system i beats j when its value is higher, the relative difference
    ``(v_i - v_j) / v_j`` in that space (measured against the worse system) is at least
    ``min_rel_diff``, and a two-tailed paired t-test on the step's per-query values gives
    p <= ``alpha`` (the "across queries" step tests per-query ASL_q). So a step that only
    rescales values monotonically, such as "harmonic mean across queries" -> "ASL", has dSort 0.
    ``kendall_tau`` between the system orderings (scipy.stats.kendalltau, each ordering
    best-first); ``dvalue`` = mean over systems of new/old values in precision space, plus its
    min and max.

    Returns:
        ``Result`` kind ``"asl-chain"``: table = chain, step, from, to, dsort, kendall_tau,
        dvalue_mean/min/max; ``tables["systems"]`` = aggregate value and wins per system/step.
    """
    from scipy import stats as sst

    from ..results import Result
    from ..stats import pairwise_ttest_matrix

    if per_query is None:
        qt = _as_qrels_table(qrels)
        qdict = qrels_to_dict(qt)
        per_query = {}
        for name, run in load_runs(runs).items():
            rr = rank_coded(run, qt, ties=ties, duplicates=duplicates,
                            source=str(run) if isinstance(run, (str, os.PathLike)) else name)
            per_query[name] = _per_query_chain(rr, qdict, rel, unretrieved, collection_size,
                                               missing)
    # one query set for every step: queries with >= 1 relevant document (ASL defined)
    per_query = {s: f[f["ASL"].notna()] for s, f in per_query.items()}
    systems = list(per_query)
    if len(systems) < 2:
        raise ValidationError("the chain compares systems: pass at least two runs")
    sys_rows, step_rows = [], []
    for chain, steps in _CHAINS.items():
        prev = None
        for label, col, agg, higher in steps:
            x = pd.concat({s: per_query[s][col] for s in systems}, axis=1).to_numpy(np.float64)
            # per-query tests; the across-query harmonic mean has no per-query form, so its
            # test uses per-query ASL_q (the values it is the harmonic mean of)
            _, p = pairwise_ttest_matrix(x)
            if agg == "inv_mean":
                value = 1.0 / np.nanmean(x, axis=0)
            else:
                value = np.nanmean(x, axis=0)
            prec_space = value if higher else 1.0 / value
            wins = _wins(prec_space, p, min_rel_diff, alpha)
            for s, v, w, pv in zip(systems, value, wins, prec_space):
                sys_rows.append({"chain": chain, "step": label, "system": s, "value": float(v),
                                 "precision_space": float(pv), "wins": int(w)})
            if prev is not None:
                p_label, p_wins, p_prec = prev
                tau = sst.kendalltau(p_prec, prec_space).statistic
                ratio = prec_space / p_prec
                step_rows.append({
                    "chain": chain, "step": f"{p_label} -> {label}", "from": p_label, "to": label,
                    "dsort": int(np.max(np.abs(wins - p_wins))), "kendall_tau": float(tau),
                    "dvalue_mean": float(np.nanmean(ratio)), "dvalue_min": float(np.nanmin(ratio)),
                    "dvalue_max": float(np.nanmax(ratio)),
                })
            prev = (label, wins, prec_space)
        # whole chain, first -> last
        first = [r for r in sys_rows if r["chain"] == chain and r["step"] == steps[0][0]]
        last = [r for r in sys_rows if r["chain"] == chain and r["step"] == steps[-1][0]]
        fp = np.array([r["precision_space"] for r in first])
        lp = np.array([r["precision_space"] for r in last])
        fw = np.array([r["wins"] for r in first])
        lw = np.array([r["wins"] for r in last])
        step_rows.append({
            "chain": chain, "step": f"{steps[0][0]} -> {steps[-1][0]} (overall)",
            "from": steps[0][0], "to": steps[-1][0], "dsort": int(np.max(np.abs(lw - fw))),
            "kendall_tau": float(sst.kendalltau(fp, lp).statistic),
            "dvalue_mean": float(np.nanmean(lp / fp)), "dvalue_min": float(np.nanmin(lp / fp)),
            "dvalue_max": float(np.nanmax(lp / fp)),
        })
    table = pd.DataFrame(step_rows)
    for c in ("chain", "step", "from", "to"):
        table[c] = table[c].astype("str")
    sys_table = pd.DataFrame(sys_rows)
    for c in ("chain", "step", "system"):
        sys_table[c] = sys_table[c].astype("str")
    summary = {f"{r['chain']}: {r['step']}": {k: r[k] for k in ("dsort", "kendall_tau",
                                                                 "dvalue_mean")}
               for r in step_rows}
    summary["n_systems"] = len(systems)
    summary["n_queries"] = int(len(set().union(*(set(f.index) for f in per_query.values()))))
    return Result(kind="asl-chain", summary=summary, table=table, tables={"systems": sys_table},
                  provenance=_prov({
                      "ties": ties, "rel": rel, "unretrieved": unretrieved, "missing": missing,
                      "duplicates": duplicates, "min_rel_diff": min_rel_diff, "alpha": alpha,
                      "queries": f"queries with >= 1 document of relevance >= {rel}, every step",
                      "better": "higher in precision space (ASL-type values as 1/value) AND "
                                "(v_i - v_j) / v_j >= min_rel_diff in that space (v_j = the "
                                "worse system) AND two-tailed paired t-test p <= alpha",
                      "dsort": "max over systems of |change in #systems significantly beaten|",
                      "dvalue": "new/old in precision space (ASL as 1/ASL)",
                  }))


# --------------------------------------------------------------------------------------------
# 5. how much of the ranking MAP sees
# --------------------------------------------------------------------------------------------

def coverage_kernel(sl_sorted: np.ndarray, ap: float) -> int:
    """Number k of leading relevant documents whose mean SL best matches 1/AP (k >= 1).

    ``sl_sorted``: one query's search lengths in rank order (unretrieved last). SL is
    non-decreasing along that order, so the running mean is too; ties prefer the smaller k.
    """
    if sl_sorted.size == 0:
        return 0
    target = np.inf if ap <= 0 else 1.0 / ap
    cm = np.cumsum(sl_sorted) / np.arange(1, sl_sorted.size + 1)
    if not np.isfinite(target):
        return int(sl_sorted.size)
    return int(np.argmin(np.abs(cm - target)) + 1)


def map_coverage(
    qrels: Any, runs: Any, *, ties: str = DEFAULT_TIES, rel: int = 1,
    unretrieved: str = DEFAULT_UNRETRIEVED, collection_size: int | None = None,
    missing: str = "skip", duplicates: str = DEFAULT_DUPLICATES,
):
    """How much of the ranking MAP "sees" (paper appendix A.1).

    For each query, AP is turned into search-length space (1/AP) and matched against the
    running unweighted mean of the search lengths of the first k relevant documents in rank
    order; the best-matching k over R_q is the fraction of the relevant documents AP
    effectively averages over. Per run: ``coverage`` = sum k / sum R (fraction of relevant
    documents) and ``coverage_query_mean``; the summary averages over the runs of the track.

    Returns:
        ``Result`` kind ``"asl-map-coverage"``; table per run; ``tables["per_query"]``.
    """
    from ..results import Result

    qt = _as_qrels_table(qrels)
    qdict = qrels_to_dict(qt)
    rows, pq_rows = [], []
    for name, run in load_runs(runs).items():
        rr = rank_coded(run, qt, ties=ties, duplicates=duplicates,
                        source=str(run) if isinstance(run, (str, os.PathLike)) else name)
        pq = per_query_values(rr, qdict, ["AP"], rel=rel, missing=missing)
        ap = dict(zip(pq[QUERY_ID], pq["value"]))
        sl = search_lengths(rr, rel=rel, unretrieved=unretrieved, collection_size=collection_size)
        sl = sl[sl[QUERY_ID].isin(ap)]
        # vectorised coverage_kernel over all queries: running mean of the sorted SLs per query,
        # distance to 1/AP, first argmin per query (AP = 0 -> all relevant documents)
        # search_lengths is in rank order (unretrieved last); keep it -- sorting by SL could put an
        # unretrieved document (SL = irrel_q under "paper") before the last retrieved one
        sl = sl.sort_values([QUERY_ID], kind="stable")
        g = sl.groupby(QUERY_ID, sort=False)["sl"]
        k_pos = g.cumcount().to_numpy() + 1
        running = g.cumsum().to_numpy() / k_pos
        apv = sl[QUERY_ID].map(ap).to_numpy(np.float64)
        target = np.where(apv > 0, 1.0 / np.where(apv > 0, apv, 1.0), np.inf)
        dist = np.where(np.isfinite(target), np.abs(running - target), -k_pos.astype(float))
        sl = sl.assign(_d=dist, _k=k_pos)
        best = sl.loc[sl.groupby(QUERY_ID, sort=True)["_d"].idxmin()]
        nrel = g.size()
        per = pd.DataFrame({"system": name, QUERY_ID: best[QUERY_ID].to_numpy(),
                            "ap": best[QUERY_ID].map(ap).to_numpy(np.float64),
                            "relevant": nrel.reindex(best[QUERY_ID]).to_numpy(),
                            "k": best["_k"].to_numpy()})
        per["coverage"] = per["k"] / per["relevant"]
        pq_rows.extend(per.to_dict(orient="records"))
        rows.append({"system": name,
                     "coverage": per["k"].sum() / per["relevant"].sum() if len(per) else np.nan,
                     "coverage_query_mean": float(per["coverage"].mean()) if len(per) else np.nan,
                     "queries": len(per)})
    table = pd.DataFrame(rows)
    table["system"] = table["system"].astype("str")
    per_q = pd.DataFrame(pq_rows)
    return Result(kind="asl-map-coverage",
                  summary={"mean_coverage": float(table["coverage"].mean()),
                           "mean_coverage_query_mean": float(table["coverage_query_mean"].mean()),
                           "n_systems": len(table)},
                  table=table, tables={"per_query": per_q},
                  provenance=_prov({"ties": ties, "rel": rel, "unretrieved": unretrieved,
                                    "duplicates": duplicates,
                                    "match": "argmin_k |mean(SL_1..k) - 1/AP_q|"}))


# --------------------------------------------------------------------------------------------
# 6. track summary
# --------------------------------------------------------------------------------------------

def _discover_tracks(directory: Path) -> dict[str, tuple[Path, Path]]:
    out = {}
    for d in sorted(p for p in directory.iterdir() if p.is_dir() and not p.name.startswith(".")):
        qrels = sorted(f for f in d.iterdir() if f.is_file() and "qrels" in f.name.lower())
        if not qrels:
            continue
        runs_dir = d / "runs"
        if runs_dir.is_dir():
            out[d.name] = (qrels[0], runs_dir)
        else:
            files = [f for f in d.iterdir() if f.is_file() and f not in qrels
                     and not f.name.startswith(".")]
            out[d.name] = (qrels[0], files)
    if not out:
        raise ValidationError(f"{directory}: no track sub-directories (each needs a file with "
                              "'qrels' in its name and a runs/ folder or run files)")
    return out


def track_summary(
    tracks: Any, *, measures: Sequence[str] = ("P@20", "ASL@g1-10", "AP", "ASL"),
    ties: str = DEFAULT_TIES, rel: int = 1, unretrieved: str = DEFAULT_UNRETRIEVED,
    collection_size: int | Mapping[str, int] | None = None, missing: str = "skip",
    duplicates: str = DEFAULT_DUPLICATES,
):
    """Best system per track by each measure, and the spread of each measure (Figs. 1-4).

    Args:
        tracks: a directory of tracks (each sub-directory holds a ``*qrels*`` file and a
            ``runs/`` folder or run files) or a mapping ``{track: (qrels, runs)}``.
        collection_size: N for ``unretrieved="expected"``: one number for every track, or
            ``{track: N}`` (every track needs one).
        ties, rel, unretrieved, missing, duplicates: as in :func:`ranklens.metrics.evaluate`.

    Returns:
        ``Result`` kind ``"asl-tracks"``: table = track, measure, best_system, best_value,
        n_systems, min, median, max; ``tables["systems"]`` = every system's values;
        summary: how often the best systems agree (P@20 vs ASL@g1-10, AP vs ASL).
    """
    from ..results import Result
    from .evaluation import evaluate

    spec = _discover_tracks(Path(tracks)) if isinstance(tracks, (str, os.PathLike)) else tracks
    rows, sys_frames = [], []
    sizes: dict[str, int | None] = {}
    for track in spec:
        if isinstance(collection_size, Mapping):
            if track not in collection_size:
                raise ValidationError(f"collection_size has no entry for track {track!r} (has "
                                      f"{', '.join(map(repr, collection_size)) or 'none'}); give "
                                      "one number for all tracks or one per track")
            sizes[track] = int(collection_size[track])
        else:
            sizes[track] = collection_size
    for track, (qrels, runs) in spec.items():
        ev = evaluate(qrels, runs, list(measures), ties=ties, rel=rel, unretrieved=unretrieved,
                      collection_size=sizes[track], missing=missing, duplicates=duplicates,
                      n_resamples=100)
        t = ev.table
        f = t[["system", *ev.summary["measures"]]].copy()
        f.insert(0, "track", track)
        sys_frames.append(f)
        for m in ev.summary["measures"]:
            best = ev.summary["best"][m]
            col = t[m]
            rows.append({"track": track, "measure": m, "best_system": best["system"],
                         "best_value": best["value"], "n_systems": int(col.notna().sum()),
                         "min": float(col.min()), "median": float(col.median()),
                         "max": float(col.max())})
    table = pd.DataFrame(rows)
    for c in ("track", "measure", "best_system"):
        table[c] = table[c].astype("str")
    systems = pd.concat(sys_frames, ignore_index=True)
    systems["track"] = systems["track"].astype("str")
    names = list(dict.fromkeys(table["measure"]))
    best = table.pivot(index="track", columns="measure", values="best_system")
    summary: dict[str, Any] = {"n_tracks": len(spec)}
    for a, b in (("P@20", "ASL@g1-10"), ("AP", "ASL")):
        if a in names and b in names:
            summary[f"same_best_{a}_vs_{b}"] = int((best[a] == best[b]).sum())
    return Result(kind="asl-tracks", summary=summary, table=table, tables={"systems": systems},
                  provenance=_prov({"measures": names, "ties": ties, "rel": rel,
                                    "unretrieved": unretrieved, "collection_size": sizes,
                                    "missing": missing, "duplicates": duplicates}))


# --------------------------------------------------------------------------------------------
# 7. ties
# --------------------------------------------------------------------------------------------

def tie_report(
    qrels: Any, runs: Any, *, rel: int = 1, unretrieved: str = DEFAULT_UNRETRIEVED,
    collection_size: int | None = None, duplicates: str = DEFAULT_DUPLICATES,
):
    """Score ties per run and how ASL and AP move under each tie rule.

    Returns:
        ``Result`` kind ``"asl-ties"``: table per run with tie counts (float32 and float64),
        ASL and AP means under every rule of :data:`ranklens.types.TIE_RULES`, and the largest
        per-query change of ASL / AP between rules.
    """
    from ..results import Result

    qt = _as_qrels_table(qrels)
    qdict = qrels_to_dict(qt)
    rows = []
    for name, run in load_runs(runs).items():
        row: dict[str, Any] = {"system": name, **count_ties(run)}
        asl_by, ap_by = {}, {}
        for rule in TIE_RULES:
            rr = rank_coded(run, qt, ties=rule, duplicates=duplicates,
                            source=str(run) if isinstance(run, (str, os.PathLike)) else name)
            pq = per_query_values(rr, qdict, ["ASL", "AP"], rel=rel, unretrieved=unretrieved,
                                  collection_size=collection_size)
            w = pq.pivot(index=QUERY_ID, columns="measure", values="value")
            asl_by[rule], ap_by[rule] = w["ASL"], w["AP"]
            row[f"ASL[{rule}]"] = float(w["ASL"].mean())
            row[f"AP[{rule}]"] = float(w["AP"].mean())
        base_asl, base_ap = asl_by[TIE_RULES[0]], ap_by[TIE_RULES[0]]
        row["max_query_change_ASL"] = float(max((asl_by[r] - base_asl).abs().max()
                                                for r in TIE_RULES))
        row["max_query_change_AP"] = float(max((ap_by[r] - base_ap).abs().max()
                                               for r in TIE_RULES))
        rows.append(row)
    table = pd.DataFrame(rows)
    table["system"] = table["system"].astype("str")
    return Result(kind="asl-ties",
                  summary={"runs_with_ties": int((table["tied_rows_float32"] > 0).sum()),
                           "n_runs": len(table), "tie_rules": list(TIE_RULES)},
                  table=table, provenance=_prov({"rel": rel, "unretrieved": unretrieved,
                                                 "duplicates": duplicates,
                                                 "rules": list(TIE_RULES)}))
