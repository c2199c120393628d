"""Benchmark: the qrels duplicate check (issue 13) against the parse it follows and against other
ways of finding repeated (query_id, doc_id) pairs, measured in the same run.

Usage: python benchmarks/bench_qrels_check.py [--queries 10000] [--depth 1000] [--reps 7]
       [--workdir /tmp/ranklens_bench_asl]

The qrels are bench_asl's (same generator and seed: ~1.05M lines, 23 MB). Every case gets the
parsed Arrow table and answers "which rows repeat an earlier (query_id, doc_id) pair":

- ``arrow parse``: pyarrow's read of the file with ranklens's options (the read without checks:
  what "10% slower" is measured against);
- ``ranklens check``: the reader's check (``io._columns._qrels_duplicates``: sketch of the pair,
  two counting passes, exact comparison of the few candidates);
- ``pandas duplicated``: ``Table.to_pandas().duplicated([query_id, doc_id])`` (khash, compiled);
- ``arrow group_by``: ``Table.group_by([query_id, doc_id]).aggregate([])`` (Arrow's C++ hash
  grouping; the pairs repeat where it returns fewer rows);
- ``compiled hash``: a plain C open-addressing table over the Arrow buffers (FNV-1a of both ids,
  exact comparison on a tag match), built with ``gcc -O3`` into a temporary directory and called
  through ctypes; skipped when no C compiler is found. It is the floor a compiled check of this
  kind reaches here; ranklens does not ship it (it would be a build dependency).

All cases are checked to find the same number of repeats on a copy with 1,000 planted repeats.
Prints milliseconds and ratios through the shared harness (warm-up, alternating order, min and
median).
"""

from __future__ import annotations

import argparse
import ctypes
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import compare_calls, ratio  # noqa: E402
from bench_asl import generate  # noqa: E402

from ranklens.io import _columns  # noqa: E402

_C_SOURCE = r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
static inline uint64_t fnv(const uint8_t *p, int32_t n, uint64_t h) {
    for (int32_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ULL; }
    return h;
}
/* rows whose (query, doc) pair repeats an earlier row's */
int64_t repeats(const int32_t *qo, const uint8_t *qd, const int32_t *dof, const uint8_t *dd, int64_t n) {
    uint64_t cap = 1; while (cap < 2 * (uint64_t)n) cap <<= 1;
    uint64_t *slot = calloc(cap, 8);
    int64_t dups = 0; uint64_t qh = 0; int32_t p0 = -1, p1 = -1;
    for (int64_t i = 0; i < n; i++) {
        int32_t q0 = qo[i], q1 = qo[i + 1], d0 = dof[i], d1 = dof[i + 1];
        if (!(p0 >= 0 && q1 - q0 == p1 - p0 && memcmp(qd + q0, qd + p0, q1 - q0) == 0))
            qh = fnv(qd + q0, q1 - q0, 0xcbf29ce484222325ULL);  /* a query's lines come together */
        p0 = q0; p1 = q1;
        uint64_t h = fnv(dd + d0, d1 - d0, qh * 0x9E3779B97F4A7C15ULL) * 0x9E3779B97F4A7C15ULL;
        uint64_t s = (h >> 20) & (cap - 1), tag = h >> 44;
        for (;;) {
            uint64_t v = slot[s];
            if (!v) { slot[s] = (tag << 44) | (uint64_t)(i + 1); break; }
            if ((v >> 44) == tag) {
                int64_t j = (int64_t)(v & ((1ULL << 44) - 1)) - 1;
                if (dof[j + 1] - dof[j] == d1 - d0 && memcmp(dd + dof[j], dd + d0, d1 - d0) == 0
                    && qo[j + 1] - qo[j] == q1 - q0 && memcmp(qd + qo[j], qd + q0, q1 - q0) == 0) {
                    dups++; break;
                }
            }
            s = (s + 1) & (cap - 1);
        }
    }
    free(slot);
    return dups;
}
"""


def _compiled(tmp: Path):
    """The C peer as a Python callable ``table -> repeats``, or ``None`` without a compiler."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        return None
    (tmp / "repeats.c").write_text(_C_SOURCE)
    lib = tmp / "librepeats.so"
    subprocess.run([cc, "-O3", "-march=native", "-shared", "-fPIC", "-o", str(lib), str(tmp / "repeats.c")],
                   check=True)
    fn = ctypes.CDLL(str(lib)).repeats
    fn.restype = ctypes.c_int64

    def call(table) -> int:
        q = table.column("query_id").combine_chunks()
        d = table.column("doc_id").combine_chunks()
        if q.offset or d.offset:  # the C reads the buffers from row 0
            q, d = pa.concat_arrays([q]), pa.concat_arrays([d])
        ptr = [ctypes.c_void_p(b.address) for b in (q.buffers()[1], q.buffers()[2], d.buffers()[1], d.buffers()[2])]
        return int(fn(*ptr, ctypes.c_int64(len(q))))

    return call


def _ranklens(table, p) -> int:
    out, _ = _columns._qrels_duplicates(table, None, p)
    return table.num_rows - out.num_rows


def _pandas(table) -> int:
    return int(table.to_pandas().duplicated(["query_id", "doc_id"]).sum())


def _group_by(table) -> int:
    return table.num_rows - table.group_by(["query_id", "doc_id"]).aggregate([]).num_rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "ranklens_bench_asl")
    args = ap.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    _, _, qrels_p = generate(args.workdir, args.queries, args.depth)
    table = _columns._arrow(str(qrels_p), _columns.QRELS, b" ")
    print(f"qrels: {qrels_p} ({table.num_rows:,} lines, {qrels_p.stat().st_size / 2**20:.0f} MiB)")

    with tempfile.TemporaryDirectory() as tmp:
        compiled = _compiled(Path(tmp))
        # the same answer everywhere, on a copy with 1,000 repeated pairs (same grade) planted
        rng = np.random.default_rng(0)
        planted = pa.concat_tables([table, table.take(pa.array(rng.choice(table.num_rows, 1000, replace=False)))])
        found = {"ranklens check": _ranklens(planted, qrels_p), "pandas duplicated": _pandas(planted),
                 "arrow group_by": _group_by(planted)}
        if compiled is not None:
            found["compiled hash"] = compiled(planted)
        print("repeats found on the planted copy:", found)
        if set(found.values()) != {1000}:
            raise SystemExit("the cases disagree on the planted repeats")

        cases = {
            "arrow parse": lambda: _columns._arrow(str(qrels_p), _columns.QRELS, b" "),
            "ranklens check": lambda: _ranklens(table, qrels_p),
            "pandas duplicated": lambda: _pandas(table),
            "arrow group_by": lambda: _group_by(table),
        }
        if compiled is not None:
            cases["compiled hash"] = lambda: compiled(table)
        else:
            print("compiled hash: skipped (no gcc or cc on PATH)")
        times = compare_calls(cases, reps=args.reps)
    # the budget: the read may be at most 10% slower than the unchecked parse
    ratio(times, "ranklens check", "arrow parse", goal=0.10)
    for peer in ("pandas duplicated", "arrow group_by", "compiled hash"):
        if peer in times:
            ratio(times, "ranklens check", peer)
    if "compiled hash" in times:
        ratio(times, "compiled hash", "arrow parse", goal=0.10)


if __name__ == "__main__":
    main()
