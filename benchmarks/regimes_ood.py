"""OOD correlation with full retrieval on the classic collections (issue 18 real-data check).

Each of Cranfield, CISI, CACM and NPL in turn is the in-domain collection: its judged queries are
drawn (seeded, 80 / 20: ReSTrain needs a pool much larger than the test set) into a training
pool and a test set, resampled with ReSTrain (k = 1, k'
lowered as needed) and ReSTTest (K = 5) on MiniLM query embeddings; tuned BM25 and the
memorising baseline are trained on every training set; every variant is evaluated in both
regimes and zero-shot on the three other collections, all by the paper's protocol (BM25 retrieves
from the whole collection, the memorising model re-ranks BM25's top 1000). The correlation of
in-domain interpolation / extrapolation nDCG@10 with OOD nDCG@10 across variants is the paper's
Table 5 analysis -- here over folds of two training recipes, so it carries the pseudo-replication
warning (the paper correlates 9 x 3 differently trained dense retrievers on BEIR).

Everything goes through the declared analysis (``ranklens.regimes.driver.run``).

    flock /tmp/ranklens-heavy.lock python benchmarks/regimes_ood.py > benchmarks/out/regimes_ood.log 2>&1
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import pandas as pd
from _harness import data_root

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("RANKLENS_PROGRESS", "0")

REPO = Path(__file__).resolve().parents[1]
COLLECTIONS = ("cranfield", "cisi", "cacm", "npl")
FMT = ("display.width", 250, "display.max_columns", 30, "display.float_format", "{:.4f}".format)


def log(*a):
    print(f"[{time.strftime('%H:%M:%S')}]", *a, flush=True)


def one(name: str, engine, out: Path) -> dict:
    from ranklens.io import load_collection
    from ranklens.regimes.declaration import Params
    from ranklens.regimes.driver import run

    coll = load_collection(name)
    p = Params(similarity="minilm", trainers=("bm25", "memorizing"), train_fraction=0.8,
               ood=tuple(c for c in COLLECTIONS if c != name))
    t0 = time.time()
    results = run(coll, {}, p, engine=engine, work_dir=out / name)
    reg = next(r for r in results if r.kind == "regimes-table")
    ood = next(r for r in results if r.kind == "regimes-ood-correlation")
    for r in (reg, ood):
        r.save(out / name / r.kind)
    with pd.option_context(*FMT):
        log(f"{name}: regime table ({time.time() - t0:.0f}s)\n" + reg.tables["paper"].to_string(index=False))
        log(f"{name}: OOD correlation\n" + ood.table.to_string(index=False))
        log(f"{name}: OOD correlation within each trainer\n" + ood.tables["by_model"].to_string(index=False))
    for w in (*reg.warnings, *ood.warnings):
        log(f"warning: {w}")
    return {"paper": reg.tables["paper"].to_dict(orient="records"), "ood": ood.table.to_dict(orient="records"),
            "warnings": [*reg.warnings, *ood.warnings], "seconds": time.time() - t0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "out" / "regimes_ood"))
    ap.add_argument("--collections", default=",".join(COLLECTIONS))
    args = ap.parse_args(argv)

    from ranklens.engine import ScoringEngine

    os.environ["RANKLENS_DATA"] = str(data_root())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    engine = ScoringEngine(cache=out / "cache")
    summary = {}
    for name in args.collections.split(","):
        summary[name] = one(name, engine, out)
        (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
