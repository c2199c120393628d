"""Benchmark: TREC run loading and tie-broken ranking vs plain pandas, measured in the same run.

Usage: python benchmarks/bench_io.py [--rows 5000000] [--queries 5000]

Prints seconds and ratios (ranklens / pandas peer) through the shared harness (``_harness``:
warm-up, alternating order, >= 3 repetitions, min and median). Peers:
- read: ``pandas.read_csv(sep=r"\\s+", header=None, dtype=str ids, float64 score)`` (no validation);
  ranklens additionally checks encoding, column count, finite scores and duplicate pairs.
  ``read_run_table`` (the Arrow table the metrics use: same checks but duplicates) is timed on the
  clean file and on a "messy" copy (tabs, CRLF, a comment header: the normalised path).
- rank: ``DataFrame.sort_values([query_id, score, doc_id], ascending=[True, False, False])`` +
  ``groupby.cumcount`` (float64 rule, no validation); ranklens ``rank_run(ties="trec_eval")`` and
  ``rank_run(ties="float64")`` validate first. Also a heavy-tie variant (scores rounded to 0.5).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import compare_calls, ratio  # noqa: E402

from ranklens.io import rank_run, read_run, read_run_table  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--queries", type=int, default=5_000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    n, nq = args.rows, args.queries
    per = n // nq
    frame = pd.DataFrame({
        "q": np.repeat(np.arange(nq) + 1000, per).astype(str),
        "Q0": "Q0",
        "d": rng.permutation(20_000_000)[: per * nq].astype(str),
        "r": np.tile(np.arange(1, per + 1), nq),
        "s": rng.normal(size=per * nq),
        "t": "sys",
    })
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.txt"
        frame.to_csv(path, sep=" ", header=False, index=False)
        print(f"rows={len(frame):,} queries={nq:,} file={path.stat().st_size / 2**20:.0f} MiB")

        def peer_read():
            return pd.read_csv(path, sep=r"\s+", header=None,
                               dtype={0: str, 1: str, 2: str, 3: str, 4: "float64", 5: str})

        messy = Path(tmp) / "messy.run"
        messy.write_bytes(b"# a comment header\r\n" + path.read_bytes().replace(b" ", b"\t").replace(b"\n", b"\r\n"))
        print("read (harness: warm-up, alternating order, min/median):")
        t = compare_calls({"pandas read_csv(sep=\\s+)": peer_read, "read_run": lambda: read_run(path),
                           "read_run_table clean": lambda: read_run_table(path),
                           "read_run_table messy": lambda: read_run_table(messy)}, reps=args.reps)
        for mine in ("read_run", "read_run_table clean", "read_run_table messy"):
            ratio(t, mine, "pandas read_csv(sep=\\s+)")
        run = read_run(path)

    def peer_rank(df):
        out = df.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable")
        return out.assign(rank=out.groupby("query_id").cumcount() + 1)

    for label, r in (("distinct scores", run), ("heavy ties (x/2)", run.assign(score=(run["score"] * 2).round() / 2))):
        print(f"rank, {label}:")
        t = compare_calls({"pandas sort_values": lambda r=r: peer_rank(r),
                           "rank_run(trec_eval)": lambda r=r: rank_run(r),
                           "rank_run(float64)": lambda r=r: rank_run(r, ties="float64")}, reps=args.reps)
        ratio(t, "rank_run(trec_eval)", "pandas sort_values")
        ratio(t, "rank_run(float64)", "pandas sort_values")


if __name__ == "__main__":
    main()
