"""ranklens.stats: hand-computed corrections, scipy agreement, test behaviour."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sst

from ranklens.errors import ValidationError
from ranklens.stats import (
    bootstrap_ci,
    correct_pvalues,
    paired_ttest,
    pairwise_ttest_matrix,
    randomization_test,
)


def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1=0.04 -> monotone 0.06
    np.testing.assert_allclose(correct_pvalues(p, "holm"), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(correct_pvalues(p, "bonferroni"), [0.04, 0.16, 0.12, 0.02])
    np.testing.assert_allclose(correct_pvalues(p, "none"), p)
    out = correct_pvalues([0.5, np.nan], "bonferroni")
    assert out[0] == 0.5 and np.isnan(out[1])  # NaN does not count towards the family
    with pytest.raises(ValidationError):
        correct_pvalues(p, "sidak")


def test_ttest_matches_scipy_and_drops_nan_pairs():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=20), rng.normal(size=20)
    a[3] = np.nan
    r = paired_ttest(a, b)
    ref = sst.ttest_rel(np.delete(a, 3), np.delete(b, 3))
    assert r.pvalue == pytest.approx(ref.pvalue) and r.n == 19
    assert paired_ttest([1, 2, 3], [1, 2, 3]).pvalue == 1.0


def test_pairwise_matrix_equals_pairwise_scipy():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(25, 5)) + np.arange(5) * 0.3
    x[2, 1] = np.nan
    mean, p = pairwise_ttest_matrix(x)
    for i in range(5):
        for j in range(5):
            if i == j:
                continue
            r = paired_ttest(x[:, i], x[:, j])
            assert p[i, j] == pytest.approx(r.pvalue, rel=1e-9)
            assert mean[i, j] == pytest.approx(r.mean_diff)


def test_randomization_test_behaviour():
    rng = np.random.default_rng(2)
    a = rng.normal(size=30)
    strong = randomization_test(a + 1.0, a, n_resamples=2000, seed=0)
    assert strong.pvalue < 0.01
    null = randomization_test(a, a + rng.normal(scale=1e-3, size=30) - 0.0, seed=0)
    assert null.pvalue > 0.01 or null.mean_diff != 0
    # seeded -> reproducible
    b = rng.normal(size=30)
    assert randomization_test(a, b, seed=5).pvalue == randomization_test(a, b, seed=5).pvalue


def test_bootstrap_ci_contains_mean_and_shrinks():
    rng = np.random.default_rng(3)
    small = bootstrap_ci(rng.normal(size=20), seed=0)
    big = bootstrap_ci(rng.normal(size=2000), seed=0)
    assert small.low <= small.mean <= small.high
    assert (big.high - big.low) < (small.high - small.low)
    one = bootstrap_ci([2.0, 2.0, np.nan])
    assert one.low == one.high == 2.0 and one.n == 2


def test_randomization_matches_scipy_permutation_test():
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=40), rng.normal(size=40) - 0.3
    ours = randomization_test(a, b, n_resamples=20_000, seed=1).pvalue
    ref = sst.permutation_test((a, b), lambda x, y, axis=-1: np.mean(x - y, axis=axis),
                               permutation_type="samples", n_resamples=20_000, vectorized=True,
                               rng=np.random.default_rng(1)).pvalue
    assert abs(ours - ref) < 0.01
    # exact enumeration for few pairs equals scipy's exact null distribution
    a, b = rng.normal(size=8), rng.normal(size=8)
    ours = randomization_test(a, b, n_resamples=10_000).pvalue
    ref = sst.permutation_test((a, b), lambda x, y, axis=-1: np.mean(x - y, axis=axis),
                               permutation_type="samples", n_resamples=10_000,
                               vectorized=True).pvalue
    assert ours == pytest.approx(ref)


def test_percentile_bootstrap_matches_scipy():
    rng = np.random.default_rng(5)
    x = rng.exponential(size=60)
    ours = bootstrap_ci(x, n_resamples=20_000, seed=0)
    ref = sst.bootstrap((x,), np.mean, method="percentile", n_resamples=20_000,
                        rng=np.random.default_rng(0)).confidence_interval
    assert ours.low == pytest.approx(ref.low, abs=0.02)
    assert ours.high == pytest.approx(ref.high, abs=0.02)
    bca = bootstrap_ci(x, method="BCa", n_resamples=2000)
    assert bca.low < ours.mean < bca.high
