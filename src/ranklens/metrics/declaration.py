"""The ``asl`` analysis: atomized search length (Alex, Hall & Metzler) -- the evaluation table,
the per-document distribution, RRIE and the MAP -> ASL chain. Declared once; the CLI
(``ranklens asl``), experiment files (``type = "asl"``), the demo and the report derive from it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..declare import Analysis, ModelRows, ResultKind, param
from ..errors import ValidationError

__all__ = ["ANALYSIS", "Params", "run"]


@dataclass(frozen=True)
class Params:
    k: int = param(100, "depth of the runs made from the models (retrieve / re-rank top k)", min=1)
    baseline: str | None = param(None, "baseline system of the comparisons (default: the first)")
    rel: int = param(1, "minimum relevance grade counted as relevant", min=1)
    unretrieved: str = param("lower_bound", "where unretrieved relevant documents are placed",
                             choices=("lower_bound", "paper", "expected"))
    n_resamples: int = param(2000, "randomisation-test resamples of the paired comparisons", min=0)
    runs: str | None = param(None, "a run file or a directory of runs (a track) instead of the models' runs",
                             path=True)
    compare: tuple[str, ...] = param((), "two systems A,B for the distribution and RRIE (default: the "
                                         "baseline and the best other system by ASL)")

    def check(self) -> list[str]:
        return [] if len(self.compare) in (0, 2) else [f"compare: give two systems, got {list(self.compare)}"]


def run(collection: Any, models: dict[str, dict[str, Any]], params: Params, *, engine: Any = None, seed: int = 0,
        work_dir: Path | None = None) -> list[Any]:
    """ASL evaluation table, per-document distribution, RRIE and the MAP -> ASL chain.

    Runs come from ``params.runs`` or the dataset's ``runs`` (a run file or a directory of runs),
    else from the models (top ``k`` each).
    """
    from ..drive import need_models, runs_for_models, skipped_warnings
    from .analyses import asl_distribution, map_to_asl_chain, rrie
    from .evaluation import evaluate, load_runs

    p = params
    skipped: dict[str, str] = {}
    source = p.runs or collection.meta.get("runs")
    if source:
        runs: dict[str, Any] = load_runs(source)
    else:
        runs, skipped = runs_for_models(collection, models, p.k, engine)
    need_models("asl", runs, 1, skipped)
    names = list(runs)
    baseline = p.baseline or names[0]
    if baseline not in runs:
        raise ValidationError(f"params.baseline: {baseline!r} is not one of the systems {names}")
    size = len(collection.docs) or None
    ev = evaluate(collection.qrels, runs, baseline=baseline if len(runs) > 1 else None, rel=p.rel,
                  unretrieved=p.unretrieved, collection_size=size, per_document=True,
                  n_resamples=p.n_resamples, seed=seed)
    results: list[Any] = [ev]
    if len(runs) > 1:
        if p.compare:
            a, b = p.compare
            for x in (a, b):
                if x not in runs:
                    raise ValidationError(f"params.compare: {x!r} is not one of the systems {names}")
        else:
            table = ev.table.set_index("system")
            others = [n for n in names if n != baseline]
            a, b = baseline, min(others, key=lambda n: float(table.loc[n, "ASL"]))
        kw = {"rel": p.rel, "unretrieved": p.unretrieved, "collection_size": size}
        results.append(asl_distribution(collection.qrels, runs[a], runs[b], name=a, other_name=b, **kw))
        results.append(rrie(collection.qrels, runs[a], runs[b], name_a=a, name_b=b, **kw))
        results.append(map_to_asl_chain(collection.qrels, runs, **kw))
    warn = skipped_warnings(skipped)
    return [r.with_warnings(*warn) for r in results]


_M = "ranklens.metrics.plots"
ANALYSIS = Analysis(
    name="asl",
    title="Atomized search length",
    params=Params,
    run="ranklens.metrics.declaration:run",
    help="atomized search length: evaluation table, per-document distribution, RRIE, MAP -> ASL chain",
    description="ASL (Alex, Hall & Metzler) of every model's run (or of --runs files) against the qrels.",
    needs_qrels=True,
    kinds=(
        ResultKind("asl-evaluate", "Evaluation", plots=(f"{_M}:plot_evaluation",),
                   model_rows=ModelRows("system", ("ASL", "ASL@g1-1", "ASL@g1-10", "AP", "P@20", "RR", "nDCG@10"),
                                        n="n_queries"),
                   higher_is_better={"ASL": False, "ASL@g1-1": False, "ASL@g1-10": False}),
        ResultKind("asl-rrie", "Relative reduction in error", plots=(f"{_M}:plot_rrie",)),
        ResultKind("asl-distribution", "Per-document search lengths",
                   plots=(f"{_M}:plot_distribution", f"{_M}:plot_deltas")),
        ResultKind("asl-chain", "MAP -> ASL", plots=(f"{_M}:plot_chain",)),
        ResultKind("asl-tracks", "Best system per track", plots=(f"{_M}:plot_tracks",)),
    ),
    demo={},
)
