"""``ranklens demo``: a built-in experiment -- every registered analysis on the shipped demo
collection with BM25, TF-IDF and MiniLM, then one report.

The demo is an :class:`~ranklens.experiment.Experiment` with one step per analysis, whose
parameters are the analysis's declared :attr:`~ranklens.declare.Analysis.demo` overrides: it goes
through the same driver as the CLI and experiment files. Finished steps leave a ``.done`` marker
and are skipped, an interrupted demo resumes where it stopped (model calls inside an unfinished
step come from the engine cache), every result is indexed in the results store, and the report
is rendered last.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import ValidationError

__all__ = ["DEMO_MODELS", "demo_experiment", "run_demo"]

DEMO_MODELS = {"bm25": {"spec": "bm25", "params": {}}, "tfidf": {"spec": "tfidf", "params": {}},
               "minilm": {"spec": "minilm", "params": {}}}


def demo_experiment(out_dir: str | Path, *, only: list[str] | None = None) -> Any:
    """The demo as an :class:`~ranklens.experiment.Experiment` (one step per analysis)."""
    from .experiment import Experiment, Step
    from .registry import analyses

    registered = analyses()
    parts = list(registered)
    if only:
        unknown = sorted(set(only) - set(parts))
        if unknown:
            raise ValidationError(f"--only {', '.join(unknown)}: unknown analysis; use {', '.join(parts)}")
        parts = [p for p in parts if p in only]
    steps = tuple(Step(p, "demo", () if registered[p].max_models == 0 else tuple(DEMO_MODELS),
                       dict(registered[p].demo)) for p in parts)
    return Experiment(title="ranklens demo", results_dir=Path(out_dir), seed=0, models=DEMO_MODELS,
                      datasets={"demo": {"spec": "demo"}}, steps=steps)


def run_demo(out_dir: str | Path, *, engine: Any = None, only: list[str] | None = None,
             show_progress: bool | None = None) -> dict[str, Any]:
    """Run the demo analyses into ``out_dir`` and render ``out_dir/report.html``.

    Returns:
        ``{"results_dir", "report", "seconds": {analysis: seconds of the steps run now}, ...}``.
    """
    from .experiment import run_experiment

    exp = demo_experiment(out_dir, only=only)
    info = run_experiment(exp, engine=engine, show_progress=show_progress)
    names = {s.step_id: s.analysis for s in exp.steps}
    info["seconds"] = {names[k]: v for k, v in info.get("seconds", {}).items()}
    return info
