"""``ranklens demo``: a built-in experiment -- every analysis on the shipped demo collection with
BM25, TF-IDF and MiniLM, then one report.

Each analysis package provides ``<package>.demo.run_demo(out_dir, *, engine=None) -> list[Result]``
(the demo's choices: its training queries, text pairs and sentence-level qrels). The demo runs
them as the steps of an :class:`~ranklens.experiment.Experiment` (analysis type ``"demo"``), so
it shares the experiment runner: finished steps leave a ``.done`` marker and are skipped, an
interrupted demo resumes where it stopped (model calls inside an unfinished step come from the
engine cache), every result is indexed in the results store, and the report is rendered last.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from .errors import ValidationError

__all__ = ["DEMO_HOOKS", "demo_experiment", "demo_step", "run_demo"]

DEMO_HOOKS: dict[str, str] = {
    "asl": "ranklens.metrics.demo",
    "probes": "ranklens.probes.demo",
    "neighbors": "ranklens.neighbors.demo",
    "regimes": "ranklens.resampling.demo",
    "explain": "ranklens.explain.demo",
}

DEMO_MODELS = {"bm25": {"spec": "bm25", "params": {}}, "tfidf": {"spec": "tfidf", "params": {}},
               "minilm": {"spec": "minilm", "params": {}}}


def demo_step(collection: Any, models: Any, params: dict[str, Any], out_dir: Path, *, engine: Any = None,
              seed: int = 0) -> list[Path]:
    """Experiment adapter (type ``"demo"``): run the demo hook ``params["part"]`` into ``out_dir``."""
    part = params.get("part")
    if part not in DEMO_HOOKS:
        raise ValidationError(f"demo part {part!r} unknown; use one of {sorted(DEMO_HOOKS)}")
    importlib.import_module(DEMO_HOOKS[part]).run_demo(out_dir, engine=engine)
    return sorted(m.parent for m in out_dir.rglob("result.json")
                  if not any(p.startswith(".") for p in m.relative_to(out_dir).parts))


def demo_experiment(out_dir: str | Path, *, only: list[str] | None = None) -> Any:
    """The demo as an :class:`~ranklens.experiment.Experiment` (one ``"demo"`` step per part)."""
    from .experiment import Experiment, Step

    parts = list(DEMO_HOOKS)
    if only:
        unknown = sorted(set(only) - set(parts))
        if unknown:
            raise ValidationError(f"--only {', '.join(unknown)}: unknown analysis; use {', '.join(parts)}")
        parts = [p for p in parts if p in only]
    steps = tuple(Step("demo", "demo", tuple(DEMO_MODELS), {"part": p}) for p in parts)
    return Experiment(title="ranklens demo", results_dir=Path(out_dir), seed=0, models=DEMO_MODELS,
                      datasets={"demo": {"spec": "demo"}}, steps=steps)


def run_demo(out_dir: str | Path, *, engine: Any = None, only: list[str] | None = None,
             show_progress: bool | None = None) -> dict[str, Any]:
    """Run the demo analyses into ``out_dir`` and render ``out_dir/report.html``.

    Returns:
        ``{"results_dir", "report", "seconds": {part: seconds of the steps run now}, ...}``.
    """
    from .experiment import run_experiment

    exp = demo_experiment(out_dir, only=only)
    info = run_experiment(exp, engine=engine, show_progress=show_progress)
    names = {s.step_id: s.params["part"] for s in exp.steps}
    info["seconds"] = {names[k]: v for k, v in info.get("seconds", {}).items()}
    return info
