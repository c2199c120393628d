"""Small, generic significance helpers shared by every analysis (ASL evaluation, probes, regimes).

All tests are *paired*: ``a[i]`` and ``b[i]`` are two systems' values on the same item (query,
probe pair, ...). Pairs where either value is NaN are dropped before testing and the number of
pairs actually used is returned. The t-test and BH come from :mod:`scipy.stats`; Holm (not in
scipy), the sign-flip randomization test and the percentile bootstrap are short numpy code
(scipy's generic resampling is ~50x slower per call; the test-suite checks them against
scipy's ``permutation_test`` / ``bootstrap``).

Example:
    >>> t = paired_ttest([0.5, 0.6, 0.7], [0.4, 0.45, 0.5])
    >>> round(t.pvalue, 4) < 0.05
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import ValidationError

__all__ = [
    "CORRECTIONS",
    "ConfidenceInterval",
    "TestResult",
    "bootstrap_ci",
    "correct_pvalues",
    "paired_ttest",
    "pairwise_ttest_matrix",
    "randomization_test",
]

CORRECTIONS: tuple[str, ...] = ("none", "bonferroni", "holm", "bh")


@dataclass(frozen=True)
class TestResult:
    """Outcome of a paired test.

    Attributes:
        statistic: the test statistic (t for the t-test; mean difference for randomization).
        pvalue: two-sided p-value (NaN when fewer than two pairs or zero variance).
        n: number of pairs used (NaN pairs dropped).
        mean_diff: mean of ``a - b`` over the pairs used.
        method: ``"ttest_rel"`` or ``"randomization"``.
    """

    __test__ = False  # not a pytest class

    statistic: float
    pvalue: float
    n: int
    mean_diff: float
    method: str


@dataclass(frozen=True)
class ConfidenceInterval:
    """A bootstrap confidence interval of the mean."""

    low: float
    high: float
    mean: float
    confidence: float
    n: int


def _paired(a: Sequence[float], b: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValidationError(
            f"paired test needs two 1-D arrays of equal length, got shapes {x.shape} and {y.shape}"
        )
    keep = ~(np.isnan(x) | np.isnan(y))
    return x[keep], y[keep]


def paired_ttest(a: Sequence[float], b: Sequence[float]) -> TestResult:
    """Two-sided paired t-test (:func:`scipy.stats.ttest_rel`) of ``a`` against ``b``.

    Args:
        a: values of system A per item.
        b: values of system B on the same items.

    Returns:
        :class:`TestResult`; ``pvalue`` is NaN with fewer than 2 pairs, 1.0 when all differences
        are zero (scipy would return NaN there; identical systems are not different).
    """
    from scipy import stats

    x, y = _paired(a, b)
    n = int(x.size)
    diff = float(np.mean(x - y)) if n else float("nan")
    if n < 2:
        return TestResult(float("nan"), float("nan"), n, diff, "ttest_rel")
    if np.all(x - y == 0):
        return TestResult(0.0, 1.0, n, diff, "ttest_rel")
    res = stats.ttest_rel(x, y)
    return TestResult(float(res.statistic), float(res.pvalue), n, diff, "ttest_rel")


def _check_resamples(n_resamples: object) -> None:
    """At least one resample, an integer (0 gave p = 1.0 and a negative count p < 0, silently)."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise ValidationError(f"n_resamples: expected an integer >= 1, got {n_resamples!r}")


def randomization_test(
    a: Sequence[float], b: Sequence[float], *, n_resamples: int = 10_000, seed: int = 0
) -> TestResult:
    """Paired randomization (sign-flip permutation) test of the mean difference, two-sided.

    Each resample flips the sign of every pair's difference with probability 1/2 (i.e. swaps
    the two systems' labels on that item). Hand-written with numpy (one matrix product for all
    resamples) because :func:`scipy.stats.permutation_test`, which computes the same thing and
    is used as the reference in the test-suite, costs ~30 ms per call through its generic
    batching, too slow for a track of 60 systems x 7 measures. With ``n`` pairs and
    ``2**n <= n_resamples`` all sign patterns are enumerated (exact test).

    Args:
        a: values of system A per item.
        b: values of system B on the same items.
        n_resamples: random sign assignments.
        seed: seed of the random generator (recorded by callers in provenance).

    Returns:
        :class:`TestResult` with ``pvalue = (#{|null| >= |observed|} + 1) / (resamples + 1)``
        (Monte Carlo; the observed assignment counts once), or the exact proportion when
        enumerated.
    """
    _check_resamples(n_resamples)
    x, y = _paired(a, b)
    n = int(x.size)
    d = x - y
    diff = float(np.mean(d)) if n else float("nan")
    if n < 2:
        return TestResult(float("nan"), float("nan"), n, diff, "randomization")
    if np.all(d == 0):
        return TestResult(0.0, 1.0, n, diff, "randomization")
    obs = abs(diff)
    tol = 1e-12 * max(1.0, obs)
    if n <= 20 and 2**n <= n_resamples:
        codes = np.arange(2**n, dtype=np.int64)[:, None]
        signs = 1.0 - 2.0 * ((codes >> np.arange(n)) & 1)
        null = np.abs(signs @ d) / n
        return TestResult(diff, float(np.mean(null >= obs - tol)), n, diff, "randomization")
    rng = np.random.default_rng(seed)
    hits = 0
    done = 0
    while done < n_resamples:  # chunks keep memory bounded for long inputs
        m = min(n_resamples - done, max(1, 2_000_000 // n))
        signs = rng.integers(0, 2, size=(m, n), dtype=np.int8) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ d) / n >= obs - tol))
        done += m
    return TestResult(diff, (hits + 1) / (n_resamples + 1), n, diff, "randomization")


def bootstrap_ci(
    values: Sequence[float], *, confidence: float = 0.95, n_resamples: int = 2_000, seed: int = 0,
    method: str = "percentile", block: int = 1 << 20,
) -> ConfidenceInterval:
    """Bootstrap confidence interval of the mean, NaNs dropped.

    ``method="percentile"`` (default) is a few lines of numpy (resample indices, take the
    quantiles of the resampled means), ~50x faster than the generic
    :func:`scipy.stats.bootstrap`; ``"BCa"`` and ``"basic"`` delegate to scipy.

    Args:
        values: per-item values.
        confidence: confidence level, e.g. 0.95.
        n_resamples: bootstrap resamples.
        seed: random seed.
        method: ``"percentile"``, ``"BCa"`` or ``"basic"``.
        block: resampled values drawn at a time (percentile method): memory is about
            ``16 * block`` bytes whatever ``n`` and ``n_resamples`` are.
    """
    _check_resamples(n_resamples)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise ValidationError(f"confidence: expected a number strictly between 0 and 1 (e.g. 0.95), got {confidence!r}")
    x = np.asarray(values, dtype=np.float64)
    x = x[~np.isnan(x)]
    n = int(x.size)
    if n == 0:
        return ConfidenceInterval(float("nan"), float("nan"), float("nan"), confidence, 0)
    mean = float(np.mean(x))
    if n < 2 or np.all(x == x[0]):
        return ConfidenceInterval(mean, mean, mean, confidence, n)
    rng = np.random.default_rng(seed)
    if method == "percentile":
        # in blocks of about ``block`` resampled values: memory stays bounded for long inputs
        # (the random stream, and so the result, is the same as one (n_resamples, n) draw)
        means = np.empty(n_resamples)
        step = max(1, block // n)
        for a in range(0, n_resamples, step):
            m = min(step, n_resamples - a)
            means[a:a + m] = x[rng.integers(0, n, size=(m, n))].mean(axis=1)
        alpha = (1.0 - confidence) / 2.0
        low, high = np.quantile(means, [alpha, 1.0 - alpha])
        return ConfidenceInterval(float(low), float(high), mean, confidence, n)
    from scipy import stats

    res = stats.bootstrap(
        (x,), np.mean, confidence_level=confidence, n_resamples=n_resamples, method=method,
        vectorized=True, rng=rng, batch=max(1, block // n),
    )
    ci = res.confidence_interval
    return ConfidenceInterval(float(ci.low), float(ci.high), mean, confidence, n)


def correct_pvalues(pvalues: Sequence[float], method: str = "holm") -> np.ndarray:
    """Adjust a family of p-values for multiple testing.

    Args:
        pvalues: raw p-values (NaN entries stay NaN and do not count towards the family size).
        method: ``"none"``, ``"bonferroni"``, ``"holm"`` (step-down, controls FWER) or ``"bh"``
            (Benjamini-Hochberg FDR, :func:`scipy.stats.false_discovery_control`).

    Returns:
        Adjusted p-values (capped at 1), same order as the input.
    """
    if method not in CORRECTIONS:
        raise ValidationError(f"unknown correction {method!r}; choose one of {', '.join(CORRECTIONS)}")
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if m == 0 or method == "none":
        out[ok] = q
        return out
    if method == "bonferroni":
        out[ok] = np.minimum(q * m, 1.0)
    elif method == "holm":
        # Holm step-down (hand-written; not in scipy): sort ascending, multiply the i-th smallest
        # (0-based) by (m - i), enforce monotonicity with a running max, cap at 1.
        order = np.argsort(q, kind="stable")
        adj = np.maximum.accumulate(q[order] * (m - np.arange(m)))
        res = np.empty(m)
        res[order] = np.minimum(adj, 1.0)
        out[ok] = res
    else:
        from scipy import stats

        out[ok] = stats.false_discovery_control(q, method="bh")
    return out


def pairwise_ttest_matrix(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided paired t-tests between every pair of columns of ``values`` (items x systems).

    A vectorised form of :func:`paired_ttest` for many systems (same NaN rule: an item counts
    for a pair only if both values are present). Differential-tested against
    :func:`scipy.stats.ttest_rel` in the test-suite.

    Returns:
        ``(mean_diff, pvalue)``, both systems x systems; ``mean_diff[i, j]`` is the mean of
        ``values[:, i] - values[:, j]``; the diagonal has p = 1.
    """
    from scipy import stats

    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2:
        raise ValidationError(f"values must be 2-D (items x systems), got shape {x.shape}")
    ok = ~np.isnan(x)
    d = x[:, :, None] - x[:, None, :]
    both = ok[:, :, None] & ok[:, None, :]
    d = np.where(both, d, 0.0)
    n = both.sum(axis=0).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = d.sum(axis=0) / n
        var = (np.where(both, d - mean[None], 0.0) ** 2).sum(axis=0) / (n - 1)
        t = mean / np.sqrt(var / n)
        p = 2.0 * stats.t.sf(np.abs(t), n - 1)
    p = np.where((var == 0) & (n >= 2), np.where(mean == 0, 1.0, 0.0), p)
    p[n < 2] = np.nan
    np.fill_diagonal(p, 1.0)
    return mean, p
