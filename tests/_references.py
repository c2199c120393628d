"""Plain-Python references shared by tests of several packages (written from the definitions,
independent of ranklens)."""

from __future__ import annotations

import math


def paired_t_p(a, b) -> float:
    """Two-tailed paired t-test p-value of ``a - b`` by hand (the t tail from scipy)."""
    from scipy.stats import t as student

    d = [x - y for x, y in zip(a, b)]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    return 2 * student.sf(abs(mean / (sd / math.sqrt(n))), n - 1)
