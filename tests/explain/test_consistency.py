from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ranklens.engine import ScoringEngine
from ranklens.errors import ValidationError
from ranklens.explain import (
    OcclusionExplainer,
    Rationale,
    explain_run,
    explanation_consistency,
    explanation_sweep,
    mer_per_query,
    mrc_per_query,
    plot_consistency,
    plot_relevance_scatter,
    plot_sweep,
    pseudo_document,
    rank_candidates,
)
from ranklens.results import Result
from ranklens.testing import OverlapRanker

from ._helpers import AB_EMBEDDER, X_RANKER

DOCS = {
    "dA": "X now. X now. X now.",  # theta 4; top-1 sentence "X now." -> 2
    "dB": "X x now. Y here.",  # theta 3; top-1 "X x now." -> 3
    "dC": "X now. Y here.",  # theta 2; top-1 "X now." -> 2
    "dD": "Z now.",  # theta 1; -> 1
}
QUERIES = pd.DataFrame({"query_id": ["q1"], "text": ["x"]})


def _engine():
    return ScoringEngine(cache=False)


def test_rank_candidates_order_and_ties():
    eng = _engine()
    run = rank_candidates(X_RANKER, QUERIES, DOCS, engine=eng)
    assert run["doc_id"].tolist() == ["dA", "dB", "dC", "dD"]
    assert run["rank"].tolist() == [1, 2, 3, 4]
    # ties: score desc, then doc_id descending (trec_eval)
    tied = rank_candidates(X_RANKER, QUERIES, {"a": "X", "b": "X"}, engine=eng)
    assert tied["doc_id"].tolist() == ["b", "a"]
    with pytest.raises(ValidationError, match="without text"):
        rank_candidates(X_RANKER, QUERIES, DOCS, pd.DataFrame({"query_id": ["q1"], "doc_id": ["nope"]}), engine=eng)


def test_mrc_hand_computed_end_to_end():
    # pseudo scores A=2, B=3, C=2, D=1 against order A>B>C>D:
    # concordant AD BC BD CD = 4, discordant AB = 1, tie in pseudo AC -> tau_b = 3 / sqrt(6 * 5)
    res = explanation_consistency(
        {"x": X_RANKER}, QUERIES, DOCS, granularities=("sentence",), m=1, ks=(2, 4),
        explainer=OcclusionExplainer(n=1), engine=_engine(),
    )
    row = res.table.iloc[0]
    assert row["MRC@4"] == pytest.approx(3 / math.sqrt(30))
    assert row["MRC@2"] == pytest.approx(-1.0)  # A=2 < B=3
    assert res.summary["x/sentence/MRC@4"] == pytest.approx(3 / math.sqrt(30), abs=1e-6)
    assert res.kind == "explain-consistency"
    prov = res.provenance.params
    assert prov["normalize"] == "abs" and "max(|theta|, eps)" in prov["normalize_rule"]
    assert prov["ties"] == "trec_eval" and prov["ties_rule"].startswith("rank_run(ties='trec_eval')")
    assert prov["mer_missing"] == "zero" and prov["aggregate"] == "sum"
    assert set(res.provenance.components) == {"ranker:x"}
    rats = res.tables["rationales"]
    assert rats.loc[rats["doc_id"] == "dB", "text"].tolist() == ["X x now."]


def test_mrc_kernel_with_user_rationales_and_methods():
    top = rank_candidates(X_RANKER, QUERIES, DOCS, engine=_engine())
    full = {("q1", d): (Rationale(0, 0, len(t), t, 1.0),) for d, t in DOCS.items()}
    # the whole document as its own rationale reproduces the order exactly
    for method in ("kendall", "spearman", "rbo"):
        out = mrc_per_query(X_RANKER, top, QUERIES, full, ks=(4,), method=method, engine=_engine())
        assert out["mrc"].tolist() == pytest.approx([1.0])
    # empty rationales: every pseudo-document is "" -> constant -> 0 by convention
    out = mrc_per_query(X_RANKER, top, QUERIES, {}, ks=(4,), engine=_engine())
    assert out["mrc"].tolist() == [0.0]
    with pytest.raises(ValidationError):
        mrc_per_query(X_RANKER, top, QUERIES, full, method="tau")


def test_mer_hand_computed():
    top = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d1"], "score": [2.0, 1.0, 1.0]})
    docs = {"d1": "a a. b b.", "d2": "b."}
    subdoc = pd.DataFrame({"doc_id": ["d1", "d2"], "unit": ["a a", "b"], "relevant": [1, 0]})
    rats = {
        ("q1", "d1"): (Rationale(0, 0, 1, "a", 1.0), Rationale(1, 0, 1, "b", 0.5)),  # cos 1 and 0 -> .5
        ("q1", "d2"): (Rationale(0, 0, 1, "b", 1.0),),  # no relevant unit -> ignored
        ("q2", "d1"): (Rationale(0, 0, 3, "a b", 1.0),),  # cos((1,1),(2,0)) = 1/sqrt 2
    }
    out = mer_per_query(top, docs, rats, subdoc, embedder=AB_EMBEDDER, k=10, missing="skip", engine=_engine())
    assert out["query_id"].tolist() == ["q1", "q2"]
    assert out["mer"].tolist() == pytest.approx([0.5, 1 / math.sqrt(2)])
    assert out["n_docs"].tolist() == [1, 1]
    # eq. 3 (default), 1/(m k) sum over the top-k documents: d2 has no relevant unit and counts
    # 0; q2 ranks one document, so its second rank counts 0 too (the paper divides by k)
    zero = mer_per_query(top, docs, rats, subdoc, embedder=AB_EMBEDDER, k=2, engine=_engine())
    assert zero["mer"].tolist() == pytest.approx([(0.5 + 0.0) / 2, (1 / math.sqrt(2) + 0.0) / 2])
    assert zero["n_docs"].tolist() == [2, 2]
    zero10 = mer_per_query(top, docs, rats, subdoc, embedder=AB_EMBEDDER, k=10, engine=_engine())
    assert zero10["mer"].tolist() == pytest.approx([0.5 / 10, 1 / math.sqrt(2) / 10])
    # k = 1 keeps only the top document of each query
    out1 = mer_per_query(top, docs, rats, subdoc, embedder=AB_EMBEDDER, k=1, missing="skip", engine=_engine())
    assert out1["mer"].tolist() == pytest.approx([0.5, 1 / math.sqrt(2)])


def test_consistency_with_user_rationales_and_mer():
    docs = {"d1": "A a here. B b there.", "d2": "B here."}
    queries = pd.DataFrame({"query_id": ["q"], "text": ["a"]})
    rats = {"ov": {("q", "d1"): (Rationale(0, 0, 9, "A a here.", 1.0),), ("q", "d2"): (Rationale(0, 0, 7, "B here.", 1.0),)}}
    subdoc = pd.DataFrame({"query_id": ["q"], "doc_id": ["d1"], "sentence_index": [0], "relevant": [1]})
    from ranklens.explain import read_subdoc_qrels

    res = explanation_consistency(
        {"ov": OverlapRanker()}, queries, docs, rationales=rats, subdoc=read_subdoc_qrels(subdoc),
        embedder=AB_EMBEDDER, ks=(2,), engine=_engine(),
    )
    row = res.table.iloc[0]
    assert row["granularity"] == "user"
    # eq. 3: d1's rationale is its relevant sentence (1), d2 has no relevant unit (0), divided by
    # k: the paper's cut-offs 10 and 50 by default, ranks 3.. not filled count 0 (warned)
    assert (row["MER@10"], row["MER@50"]) == pytest.approx(((1 + 0) / 10, (1 + 0) / 50))
    assert any("rank fewer than 10 documents" in w for w in res.warnings)
    assert row["MRC@2"] == pytest.approx(1.0)
    two = explanation_consistency(
        {"ov": OverlapRanker()}, queries, docs, rationales=rats, subdoc=read_subdoc_qrels(subdoc),
        embedder=AB_EMBEDDER, ks=(2,), mer_k=2, engine=_engine(),
    )
    assert two.table.iloc[0]["MER@2"] == pytest.approx((1 + 0) / 2)
    assert not any("fewer than" in w for w in two.warnings)
    skip = explanation_consistency(
        {"ov": OverlapRanker()}, queries, docs, rationales=rats, subdoc=read_subdoc_qrels(subdoc),
        embedder=AB_EMBEDDER, ks=(2,), mer_missing="skip", engine=_engine(),
    )
    assert skip.table.iloc[0]["MER@10"] == pytest.approx(1.0)


def test_engine_counts_and_cached_rerun(tiny):
    eng = _engine()
    kw = dict(granularities=("sentence", "window:3"), m=2, ks=(3, 5), engine=eng)
    first = explanation_consistency({"ov": OverlapRanker()}, tiny.queries, tiny.docs, **kw)
    scored = eng.stats.pairs_scored
    # independent count of distinct (query, text) pairs: ranking + occluded variants + pseudo-docs
    ex = OcclusionExplainer()
    pairs = set()
    qmap = dict(zip(tiny.queries["query_id"], tiny.queries["text"]))
    for qt in qmap.values():
        for t in tiny.docs.values():
            pairs.add((qt, t))
    rats = first.tables["rationales"]
    for g in ("sentence", "window:3"):
        exg = OcclusionExplainer(granularity=g)
        for (q, d) in rats.loc[rats["granularity"] == g, ["query_id", "doc_id"]].drop_duplicates().itertuples(index=False):
            pairs.update((qmap[q], t) for t in exg.plan(qmap[q], tiny.docs[d]))
        for (q, _d), gr in rats[rats["granularity"] == g].groupby(["query_id", "doc_id"]):
            rs = [Rationale(int(u), int(s), int(e), str(t), float(w)) for u, s, e, t, w in
                  zip(gr["unit"], gr["start"], gr["end"], gr["text"], gr["weight"])]
            pairs.add((qmap[q], pseudo_document(rs)))
    assert ex.granularity == "sentence"
    assert scored == len(pairs)
    again = explanation_consistency({"ov": OverlapRanker()}, tiny.queries, tiny.docs, **kw)
    assert eng.stats.pairs_scored == scored
    pd.testing.assert_frame_equal(first.table, again.table)


def test_ndcg_beside_and_roundtrip(tiny, tmp_path):
    res = explanation_consistency(
        {"ov": OverlapRanker()}, tiny.queries, tiny.docs, qrels=tiny.qrels, granularities=("sentence",), m=1,
        ks=(3,), engine=_engine(),
    )
    # q3 "dog bark": d2 (the only relevant doc) is the only doc with a query term -> rank 1 -> nDCG 1
    assert res.table.set_index("query_id").loc["q3", "nDCG@10"] == pytest.approx(1.0)
    back = Result.load(res.save(tmp_path / "r"))
    assert back.kind == "explain-consistency"
    pd.testing.assert_frame_equal(back.table, res.table, check_dtype=False)
    assert set(back.tables) == {"summary", "correlations", "rationales", "documents", "ci", "comparisons", "units",
                                "unit_diagnostics"}


def test_sweep_prefix_property_and_plots(tiny):
    eng = _engine()
    sw = explanation_sweep({"ov": OverlapRanker()}, tiny.queries, tiny.docs, qrels=tiny.qrels, ms=(1, 2, 3),
                           windows=(2, 4), granularities=("sentence",), ks=(5,), engine=eng)
    assert sw.kind == "explain-sweep"
    assert set(sw.table["granularity"]) == {"sentence", "window:2", "window:4"}
    assert sorted(set(sw.table["m"])) == [1, 2, 3]
    # m = 1 of the sweep equals a direct consistency run with m = 1
    direct = explanation_consistency({"ov": OverlapRanker()}, tiny.queries, tiny.docs, granularities=("window:2",),
                                     m=1, ks=(5,), engine=eng)
    a = sw.table[(sw.table["granularity"] == "window:2") & (sw.table["m"] == 1)]["MRC@5"].iloc[0]
    assert a == pytest.approx(direct.tables["summary"]["MRC@5"].iloc[0])
    fig = plot_sweep(sw, "MRC@5")
    assert len(fig.axes[0].lines) == 3
    fig2 = plot_relevance_scatter(sw, "MRC@5")
    assert len(fig2.axes[0].collections) >= 1
    fig3 = plot_consistency(direct)
    assert len(fig3.axes[0].patches) == 1
    with pytest.raises(ValidationError):
        plot_sweep(direct)


def test_explain_run_tables(tiny):
    run = rank_candidates(OverlapRanker(), tiny.queries, tiny.docs, engine=_engine())
    res = explain_run(OverlapRanker(), run, tiny.queries, tiny.docs, k=2, m=1, engine=_engine())
    assert res.kind == "explain-rationales"
    assert len(res.table) == 6  # 3 queries x 2 docs x 1 rationale
    t = res.table.iloc[0]
    assert tiny.docs[t["doc_id"]][t["start"]:t["end"]] == t["text"]
    units = res.tables["units"]
    assert np.isfinite(units["weight"]).all()
