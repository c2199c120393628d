"""Overlap of neighbour sets and of rankings: k-NN set overlap (N2O) and rank-biased overlap.

N2O (Lin & Smith, "Situating Sentence Embedders with Nearest Neighbor Overlap"):

.. math:: \\mathrm{N2O}(e_A, e_B) = \\frac{1}{k\\,n}\\sum_{j=1}^{n} |NN_A^k(q_j) \\cap NN_B^k(q_j)|

Rank-biased overlap (Webber, Moffat & Zobel 2010, "A similarity measure for indefinite
rankings", eq. 32, the extrapolated RBO for two prefixes S (length s) and L (length l >= s)):

.. math:: RBO_{ext} = \\frac{1-p}{p}\\Big(\\sum_{d=1}^{l}\\frac{X_d}{d}p^d
          + \\sum_{d=s+1}^{l}\\frac{X_s (d-s)}{s\\,d}p^d\\Big)
          + \\Big(\\frac{X_l - X_s}{l} + \\frac{X_s}{s}\\Big)p^l

where :math:`X_d` is the size of the intersection of the two prefixes of depth d (for d > s
the shorter list contributes its whole length s). Identical lists give 1, disjoint lists 0.
An empty list has no prefix to agree on: RBO is undefined there (eq. 32 divides by s), so
:func:`rbo` returns NaN with a :class:`~ranklens.errors.RanklensWarning` (one RBO for every
caller: the rankers' overlap of ``neighbors`` and the MRC of ``explain``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..errors import RanklensWarning, ValidationError

__all__ = ["knn_overlap", "rbo"]


def knn_overlap(a: npt.ArrayLike, b: npt.ArrayLike, k: int | None = None) -> npt.NDArray[np.float64]:
    """Per-query ``|A_k ∩ B_k| / k`` for two ``(n, >=k)`` arrays of neighbour indices.

    ``k=None``: the narrower array's width. Rows must not repeat an index; only entries ``>= 0``
    count, so ``-1`` (no neighbour) never matches anything, neither in the other array nor
    another ``-1`` of the same row.
    """
    a = np.asarray(a)
    b = np.asarray(b)
    if a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[0]:
        raise ValidationError(f"neighbour arrays must be (n, k) with equal n, got {a.shape} and {b.shape}")
    k = k or min(a.shape[1], b.shape[1])
    if k > a.shape[1] or k > b.shape[1]:
        raise ValidationError(f"k={k} exceeds the neighbours available ({a.shape[1]}, {b.shape[1]})")
    # Padding (any negative entry) never matches: not across the two arrays, and not within a
    # row either (several -1 in one row must not pair with each other after sorting).
    both = np.sort(np.concatenate([a[:, :k], b[:, :k]], axis=1), axis=1)
    hits = ((both[:, 1:] == both[:, :-1]) & (both[:, 1:] >= 0)).sum(axis=1)
    return hits / float(k)


def rbo(a: Sequence[object], b: Sequence[object], p: float = 0.9) -> float:
    """Extrapolated rank-biased overlap of two rankings (items distinct within each list).

    Args:
        a, b: rankings, best first (may differ in length).
        p: persistence in (0, 1) (smaller p puts more weight on the top ranks).

    Returns:
        RBO_ext in [0, 1] (Webber et al. 2010, eq. 32); NaN, with a warning, when either list
        is empty (undefined: module docstring).

    Example:
        >>> rbo(["a", "b", "c"], ["a", "b", "c"])
        1.0
    """
    if not 0 < p < 1:
        raise ValidationError(f"rbo: persistence p must be in (0, 1), got {p}")
    if len(a) == 0 or len(b) == 0:
        warnings.warn("rbo: an empty ranking has no rank-biased overlap (undefined); NaN returned",
                      RanklensWarning, stacklevel=2)
        return float("nan")
    S, L = (list(a), list(b)) if len(a) <= len(b) else (list(b), list(a))
    s, l = len(S), len(L)
    seen_s: set[object] = set()
    seen_l: set[object] = set()
    x = 0
    X = np.zeros(l + 1)
    for d in range(1, l + 1):
        item_l = L[d - 1]
        if d <= s:
            item_s = S[d - 1]
            if item_s == item_l:
                x += 1
            else:
                x += (item_s in seen_l) + (item_l in seen_s)
            seen_s.add(item_s)
        else:
            x += item_l in seen_s
        seen_l.add(item_l)
        X[d] = x
    d = np.arange(1, l + 1)
    pw = p ** d
    total = np.sum(X[1:] / d * pw)
    if l > s:
        dd = np.arange(s + 1, l + 1)
        total += np.sum(X[s] * (dd - s) / (s * dd) * p ** dd)
    return float((1 - p) / p * total + ((X[l] - X[s]) / l + X[s] / s) * p ** l)
