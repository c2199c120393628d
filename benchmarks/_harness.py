"""The fair benchmark harness of the evaluation benchmarks: same work on both sides, one
untimed warm-up per case, alternating order between repetitions (ABC, BCA, CAB, ...), >= 3
repetitions, min and median printed, ratios against a named peer measured in the same run.

Two kinds of case:

- :func:`compare_processes`: whole processes (``argv`` lists), timed wall-clock with their peak
  RSS read from the kernel (``os.wait4``'s ``ru_maxrss`` of the child) -- "file -> numbers" as
  a user runs it, interpreter start and imports included;
- :func:`compare_calls`: in-process callables (kernels on data already loaded).

    from _harness import compare_processes, ratio
    t = compare_processes({"ranklens": [...argv...], "pytrec_eval": [...argv...]}, reps=3)
    ratio(t, "ranklens", "pytrec_eval", goal=0.5)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path


def data_root(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The data root of the real-data benchmarks: ``explicit`` (``--data-dir``), else
    ``$RANKLENS_DATA``; never a path relative to this repository or the working directory."""
    root = explicit or os.environ.get("RANKLENS_DATA")
    if not root:
        raise SystemExit("give the data root (the folder holding cranfield/, stsb/, ...): --data-dir DIR or "
                         "$RANKLENS_DATA (here: RANKLENS_DATA=../shared/data)")
    p = Path(root).expanduser().resolve()
    if not p.is_dir():
        raise SystemExit(f"{p}: no such data root (--data-dir / $RANKLENS_DATA)")
    return p

Timing = dict[str, float]  # min_s, median_s, peak_mb (processes: median of the peaks)


def _rotations(names: list[str], reps: int):
    for r in range(reps):
        k = r % len(names)
        yield names[k:] + names[:k]


def _peak_of(argv: Sequence[str], timeout: float) -> tuple[float, float, str]:
    """Wall time and the child's own peak RSS (via ``/usr/bin/time``-free ``wait4``)."""
    t = time.perf_counter()
    proc = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # read pipes without reaping, then wait4 for this child's own rusage
    out_chunks, err_chunks = [], []
    import threading

    def drain(stream, sink):
        sink.append(stream.read())

    th = [threading.Thread(target=drain, args=(proc.stdout, out_chunks)),
          threading.Thread(target=drain, args=(proc.stderr, err_chunks))]
    for x in th:
        x.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    for x in th:
        x.join(timeout)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(map(str, argv))[:200]} exited {proc.returncode}: "
                           f"{''.join(err_chunks)[-2000:]}")
    return wall, usage.ru_maxrss / 1024, "".join(out_chunks)


def compare_processes(cases: Mapping[str, Sequence[str]], *, reps: int = 3, warmup: int = 1,
                      timeout: float = 1800, show: bool = True) -> dict[str, Timing]:
    """``{name: {"min_s", "median_s", "peak_mb"}}`` of whole-process cases (module docstring).
    The stdout of each case's last run is kept under ``"stdout"`` for a correctness check."""
    if reps < 3:
        raise ValueError("reps must be >= 3")
    names = list(cases)
    for _ in range(warmup):
        for n in names:
            _peak_of(cases[n], timeout)
    walls: dict[str, list[float]] = {n: [] for n in names}
    peaks: dict[str, list[float]] = {n: [] for n in names}
    last: dict[str, str] = {}
    for order in _rotations(names, reps):
        for n in order:
            w, p, out = _peak_of(cases[n], timeout)
            walls[n].append(w)
            peaks[n].append(p)
            last[n] = out
    res = {n: {"min_s": min(walls[n]), "median_s": statistics.median(walls[n]),
               "peak_mb": statistics.median(peaks[n]), "stdout": last[n]} for n in names}
    if show:
        for n, r in res.items():
            print(f"  {n:34s} wall min {r['min_s']:7.2f} s  median {r['median_s']:7.2f} s   "
                  f"peak RSS {r['peak_mb']:8.0f} MiB   (n={reps})", flush=True)
    return res


def compare_calls(cases: Mapping[str, Callable[[], object]], *, reps: int = 3, warmup: int = 1,
                  show: bool = True) -> dict[str, Timing]:
    """``{name: {"min_s", "median_s"}}`` of in-process callables (module docstring)."""
    if reps < 3:
        raise ValueError("reps must be >= 3")
    names = list(cases)
    for _ in range(warmup):
        for n in names:
            cases[n]()
    runs: dict[str, list[float]] = {n: [] for n in names}
    for order in _rotations(names, reps):
        for n in order:
            t = time.perf_counter()
            cases[n]()
            runs[n].append(time.perf_counter() - t)
    res = {n: {"min_s": min(v), "median_s": statistics.median(v)} for n, v in runs.items()}
    if show:
        for n, r in res.items():
            print(f"  {n:34s} min {r['min_s'] * 1e3:9.1f} ms   median {r['median_s'] * 1e3:9.1f} ms"
                  f"   (n={reps})", flush=True)
    return res


def ratio(times: Mapping[str, Timing], mine: str, peer: str, goal: float | None = None,
          what: str = "median_s") -> float:
    """Print and return ``times[mine][what] / times[peer][what]`` (and the min-time ratio)."""
    r = times[mine][what] / times[peer][what]
    tail = f"   (goal <= {goal}: {'met' if r <= goal else 'NOT met'})" if goal is not None else ""
    extra = (f", min {times[mine]['min_s'] / times[peer]['min_s']:.2f}x" if what == "median_s" else "")
    print(f"RATIO {what} {mine} / {peer}: {r:.2f}x{extra}{tail}", flush=True)
    return r
