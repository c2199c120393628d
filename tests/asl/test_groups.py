"""Run groups: Table 1 (best run of each group, RRIE) and Fig. 6 (best vs median by ASL),
checked against a by-hand selection over evaluate's own table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.errors import ValidationError
from ranklens.asl import evaluate
from ranklens.asl.analyses import parse_groups, run_groups


def _case():
    rng = np.random.default_rng(0)
    docs = [f"d{i}" for i in range(30)]
    qrels = pd.DataFrame([(f"q{q}", d, int(rng.integers(0, 3))) for q in range(6) for d in docs[:12]],
                         columns=["query_id", "doc_id", "relevance"])
    runs = {}
    for name in ["bm25_a", "bm25_b", "bert_x", "bert_y", "t5_z"]:
        rows = [(f"q{q}", d, float(rng.normal())) for q in range(6) for d in rng.permutation(docs)[:20]]
        runs[name] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    return qrels, runs


def test_parse_groups_globs_tsv_and_errors(tmp_path):
    names = ["bm25_a", "bm25_b", "bert_x"]
    assert parse_groups(["trad=bm25*", "neural=*"], names) == {"bm25_a": "trad", "bm25_b": "trad",
                                                               "bert_x": "neural"}
    tsv = tmp_path / "g.tsv"
    tsv.write_text("bm25_a\ttrad\nbert_x\tneural\n")
    assert parse_groups(str(tsv), names) == {"bm25_a": "trad", "bert_x": "neural"}
    with pytest.raises(ValidationError, match="matches no run"):
        parse_groups({"x": "nothing*"}, names)
    with pytest.raises(ValidationError, match="NAME=GLOB"):
        parse_groups(["trad"], names)


def test_best_of_each_group_and_rrie_by_hand():
    qrels, runs = _case()
    res = run_groups(qrels, runs, {"traditional": "bm25*", "neural": ["bert*", "t5*"]})
    table = res[0].table
    ev = evaluate(qrels, runs, ["P@20", "ASL@g1-10", "AP", "ASL"]).table.set_index("model")
    for m in ["P@20", "ASL@g1-10", "AP", "ASL"]:
        low = m.startswith("ASL")
        pick = {g: (ev.loc[list(ns), m].idxmin() if low else ev.loc[list(ns), m].idxmax())
                for g, ns in (("traditional", ["bm25_a", "bm25_b"]), ("neural", ["bert_x", "bert_y", "t5_z"]))}
        rows = table[table.measure == m].set_index("group")
        assert rows.loc["traditional", "best_model"] == pick["traditional"]
        assert rows.loc["neural", "best_model"] == pick["neural"]
        vb, vn = ev.loc[pick["traditional"], m], ev.loc[pick["neural"], m]
        eb, en = (vb - 1, vn - 1) if low else (1 - vb, 1 - vn)
        assert rows.loc["neural", "rrie"] == pytest.approx((eb - en) / eb)
        assert np.isnan(rows.loc["traditional", "rrie"])
    by_asl = list(ev.sort_values("ASL", kind="stable").index)
    assert res[0].summary["best_by_asl"] == by_asl[0]
    assert res[0].summary["median_by_asl"] == by_asl[len(by_asl) // 2]
    assert res[1].kind == "asl-distribution" and "deltas" in res[1].tables
