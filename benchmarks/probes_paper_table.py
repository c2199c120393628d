"""The ABNIRML paper's Tables 1-3, BM25 column, on the DL19 passages of the shared data, cell by
cell beside the paper's.

    python benchmarks/probes_paper_table.py --data-dir /work/shared/data [--bm25 terrier|anserini|both]
        [--cap 1000] [--stopword-list terrier] [--shuffle-words-scope document] [--out DIR]

* collection: the DL19 passages with text (``trec_dl19_reannotation``, about half of the judged
  pool; the official NIST qrels restricted to them; :func:`probes_cranfield.dl19_collection`);
* ``--bm25 terrier`` (default): the paper's BM25, ``bm25:terrier`` (Terrier's BM25 with its
  defaults); ``anserini``: ranklens's plain ``bm25``; ``both``: the two side by side;
* δ calibrated the paper's way on the official DL19 BM25 run (``bm25base_p``; candidates with
  text only), every other parameter the analysis default (the paper);
* ``--stopword-list terrier``, ``--shuffle-words-scope document``: the reference code's stop words
  and whole-document word shuffle (the analysis's named options);
* ``--cap``: samples per probe at most (a seeded sub-sample; 0 = every sample, the paper), so the
  run finishes in minutes on a loaded machine; the cap is printed with the table.

The paper's values are its Table 1 (TREC DL 2019 rows), Table 2 (DL19 rows) and Table 3, BM25
column and "Samples" column (significance marks are not in the paper's text version used here).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from probes_cranfield import data_root, dl19_collection  # noqa: E402

#: the paper's BM25 cells and sample counts: probe -> (score, samples)
PAPER_BM25 = {
    "mm-rel-ctrl-len": (0.40, 19676), "mm-rel-ctrl-tf": (-0.03, 31619), "mm-rel-ctrl-overlap": (0.41, 4762),
    "mm-len-ctrl-rel": (-0.05, 515401), "mm-len-ctrl-tf": (-0.14, 88582), "mm-len-ctrl-overlap": (0.51, 3963),
    "mm-tf-ctrl-rel": (0.88, 303058), "mm-tf-ctrl-len": (1.00, 19770), "mm-tf-ctrl-overlap": (0.79, 2294),
    "mm-overlap-ctrl-rel": (0.70, 357470), "mm-overlap-ctrl-len": (0.75, 20819),
    "mm-overlap-ctrl-tf": (0.88, 13980),
    "tr-del-stops-punct": (0.00, 9259), "tr-lemmatize": (0.00, 9259), "tr-shuffle-words": (0.00, 9260),
    "tr-shuffle-sents": (-0.00, 7290), "tr-shuffle-preps": (0.01, 9239), "tr-typo": (-0.23, 8982),
    "tr-doc2query": (0.34, 9260), "tr-add-nonrel-sent": (-0.03, 9260),
    "ds-paraphrase-mrpc": (0.60, 3421), "ds-fluency-jfleg": (0.03, 5073), "ds-fluency-jfleg-spell": (0.01, 5187),
    "ds-formality-gyafc": (-0.03, 6721), "ds-simplicity-turk": (0.13, 17849), "ds-neutrality-wnc": (0.31, 178252),
    "ds-succinct-xsum": (0.66, 17938), "ds-succinct-cnndm": (float("nan"), 7154 + 18930),
    "ds-factuality-nq-per": (-0.00, 72983), "ds-factuality-nq-gpe": (-0.00, 33528),
    "ds-factuality-nq-loc": (-0.03, 962), "ds-factuality-nq-norp": (0.02, 4250),
    "ds-factuality-nq-org": (0.01, 13831),
}
BM25 = {"terrier": {"bm25-terrier": {"spec": "bm25:terrier"}}, "anserini": {"bm25-anserini": {"spec": "bm25"}}}


def comparison(res: object, models: list[str]) -> str:
    """A Markdown table: probe, the paper's BM25 cell and samples, ours per model (``*`` = not
    significant), our samples (after the cap) and our candidates (before it)."""
    t = res.table
    details = res.provenance.params.get("probe_details", {})
    head = ["probe", "paper BM25", "paper n", *models, "n", "candidates"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for probe in dict.fromkeys(t["probe"]):
        if probe not in PAPER_BM25:
            continue
        ps, pn = PAPER_BM25[probe]
        cells = []
        for m in models:
            r = t[(t["probe"] == probe) & (t["model"] == m)]
            if r.empty or int(r["n"].iloc[0]) == 0:
                cells.append("-")
                continue
            sig = bool(r["significant"].iloc[0])
            cells.append(f"{float(r['score'].iloc[0]):+.2f}{'' if sig else '*'}")
        n = int(t.loc[t["probe"] == probe, "n"].max())
        avail = details.get(probe, {}).get("available")
        lines.append(f"| {probe} | {ps:+.2f} | {pn:,} | " + " | ".join(cells) + f" | {n:,} | "
                     + (f"{avail:,}" if isinstance(avail, int) else "") + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=None, help="data root (default: $RANKLENS_DATA; one of them is required)")
    ap.add_argument("--bm25", default="terrier", choices=("terrier", "anserini", "both"),
                    help="terrier = the paper's BM25 (bm25:terrier); anserini = ranklens's plain bm25")
    ap.add_argument("--cap", type=int, default=1000, help="samples per probe at most (0 = all, the paper)")
    ap.add_argument("--probes", default="", help="probe globs (default: the paper's Tables 1-3)")
    ap.add_argument("--stopword-list", default="sklearn", choices=("sklearn", "terrier"),
                    help="stop words of measure-and-match, remove-stopwords and typos (terrier = the reference code's)")
    ap.add_argument("--shuffle-words-scope", default="sentence", choices=("sentence", "document"),
                    help="document = the reference code's ShufWords (the paper's Table 2 came from it)")
    ap.add_argument("--out", default="/tmp/ranklens_probes_paper_table")
    a = ap.parse_args()
    from ranklens.drive import run_analysis, save_results
    from ranklens.io import load_collection
    from ranklens.probes import paper_tables
    from ranklens.probes.declaration import PAPER_PROBES

    data = data_root(a.data_dir)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    models = {k: v for name in (("terrier", "anserini") if a.bm25 == "both" else (a.bm25,))
              for k, v in BM25[name].items()}
    coll = load_collection(str(dl19_collection(out, data)))
    params = {"cap": a.cap, "data_dir": str(data), "sweep": [], "missing_data": "skip",  # GYAFC, CNN/DM absent
              "stopword_list": a.stopword_list, "shuffle_words_scope": a.shuffle_words_scope,
              "probes": a.probes.split(",") if a.probes else list(PAPER_PROBES),
              "calibrate_on": str(data / "trec_dl_runs" / "official" / "dl19" / "bm25base_p.top100.run.gz")}
    t0 = time.perf_counter()
    res = run_analysis("probes", coll, models, params)[0]
    secs = time.perf_counter() - t0
    print(f"# DL19 passages with text ({len(coll.docs):,} passages), cap {a.cap or 'none'} samples a probe, "
          f"{secs:.0f} s; deltas {res.summary['deltas']}; BM25 {res.summary.get('bm25')}")
    for w in res.warnings:
        print(f"  warning: {w}")
    print(paper_tables([res], fmt="text"))
    print()
    print(comparison(res, list(models)))
    save_results([res], out / "dl19")  # after printing: `ranklens probes table DIR/dl19/probes-table`


if __name__ == "__main__":
    main()
