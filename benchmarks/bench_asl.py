"""ASL speed and memory on a synthetic 10,000 queries x 1,000 documents run (10M rows, ~500 MB).

Peer: pytrec_eval (trec_eval's C code), the same stages on both sides, through the shared
harness (``_harness.compare_calls``: warm-up, alternating order, >= 3 reps, min and median):

- ranklens rank + join + ASL + AP from Arrow tables vs pytrec_eval ``evaluate`` (map) from its
  parsed dicts (its evaluate sorts and joins too)                 (target <= 1)
- heavy ties (scores rounded to 0.5) vs the same run without ties  (target <= 3)
- peak memory of the ranklens path / in-memory size of the run   (target <= 3)

Whole processes (file -> numbers, interpreter start included) are in ``bench_evaluate.py``.

Data as in perf-baselines.md: every retrieved doc is relevant with p=0.05 (grade 1-3) and judged
non-relevant with p=0.05; each query also has 5 unretrieved relevant docs; scores
N(0,1) + 0.7 * grade. Files are generated once under --workdir (not in the repo).

Usage: python benchmarks/bench_asl.py [--queries 10000] [--depth 1000] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak() -> None:
    """Reset this process's peak RSS (Linux: VmHWM := VmRSS), so the peak measured next belongs
    to the path being measured -- not to the data generation that may have run before it."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:  # not Linux / not permitted: ru_maxrss below then covers the whole process
        pass


def peak_mb() -> float:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def generate(workdir: Path, nq: int, depth: int, seed: int = 0) -> tuple[Path, Path, Path]:
    import numpy as np
    import pyarrow as pa
    from pyarrow import csv

    run_p, ties_p, qrels_p = (workdir / f"run_{nq}x{depth}.trec", workdir / f"run_{nq}x{depth}_ties.trec",
                              workdir / f"qrels_{nq}x{depth}.txt")
    if run_p.exists() and ties_p.exists() and qrels_p.exists():
        return run_p, ties_p, qrels_p
    workdir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    n = nq * depth
    q = np.repeat(np.arange(nq), depth)
    qid = np.char.add("q", np.char.zfill(q.astype(str), 5))
    # distinct, random-looking doc ids: i -> i * 2654435761 mod 1e9 is a bijection (odd, not a
    # multiple of 5), so no query lists a document twice (pytrec_eval rejects duplicates)
    doc_num = (np.arange(n, dtype=np.int64) * 2654435761) % 10**9
    doc = np.char.add("D", np.char.zfill(doc_num.astype(str), 9))
    u = rng.random(n)
    grade = np.where(u < 0.05, rng.integers(1, 4, n), 0)
    judged = u < 0.10
    score = rng.normal(size=n) + 0.7 * grade
    # sort by query, then score descending (as TREC files usually are)
    order = np.lexsort((-score, q))
    qid, doc, score, grade, judged = qid[order], doc[order], score[order], grade[order], judged[order]
    rank = (np.arange(n) % depth) + 1
    for path, sc in ((run_p, score), (ties_p, np.round(score * 2) / 2)):
        t = pa.table({"q": qid, "q0": np.full(n, "Q0"), "d": doc, "r": rank,
                      "s": np.round(sc, 6), "t": np.full(n, "bench")})
        csv.write_csv(t, str(path), csv.WriteOptions(include_header=False, delimiter=" ",
                                                     quoting_style="none"))
    extra_q = np.repeat(np.arange(nq), 5)
    extra = pa.table({
        "q": np.char.add("q", np.char.zfill(extra_q.astype(str), 5)), "i": np.full(extra_q.size, "0"),
        "d": np.char.add("U", np.char.zfill(rng.integers(0, 10**9, extra_q.size).astype(str), 9)),
        "r": rng.integers(1, 4, extra_q.size)})
    jq = pa.table({"q": qid[judged], "i": np.full(int(judged.sum()), "0"), "d": doc[judged],
                   "r": grade[judged]})
    csv.write_csv(pa.concat_tables([jq, extra]), str(qrels_p),
                  csv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"))
    return run_p, ties_p, qrels_p


def ranklens_path(run_p: Path, qrels_p: Path, n_docs: int) -> dict:
    from ranklens.io.trec import read_qrels_table, read_run_table
    from ranklens.asl.asl import asl_per_query
    from ranklens.asl.ranking import rank_coded

    out = {}
    gc.collect()
    reset_peak()
    base = rss_mb()
    t0 = time.perf_counter()
    table = read_run_table(run_p)
    qrels = read_qrels_table(qrels_p)
    out["read"] = time.perf_counter() - t0
    out["run_nbytes_mb"] = table.nbytes / 2**20
    t = time.perf_counter()
    rr = rank_coded(table, qrels)
    out["rank+join"] = time.perf_counter() - t
    t = time.perf_counter()
    vals = {}
    for policy in ("lower_bound", "paper", "expected"):
        for first in (None, 1, 10):
            v = asl_per_query(rr, first=first, unretrieved=policy,
                              collection_size=n_docs if policy == "expected" else None)
            vals[(policy, first)] = float(v[rr.in_run].mean())
    out["kernel_all_variants"] = time.perf_counter() - t
    t = time.perf_counter()
    asl_per_query(rr)
    out["kernel_ASL"] = time.perf_counter() - t
    out["total"] = time.perf_counter() - t0
    out["peak_over_base_mb"] = peak_mb() - base
    out["values"] = vals
    out["tied_rows"] = rr.tied_rows
    del rr, table, qrels
    gc.collect()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--depth", type=int, default=1_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--workdir", default="/tmp/ranklens_bench_asl")
    args = ap.parse_args(argv)
    t = time.perf_counter()
    run_p, ties_p, qrels_p = generate(Path(args.workdir), args.queries, args.depth)
    print(f"data: {run_p} ({run_p.stat().st_size / 2**20:.0f} MiB), generated/found in "
          f"{time.perf_counter() - t:.1f} s")
    n_docs = args.queries * args.depth + 5 * args.queries + 10**6

    # ranklens first, so this process's peak RSS so far belongs to the ranklens path
    rl = ranklens_path(run_p, qrels_p, n_docs)
    rl_ties = ranklens_path(ties_p, qrels_p, n_docs)
    print(f"\nrun: {args.queries} queries x {args.depth} docs; run in memory {rl['run_nbytes_mb']:.0f} MiB "
          f"(Arrow); ASL (paper) {rl['values'][('paper', None)]:.4f}, ASL@g1-10 "
          f"{rl['values'][('paper', 10)]:.4f}; tied rows {rl['tied_rows']} / {rl_ties['tied_rows']} (heavy ties)")
    print(f"ranklens peak RSS increase / run in-memory size = {rl['peak_over_base_mb'] / rl['run_nbytes_mb']:.2f} "
          f"(target <= 3) [{rl['peak_over_base_mb']:.0f} MiB]")
    fair_ratios(run_p, ties_p, qrels_p, args.reps)
    return 0


def fair_ratios(run_p: Path, ties_p: Path, qrels_p: Path, reps: int) -> None:
    """The same stages on both sides (harness: warm-up, alternating order, >= 3 reps):
    parsed input -> order + join with qrels + measure. ranklens from Arrow tables (rank_coded +
    ASL + AP kernels); pytrec_eval from its parsed dicts (its evaluate sorts and joins too)."""
    import pytrec_eval

    from _harness import compare_calls, ratio
    from ranklens.asl import asl, ranking
    from ranklens.io.trec import read_qrels_table, read_run_table
    from ranklens.asl.kernels import standard_per_query

    import ir_measures

    table, ties_t, qrels = read_run_table(run_p), read_run_table(ties_p), read_qrels_table(qrels_p)
    with open(run_p) as f:
        run_d = pytrec_eval.parse_run(f)
    with open(qrels_p) as f:
        qrels_d = pytrec_eval.parse_qrel(f)
    ev = pytrec_eval.RelevanceEvaluator(qrels_d, {"map"})
    ap_m = ir_measures.parse_measure("AP")

    def ranklens(t):
        def call():
            rr = ranking._rank_coded(t, qrels, "trec_eval")  # every call ranks and joins
            asl.asl_per_query(rr)
            standard_per_query(rr, ap_m)
        return call

    print("\nstages after parsing (ranklens: rank + join + ASL + AP; pytrec_eval: evaluate MAP):")
    times = compare_calls({"ranklens rank+join+ASL+AP": ranklens(table),
                           "ranklens heavy ties": ranklens(ties_t),
                           "pytrec_eval evaluate(map)": lambda: ev.evaluate(run_d)}, reps=reps)
    ratio(times, "ranklens rank+join+ASL+AP", "pytrec_eval evaluate(map)", goal=1.0)
    ratio(times, "ranklens heavy ties", "ranklens rank+join+ASL+AP", goal=3.0)


if __name__ == "__main__":
    sys.exit(main())
