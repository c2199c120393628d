"""Kernels of the explanation-consistency measures (pure functions on arrays).

- :func:`rank_correlation`: Kendall τ-b (``scipy.stats.kendalltau``, default), Spearman ρ
  (``scipy.stats.spearmanr``) or rank-biased overlap (RBO: :func:`ranklens.search.overlap.rbo`, the one
  implementation) between an original top-k order and the order induced by the
  rationale-only pseudo-document scores. This is the per-query MRC value (eq. 2).
- :func:`max_similarity`: for each rationale embedding, the best cosine to a set of relevant
  unit embeddings (the ω of MER, eq. 3).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..errors import ValidationError
from ..search.overlap import rbo  # the one RBO (extrapolated, eq. 32; NaN for an empty list)
from .declaration import Params

__all__ = ["CORRELATIONS", "max_similarity", "rank_correlation", "rbo"]

CORRELATIONS = ("kendall", "spearman", "rbo")

DEFAULTS = Params()


def rank_correlation(
    original_scores: npt.ArrayLike,
    rationale_scores: npt.ArrayLike,
    *,
    method: str = DEFAULTS.method,
    p: float = DEFAULTS.rbo_p,
) -> float:
    """Agreement between the original top-k order and the rationale-induced order.

    Args:
        original_scores: the ranker's scores of the full documents, in rank order (rank 1
            first). Kendall/Spearman compare scores, so documents tied in the original ranking
            count as ties (τ-b, average ranks); RBO uses the given order.
        rationale_scores: the ranker's scores of the rationale-only pseudo-documents, aligned.
        method: ``"kendall"`` (τ-b, ties in the pseudo scores counted as in scipy),
            ``"spearman"`` or ``"rbo"`` (pseudo ties broken by original rank).
        p: RBO persistence.

    Returns:
        The correlation; ``nan`` with fewer than two documents or when all original scores tie
        (no order to reproduce; Kendall/Spearman). When every pseudo-document gets
        the same score τ and ρ are undefined (no order is reproduced) and 0.0 is returned.
    """
    orig = np.asarray(original_scores, dtype=np.float64)
    rat = np.asarray(rationale_scores, dtype=np.float64)
    if orig.shape != rat.shape or orig.ndim != 1:
        raise ValidationError(f"score arrays must be 1-d and aligned, got {orig.shape} and {rat.shape}")
    k = len(orig)
    if k < 2:
        return float("nan")
    if method not in CORRELATIONS:
        raise ValidationError(f"correlation method must be one of {CORRELATIONS}, got {method!r}")
    if method == "rbo":
        induced = sorted(range(k), key=lambda i: (-rat[i], i))
        return rbo([str(i) for i in range(k)], [str(i) for i in induced], p=p)
    if np.all(orig == orig[0]):
        return float("nan")
    if np.all(rat == rat[0]):
        return 0.0
    from scipy import stats

    # Scores, not positions: documents tied in the original ranking (e.g. duplicate passages)
    # are ties for tau-b / average ranks for rho, not an arbitrary tie-break order.
    if method == "kendall":
        return float(stats.kendalltau(orig, rat).statistic)
    return float(stats.spearmanr(orig, rat).statistic)


def max_similarity(rationales: npt.ArrayLike, relevant: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Per rationale, the maximum cosine similarity to any relevant unit (ω in eq. 3).

    Args:
        rationales: ``(r, d)`` embeddings of the rationales.
        relevant: ``(u, d)`` embeddings of the relevant units (``u >= 1``).

    Returns:
        ``(r,)`` float64; zero vectors have cosine 0 with everything.
    """
    a = np.asarray(rationales, dtype=np.float64)
    b = np.asarray(relevant, dtype=np.float64)
    if a.ndim != 2 or b.ndim != 2 or (a.size and b.size and a.shape[1] != b.shape[1]):
        raise ValidationError(f"embeddings must be 2-d with equal width, got {a.shape} and {b.shape}")
    if len(b) == 0:
        raise ValidationError("max_similarity needs at least one relevant unit")
    if len(a) == 0:
        return np.zeros(0)
    an = np.linalg.norm(a, axis=1, keepdims=True)
    bn = np.linalg.norm(b, axis=1, keepdims=True)
    a = np.divide(a, an, out=np.zeros_like(a), where=an > 0)
    b = np.divide(b, bn, out=np.zeros_like(b), where=bn > 0)
    return (a @ b.T).max(axis=1)
