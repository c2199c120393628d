"""Conventions of the explain drivers: the project's tie rule, MER's missing-unit policy, user
rationales cut to m, the w-sweep, and occlusion accumulation."""

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
    cut_rationales,
    explain_run,
    explanation_consistency,
    explanation_sweep,
    mer_per_query,
    mrc_per_query,
    rank_candidates,
)
from ranklens.io import rank_run

from ._helpers import AB_EMBEDDER, NEAR_TIE_RANKER, X_RANKER


def _engine():
    return ScoringEngine(cache=False)


# ---------------------------------------------------------------------------- ties
NT_DOCS = {"a": "up one.", "b": "two.", "c": "three."}  # scores a = 1 + 1e-9, b = c = 1
NT_Q = pd.DataFrame({"query_id": ["q"], "text": ["q"]})


@pytest.mark.parametrize("ties, order", [
    ("trec_eval", ["c", "b", "a"]),  # float32: all three tie -> doc_id descending
    ("float64", ["a", "c", "b"]),  # a is higher in float64; b/c tie -> doc_id descending
    ("input_order", ["a", "b", "c"]),  # b/c tie keeps the input (docs) order
])
def test_ranking_follows_rank_run_tie_rule(ties, order):
    run = rank_candidates(NEAR_TIE_RANKER, NT_Q, NT_DOCS, ties=ties, engine=_engine())
    assert run["doc_id"].tolist() == order
    assert run["doc_id"].tolist() == rank_run(run[["query_id", "doc_id", "score"]], ties=ties)["doc_id"].tolist()
    res = explanation_consistency({"nt": NEAR_TIE_RANKER}, NT_Q, NT_DOCS, granularities=("sentence",), m=1,
                                  ks=(2,), ties=ties, engine=_engine())
    assert res.provenance.params["ties"] == ties
    assert res.tables["documents"]["doc_id"].tolist() == order[:2]  # explained depth is max(ks) = 2
    rats = res.tables["rationales"]
    assert rats.sort_values("rank")["doc_id"].tolist() == order[:2]  # the top-2 under that rule
    er = explain_run(NEAR_TIE_RANKER, run, NT_Q, NT_DOCS, k=1, m=1, ties=ties, engine=_engine())
    assert er.table["doc_id"].tolist() == order[:1] and er.provenance.params["ties"] == ties


def test_trec_eval_ties_are_ties_for_tau_b():
    top = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [2.0 + 1e-9, 2.0, 1.0]})
    # pseudo scores order b > a > c. trec_eval: a and b tie (float32) -> tau-b of (2,2,1) vs (2,3,1)
    rats = {("q", "a"): (Rationale(0, 0, 2, "x", 1.0),), ("q", "b"): (Rationale(0, 0, 5, "x x", 1.0),),
            ("q", "c"): ()}
    te = mrc_per_query(X_RANKER, top, NT_Q, rats, ks=(3,), ties="trec_eval", engine=_engine())
    f64 = mrc_per_query(X_RANKER, top, NT_Q, rats, ks=(3,), ties="float64", engine=_engine())
    from scipy import stats

    assert te["mrc"].iloc[0] == pytest.approx(stats.kendalltau([2, 2, 1], [2, 3, 1]).statistic)
    assert f64["mrc"].iloc[0] == pytest.approx(1 / 3)  # strict order a > b > c: 2 concordant, 1 discordant
    with pytest.raises(ValidationError, match="tie rule"):
        explanation_consistency({"x": X_RANKER}, NT_Q, NT_DOCS, ties="random")


# ---------------------------------------------------------------------------- MER missing units
def test_mer_missing_skip_and_zero_hand_computed():
    top = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q3"], "doc_id": ["d1", "d2", "d1", "d2"],
                        "score": [2.0, 1.0, 1.0, 1.0]})
    docs = {"d1": "a a. b b.", "d2": "b."}
    subdoc = pd.DataFrame({"doc_id": ["d1", "d2"], "unit": ["a a", "b"], "relevant": [1, 0]})
    rats = {
        ("q1", "d1"): (Rationale(0, 0, 1, "a", 1.0), Rationale(1, 0, 1, "b", 0.5)),  # .5
        ("q1", "d2"): (Rationale(0, 0, 1, "b", 1.0),),  # d2 has no relevant unit
        ("q2", "d1"): (Rationale(0, 0, 3, "a b", 1.0),),  # 1/sqrt 2
        ("q3", "d2"): (Rationale(0, 0, 1, "b", 1.0),),  # the only doc has no relevant unit
    }
    skip = mer_per_query(top, docs, rats, subdoc, embedder=AB_EMBEDDER, k=10, missing="skip", engine=_engine())
    assert skip["query_id"].tolist() == ["q1", "q2"]
    assert skip["mer"].tolist() == pytest.approx([0.5, 1 / math.sqrt(2)])
    assert skip["n_docs"].tolist() == [1, 1]
    zero = mer_per_query(top, docs, rats, subdoc, embedder=AB_EMBEDDER, k=2, missing="zero", engine=_engine())
    assert zero["query_id"].tolist() == ["q1", "q2", "q3"]
    # eq. 3 divides by k = 2 whatever a query ranks: q2 and q3 rank one document each
    assert zero["mer"].tolist() == pytest.approx([(0.5 + 0) / 2, (1 / math.sqrt(2) + 0) / 2, 0.0])
    assert zero["n_docs"].tolist() == [2, 2, 2]
    with pytest.raises(ValidationError, match="skip"):
        mer_per_query(top, docs, rats, subdoc, embedder=AB_EMBEDDER, missing="drop")


def test_mer_equals_eq3_brute_force_with_fewer_rationales_than_m():
    """Eq. 3: MER = 1/(|Q| m k) sum_Q sum_i sum_j max_j' cos(d_j, r_j'); a document with fewer than m
    rationales contributes its sum over m, a document without relevant units 0."""
    vec = {"a": (1.0, 0.0), "b": (0.0, 1.0), "a b": (1.0, 1.0), "a a": (2.0, 0.0)}

    def cos(x, y):
        nx, ny = math.hypot(*vec[x]), math.hypot(*vec[y])
        return (vec[x][0] * vec[y][0] + vec[x][1] * vec[y][1]) / (nx * ny)

    top = pd.DataFrame({"query_id": ["q1", "q1", "q1"], "doc_id": ["d1", "d2", "d3"], "score": [3.0, 2.0, 1.0]})
    docs = {"d1": "a a. b.", "d2": "b.", "d3": "a b."}
    relevant = {"d1": ["a a"], "d3": ["a a", "b"]}
    subdoc = pd.DataFrame({"doc_id": ["d1", "d3", "d3"], "unit": ["a a", "a a", "b"], "relevant": [1, 1, 1]})
    rats = {("q1", "d1"): (Rationale(0, 0, 1, "a b", 1.0), Rationale(1, 0, 1, "b", 0.5)),
            ("q1", "d2"): (Rationale(0, 0, 1, "b", 1.0),),
            ("q1", "d3"): (Rationale(0, 0, 1, "b", 1.0),)}
    m, k = 3, 3
    ref = sum(max(cos(r.text, u) for u in relevant.get(d, [])) if relevant.get(d) else 0.0
              for (_, d), rs in rats.items() for r in rs) / (m * k)
    out = mer_per_query(top, docs, {m: rats}, subdoc, embedder=AB_EMBEDDER, k=k, engine=_engine())
    assert out["mer"].tolist() == pytest.approx([ref])


def test_mer_missing_in_driver_and_provenance():
    docs = {"d1": "a a here. b there.", "d2": "b only."}
    queries = pd.DataFrame({"query_id": ["q"], "text": ["a"]})
    rats = {"r": {("q", "d1"): (Rationale(0, 0, 9, "a a here.", 1.0),), ("q", "d2"): (Rationale(0, 0, 7, "b only.", 1.0),)}}
    subdoc = pd.DataFrame({"doc_id": ["d1"], "unit": ["a a here."], "relevant": [1]})
    kw = dict(rationales=rats, subdoc=subdoc, embedder=AB_EMBEDDER, ks=(2,), mer_k=2, engine=_engine())
    skip = explanation_consistency({"r": X_RANKER}, queries, docs, mer_missing="skip", **kw)
    zero = explanation_consistency({"r": X_RANKER}, queries, docs, **kw)  # eq. 3 is the default
    assert skip.table["MER@2"].tolist() == pytest.approx([1.0])
    assert zero.table["MER@2"].tolist() == pytest.approx([0.5])  # d2 (no relevant unit) counts 0
    assert skip.provenance.params["mer_missing"] == "skip" and zero.provenance.params["mer_missing"] == "zero"
    assert "count 0" in zero.provenance.params["mer_documents"]
    with pytest.raises(ValidationError, match="mer_missing"):
        explanation_consistency({"r": X_RANKER}, queries, docs, mer_missing="nan", **kw)


# ---------------------------------------------------------------------------- user rationales cut to m
DOCS3 = {"d1": "X one. X x two. Three.", "d2": "Y four. X five."}
Q = pd.DataFrame({"query_id": ["q"], "text": ["x"]})


def _user():
    d1 = DOCS3["d1"]
    return {
        ("q", "d1"): (Rationale(-1, 0, 6, d1[0:6], 0.1), Rationale(-1, 7, 15, d1[7:15], 0.9),
                      Rationale(-1, 16, 22, d1[16:22], 0.5)),
        ("q", "d2"): (Rationale(-1, 0, 7, "Y four.", float("nan")), Rationale(-1, 8, 15, "X five.", 0.2)),
    }


def test_cut_rationales_top_m_by_weight():
    cut = cut_rationales(_user(), 2)
    assert [r.weight for r in cut[("q", "d1")]] == [0.9, 0.5]
    assert [r.text for r in cut[("q", "d2")]] == ["X five.", "Y four."]  # nan weight last
    assert cut_rationales(_user(), 0) == {("q", "d1"): (), ("q", "d2"): ()}
    with pytest.raises(ValidationError):
        cut_rationales(_user(), -1)


def test_user_rationales_are_cut_to_m_in_consistency_and_sweep():
    res = explanation_consistency({"x": X_RANKER}, Q, DOCS3, rationales={"x": _user()}, m=1, ks=(2,),
                                  engine=_engine())
    rats = res.tables["rationales"]
    assert rats.groupby("doc_id")["text"].apply(list).to_dict() == {"d1": ["X x two."], "d2": ["X five."]}
    # pseudo docs "X x two." (3) and "X five." (2) keep the order d1 (4) > d2 (2): tau = 1
    assert res.table["MRC@2"].tolist() == pytest.approx([1.0])
    assert res.provenance.params["user_rationales"].startswith("top-m by weight")
    # uncut, d1's pseudo document would hold all three units
    full = mrc_per_query(X_RANKER, rank_candidates(X_RANKER, Q, DOCS3, engine=_engine()), Q, cut_rationales(_user(), 1),
                         ks=(2,), engine=_engine())
    assert full["mrc"].tolist() == res.table["MRC@2"].tolist()
    sw = explanation_sweep({"x": X_RANKER}, Q, DOCS3, rationales={"x": _user()}, ms=(1, 2, 3), ks=(2,),
                           engine=_engine())
    assert set(sw.table["granularity"]) == {"user"} and sw.table["m"].tolist() == [1, 2, 3]


def test_sweep_windows_add_granularities_once():
    sw = explanation_sweep({"x": X_RANKER}, Q, DOCS3, ms=(1,), windows=(1, 2), granularities=("sentence", "window:2"),
                           ks=(2,), engine=_engine())
    assert sw.table["granularity"].tolist() == ["sentence", "window:2", "window:1"]
    assert sw.provenance.params["windows"] == [1, 2]
    with pytest.raises(ValidationError, match="window widths"):
        explanation_sweep({"x": X_RANKER}, Q, DOCS3, windows=(0,))


# ---------------------------------------------------------------------------- occlusion accumulation
def test_sum_and_mean_agree_on_order_when_enumerated_and_differ_by_set_counts_when_sampled():
    doc = "X y here. X x z there. Y y now. X is. Z z z."
    exh = dict(granularity="sentence", n=2, samples=100)
    [s] = OcclusionExplainer(aggregate="sum", **exh).explain(X_RANKER, ["q"], [doc], engine=_engine())
    [m] = OcclusionExplainer(aggregate="mean", **exh).explain(X_RANKER, ["q"], [doc], engine=_engine())
    assert s.order == m.order  # every unit is in 1 + 4 = 5 sets
    assert np.asarray(s.weights) == pytest.approx(5 * np.asarray(m.weights))
    samp = dict(granularity="window:1", n=3, samples=12, seed=4)
    long_doc = "x a b x c d x e f g"
    ex_s, ex_m = OcclusionExplainer(aggregate="sum", **samp), OcclusionExplainer(aggregate="mean", **samp)
    [s2] = ex_s.explain(X_RANKER, ["q"], [long_doc], engine=_engine())
    [m2] = ex_m.explain(X_RANKER, ["q"], [long_doc], engine=_engine())
    counts = np.zeros(10)
    for c in ex_s.masked_sets(10, "q", long_doc):
        counts[list(c)] += 1
    assert len(set(counts)) > 1  # sampled: units are in different numbers of sets
    assert np.asarray(s2.weights) == pytest.approx(counts * np.asarray(m2.weights))


# ---------------------------------------------------------------------------- paper defaults of m; document mode
LONG_DOCS = {"a": "Cats purr. Dogs bark. Cats sleep. Birds sing. Fish swim. Cats eat. Cows moo.",
             "b": "Cats run. Owls hoot. Cats nap. Bees buzz. Cats jump. Ants dig. Rats squeak."}
LONG_TOP = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [2.0, 1.0]})


@pytest.mark.parametrize(("granularity", "paper_m"), [("sentence", 1), ("window:5", 6)])
def test_explain_run_takes_the_papers_m_for_its_granularity(granularity, paper_m):
    from ranklens.explain.occlusion import OcclusionExplainer
    from ranklens.testing import OverlapRanker

    res = explain_run(OverlapRanker(), LONG_TOP, {"q": "cats"}, LONG_DOCS,
                      explainer=OcclusionExplainer(granularity=granularity, samples=12), engine=_engine())
    assert res.summary["m"] == paper_m  # Table 1: 1 sentence, 6 word windows
    per_doc = res.table.groupby("doc_id").size()
    units = res.tables["units"].groupby("doc_id").size()
    assert (per_doc == np.minimum(units, paper_m)).all()  # 7 sentences -> 1; 3 windows of 5 words -> 3


def test_document_mode_under_a_window_granularity_is_warned():
    """The paper's document mode explains long documents by sentence; rows labelled window:5
    then hold whole sentences for those documents, which the result must say."""
    from ranklens.explain.occlusion import OcclusionExplainer
    from ranklens.rankers.passages import maxp
    from ranklens.testing import OverlapRanker

    res = explanation_consistency({"mx": maxp(OverlapRanker())}, {"q": "cats"}, LONG_DOCS, ks=(2,),
                                  explainer=OcclusionExplainer(long_document_sentences=3), engine=_engine())
    warned = [w for w in res.warnings if "explained by sentence" in w]
    assert len(warned) == 1 and "window:5" in warned[0] and "2 of 2 documents" in warned[0]
    # the sentence rows are the paper's document mode itself: no warning for them
    sent = explanation_consistency({"mx": maxp(OverlapRanker())}, {"q": "cats"}, LONG_DOCS, ks=(2,),
                                   granularities=("sentence",), explainer=OcclusionExplainer(long_document_sentences=3),
                                   engine=_engine())
    assert not any("explained by sentence" in w for w in sent.warnings)


def test_mer_at_several_cut_offs_encodes_once_and_equals_one_cut_off_at_a_time():
    top = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d1"], "score": [2.0, 1.0, 1.0]})
    docs = {"d1": "a a. b b.", "d2": "b."}
    subdoc = pd.DataFrame({"doc_id": ["d1", "d2"], "unit": ["a a", "b"], "relevant": [1, 1]})
    rats = {("q1", "d1"): (Rationale(0, 0, 1, "a", 1.0),), ("q1", "d2"): (Rationale(0, 0, 1, "b", 1.0),),
            ("q2", "d1"): (Rationale(0, 0, 3, "a b", 1.0),)}
    out = {}
    for missing in ("zero", "skip"):
        one_at_a_time = pd.concat([mer_per_query(top, docs, rats, subdoc, embedder=AB_EMBEDDER, k=k,
                                                 missing=missing, engine=_engine()) for k in (1, 3)])
        eng = ScoringEngine(cache=False, show_progress=False)
        both = mer_per_query(top, docs, rats, subdoc, embedder=AB_EMBEDDER, k=(1, 3), missing=missing, engine=eng)
        key = ["query_id", "k"]
        pd.testing.assert_frame_equal(both.sort_values(key).reset_index(drop=True),
                                      one_at_a_time.sort_values(key).reset_index(drop=True))
        assert eng.stats.texts_encoded == 4  # "a", "b", "a b", "a a": each unit text encoded once
        out[missing] = both
    # eq. 3 by hand at k = 3 (q1: cos(a, a a) = 1 and cos(b, b) = 1 over 3 ranks; q2: 1/sqrt 2 over 3)
    zero, skip = out["zero"], out["skip"]
    assert zero.loc[zero["k"] == 3, "mer"].tolist() == pytest.approx([2 / 3, 1 / math.sqrt(2) / 3])
    assert skip.loc[skip["k"] == 3, "mer"].tolist() == pytest.approx([1.0, 1 / math.sqrt(2)])
