"""``running_count`` against a plain-Python count, on grouped ids with and without a mask."""

import numpy as np
import pytest

from ranklens._arrays import running_count


def _reference(qi, mask=None):
    out, prev, c = [], object(), 0
    for i, q in enumerate(qi):
        if q != prev:
            prev, c = q, 0
        c += 1 if mask is None else int(mask[i])
        out.append(c)
    return out


@pytest.mark.parametrize("seed", range(5))
def test_running_count_matches_plain_count(seed):
    rng = np.random.default_rng(seed)
    qi = np.sort(rng.integers(0, 6, size=int(rng.integers(1, 40))))
    mask = rng.random(qi.size) < 0.4
    assert running_count(qi).tolist() == _reference(qi.tolist())
    assert running_count(qi, mask).tolist() == _reference(qi.tolist(), mask.tolist())


def test_running_count_edges():
    assert running_count(np.zeros(0, np.int64)).tolist() == []
    assert running_count(np.array([7])).tolist() == [1]
    # a masked-out first entry of a group: the count starts at 0 there, not at the previous group's
    qi, mask = np.array([0, 0, 1, 1, 1]), np.array([True, True, False, True, True])
    assert running_count(qi, mask).tolist() == [1, 2, 0, 1, 2]
