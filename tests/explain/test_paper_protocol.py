"""Issue 17: the paper's occlusion budget, MaxP documents, unit diagnostics and the statistics,
each against a small brute-force reference written here."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from ranklens.engine import ScoringEngine
from ranklens.explain import OcclusionExplainer, ci_table, explanation_consistency, paired_tests
from ranklens.rankers.passages import is_maxp, maxp, split_passages
from ranklens.specs import maxp_from_spec
from ranklens.text import sentence_spans

from ._helpers import X_RANKER


def _engine():
    return ScoringEngine(cache=False)


# ---------------------------------------------------------------------------- occlusion sets
def test_default_masks_every_combination_of_one_and_two_units_like_the_reference_code():
    ex = OcclusionExplainer()  # samples=0: every combination, however many
    for units in (1, 2, 5, 40):
        ref = [c for size in (1, 2) for c in itertools.combinations(range(units), size)]
        assert ex.masked_sets(units, "q", "d") == ref


def test_eq4_sum_equals_brute_force_on_windows():
    doc = "x a x b c x d x e f g x"
    ex = OcclusionExplainer(granularity="window:2")
    [e] = ex.explain(X_RANKER, ["q"], [doc], engine=_engine())
    words = doc.split()
    units = [words[i:i + 2] for i in range(0, len(words), 2)]

    def score(ws):
        return 1.0 + sum(w == "x" for w in ws)

    theta = score(words)
    ref = [0.0] * len(units)
    for size in (1, 2):
        for c in itertools.combinations(range(len(units)), size):
            kept = [w for j, u in enumerate(units) if j not in c for w in u]
            for j in c:
                ref[j] += abs(theta - score(kept)) / (size * theta)
    assert e.weights == pytest.approx(ref)
    assert e.masked_sets == len(units) + math.comb(len(units), 2) and e.exhaustive


@pytest.mark.parametrize("units,samples", [(30, 30), (40, 12), (10, 20)])
def test_a_budget_below_the_combinations_still_masks_multi_unit_sets(units, samples):
    sets = OcclusionExplainer(n=2, samples=samples, seed=0).masked_sets(units, "q", "doc")
    singles = [c for c in sets if len(c) == 1]
    multi = [c for c in sets if len(c) > 1]
    assert sorted(singles) == [(i,) for i in range(units)]
    assert len(multi) == max(samples - units, units)  # never fewer multi-unit sets than units
    assert len(set(sets)) == len(sets)


def test_sampled_explanations_are_reported_and_warned():
    docs = {"d1": " ".join(["x y z"] * 10), "d2": "x"}
    q = pd.DataFrame({"query_id": ["q"], "text": ["x"]})
    res = explanation_consistency({"x": X_RANKER}, q, docs, granularities=("window:1",), m=1, ks=(2,),
                                  explainer=OcclusionExplainer(samples=40), engine=_engine())
    units = res.tables["units"].set_index("doc_id")
    assert units.loc["d1", "units"] == 30 and units.loc["d1", "masked_sets"] == 60
    assert not units.loc["d1", "exhaustive"] and units.loc["d2", "exhaustive"]
    assert any("sampled" in w for w in res.warnings)


# ---------------------------------------------------------------------------- unit diagnostics
def test_whole_document_share_matches_a_count_and_warns_above_20_percent():
    docs = {"a": "X one. X two. X three.", "b": "X only here.", "c": "X yes. No.", "d": "Nothing."}
    q = pd.DataFrame({"query_id": ["q"], "text": ["x"]})
    res = explanation_consistency({"x": X_RANKER}, q, docs, granularities=("sentence",), m=2, ks=(4,),
                                  engine=_engine())
    n_units = {d: len(sentence_spans(t)) for d, t in docs.items()}
    share = sum(n <= 2 for n in n_units.values()) / len(docs)
    diag = res.tables["unit_diagnostics"].iloc[0]
    assert diag["whole_document_share"] == pytest.approx(share)
    assert (diag["units_min"], diag["units_max"]) == (min(n_units.values()), max(n_units.values()))
    assert diag["units_median"] == pytest.approx(float(np.median(list(n_units.values()))))
    assert share > 0.2 and any("whole document" in w for w in res.warnings)
    assert res.summary["x/sentence/whole_document_share"] == pytest.approx(share, abs=1e-4)
    assert res.provenance.params["sentence_segmenter"].startswith("spacy:")


def test_sweep_and_rationale_results_carry_unit_diagnostics_per_m():
    from ranklens.explain import explain_run, explanation_sweep

    docs = {"a": "X one. X two. X three. X four.", "b": "X only here. Not x.", "c": "X yes. No. Maybe x."}
    q = pd.DataFrame({"query_id": ["q"], "text": ["x"]})
    sw = explanation_sweep({"x": X_RANKER}, q, docs, ms=(1, 3), granularities=("sentence",), ks=(3,),
                           engine=_engine())
    n_units = [len(sentence_spans(t)) for t in docs.values()]
    diag = sw.tables["unit_diagnostics"].set_index("m")
    for m in (1, 3):
        assert diag.loc[m, "whole_document_share"] == pytest.approx(sum(n <= m for n in n_units) / 3)
    assert any(w.startswith("m=3:") and "whole document" in w for w in sw.warnings)
    assert not any(w.startswith("m=1:") for w in sw.warnings)  # no document has a single sentence
    assert sw.tables["per_query"][["query_id", "query"]].drop_duplicates().values.tolist() == [["q", "x"]]
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": list(docs), "score": [3.0, 2.0, 1.0]})
    ex = explain_run(X_RANKER, run, q, docs, k=3, m=3, engine=_engine())
    d = ex.tables["unit_diagnostics"].iloc[0]
    assert d["whole_document_share"] == pytest.approx(2 / 3) and d["units_max"] == 4
    assert any("whole document" in w for w in ex.warnings)


# ---------------------------------------------------------------------------- MaxP documents
LONG = ("X one here. Nothing two. Nothing three. X x four. Nothing five. Nothing six. "
        "X seven. Nothing eight.")


def test_maxp_chunks_are_fixed_three_sentence_slices():
    spans = sentence_spans(LONG)
    ref = [LONG[spans[i][0]:spans[min(i + 3, len(spans)) - 1][1]] for i in range(0, len(spans), 3)]
    assert maxp(X_RANKER).passages(LONG) == ref == split_passages(LONG, size=3, stride=3)
    corpus = ["cats purr. dogs bark.", "birds sing."]
    r = maxp_from_spec("bm25:2", corpus, {})
    assert is_maxp(r, 2) and not is_maxp(r, 3) and maxp_from_spec("bm25", corpus, {}).size == 3


def test_maxp_is_a_model_spec_at_every_door():
    from ranklens.specs import make_ranker

    corpus = ["X one here. Nothing two. X x three. Four.", "Nothing. X five."]
    r = make_ranker("maxp:bm25:2", corpus=corpus)
    ref = maxp(make_ranker("bm25", corpus=corpus), 2)
    assert is_maxp(r, 2) and is_maxp(make_ranker("maxp:tfidf", corpus=corpus), 3)
    texts = [LONG, corpus[0]]
    assert r.score(["x"] * 2, texts).tolist() == pytest.approx(ref.score(["x"] * 2, texts).tolist())
    # by hand: the max over the fixed 2-sentence chunks of plain BM25
    base = make_ranker("bm25", corpus=corpus)
    chunks = split_passages(LONG, size=2, stride=2)
    assert r.score(["x"], [LONG])[0] == pytest.approx(max(base.score(["x"] * len(chunks), chunks)))


def test_document_mode_explains_the_maxp_ranking_score():
    docs = {"long": LONG, "short": "X a. Nothing b."}
    q = pd.DataFrame({"query_id": ["q"], "text": ["x"]})
    ranker = maxp(X_RANKER, 3)
    ex = OcclusionExplainer(long_document_sentences=3, chunk_sentences=3)
    res = explanation_consistency({"maxp": ranker}, q, docs, granularities=("sentence",), m=1, ks=(2,),
                                  explainer=ex, engine=_engine())
    run_scores = dict(zip(res.tables["rationales"]["doc_id"], res.tables["rationales"]["score"]))
    # the greedy step's theta (max over chunks of the base ranker) = the MaxP ranking score
    from ranklens.explain.rationales import _explain_top

    top = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["long", "short"], "score": [0.0, 0.0], "rank": [1, 2]})
    exps = _explain_top(X_RANKER, top, {"q": "x"}, docs, ex, _engine())
    assert exps[("q", "long")].mode == "document"
    assert exps[("q", "long")].score == pytest.approx(run_scores["long"])
    assert max(X_RANKER.score(["x"] * 3, maxp(X_RANKER).passages(LONG))) == pytest.approx(run_scores["long"])
    assert not [w for w in res.warnings if "maxp:SPEC" in w]
    plain = explanation_consistency({"x": X_RANKER}, q, docs, granularities=("sentence",), m=1, ks=(2,),
                                    explainer=ex, engine=_engine())
    assert any("maxp:SPEC:3" in w for w in plain.warnings)


# ---------------------------------------------------------------------------- statistics
def _table():
    return pd.DataFrame({
        "model": ["a"] * 4 + ["b"] * 3, "granularity": "sentence", "m": 1,
        "query_id": ["q1", "q2", "q3", "q4", "q1", "q2", "q4"],
        "MRC@10": [0.5, 0.7, 0.1, 0.9, 0.2, 0.6, 0.3],
    })


def test_ci_table_is_the_bootstrap_of_the_per_query_values():
    from ranklens.stats import bootstrap_ci

    ci = ci_table(_table(), ["MRC@10"], n_resamples=500, seed=3)
    a = ci[ci["model"] == "a"].iloc[0]
    ref = bootstrap_ci([0.5, 0.7, 0.1, 0.9], n_resamples=500, seed=3)
    assert (a["mean"], a["ci_low"], a["ci_high"], a["n"]) == pytest.approx((0.55, ref.low, ref.high, 4))


def test_paired_tests_pair_models_by_query():
    from scipy import stats

    out = paired_tests(_table(), ["MRC@10"], test="ttest")
    row = out.iloc[0]
    assert (row["model"], row["other_model"], row["n"]) == ("a", "b", 3)  # q3 has no value for b
    ref = stats.ttest_rel([0.5, 0.7, 0.9], [0.2, 0.6, 0.3])
    assert row["pvalue"] == pytest.approx(ref.pvalue) and row["mean_diff"] == pytest.approx(1.0 / 3)
    exact = paired_tests(_table(), ["MRC@10"])  # 3 pairs: all 8 sign flips enumerated
    d = np.array([0.3, 0.1, 0.6])
    null = [abs(np.mean(d * s)) for s in itertools.product([1, -1], repeat=3)]
    assert exact.iloc[0]["pvalue"] == pytest.approx(np.mean([v >= abs(d.mean()) - 1e-12 for v in null]))
