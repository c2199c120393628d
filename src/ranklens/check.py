"""``ranklens check FILE``: behaviour as a release gate.

An expectations file is an experiment file (models, datasets, optional ``[[analyses]]``: validated
by :func:`ranklens.experiment.validate`) plus ``[[expect]]`` rows::

    results = "check-results"        # where the steps' results go (a re-check reuses them)
    reference = "reference.json"     # --update-baseline writes it; max_change rows read it

    [models.candidate]
    spec = "callable:mypkg.rank:score"
    [models.baseline]
    spec = "bm25"
    [datasets.demo]
    spec = "demo"

    [[analyses]]                     # optional: by default one per analysis the rows name
    type = "probes"
    params = { probes = ["tr-shuffle-words"], cap = 40 }

    [[expect]]                       # bound: a number within bounds
    analysis = "probes"
    model = "candidate"
    probe = "tr-shuffle-words"       # an item column of the kind's per-model rows
    score = "<= -0.2"                # METRIC = "OP NUMBER" (<=, <, >=, >, ==) or "LOW..HIGH"
    significant = true               # optional: the result's own test must call it significant

    [[expect]]                       # non-inferiority with the analysis's per-unit values
    analysis = "asl"
    model = "candidate"
    baseline = "baseline"
    measure = "ASL@g1-10"
    non_inferior = 0.05              # margin, a share of the baseline's mean (margin_type = "absolute")
    alpha = 0.05

A row selects numbers from the per-model rows of a result kind (:func:`ranklens.store.model_rows`,
declared by the kind's ``ModelRows``): ``analysis`` (an analysis name = its first kind with
per-model rows, or a kind), ``model``, the item columns (``probe``, ``other_model``, ``regime``,
...) and the metric. A row with ``max_change = X`` fails when its number moved more than X from
the reference recorded by ``--update-baseline``.

The steps run through the experiment runner (:func:`ranklens.experiment.run_experiment`, which
calls :func:`ranklens.drive.run_analysis`): a step's results are kept under ``results/<step-id>/``
(the id covers the analysis, dataset, the models' specs and the parameters) with a ``.done``
marker, so a re-check reuses them, and the engine cache makes a changed model cheap to re-check.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ValidationError

__all__ = ["CheckReport", "Expectation", "Verdict", "check", "load_expectations", "prepare", "run_check"]

_CHECK_KEYS = {"expect", "reference"}
_ROW_KEYS = {"name", "analysis", "kind", "model", "dataset", "metric", "measure", "bound", "significant", "baseline",
             "non_inferior", "margin_type", "alpha", "max_change"}
_BOUND = re.compile(r"^\s*(<=|>=|<|>|==)\s*(\S+)\s*$")
_RANGE = re.compile(r"^\s*(\S+)\s*\.\.\s*(\S+)\s*$")


@dataclass(frozen=True)
class Expectation:
    """One ``[[expect]]`` row, validated."""

    where: str                     # "expect[0]"
    name: str
    analysis: str
    kind: str
    model: str
    metric: str
    items: Mapping[str, str] = field(default_factory=dict)
    bound: str | None = None
    significant: bool | None = None
    baseline: str | None = None
    non_inferior: float | None = None
    margin_type: str = "relative"
    alpha: float = 0.05
    max_change: float | None = None
    dataset: str | None = None

    @property
    def type(self) -> str:
        return "non_inferior" if self.non_inferior is not None else "max_change" if self.max_change is not None \
            else "bound"


@dataclass(frozen=True)
class Verdict:
    """The outcome of one expectation on one dataset."""

    name: str
    type: str
    dataset: str
    passed: bool
    value: float | None
    ci: tuple[float, float] | None
    bound: str
    detail: str = ""
    p_value: float | None = None
    result_dir: str = ""

    def line(self) -> str:
        value = "n/a" if self.value is None else f"{self.value:.4g}"
        ci = f" [{self.ci[0]:.4g}, {self.ci[1]:.4g}]" if self.ci is not None else ""
        p = f" p={self.p_value:.3g}" if self.p_value is not None else ""
        detail = f" ({self.detail})" if self.detail else ""
        return f"{'PASS' if self.passed else 'FAIL'}  {self.name} [{self.dataset}]: {value}{ci}{p} vs {self.bound}{detail}"


@dataclass(frozen=True)
class CheckReport:
    verdicts: tuple[Verdict, ...]
    results_dir: Path
    source: Path | None = None

    @property
    def passed(self) -> bool:
        return all(v.passed for v in self.verdicts)

    @property
    def failures(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if not v.passed)

    def text(self) -> str:
        lines = [v.line() for v in self.verdicts]
        lines.append(f"{len(self.verdicts) - len(self.failures)} passed, {len(self.failures)} failed")
        return "\n".join(lines) + "\n"

    def to_markdown(self) -> str:
        head = "| | expectation | dataset | value | CI | bound | detail |\n|---|---|---|---|---|---|---|"
        rows = []
        for v in self.verdicts:
            ci = f"[{v.ci[0]:.4g}, {v.ci[1]:.4g}]" if v.ci else ""
            value = "n/a" if v.value is None else f"{v.value:.4g}"
            cells = ["PASS" if v.passed else "**FAIL**", v.name, v.dataset, value, ci, v.bound, v.detail]
            rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        verdict = "all expectations pass" if self.passed else f"{len(self.failures)} of {len(self.verdicts)} " \
                                                              "expectations fail"
        return f"### ranklens check: {verdict}\n\n{head}\n" + "\n".join(rows) + "\n"

    def to_junit(self) -> str:
        from xml.etree import ElementTree as ET

        suite = ET.Element("testsuite", name=f"ranklens check {self.source or ''}".strip(),
                           tests=str(len(self.verdicts)), failures=str(len(self.failures)), errors="0")
        for v in self.verdicts:
            case = ET.SubElement(suite, "testcase", classname=f"ranklens.check.{v.type}",
                                 name=f"{v.name} [{v.dataset}]")
            if not v.passed:
                ET.SubElement(case, "failure", message=v.line(), type=v.type).text = v.line()
            else:
                ET.SubElement(case, "system-out").text = v.line()
        root = ET.Element("testsuites", tests=str(len(self.verdicts)), failures=str(len(self.failures)))
        root.append(suite)
        return ET.tostring(root, encoding="unicode", xml_declaration=True)


# -- reading the file -------------------------------------------------------------------------------


def _number(value: Any, where: str, errors: list[str], *, low: float | None = None) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (low is not None and value < low):
        errors.append(f"{where}: must be a number" + (f" >= {low}" if low is not None else ""))
        return None
    return float(value)


def _check_bound(text: Any, where: str, errors: list[str]) -> str | None:
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return f"== {text}"
    s = str(text)
    m, r = _BOUND.match(s), _RANGE.match(s)
    try:
        if m:
            float(m.group(2))
            return s.strip()
        if r:
            float(r.group(1)), float(r.group(2))
            return s.strip()
    except ValueError:
        pass
    errors.append(f'{where}: {text!r} is not a bound; write "<= -0.2", ">= 0.5", "< 1", "== 0" or "0.2..0.8"')
    return None


def _within(value: float, bound: str) -> bool:
    if math.isnan(value):
        return False
    if r := _RANGE.match(bound):
        return float(r.group(1)) <= value <= float(r.group(2))
    m = _BOUND.match(bound)
    op, x = m.group(1), float(m.group(2))  # type: ignore[union-attr]
    return {"<=": value <= x, ">=": value >= x, "<": value < x, ">": value > x,
            "==": math.isclose(value, x, rel_tol=1e-9, abs_tol=1e-12)}[op]


def _kind_of(name: Any, where: str, errors: list[str]) -> tuple[str, str, Any] | None:
    """(analysis name, kind name, ResultKind) of ``analysis = NAME`` or ``kind = KIND``."""
    from .registry import analyses

    for a in analyses().values():
        if name == a.name:
            kinds = [k for k in a.kinds if k.model_rows is not None]
            if not kinds:
                errors.append(f"{where}.analysis: {name} declares no per-model rows; name one of its kinds")
                return None
            return a.name, kinds[0].name, kinds[0]
        for k in a.kinds:
            if name == k.name:
                if k.model_rows is None:
                    errors.append(f"{where}.analysis: the kind {name} declares no per-model rows (ModelRows)")
                    return None
                return a.name, k.name, k
    known = sorted({a.name for a in analyses().values()} | {k.name for a in analyses().values() for k in a.kinds
                                                             if k.model_rows is not None})
    errors.append(f"{where}.analysis: unknown analysis or kind {name!r}; known: {known}")
    return None


def _validate_row(row: Any, i: int, models: Mapping[str, Any], errors: list[str]) -> Expectation | None:
    where = f"expect[{i}]"
    if not isinstance(row, Mapping):
        errors.append(f"{where}: must be a table [[expect]]")
        return None
    got = _kind_of(row.get("analysis", row.get("kind")), where, errors)
    if got is None:
        return None
    analysis, kind, info = got
    rows = info.model_rows
    item_cols = set(rows.items)
    metrics = set(rows.metrics) | {r for _, r in rows.rename}
    before = len(errors)
    extra = {k: v for k, v in row.items() if k not in _ROW_KEYS and k not in item_cols}
    metric = row.get("metric", row.get("measure"))
    bound = row.get("bound")
    if metric is None and len(extra) == 1 and bound is None:
        (metric, bound), extra = next(iter(extra.items())), {}
    elif metric is None and len(extra) > 1:
        errors.append(f"{where}: {sorted(extra)}: unknown keys; give one METRIC = \"BOUND\" (metrics of {kind}: "
                      f"{sorted(metrics) or 'its numeric columns'}; items: {sorted(item_cols)})")
        return None
    for k in extra:
        errors.append(f"{where}.{k}: unknown key; valid keys are {sorted(_ROW_KEYS | item_cols)}")
    if not isinstance(metric, str) or not metric:
        errors.append(f"{where}: name the metric (metric = \"...\", or METRIC = \"BOUND\")")
        return None
    if metrics and rows.long is None and metric not in metrics:
        errors.append(f"{where}.metric: {metric!r} is not a metric of {kind}; use one of {sorted(metrics)}")
    model = row.get("model", "candidate")
    for key in ("model", "baseline"):
        if key in row or key == "model":
            value = row.get(key, model)
            if value not in models:
                errors.append(f"{where}.{key}: unknown model {value!r}; defined: {sorted(models)}")
    ni = row.get("non_inferior")
    mc = row.get("max_change")
    if ni is not None:
        ni = _number(ni, f"{where}.non_inferior", errors, low=0.0)
        if "baseline" not in row:
            errors.append(f"{where}.baseline: a non_inferior row needs the baseline model's name")
        if row.get("margin_type", "relative") not in ("relative", "absolute"):
            errors.append(f"{where}.margin_type: use \"relative\" (share of the baseline's mean) or \"absolute\"")
        if kind_direction(info, metric) is None:
            errors.append(f"{where}.measure: {kind} does not declare whether higher {metric} is better "
                          f"(higher_is_better); non-inferiority needs a direction")
    elif mc is not None:
        mc = _number(mc, f"{where}.max_change", errors, low=0.0)
    elif bound is None:
        errors.append(f"{where}: give a bound (METRIC = \"<= X\" or bound = ...), non_inferior or max_change")
    else:
        bound = _check_bound(bound, f"{where}.{'bound' if 'bound' in row else metric}", errors)
    alpha = _number(row.get("alpha", 0.05), f"{where}.alpha", errors, low=0.0) if "alpha" in row else 0.05
    sig = row.get("significant")
    if sig is not None and not isinstance(sig, bool):
        errors.append(f"{where}.significant: must be true or false")
    items = {k: str(v) for k, v in row.items() if k in item_cols}
    if len(errors) > before:
        return None
    name = str(row.get("name") or " ".join([kind, *items.values(), model, metric]))
    return Expectation(where, name, analysis, kind, str(model), metric, items, bound, sig, row.get("baseline"), ni,
                       str(row.get("margin_type", "relative")), float(alpha or 0.05), mc, row.get("dataset"))


def kind_direction(info: Any, metric: str) -> bool | None:
    hib = dict(info.higher_is_better or {})
    return hib.get(metric)


@dataclass(frozen=True)
class Expectations:
    experiment: Any                      # ranklens.experiment.Experiment
    expect: tuple[Expectation, ...]
    reference: Path
    source: Path | None = None


def _read_file(path: Path) -> dict[str, Any]:
    from .experiment import _read

    return _read(path)


def validate_expectations(data: Mapping[str, Any], *, base: Path = Path(".")) -> tuple[Expectations, list[str]]:
    """An expectations mapping -> (expectations, every problem with its key path)."""
    from .experiment import validate

    errors: list[str] = []
    raw = data.get("expect")
    if not isinstance(raw, list) or not raw:
        errors.append("expect: need at least one [[expect]] row")
        raw = []
    exp_data = {k: v for k, v in data.items() if k not in _CHECK_KEYS}
    exp_data.setdefault("results", "check-results")
    models = dict(exp_data.get("models") or {}) if isinstance(exp_data.get("models", {}), Mapping) else {}
    exp_data["models"] = models
    rows = [_validate_row(r, i, models, errors) for i, r in enumerate(raw)]
    if "analyses" not in exp_data:  # one step per analysis the rows name, with its defaults
        exp_data["analyses"] = [{"type": a} for a in dict.fromkeys(r.analysis for r in rows if r is not None)]
    exp, exp_errors = validate(exp_data, base=base)
    named = {s.analysis for s in exp.steps}
    for r in rows:
        if r is not None and r.analysis not in named and not exp_errors:
            errors.append(f"{r.where}.analysis: no [[analyses]] entry runs {r.analysis}; add one")
        if r is not None and r.dataset is not None and r.dataset not in exp.datasets:
            errors.append(f"{r.where}.dataset: unknown dataset {r.dataset!r}; defined: {sorted(exp.datasets)}")
    ref = data.get("reference", "check-reference.json")
    reference = Path(str(ref)) if Path(str(ref)).is_absolute() else base / str(ref)
    return Expectations(exp, tuple(r for r in rows if r is not None), reference), exp_errors + errors


def load_expectations(path: str | Path) -> Expectations:
    """Read and validate an expectations file; one :class:`ValidationError` lists every problem."""
    p = Path(path)
    if not p.is_file():
        raise ValidationError(f"{p}: expectations file not found")
    exp, errors = validate_expectations(_read_file(p), base=p.parent)
    if errors:
        raise ValidationError(f"{p}: {len(errors)} problem(s):\n  " + "\n  ".join(errors))
    return Expectations(exp.experiment, exp.expect, exp.reference, p)


# -- running what is missing ------------------------------------------------------------------------


def _model_key(value: Any) -> Any:
    if isinstance(value, Mapping):
        spec = value.get("spec")
        if isinstance(spec, str):
            return {"spec": spec, "params": dict(value.get("params") or {})}
        value = spec
    fp = getattr(value, "fingerprint", None)
    fp = fp() if callable(fp) else fp
    return {"object": str(fp)} if fp else {"object": f"unkeyed-{id(value)}"}


def _run_steps(exps: Expectations, objects: Mapping[str, Any], engine: Any) -> dict[tuple[str, str], list[Path]]:
    """Run the missing steps through the experiment runner (:func:`ranklens.experiment.run_experiment`:
    the one loop, its ``.done`` markers, the results store); (analysis, dataset) -> result directories.

    ``objects`` are Python model objects (``object:<name>#<fingerprint>`` spec -> object, made by
    :func:`prepare`) besides the experiment's own; the runner registers them for this run only; their
    fingerprint is in the spec and so in the step id: a changed object never reuses an old step."""
    import dataclasses

    from .experiment import run_experiment

    exp = dataclasses.replace(exps.experiment, objects={**exps.experiment.objects, **objects})
    run_experiment(exp, engine=engine, report=False, show_progress=False)  # registers the objects while it runs
    out: dict[tuple[str, str], list[Path]] = {}
    for step in exp.steps:
        marker = exp.results_dir / step.step_id / ".done"
        done = json.loads(marker.read_text(encoding="utf-8"))
        out.setdefault((step.analysis, step.dataset), []).extend(exp.results_dir / p for p in done["results"])
    return out


# -- evaluating -------------------------------------------------------------------------------------


def _rows_of(result: Any) -> Any:
    from .store import model_rows

    return model_rows(result)


def _select(e: Expectation, result: Any, info: Any, model: str) -> tuple[Any, str | None]:
    """The per-model row(s) of ``model`` and ``e``'s metric and items; (frame, why none)."""
    rows = _rows_of(result)
    spec = info.model_rows
    rows = rows[(rows["model"] == model) & (rows["metric"] == e.metric)]
    if e.items:
        parts = rows["item"].str.removeprefix(spec.prefix).str.split("/", n=len(spec.items) - 1)
        keep = [all(p[spec.items.index(k)] == v if len(p) > spec.items.index(k) else False
                    for k, v in e.items.items()) for p in parts]
        rows = rows[keep]
    if rows.empty:
        return rows, f"no {e.metric} row for model {model} with {dict(e.items) or 'any item'} in {result.kind}"
    return rows, None


def _significant(e: Expectation, result: Any, info: Any) -> bool | None:
    table = result.table
    if "significant" not in table.columns:
        return None
    sel = table[table[info.model_rows.model].astype(str) == e.model]
    for k, v in e.items.items():
        if k in sel.columns:
            sel = sel[sel[k].astype(str) == v]
    return bool(sel["significant"].astype(bool).all()) if len(sel) else None


def _ci_from_tables(result: Any, model: str, metric: str) -> tuple[float, float] | None:
    for frame in result.tables.values():
        col = "measure" if "measure" in frame.columns else "metric" if "metric" in frame.columns else None
        if col and {"model", "ci_low", "ci_high"} <= set(frame.columns):
            sel = frame[(frame["model"].astype(str) == model) & (frame[col].astype(str) == metric)]
            if len(sel) == 1:
                return float(sel["ci_low"].iloc[0]), float(sel["ci_high"].iloc[0])
    return None


def _bound_verdict(e: Expectation, result: Any, info: Any, ds: str, where: str) -> Verdict:
    rows, why = _select(e, result, info, e.model)
    if why:
        return Verdict(e.name, "bound", ds, False, None, None, str(e.bound), why, result_dir=where)
    if len(rows) > 1:
        return Verdict(e.name, "bound", ds, False, None, None, str(e.bound),
                       f"{len(rows)} rows match ({sorted(rows['item'])}); name the item", result_dir=where)
    value = float(rows["value"].iloc[0])
    lo, hi = rows["ci_low"].iloc[0], rows["ci_high"].iloc[0]
    ci = (float(lo), float(hi)) if not (math.isnan(lo) or math.isnan(hi)) else _ci_from_tables(result, e.model,
                                                                                                e.metric)
    passed, detail = _within(value, str(e.bound)), ""
    if e.significant is not None:
        sig = _significant(e, result, info)
        if sig is None:
            passed, detail = False, f"{result.kind} has no 'significant' column to test against"
        else:
            detail = "significant" if sig else "not significant"
            passed = passed and sig == e.significant
    return Verdict(e.name, "bound", ds, passed, value, ci, str(e.bound), detail, result_dir=where)


def _unit_values(result: Any, model: str, metric: str) -> Any:
    import pandas as pd

    for frame in (result.table, *result.tables.values()):
        col = "measure" if "measure" in frame.columns else "metric" if "metric" in frame.columns else None
        if col is None or not {"model", "value"} <= set(frame.columns):
            continue
        units = [c for c in frame.columns if c not in {"model", col, "value"}
                 and not pd.api.types.is_numeric_dtype(frame[c])]
        sel = frame[(frame["model"].astype(str) == model) & (frame[col].astype(str) == metric)]
        if units and len(sel) and not sel.duplicated(units).any():
            return sel.set_index(units)["value"].astype(float)
    return None


def _non_inferior_verdict(e: Expectation, result: Any, info: Any, ds: str, where: str) -> Verdict:
    from .stats import paired_ttest

    higher = kind_direction(info, e.metric)
    bound = f"not worse than {e.baseline} by > {e.non_inferior:g}" + \
            (" (share of its mean)" if e.margin_type == "relative" else "") + f" at alpha={e.alpha:g}"
    cand, base = _unit_values(result, e.model, e.metric), _unit_values(result, str(e.baseline), e.metric)
    if cand is None or base is None:
        return Verdict(e.name, "non_inferior", ds, False, None, None, bound,
                       f"{result.kind} holds no per-unit {e.metric} values of both {e.model} and {e.baseline}",
                       result_dir=where)
    common = cand.index.intersection(base.index)
    c, b = cand.loc[common].to_numpy(float), base.loc[common].to_numpy(float)
    sign = 1.0 if higher else -1.0  # oriented: positive = the candidate is better
    margin = float(e.non_inferior) * (abs(float(b.mean())) if e.margin_type == "relative" else 1.0)
    # H0: the candidate is worse by the margin or more; one-sided paired t-test of (c - b) + margin > 0
    t = paired_ttest(sign * c + margin, sign * b)
    p = float("nan") if math.isnan(t.pvalue) else (t.pvalue / 2 if t.statistic > 0 else 1 - t.pvalue / 2)
    diff = float(c.mean() - b.mean())
    ci = None  # the number is a difference; the measure's own CI is not its CI
    passed = not math.isnan(p) and p < e.alpha
    detail = f"{e.metric} {c.mean():.4g} vs {b.mean():.4g}, diff {diff:+.4g}, margin {margin:.4g}, n={t.n}"
    return Verdict(e.name, "non_inferior", ds, passed, diff, ci, bound, detail, p_value=p, result_dir=where)


def _reference_key(e: Expectation, ds: str) -> str:
    return f"{e.where}|{e.name}|{ds}"


def _max_change_verdict(e: Expectation, result: Any, info: Any, ds: str, where: str,
                        reference: Mapping[str, Any]) -> Verdict:
    bound = f"|change| <= {e.max_change:g} from the reference"
    rows, why = _select(e, result, info, e.model)
    if why or len(rows) != 1:
        return Verdict(e.name, "max_change", ds, False, None, None, bound, why or "several rows match; name the item",
                       result_dir=where)
    value = float(rows["value"].iloc[0])
    ref = (reference.get("values") or {}).get(_reference_key(e, ds))
    if ref is None or ref.get("value") is None:
        return Verdict(e.name, "max_change", ds, False, value, None, bound,
                       "no reference value: run `ranklens check FILE --update-baseline`", result_dir=where)
    change = value - float(ref["value"])
    return Verdict(e.name, "max_change", ds, abs(change) <= float(e.max_change), value, None, bound,
                   f"reference {float(ref['value']):.4g}, change {change:+.4g}", result_dir=where)


def _evaluate(exps: Expectations, dirs: Mapping[tuple[str, str], list[Path]]) -> tuple[Verdict, ...]:
    from .registry import kind_info
    from .results import Result

    reference: dict[str, Any] = {}
    if exps.reference.is_file():
        try:
            reference = json.loads(exps.reference.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValidationError(f"{exps.reference}:{exc.lineno}: invalid JSON ({exc.msg}); re-create it with "
                                  "--update-baseline") from None
    loaded: dict[Path, Any] = {}
    verdicts = []
    for e in exps.expect:
        info = kind_info(e.kind)
        for (analysis, ds), paths in dirs.items():
            if analysis != e.analysis or (e.dataset is not None and ds != e.dataset):
                continue
            for p in paths:
                if p not in loaded:
                    loaded[p] = Result.load(p)
            results = [(p, loaded[p]) for p in paths if loaded[p].kind == e.kind]
            if not results:
                verdicts.append(Verdict(e.name, e.type, ds, False, None, None, str(e.bound),
                                        f"no {e.kind} result in {paths[0].parent if paths else 'the results'}"))
                continue
            p, res = results[0]
            if e.type == "non_inferior":
                verdicts.append(_non_inferior_verdict(e, res, info, ds, str(p)))
            elif e.type == "max_change":
                verdicts.append(_max_change_verdict(e, res, info, ds, str(p), reference))
            else:
                verdicts.append(_bound_verdict(e, res, info, ds, str(p)))
    return tuple(verdicts)


def prepare(expectations: str | Path | Mapping[str, Any], models: Mapping[str, Any] | None = None, *,
            base: str | Path = ".") -> tuple[Expectations, dict[str, Any]]:
    """Validate (nothing runs): the expectations and the Python model objects to register while they
    run; a broken file raises one :class:`ValidationError` (or ``DataFormatError``) naming every
    problem by its key path.

    ``models`` replace or add to the file's: spec strings, ``{"spec", "params"}`` tables, or objects
    (:func:`ranklens.objects.normalise_models`: each becomes the spec ``object:<name>#<fingerprint>``,
    so the experiment's step of that model is keyed by what the object computes)."""
    import dataclasses

    from .experiment import with_models
    from .objects import registered

    if isinstance(expectations, Mapping):
        data, src = dict(expectations), None
        root = Path(base)
    else:
        src = Path(expectations)
        if not src.is_file():
            raise ValidationError(f"{src}: expectations file not found")
        data, root = _read_file(src), src.parent
    data, objects = with_models(data, models)
    with registered(objects):  # the objects' specs resolve while the file is checked
        exps, errors = validate_expectations(data, base=root)
    if errors:
        raise ValidationError(f"{src or 'expectations'}: {len(errors)} problem(s):\n  " + "\n  ".join(errors))
    exp = dataclasses.replace(exps.experiment, source=src, objects=dict(objects))
    return Expectations(exp, exps.expect, exps.reference, src), dict(objects)


def run_check(exps: Expectations, objects: Mapping[str, Any] | None = None, *, engine: Any = None,
              update_baseline: bool = False) -> CheckReport:
    """Run the missing steps of prepared expectations (through the experiment runner) and evaluate
    every row; ``objects`` are the model objects :func:`prepare` returned."""
    dirs = _run_steps(exps, objects or {}, engine)
    report = CheckReport(_evaluate(exps, dirs), exps.experiment.results_dir, exps.source)
    if update_baseline:
        write_reference(exps, report)
    return report


def check(expectations: str | Path | Mapping[str, Any], models: Mapping[str, Any] | None = None, *,
          engine: Any = None, update_baseline: bool = False, base: str | Path = ".") -> CheckReport:
    """Run what is missing and evaluate every expectation; returns the verdicts (frozen values).

    Args:
        expectations: an expectations file (TOML/YAML) or the same as a mapping.
        models: models that replace or add to the file's: a spec string, ``{"spec", "params"}``,
            or an object (whatever :func:`ranklens.drive.run_analysis` accepts).
        update_baseline: also record the current numbers as the new reference (``reference``).
        base: what relative paths of a mapping are relative to.
    """
    exps, objects = prepare(expectations, models, base=base)
    return run_check(exps, objects, engine=engine, update_baseline=update_baseline)


def write_reference(exps: Expectations, report: CheckReport) -> Path:
    """Record the current number of every expectation, with the provenance of its result."""
    from . import __version__
    from .files import write_text_atomic
    from .results import Result

    values = {}
    by_name = {e.name: e for e in exps.expect}
    for v in report.verdicts:
        e = by_name[v.name]
        prov = Result.load(v.result_dir).provenance if v.result_dir else None
        values[_reference_key(e, v.dataset)] = {
            "value": v.value, "ci": list(v.ci) if v.ci else None, "dataset": v.dataset, "result": v.result_dir,
            "provenance": None if prov is None else {
                "ranklens_version": prov.ranklens_version, "created_utc": prov.created_utc,
                "analysis_params": dict(prov.analysis_params), "components": dict(prov.components),
                "inputs": dict(prov.inputs), "seed": prov.seed}}
    doc = {"ranklens_version": __version__, "source": str(exps.source or ""),
           "recorded_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
           "models": {m: _model_key(v) for m, v in exps.experiment.models.items()}, "values": values}
    write_text_atomic(exps.reference, json.dumps(doc, indent=2, sort_keys=True, default=str))
    return exps.reference
