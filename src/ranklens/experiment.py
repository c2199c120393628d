"""Experiment files: models x datasets x analyses, run what is missing, then report.

An experiment file (TOML or YAML)::

    title = "Cranfield and DL"
    results = "results/cranfield"      # relative to the file
    seed = 0

    [models.bm25]
    spec = "bm25"                      # any ranklens.rankers.make_ranker / make_embedder spec
    [models.minilm]
    spec = "minilm"
    params = { precision = "bf16" }

    [datasets.cranfield]
    spec = "../shared/data/cranfield/derived"   # any ranklens.io.load_collection spec

    [datasets.dl19]                    # a track: qrels + run files, no documents (for "asl")
    qrels = "../shared/data/trec_dl_msmarco_passage/qrels.dl19-passage.txt"
    runs = "../shared/data/trec_dl_runs/official/dl19"

    [[analyses]]
    type = "asl"                       # any analysis of ranklens.registry
    datasets = ["cranfield"]           # default: all datasets
    models = ["bm25", "minilm"]        # default: all models
    params = { k = 100 }

Each (analysis, dataset) step writes its result directories under ``results/<step-id>/`` and a
``.done`` marker last; a re-run skips finished steps (and the engine cache skips finished model
calls inside an unfinished one), so a crashed run resumes where it stopped. Every result is
indexed in the results store, and ``report.html`` is rendered at the end.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._hashing import sha256_json
from ._progress import progress
from .declare import param_problems, path_fields
from .errors import DataFormatError, ValidationError
from .registry import get_analysis

__all__ = ["Experiment", "Step", "load_experiment", "run_experiment"]

_TOP_KEYS = {"title", "results", "seed", "models", "datasets", "analyses"}


@dataclass(frozen=True)
class Step:
    analysis: str
    dataset: str
    models: tuple[str, ...]
    params: Mapping[str, Any]

    @property
    def step_id(self) -> str:
        """``<analysis>-<dataset>-<hash>``: the hash covers the full (defaulted) parameters, so a
        changed default never reuses an old step; names are sanitised into one directory name."""
        from .drive import safe_name, step_params

        params = step_params(self.analysis, self.params)
        h = sha256_json({"a": self.analysis, "d": self.dataset, "m": self.models, "p": params})[:8]
        return f"{safe_name(self.analysis)}-{safe_name(self.dataset)}-{h}"


@dataclass(frozen=True)
class Experiment:
    title: str
    results_dir: Path
    seed: int
    models: Mapping[str, Mapping[str, Any]]
    datasets: Mapping[str, Mapping[str, Any]]
    steps: tuple[Step, ...]
    source: Path | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


def _read(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() in {".yaml", ".yml"}:
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise DataFormatError(f"invalid YAML: {exc}", path=path,
                                  line=None if mark is None else mark.line + 1) from exc
    else:
        try:
            import tomllib
        except ModuleNotFoundError:  # Python 3.10
            import tomli as tomllib  # type: ignore[no-redef]
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise DataFormatError(f"invalid TOML: {exc}", path=path) from exc
    if not isinstance(data, dict):
        raise DataFormatError("an experiment file must be a table/mapping at the top level", path=path)
    return data


def validate(data: Mapping[str, Any], *, base: Path = Path(".")) -> tuple[Experiment, list[str]]:
    """Check an experiment mapping; returns the experiment and every error with its key path."""
    errors: list[str] = []
    for k in data:
        if k not in _TOP_KEYS:
            errors.append(f"{k}: unknown key; valid keys are {sorted(_TOP_KEYS)}")
    models: dict[str, dict[str, Any]] = {}
    raw_models = data.get("models", {})
    if not isinstance(raw_models, Mapping):
        errors.append("models: must be tables [models.NAME] with a 'spec'")
        raw_models = {}
    for name, m in raw_models.items():
        if isinstance(m, str):
            m = {"spec": m}
        if not isinstance(m, Mapping):
            errors.append(f"models.{name}: must be a table with 'spec' (and optional 'params')")
            continue
        if not isinstance(m.get("spec"), str) or not m.get("spec"):
            errors.append(f"models.{name}.spec: missing or not a string (e.g. \"bm25\", \"minilm\", \"st:PATH\")")
        if not isinstance(m.get("params", {}), Mapping):
            errors.append(f"models.{name}.params: must be a table")
        for k in m:
            if k not in {"spec", "params"}:
                errors.append(f"models.{name}.{k}: unknown key (use spec, params)")
        models[name] = {"spec": m.get("spec"), "params": dict(m.get("params", {}) or {})}
    datasets: dict[str, dict[str, Any]] = {}
    raw_ds = data.get("datasets", {})
    if not isinstance(raw_ds, Mapping) or not raw_ds:
        errors.append("datasets: need at least one [datasets.NAME] table with a 'spec'")
        raw_ds = {}
    for name, d in raw_ds.items():
        if isinstance(d, str):
            d = {"spec": d}
        if not isinstance(d, Mapping) or not (isinstance(d.get("spec"), str) or isinstance(d.get("qrels"), str)):
            errors.append(f"datasets.{name}.spec: missing or not a string (\"demo\", a directory, \"irds:ID\"; "
                          "or give 'qrels' and 'runs' files for a track without documents)")
            continue
        entry: dict[str, Any] = {}
        for key, value in d.items():
            if key not in {"spec", "qrels", "runs"}:
                errors.append(f"datasets.{name}.{key}: unknown key (use spec, or qrels and runs)")
                continue
            if key == "spec" and (value == "demo" or str(value).startswith("irds:") or ":" in str(value)):
                entry[key] = value
                continue
            path = Path(str(value)) if Path(str(value)).is_absolute() else base / str(value)
            if not path.exists():
                errors.append(f"datasets.{name}.{key}: {path} does not exist")
            entry[key] = str(path)
        datasets[name] = entry
    steps: list[Step] = []
    raw_an = data.get("analyses", [])
    if not isinstance(raw_an, list) or not raw_an:
        errors.append("analyses: need at least one [[analyses]] entry with a 'type'")
        raw_an = []
    for i, a in enumerate(raw_an):
        where = f"analyses[{i}]"
        if not isinstance(a, Mapping):
            errors.append(f"{where}: must be a table")
            continue
        typ = a.get("type")
        try:
            analysis = get_analysis(str(typ))
        except ValidationError as exc:
            errors.append(f"{where}.type: {exc}")
            analysis = None
        for k in a:
            if k not in {"type", "datasets", "models", "params"}:
                errors.append(f"{where}.{k}: unknown key (use type, datasets, models, params)")
        ds = a.get("datasets", list(datasets))
        ms = a.get("models", list(models))
        for j, d in enumerate(ds if isinstance(ds, list) else []):
            if d not in datasets:
                errors.append(f"{where}.datasets[{j}]: unknown dataset {d!r}; defined: {sorted(datasets)}")
        for j, m in enumerate(ms if isinstance(ms, list) else []):
            if m not in models:
                errors.append(f"{where}.models[{j}]: unknown model {m!r}; defined: {sorted(models)}")
        if not isinstance(ds, list) or not isinstance(ms, list):
            errors.append(f"{where}: 'datasets' and 'models' must be lists of names")
            continue
        params = a.get("params", {})
        if not isinstance(params, Mapping):
            errors.append(f"{where}.params: must be a table")
            params = {}
        if analysis is not None:
            params = {k: (str(base / v) if k in path_fields(analysis.params) and isinstance(v, str) and v != "demo"
                          and not Path(v).is_absolute() else v) for k, v in params.items()}
            errors.extend(param_problems(analysis.params, params, where=f"{where}.params")[1])
        for d in ds:
            if (not ms and analysis is not None and analysis.min_models > 0
                    and "runs" not in datasets.get(d, {})):
                errors.append(f"{where}: no models for dataset {d!r}; define [models.NAME] tables "
                              "(or give the dataset 'runs' for an asl analysis)")
            steps.append(Step(str(typ), str(d), tuple(ms), dict(params)))
    seed = data.get("seed", 0)
    if not isinstance(seed, int):
        errors.append("seed: must be an integer")
        seed = 0
    results = data.get("results", "results")
    exp = Experiment(
        title=str(data.get("title", "ranklens experiment")),
        results_dir=Path(results) if Path(str(results)).is_absolute() else base / str(results),
        seed=seed, models=models, datasets=datasets, steps=tuple(steps),
    )
    return exp, errors


def load_experiment(path: str | Path) -> Experiment:
    """Read and validate an experiment file; raises one error listing every problem."""
    p = Path(path)
    if not p.is_file():
        raise ValidationError(f"{p}: experiment file not found")
    exp, errors = validate(_read(p), base=p.parent)
    if errors:
        raise ValidationError(f"{p}: {len(errors)} problem(s):\n  " + "\n  ".join(errors))
    return Experiment(**{**exp.__dict__, "source": p})


def run_experiment(exp: Experiment, *, engine: Any = None, report: bool = True,
                   show_progress: bool | None = None) -> dict[str, Any]:
    """Run the missing steps of ``exp``, index every result, render the report."""
    from .drive import load_dataset, run_analysis, save_results
    from .store import ResultsStore

    root = exp.results_dir
    root.mkdir(parents=True, exist_ok=True)
    store = ResultsStore(root)
    collections: dict[str, Any] = {}
    done, ran = 0, 0
    seconds: dict[str, float] = {}
    bar = progress(total=len(exp.steps), desc="experiment", unit="step", show=show_progress)
    try:
        for step in exp.steps:
            out = root / step.step_id
            marker = out / ".done"
            if marker.is_file():
                done += 1
                bar.update(1)
                continue
            if step.dataset not in collections:
                collections[step.dataset] = load_dataset(step.dataset, exp.datasets[step.dataset])
            models = {m: dict(exp.models[m]) for m in step.models}
            bar.set_postfix_str(step.step_id)
            t0 = time.perf_counter()
            results = run_analysis(step.analysis, collections[step.dataset], models, step.params, engine=engine,
                                   seed=exp.seed, work_dir=out / ".work")
            dirs = save_results(results, out)
            seconds[step.step_id] = round(time.perf_counter() - t0, 2)
            for d in dirs:
                store.add(d, dataset=step.dataset, model=_model_of(d, step.models))
            marker.write_text(json.dumps({"step": step.step_id, "results": [str(Path(d).relative_to(root)) for d in dirs]}))
            ran += 1
            bar.update(1)
    finally:
        bar.close()
    report_path = None
    if report:
        from .report import Report

        report_path = Report.from_dirs([root], title=exp.title).save(root / "report.html")
    return {"results_dir": str(root), "steps_run": ran, "steps_skipped": done, "report": str(report_path),
            "seconds": seconds}


def _model_of(result_dir: Path, models: tuple[str, ...]) -> str:
    name = Path(result_dir).name
    hits = [m for m in models if name.endswith(f"-{m}") or f"-{m}-" in name]
    return hits[0] if len(hits) == 1 else ""
