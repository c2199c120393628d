"""A fair timing harness for the ``bench_*.py`` scripts: warm-up, alternating order, >= 3
repetitions, min and median printed, ratios against a named peer measured in the same run.

    from _timing import compare
    times = compare({"ranklens": f, "faiss": g}, reps=5)   # {name: (min_s, median_s)}
    ratio(times, "ranklens", "faiss")                        # by the medians

Each repetition runs every case once; the order is rotated between repetitions (ABC, BCA, CAB,
...) so that no case always runs first (cold caches) or last (warm caches). One untimed warm-up
call per case precedes the timed ones.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping


def compare(cases: Mapping[str, Callable[[], object]], *, reps: int = 3, warmup: int = 1,
            show: bool = True) -> dict[str, tuple[float, float]]:
    """``{name: (min seconds, median seconds)}`` of each case (module docstring)."""
    if reps < 3:
        raise ValueError("reps must be >= 3")
    names = list(cases)
    for _ in range(warmup):
        for n in names:
            cases[n]()
    runs: dict[str, list[float]] = {n: [] for n in names}
    for r in range(reps):
        for n in names[r % len(names):] + names[: r % len(names)]:
            t = time.perf_counter()
            cases[n]()
            runs[n].append(time.perf_counter() - t)
    out = {n: (min(v), statistics.median(v)) for n, v in runs.items()}
    if show:
        for n, (lo, med) in out.items():
            print(f"  {n:55s} min {lo * 1e3:9.1f} ms   median {med * 1e3:9.1f} ms   (n={reps})")
    return out


def ratio(times: Mapping[str, tuple[float, float]], mine: str, peer: str, goal: float | None = None) -> float:
    """Print and return ``median(mine) / median(peer)`` (and the min ratio)."""
    r = times[mine][1] / times[peer][1]
    lo = times[mine][0] / times[peer][0]
    tail = f" (goal <= {goal})" if goal is not None else ""
    print(f"RATIO {mine} / {peer}: median {r:.2f}x, min {lo:.2f}x{tail}")
    return r
