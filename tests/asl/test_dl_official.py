"""Real data: ranklens's evaluate table equals NIST's official TREC DL 2019/2020 passage numbers.

Conventions (``trec_dl_runs/SOURCE.md``): DL19 ``trec_eval`` = standard qrels, rel 1; DL19
``passages-eval`` = ``-l 2`` (rel 2 for binary measures, nDCG graded); DL20 ``trec_eval`` = grade
1 mapped to 0; DL20 ``passages-eval`` = nDCG with the standard graded qrels. Top-100 files only
support measures with cutoff <= 100; full-depth files support all.
"""

from __future__ import annotations

import pandas as pd
import pytest

pytestmark = pytest.mark.realdata

NAMES = {"map": "AP", "bpref": "Bpref", "recip_rank": "RR", "P_10": "P@10", "P_100": "P@100",
         "P_1000": "P@1000", "ndcg": "nDCG", "ndcg_cut_10": "nDCG@10", "ndcg_cut_100": "nDCG@100",
         "ndcg_cut_1000": "nDCG@1000", "recall_10": "R@10", "recall_100": "R@100",
         "recall_1000": "R@1000"}
TOP100 = ["P_10", "P_100", "ndcg_cut_10", "ndcg_cut_100", "recall_10", "recall_100"]


def _qrels(shared, year: str, summary: str) -> tuple[pd.DataFrame, int]:
    from ranklens.asl.inputs import _as_qrels_table

    q = _as_qrels_table(shared / "trec_dl_msmarco_passage" / f"qrels.{year}-passage.txt")
    q = q.to_pandas()
    if year == "dl20" and summary == "trec_eval":
        q["relevance"] = q["relevance"].where(q["relevance"] != 1, 0)
    rel = 2 if (year == "dl19" and summary == "passages-eval") else 1
    return q, rel


@pytest.mark.parametrize("year", ["dl19", "dl20"])
@pytest.mark.parametrize("depth", ["top100", "full"])
def test_evaluate_equals_official_summaries(shared_data, year, depth):
    from ranklens.asl import evaluate

    base = shared_data / "trec_dl_runs"
    off = pd.read_csv(base / "official_summaries.tsv", sep="\t", dtype=str)
    off = off[(off.year == year) & (off.task == "passages")]
    off["value"] = off["value"].astype(float)
    folder = base / ("official" if depth == "top100" else "official_full_depth") / year
    runs = {p.name.split(".")[0]: p for p in sorted(folder.glob("*.gz"))}
    compared = 0
    for summary, frame in off.groupby("summary"):
        qrels, rel = _qrels(shared_data, year, summary)
        frame = frame[frame.run.isin(runs)]
        measures = sorted(set(frame.measure) & (set(TOP100) if depth == "top100" else set(NAMES)))
        if not measures or frame.empty:
            continue
        res = evaluate(qrels, {r: runs[r] for r in frame.run.unique()},
                       [NAMES[m] for m in measures], rel=rel, n_resamples=10)
        table = res.table.set_index("model")
        for run, m, v in frame[frame.measure.isin(measures)][["run", "measure", "value"]] \
                .itertuples(index=False):
            name = NAMES[m]
            if rel != 1 and not name.startswith("nDCG"):
                name = f"{name.split('@')[0]}(rel={rel})" + (f"@{name.split('@')[1]}"
                                                            if "@" in name else "")
            ours = float(table.loc[run, name])
            assert abs(ours - v) <= 5e-5 + 1e-9, (year, summary, run, m, ours, v)
            compared += 1
    expected_runs = 37 if year == "dl19" else 59
    assert compared >= (5 if depth == "full" else expected_runs * 6)
