"""The probes analysis's driver: :func:`run` (named by the declaration's ``run``) builds the models,
the probes from the ``Params`` fields (the probe factories take the ``Params`` names), the δ
calibration source, and runs the probes and the δ sweep. The door stamps the ``Params`` into each
result's ``provenance.analysis_params``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .declaration import Params

__all__ = ["calibration_source", "probe_options", "run"]


def probe_options(p: Params) -> dict[str, Any]:
    """The probe factories' options of a ``Params`` value: its fields, by their names
    (:func:`ranklens.probes.catalog.get_probe` hands each factory the ones it takes)."""
    from ..declare import params_dict

    return params_dict(p)


def calibration_source(calibrate_on: str, texts: str, collection: Any, load: Any) -> tuple[Any, str | None]:
    """``(collection, run file or None)`` that δ is calibrated on: an existing file is a TREC run
    (its candidates' texts from ``texts`` or the analysed collection), anything else a collection
    spec (``''`` = the analysed collection)."""
    from ..errors import ValidationError

    from .delta import is_calibration_run

    if is_calibration_run(calibrate_on):
        return (load(texts) if texts else collection), calibrate_on
    if texts:
        raise ValidationError(f"calibration_texts={texts!r} is only used with a calibration run; "
                              f"calibrate_on={calibrate_on!r} is not a run file")
    return (load(calibrate_on) if calibrate_on else collection), None


def run(collection: Any, models: dict[str, dict[str, Any]], params: Params, *, engine: Any = None, seed: int = 0,
        work_dir: Path | None = None) -> list[Any]:
    """Every selected probe for every model with δ per model; plus a δ sweep of ``sweep``."""
    from ..io import load_collection
    from ..specs import build_models, collection_texts, make_ranker, need_models, skipped_warnings
    from .catalog import get_probe, select_probes
    from .delta import delta_specs
    from .run import delta_sweep, run_probes

    p = params
    rankers, skipped = build_models(models, make_ranker, collection_texts(collection))
    need_models("probes", rankers, 1, skipped)
    opts = probe_options(p)
    probes = [get_probe(n, **opts) for n in select_probes(list(p.probes))]
    calib, run_file = calibration_source(p.calibrate_on, p.calibration_texts, collection, load_collection)
    deltas = delta_specs(p.delta, list(rankers), max_queries=p.calibration_queries or None,
                         depth=p.calibration_depth, seed=seed, run=run_file)
    res = run_probes(probes, rankers, collection, delta=deltas, calibration_collection=calib, engine=engine,
                     seed=seed, alpha=p.alpha, correction=p.correction,
                     correction_scope=p.correction_scope, n_boot=p.n_boot,
                     symmetric_test=p.symmetric_test)
    results: list[Any] = [res]
    sweep = [n for n in p.sweep if n in set(res.table.loc[res.table["n"] > 0, "probe"])]
    if sweep and not res.tables["calibration"].empty:
        results.append(delta_sweep(res, names=sweep))
    warn = skipped_warnings(skipped)
    return [r.with_warnings(*warn) for r in results]
