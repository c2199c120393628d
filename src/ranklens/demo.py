"""``ranklens demo``: every analysis on the shipped demo collection, then one report.

Each analysis package provides ``<package>.demo.run_demo(out_dir, *, engine=None) -> list[Result]``.
A finished analysis leaves a ``.done`` marker, so an interrupted demo resumes where it stopped
(model calls inside an unfinished analysis come from the engine cache).
"""

from __future__ import annotations

import importlib
import json
import time
from pathlib import Path
from typing import Any

from ._progress import progress

__all__ = ["DEMO_HOOKS", "run_demo"]

DEMO_HOOKS: list[tuple[str, str]] = [
    ("asl", "ranklens.metrics.demo"),
    ("probes", "ranklens.probes.demo"),
    ("neighbors", "ranklens.neighbors.demo"),
    ("regimes", "ranklens.resampling.demo"),
    ("explain", "ranklens.explain.demo"),
]


def run_demo(out_dir: str | Path, *, engine: Any = None, only: list[str] | None = None,
             show_progress: bool | None = None) -> dict[str, Any]:
    """Run the demo analyses into ``out_dir`` and render ``out_dir/report.html``."""
    from .report import Report
    from .store import ResultsStore

    root = Path(out_dir)
    root.mkdir(parents=True, exist_ok=True)
    store = ResultsStore(root)
    timings: dict[str, float] = {}
    hooks = [(n, m) for n, m in DEMO_HOOKS if not only or n in only]
    bar = progress(total=len(hooks), desc="demo", unit="analysis", show=show_progress)
    try:
        for name, module in hooks:
            bar.set_postfix_str(name)
            target = root / name
            marker = target / ".done"
            if marker.is_file():
                bar.update(1)
                continue
            mod = importlib.import_module(module)
            t0 = time.perf_counter()
            mod.run_demo(target, engine=engine)
            timings[name] = round(time.perf_counter() - t0, 2)
            for meta in sorted(target.rglob("result.json")):
                if not any(p.startswith(".") for p in meta.relative_to(root).parts):
                    store.add(meta.parent, dataset="demo")
            marker.write_text(json.dumps({"seconds": timings[name]}))
            bar.update(1)
    finally:
        bar.close()
    report = Report.from_dirs([root], title="ranklens demo").save(root / "report.html")
    return {"results_dir": str(root), "report": str(report), "seconds": timings}
