"""The paper's Tables 1-3 (ABNIRML) from one or several ``probes-table`` results, e.g. Cranfield
and DL19 passages side by side, in text, Markdown, LaTeX or HTML.

* Table 1, measure-and-match: rows grouped by variable then control, one block per dataset;
* Table 2, textual manipulation: one row per manipulation and dataset;
* Table 3, dataset transfer: one row per probe.

Cells follow the paper: signed scores (the paraphrase probe unsigned), ``*`` marks a score that
is *not* significant; a legend states the test, the correction, each model's δ and how it was
calibrated, and every non-default parameter of the runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ValidationError
from ..results import Result
from .report import _cell, _legend, _render, paper_table

__all__ = ["TABLES", "paper_tables"]

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
            rows.append([attr, data + (f" [{d}]" if len(got) > 1 else ""), *_cells(rec, models), str(rec["n"])])
    return rows


def paper_tables(results: Sequence[Result], *, fmt: str = "text", tables: Sequence[int] = (1, 2, 3),
                 models: Sequence[str] | None = None) -> str:
    """The paper's Tables 1-3 over ``results`` (one per dataset) in ``fmt`` (text, markdown,
    latex, html); tables without rows are left out."""
    if not results:
        raise ValidationError("paper_tables needs at least one probes-table result")
    models = list(models) if models is not None else list(dict.fromkeys(
        m for r in results for m in r.table["model"]))
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
                       + _render([*head, *models, "Samples"], rows, fmt, _legend(results)))
    return "\n".join(out)
