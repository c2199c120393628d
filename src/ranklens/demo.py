"""``ranklens demo``: a built-in experiment -- every registered analysis on the shipped demo
collection with BM25, TF-IDF and MiniLM, then one report.

The demo is an :class:`~ranklens.experiment.Experiment` with one step per analysis, whose
parameters are the analysis's declared :attr:`~ranklens.declare.Analysis.demo` overrides (the
quick demo: sample caps and tiny training budgets, about a minute on two cores) or, with
``full=True`` (``ranklens demo --full``), its :attr:`~ranklens.declare.Analysis.demo_full`
overrides (larger caps, the neural trainer, every sweep: minutes). The settings in force are
printed at the top of the report (``Experiment.notes``) and recorded in each result's provenance. It goes
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


def demo_experiment(out_dir: str | Path, *, only: list[str] | None = None, full: bool = False) -> Any:
    """The demo as an :class:`~ranklens.experiment.Experiment` (one step per analysis); ``full``:
    the :attr:`~ranklens.declare.Analysis.demo_full` settings instead of the quick ones."""
    from .experiment import Experiment, Step
    from .registry import analyses

    registered = analyses()
    parts = list(registered)
    if only:
        unknown = sorted(set(only) - set(parts))
        if unknown:
            raise ValidationError(f"--only {', '.join(unknown)}: unknown analysis; use {', '.join(parts)}")
        parts = [p for p in parts if p in only]
    settings = {p: dict(registered[p].demo_full if full else registered[p].demo) for p in parts}
    steps = tuple(Step(p, "demo", () if registered[p].max_models == 0 else tuple(DEMO_MODELS), settings[p])
                  for p in parts)
    notes = (("Full demo: the larger demo settings (minutes on two cores)." if full else
              "Quick demo: sample caps and tiny training budgets, not the papers' settings; "
              "`ranklens demo --full` runs the larger ones, and each analysis's command (`ranklens NAME --help`) "
              "defaults to its paper's."),
             *(f"{p}: " + ", ".join(f"{k}={_show(v)}" for k, v in settings[p].items()) for p in parts))
    return Experiment(title="ranklens demo" + (" (full)" if full else ""), results_dir=Path(out_dir), seed=0,
                      models=DEMO_MODELS, datasets={"demo": {"spec": "demo"}}, steps=steps, notes=notes)


def _show(v: Any) -> str:
    return ",".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)


def run_demo(out_dir: str | Path, *, engine: Any = None, only: list[str] | None = None,
             show_progress: bool | None = None, full: bool = False) -> dict[str, Any]:
    """Run the demo analyses into ``out_dir`` and render ``out_dir/report.html``.

    Returns:
        ``{"results_dir", "report", "seconds": {analysis: seconds of the steps run now},
        "notes": the settings in force, ...}``.
    """
    from .experiment import run_experiment

    exp = demo_experiment(out_dir, only=only, full=full)
    info = run_experiment(exp, engine=engine, show_progress=show_progress)
    names = {s.step_id: s.analysis for s in exp.steps}
    info["seconds"] = {names[k]: v for k, v in info.get("seconds", {}).items()}
    info["notes"] = list(exp.notes)
    return info
