from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ranklens.errors import ValidationError
from ranklens.search.overlap import knn_overlap, rbo


def test_knn_overlap_hand_values():
    a = np.array([[1, 2, 3], [4, 5, 6]])
    b = np.array([[3, 9, 1], [7, 8, 0]])
    np.testing.assert_allclose(knn_overlap(a, b), [2 / 3, 0.0])
    np.testing.assert_allclose(knn_overlap(a, b, k=1), [0.0, 0.0])
    # missing neighbours (-1) never match each other
    np.testing.assert_allclose(knn_overlap([[1, -1]], [[1, -1]]), [0.5])
    with pytest.raises(ValidationError):
        knn_overlap(a, b, k=4)


def test_knn_overlap_padding_within_a_row_never_matches():
    # several -1 in the same row used to pair up with each other after sorting (0.667 here)
    np.testing.assert_allclose(knn_overlap([[0, -1, -1]], [[1, -1, -1]], 3), [0.0])
    np.testing.assert_allclose(knn_overlap([[-1, -1, -1]], [[-1, -1, -1]]), [0.0])
    np.testing.assert_allclose(knn_overlap([[2, -1, -1]], [[2, 5, -1]]), [1 / 3])


@pytest.mark.parametrize(
    ("a", "b", "p", "expected"),
    [
        ("abc", "abc", 0.9, 1.0),
        ("abc", "xyz", 0.9, 0.0),
        # X = (0, 2, 3): (1-p)/p * (0*.5 + 2/2*.25 + 3/3*.125) + 3/3*.125 = 0.5
        ("abc", "bac", 0.5, 0.5),
        # uneven: S=ab, L=abcd -> extrapolation assumes agreement continues: 1.0
        ("ab", "abcd", 0.5, 1.0),
        # S=ax, L=abcd, X=(1,1,1,1): .6822917 + .0364583 + (0 + 1/2)*.0625 = 0.75
        ("ax", "abcd", 0.5, 0.75),
    ],
)
def test_rbo_hand_values(a, b, p, expected):
    assert rbo(list(a), list(b), p) == pytest.approx(expected)
    assert rbo(list(b), list(a), p) == pytest.approx(expected)


def rbo_ext_reference(S, L, p):
    """Eq. 32 of Webber et al. written term by term from the set definitions (slow)."""
    if len(S) > len(L):
        S, L = L, S
    s, l = len(S), len(L)

    def X(d):
        return len(set(S[: min(d, s)]) & set(L[:d]))

    total = sum(X(d) / d * p**d for d in range(1, l + 1))
    total += sum(X(s) * (d - s) / (s * d) * p**d for d in range(s + 1, l + 1))
    return (1 - p) / p * total + ((X(l) - X(s)) / l + X(s) / s) * p**l


@given(st.permutations(list(range(8))), st.integers(1, 8), st.integers(1, 8),
       st.floats(0.05, 0.95))
def test_rbo_matches_reference_and_bounds(perm, la, lb, p):
    a = list(range(8))[:la]
    b = list(perm)[:lb]
    v = rbo(a, b, p)
    assert v == pytest.approx(rbo_ext_reference(a, b, p))
    assert -1e-12 <= v <= 1 + 1e-12


def test_rbo_top_weighted():
    # a swap at the top costs more than a swap at the bottom
    base = list("abcdef")
    top = list("bacdef")
    bottom = list("abcdfe")
    assert rbo(base, top, 0.8) < rbo(base, bottom, 0.8) < 1.0
    with pytest.raises(ValidationError):
        rbo(base, top, 1.0)
    # the one empty-list contract (neighbors' rbo gave 0.0, explain's NaN): undefined, NaN with a warning
    from ranklens.errors import RanklensWarning

    with pytest.warns(RanklensWarning, match="empty ranking"):
        assert np.isnan(rbo([], base))
    with pytest.warns(RanklensWarning, match="empty ranking"):
        assert np.isnan(rbo(base, [], p=0.5))


def test_one_rbo_for_every_caller():
    """explain's MRC and neighbors' rankers' overlap use this rbo (no second implementation)."""
    import ranklens.explain.measures as explain_measures
    import ranklens.neighbors.rankers as neighbors_rankers
    from ranklens.search import overlap

    assert explain_measures.rbo is overlap.rbo
    assert neighbors_rankers.rbo is overlap.rbo
