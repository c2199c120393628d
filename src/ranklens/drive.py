"""The one door to an analysis: load the dataset, call the declared driver, save the results.

The CLI subcommand ``ranklens NAME``, an experiment step ``type = "NAME"``, the demo and Python
all come through :func:`run_analysis` (and :func:`~ranklens.results.save_results`, the core's writer of
``OUT/<kind>/``, importable here), with a
``Params`` value made by :func:`ranklens.declare.make_params` -- so the same parameters give the
same numbers whichever door is used.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .declare import Analysis, make_params, params_dict
from .errors import ValidationError
from .registry import get_analysis
from .results import safe_name, save_results  # the core writes results; importable here as before

__all__ = ["load_dataset", "models_from_specs", "run_analysis", "safe_name", "save_results", "step_params",
           "summary_text"]

def load_dataset(name: str, entry: Mapping[str, Any]) -> Any:
    """A dataset entry (``spec`` and/or ``qrels`` and ``runs``) -> Collection.

    A ``qrels`` + ``runs`` track without ``spec`` gets no documents or queries (enough for ASL).
    """
    import pandas as pd

    from .io import Collection, DocStore, load_collection, read_qrels

    if entry.get("spec"):
        coll = load_collection(entry["spec"])
        if entry.get("qrels"):
            coll = Collection(coll.name, coll.docs, coll.queries, read_qrels(entry["qrels"]), coll.meta)
    elif entry.get("qrels"):
        coll = Collection(name, DocStore({}, name=name), pd.DataFrame({"query_id": [], "text": []}, dtype=str),
                          read_qrels(entry["qrels"]))
    else:
        raise ValidationError(f"dataset {name!r}: give a collection spec, or qrels (and runs)")
    if entry.get("runs"):
        coll = Collection(coll.name, coll.docs, coll.queries, coll.qrels, {**coll.meta, "runs": entry["runs"]})
    return coll


def models_from_specs(specs: Sequence[str], model_params: Sequence[str] = ()) -> dict[str, dict[str, Any]]:
    """CLI ``--model`` values (``SPEC`` or ``NAME=SPEC``) and ``--model-param`` values
    (``NAME.KEY=VALUE``, VALUE read as JSON when it parses, else a string) -> ``{name: {"spec",
    "params"}}``: what an experiment file's ``[models.NAME]`` tables give."""
    out: dict[str, dict[str, Any]] = {}
    for s in specs:
        name, sep, spec = s.partition("=")
        if not sep or ":" in name:
            name, spec = s, s
        if name in out:
            raise ValidationError(f"--model {s}: the name {name!r} is given twice; use NAME=SPEC to rename")
        out[name] = {"spec": spec, "params": {}}
    for s in model_params:
        target, sep, raw = s.partition("=")
        name, dot, key = target.rpartition(".")
        if not sep or not dot or not name or not key:
            raise ValidationError(f"--model-param {s}: write NAME.KEY=VALUE (e.g. w2v.tokenizer=spacy)")
        if name not in out:
            raise ValidationError(f"--model-param {s}: no --model named {name!r}; models: {sorted(out)}")
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw
        out[name]["params"][key] = value
    return out


def run_analysis(analysis: str | Analysis, collection: Any, models: Mapping[str, Any],
                 params: Any = None, *, engine: Any = None, seed: int = 0, work_dir: str | Path | None = None,
                 ) -> list[Any]:
    """Run one analysis on one collection with the given models; returns its results (unsaved).

    ``params`` is the analysis's ``Params`` value or a mapping of overrides (validated).
    ``models`` maps a name to a spec string, ``{"spec", "params"}``, or a model object
    (:mod:`ranklens.objects`: rankers, embedders, sentence-transformers and PyTerrier objects,
    functions; ``{"model": obj, "version": ...}``).
    """
    a = analysis if isinstance(analysis, Analysis) else get_analysis(analysis)
    if params is None or isinstance(params, Mapping):
        params = make_params(a.params, params or {})
    elif not isinstance(params, a.params):
        raise ValidationError(f"{a.name}: params must be {a.params.__module__}.{a.params.__qualname__}, "
                              f"got {type(params).__name__}")
    else:  # a Params built in Python is checked as every other door's (ranges, NaN, choices, paths)
        params = make_params(a.params, params_dict(params))
    from .declare import tools_only_problems

    unread = tools_only_problems(params)  # e.g. asl's places: its file tools print tables, its run does not
    if unread:
        from .errors import IgnoredOptionError

        raise IgnoredOptionError("; ".join(unread))
    if a.max_models is not None and len(models) > a.max_models:
        took = "no model" if a.max_models == 0 else f"at most {a.max_models} model(s)"
        raise ValidationError(f"{a.name} takes {took}, got {sorted(models)}: it would ignore them; remove --model "
                              f"(models = [...] in an experiment step; see `ranklens {a.name} --help`)")
    if a.needs_qrels and (collection.qrels is None or collection.qrels.empty):
        raise ValidationError(f"{collection.name}: the {a.name} analysis needs qrels")
    from .objects import normalise_models, registered

    models, objects = normalise_models(models)  # objects -> "object:<name>#<fingerprint>" specs, for this call
    with registered(objects):
        results = list(a.driver()(collection, models, params, engine=engine, seed=seed,
                                  work_dir=None if work_dir is None else Path(work_dir)))
    notes = tuple((getattr(collection, "meta", None) or {}).get("warnings") or ())  # e.g. irds: conventions mapped
    stamped = params_dict(params)  # the one place Params reach provenance: provenance.analysis_params
    return [r.with_analysis_params(stamped).with_warnings(*notes) for r in results]


def summary_text(results: Sequence[Any], dirs: Sequence[Path] | None = None) -> str:
    """What every analysis command prints on stdout: per result its kind, directory and summary
    numbers (the warnings go to stderr, once, from the command)."""
    lines = []
    for i, res in enumerate(results):
        where = f"\t{dirs[i]}" if dirs is not None else ""
        lines.append(f"# {res.kind}{where}")
        for k, v in (res.summary or {}).items():
            if isinstance(v, float):
                v = f"{v:.4f}"
            elif isinstance(v, (dict, list)):
                v = json.dumps(v, default=str)
            lines.append(f"{k}\t{v}")
    return "\n".join(lines) + "\n"


def step_params(analysis: str, values: Mapping[str, Any] | None, *, where: str = "params") -> dict[str, Any]:
    """An experiment step's full parameter dict (defaults filled in, validated)."""
    a = get_analysis(analysis)
    return params_dict(make_params(a.params, values or {}, where=where))
