from __future__ import annotations

import pandas as pd
import pytest

from ranklens.errors import DataFormatError, ValidationError
from ranklens.regimes import (
    export_annotation_sheet,
    label_overlap,
    near_duplicates,
    query_similarity,
    read_annotation_sheets,
)

TRAIN_QRELS = pd.DataFrame({
    "query_id": ["a", "a", "b", "c"],
    "doc_id": ["d1", "d2", "d3", "d9"],
    "relevance": [1, 2, 1, 0],  # d9 is judged non-relevant: not a training positive
})
# x: rel docs d1 (2), d2 (1) -> 2 shared at >=1, 1 shared at >=2
# y: rel doc d3 (1) -> 1 shared at >=1; nothing at >=2
# z: rel doc d9 (2), d5 (1) -> 0 shared (d9 is not a positive)
TEST_QRELS = pd.DataFrame({
    "query_id": ["x", "x", "y", "y", "z", "z"],
    "doc_id": ["d1", "d2", "d3", "d4", "d9", "d5"],
    "relevance": [2, 1, 1, 0, 2, 1],
})


def test_label_overlap_hand_computed():
    r = label_overlap(TEST_QRELS, TRAIN_QRELS, thresholds=(1, 2))
    assert r.summary["share@1"] == pytest.approx(2 / 3)  # x, y of x, y, z
    assert r.summary["n_queries@2"] == 2  # x, z have a doc at >= 2
    assert r.summary["share@2"] == pytest.approx(1 / 2)  # x (d1)
    t = r.table.set_index(["threshold", "query_id"])
    assert t.loc[(1, "x"), "n_shared"] == 2 and t.loc[(1, "x"), "n_relevant"] == 2


def test_label_overlap_min_shared_two_reproduces_authors_script():
    r = label_overlap(TEST_QRELS, TRAIN_QRELS, thresholds=(1,), min_shared=2)
    assert r.summary["share@1"] == pytest.approx(1 / 3)  # only x has two shared positives
    with pytest.raises(ValidationError, match="min_shared"):
        label_overlap(TEST_QRELS, TRAIN_QRELS, min_shared=0)


def test_label_overlap_names_missing_column():
    with pytest.raises(ValidationError, match="relevance"):
        label_overlap(TEST_QRELS.drop(columns=["relevance"]), TRAIN_QRELS)


@pytest.fixture
def sim():
    tr = pd.DataFrame({"query_id": ["t1", "t2", "t3"], "text": ["cheap flights rome", "cat food", "python tutorial"]})
    te = pd.DataFrame({"query_id": ["q1", "q2"], "text": ["cheap flights rome", "sailing knots"]})
    return query_similarity(te, tr, method="tfidf", k=2), te, tr


def test_near_duplicates_threshold(sim):
    s, te, tr = sim
    nd = near_duplicates(s, te, tr, threshold=0.99)
    assert nd["query_id"].tolist() == ["q1"]
    assert nd["train_query"].tolist() == ["cheap flights rome"]
    assert nd["score"].iloc[0] == pytest.approx(1.0)
    assert near_duplicates(s, te, tr, threshold=-1.0)["query_id"].tolist() == ["q1", "q2"]


def test_annotation_sheet_round_trip_and_kappa(tmp_path, sim):
    s, te, tr = sim
    p = export_annotation_sheet(s, te, tr, tmp_path / "sheet.csv", top_n=2)
    sheet = pd.read_csv(p, dtype=str, keep_default_na=False)
    assert len(sheet) == 4 and set(sheet["entity_overlap"]) == {""}
    # annotator A and B: labels on 4 rows
    a, b = sheet.copy(), sheet.copy()
    a["entity_overlap"] = ["1", "0", "0", "1"]
    b["entity_overlap"] = ["1", "0", "1", "1"]
    a["intent_similarity"] = ["2", "0", "0", "0"]
    b["intent_similarity"] = ["2", "0", "0", "0"]
    a.to_csv(tmp_path / "A.csv", index=False)
    b.to_csv(tmp_path / "B.csv", index=False)
    r = read_annotation_sheets([tmp_path / "A.csv", tmp_path / "B.csv"])
    # entity: observed agreement 3/4; A marginals (2 ones, 2 zeros), B (3 ones, 1 zero)
    # p_e = (2/4)(3/4) + (2/4)(1/4) = 0.5 -> kappa = (0.75 - 0.5) / 0.5 = 0.5
    assert r.summary["kappa:entity_overlap:A:B"] == pytest.approx(0.5)
    assert r.summary["kappa:intent_similarity:A:B"] == pytest.approx(1.0)
    assert r.summary["kappa_mean:entity_overlap"] == pytest.approx(0.5)
    top1 = a.loc[a["rank"] == "1", "entity_overlap"].astype(int)
    assert r.summary["entity_overlap:A:distribution"] == {str(k): int(v) for k, v in top1.value_counts().items()}


def _paper_reference(sheets, column):
    """Plain Python: per pair the median of three labels, per query the best pair, shares per label."""
    pairs = {}
    for sh in sheets:
        for q, t, v in zip(sh["query_id"], sh["train_query_id"], sh[column]):
            pairs.setdefault((q, t), []).append(int(v))
    best = {}
    for (q, _), labels in pairs.items():
        med = sorted(labels)[1]
        best[q] = max(best.get(q, -1), med)
    return {lab: sum(1 for v in best.values() if v == lab) / len(best) for lab in (0, 1, 2)}


def test_annotation_paper_tables_median_and_any_recalled(tmp_path, sim):
    """Three annotators; a query is 'duplicate' when ANY recalled training query is one after the
    median over annotators (not only the rank-1 pair)."""
    s, te, tr = sim
    p = export_annotation_sheet(s, te, tr, tmp_path / "sheet.csv", top_n=2)
    sheet = pd.read_csv(p, dtype=str, keep_default_na=False)
    assert sheet["rank"].tolist() == ["1", "2", "1", "2"]
    labels = {  # rows: q?/rank1, q?/rank2, q?/rank1, q?/rank2
        "A": (["2", "0", "0", "1"], ["0", "2", "1", "1"]),
        "B": (["1", "0", "0", "2"], ["0", "2", "0", "0"]),
        "C": (["2", "1", "1", "0"], ["1", "0", "1", "0"]),
    }
    sheets = []
    for name, (ent, intent) in labels.items():
        x = sheet.copy()
        x["entity_overlap"], x["intent_similarity"] = ent, intent
        x.to_csv(tmp_path / f"{name}.csv", index=False)
        sheets.append(x)
    r = read_annotation_sheets([tmp_path / f"{n}.csv" for n in labels])
    paper = r.tables["paper"].set_index(["column", "label"])
    for column in ("entity_overlap", "intent_similarity"):
        ref = _paper_reference(sheets, column)
        for lab, share in ref.items():
            assert paper.loc[(column, lab), "share"] == pytest.approx(share)
    # the first query's duplicate intent sits at rank 2 (median of 2, 2, 0): counted
    assert r.summary["intent_similarity:duplicate"] == pytest.approx(0.5)
    assert r.summary["intent_similarity:similar"] == pytest.approx(0.5)
    ks = r.tables["kappa"]
    assert r.summary["kappa_mean:entity_overlap"] == pytest.approx(ks.loc[ks["column"] == "entity_overlap", "kappa"].mean())


def test_annotation_sheet_bad_label_names_line(tmp_path, sim):
    s, te, tr = sim
    p = export_annotation_sheet(s, te, tr, tmp_path / "sheet.csv", top_n=1)
    sheet = pd.read_csv(p, dtype=str, keep_default_na=False)
    sheet["entity_overlap"] = ["1", "maybe"]
    sheet.to_csv(p, index=False)
    with pytest.raises(DataFormatError, match=r"sheet.csv:3: column 'entity_overlap'"):
        read_annotation_sheets([p])
