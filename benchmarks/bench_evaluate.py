"""``ranklens evaluate`` file -> numbers vs pytrec_eval, whole processes (issue 22's goals).

Cases (each one: ranklens and the peer on the same files, same measures, through
``_harness.compare_processes``: warm-up, alternating order, >= 3 reps, min/median wall, peak RSS):

- ``main``: 10k queries x 1,000 documents (10M rows; bench_asl's generator): ranklens evaluate
  AP + nDCG@10 + ASL vs pytrec_eval parse_run + parse_qrel + evaluate(map, ndcg_cut_10).
  Goal: wall <= 0.5x, peak RSS <= 1x.
- ``cliff1``: a 43-query x 1,000 run against qrels of 100k other queries (+ the 43).
- ``cliff2``: 100k queries x 10 documents (1M rows) -- no bootstrap unless --ci.
- ``cliff3``: a 400k-row run where one query has 200k documents (2,000 others x 100).
  Cliff goals: within 2x of pytrec_eval (wall and RSS).

Checks that both sides print the same means (to 1e-9) before timing anything.

Usage: flock /tmp/ranklens-heavy.lock python benchmarks/bench_evaluate.py [--cases main,cliff1]
       [--reps 3] [--workdir /tmp/ranklens_bench_eval] [--queries 10000 --depth 1000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import compare_processes, ratio  # noqa: E402
from bench_asl import generate  # noqa: E402

PEER = """
import sys, pytrec_eval
run_p, qrels_p = sys.argv[1], sys.argv[2]
with open(run_p) as f:
    run = pytrec_eval.parse_run(f)
with open(qrels_p) as f:
    qrels = pytrec_eval.parse_qrel(f)
res = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut_10"}).evaluate(run)
for m in ("map", "ndcg_cut_10"):
    print(m, repr(sum(v[m] for v in res.values()) / len(res)))
"""


def _write(path: Path, cols: list[np.ndarray]) -> None:
    import pyarrow as pa
    from pyarrow import csv

    t = pa.table({f"c{i}": c for i, c in enumerate(cols)})
    csv.write_csv(t, str(path), csv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"))


def _run_cols(q: np.ndarray, docs: np.ndarray, rng) -> list[np.ndarray]:
    n = q.size
    score = np.round(rng.normal(size=n), 6)
    order = np.lexsort((-score, q))
    qid = np.char.add("q", q[order].astype(str))
    rank = np.ones(n, np.int64)  # ranks are ignored by both sides
    return [qid, np.full(n, "Q0"), docs[order], rank, score[order], np.full(n, "b")]


def _qrels_cols(q: np.ndarray, docs: np.ndarray, rng) -> list[np.ndarray]:
    return [np.char.add("q", q.astype(str)), np.full(q.size, "0"), docs, rng.integers(0, 3, q.size)]


def cliff_data(workdir: Path, case: str) -> tuple[Path, Path]:
    """The three cliffs' files (generated once under ``workdir``)."""
    run_p, qrels_p = workdir / f"{case}.run", workdir / f"{case}.qrels"
    if run_p.exists() and qrels_p.exists():
        return run_p, qrels_p
    workdir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1)
    if case == "cliff1":
        rq = np.repeat(np.arange(43), 1000)
        qq = np.concatenate([np.repeat(np.arange(43), 50), np.repeat(np.arange(1000, 101_000), 5)])
    elif case == "cliff2":
        rq = np.repeat(np.arange(100_000), 10)
        qq = np.repeat(np.arange(100_000), 3)
    else:
        rq = np.concatenate([np.zeros(200_000, np.int64), np.repeat(np.arange(1, 2001), 100)])
        qq = np.repeat(np.arange(2001), 20)
    rdocs = np.char.add("D", np.arange(rq.size).astype(str))
    # judged documents: some retrieved ones, some not
    pick = rng.integers(0, rq.size, qq.size)
    qdocs = np.where(rng.random(qq.size) < 0.5, rdocs[pick], np.char.add("U", np.arange(qq.size).astype(str)))
    qq = np.where(qdocs.astype("U1") == "D", rq[pick], qq)
    key = np.char.add(np.char.add(qq.astype(str), "|"), qdocs)
    _, first = np.unique(key, return_index=True)
    first.sort()
    _write(run_p, _run_cols(rq, rdocs, rng))
    _write(qrels_p, _qrels_cols(qq[first], qdocs[first], rng))
    return run_p, qrels_p


def _means(stdout: str) -> dict[str, float]:
    """``map``/``ndcg_cut_10`` means from either side's stdout (ranklens: ir_measures' ``measure
    value`` lines, or an older tree's tsv ``model measure value``)."""
    out = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in ("map", "ndcg_cut_10"):
            out[parts[0]] = float(parts[1])
        elif len(parts) == 2 and parts[0] in ("AP", "nDCG@10"):
            out["map" if parts[0] == "AP" else "ndcg_cut_10"] = float(parts[1])
        elif len(parts) == 3 and parts[1] in ("AP", "nDCG@10") and not line.startswith("#"):
            out["map" if parts[1] == "AP" else "ndcg_cut_10"] = float(parts[2])
    return out


def bench(name: str, run_p: Path, qrels_p: Path, reps: int, measures: list[str], goals,
          before: str | None = None) -> None:
    print(f"\n== {name}: {run_p.name} ({run_p.stat().st_size / 2**20:.0f} MiB), {qrels_p.name}", flush=True)
    ranklens = [sys.executable, "-m", "ranklens", "evaluate", str(qrels_p), str(run_p), *measures,
                "--places", "12"]
    cases = {"ranklens evaluate": ranklens,
             "pytrec_eval (parse + evaluate)": [sys.executable, "-c", PEER, str(run_p), str(qrels_p)]}
    if before:  # an older tree's src, timed in the same alternation (the before/after figures)
        cases["before: ranklens evaluate"] = ["env", f"PYTHONPATH={before}", *ranklens]
    t = compare_processes(cases, reps=reps)
    a, b = _means(t["ranklens evaluate"]["stdout"]), _means(t["pytrec_eval (parse + evaluate)"]["stdout"])
    same = all(abs(a[k] - b[k]) <= 1e-9 for k in b) and set(b) <= set(a)
    print(f"  same means: {same}  (ranklens {a}, pytrec_eval {b})")
    ratio(t, "ranklens evaluate", "pytrec_eval (parse + evaluate)", goal=goals[0])
    ratio(t, "ranklens evaluate", "pytrec_eval (parse + evaluate)", goal=goals[1], what="peak_mb")
    if before:
        ratio(t, "before: ranklens evaluate", "pytrec_eval (parse + evaluate)")
        ratio(t, "before: ranklens evaluate", "pytrec_eval (parse + evaluate)", what="peak_mb")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", default="main,cliff1,cliff2,cliff3")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--depth", type=int, default=1_000)
    ap.add_argument("--workdir", default="/tmp/ranklens_bench_eval")
    ap.add_argument("--before", metavar="SRC", help="an older tree's src folder, timed beside this one")
    ap.add_argument("--main-goal", type=float, default=0.35, help="goal of the main case (issue 32: 0.35x at 5M)")
    ap.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    work = Path(args.workdir)
    if args.generate_only:
        for case in args.cases.split(","):
            generate(work, args.queries, args.depth) if case == "main" else cliff_data(work, case)
        return 0
    # data made in a child process: a forked case inherits this process's RSS until exec, so
    # this process stays small (the peak RSS printed is then each case's own)
    import subprocess
    import tempfile

    from bench_cli import bytecode  # every process caches its bytecode, as an installed package does

    bytecode(Path(tempfile.mkdtemp(prefix="ranklens_bench_eval_pyc_")))
    subprocess.run([sys.executable, __file__, "--generate-only", *(argv or sys.argv[1:])], check=True)
    for case in args.cases.split(","):
        if case == "main":
            run_p, _, qrels_p = generate(work, args.queries, args.depth)
            bench(f"main ({args.queries} x {args.depth})", run_p, qrels_p, args.reps,
                  ["AP", "nDCG@10", "ASL"], (args.main_goal, 1.0), args.before)
        else:
            run_p, qrels_p = cliff_data(work, case)
            bench(case, run_p, qrels_p, args.reps, ["AP", "nDCG@10"], (2.0, 2.0), args.before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
