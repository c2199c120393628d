"""The full ASL analysis of the TREC DL 2019 + 2020 passage runs, timed (target < 60 s).

Reads ``../shared/data/trec_dl_runs`` (official top-100 runs, the 10 full-depth runs, the
community runs) and ``../shared/data/trec_dl_msmarco_passage`` qrels. Prints:

1. evaluate tables (ASL, ASL@g1-1, ASL@g1-10, AP, P@20, RR, nDCG@10) per year, with paired tests
   against BM25, Holm correction and bootstrap CIs;
2. the headline figures for the full-depth DL 2020 runs p_bm25 and pash_r3 (NIST's best
   neural run): ASL / ASL@g1-10 at rel=1 and rel=2 and their RRIE;
3. distribution summaries (+ plots written to --out), the MAP -> ASL chain per year, MAP
   coverage, the track summary and the tie report.

Which numbers depend on the top-100 cut: everything that looks below rank 100 -- ASL, ASL@g1-10
(and ASL@g1-1, RR, AP when a query has no relevant document in the top 100) -- is computed on
the *cut* list for the 86 cut runs: unretrieved relevant documents are charged irrel_q + 1 with
irrel_q <= 100. Only the full-depth runs give ASL on the submitted 1000-deep lists. nDCG@10 and
P@20 do not depend on the cut.

Usage: python benchmarks/asl_dl_analysis.py [--out DIR] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--out", default="/tmp/ranklens_asl_dl")
    ap.add_argument("--resamples", type=int, default=2000)
    args = ap.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    from ranklens.metrics import (
        asl_distribution,
        evaluate,
        map_coverage,
        map_to_asl_chain,
        plot_chain,
        plot_deltas,
        plot_distribution,
        rrie,
        tie_report,
        track_summary,
    )

    data = Path(args.data)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs_dir = data / "trec_dl_runs"
    qrels = {y: data / "trec_dl_msmarco_passage" / f"qrels.{y}-passage.txt" for y in ("dl19", "dl20")}
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 30)
    fmt = lambda v: f"{v:.4f}"  # noqa: E731

    t0 = time.perf_counter()
    timings = {}

    def tick(label, t):
        timings[label] = time.perf_counter() - t

    # ---------------------------------------------------------------------------- 1 evaluate
    tables = {}
    for year, base in (("dl19", "bm25base_p"), ("dl20", "p_bm25")):
        t = time.perf_counter()
        official = {p.name.split(".")[0]: p for p in sorted((runs_dir / "official" / year).glob("*.gz"))}
        res = evaluate(qrels[year], official, baseline=base, n_resamples=args.resamples)
        tables[year] = res
        res.save(out / f"evaluate-{year}-top100")
        tick(f"evaluate {year} ({len(official)} top-100 runs)", t)
        print(f"\n=== {year}: official runs (top-100 cut; ASL/AP/RR/ASL@g1-* depend on the cut), "
              f"rel=1, baseline {base} ===")
        tab = res.table.merge(
            res.tables["significance"].query("measure == 'ASL'")[["system", "ttest_p_adj",
                                                                  "rand_p_adj"]],
            on="system", how="left")
        print(tab.head(12).to_string(index=False, float_format=fmt))
        print(f"... {len(tab)} runs; best by measure: "
              + ", ".join(f"{m}={b['system']}" for m, b in res.summary["best"].items()))

    full = {y: {p.name.split(".")[0]: p for p in sorted((runs_dir / "official_full_depth" / y).glob("*.gz"))}
            for y in ("dl19", "dl20")}
    t = time.perf_counter()
    head_rows = []
    for rel in (1, 2):
        res = evaluate(qrels["dl20"], full["dl20"], ["ASL", "ASL@g1-1", "ASL@g1-10", "AP", "P@20",
                                                      "RR", "nDCG@10"], rel=rel,
                       baseline="p_bm25", n_resamples=args.resamples)
        res.save(out / f"evaluate-dl20-full-rel{rel}")
        print(f"\n=== dl20 full-depth runs, rel={rel} (no cut) ===")
        print(res.table.to_string(index=False, float_format=fmt))
        tb = res.table.set_index("system")
        for s in ("p_bm25", "pash_r3"):
            head_rows.append({"run": s, "rel": rel, "ASL": tb.loc[s, "ASL"],
                              "ASL@g1-10": tb.loc[s, "ASL@g1-10"],
                              "AP": tb.loc[s, res.summary["measures"][3]]})
    tick("evaluate dl20 full depth (rel 1 and 2)", t)
    print("\n=== HEADLINE: DL 2020 full depth, p_bm25 vs pash_r3 (unretrieved=lower_bound) ===")
    print(pd.DataFrame(head_rows).to_string(index=False, float_format=fmt))
    for policy in ("paper", "expected"):
        # expected: MS MARCO v1 passage collection, 8,841,823 passages
        r = evaluate(qrels["dl20"], {k: full["dl20"][k] for k in ("p_bm25", "pash_r3")},
                     ["ASL", "ASL@g1-10", "ASL(rel=2)", "ASL(rel=2)@g1-10"], unretrieved=policy,
                     collection_size=8_841_823 if policy == "expected" else None,
                     n_resamples=10)
        print(f"(unretrieved={policy}):")
        print(r.table.drop(columns=["n_queries", "tied_rows"]).to_string(index=False,
                                                                           float_format=fmt))

    # ---------------------------------------------------------------------------- 3 RRIE
    t = time.perf_counter()
    for rel in (1, 2):
        rr = rrie(qrels["dl20"], full["dl20"]["p_bm25"], full["dl20"]["pash_r3"],
                  name_a="p_bm25", name_b="pash_r3", rel=rel)
        rr.save(out / f"rrie-dl20-rel{rel}")
        print(f"\n=== RRIE pash_r3 over p_bm25, DL20 full depth, rel={rel} ===")
        print(rr.table.to_string(index=False, float_format=fmt))
    tick("rrie", t)

    # ---------------------------------------------------------------------------- 2 distribution
    t = time.perf_counter()
    dist = asl_distribution(qrels["dl20"], full["dl20"]["p_bm25"], full["dl20"]["pash_r3"],
                            name="p_bm25", other_name="pash_r3")
    d = dist.save(out / "distribution-dl20")
    plot_distribution(dist).savefig(d / "distribution.png", dpi=110)
    plot_deltas(dist).savefig(d / "deltas.png", dpi=110)
    tick("distribution + plots", t)
    print("\n=== distribution DL20 full depth (per relevant document, rel=1) ===")
    print(dist.table.pivot(index="bucket", columns="system", values="count")
          .reindex(list(dict.fromkeys(dist.table["bucket"]))).to_string())
    print("deltas:", dist.summary["deltas"])

    # ---------------------------------------------------------------------------- 4 chain
    t = time.perf_counter()
    for year in ("dl19", "dl20"):
        official = {p.name.split(".")[0]: p for p in sorted((runs_dir / "official" / year).glob("*.gz"))}
        ch = map_to_asl_chain(qrels[year], official)
        d = ch.save(out / f"chain-{year}-top100")
        plot_chain(ch).savefig(d / "chain.png", dpi=110)
        print(f"\n=== MAP -> ASL chain, {year} official top-100 runs ({len(official)} systems) ===")
        print(ch.table.drop(columns=["from", "to", "chain"]).to_string(index=False, float_format=fmt))
    ch = map_to_asl_chain(qrels["dl20"], full["dl20"])
    print("\n=== MAP -> ASL chain, dl20 full-depth runs (5 systems) ===")
    print(ch.table.drop(columns=["from", "to", "chain"]).to_string(index=False, float_format=fmt))
    tick("chain", t)

    # ---------------------------------------------------------------------------- 5 coverage
    t = time.perf_counter()
    print("\n=== how much of the ranking MAP sees ===")
    for year in ("dl19", "dl20"):
        cov = map_coverage(qrels[year], full[year])
        print(f"{year} full depth: mean coverage {cov.summary['mean_coverage']:.4f} "
              f"(per-query mean {cov.summary['mean_coverage_query_mean']:.4f})")
        official = runs_dir / "official" / year
        cov = map_coverage(qrels[year], official)
        print(f"{year} top-100 ({cov.summary['n_systems']} runs): mean coverage "
              f"{cov.summary['mean_coverage']:.4f}")
    tick("coverage", t)

    # ---------------------------------------------------------------------------- 6 tracks
    t = time.perf_counter()
    spec = {
        "dl19-top100": (qrels["dl19"], runs_dir / "official" / "dl19"),
        "dl20-top100": (qrels["dl20"], runs_dir / "official" / "dl20"),
        "dl19-community": (qrels["dl19"], runs_dir / "community" / "dl19"),
        "dl20-community": (qrels["dl20"], runs_dir / "community" / "dl20"),
        "dl19-full": (qrels["dl19"], runs_dir / "official_full_depth" / "dl19"),
        "dl20-full": (qrels["dl20"], runs_dir / "official_full_depth" / "dl20"),
    }
    tr = track_summary(spec)
    tr.save(out / "tracks")
    tick("track summary", t)
    print("\n=== track summary: best system per track ===")
    print(tr.table.pivot(index="track", columns="measure", values="best_system").to_string())
    print({k: v for k, v in tr.summary.items()})

    # ---------------------------------------------------------------------------- 7 ties
    t = time.perf_counter()
    ties = tie_report(qrels["dl20"], runs_dir / "official" / "dl20")
    tick("ties dl20", t)
    tt = ties.table
    print(f"\n=== ties (dl20 top-100): {int((tt.tied_rows_float32 > 0).sum())}/{len(tt)} runs have "
          f"float32 score ties; max per-query ASL change between tie rules "
          f"{tt.max_query_change_ASL.max():.4f}, AP {tt.max_query_change_AP.max():.4f} ===")
    print(tt.sort_values("tied_rows_float32", ascending=False).head(5)[
        ["system", "tied_rows_float32", "tied_rows_float64", "ASL[trec_eval]", "ASL[input_order]",
         "AP[trec_eval]", "AP[input_order]"]].to_string(index=False, float_format=fmt))

    total = time.perf_counter() - t0
    print("\n=== timings (s) ===")
    for k, v in timings.items():
        print(f"{k:50s} {v:7.2f}")
    print(f"{'TOTAL DL19+DL20 analysis':50s} {total:7.2f}  (target < 60 s; ratio to target "
          f"{total / 60:.2f})")
    print(f"results and plots under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
