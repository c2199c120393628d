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
- :func:`run_groups`: runs labelled by group (``traditional=*bm25*``, ...): Table 1 (best of
  each group, RRIE) and Fig. 6 (best vs median system by ASL) from one call.

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
from ..types import QUERY_ID, TIE_RULES
from .chain import map_coverage, map_to_asl_chain  # noqa: F401  (re-exported)
from .declaration import Params
from .evaluation import per_query_values, qrels_to_dict
from .inputs import _as_qrels_table, load_runs
from .ranking import rank_coded, rank_runs, run_source, tie_totals

__all__ = [
    "TABLE1_MEASURES",
    "asl_distribution",
    "log_buckets",
    "map_coverage",
    "map_to_asl_chain",
    "parse_groups",
    "rrie",
    "run_groups",
    "tie_report",
    "track_summary",
]


DEFAULTS = Params()

#: The rows of the paper's Table 1 (P@20, ASL@g1-10, MAP, ASL): the measures of RRIE, the run
#: groups and the track summary (not the evaluation table's ``Params.measures``).
TABLE1_MEASURES: tuple[str, ...] = ("P@20", "ASL@g1-10", "AP", "ASL")


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


def _deltas(per_doc: pd.DataFrame, a_name: str, b_name: str) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Per-document SL(b) - SL(a) as signed log2 buckets, and wins/losses/ties of b."""
    a = per_doc[per_doc["model"] == a_name].set_index([QUERY_ID, "doc_id"])["sl"]
    b = per_doc[per_doc["model"] == b_name].set_index([QUERY_ID, "doc_id"])["sl"]
    j = pd.concat({"a": a, "b": b}, axis=1).dropna()
    d = (j["b"] - j["a"]).to_numpy()
    vc = pd.Series(_signed_bucket(d)).value_counts()

    def key(s: str) -> float:
        if s == "0":
            return 0.0
        v = float(s[1:].split("-")[0])
        return v if s[0] == "+" else -v

    order = sorted(vc.index, key=key)
    table = pd.DataFrame({"bucket": pd.array(order, dtype="str"), "count": [int(vc[o]) for o in order]})
    return table, {"wins_other": int((d < 0).sum()), "losses_other": int((d > 0).sum()),
                   "ties": int((d == 0).sum()), "mean_delta": float(d.mean()) if d.size else None}


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
    other_name: str | None = None, ties: str = DEFAULTS.ties, rel: int = DEFAULTS.rel,
    unretrieved: str = DEFAULTS.unretrieved, collection_size: int | None = DEFAULTS.collection_size,
    missing: str = DEFAULTS.missing, duplicates: str = DEFAULTS.duplicates, depth: int | None = DEFAULTS.depth,
    grades: Any = DEFAULTS.grades,
):
    """Histogram of per-document search lengths (and, with ``other``, of per-document deltas).

    Args:
        qrels: qrels path / frame.
        run: the run (path / frame, or ranked by :func:`ranklens.asl.ranking.rank_runs` under
            this call's conventions).
        other: optional second run; deltas are ``SL(other) - SL(run)`` per relevant document
            (negative = ``other`` finds the document sooner = a win for ``other``).
        name, other_name: display names.
        ties, rel, unretrieved, collection_size, duplicates: as in
            :func:`ranklens.asl.evaluate`.
        missing: judged queries a run does not answer, as in :func:`ranklens.asl.evaluate`:
            ``"skip"`` (default) leaves them out of that run's histogram and out of the deltas
            (a document counts in the deltas only when both runs answer its query);
            ``"zero"`` gives their relevant documents the worst-case SL (unretrieved behind the
            run's depth of non-relevant documents, whose mean is evaluate's worst-case ASL_q:
            never a win); ``"error"`` raises. Left-out or worst-cased queries are warned.
        depth, grades: as in :func:`ranklens.asl.evaluate`: every run cut to its top ``depth``
            documents per query and the qrels grades mapped first, exactly as the evaluation
            table, RRIE and the chain see them.

    Returns:
        ``Result`` kind ``"asl-distribution"``: ``table`` = bucket, count, fraction (per
        system); ``tables["per_document"]``; ``tables["deltas"]`` (bucket, count) if ``other``.
    """
    from ..results import Result
    from .evaluation import missing_warning, per_document_values

    runs = {name or "A": run}
    if other is not None:
        if (other_name or "B") in runs:
            raise ValidationError(f"both runs are named {other_name or 'B'!r}; give name= and "
                                  "other_name= that differ")
        runs[other_name or "B"] = other
    frames, tabs, warns = [], [], []
    for sys_name, rr in rank_runs(qrels, runs, ties=ties, duplicates=duplicates, depth=depth, grades=grades).items():
        sl, absent = per_document_values(rr, rel=rel, unretrieved=unretrieved,
                                         collection_size=collection_size, missing=missing)
        if absent:
            warns.append(missing_warning(sys_name, absent, missing,
                                         "its histogram and the deltas" if other is not None else "its histogram"))
        sl.insert(0, "model", sys_name)
        frames.append(sl)
        lab = log_buckets(sl["sl"].to_numpy(), sl["retrieved"].to_numpy())
        counts = lab.value_counts()
        order = _bucket_order(lab.tolist())
        tabs.append(pd.DataFrame({"model": sys_name, "bucket": order,
                                  "count": [int(counts[o]) for o in order]}))
    table = pd.concat(tabs, ignore_index=True)
    table["fraction"] = table["count"] / table.groupby("model")["count"].transform("sum")
    table["model"] = table["model"].astype("str")
    table["bucket"] = table["bucket"].astype("str")
    per_doc = pd.concat(frames, ignore_index=True)
    per_doc["model"] = per_doc["model"].astype("str")
    summary: dict[str, Any] = {}
    for sys_name, f in per_doc.groupby("model", sort=False):
        summary[str(sys_name)] = {
            "relevant": int(len(f)), "not_retrieved": int((~f["retrieved"]).sum()),
            "median_sl_retrieved": float(f.loc[f["retrieved"], "sl"].median())
            if f["retrieved"].any() else None,
        }
    tables = {"per_document": per_doc}
    if other is not None:
        a_name, b_name = list(runs)
        tables["deltas"], summary["deltas"] = _deltas(per_doc, a_name, b_name)
    return Result(kind="asl-distribution", summary=summary, table=table, tables=tables,
                  warnings=tuple(warns),
                  provenance=_prov({"ties": ties, "rel": rel, "unretrieved": unretrieved,
                                    "collection_size": collection_size, "missing": missing,
                                    "duplicates": duplicates, "depth": depth, "grades": str(grades or None),
                                    "buckets": "log2: 1, 2-3, 4-7, ... + not retrieved",
                                    "delta": "SL(other) - SL(run), documents of queries both runs "
                                             "answer (missing='skip') or all (missing='zero')"}))


# --------------------------------------------------------------------------------------------
# 3. RRIE
# --------------------------------------------------------------------------------------------

def _error(measure: str, value: float) -> float:
    return value - 1.0 if measure.startswith("ASL") else 1.0 - value


def rrie(
    qrels: Any, run_a: Any, run_b: Any, *, name_a: str = "A", name_b: str = "B",
    table_measures: Sequence[str] = TABLE1_MEASURES, ties: str = DEFAULTS.ties, rel: int = DEFAULTS.rel,
    unretrieved: str = DEFAULTS.unretrieved, collection_size: int | None = DEFAULTS.collection_size,
    missing: str = DEFAULTS.missing, duplicates: str = DEFAULTS.duplicates, depth: int | None = DEFAULTS.depth,
    grades: Any = DEFAULTS.grades,
):
    """Relative reduction in error of run B over run A (paper eqs. 11-12, Table 1; the default
    ``table_measures`` are Table 1's rows: P@20, ASL@g1-10, MAP, ASL, :data:`TABLE1_MEASURES`).

    The error of a precision-like measure (best value 1) is ``1 - value``; the error of an ASL
    measure (best value 1: every relevant document first among its non-relevant peers) is
    ``value - 1``. ``RRIE = (err_A - err_B) / err_A``: the fraction of A's error that B removes
    (negative when B is worse).

    Returns:
        ``Result`` kind ``"asl-rrie"``; table: model (B), other_model (A), measure, value_a,
        value_b, error_a, error_b, rrie.
    """
    from ..results import Result
    from .evaluation import evaluate

    if name_a == name_b:
        raise ValidationError(f"both runs are named {name_a!r}; give name_a= and name_b= that "
                              "differ")
    ev = evaluate(qrels, {name_a: run_a, name_b: run_b}, list(table_measures), ties=ties, rel=rel,
                  unretrieved=unretrieved, collection_size=collection_size, missing=missing,
                  duplicates=duplicates, n_resamples=200, depth=depth, grades=grades)
    t = ev.table.set_index("model")
    rows = []
    for m in [str(c) for c in ev.summary["measures"]]:
        va, vb = float(t.loc[name_a, m]), float(t.loc[name_b, m])
        ea, eb = _error(m, va), _error(m, vb)
        rows.append({"model": name_b, "other_model": name_a, "measure": m, "value_a": va, "value_b": vb, "error_a": ea, "error_b": eb,
                     "rrie": (ea - eb) / ea if ea != 0 else np.nan})
    table = pd.DataFrame(rows)
    for c in ("model", "other_model", "measure"):
        table[c] = table[c].astype("str")
    return Result(kind="asl-rrie", summary={"a": name_a, "b": name_b,
                                            **{r["measure"]: r["rrie"] for r in rows}},
                  table=table, tables={"per_query": ev.tables["per_query"]}, warnings=ev.warnings,
                  provenance=_prov({"ties": ties, "rel": rel, "unretrieved": unretrieved,
                                    "missing": missing, "duplicates": duplicates, "depth": depth,
                                    "grades": str(grades or None),
                                    "error": "1-v (precision), v-1 (ASL)",
                                    "rrie": "(err_a - err_b) / err_a"}))


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


def _track_sizes(spec: Mapping[str, Any], collection_size: Any) -> dict[str, int | None]:
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
    return sizes


def track_specs(tracks: Any) -> dict[str, tuple[Any, Any]]:
    """A directory of tracks or a mapping ``{track: (qrels, runs)}`` -> the mapping."""
    return _discover_tracks(Path(tracks)) if isinstance(tracks, (str, os.PathLike)) else dict(tracks)


def track_summary(
    tracks: Any, *, table_measures: Sequence[str] = TABLE1_MEASURES,
    ties: str = DEFAULTS.ties, rel: int = DEFAULTS.rel, unretrieved: str = DEFAULTS.unretrieved,
    collection_size: int | Mapping[str, int] | None = DEFAULTS.collection_size, missing: str = DEFAULTS.missing,
    duplicates: str = DEFAULTS.duplicates, depth: int | None = DEFAULTS.depth, grades: Any = DEFAULTS.grades,
):
    """Best system per track by each measure, and the spread of each measure (Figs. 1-4 are
    histograms over tracks of each track's best system: :func:`~ranklens.asl.plots.plot_tracks`).

    Args:
        tracks: a directory of tracks (each sub-directory holds a ``*qrels*`` file and a
            ``runs/`` folder or run files) or a mapping ``{track: (qrels, runs)}``.
        table_measures: the measures compared (default: Table 1's, :data:`TABLE1_MEASURES`).
        collection_size: N for ``unretrieved="expected"``: one number for every track, or
            ``{track: N}`` (every track needs one).
        ties, rel, unretrieved, missing, duplicates, depth, grades: as in
            :func:`ranklens.asl.evaluate` (``depth`` cuts every run to a common depth).

    Returns:
        ``Result`` kind ``"asl-tracks"``: table = track, measure, best_model, best_value,
        best_depth (the best run's median documents per query), n_models, min, median, max;
        ``tables["systems"]`` = every model's values and depth; summary: how often the best
        systems agree (P@20 vs ASL@g1-10, AP vs ASL). Depth warnings are kept per track.
    """
    from ..results import Result
    from .evaluation import evaluate

    spec = track_specs(tracks)
    sizes = _track_sizes(spec, collection_size)
    rows, sys_frames, warns = [], [], []
    for track, (qrels, runs) in spec.items():
        ev = evaluate(qrels, runs, list(table_measures), ties=ties, rel=rel, unretrieved=unretrieved,
                      collection_size=sizes[track], missing=missing, duplicates=duplicates,
                      n_resamples=100, depth=depth, grades=grades)
        warns.extend(f"{track}: {w}" for w in ev.warnings)
        t = ev.table
        f = t[["model", *ev.summary["measures"], "depth_median", "recall_at_depth"]].copy()
        f.insert(0, "track", track)
        sys_frames.append(f)
        depth_of = dict(zip(t["model"], t["depth_median"]))
        for m in ev.summary["measures"]:
            best = ev.summary["best"][m]
            col = t[m]
            rows.append({"track": track, "measure": m, "best_model": best["model"],
                         "best_value": best["value"], "best_depth": depth_of.get(best["model"]),
                         "n_models": int(col.notna().sum()), "min": float(col.min()),
                         "median": float(col.median()), "max": float(col.max())})
    table = pd.DataFrame(rows)
    for c in ("track", "measure", "best_model"):
        table[c] = table[c].astype("str")
    systems = pd.concat(sys_frames, ignore_index=True)
    systems["track"] = systems["track"].astype("str")
    names = list(dict.fromkeys(table["measure"]))
    best = table.pivot(index="track", columns="measure", values="best_model")
    summary: dict[str, Any] = {"n_tracks": len(spec), "unretrieved": unretrieved, "depth": depth}
    for a, b in (("P@20", "ASL@g1-10"), ("AP", "ASL")):
        if a in names and b in names:
            summary[f"same_best_{a}_vs_{b}"] = int((best[a] == best[b]).sum())
    return Result(kind="asl-tracks", summary=summary, table=table, tables={"systems": systems},
                  warnings=tuple(warns),
                  provenance=_prov({"measures": names, "ties": ties, "rel": rel,
                                    "unretrieved": unretrieved, "collection_size": sizes,
                                    "missing": missing, "duplicates": duplicates, "depth": depth,
                                    "grades": str(grades or None)}))


def tracks_report(tracks: Any, *, chain_options: Mapping[str, Any] | None = None, **conv: Any) -> list[Any]:
    """Every track's summary (Figs. 1-4), and the paper's Table 2 across the tracks: the MAP ->
    ASL chain (ΔSort, τ, ΔValue) and MAP coverage of each track, as mean ± sd over tracks.

    ``conv``: ties, rel, unretrieved, collection_size, missing, duplicates, depth, grades.
    ``chain_options``: min_rel_diff, alpha, better_space, tau_digits. Tracks with fewer than two
    runs have no chain (warned).
    """
    from .chain import across_tracks, map_coverage, map_to_asl_chain

    ranking = {k: conv[k] for k in ("ties", "duplicates", "depth", "grades") if k in conv}
    spec = {track: (qrels, rank_runs(qrels, runs, **ranking))  # each track ranked once, handed on ranked
            for track, (qrels, runs) in track_specs(tracks).items()}
    sizes = _track_sizes(spec, conv.get("collection_size"))
    summary = track_summary(spec, **conv)
    chains, coverages, warns = {}, {}, []
    for track, (qrels, runs) in spec.items():
        kw = {**conv, "collection_size": sizes[track]}
        if len(runs) < 2:
            warns.append(f"{track}: fewer than two runs, no chain")
            continue
        chains[track] = map_to_asl_chain(qrels, runs, **kw, **dict(chain_options or {}))
        cov_kw = {k: v for k, v in kw.items() if k in ("ties", "rel", "missing", "duplicates", "depth", "grades")}
        coverages[track] = map_coverage(qrels, runs, **cov_kw)
        warns.extend(f"{track}: {w}" for w in coverages[track].warnings)
    if not chains:
        return [summary.with_warnings(*warns)]
    return [summary, across_tracks(chains, coverages).with_warnings(*warns)]


# --------------------------------------------------------------------------------------------
# 7. ties
# --------------------------------------------------------------------------------------------

def tie_report(
    qrels: Any, runs: Any, *, rel: int = DEFAULTS.rel, unretrieved: str = DEFAULTS.unretrieved,
    collection_size: int | None = DEFAULTS.collection_size, duplicates: str = DEFAULTS.duplicates,
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
        row: dict[str, Any] = {"model": name, **tie_totals(run)}
        asl_by, ap_by = {}, {}
        for rule in TIE_RULES:
            rr = rank_coded(run, qt, ties=rule, duplicates=duplicates, source=run_source(name, run))
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
    table["model"] = table["model"].astype("str")
    return Result(kind="asl-ties",
                  summary={"runs_with_ties": int((table["tied_rows_float32"] > 0).sum()),
                           "n_runs": len(table), "tie_rules": list(TIE_RULES)},
                  table=table, provenance=_prov({"rel": rel, "unretrieved": unretrieved,
                                                 "duplicates": duplicates,
                                                 "rules": list(TIE_RULES)}))


# --------------------------------------------------------------------------------------------
# 8. run groups: Table 1 (best of each group, RRIE) and Fig. 6 (best vs median system)
# --------------------------------------------------------------------------------------------

def parse_groups(groups: Any, names: Sequence[str]) -> dict[str, str]:
    """Run name -> group.

    Args:
        groups: ``{group: GLOB or [GLOB, ...]}`` (``fnmatch`` on run names, first group that
            matches wins), ``["traditional=*bm25*", ...]`` (the CLI's ``--group``), or a path
            to a TSV of ``run<TAB>group`` lines.
        names: the run names.

    Raises:
        ValidationError: a TSV line without two fields, or a group that matches no run.
    """
    import fnmatch

    if isinstance(groups, (str, os.PathLike)) and Path(groups).is_file():
        out: dict[str, str] = {}
        for i, line in enumerate(Path(groups).read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 2:
                raise ValidationError(f"{groups}:{i}: expected 'run<TAB>group', got {line!r}")
            out[parts[0].strip()] = parts[1].strip()
        return {n: out[n] for n in names if n in out}
    if isinstance(groups, (str, os.PathLike)):
        groups = [groups]
    if not isinstance(groups, Mapping):
        pairs: dict[str, list[str]] = {}
        for item in groups:
            g, sep, pat = str(item).partition("=")
            if not sep or not g or not pat:
                raise ValidationError(f"group {item!r}: give NAME=GLOB (e.g. traditional='*bm25*') or "
                                      "a TSV file of run<TAB>group lines")
            pairs.setdefault(g, []).append(pat)
        groups = pairs
    out = {}
    for g, pats in groups.items():
        pats = [pats] if isinstance(pats, str) else list(pats)
        hit = [n for n in names if n not in out and any(fnmatch.fnmatchcase(n, p) for p in pats)]
        if not hit:
            raise ValidationError(f"group {g!r} ({', '.join(pats)}) matches no run; runs: "
                                  f"{', '.join(list(names)[:8])}" + (" ..." if len(names) > 8 else ""))
        out.update(dict.fromkeys(hit, g))
    return out


def run_groups(
    qrels: Any, runs: Any, groups: Any, *, table_measures: Sequence[str] = TABLE1_MEASURES,
    ties: str = DEFAULTS.ties, rel: int = DEFAULTS.rel,
    unretrieved: str = DEFAULTS.unretrieved, collection_size: int | None = DEFAULTS.collection_size,
    missing: str = DEFAULTS.missing, duplicates: str = DEFAULTS.duplicates, depth: int | None = DEFAULTS.depth,
    grades: Any = DEFAULTS.grades,
) -> list[Any]:
    """The paper's Table 1 and Fig. 6 from one call: runs labelled by group (e.g. traditional vs
    neural), per measure the best run of each group and the RRIE (eqs. 11-12) of the best run
    of every other group over the best of the first group; and the per-document wins/losses of
    the best system against the median system, both as ranked by ASL (Fig. 6).

    Returns:
        ``[Result "asl-groups", Result "asl-distribution"]``. The groups table: measure, group,
        best_model, value, baseline_group, rrie (NaN for the first group); ``summary["groups"]``
        maps each run to its group. The distribution compares the median system (A) with the
        best (B): negative deltas are wins for the best. The median system of n runs ranked by
        ASL is the one at position n // 2 (0-based, best first).
    """
    from ..results import Result
    from .evaluation import evaluate

    run_map = rank_runs(qrels, runs, ties=ties, duplicates=duplicates, depth=depth, grades=grades)  # ranked once
    label = parse_groups(groups, list(run_map))
    order = list(dict.fromkeys(label.values()))
    if len(order) < 2:
        raise ValidationError(f"run groups need at least two groups; got {order}")
    conv = {"ties": ties, "rel": rel, "unretrieved": unretrieved, "collection_size": collection_size,
            "missing": missing, "duplicates": duplicates, "depth": depth, "grades": grades or None}
    ev = evaluate(qrels, run_map, list(table_measures), **conv)
    t = ev.table.set_index("model")
    rows = []
    for m in ev.summary["measures"]:
        best = {}
        for g in order:
            col = t.loc[[n for n in run_map if label.get(n) == g], m].dropna()
            if col.empty:
                continue
            best[g] = col.idxmin() if m.startswith("ASL") else col.idxmax()
        base = order[0]
        for g, name in best.items():
            v, vb = float(t.loc[name, m]), float(t.loc[best[base], m]) if base in best else np.nan
            ea, eb = _error(m, vb), _error(m, v)
            rows.append({"measure": m, "group": g, "best_model": name, "value": v,
                         "baseline_group": base, "rrie": (ea - eb) / ea if g != base and ea else np.nan})
    table = pd.DataFrame(rows)
    for c in ("measure", "group", "best_model", "baseline_group"):
        table[c] = table[c].astype("str")
    asl_name = next((m for m in ev.summary["measures"] if m == "ASL"), None) or "ASL"
    ranked_runs = list(evaluate(qrels, run_map, [asl_name], **conv).table["model"]) \
        if asl_name not in ev.summary["measures"] else list(ev.table.sort_values(asl_name, kind="stable")["model"])
    best_name, median_name = ranked_runs[0], ranked_runs[len(ranked_runs) // 2]
    fig6 = asl_distribution(qrels, run_map[median_name], run_map[best_name], name=median_name,
                            other_name=best_name, **conv) if best_name != median_name else None
    res = Result(kind="asl-groups", summary={"groups": label, "group_order": order,
                                             "best_by_asl": best_name, "median_by_asl": median_name},
                 table=table, tables={"per_run": ev.table}, warnings=ev.warnings,
                 provenance=_prov({**{k: str(v) for k, v in conv.items()}, "measures": list(table_measures),
                                   "groups": str(groups), "rrie": "(err_base - err_group) / err_base",
                                   "median system": "position n // 2 by ASL, best first"}))
    return [res] if fig6 is None else [res, fig6]
