"""Array helpers shared by the readers, the metrics and the neighbour search (one copy each)."""

from __future__ import annotations

import numpy as np


def running_count(qi: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Running count of ``mask`` (default: every entry) within each run of equal values of
    the sorted ``qi``, this entry included: 1, 2, ... is the k-th (relevant) entry of its
    group, e.g. the 1-based rank of a row within its query."""
    n = qi.size
    if n == 0:
        return np.zeros(0, np.int64)
    starts = np.flatnonzero(np.concatenate([[True], qi[1:] != qi[:-1]]))
    if mask is None:
        c, before = np.arange(1, n + 1), starts
    else:
        c = np.cumsum(mask, dtype=np.int64)
        before = c[starts] - mask[starts]
    return c - np.repeat(before, np.diff(np.append(starts, n)))
