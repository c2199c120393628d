"""Experiment files: models x datasets x analyses, run what is missing, then report.

An experiment file (TOML or YAML)::

    title = "Cranfield and DL"
    results = "results/cranfield"      # relative to the file
    seed = 0
    keep_work = false                  # true: keep a finished step's .work (fine-tuned models, checkpoints)

    [models.bm25]
    spec = "bm25"                      # any ranklens.specs.make_ranker / make_embedder spec
    [models.minilm]
    spec = "minilm"
    params = { precision = "bf16" }

    [datasets.cranfield]
    spec = "../shared/data/cranfield/derived"   # any ranklens.io.load_collection spec

    [datasets.dl19]                    # a track: qrels + run files, no documents (for "asl")
    qrels = "../shared/data/trec_dl_msmarco_passage/qrels.dl19-passage.txt"
    runs = "../shared/data/trec_dl_runs/official/dl19"

    [engine]                           # optional: where model batches run (default: here)
    type = "ray"                       # "local" or "ray"; address = "auto" for a running cluster

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
import shutil
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

_TOP_KEYS = {"title", "results", "seed", "models", "datasets", "analyses", "engine", "keep_work"}


@dataclass(frozen=True)
class Step:
    analysis: str
    dataset: str
    models: tuple[str, ...]
    params: Mapping[str, Any]
    inputs: Mapping[str, Any] = field(default_factory=dict)  # the dataset's entry and each model's
    #                                                          spec and params, as the file gives them

    @property
    def step_id(self) -> str:
        """``<analysis>-<dataset>-<hash>``: the hash covers the full (defaulted) parameters and what
        the dataset and model names stand for (their specs and params), so a changed default or a
        model renamed onto another spec never reuses an old step; names are sanitised into one
        directory name."""
        from .drive import safe_name, step_params

        params = step_params(self.analysis, self.params)
        h = sha256_json({"a": self.analysis, "d": self.dataset, "m": self.models, "p": params,
                         "i": dict(self.inputs)})[:8]
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
    engine: Mapping[str, Any] | None = None  # the [engine] table: where model batches run
    extra: Mapping[str, Any] = field(default_factory=dict)
    keep_work: bool = False  # keep a finished step's work folder (fine-tuned models, checkpoints)
    notes: tuple[str, ...] = ()  # lines shown under the report's title (the demo: its settings)
    objects: Mapping[str, Any] = field(default_factory=dict)  # model objects given from Python (load_experiment's
    #                                      models=): "object:NAME#FINGERPRINT" spec -> ranklens.objects.ModelObject


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


def _validate_models(raw: Any, errors: list[str]) -> dict[str, dict[str, Any]]:
    from .specs import check_spec

    models: dict[str, dict[str, Any]] = {}
    if not isinstance(raw, Mapping):
        errors.append("models: must be tables [models.NAME] with a 'spec'")
        return models
    for name, m in raw.items():
        m = {"spec": m} if isinstance(m, str) else m
        if not isinstance(m, Mapping):
            errors.append(f"models.{name}: must be a table with 'spec' (and optional 'params')")
            continue
        if not isinstance(m.get("spec"), str) or not m.get("spec"):
            errors.append(f"models.{name}.spec: missing or not a string (e.g. \"bm25\", \"minilm\", \"st:PATH\")")
        else:
            errors.extend(f"models.{name}.spec: {p}" for p in check_spec(m["spec"]))
        if not isinstance(m.get("params", {}), Mapping):
            errors.append(f"models.{name}.params: must be a table")
        errors.extend(f"models.{name}.{k}: unknown key (use spec, params)" for k in m if k not in {"spec", "params"})
        models[name] = {"spec": m.get("spec"), "params": dict(m.get("params", {}) or {})}
    return models


def _validate_datasets(raw: Any, base: Path, errors: list[str]) -> dict[str, dict[str, Any]]:
    datasets: dict[str, dict[str, Any]] = {}
    if not isinstance(raw, Mapping) or not raw:
        errors.append("datasets: need at least one [datasets.NAME] table with a 'spec'")
        return datasets
    for name, d in raw.items():
        d = {"spec": d} if isinstance(d, str) else d
        if not isinstance(d, Mapping) or not (isinstance(d.get("spec"), str) or isinstance(d.get("qrels"), str)):
            errors.append(f"datasets.{name}.spec: missing or not a string (\"demo\", a directory, \"irds:ID\"; "
                          "or give 'qrels' and 'runs' files for a track without documents)")
            continue
        entry: dict[str, Any] = {}
        for key, value in d.items():
            if key not in {"spec", "qrels", "runs"}:
                errors.append(f"datasets.{name}.{key}: unknown key (use spec, or qrels and runs)")
                continue
            if key == "spec" and (value == "demo" or ":" in str(value)):
                entry[key] = value
                continue
            path = Path(str(value)) if Path(str(value)).is_absolute() else base / str(value)
            if key == "spec" and not path.exists() and str(value) in _named_collections():
                entry[key] = value  # a named collection (cranfield, ...): the data registry finds it
                continue
            if not path.exists():
                errors.append(f"datasets.{name}.{key}: {path} does not exist")
            entry[key] = str(path)
        datasets[name] = entry
    return datasets


def _named_collections() -> set[str]:
    from .io.classic import SMART_COLLECTIONS

    return set(SMART_COLLECTIONS)


def _names(a: Mapping[str, Any], key: str, defined: Mapping[str, Any], where: str, errors: list[str]) -> list[str]:
    names = a.get(key, list(defined))
    if not isinstance(names, list):
        errors.append(f"{where}.{key}: must be a list of names")
        return []
    for j, n in enumerate(names):
        if n not in defined:
            errors.append(f"{where}.{key}[{j}]: unknown {key[:-1]} {n!r}; defined: {sorted(defined)}")
    return [str(n) for n in names]


def _validate_analysis(a: Any, where: str, models: Mapping[str, Any], datasets: Mapping[str, Any], base: Path,
                       errors: list[str]) -> list[Step]:
    if not isinstance(a, Mapping):
        errors.append(f"{where}: must be a table")
        return []
    errors.extend(f"{where}.{k}: unknown key (use type, datasets, models, params)"
                  for k in a if k not in {"type", "datasets", "models", "params"})
    try:
        analysis = get_analysis(str(a.get("type")))
    except ValidationError as exc:
        errors.append(f"{where}.type: {exc}")
        return []
    ds = _names(a, "datasets", datasets, where, errors)
    # an analysis that takes no model gets none by default (not every model of the file)
    ms = _names(a, "models", models, where, errors) if "models" in a or analysis.max_models != 0 else []
    if analysis.max_models is not None and len(ms) > analysis.max_models:
        errors.append(f"{where}.models: {analysis.name} takes "
                      f"{'no model' if analysis.max_models == 0 else f'at most {analysis.max_models} model(s)'}, "
                      f"got {ms}: it would ignore them; remove the step's models list")
    params = a.get("params", {})
    if not isinstance(params, Mapping):
        errors.append(f"{where}.params: must be a table")
        params = {}
    paths = path_fields(analysis.params)
    params = {k: (str(base / v) if k in paths and isinstance(v, str) and v != "demo" and not Path(v).is_absolute()
                  else v) for k, v in params.items()}
    problems = param_problems(analysis.params, params, where=f"{where}.params")[1]
    errors.extend(problems)
    if len(ms) < analysis.min_models and any("runs" not in datasets.get(d, {}) for d in ds):
        errors.append(f"{where}: {analysis.name} needs at least {analysis.min_models} model(s); define "
                      "[models.NAME] tables (or give the dataset 'runs' for an asl analysis)")
    if problems:
        return []
    return [Step(analysis.name, d, tuple(ms), dict(params),
                 {"dataset": dict(datasets[d]), "models": {m: dict(models[m]) for m in ms if m in models}})
            for d in ds if d in datasets]


def _check_writable(results_dir: Path, errors: list[str]) -> None:
    """The results directory (or its nearest existing parent) must be a writable directory."""
    import os

    p = results_dir
    while not p.exists() and p != p.parent:
        p = p.parent
    if not p.is_dir():
        errors.append(f"results: {p} is a file, not a directory; choose another 'results' path")
    elif not os.access(p, os.W_OK):
        errors.append(f"results: {p} is not writable; choose another 'results' path")


def _validate_engine(raw: Any, errors: list[str]) -> dict[str, Any] | None:
    """``[engine]``: ``type = "local" | "ray"`` and the dispatcher's options (checked by building it)."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        errors.append('engine: must be a table, e.g. [engine] type = "ray" address = "auto"')
        return None
    from .engine import make_dispatcher

    bad = [f"engine.{k}: must be a string, got {v!r} (e.g. type = \"ray\", address = \"auto\" or \"HOST:PORT\")"
           for k, v in raw.items() if k in ("type", "address") and not isinstance(v, str)]
    if bad:
        errors.extend(bad)
        return None
    try:
        make_dispatcher(raw)  # builds, starts nothing
    except ValidationError as exc:
        errors.append(str(exc))
        return None
    return dict(raw)


def validate(data: Mapping[str, Any], *, base: Path = Path(".")) -> tuple[Experiment, list[str]]:
    """Check an experiment mapping; returns the experiment and every error with its key path.

    Everything the analyses declare is checked here, before any model loads: parameter names,
    types, ranges and choices; model specs that resolve; paths that exist; a writable results
    directory.
    """
    errors = [f"{k}: unknown key; valid keys are {sorted(_TOP_KEYS)}" for k in data if k not in _TOP_KEYS]
    models = _validate_models(data.get("models", {}), errors)
    datasets = _validate_datasets(data.get("datasets", {}), base, errors)
    raw_an = data.get("analyses", [])
    if not isinstance(raw_an, list) or not raw_an:
        errors.append("analyses: need at least one [[analyses]] entry with a 'type'")
        raw_an = []
    steps = [s for i, a in enumerate(raw_an)
             for s in _validate_analysis(a, f"analyses[{i}]", models, datasets, base, errors)]
    seed = data.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        errors.append("seed: must be an integer")
        seed = 0
    results = str(data.get("results", "results"))
    results_dir = Path(results) if Path(results).is_absolute() else base / results
    _check_writable(results_dir, errors)
    engine = _validate_engine(data.get("engine"), errors)
    keep_work = data.get("keep_work", False)
    if not isinstance(keep_work, bool):
        errors.append(f"keep_work: must be true or false, got {keep_work!r}")
        keep_work = False
    exp = Experiment(title=str(data.get("title", "ranklens experiment")), results_dir=results_dir, seed=seed,
                     models=models, datasets=datasets, steps=tuple(steps), engine=engine, keep_work=keep_work)
    return exp, errors


def load_experiment(path: str | Path, *, models: Mapping[str, Any] | None = None) -> Experiment:
    """Read and validate an experiment file; raises one error listing every problem.

    ``models`` (from Python) adds or replaces the file's ``[models.NAME]`` by objects or specs, as
    :func:`ranklens.drive.run_analysis` takes them (a ``CrossEncoder`` or ``SentenceTransformer``
    object, a PyTerrier transformer, a callable, a ranklens model, a spec string). An object's
    fingerprint is part of its spec (``object:NAME#sha256:...``), so a step id -- and the reuse
    of finished steps -- follows the object's weights."""
    from .objects import registered

    p = Path(path)
    if not p.is_file():
        raise ValidationError(f"{p}: experiment file not found")
    data, objects = with_models(_read(p), models)
    with registered(objects):  # the objects' specs resolve while the file is checked
        exp, errors = validate(data, base=p.parent)
    if errors:
        raise ValidationError(f"{p}: {len(errors)} problem(s):\n  " + "\n  ".join(errors))
    return Experiment(**{**exp.__dict__, "source": p, "objects": objects})


def with_models(data: Mapping[str, Any], models: Mapping[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """A file's data with ``models`` (objects or specs, from Python) added over its
    ``[models.NAME]``, and the adapted objects to register while it is checked and run
    (:func:`ranklens.objects.normalise_models`: each object becomes ``object:NAME#FINGERPRINT``)."""
    from .objects import normalise_models

    specs, objects = normalise_models(dict(models)) if models else ({}, {})
    out = dict(data)
    if specs:
        file_models = out.get("models") or {}
        out["models"] = {**(dict(file_models) if isinstance(file_models, Mapping) else {}), **specs}
    return out, dict(objects)


def run_experiment(exp: Experiment, *, engine: Any = None, report: bool = True,
                   show_progress: bool | None = None) -> dict[str, Any]:
    """Run the missing steps of ``exp``, index every result, render the report."""
    from .objects import registered

    with registered(exp.objects):  # model objects given from Python resolve by their specs
        return _run_steps(exp, engine=engine, report=report, show_progress=show_progress)


def _run_steps(exp: Experiment, *, engine: Any, report: bool, show_progress: bool | None) -> dict[str, Any]:
    from .drive import load_dataset, run_analysis, save_results
    from .files import write_text_atomic
    from .store import ResultsStore

    root = exp.results_dir
    root.mkdir(parents=True, exist_ok=True)
    store = ResultsStore(root)
    engine, own = _step_engine(exp, engine)
    collections: dict[str, Any] = {}
    done, ran = 0, 0
    seconds: dict[str, float] = {}
    warned: list[str] = []  # each result's warnings, once, for the door to print
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
            warned.extend(f"{step.step_id}: {r.kind}: {w}" for r in results for w in r.warnings)
            for d in dirs:
                store.add(d, dataset=step.dataset, model=_model_of(d, step.models))
            write_text_atomic(marker, json.dumps({"step": step.step_id, "results": [str(Path(d).relative_to(root))
                                                                                for d in dirs]}), what="step marker")
            if not exp.keep_work:  # a finished step needs no checkpoints: the results hold what it found
                shutil.rmtree(out / ".work", ignore_errors=True)
            ran += 1
            bar.update(1)
    finally:
        bar.close()
        if own:  # the Ray actors (and a local Ray) the [engine] table started
            getattr(engine.dispatcher, "close", lambda: None)()
    report_path = None
    if report:
        from .report import Report

        report_path = Report.from_dirs([root], title=exp.title, notes=exp.notes).save(root / "report.html")
    if exp.notes:  # a report rendered later from the folder (`ranklens report DIR`) shows them too
        from .store import write_report_notes

        write_report_notes(root, title=exp.title, notes=exp.notes)
    return {"results_dir": str(root), "steps_run": ran, "steps_skipped": done, "report": str(report_path),
            "seconds": seconds, "warnings": warned}


def _step_engine(exp: Experiment, engine: Any) -> tuple[Any, bool]:
    """The engine the steps use: ``engine`` when given; else the file's ``[engine]`` table on the
    default engine's cache -- unless ``--engine`` / ``RANKLENS_ENGINE`` already chose a non-local
    dispatcher (the command line wins). Returns ``(engine, whether this run built it)``."""
    if engine is not None or not exp.engine:
        return engine, False
    from .engine import LocalDispatcher, ScoringEngine, default_engine, make_dispatcher

    base = default_engine()
    if not isinstance(base.dispatcher, LocalDispatcher):
        return None, False
    built = ScoringEngine(cache=base.cache, batch_size=base.batch_size, dispatcher=make_dispatcher(exp.engine),
                          show_progress=base.show_progress)
    return built, True


def _model_of(result_dir: Path, models: tuple[str, ...]) -> str:
    name = Path(result_dir).name
    hits = [m for m in models if name.endswith(f"-{m}") or f"-{m}-" in name]
    return hits[0] if len(hits) == 1 else ""
