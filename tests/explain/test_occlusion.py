from __future__ import annotations

import math

import pytest

from ranklens.engine import ScoringEngine
from ranklens.errors import ValidationError
from ranklens.explain import OcclusionExplainer

from ._helpers import NEG_RANKER, X_RANKER, ZERO_RANKER

DOC = "X x now. Y here. X now."  # s0 = "X x now." (2 x), s1 = "Y here." (0), s2 = "X now." (1); theta = 4


def _engine():
    return ScoringEngine(cache=False)


def test_eq4_exhaustive_hand_computed_sum():
    # singletons: drop(s0) = |4-2|/4 = .5, drop(s1) = 0, drop(s2) = |4-3|/4 = .25
    # pairs:      {0,1}: |4-2|/(2*4) = .25, {0,2}: |4-1|/8 = .375, {1,2}: |4-3|/8 = .125
    ex = OcclusionExplainer(granularity="sentence", n=2, samples=6, aggregate="sum")
    [e] = ex.explain(X_RANKER, ["q"], [DOC], engine=_engine())
    assert e.score == 4.0
    assert e.weights == pytest.approx((1.125, 0.375, 0.75))
    assert e.order == (0, 2, 1)
    assert [r.text for r in e.top(2)] == ["X x now.", "X now."]
    assert e.mode == "passage" and not e.guarded


def test_eq4_mean_aggregate_divides_by_set_count():
    ex = OcclusionExplainer(granularity="sentence", n=2, samples=6, aggregate="mean")
    [e] = ex.explain(X_RANKER, ["q"], [DOC], engine=_engine())
    assert e.weights == pytest.approx((1.125 / 3, 0.375 / 3, 0.75 / 3))


def test_n1_is_single_unit_occlusion():
    ex = OcclusionExplainer(granularity="sentence", n=1)
    [e] = ex.explain(X_RANKER, ["q"], [DOC], engine=_engine())
    assert e.weights == pytest.approx((0.5, 0.0, 0.25))


def test_exhaustive_vs_sampled_sets():
    ex = OcclusionExplainer(n=2, samples=6)
    assert ex.masked_sets(3, "q", "d") == [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2)]
    sampled = OcclusionExplainer(n=2, samples=20, seed=1).masked_sets(10, "q", "d")
    assert len(sampled) == 20 and len(set(sampled)) == 20
    assert sampled[:10] == [(i,) for i in range(10)]  # every unit attributed at least once
    assert all(len(c) == 2 for c in sampled[10:])
    # seeded: same seed same sets; other seed other sets; other pair other sets
    assert sampled == OcclusionExplainer(n=2, samples=20, seed=1).masked_sets(10, "q", "d")
    assert sampled != OcclusionExplainer(n=2, samples=20, seed=2).masked_sets(10, "q", "d")
    assert sampled != OcclusionExplainer(n=2, samples=20, seed=1).masked_sets(10, "q", "other")


def test_explanation_does_not_depend_on_batch_companions():
    ex = OcclusionExplainer(granularity="window:1", n=3, samples=8, seed=3)
    doc = "x y x z x y y x"
    [alone] = ex.explain(X_RANKER, ["q"], [doc], engine=_engine())
    both = ex.explain(X_RANKER, ["q", "q"], ["x x y", doc], engine=_engine())
    assert both[1] == alone


def test_negative_scores_guard_abs_and_none():
    # theta = -(10 - 3) = -7; drops are the same as for count_x: 2, 0, 1 (singletons)
    [e] = OcclusionExplainer(n=1, normalize="abs").explain(NEG_RANKER, ["q"], [DOC], engine=_engine())
    assert e.score == -7.0
    assert e.weights == pytest.approx((2 / 7, 0.0, 1 / 7))
    [raw] = OcclusionExplainer(n=1, normalize="none").explain(NEG_RANKER, ["q"], [DOC], engine=_engine())
    assert raw.weights == pytest.approx((2.0, 0.0, 1.0))
    assert e.order == raw.order  # the normaliser never changes which units are chosen


def test_zero_score_is_guarded_and_finite():
    [e] = OcclusionExplainer(n=1).explain(ZERO_RANKER, ["q"], [DOC], engine=_engine())
    assert e.guarded
    assert all(math.isfinite(w) for w in e.weights)


def test_shift_normaliser_positive():
    [e] = OcclusionExplainer(n=1, normalize="shift").explain(NEG_RANKER, ["q"], [DOC], engine=_engine())
    # floor = min score over the query's texts = -(10 - 1) = -9 (s0 removed); N = -7 + 9 + eps
    assert e.weights[0] == pytest.approx(2 / (2 + 1e-6))


def test_all_texts_in_one_call_and_cached_rerun():
    eng = _engine()
    ex = OcclusionExplainer(granularity="window:2", n=2, samples=10)
    docs = ["x y z x a b", "b x x c", "x y z x a b"]  # a duplicate document
    first = ex.explain(X_RANKER, ["q"] * 3, docs, engine=eng)
    distinct = {t for d in docs for t in ex.plan("q", d)}
    assert eng.stats.pairs_scored == len(distinct)
    assert eng.stats.batches == math.ceil(len(distinct) / 32)
    again = ex.explain(X_RANKER, ["q"] * 3, docs, engine=eng)
    assert eng.stats.pairs_scored == len(distinct)  # nothing re-scored
    assert again == first


def test_document_mode_greedy_maxp_hand_computed():
    # 4 sentences, chunks of 2: c0 = s0 s1, c1 = s2 s3.
    doc = "X x x now. Y here. X x now. X now."
    ex = OcclusionExplainer(long_document_sentences=3, chunk_sentences=2, greedy_steps=2)
    [e] = ex.explain(X_RANKER, ["q"], [doc], engine=_engine())
    # chunk scores: c0 = 1+3 = 4, c1 = 1+3 = 4 -> theta = 4
    assert e.mode == "document" and e.score == 4.0
    # step 1: removing any sentence leaves the other chunk at 4 -> all drops 0 -> first index (s0)
    # step 2: c0 is now "y." (1); removing s2 -> c1 = 2, max(1, 2) = 2, drop (4-2)/4 = .5;
    #         removing s3 -> c1 = 3 -> drop .25; removing s1 -> c0 empty -> max = 4 -> 0
    assert e.order[:2] == (0, 2)
    assert e.weights[0] == pytest.approx(0.0)
    assert e.weights[2] == pytest.approx(0.5)
    assert math.isnan(e.weights[1]) and math.isnan(e.weights[3])
    assert [r.text for r in e.top(2)] == ["X x x now.", "X x now."]


def test_short_documents_stay_in_passage_mode():
    ex = OcclusionExplainer(long_document_sentences=3, n=1)
    [e] = ex.explain(X_RANKER, ["q"], [DOC], engine=_engine())
    assert e.mode == "passage"


@pytest.mark.parametrize(
    "kw", [{"n": 0}, {"samples": -1}, {"normalize": "log"}, {"aggregate": "max"}, {"eps": 0}, {"granularity": "para"}]
)
def test_bad_parameters(kw):
    with pytest.raises(ValidationError):
        OcclusionExplainer(**kw)


def test_misaligned_inputs():
    with pytest.raises(ValidationError, match="same length"):
        OcclusionExplainer().explain(X_RANKER, ["q"], ["a", "b"], engine=_engine())


def test_inputs_not_mutated():
    qs, ds = ["q", "q"], ["x. y.", "y. x."]
    OcclusionExplainer().explain(X_RANKER, qs, ds, engine=_engine())
    assert qs == ["q", "q"] and ds == ["x. y.", "y. x."]


# ---------------------------------------------------------------------------- linear-time paths (issue 22)
def _greedy_reference(ranker, query, doc, size, steps):
    """Eq. 5 by brute force: re-score every chunk of D_t - s for every candidate s."""
    from ranklens.explain import remove_spans, split_units

    units = split_units(doc, "line")
    chunks = [list(range(s, min(s + size, len(units)))) for s in range(0, len(units), size)]

    def theta(removed):
        texts = []
        for js in chunks:
            s0, e1 = units[js[0]].start, units[js[-1]].end
            texts.append(remove_spans(doc[s0:e1], [(units[j].start - s0, units[j].end - s0)
                                                   for j in js if j in removed]))
        vals = [float(v) for v, t in zip(ranker.score([query] * len(texts), texts), texts) if t]
        return max(vals) if vals else float(ranker.score([query], [""])[0])

    removed, order, weights = set(), [], {}
    for _ in range(steps):
        now = theta(removed)
        cands = [(((now - theta(removed | {u})) / max(abs(now), 1e-6)), u) for u in range(len(units))
                 if u not in removed]
        if not cands:
            break
        best = max(cands, key=lambda x: (x[0], -x[1]))
        removed.add(best[1])
        order.append(best[1])
        weights[best[1]] = best[0]
    return order, weights


@pytest.mark.parametrize("seed", range(6))
def test_document_mode_greedy_equals_brute_force(seed):
    import random

    rnd = random.Random(seed)
    lines = [" ".join(rnd.choice(["x", "y", "z"]) for _ in range(rnd.randint(1, 4))) for _ in range(rnd.randint(4, 13))]
    doc = "\n".join(lines)
    size, steps = rnd.choice([1, 2, 3]), rnd.randint(1, 6)
    ex = OcclusionExplainer(granularity="line", long_document_sentences=1, chunk_sentences=size, greedy_steps=steps)
    [e] = ex.explain(X_RANKER, ["q"], [doc], engine=_engine())
    order, weights = _greedy_reference(X_RANKER, "q", doc, size, steps)
    assert e.mode == "document"
    assert list(e.order[: len(order)]) == order
    for u, w in weights.items():
        assert e.weights[u] == pytest.approx(w, abs=1e-12)


def test_occluded_texts_are_scored_in_bounded_batches(monkeypatch):
    import ranklens.explain.occlusion as occ
    from ranklens.rankers.base import FunctionRanker

    sizes, chars = [], []

    def counting(queries, texts):
        sizes.append(len(texts))
        chars.append(sum(map(len, texts)))
        return X_RANKER.score(queries, texts)

    ranker = FunctionRanker(fn=counting, name_="counting_x")
    docs = ["x y z x a b x", "b x x c", "x y z x a b x"]
    ex = OcclusionExplainer(granularity="window:1", n=2)
    whole = ex.explain(X_RANKER, ["q"] * 3, docs, engine=_engine())
    monkeypatch.setattr(occ, "_BATCH_TEXTS", 5)
    eng = _engine()
    batched = ex.explain(ranker, ["q"] * 3, docs, engine=eng)
    assert [(e.weights, e.order, e.score, e.masked_sets) for e in batched] == \
        [(e.weights, e.order, e.score, e.masked_sets) for e in whole]
    assert max(sizes) <= 5  # never more than one batch of texts at once
    distinct = {t for d in docs for t in ex.plan("q", d)}
    assert eng.stats.pairs_scored == len(distinct)  # each distinct text scored once across batches
    monkeypatch.setattr(occ, "_BATCH_TEXTS", 10_000)
    monkeypatch.setattr(occ, "_BATCH_CHARS", 20)
    chars.clear()
    again = ex.explain(ranker, ["q"] * 3, docs, engine=_engine())
    # a batch closes once it holds >= 20 characters: below 20 + the longest text (13)
    assert [e.weights for e in again] == [e.weights for e in whole] and max(chars) < 20 + 13
