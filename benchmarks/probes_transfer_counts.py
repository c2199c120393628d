"""Dataset-transfer sample counts beside the ABNIRML paper's (Table 3's "Samples" column), for every
transfer dataset found in the data root.

    python benchmarks/probes_transfer_counts.py --data-dir /work/shared/data [--rules content,min-length]

Each probe's samples are built as the analysis builds them (every pair, seed 0, all splits, all
references) with each ``transfer_chunk_rule``; a dataset the root does not hold is listed as absent.
The WNC, XSum and NQ folders of the shared data are samples of those datasets, so their counts are
not comparable with the paper's (printed anyway, marked).
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

SAMPLED = {"ds-neutrality-wnc", "ds-succinct-xsum", "ds-factuality-nq", "ds-factuality-nq-per",
           "ds-factuality-nq-gpe", "ds-factuality-nq-loc", "ds-factuality-nq-norp", "ds-factuality-nq-org"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", required=True, help="data root holding mrpc/, jfleg/, turkcorpus/, ... "
                    "(e.g. /work/shared/data); never a default")
    ap.add_argument("--rules", default="content,min-length", help="transfer_chunk_rule values to count")
    ap.add_argument("--probes", default="ds-*")
    a = ap.parse_args()
    from ranklens.probes import generate_samples, get_probe, select_probes
    from ranklens.probes.transfer import PAPER_SAMPLES

    rules = a.rules.split(",")
    print(f"{'probe':26s} {'pairs':>7s} " + " ".join(f"{r:>11s}" for r in rules) + f" {'paper':>8s}  note")
    for name in select_probes(a.probes):
        counts, pairs, note = [], "", ""
        for rule in rules:
            t0 = time.perf_counter()
            probe = get_probe(name, data_dir=a.data_dir, missing_data="skip", transfer_chunk_rule=rule)
            ps = generate_samples([probe], None, seed=0)[name]
            if ps.skipped:
                note = "absent: " + ps.skipped.split(":")[0]
                break
            pairs = str(ps.info.get("pairs_in_file", ""))
            counts.append(f"{len(ps.samples):>11,d}")
            note = (f"{time.perf_counter() - t0:.0f} s" + ("; shared data is a sample of the dataset"
                                                            if name in SAMPLED else ""))
        paper = PAPER_SAMPLES.get(name)
        print(f"{name:26s} {pairs:>7s} " + " ".join(counts or [f"{'-':>11s}"] * len(rules))
              + f" {paper if paper is None else format(paper, ','):>8}  {note}", flush=True)


if __name__ == "__main__":
    main()
