from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ranklens.probes import adjust_pvalues, probe_effects, summarize_diffs


def test_effects_hand_computed():
    diff = [0.5, -0.5, 0.1, -0.1, 0.2, 0.0]
    assert probe_effects(diff, 0.2, symmetric=False).tolist() == [1, -1, 0, 0, 0, 0]
    assert probe_effects(diff, 0.2, symmetric=True).tolist() == [1, 1, 0, 0, 0, 0]
    assert probe_effects(diff, 0.0, symmetric=False).tolist() == [1, -1, 1, -1, 1, 0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=40), st.floats(0, 2))
def test_swap_law(diffs, delta):
    d = np.array(diffs)
    # directional: swapping d1 and d2 negates every effect; symmetric: unchanged
    assert (probe_effects(-d, delta, False) == -probe_effects(d, delta, False)).all()
    assert (probe_effects(-d, delta, True) == probe_effects(d, delta, True)).all()
    s = probe_effects(d, delta, False).mean()
    assert -1 <= s <= 1


def test_summarize_matches_scipy():
    rng = np.random.default_rng(1)
    s1 = rng.normal(size=50)
    s2 = s1 - 0.3 + rng.normal(scale=0.2, size=50)
    out = summarize_diffs(s1, s2, delta=0.1, symmetric=False, n_boot=500)
    eff = np.where(s1 - s2 > 0.1, 1, np.where(s1 - s2 < -0.1, -1, 0))
    assert out["score"] == pytest.approx(eff.mean())
    assert out["p_value"] == pytest.approx(stats.ttest_rel(s1, s2).pvalue)
    assert out["pos"] + out["neg"] + out["tie"] == 50
    assert out["ci_low"] <= out["score"] <= out["ci_high"]


def test_summarize_identical_scores_not_significant():
    out = summarize_diffs([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], delta=0.0, symmetric=False)
    assert out["score"] == 0 and out["p_value"] == 1.0


def test_adjust_pvalues():
    p = np.array([0.01, 0.04, np.nan, 0.03])
    assert np.allclose(adjust_pvalues(p, "bonferroni")[[0, 1, 3]], [0.03, 0.12, 0.09])
    # Holm by hand: sorted 0.01*3=0.03, 0.03*2=0.06, 0.04*1 -> max(0.06, 0.04)=0.06
    assert np.allclose(adjust_pvalues(p, "holm")[[0, 1, 3]], [0.03, 0.06, 0.06])
    assert np.isnan(adjust_pvalues(p, "holm")[2])
