"""Real-data checks on ../shared/data (run with --realdata)."""

from __future__ import annotations

import time

import pandas as pd
import pytest

from ranklens.io import load_collection, load_smart_collection, rank_run, read_qrels, read_queries, read_runs

# counts documented in each collection's SOURCE.md
EXPECTED = {
    "cranfield": (1400, 225, 1837),
    "cisi": (1460, 112, 3114),
    "cacm": (3204, 64, 796),
    "npl": (11429, 93, 2083),
}


def _norm(s: str) -> str:
    return " ".join(s.split())


@pytest.mark.realdata
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_raw_and_derived_agree(shared_data, name):
    raw = load_smart_collection(shared_data / name, source="raw")
    der = load_smart_collection(shared_data / name, source="derived")
    n_docs, n_queries, n_qrels = EXPECTED[name]
    for c in (raw, der):
        assert (len(c.docs), len(c.queries), len(c.qrels)) == (n_docs, n_queries, n_qrels)
    key = ["query_id", "doc_id"]
    a = raw.qrels.sort_values(key).reset_index(drop=True)
    b = der.qrels.sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    qa, qb = raw.queries_dict(), der.queries_dict()
    assert list(qa) == list(qb)
    assert all(_norm(qa[k]) == _norm(qb[k]) for k in qa)
    assert list(raw.docs) == list(der.docs)
    diffs = [k for k, t in raw.docs.iter_docs() if _norm(t) != _norm(der.docs[k])]
    assert diffs == []
    # a named collection dir loads from raw; its derived/ folder with the same conventions
    assert load_collection(shared_data / name).qrels.equals(raw.qrels)
    via_dir = load_collection(shared_data / name / "derived")
    assert via_dir.docs.get_many(list(der.docs)[:50]) == der.docs.get_many(list(der.docs)[:50])


@pytest.mark.realdata
def test_cranfield_conventions(shared_data):
    c = load_smart_collection(shared_data / "cranfield")
    assert c.qrels["relevance"].value_counts().sort_index().to_dict() == {0: 225, 1: 363, 2: 734, 3: 387, 4: 128}
    # query 3 by position is .I 004 in cran.qry
    assert c.queries.set_index("query_id").loc["3", "original_id"] == "004"


@pytest.mark.realdata
def test_all_trec_dl_runs_and_qrels(shared_data):
    dl = shared_data / "trec_dl_msmarco_passage"
    sizes = {"qrels.dl19-passage.txt": 9260, "qrels.dl20-passage.txt": 11386, "qrels.dl19-doc.txt": 16258,
             "qrels.dl20-doc.txt": 9098, "qrels.msmarco-passage.dev-subset.txt": 7437}
    for fname, n in sizes.items():
        assert len(read_qrels(dl / fname)) == n
    topics = {"topics.dl19-passage.txt": 43, "topics.dl19-doc.txt": 43, "topics.dl20.txt": 200,
              "topics.msmarco-passage.dev-subset.txt": 6980}
    for fname, n in topics.items():
        assert len(read_queries(dl / fname)) == n

    root = shared_data / "trec_dl_runs"
    t0 = time.perf_counter()
    runs = read_runs(root)
    elapsed = time.perf_counter() - t0
    groups = {"official": (96, 148047 + 316440), "official_full_depth": (10, 475090), "community": (48, 230310)}
    for group, (n_runs, n_rows) in groups.items():
        sel = {k: v for k, v in runs.items() if k.startswith(group + "/")}
        assert len(sel) == n_runs, group
        assert sum(len(v) for v in sel.values()) == n_rows, group
    assert len(runs) == 154
    assert all(r["score"].dtype == "float64" for r in runs.values())
    # ranking every run under the trec_eval rule works and gives contiguous ranks per query
    biggest = max(runs.values(), key=len)
    ranked = rank_run(biggest)
    assert (ranked.groupby("query_id")["rank"].max() == ranked.groupby("query_id").size()).all()
    assert elapsed < 120
