"""Tables in the paper's shape, δ sweeps, variance across seeds, and plots of probe results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from ..results import Result, make_provenance
from .run import probe_effects

__all__ = [
    "delta_sweep",
    "format_table",
    "show_samples",
    "paper_table",
    "plot_delta_sweep",
    "plot_diff_distributions",
    "seed_variance",
    "seed_variance_table",
]


def _check(result: Result, kind: str) -> None:
    if result.kind != kind:
        raise ValidationError(f"expected a {kind!r} result, got {result.kind!r}")


def paper_table(result: Result, *, models: Sequence[str] | None = None) -> pd.DataFrame:
    """The probe table in the paper's shape as a frame: one row per probe, columns
    ``probe (dataset)``, one score column per model with a boolean ``<model>_sig`` column after
    it (``p_adjusted < alpha``; score NaN = no samples), and ``n`` (samples; the largest over
    models -- samples are identical across models, see the samples hash)."""
    _check(result, "probes-table")
    t = result.table
    models = list(models) if models is not None else list(dict.fromkeys(t["model"]))
    rows = []
    for probe, grp in t.groupby("probe", sort=False):
        first = grp.iloc[0]
        row: dict[str, Any] = {"probe (dataset)": f"{probe} ({first['dataset']})" if first["dataset"] else str(probe)}
        for m in models:
            g = grp[grp["model"] == m]
            empty = g.empty or int(g["n"].iloc[0]) == 0
            row[m] = float("nan") if empty else float(g["score"].iloc[0])
            row[f"{m}_sig"] = (not empty) and bool(g["significant"].iloc[0])
        row["n"] = int(grp["n"].max())
        row["symmetric"] = bool(first["symmetric"])
        rows.append(row)
    return pd.DataFrame(rows)


def _cell(score: float, sig: bool, symmetric: bool, digits: int = 2) -> str:
    """The paper's cell: a signed score (unsigned for symmetric probes), ``*`` when *not*
    significant, ``-`` without samples."""
    if score != score:
        return "-"
    txt = f"{score:.{digits}f}" if symmetric else f"{score:+.{digits}f}"
    return txt if sig else txt + "*"


def format_table(result: Result, *, fmt: str = "text", models: Sequence[str] | None = None,
                 digits: int = 2) -> str:
    """The probe table as text or markdown: rows = probe (dataset), columns = models, cells =
    score, marked with ``*`` when *not* significant (the paper's convention), last column = number
    of samples. For the paper's Tables 1-3 over one or several results see :func:`paper_tables`.
    """
    if fmt not in ("text", "markdown"):
        raise ValidationError(f"fmt must be 'text' or 'markdown', got {fmt!r}")
    frame = paper_table(result, models=models)
    models = list(models) if models is not None else list(dict.fromkeys(result.table["model"]))
    rows = [[r["probe (dataset)"], *(_cell(r[m], r[f"{m}_sig"], r["symmetric"], digits) for m in models), str(r["n"])]
            for r in frame.to_dict("records")]
    header = ["probe (dataset)", *models, "n"]
    return _render(header, rows, fmt, _legend([result]))


def _legend(results: Sequence[Result], *, joined: bool = False) -> str:
    """Significance convention, δ per model and every non-default parameter of the runs.
    ``joined``: the significance was re-corrected over the joined results
    (:func:`ranklens.probes.paper.joined_correction`)."""
    r0 = results[0]
    alpha = r0.summary.get("alpha", 0.01)
    corr = r0.summary.get("correction", "bonferroni")
    scope = {"table": "each probe family (table)", "all": "all cells"}.get(r0.summary.get("correction_scope", "all"),
                                                                           "all cells")
    if joined:
        scope = (f"every cell of each joined table ({len(results)} results, all their models; re-applied to the raw "
                 "p-values; a transfer cell repeated identically in several results counts once)"
                 if r0.summary.get("correction_scope", "table") == "table" else
                 f"every cell of the {len(results)} joined results (re-applied to the raw p-values)")
    parts = [f"* = not significant (two-sided paired t-test, {corr} correction over {scope}, p < {alpha}); "
             "- = no samples. " + ("Symmetric probes: t-test of |diff| against 0. "
                                   if r0.summary.get("symmetric_test", "abs") == "abs" else "")
             + str(r0.summary.get("sign_convention", ""))]
    for r in results:
        d = r.summary.get("deltas", {})
        cal = r.summary.get("calibration", {})
        ds = ", ".join(f"{m}={v:.4g}" for m, v in d.items())
        how = "; ".join(sorted(set(cal.values())))
        parts.append(f"delta [{r.provenance.params.get('collection') or ''}]: {ds}" + (f" ({how})" if how else ""))
        nondefault = _non_default(r)
        if nondefault:
            parts.append("non-default options: " + ", ".join(f"{k}={v}" for k, v in nondefault.items()))
    return "\n".join(dict.fromkeys(parts))  # results sharing a calibration: its line once


def _non_default(result: Result) -> dict[str, Any]:
    from .declaration import Params

    defaults = Params()
    got = result.provenance.params
    out = {}
    for k in Params.__dataclass_fields__:
        if k in got:
            v = got[k]
            dv = getattr(defaults, k)
            if (list(v) if isinstance(v, (list, tuple)) else v) != (list(dv) if isinstance(dv, tuple) else dv):
                out[k] = v
    return out


def _render(header: list[str], rows: list[list[str]], fmt: str, legend: str) -> str:
    import html

    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
        return "\n".join(lines) + "\n\n" + legend.replace("\n", "  \n") + "\n"
    if fmt == "latex":
        def esc(x: str) -> str:
            for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"), ("#", r"\#"),
                         ("$", r"\$"), ("{", r"\{"), ("}", r"\}")):
                x = x.replace(a, b)
            return x.replace("*", r"$^{*}$")
        body = [" & ".join(esc(c) for c in r) + r" \\" for r in rows]
        return "\n".join([r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}", r"\toprule",
                          " & ".join(esc(h) for h in header) + r" \\", r"\midrule", *body, r"\bottomrule",
                          r"\end{tabular}", "% " + legend.replace("\n", "\n% ")]) + "\n"
    if fmt == "html":
        head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
        return (f"<table class='probe-paper'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
                f"<p class='legend'>{html.escape(legend).replace(chr(10), '<br>')}</p>\n")
    if fmt != "text":
        raise ValidationError(f"format must be text, markdown, latex or html, got {fmt!r}")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(r: list[str]) -> str:
        return "  ".join(str(c).ljust(widths[0]) if i == 0 else str(c).rjust(widths[i]) for i, c in enumerate(r))
    return "\n".join([line(header), "  ".join("-" * w for w in widths), *(line(r) for r in rows)]) + f"\n{legend}\n"


def delta_sweep(result: Result, *, probes: Sequence[str] | None = None,
                percentiles: Sequence[float] = tuple(range(0, 101, 5))) -> Result:
    """Probe score as δ moves through the percentiles (0-100) of each model's calibration
    differences (paper Fig. 2). Needs a ``probes-table`` result whose models were calibrated
    (``tables["calibration"]``).

    Returns:
        ``Result(kind="probes-delta-sweep")`` with table ``probe, model, percentile, delta, score``.
    """
    _check(result, "probes-table")
    cal = result.tables.get("calibration")
    samples = result.tables["samples"]
    if cal is None or cal.empty:
        raise ValidationError("delta sweep needs calibration differences: run the probes with a "
                              "calibrated delta (not an explicit number)")
    sym = dict(zip(result.table["probe"], result.table["symmetric"].astype(bool)))
    names = list(probes) if probes is not None else list(dict.fromkeys(result.table["probe"]))
    rows = []
    for model, cg in cal.groupby("model", sort=False):
        diffs = cg["diff"].to_numpy(np.float64)
        for p in names:
            d = samples[(samples["probe"] == p) & (samples["model"] == model)]["diff"].to_numpy(np.float64)
            if len(d) == 0:
                continue
            for pc in percentiles:
                delta = float(np.percentile(diffs, pc))
                rows.append({"probe": p, "model": model, "percentile": float(pc), "delta": delta,
                             "score": float(probe_effects(d, delta, sym.get(p, False)).mean())})
    table = pd.DataFrame(rows, columns=["probe", "model", "percentile", "delta", "score"])
    prov = make_provenance(params={"percentiles": list(percentiles), "source": "probes-table"},
                           inputs=dict(result.provenance.inputs))
    return Result(kind="probes-delta-sweep", summary={"probes": names, "models": list(cal["model"].unique())},
                  table=table, provenance=prov)


def _checkpoint_table(results: Result | Sequence[Result]) -> pd.DataFrame:
    """The rows of one or several ``probes-table`` results as one table. Checkpoints run one at a
    time land in separate results: a model label may appear in only one of them, and each probe
    must have been scored on the same samples (samples hash) in all of them."""
    rs = [results] if isinstance(results, Result) else list(results)
    if not rs:
        raise ValidationError("seed variance needs at least one probes-table result")
    for r in rs:
        _check(r, "probes-table")
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
    out = _render(["Probes", *(f"{g} Stdev." for g in resolved)], rows, fmt, legend)
    if per_probe:
        names = list(dict.fromkeys(p for pp, _pf in fams.values() for p in pp["probe"]))
        by = {g: dict(zip(pp["probe"], pp["std"])) for g, (pp, _pf) in fams.items()}
        prow = [[p, *(f"{100 * by[g][p]:.1f}" if p in by[g] else "-" for g in resolved)] for p in names]
        out += "\n" + _render(["Probe", *(f"{g} Stdev." for g in resolved)], prow, fmt,
                              "Standard deviation (ddof=1) of each probe's score across the checkpoints, x 100.")
    return out


def plot_delta_sweep(result: Result, ax: Any = None) -> Any:
    """Paper Fig. 2: one panel per probe, score vs δ percentile, one line per model, the median δ
    (the operating point) marked with a dashed line. From a ``probes-delta-sweep`` result
    (:func:`delta_sweep`). Returns the matplotlib ``Figure``."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    _check(result, "probes-delta-sweep")
    probes = list(dict.fromkeys(result.table["probe"]))
    if not probes:
        fig, a = (plt.subplots(figsize=(4, 2)) if ax is None else (ax.figure, ax))
        a.text(0.5, 0.5, "no probe scores to sweep", ha="center", va="center", transform=a.transAxes)
        a.set_axis_off()
        return fig
    cols = min(3, len(probes))
    nrows = -(-len(probes) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(3.6 * cols, 2.8 * nrows), squeeze=False, sharey=True)
    for a, p in zip(axes.flat, probes):
        for m, g in result.table[result.table["probe"] == p].groupby("model", sort=False):
            a.plot(g["percentile"], g["score"], label=str(m))
        a.axvline(50, color="#444444", ls="--", lw=0.8)
        a.axhline(0, color="grey", lw=0.5)
        a.set_title(p, fontsize=9)
        a.set_xlabel("delta percentile", fontsize=8)
        a.set_ylim(-1.05, 1.05)
    for a in list(axes.flat)[len(probes):]:
        a.set_axis_off()
    axes[0][0].set_ylabel("probe score")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_diff_distributions(result: Result, *, probes: Sequence[str] | None = None, ax: Any = None) -> Any:
    """Histograms of ``diff = R(q,d1) - R(q,d2)`` per probe and model (each model's diffs are
    divided by its δ, so ±1 marks the tie band), from a ``probes-table`` result. Returns the
    matplotlib ``Figure`` (one panel per probe)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    _check(result, "probes-table")
    s = result.tables["samples"]
    deltas = result.summary.get("deltas", {})
    names = list(probes) if probes is not None else list(dict.fromkeys(s["probe"]))
    if not names:  # every probe was skipped / had no samples: say so instead of failing
        fig, a = (plt.subplots(figsize=(6, 1.5)) if ax is None else (ax.figure, ax))
        a.text(0.5, 0.5, "no probe samples to plot", ha="center", va="center",
               transform=a.transAxes)
        a.set_axis_off()
        return fig
    if ax is None:  # small multiples, 4 a row, one legend above them (outside the data)
        ncols = min(4, len(names))
        nrows = -(-len(names) // ncols)
        fig, grid = plt.subplots(nrows, ncols, figsize=(2.7 * ncols, 0.4 + 1.9 * nrows), squeeze=False)
        axes = list(grid.flat)
        for a in axes[len(names):]:
            a.set_axis_off()
    else:
        fig, axes = ax.figure, [ax] * len(names)
    for a, p in zip(axes, names):
        for m, g in s[s["probe"] == p].groupby("model", sort=False):
            d = g["diff"].to_numpy(np.float64)
            scale = deltas.get(m) or 1.0
            a.hist(np.clip(d / scale, -10, 10), bins=40, alpha=0.5, label=m)
        a.axvline(-1, color="k", lw=0.5)
        a.axvline(1, color="k", lw=0.5)
        a.set_title(p, fontsize=9)
    handles, labels = axes[0].get_legend_handles_labels()
    if ax is None:
        fig.supxlabel("diff / delta (clipped to ±10); lines: the tie band ±1", fontsize=9)
        fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=max(1, len(labels)),
                   frameon=False, fontsize=9)
    else:
        axes[0].legend(fontsize=9)
        axes[0].set_xlabel("diff / delta (clipped to ±10)")
    fig.tight_layout()
    return fig


def show_samples(result: Result, probe: str, *, n: int = 5, model: str | None = None, width: int = 300) -> str:
    """The first ``n`` samples of ``probe`` with their texts and scores, as text (``ranklens
    probes show``): query, d1 and d2 (cut to ``width`` characters), and per model the two scores,
    the difference and the effect."""
    _check(result, "probes-table")
    texts = result.tables.get("texts")
    if texts is None or texts.empty:
        raise ValidationError("this result has no saved texts (made before texts were saved)")
    t = texts[texts["probe"] == probe]
    if t.empty:
        known = sorted(set(texts["probe"]))
        raise ValidationError(f"no samples of probe {probe!r} in this result; probes: {', '.join(known)}")
    sc = result.tables["samples"]
    sc = sc[sc["probe"] == probe]
    if model is not None:
        sc = sc[sc["model"] == model]

    def cut(x: str) -> str:
        x = " ".join(str(x).split())
        return x if len(x) <= width else x[: width - 3] + "..."
    out = []
    for r in t.head(n).itertuples(index=False):
        out.append(f"## {probe} sample {r.sample_id}")
        out.append(f"query: {cut(r.query)}")
        out.append(f"d1 [{r.doc_1_id}]: {cut(r.text_1)}")
        out.append(f"d2 [{r.doc_2_id}]: {cut(r.text_2)}")
        for s in sc[sc["sample_id"] == r.sample_id].itertuples(index=False):
            out.append(f"  {s.model}: R(q,d1)={s.score_1:.4g} R(q,d2)={s.score_2:.4g} diff={s.diff:+.4g} "
                       f"effect={s.effect:+d}")
    return "\n".join(out) + "\n"


def samples_html(result: Result, *, per_probe: int = 2, width: int = 240) -> str:
    """An escaped HTML fragment for the report: the paper's tables of this result and, per probe,
    the first ``per_probe`` samples with their texts (what each probe did)."""
    import html

    from .paper import paper_tables

    parts = [paper_tables([result], fmt="html")]
    texts = result.tables.get("texts")
    if texts is not None and not texts.empty:
        parts.append("<details><summary>samples with their texts</summary>")
        for probe, g in texts.groupby("probe", sort=False):
            parts.append(f"<h4>{html.escape(str(probe))}</h4><ul>")
            for r in g.head(per_probe).itertuples(index=False):
                def cut(x: str) -> str:
                    x = " ".join(str(x).split())
                    return html.escape(x if len(x) <= width else x[: width - 3] + "...")
                parts.append(f"<li><b>q</b>: {cut(r.query)}<br><b>d1</b>: {cut(r.text_1)}<br>"
                             f"<b>d2</b>: {cut(r.text_2)}</li>")
            parts.append("</ul>")
        parts.append("</details>")
    return "".join(parts)
