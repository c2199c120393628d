"""The ``probes`` analysis: ABNIRML behavioural probes (MacAvaney et al.). Declared once; the CLI
(``ranklens probes``), experiment files (``type = "probes"``), the demo and the report derive
from it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..declare import Analysis, ModelRows, ResultKind, param

__all__ = ["ANALYSIS", "Params", "run"]


@dataclass(frozen=True)
class Params:
    probes: tuple[str, ...] = param(("mm-*", "tr-*"), "probe names or glob patterns (`ranklens ls probes`)")
    cap: int = param(200, "samples per probe at most", min=1)
    delta: str = param("calibrate", "effect threshold: 'calibrate' on the dataset, or a number")
    alpha: float = param(0.01, "significance level of the paired t-tests", min=0.0, max=1.0)
    correction: str = param("bonferroni", "multiple-testing correction", choices=("bonferroni", "holm", "none"))
    sweep: tuple[str, ...] = param(("tr-shuffle-words", "tr-shuffle-sents"), "probes of the delta sweep")
    calibration_queries: int = param(30, "queries used to calibrate delta", min=1)
    calibration_depth: int = param(20, "ranking depth used to calibrate delta", min=2)


def run(collection: Any, models: dict[str, dict[str, Any]], params: Params, *, engine: Any = None, seed: int = 0,
        work_dir: Path | None = None) -> list[Any]:
    """Every selected probe (``cap`` samples each) for every model, delta calibrated on the
    dataset; plus a delta sweep of the ``sweep`` probes."""
    from ..drive import build_models, collection_texts, need_models, skipped_warnings
    from ..rankers import make_ranker
    from . import delta_sweep, get_probe, run_probes, select_probes
    from .delta import DeltaSpec, parse_delta

    p = params
    rankers, skipped = build_models(models, make_ranker, collection_texts(collection))
    need_models("probes", rankers, 1, skipped)
    probes = [get_probe(n, cap=p.cap) for n in select_probes(list(p.probes))]
    delta = (DeltaSpec(max_queries=p.calibration_queries, depth=p.calibration_depth)
             if p.delta == "calibrate" else parse_delta(p.delta))
    res = run_probes(probes, rankers, collection, delta=delta, engine=engine, seed=seed, alpha=p.alpha,
                     correction=p.correction)
    results: list[Any] = [res]
    sweep = [n for n in p.sweep if n in set(res.table["probe"])]
    if sweep and "calibration" in res.tables:
        results.append(delta_sweep(res, probes=sweep))
    warn = skipped_warnings(skipped)
    return [r.with_warnings(*warn) for r in results]


_P = "ranklens.probes.report"
ANALYSIS = Analysis(
    name="probes",
    title="Behavioural probes (ABNIRML)",
    params=Params,
    run="ranklens.probes.declaration:run",
    prefixes=("probe", "probes"),
    help="ABNIRML behavioural probes: effect scores with delta and paired tests",
    description="Measure-and-match, text-manipulation and dataset-transfer probes (MacAvaney et al., TACL 2022).",
    kinds=(
        ResultKind("probe-table", "Probe effect scores", plots=(f"{_P}:plot_diff_distributions",),
                   paper_table=f"{_P}:paper_table",
                   model_rows=ModelRows("model", ("score",), items=("probe", "dataset"), ci=("ci_low", "ci_high"),
                                        n="n")),
        ResultKind("probe-delta-sweep", "Delta sweep", plots=(f"{_P}:plot_delta_sweep",)),
    ),
    demo={},
)
