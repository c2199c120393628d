"""Full ABNIRML probe suite on Cranfield (+ dataset-transfer probes) for BM25, TF-IDF, MiniLM.

Run once (minutes on 2 CPU cores):  python benchmarks/probes_cranfield.py [--out DIR]

* all measure-and-match and textual-manipulation probes on Cranfield judged documents, δ
  calibrated on Cranfield per model (median adjacent top-10 difference of a BM25 top-20 re-rank of
  30 sampled queries);
* dataset-transfer probes from ../shared/data (MRPC, JFLEG (+spell-checked), TurkCorpus, WNC
  sample, XSum sample, NQ sample per entity type);
* checks that MiniLM model calls == distinct (query, text) pairs, times the first run, a re-run
  from the result store, and a re-run from the engine cache only (fresh result dir).

Caps (to fit MiniLM on CPU): CAP_MM samples per measure-and-match probe, CAP_TR per manipulation
probe, CAP_DS per dataset-transfer probe (printed below).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("RANKLENS_SHARED_DATA", REPO.parent / "shared" / "data"))
# caps per probe; PROBES_CAP scales them (default 100; the NQ per-entity-type cap is half of it)
_CAP = int(os.environ.get("PROBES_CAP", "100"))
CAP_MM, CAP_TR, CAP_DS, CAP_NQ_TYPE = _CAP, _CAP, _CAP, max(1, _CAP // 2)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "ranklens_probes_cranfield"))
    ap.add_argument("--resume", action="store_true",
                    help="keep the result store and engine cache of a previous run (timings then "
                         "cover only what is missing)")
    args = ap.parse_args()
    out = Path(args.out)
    if not args.resume:
        shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "store2", ignore_errors=True)

    from ranklens.engine import ScoringEngine
    from ranklens.probes import delta_sweep, format_table, generate_samples, get_probe, plot_delta_sweep
    from ranklens.probes import plot_diff_distributions, run_probes, select_probes
    from ranklens.probes._collections import load_collection_any
    from ranklens.probes.delta import DeltaSpec, _bm25_topk
    from ranklens.rankers import make_ranker

    coll = load_collection_any(DATA / "cranfield")
    print(f"collection: {coll}")
    misspell = DATA / "misspellings" / "aspell_bench" / "common-all.batch0.tab"
    names_c = select_probes(["mm-*", "tr-*"])
    # manipulation probes over all judged docs only (the -rel/-nonrel variants are left out)
    names_c = [n for n in names_c if not (n.startswith("tr-") and (n.endswith("-rel") or n.endswith("-nonrel")))]
    names_ds = ["ds-paraphrase-mrpc", "ds-fluency-jfleg", "ds-fluency-jfleg-spell", "ds-simplicity-turk",
                "ds-neutrality-wnc", "ds-succinct-xsum", "ds-factuality-nq",
                *[f"ds-factuality-nq-{t}" for t in ("year", "date", "number", "name", "other")]]
    probes = []
    for n in names_c:
        cap = CAP_MM if n.startswith("mm-") else CAP_TR
        probes.append(get_probe(n, cap=cap, misspellings=str(misspell)))
    for n in names_ds:
        cap = CAP_NQ_TYPE if n.startswith("ds-factuality-nq-") else CAP_DS
        probes.append(get_probe(n, cap=cap, data_dir=str(DATA)))
    print(f"caps: measure-and-match {CAP_MM}, manipulation {CAP_TR}, transfer {CAP_DS} "
          f"(NQ per entity type {CAP_NQ_TYPE}); typo list {misspell.name}")

    t = time.perf_counter()
    samples = generate_samples(probes, coll, seed=0)
    t_gen = time.perf_counter() - t
    print(f"sample generation: {t_gen:.1f}s")

    rankers = {"BM25": make_ranker("bm25", corpus=coll.docs), "TF-IDF": make_ranker("tfidf", corpus=coll.docs),
               "MiniLM": make_ranker("minilm")}
    spec = DeltaSpec(mode="calibrate", k=10, depth=20, max_queries=30, seed=0)
    cache_dir = out / "cache"
    store = out / "store1"
    times = {}
    engine = ScoringEngine(cache=cache_dir)
    res = None
    for label, r in rankers.items():
        engine.reset_stats()
        t = time.perf_counter()
        res = run_probes(probes, {label: r}, coll, delta=spec, engine=engine, seed=0, out_dir=store,
                         samples=samples)
        times[label] = time.perf_counter() - t
        fp = r.fingerprint
        calls = engine.stats.by_fingerprint.get(fp, 0)
        # distinct (query, text) pairs this model needed: probe samples + calibration re-rank
        distinct = set()
        for ps in samples.values():
            for s in ps.samples:
                distinct.add((s.query, s.text_1))
                distinct.add((s.query, s.text_2))
        qids = sorted(coll.queries_dict())
        import numpy as np

        rng = np.random.default_rng(spec.seed)
        qids = sorted(qids[i] for i in rng.choice(len(qids), spec.max_queries, replace=False))
        top = _bm25_topk(coll, qids, spec.depth)
        qd = coll.queries_dict()
        for q in qids:
            for d in top[q]:
                distinct.add((qd[q], coll.docs[d]))
        print(f"[{label}] wall {times[label]:.1f}s  model calls {calls}  distinct pairs {len(distinct)}  "
              f"equal={calls == len(distinct)}  requested {engine.stats.pairs_requested}")
    assert res is not None
    # the last call's table includes all three models (accumulated in the store)
    print()
    print(format_table(res, fmt="text", models=list(rankers)))
    print(format_table(res, fmt="markdown", models=list(rankers)))
    res.save(out / "probe-table-full")
    sw = delta_sweep(res, probes=["tr-shuffle-words", "tr-shuffle-sents", "mm-rel-ctrl-len", "tr-typo"])
    sw.save(out / "probe-delta-sweep")
    plot_delta_sweep(sw).savefig(out / "delta_sweep.png", dpi=110)
    plot_diff_distributions(res, probes=["tr-shuffle-words", "tr-typo", "ds-fluency-jfleg"]).savefig(
        out / "diffs.png", dpi=110)
    print("deltas:", {k: round(v, 5) for k, v in res.summary["deltas"].items()})

    # re-run 1: everything from the result store (no scoring at all)
    engine2 = ScoringEngine(cache=cache_dir)
    t = time.perf_counter()
    run_probes(probes, rankers, coll, delta=spec, engine=engine2, seed=0, out_dir=store)
    t_store = time.perf_counter() - t
    print(f"re-run from result store (incl. sample generation): {t_store:.1f}s, model calls "
          f"{engine2.stats.pairs_scored}")
    # re-run 2: fresh result dir, engine cache warm
    engine3 = ScoringEngine(cache=cache_dir)
    t = time.perf_counter()
    run_probes(probes, rankers, coll, delta=spec, engine=engine3, seed=0, out_dir=out / "store2",
               samples=samples)
    t_cache = time.perf_counter() - t
    print(f"re-run from engine cache only: {t_cache:.1f}s, model calls {engine3.stats.pairs_scored}")
    first = sum(times.values())
    print(f"ratio cached-store re-run / first run (peer) = {t_store / first:.3f}")
    print(f"ratio engine-cache re-run / first run (peer) = {t_cache / first:.3f}")
    print(f"ratio MiniLM / BM25 (peer) first-run wall = {times['MiniLM'] / times['BM25']:.1f}")
    print(f"outputs in {out}")


if __name__ == "__main__":
    main()
