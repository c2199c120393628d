"""The ``asl`` analysis's driver: runs (a track's files, or the models' top ``k``) -> the
evaluation table and, with two or more runs, the per-document distribution, RRIE, the
MAP -> ASL chain and MAP coverage, all under one :class:`~ranklens.asl.conventions.Conventions`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import IgnoredOptionError, ValidationError
from .conventions import COVERAGE, ChainOptions, Conventions
from .declaration import Params

__all__ = ["default_baseline", "run"]


def _median_depth(rr: Any) -> float:
    """A ranked run's median number of documents per query it answers."""
    import numpy as np

    n = rr.lengths[rr.in_run]
    return float(np.median(n)) if n.size else 0.0


def default_baseline(ranked: dict[str, Any]) -> str:
    """The baseline when none is named: the DEEPEST run (largest median number of documents per
    query), the first given among equally deep ones. ASL counts the non-relevant documents a run
    lists, so a shallow run scores better by listing less: the rule never makes a shallower run
    the reference (the alphabetically first run could be a 20-deep one)."""
    depth = {name: _median_depth(rr) for name, rr in ranked.items()}
    top = max(depth.values())
    return next(name for name in ranked if depth[name] == top)


def _runs(collection: Any, models: dict[str, dict[str, Any]], p: Params, engine: Any):
    from ..specs import runs_for_models
    from .evaluation import load_runs

    source = collection.meta.get("runs")
    if source:
        if p.k != Params().k:
            raise IgnoredOptionError(f"params.k = {p.k}: ignored: the runs are the dataset's run files ({source}), "
                                     "not made from models; drop k (--k) (an ignored option is an error)")
        return load_runs(source), {}
    return runs_for_models(collection, models, p.k, engine)


def _pair(names: list[str], baseline: str, p: Params, table: Any, ranked: dict[str, Any]) -> tuple[str, str]:
    """The two runs of the distribution and RRIE: ``compare``, else the baseline and the best
    other run by ASL among those at least as deep as the baseline (the deepest others when none
    is): a run never wins the pair by listing fewer documents."""
    if p.compare:
        for x in p.compare:
            if x not in names:
                raise ValidationError(f"params.compare: {x!r} is not one of the models {names}")
        return p.compare[0], p.compare[1]
    asl = table.set_index("model")["ASL"] if "ASL" in table else None
    others = [n for n in names if n != baseline]
    depth = {n: _median_depth(ranked[n]) for n in names}
    deep = [n for n in others if depth[n] >= depth[baseline]]
    if not deep:
        most = max(depth[n] for n in others)
        deep = [n for n in others if depth[n] == most]
    best = min(deep, key=lambda n: float(asl.loc[n])) if asl is not None else deep[0]
    return baseline, best


def _with_baseline_note(ev: Any, baseline: str, ranked: dict[str, Any]) -> Any:
    """The result with the summary naming how its baseline was chosen; when the runs differ in
    depth, a warning saying so right after the depth warning (the first lines a user reads)."""
    from dataclasses import replace

    depths = {n: _median_depth(r) for n, r in ranked.items()}
    summary = {**ev.summary, "baseline": baseline,
               "baseline_rule": "deepest run (median documents per query), first given among equals"}
    warns = list(ev.warnings)
    if len(set(depths.values())) > 1:
        note = (f"baseline {baseline!r} (median depth {depths[baseline]:g}) chosen as the deepest run (first "
                f"given among equals), not the first name: ASL favours shallower runs; name another with "
                "--baseline NAME (params.baseline)")
        at = 1 if warns and warns[0].startswith("runs of different depths") else 0
        warns.insert(at, note)
    return replace(ev, summary=summary, warnings=tuple(warns))


#: what only a comparison of two or more runs reads (the distribution, RRIE, the chain, the baseline tests)
_COMPARISON = ("baseline", "compare", "min_rel_diff", "alpha", "better_space", "tau_digits")


def _refuse_comparison_options(p: Params, names: list[str]) -> None:
    """With one run nothing is compared: a comparison option set (not its default) would be ignored."""
    if len(names) > 1:
        return
    defaults = Params()
    given = [f for f in _COMPARISON if getattr(p, f) != getattr(defaults, f)]
    if given:
        raise IgnoredOptionError(f"params.{given[0]}: ignored: there is one run ({names[0]}) and nothing to compare it "
                                 f"with; give two or more models or runs, or drop {', '.join(given)} "
                                 "(an ignored option is an error)")


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
    if p.baseline is not None and p.baseline not in runs:
        raise ValidationError(f"params.baseline: {p.baseline!r} is not one of the models {names}; name one of "
                              "them with --baseline NAME")
    _refuse_comparison_options(p, names)
    conv = Conventions.from_params(p)
    qrels = collection.qrels
    runs = conv.rank(qrels, runs)  # each run ranked once, handed on ranked to every result
    baseline = p.baseline or default_baseline(runs)
    ev = evaluate(qrels, runs, list(p.measures), baseline=baseline if len(runs) > 1 else None,
                  per_document=True, n_resamples=p.n_resamples, correction=p.correction,
                  confidence=p.confidence, seed=seed, depth_ratio=p.depth_ratio, **conv.kwargs())
    if len(runs) > 1 and p.baseline is None:
        ev = _with_baseline_note(ev, baseline, runs)
    results: list[Any] = [ev]
    if len(runs) > 1:
        a, b = _pair(names, baseline, p, ev.table, runs)
        results.append(asl_distribution(qrels, runs[a], runs[b], name=a, other_name=b, **conv.kwargs()))
        results.append(rrie(qrels, runs[a], runs[b], name_a=a, name_b=b, **conv.kwargs()))
        results.append(map_to_asl_chain(qrels, runs, **conv.kwargs(), **ChainOptions.from_params(p).kwargs()))
        results.append(map_coverage(qrels, runs, **conv.kwargs(*COVERAGE)))
    warn = skipped_warnings(skipped)
    return [r.with_warnings(*warn) for r in results]
