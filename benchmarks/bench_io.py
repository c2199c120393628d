"""Benchmark: TREC run loading and tie-broken ranking vs plain pandas, measured in the same run.

Usage: python benchmarks/bench_io.py [--rows 5000000] [--queries 5000]

Prints seconds and ratios (ranklens / pandas peer). Peers:
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
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ranklens.io import rank_run, read_run, read_run_table


def _time(fn, repeat=2):
    best = float("inf")
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--queries", type=int, default=5_000)
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

        t_peer, _ = _time(peer_read)
        t_ours, run = _time(lambda: read_run(path))
        print(f"read  pandas(sep=\\s+) {t_peer:7.2f}s  read_run {t_ours:7.2f}s  ratio {t_ours / t_peer:.2f}")
        t_tab, _ = _time(lambda: read_run_table(path))
        messy = Path(tmp) / "messy.run"
        messy.write_bytes(b"# a comment header\r\n" + path.read_bytes().replace(b" ", b"\t").replace(b"\n", b"\r\n"))
        t_messy, _ = _time(lambda: read_run_table(messy))
        print(f"read  read_run_table clean {t_tab:7.2f}s ratio {t_tab / t_peer:.2f}   "
              f"messy (tabs, CRLF, comment) {t_messy:7.2f}s ratio {t_messy / t_peer:.2f}")

    def peer_rank(df):
        out = df.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable")
        return out.assign(rank=out.groupby("query_id").cumcount() + 1)

    for label, r in (("distinct scores", run), ("heavy ties (x/2)", run.assign(score=(run["score"] * 2).round() / 2))):
        t_peer, _ = _time(lambda r=r: peer_rank(r), repeat=1)
        t_te, _ = _time(lambda r=r: rank_run(r), repeat=1)
        t_64, _ = _time(lambda r=r: rank_run(r, ties="float64"), repeat=1)
        print(f"rank  {label:17s} pandas sort_values {t_peer:7.2f}s  rank_run(trec_eval) {t_te:7.2f}s "
              f"ratio {t_te / t_peer:.2f}  rank_run(float64) {t_64:7.2f}s ratio {t_64 / t_peer:.2f}")


if __name__ == "__main__":
    main()
