"""Two result sets side by side: every shared number, its change, whether the change is significant,
and for each changed number the provenance that differs ("why did this number change?").

A result set is a directory holding result directories (``result.json``) at any depth: an
``--out`` directory, an experiment's or a check's results directory, or a results store. Results
are paired by their path below the root with step hashes (``-1a2b3c4d``) left out, so two runs of
one experiment whose parameters differ (and whose step directories therefore differ) still pair.

The numbers are the store's long-format rows (:func:`ranklens.store.summary_rows`: summary figures
and the per-model headline rows the result kinds declare). A change is tested with the paired
t-test (:func:`ranklens.stats.paired_ttest`) where both results hold per-unit values of that number
(a table with the columns ``model``, ``measure`` or ``metric``, ``value`` and a unit id, such as a
per-query table); elsewhere its significance is not known and is shown as ``-``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .errors import ValidationError
from .results import Result

__all__ = ["NumberChange", "ResultsDiff", "diff_results", "provenance_changes"]

_STEP_HASH = re.compile(r"-[0-9a-f]{8}$")
_PROV_FIELDS = ("analysis_params", "params", "inputs", "components", "component_params", "seed", "ranklens_version")


@dataclass(frozen=True)
class NumberChange:
    """One number both result sets hold."""

    result: str            # the paired result's path (step hashes left out)
    kind: str
    item: str
    model: str
    metric: str
    a: float
    b: float
    p_value: float | None  # paired test on per-unit values; None where there are none
    n: int | None          # units of that test
    causes: tuple[str, ...]  # provenance that differs: "analysis_params.cap: 20 -> 40"

    @property
    def change(self) -> float:
        return self.b - self.a

    @property
    def changed(self) -> bool:
        if math.isnan(self.a) and math.isnan(self.b):
            return False
        return not math.isclose(self.a, self.b, rel_tol=1e-9, abs_tol=1e-12)

    def significant(self, alpha: float = 0.05) -> bool | None:
        if self.p_value is None or math.isnan(self.p_value):
            return None
        return self.p_value < alpha


@dataclass(frozen=True)
class ResultsDiff:
    a: Path
    b: Path
    numbers: tuple[NumberChange, ...]
    only_a: tuple[str, ...]  # results in A without a partner in B
    only_b: tuple[str, ...]
    alpha: float = 0.05

    @property
    def changed(self) -> tuple[NumberChange, ...]:
        return tuple(n for n in self.numbers if n.changed)

    def _rows(self, *, changed_only: bool) -> list[list[str]]:
        rows = []
        for n in self.numbers:
            if changed_only and not n.changed:
                continue
            sig = n.significant(self.alpha)
            rows.append([n.result, n.item or "-", n.model or "-", n.metric, _fmt(n.a), _fmt(n.b),
                         _fmt(n.change, signed=True) if n.changed else "0",
                         "-" if sig is None else (f"yes (p={n.p_value:.3g})" if sig else f"no (p={n.p_value:.3g})"),
                         "; ".join(n.causes) if n.changed else ""])
        return rows

    _HEAD = ["result", "item", "model", "metric", "A", "B", "change", "significant", "provenance that differs"]

    def to_text(self, *, changed_only: bool = False) -> str:
        lines = [f"A: {self.a}", f"B: {self.b}",
                 f"{len(self.numbers)} shared numbers, {len(self.changed)} changed"]
        lines += [f"only in A: {r}" for r in self.only_a] + [f"only in B: {r}" for r in self.only_b]
        lines.append("\t".join(self._HEAD))
        lines += ["\t".join(r) for r in self._rows(changed_only=changed_only)]
        return "\n".join(lines) + "\n"

    def to_markdown(self, *, changed_only: bool = False) -> str:
        def cell(s: str) -> str:
            return s.replace("|", "\\|").replace("\n", " ")

        out = [f"**A** `{self.a}` vs **B** `{self.b}`: {len(self.numbers)} shared numbers, "
               f"{len(self.changed)} changed.", ""]
        out += [f"- only in A: `{r}`" for r in self.only_a] + [f"- only in B: `{r}`" for r in self.only_b]
        out += ["", "| " + " | ".join(self._HEAD) + " |", "|" + "---|" * len(self._HEAD)]
        out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in self._rows(changed_only=changed_only)]
        return "\n".join(out) + "\n"

    def to_html(self, *, changed_only: bool = False) -> str:
        """The report's "Results diff" section (:func:`ranklens.report.diffview.diff_html`; the
        page around it: ``ranklens report B --diff A``)."""
        from .report.diffview import diff_html

        return diff_html(self, all_numbers=not changed_only)


def _fmt(x: float, *, signed: bool = False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    return f"{x:+.6g}" if signed else f"{x:.6g}"


def _result_dirs(root: Path) -> dict[str, Path]:
    """Result directories below ``root`` keyed by their path with step hashes left out."""
    if not root.is_dir():
        raise ValidationError(f"{root}: not a directory; give a results directory (an --out, an experiment's "
                              "or a check's results)")
    out: dict[str, Path] = {}
    for meta in sorted(root.rglob("result.json")):
        d = meta.parent
        if any(p.startswith(".") for p in d.relative_to(root).parts):
            continue  # temp dirs of an unfinished save, work dirs
        key = "/".join(_STEP_HASH.sub("", p) for p in d.relative_to(root).parts) or "."
        if key in out:
            key = str(d.relative_to(root))
        out[key] = d
    if not out:
        raise ValidationError(f"{root}: holds no result directory (no result.json below it)")
    return out


def _get(prov: Any, name: str) -> Any:
    return getattr(prov, name, None)


def provenance_changes(a: Result, b: Result) -> tuple[str, ...]:
    """What differs between the provenance of two results, one ``field.key: A -> B`` per difference
    (the analysis's parameters, data hashes, model fingerprints, seed, ranklens version)."""
    out = []
    for name in _PROV_FIELDS:
        va, vb = _get(a.provenance, name), _get(b.provenance, name)
        if isinstance(va, Mapping) or isinstance(vb, Mapping):
            va, vb = dict(va or {}), dict(vb or {})
            for k in sorted(set(va) | set(vb), key=str):
                if va.get(k) != vb.get(k):
                    out.append(f"{name}.{k}: {_short(va.get(k, '(absent)'))} -> {_short(vb.get(k, '(absent)'))}")
        elif va != vb:
            out.append(f"{name}: {_short(va)} -> {_short(vb)}")
    return tuple(out)


def _short(v: Any) -> str:
    s = v if isinstance(v, str) else json.dumps(v, default=str)
    return s if len(s) <= 60 else s[:57] + "..."


def _unit_values(result: Result) -> pd.DataFrame:
    """Per-unit values of a result in long form ``model, metric, unit, value`` (empty when it has
    no table of that shape)."""
    frames = []
    for frame in (result.table, *result.tables.values()):
        metric = "measure" if "measure" in frame.columns else "metric" if "metric" in frame.columns else None
        if metric is None or not {"model", "value"} <= set(frame.columns):
            continue
        units = [c for c in frame.columns if c not in {"model", metric, "value"}
                 and not pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])]
        if not units or len(frame) == 0:
            continue
        f = pd.DataFrame({"model": frame["model"].astype(str), "metric": frame[metric].astype(str),
                          "unit": frame[units].astype(str).agg("|".join, axis=1),
                          "value": pd.to_numeric(frame["value"], errors="coerce")})
        if f.duplicated(["model", "metric", "unit"]).any():
            continue  # not one value per unit: no paired test
        frames.append(f)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["model", "metric", "unit",
                                                                                     "value"])


def _paired(ua: pd.DataFrame, ub: pd.DataFrame, model: str, metric: str) -> tuple[float | None, int | None]:
    from .stats import paired_ttest

    if ua.empty or ub.empty:
        return None, None
    a = ua[(ua["model"] == model) & (ua["metric"] == metric)].set_index("unit")["value"]
    b = ub[(ub["model"] == model) & (ub["metric"] == metric)].set_index("unit")["value"]
    common = a.index.intersection(b.index)
    if len(common) < 2:
        return None, None
    t = paired_ttest(b.loc[common].to_numpy(float), a.loc[common].to_numpy(float))
    return float(t.pvalue), int(t.n)


def _numbers(result: Result) -> pd.DataFrame:
    from .store import summary_rows

    rows = summary_rows(result)
    rows = rows[rows["value"].notna() | rows["metric"].notna()]
    for c in ("item", "model", "metric"):
        rows[c] = rows[c].fillna("").astype(str)
    return rows.drop_duplicates(["item", "model", "metric"]).set_index(["item", "model", "metric"])


def diff_results(a: str | Path, b: str | Path, *, alpha: float = 0.05) -> ResultsDiff:
    """Compare the result sets under ``a`` and ``b`` (see the module docstring)."""
    ra, rb = _result_dirs(Path(a)), _result_dirs(Path(b))
    numbers: list[NumberChange] = []
    for key in sorted(set(ra) & set(rb)):
        res_a, res_b = Result.load(ra[key]), Result.load(rb[key])
        causes = provenance_changes(res_a, res_b)
        na, nb = _numbers(res_a), _numbers(res_b)
        ua, ub = _unit_values(res_a), _unit_values(res_b)
        for idx in na.index.intersection(nb.index):
            item, model, metric = idx
            va, vb = float(na.at[idx, "value"]), float(nb.at[idx, "value"])
            p, n = _paired(ua, ub, model, metric) if model else (None, None)
            numbers.append(NumberChange(key, res_a.kind, item, model, metric, va, vb, p, n, causes))
    return ResultsDiff(Path(a), Path(b), tuple(numbers), tuple(sorted(set(ra) - set(rb))),
                       tuple(sorted(set(rb) - set(ra))), alpha)
