from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens.errors import ValidationError
from ranklens.explain import max_similarity, rank_correlation, rbo


def test_kendall_hand_computed():
    # original order a > b > c; pseudo scores a=1, b=3, c=2
    # pairs (a,b) discordant, (a,c) discordant, (b,c) concordant -> tau = (1 - 2) / 3
    assert rank_correlation([9, 8, 7], [1, 3, 2]) == pytest.approx(-1 / 3)


def test_spearman_hand_computed():
    # pseudo ranks a=3, b=1, c=2 vs 1, 2, 3: d = 2, -1, -1 -> rho = 1 - 6*6 / (3*8) = -0.5
    assert rank_correlation([9, 8, 7], [1, 3, 2], method="spearman") == pytest.approx(-0.5)


def test_original_ties_are_ties():
    # a, b tied originally (e.g. duplicate passages); pseudo scores keep the tie -> perfect tau-b
    assert rank_correlation([5, 5, 3], [2, 2, 1]) == pytest.approx(1.0)
    # tau-b by hand for orig (5, 5, 3) vs pseudo (3, 2, 1): pairs ab tie in x; ac, bc concordant
    # -> (2 - 0) / sqrt((3 - 1) * 3) = 2 / sqrt(6)
    assert rank_correlation([5, 5, 3], [3, 2, 1]) == pytest.approx(2 / np.sqrt(6))
    assert np.isnan(rank_correlation([5, 5, 5], [3, 2, 1]))
    assert rank_correlation([5, 4, 3], [1, 2, 3]) == pytest.approx(-1.0)


def test_degenerate_cases():
    assert np.isnan(rank_correlation([1.0], [2.0]))
    assert rank_correlation([3, 2, 1], [0, 0, 0]) == 0.0
    with pytest.raises(ValidationError, match="kendall"):
        rank_correlation([3, 2], [1, 2], method="pearson")
    with pytest.raises(ValidationError):
        rank_correlation([3, 2], [1, 2, 3])


def test_rbo_hand_computed():
    # depth 1: overlap 0; depth 2: overlap 2 -> X_2/2 p^2 + (1-p)/p (0 + 2/2 p^2) = .25 + .25
    assert rbo(["a", "b"], ["b", "a"], p=0.5) == pytest.approx(0.5)
    assert rank_correlation([2, 1], [1, 2], method="rbo", p=0.5) == pytest.approx(0.5)
    assert rbo(["a", "b", "c"], ["a", "b", "c"], p=0.7) == pytest.approx(1.0)


def _rbo_slow(a, b, p):
    """Direct definition: X_d = |prefix_a ∩ prefix_b| recomputed at every depth."""
    k = len(a)
    xs = [len(set(a[:d]) & set(b[:d])) for d in range(1, k + 1)]
    return xs[-1] / k * p**k + (1 - p) / p * sum(x / d * p**d for d, x in enumerate(xs, start=1))


@settings(max_examples=60, deadline=None)
@given(st.permutations(list("abcdefg")), st.floats(0.05, 0.95))
def test_rbo_properties_and_reference(perm, p):
    ident = list("abcdefg")
    v = rbo(ident, perm, p=p)
    assert 0.0 <= v <= 1.0 + 1e-12
    assert v == pytest.approx(_rbo_slow(ident, list(perm), p))
    assert v == pytest.approx(rbo(list(perm), ident, p=p))  # symmetric
    assert rbo(list(perm), list(perm), p=p) == pytest.approx(1.0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=2, max_size=12, unique=True))
def test_kendall_bounds_and_perfect(scores):
    orig = sorted(scores, reverse=True)
    assert rank_correlation(orig, orig) == pytest.approx(1.0)
    assert rank_correlation(orig, [-s for s in orig]) == pytest.approx(-1.0)
    perm = list(np.random.default_rng(len(scores)).permutation(scores))
    assert -1.0 <= rank_correlation(orig, perm) <= 1.0


def test_max_similarity_hand_computed():
    r = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0], [0.0, 0.0]])
    rel = np.array([[3.0, 0.0], [1.0, 1.0]])
    out = max_similarity(r, rel)
    assert out == pytest.approx([1.0, np.sqrt(0.5), 1.0, 0.0])
    with pytest.raises(ValidationError):
        max_similarity(r, np.zeros((0, 2)))
