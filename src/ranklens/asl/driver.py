"""The ``asl`` analysis's driver: runs (a track's files, or the models' top ``k``) -> the
evaluation table and, with two or more runs, the per-document distribution, RRIE, the
MAP -> ASL chain and MAP coverage, all under one :class:`~ranklens.asl.conventions.Conventions`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ValidationError
from .conventions import COVERAGE, ChainOptions, Conventions
from .declaration import Params

__all__ = ["run"]


def _runs(collection: Any, models: dict[str, dict[str, Any]], p: Params, engine: Any):
    from ..specs import runs_for_models
    from .evaluation import load_runs

    source = collection.meta.get("runs")
    if source:
        return load_runs(source), {}
    return runs_for_models(collection, models, p.k, engine)


def _pair(names: list[str], baseline: str, p: Params, table: Any) -> tuple[str, str]:
    if p.compare:
        for x in p.compare:
            if x not in names:
                raise ValidationError(f"params.compare: {x!r} is not one of the models {names}")
        return p.compare[0], p.compare[1]
    asl = table.set_index("model")["ASL"] if "ASL" in table else None
    others = [n for n in names if n != baseline]
    best = min(others, key=lambda n: float(asl.loc[n])) if asl is not None else others[0]
    return baseline, best


def run(collection: Any, models: dict[str, dict[str, Any]], params: Params, *, engine: Any = None, seed: int = 0,
        work_dir: Path | None = None) -> list[Any]:
    """ASL evaluation table; with two or more runs also the per-document distribution, RRIE, the
    MAP -> ASL chain (ΔSort, τ, ΔValue) and MAP coverage.

    Runs come from the dataset's ``runs`` (a run file or a directory of runs: CLI ``--runs``,
    experiment ``[datasets.X] runs``), else from the models (top ``k`` each).
    """
    from ..specs import need_models, skipped_warnings
    from .analyses import asl_distribution, rrie
    from .chain import map_coverage, map_to_asl_chain
    from .evaluation import evaluate

    p = params
    runs, skipped = _runs(collection, models, p, engine)
    need_models("asl", runs, 1, skipped)
    names = list(runs)
    baseline = p.baseline or names[0]
    if baseline not in runs:
        raise ValidationError(f"params.baseline: {baseline!r} is not one of the models {names}")
    conv = Conventions.from_params(p)
    qrels = collection.qrels
    runs = conv.rank(qrels, runs)  # each run ranked once, handed on ranked to every result
    ev = evaluate(qrels, runs, list(p.measures), baseline=baseline if len(runs) > 1 else None,
                  per_document=True, n_resamples=p.n_resamples, correction=p.correction,
                  confidence=p.confidence, seed=seed, depth_ratio=p.depth_ratio, **conv.kwargs())
    results: list[Any] = [ev]
    if len(runs) > 1:
        a, b = _pair(names, baseline, p, ev.table)
        results.append(asl_distribution(qrels, runs[a], runs[b], name=a, other_name=b, **conv.kwargs()))
        results.append(rrie(qrels, runs[a], runs[b], name_a=a, name_b=b, **conv.kwargs()))
        results.append(map_to_asl_chain(qrels, runs, **conv.kwargs(), **ChainOptions.from_params(p).kwargs()))
        results.append(map_coverage(qrels, runs, **conv.kwargs(*COVERAGE)))
    warn = skipped_warnings(skipped)
    return [r.with_warnings(*warn) for r in results]
