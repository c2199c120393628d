"""Variance of probe scores across the checkpoints (training seeds) of one model: the paper's
Table 4 (:func:`seed_variance`, :func:`seed_variance_table`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import ValidationError
from ..results import Result
from .paper import render_table
from .run import check_kind

__all__ = ["PROBE_TYPES", "seed_variance", "seed_variance_table"]


def _checkpoint_table(results: Result | Sequence[Result]) -> pd.DataFrame:
    """The rows of one or several ``probes-table`` results as one table. Checkpoints run one at a
    time land in separate results: a model label may appear in only one of them, and each probe
    must have been scored on the same samples (samples hash) in all of them."""
    rs = [results] if isinstance(results, Result) else list(results)
    if not rs:
        raise ValidationError("seed variance needs at least one probes-table result")
    for r in rs:
        check_kind(r, "probes-table")
    seen: dict[str, int] = {}
    for i, r in enumerate(rs):
        for m in dict.fromkeys(r.table["model"]):
            if m in seen:
                raise ValidationError(f"model {m!r} is in results {seen[m] + 1} and {i + 1}; give each checkpoint "
                                      "one label (ranklens probes --model LABEL=SPEC)")
            seen[m] = i
    t = pd.concat([r.table for r in rs], ignore_index=True)
    scored = t[t["n"] > 0]
    hashes = scored.groupby("probe")["samples_hash"].nunique()
    differ = sorted(hashes[hashes > 1].index)
    if differ:
        raise ValidationError(f"probes scored on different samples in different results: {', '.join(differ)}; "
                              "run every checkpoint with the same collection, probe options and --seed")
    return t


def _checkpoint_groups(models: Sequence[str] | Mapping[str, Sequence[str]], labels: Sequence[str],
                       ) -> dict[str, list[str]]:
    """``{group: [checkpoint labels]}``; a label may be a glob pattern (``vbert-seed*``)."""
    import fnmatch

    groups = dict(models) if isinstance(models, Mapping) else {"model": list(models)}
    out = {}
    for g, pats in groups.items():
        got: list[str] = []
        for pat in pats:
            hit = [m for m in labels if fnmatch.fnmatchcase(m, pat)] if any(c in pat for c in "*?[") else (
                [pat] if pat in labels else [])
            if not hit:
                raise ValidationError(f"checkpoint {pat!r} of {g!r} is not a model of the result(s); models: "
                                      f"{', '.join(labels)}")
            got.extend(m for m in hit if m not in got)
        if len(got) < 2:
            raise ValidationError(f"seed variance of {g!r} needs at least two checkpoints (models), got {got}")
        out[str(g)] = got
    return out


def seed_variance(result: Result | Sequence[Result], models: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Variance across training seeds (paper Table 4): ``models`` are checkpoints of one model,
    in one ``probes-table`` result or spread over several (one run per checkpoint; the probes'
    samples must be identical, see :func:`seed_variance_table`).

    Returns:
        ``(per_probe, per_family)``: the variance and standard deviation (ddof=1) of each probe's
        score across the checkpoints, and per probe family the paper's "average standard
        deviation (square root of average variance)": ``sqrt(mean(variance))`` (column ``std``),
        with ``probes`` (how many probes it averages). Probes that some checkpoint has no score
        for (no samples, skipped) are left out of both.
    """
    t = _checkpoint_table(result)
    models = _checkpoint_groups(list(models), list(dict.fromkeys(t["model"])))["model"]
    t = t[t["model"].isin(models)]
    wide = t.pivot_table(index=["probe", "family"], columns="model", values="score", dropna=False, sort=False)
    wide = wide.reindex(columns=models).dropna(axis=0, how="any")
    var = wide.var(axis=1, ddof=1)
    per_probe = pd.DataFrame({"variance": var, "std": np.sqrt(var)}).reset_index()
    fam = per_probe.groupby("family", as_index=False, sort=False).agg(variance=("variance", "mean"),
                                                                      probes=("variance", "size"))
    fam["std"] = np.sqrt(fam["variance"])
    return per_probe, fam[["family", "std", "variance", "probes"]]


#: probe family -> the paper's name of the probe type (Table 4)
PROBE_TYPES = {"measure-match": "MMP", "manipulation": "TMP", "transfer": "DTP"}


def seed_variance_table(results: Result | Sequence[Result], groups: Mapping[str, Sequence[str]], *,
                        fmt: str = "text", per_probe: bool = False) -> str:
    """The paper's Table 4: per probe type (MMP, TMP, DTP) and model, the average standard
    deviation (square root of the mean variance, ddof=1) of the probe scores across the model's
    checkpoints, in points (x 100, as the paper). ``groups``: ``{model: [checkpoint labels or
    glob patterns]}``, e.g. ``{"VBERT": ["vbert-s*"], "EPIC": ["epic-s*"]}``. With ``per_probe``
    a second table gives each probe's standard deviation."""
    t = _checkpoint_table(results)
    rs = [results] if isinstance(results, Result) else list(results)
    resolved = _checkpoint_groups(groups, list(dict.fromkeys(t["model"])))
    fams = {g: seed_variance(rs, ms) for g, ms in resolved.items()}
    order = [f for f in PROBE_TYPES if any(f in set(pf["family"]) for _p, pf in fams.values())]
    order += sorted({f for _p, pf in fams.values() for f in pf["family"]} - set(order))
    rows = []
    for f in order:
        row = [PROBE_TYPES.get(f, f)]
        for _pp, pf in fams.values():
            hit = pf[pf["family"] == f]
            row.append("-" if hit.empty else f"{100 * float(hit['std'].iloc[0]):.1f}")
        rows.append(row)
    legend = ("Average standard deviations (square root of the mean variance, ddof=1) of the probe scores across "
              "checkpoints, x 100, by probe type (paper Table 4). Checkpoints: "
              + "; ".join(f"{g} = {', '.join(ms)}" for g, ms in resolved.items())
              + ". Probes averaged: " + "; ".join(
                  f"{g} " + ", ".join(f"{PROBE_TYPES.get(r.family, r.family)} {r.probes}" for r in pf.itertuples())
                  for g, (_pp, pf) in fams.items()) + ".")
    left = sorted(set(t.loc[t["model"].isin([m for ms in resolved.values() for m in ms]), "probe"])
                  - {p for pp, _pf in fams.values() for p in pp["probe"]})
    if left:
        legend += f" Left out (no score for some checkpoint): {', '.join(left)}."
    out = render_table(["Probes", *(f"{g} Stdev." for g in resolved)], rows, fmt, legend)
    if per_probe:
        names = list(dict.fromkeys(p for pp, _pf in fams.values() for p in pp["probe"]))
        by = {g: dict(zip(pp["probe"], pp["std"])) for g, (pp, _pf) in fams.items()}
        prow = [[p, *(f"{100 * by[g][p]:.1f}" if p in by[g] else "-" for g in resolved)] for p in names]
        out += "\n" + render_table(["Probe", *(f"{g} Stdev." for g in resolved)], prow, fmt,
                              "Standard deviation (ddof=1) of each probe's score across the checkpoints, x 100.")
    return out
