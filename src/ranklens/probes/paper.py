"""Probe results as tables: one result's table in the paper's shape (:func:`paper_table`,
:func:`format_table`) and the paper's Tables 1-3 (ABNIRML) from one or several ``probes-table``
results, e.g. Cranfield and DL19 passages side by side, in text, Markdown, LaTeX or HTML
(:func:`paper_tables`; :func:`render_table` renders any such table).

* Table 1, measure-and-match: rows grouped by variable then control, one block per dataset;
* Table 2, textual manipulation: one row per manipulation and dataset;
* Table 3, dataset transfer: one row per probe.

Cells follow the paper: signed scores (the paraphrase probe unsigned). ``*`` marks a
*significant* score, as everywhere in ranklens (the headline, LaTeX tables): one convention in one
report, where the paper marks the non-significant cells instead (the legend says so); a legend states the test, the correction, each model's δ and how it was
calibrated, and every non-default parameter of the runs.

The paper applies "a Bonferroni correction over each table" (§3.4). Each result is corrected
within itself (:func:`ranklens.probes.run_probes`); when several results (datasets) are joined into
one table, the correction is re-applied to the raw p-values over every cell of the joined table
(:func:`joined_correction`), so a table of two datasets corrects over the tests of both.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ValidationError
from ..results import Result
from .run import check_kind
from .transfer import PAPER_SAMPLES

__all__ = ["TABLES", "format_table", "joined_correction", "paper_table", "paper_tables", "render_table"]

_MM_NAMES = {"rel": "Relevance", "len": "Length", "tf": "TF", "overlap": "Overlap"}
_MM_ORDER = ("rel", "len", "tf", "overlap")
_TMP = [("tr-del-stops-punct", "Rem. Stops/Punct"), ("tr-lemmatize", "Lemmatize"),
        ("tr-shuffle-words", "Shuf. Words"), ("tr-shuffle-sents", "Shuf. Sents."),
        ("tr-shuffle-preps", "Shuf. Prepositions"), ("tr-typo", "Typos"), ("tr-doc2query", "+ DocT5Query"),
        ("tr-add-nonrel-sent", "+ Non-Rel Sent.")]
_DTP = [("ds-paraphrase-mrpc", "Paraphrase", "MSPC"), ("ds-fluency-jfleg", "Fluency", "JFLEG"),
        ("ds-fluency-jfleg-spell", "", "(spellchecked)"), ("ds-formality-gyafc", "Formality", "GYAFC"),
        ("ds-simplicity-turk", "Simplicity", "WikiTurk"), ("ds-neutrality-wnc", "Neutrality", "WNC"),
        ("ds-succinct-xsum", "Succinctness", "XSum"), ("ds-succinct-cnndm", "", "CNN/DM"),
        ("ds-factuality-nq", "Factuality", "NQ: all"), ("ds-factuality-nq-per", "", "NQ: PER"),
        ("ds-factuality-nq-gpe", "", "NQ: GPE"), ("ds-factuality-nq-loc", "", "NQ: LOC"),
        ("ds-factuality-nq-norp", "", "NQ: NORP"), ("ds-factuality-nq-org", "", "NQ: ORG")]

#: table number -> (title, probe family)
TABLES = {1: ("Table 1: measure-and-match probes", "measure-match"),
          2: ("Table 2: textual manipulation probes", "manipulation"),
          3: ("Table 3: dataset transfer probes", "transfer")}


def paper_table(result: Result, *, models: Sequence[str] | None = None) -> pd.DataFrame:
    """The probe table in the paper's shape as a frame: one row per probe, columns
    ``probe (dataset)``, one score column per model with a boolean ``<model>_sig`` column after
    it (``p_adjusted < alpha``; score NaN = no samples), and ``n`` (samples; the largest over
    models -- samples are identical across models, see the samples hash)."""
    check_kind(result, "probes-table")
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
    """The paper's cell: a signed score (unsigned for symmetric probes), ``*`` when significant
    (ranklens's one convention; the paper marks the other cells), ``-`` without samples."""
    if score != score:
        return "-"
    txt = f"{score:.{digits}f}" if symmetric else f"{score:+.{digits}f}"
    return txt + "*" if sig else txt


def format_table(result: Result, *, fmt: str = "text", models: Sequence[str] | None = None,
                 digits: int = 2) -> str:
    """The probe table as text or markdown: rows = probe (dataset), columns = models, cells =
    score, marked with ``*`` when significant (the paper marks the non-significant ones), last column = number
    of samples. For the paper's Tables 1-3 over one or several results see :func:`paper_tables`.
    """
    if fmt not in ("text", "markdown"):
        raise ValidationError(f"fmt must be 'text' or 'markdown', got {fmt!r}")
    frame = paper_table(result, models=models)
    models = list(models) if models is not None else list(dict.fromkeys(result.table["model"]))
    rows = [[r["probe (dataset)"], *(_cell(r[m], r[f"{m}_sig"], r["symmetric"], digits) for m in models), str(r["n"])]
            for r in frame.to_dict("records")]
    header = ["probe (dataset)", *models, "n"]
    return render_table(header, rows, fmt, _legend([result]))


def _legend(results: Sequence[Result], *, joined: bool = False) -> str:
    """Significance convention, δ per model and every non-default parameter of the runs.
    ``joined``: the significance was re-corrected over the joined results
    (:func:`joined_correction`)."""
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
    parts = [f"* = significant (two-sided paired t-test, {corr} correction over {scope}, p < {alpha}; the paper "
             "marks the non-significant cells instead); - = no samples. " + ("Symmetric probes: t-test of |diff| against 0. "
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
    # the door's stamp (analysis_params); results made before it carry the Params in params
    got = {**result.provenance.params, **getattr(result.provenance, "analysis_params", {})}
    out = {}
    for k in Params.__dataclass_fields__:
        if k in got:
            v = got[k]
            dv = getattr(defaults, k)
            if (list(v) if isinstance(v, (list, tuple)) else v) != (list(dv) if isinstance(dv, tuple) else dv):
                out[k] = v
    return out


def render_table(header: list[str], rows: list[list[str]], fmt: str, legend: str) -> str:
    """``rows`` under ``header`` in ``fmt`` (text, markdown, latex, html), ``legend`` below."""
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


def joined_correction(results: Sequence[Result]) -> list[Result]:
    """Copies of ``results`` whose ``p_adjusted`` and ``significant`` are re-corrected over the
    joined tables, from the raw ``p_value`` (the paper's "Bonferroni correction over each table").

    The family of a cell is every (probe, model) cell of *all* the results in its probe family
    (Table 1 measure-and-match, Table 2 manipulation, Table 3 transfer) with
    ``correction_scope="table"``, or every cell of all the results with ``"all"``; every model of
    the results counts, whichever are displayed. A transfer cell found in several results with the
    same samples and p-value (the same test; Table 3 shows it once) counts once. One result is
    returned unchanged (its own correction is already over its tables).

    Raises:
        ValidationError: the results differ in ``correction``, ``alpha`` or ``correction_scope``.
    """
    from .run import adjust_pvalues

    results = list(results)
    if len(results) < 2:
        return results
    for key in ("correction", "alpha", "correction_scope"):
        seen = {json.dumps(r.summary.get(key), default=str) for r in results}
        if len(seen) > 1:
            raise ValidationError(f"paper_tables: the results differ in {key} ({', '.join(sorted(seen))}); one table "
                                  f"needs one {key}: re-run the probes with the same --{key.replace('_', '-')}")
    r0 = results[0]
    method = str(r0.summary.get("correction", "bonferroni"))
    alpha = float(r0.summary.get("alpha", 0.01))
    by_family = r0.summary.get("correction_scope", "table") == "table"
    cells = []
    for i, r in enumerate(results):
        t = r.table
        for j, (probe, fam, model, h, p) in enumerate(zip(t["probe"], t["family"], t["model"], t["samples_hash"],
                                                          t["p_value"])):
            key = f"transfer|{probe}|{model}|{h}|{float(p)!r}" if fam == "transfer" else f"{i}|{j}"
            cells.append((i, j, key, str(fam) if by_family else "all", float(p)))
    frame = pd.DataFrame(cells, columns=["result", "row", "key", "family", "p_value"])
    unique = frame.drop_duplicates("key")
    adjusted: dict[str, float] = {}
    for _fam, grp in unique.groupby("family", sort=False):
        adjusted.update(zip(grp["key"], adjust_pvalues(grp["p_value"].to_numpy(np.float64), method)))
    out = []
    for i, r in enumerate(results):
        keys = frame.loc[frame["result"] == i].sort_values("row")["key"]
        t = r.table.copy()
        t["p_adjusted"] = np.array([adjusted[k] for k in keys], dtype=np.float64)
        t["significant"] = (t["p_adjusted"] < alpha).astype(bool)
        out.append(dataclasses.replace(r, table=t))
    return out


def _frames(results: Sequence[Result], models: list[str]) -> list[tuple[str, dict[str, dict]]]:
    out = []
    for r in results:
        if r.kind != "probes-table":
            raise ValidationError(f"expected probes-table results, got {r.kind!r}")
        f = paper_table(r, models=[m for m in models if m in set(r.table["model"])])
        name = str(r.provenance.params.get("collection") or "")
        same = sum(1 for n, _ in out if n == name or n.startswith(f"{name} #"))
        name = f"{name} #{same + 1}" if same else name  # two results of one dataset stay apart
        out.append((name, {p: rec for p, rec in zip(r.table.drop_duplicates("probe")["probe"], f.to_dict("records"))}))
    return out


def _cells(rec: dict, models: list[str]) -> list[str]:
    return [_cell(rec.get(m, float("nan")), bool(rec.get(f"{m}_sig", False)), bool(rec["symmetric"])) for m in models]


def _table1(frames: list[tuple[str, dict[str, dict]]], models: list[str]) -> list[list[str]]:
    rows = []
    for dataset, recs in frames:
        for v in _MM_ORDER:
            first = True
            for c in _MM_ORDER:
                rec = recs.get(f"mm-{v}-ctrl-{c}")
                if v == c or rec is None:
                    continue
                rows.append([dataset, _MM_NAMES[v] if first else "", _MM_NAMES[c], *_cells(rec, models), str(rec["n"])])
                first = False
    return rows


def _table2(frames: list[tuple[str, dict[str, dict]]], models: list[str]) -> list[list[str]]:
    known = [p for p, _ in _TMP]
    extra = sorted({p for _d, recs in frames for p in recs if p.startswith("tr-") and p not in known})
    rows = []
    for probe, label in [*_TMP, *((p, p) for p in extra)]:
        first = True
        for dataset, recs in frames:
            rec = recs.get(probe)
            if rec is not None:
                rows.append([label if first else "", dataset, *_cells(rec, models), str(rec["n"])])
                first = False
    return rows


def _table3(frames: list[tuple[str, dict[str, dict]]], models: list[str]) -> list[list[str]]:
    merged: dict[str, list[tuple[str, dict]]] = {}
    for d, recs in frames:  # transfer probes do not depend on the collection: identical rows once
        for p, rec in recs.items():
            if p.startswith(("ds-", "demo-", "pairs")):
                seen = merged.setdefault(p, [])
                if not any(_cells(r, models) == _cells(rec, models) and r["n"] == rec["n"] for _d, r in seen):
                    seen.append((d, rec))
    known = [p for p, _a, _b in _DTP]
    rows = []
    for probe, attr, data in [*_DTP, *((p, p, "") for p in sorted(set(merged) - set(known)))]:
        got = merged.get(probe, [])
        for d, rec in got:  # different results for one probe: one row each, named by their run
            paper = PAPER_SAMPLES.get(probe)  # the paper's count beside ours
            n = str(rec["n"]) if paper is None else f"{rec['n']} (paper {paper})"
            rows.append([attr, data + (f" [{d}]" if len(got) > 1 else ""), *_cells(rec, models), n])
    return rows


def paper_tables(results: Sequence[Result], *, fmt: str = "text", tables: Sequence[int] = (1, 2, 3),
                 models: Sequence[str] | None = None) -> str:
    """The paper's Tables 1-3 over ``results`` (one per dataset) in ``fmt`` (text, markdown,
    latex, html); tables without rows are left out. Several results are joined with their
    significance re-corrected over each joined table (:func:`joined_correction`), as the legend
    says."""
    if not results:
        raise ValidationError("paper_tables needs at least one probes-table result")
    models = list(models) if models is not None else list(dict.fromkeys(
        m for r in results for m in r.table["model"]))
    joined = len(results) > 1
    results = joined_correction(results)  # the correction over each joined table (paper §3.4)
    frames = _frames(results, models)
    makers = {1: (_table1, ["Dataset", "Variable", "Control"]), 2: (_table2, ["Probe", "Dataset"]),
              3: (_table3, ["Probe", "Dataset"])}
    out = []
    for t in tables:
        if t not in makers:
            raise ValidationError(f"tables are 1, 2 and 3, got {t}")
        fn, head = makers[t]
        rows = fn(frames, models)
        if rows:
            title = TABLES[t][0]
            out.append((f"{title}\n" if fmt in ("text", "markdown") else "")
                       + render_table([*head, *models, "Samples"], rows, fmt, _legend(results, joined=joined)))
    return "\n".join(out)
