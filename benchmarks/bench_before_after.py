"""Issue 13's before/after table: the steps of ``bench_asl.py`` and ``bench_io.py`` timed in two
source trees (``--before SRC``, e.g. a ``git worktree`` of the commit before the strict reader,
and this checkout), each step in its own processes, alternating between the trees as the
shared harness alternates its cases (one untimed warm-up per tree, >= 3 repetitions, min and
median). Every process imports the tree it is given through ``PYTHONPATH``.

Cases:

- ``asl`` (bench_asl's 10k x 1,000 run, 10M rows): read the run and the qrels (Arrow tables),
  rank + join (``rank_coded``), ASL (``asl_per_query``); file -> ASL in all; bench_asl's own
  steps (its "read" = run + qrels, its kernel step = the nine ASL variants); the process's peak
  RSS over its start / the run's Arrow size (bench_asl's "peak memory / Arrow run", goal <= 3);
  and, with ``--peer``, pytrec_eval's whole parse_run + parse_qrel + evaluate(map) process
  against ranklens's whole file -> ASL process (goal: ranklens >= 2x faster).
- ``io`` (bench_io's 5M-row run): ``read_run``, ``read_run_table`` (clean and messy file),
  ``rank_run`` trec_eval / float64 on distinct and heavy-tie scores.

Goal: no step slower than before by more than 10%.

Usage: nice -n 5 flock /tmp/ranklens-heavy.lock python benchmarks/bench_before_after.py
       --before /tmp/before/src [--cases asl,io] [--reps 3] [--peer]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _status(key: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) / 1024
    return float("nan")


def _child_asl(workdir: str, queries: int, depth: int) -> dict:
    import gc

    import numpy as np  # imported before the base RSS, as in bench_asl
    import pyarrow  # noqa: F401

    try:
        from ranklens.io.trec import read_qrels_table, read_run_table
        from ranklens.asl.asl import asl_per_query
        from ranklens.asl.ranking import rank_coded
    except ImportError:  # the tree before the rename
        from ranklens.metrics._trec import read_qrels_table, read_run_table
        from ranklens.metrics.asl import asl_per_query, rank_coded
    from bench_asl import generate, reset_peak

    run_p, _, qrels_p = generate(Path(workdir), queries, depth)
    gc.collect()
    reset_peak()
    base = _status("VmRSS:")
    out = {}
    t0 = t = time.perf_counter()
    table = read_run_table(run_p)
    out["read run"] = time.perf_counter() - t
    t = time.perf_counter()
    qrels = read_qrels_table(qrels_p)
    out["read qrels"] = time.perf_counter() - t
    t = time.perf_counter()
    rr = rank_coded(table, qrels)
    out["rank + join"] = time.perf_counter() - t
    t = time.perf_counter()
    v = asl_per_query(rr)
    out["ASL"] = time.perf_counter() - t
    out["file -> ASL"] = time.perf_counter() - t0
    out["peak / Arrow run"] = (_status("VmHWM:") - base) / (table.nbytes / 2**20)
    # bench_asl's own steps: "read" is the run and the qrels together; its kernel step runs the
    # nine ASL variants (3 policies x all / first 1 / first 10) on one ranked run
    out["bench_asl read (run + qrels)"] = out["read run"] + out["read qrels"]
    t = time.perf_counter()
    for policy in ("lower_bound", "paper", "expected"):
        for first in (None, 1, 10):
            asl_per_query(rr, first=first, unretrieved=policy,
                          collection_size=10**7 if policy == "expected" else None)
    out["bench_asl ASL, 9 variants"] = time.perf_counter() - t
    out["check"] = float(np.nanmean(v[rr.in_run]))
    return out


def _child_io(workdir: str, rows: int, queries: int) -> dict:
    from ranklens.io import rank_run, read_run
    try:
        from ranklens.io import read_run_table
    except ImportError:  # before the strict reader: the metrics' own Arrow reader
        from ranklens.metrics._trec import read_run_table

    path, messy = _io_files(Path(workdir), rows, queries)
    out = {}

    def timed(name, fn):
        t = time.perf_counter()
        r = fn()
        out[name] = time.perf_counter() - t
        return r

    run = timed("read_run", lambda: read_run(path))
    timed("read_run_table clean", lambda: read_run_table(path))
    timed("read_run_table messy", lambda: read_run_table(messy))
    heavy = run.assign(score=(run["score"] * 2).round() / 2)
    for label, r in (("distinct", run), ("heavy ties", heavy)):
        timed(f"rank_run(trec_eval) {label}", lambda r=r: rank_run(r))
        timed(f"rank_run(float64) {label}", lambda r=r: rank_run(r, ties="float64"))
    return out


def _io_files(work: Path, rows: int, queries: int) -> tuple[Path, Path]:
    """bench_io's run (same generator and seed), written once under ``work``."""
    import numpy as np
    import pandas as pd

    path, messy = work / f"io_{rows}x{queries}.run", work / f"io_{rows}x{queries}_messy.run"
    if path.exists() and messy.exists():
        return path, messy
    work.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    per = rows // queries
    frame = pd.DataFrame({
        "q": np.repeat(np.arange(queries) + 1000, per).astype(str), "Q0": "Q0",
        "d": rng.permutation(20_000_000)[: per * queries].astype(str),
        "r": np.tile(np.arange(1, per + 1), queries), "s": rng.normal(size=per * queries), "t": "sys",
    })
    frame.to_csv(path, sep=" ", header=False, index=False)
    messy.write_bytes(b"# a comment header\r\n" + path.read_bytes().replace(b" ", b"\t").replace(b"\n", b"\r\n"))
    return path, messy


PEER = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    run = pytrec_eval.parse_run(f)
with open(sys.argv[2]) as f:
    qrels = pytrec_eval.parse_qrel(f)
res = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
print(sum(v["map"] for v in res.values()) / len(res))
"""


def _table(results: dict[str, list[dict]], trees: list[str]) -> dict[str, dict[str, float]]:
    steps = [k for k in results[trees[0]][0] if k != "check"]
    meds: dict[str, dict[str, float]] = {}
    print(f"  {'step':30s}" + "".join(f"{t + ' min':>12s}{t + ' median':>15s}" for t in trees) + "   after/before")
    for s in steps:
        row = f"  {s:30s}"
        meds[s] = {}
        for t in trees:
            vals = [r[s] for r in results[t]]
            meds[s][t] = statistics.median(vals)
            row += f"{min(vals):12.3f}{meds[s][t]:15.3f}"
        r = meds[s][trees[1]] / meds[s][trees[0]]
        flag = "" if s == "peak / Arrow run" else ("  (> 1.10: slower)" if r > 1.10 else "")
        print(row + f"   {r:.2f}x{flag}", flush=True)
    return meds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", help="the src/ directory of the 'before' tree")
    ap.add_argument("--after", default=str(HERE.parent / "src"))
    ap.add_argument("--cases", default="asl,io")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--peer", action="store_true", help="also pytrec_eval parse + MAP (whole process)")
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--depth", type=int, default=1_000)
    ap.add_argument("--io-rows", type=int, default=5_000_000)
    ap.add_argument("--io-queries", type=int, default=5_000)
    ap.add_argument("--workdir", default="/tmp/ranklens_bench_asl")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        out = (_child_asl(args.workdir, args.queries, args.depth) if args.child == "asl"
               else _child_io(args.workdir, args.io_rows, args.io_queries))
        print(json.dumps(out))
        return 0
    if args.reps < 3 or not args.before:
        raise SystemExit("give --before SRC and --reps >= 3")
    from _harness import _peak_of, _rotations, compare_processes, ratio

    trees = {"before": args.before, "after": args.after}
    for case in args.cases.split(","):
        argv_of = {name: [sys.executable, __file__, "--child", case, "--workdir", args.workdir,
                          "--queries", str(args.queries), "--depth", str(args.depth),
                          "--io-rows", str(args.io_rows), "--io-queries", str(args.io_queries)]
                   for name in trees}
        results: dict[str, list[dict]] = {n: [] for n in trees}
        walls: dict[str, list[float]] = {n: [] for n in trees}
        peaks: dict[str, list[float]] = {n: [] for n in trees}
        env0 = dict(os.environ)
        print(f"\n== {case}: before = {args.before}, after = {args.after}", flush=True)
        for i, order in enumerate([list(trees)] + list(_rotations(list(trees), args.reps))):
            for name in order:
                os.environ["PYTHONPATH"] = trees[name] + os.pathsep + str(HERE)
                try:
                    wall, peak, out = _peak_of(argv_of[name], 3600)
                finally:
                    os.environ.clear()
                    os.environ.update(env0)
                if i == 0:
                    continue  # warm-up
                results[name].append(json.loads(out.strip().splitlines()[-1]))
                walls[name].append(wall)
                peaks[name].append(peak)
        checks = {n: results[n][0].get("check") for n in trees}
        print(f"  same result: {checks}")
        _table(results, list(trees))
        for n in trees:
            print(f"  {n:8s} whole process wall median {statistics.median(walls[n]):7.2f} s, "
                  f"peak RSS median {statistics.median(peaks[n]):7.0f} MiB (n={args.reps})")
        if case == "asl" and args.peer:
            from bench_asl import generate

            run_p, _, qrels_p = generate(Path(args.workdir), args.queries, args.depth)
            os.environ["PYTHONPATH"] = args.after + os.pathsep + str(HERE)
            t = compare_processes({"ranklens file -> ASL": argv_of["after"],
                                   "pytrec_eval parse + MAP": [sys.executable, "-c", PEER, str(run_p),
                                                               str(qrels_p)]}, reps=args.reps)
            os.environ.clear()
            os.environ.update(env0)
            ratio(t, "ranklens file -> ASL", "pytrec_eval parse + MAP", goal=0.5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
