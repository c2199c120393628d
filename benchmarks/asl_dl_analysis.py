"""The ASL paper's analyses on the shared TREC DL 2019/2020 passage runs, next to the paper.

- Table 1 (2020 passages): best BM25 vs best neural system, P@20 / ASL@g1-10 / MAP / ASL, RRIE.
  The shared data has full-depth runs only for p_bm25 (BM25) and four others (pash_r3 = the
  best neural run); Table 1's ASL needs full depth, its top-weighted rows do not.
- Table 2 across the DL tracks given (mean ± sd): ΔSort, Kendall τ-b, ΔValue per chain row,
  for the official top-100 runs (37 + 59) and the full-depth runs (5 + 5).
- Table 1 via run groups over the 59 official DL20 top-100 runs (traditional vs neural).
- MAP coverage (Appendix A.1) per track, mean ± sd over tracks (paper: 57% ± 16).
- The time of the whole DL19 + DL20 analysis.

Usage: python benchmarks/asl_dl_analysis.py [--data ../shared/data] [--rel 1] [--depth N]
"""

from __future__ import annotations

import argparse
import time

import pandas as pd
from _harness import data_root

PAPER_T1 = {"P@20": (0.517, 0.706, "39%"), "ASL@g1-10": (51, 6, "90%"), "AP": (0.400, 0.572, "29%"),
            "ASL": (264, 215, "19%")}
PAPER_T2 = {"Atomize P": ("26-60%", "0.7-0.9", "0.3-0.6x"), "Agg. docs within query": ("37-77%", "0.4-0.8", "0.03-0.4x"),
            "Agg. rates across queries": ("29-78%", "0.4-0.9", "0.1-0.9x"),
            "Cumulative": ("26-60%", "0.6-0.9", "0.004-0.06x")}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", "--data-dir", dest="data", default=None, help="data root (default: $RANKLENS_DATA)")
    ap.add_argument("--rel", type=int, default=1)
    ap.add_argument("--depth", type=int, default=None)
    ap.add_argument("--unretrieved", default="paper")
    args = ap.parse_args()
    from ranklens.asl.analyses import rrie, run_groups, tracks_report

    d = data_root(args.data)
    qrels = {y: d / "trec_dl_msmarco_passage" / f"qrels.{y}-passage.txt" for y in ("dl19", "dl20")}
    conv = {"rel": args.rel, "depth": args.depth, "unretrieved": args.unretrieved}
    pd.set_option("display.width", 200)
    t0 = time.perf_counter()
    full = d / "trec_dl_runs" / "official_full_depth" / "dl20"
    t1 = rrie(qrels["dl20"], full / "p_bm25.judged_topics.run.gz", full / "pash_r3.judged_topics.run.gz",
              name_a="p_bm25", name_b="pash_r3", **conv)
    print("Table 1, DL 2020 passages (full depth), ranklens vs paper (BM25, neural, RRIE):")
    for r in t1.table.itertuples(index=False):
        print(f"  {r.measure:10s} {r.value_a:8.3f} {r.value_b:8.3f} {r.rrie:6.0%}   paper {PAPER_T1.get(r.measure.replace('(rel=2)', ''))}")
    # Table 1's top-weighted rows from run groups over all 59 DL20 top-100 runs (TREC DL 2020's
    # run types: "trad" = BM25/RM3/query likelihood/DFR runs; every other run is neural)
    trad = ["p_bm25", "p_bm25rm3", "indri-*", "terrier-*", "DLH_*", "TF_IDF_*"]
    g = run_groups(qrels["dl20"], d / "trec_dl_runs" / "official" / "dl20",
                   {"traditional": [t + ".top100" if "*" not in t else t for t in trad], "neural": "*"},
                   **conv)[0]
    print("\nTable 1 via run groups, DL 2020 passages, all official top-100 runs (best traditional vs "
          "best neural; P@20 and ASL@g1-10 are valid at depth 100):")
    for m, f in g.table.groupby("measure", sort=False):
        f = f.set_index("group")
        print(f"  {m:10s} {f.loc['traditional', 'value']:8.3f} ({f.loc['traditional', 'best_model']}) "
              f"{f.loc['neural', 'value']:8.3f} ({f.loc['neural', 'best_model']}) "
              f"{f.loc['neural', 'rrie']:6.0%}   paper {PAPER_T1.get(m)}")
    for kind in ("official", "official_full_depth"):
        spec = {y: (qrels[y], d / "trec_dl_runs" / kind / y) for y in ("dl19", "dl20")}
        res = tracks_report(spec, **conv)
        t2 = res[-1]
        print(f"\nTable 2 over DL19 + DL20, {kind} runs (mean ± sd over the 2 tracks):")
        for r in t2.table.itertuples(index=False):
            paper = PAPER_T2.get(r.step, ("", "", "")) if r.chain == "MAP->ASL" else ("", "", "")
            print(f"  {r.chain:16s} {r.step:26s} ΔSort {r.dsort_mean:5.1f} ± {r.dsort_sd:4.1f}%  "
                  f"τ {r.tau_mean:.2f} ± {r.tau_sd:.2f}  ΔValue {r.dvalue_mean:.3f} ± {r.dvalue_sd:.3f}"
                  f"   paper {paper}")
        print(f"  MAP coverage: {t2.summary['map_coverage_mean']:.0%} ± {t2.summary['map_coverage_sd']:.0%} "
              "(paper 57% ± 16)")
        print(res[0].table[res[0].table["measure"] == "ASL"][["track", "best_model", "best_value", "best_depth"]]
              .to_string(index=False))
        for w in t2.warnings + res[0].warnings:
            print("  warning:", w[:160])
    print(f"\nwhole DL19 + DL20 analysis: {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
