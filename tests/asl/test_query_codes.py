"""The run's query codes from its blocks (run-end encoding) equal those of hashing every row
(:func:`ranklens.asl.ranking._query_codes`), blocks repeated or not, chunked or not."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from ranklens.asl import ranking


@pytest.mark.parametrize("blocks", [
    ["q2", "q10", "q1"],                 # one block per query, not in sorted order
    ["q1", "q2", "q1", "q3", "q2"],      # a query in two blocks
])
@pytest.mark.parametrize("chunks", [1, 3])
def test_grouped_codes_equal_hashed_codes(blocks, chunks, monkeypatch):
    rng = np.random.default_rng(0)
    ids = np.concatenate([np.full(int(rng.integers(300, 900)), q) for q in blocks]).astype(object)
    parts = np.array_split(ids, chunks)
    rq = pa.chunked_array([pa.array(p.tolist(), pa.string()) for p in parts])
    qq = pa.array(["q1", "q7", "q2", "q1"], pa.string())  # q7: judged only
    assert ranking._grouped_codes(rq) is not None  # the block path is taken here
    grouped = ranking._query_codes(rq, qq)
    monkeypatch.setattr(ranking, "_grouped_codes", lambda rq: None)
    hashed = ranking._query_codes(rq, qq)
    for a, b in zip(grouped, hashed):
        assert np.array_equal(a, b)
    union, qcode, _, order = grouped
    assert list(union) == sorted(set(blocks) | {"q7"})
    assert [union[c] for c in qcode] == ids.tolist()  # every row keeps its own query
    assert [union[c] for c in order] == list(dict.fromkeys(blocks))  # the order the run lists them first


def test_rows_not_in_blocks_are_hashed():
    rq = pa.chunked_array([pa.array(["a", "b"] * 1000, pa.string())])
    assert ranking._grouped_codes(rq) is None
