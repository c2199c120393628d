"""The demo's cold wall time next to a fixed reference workload measured in the same run.

Reference: MiniLM (``sentence-transformers/all-MiniLM-L6-v2``, the offline package) encoding the
first 2,000 sentences of STS-B's training file, batch 32, fp32, in a fresh process (model load
included). The demo: ``ranklens demo --out TMP`` in a fresh process with an empty score cache
(``RANKLENS_CACHE_DIR`` pointed at a new folder) -- every analysis on the built-in collection and
the report, as a new user runs it. Prints each wall time, the ratio demo / reference (goal <= 7x)
and the demo's own seconds per analysis; alternates the two (reference, demo, reference, ...).

Run: ``RANKLENS_DATA=../shared/data HF_HUB_OFFLINE=1 python benchmarks/bench_demo.py [--reps 1] [--full]``
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REFERENCE = r"""
import csv, sys
from pathlib import Path
from ranklens.datareg import resolve
rows = []
with open(resolve("stsb") / "sts-train.csv", encoding="utf-8") as f:
    for line in f:
        parts = line.rstrip("\n").split("\t")
        rows += parts[5:7]
        if len(rows) >= 2000:
            break
from ranklens.specs import make_embedder
from ranklens.engine import ScoringEngine, encode_texts
emb = make_embedder("minilm")
vecs = encode_texts(emb, rows[:2000], engine=ScoringEngine(cache=False))
assert len(vecs) == 2000
"""


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    t = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True)
    secs = time.perf_counter() - t
    if proc.returncode != 0:
        sys.exit(f"{' '.join(argv[:4])} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return secs, proc.stderr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1, help="alternating repetitions (min is reported)")
    ap.add_argument("--full", action="store_true", help="time `ranklens demo --full` instead")
    args = ap.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "RANKLENS_PROGRESS": "0"}
    ref_t, demo_t, per = [], [], ""
    for _ in range(args.reps):
        ref_t.append(_timed([sys.executable, "-c", REFERENCE], env)[0])
        with tempfile.TemporaryDirectory() as tmp:
            cold = {**env, "RANKLENS_CACHE_DIR": str(Path(tmp) / "cache")}
            argv = [sys.executable, "-m", "ranklens", "demo", "--out", str(Path(tmp) / "out")]
            secs, err = _timed(argv + (["--full"] if args.full else []), cold)
            demo_t.append(secs)
            per = "\n".join(line for line in err.splitlines() if line.strip().endswith(" s"))
            size = sum(p.stat().st_size for p in (Path(tmp) / "out").rglob("*") if p.is_file())
    ref, demo = min(ref_t), min(demo_t)
    print(f"reference (MiniLM, 2,000 STS-B sentences, fresh process): {ref:7.1f} s")
    print(f"ranklens demo{' --full' if args.full else ''} (cold cache):               {demo:7.1f} s")
    print(f"ratio demo / reference: {demo / ref:.2f}x (goal <= 7x; and <= 90 s on a quiet 2-core machine)")
    print(f"results written: {size / 1e6:.1f} MB")
    print("per analysis (the demo's own report):\n" + per)


if __name__ == "__main__":
    main()
