"""Dataset-transfer queries drawn among the shared noun chunks that qualify (the paper), the
reference code's minimum-length rule, and the old draw-any-then-filter rule."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranklens.errors import ValidationError
from ranklens.probes.transfer import PairsProbe
from ranklens.text import STOPWORDS

# pair p1 shares the pronoun "it" and "the old house"; p2 shares only "it"
FRAME = pd.DataFrame({
    "pair_id": ["p1", "p2"],
    "text_a": ["It was the old house near the river.", "It rained."],
    "text_b": ["It is the old house that we saw.", "It snowed."],
    "query": ["", ""],
})


def _probe(rule: str) -> PairsProbe:
    return PairsProbe(probe_name="t", loader="pairs", path="-", frame=FRAME, chunk_rule=rule)


def _qualifies(chunk: str, a: str, b: str) -> bool:
    """Reference: a content word of the chunk is in both texts (the lemma filter, up to a plural)."""
    words = {w.strip(".,").lower() for w in chunk.split()} - STOPWORDS
    return any(w in a.lower() and w in b.lower() for w in words)


def _run(rule: str, seed: int):
    return _probe(rule).generate(None, rng=np.random.default_rng(seed))


def test_content_rule_keeps_every_pair_with_a_qualifying_chunk():
    for seed in range(8):
        ps = _run("content", seed)
        assert [s.sample_id for s in ps.samples] == ["p1"]  # p2 has no qualifying chunk: discarded
        q = ps.samples[0].query
        assert _qualifies(q, FRAME.text_a[0], FRAME.text_b[0]) and "house" in q.lower()
        assert ps.info["pairs_dropped_no_query"] == 1 and ps.info["chunk_rule"] == "content"


def test_any_rule_loses_pairs_whose_drawn_chunk_is_a_pronoun():
    kept = [len(_run("any", seed).samples) for seed in range(12)]
    assert min(kept) == 0 and max(kept) == 1  # the old rule: "it" drawn -> p1 dropped


def test_min_length_rule_draws_chunks_longer_than_five_characters():
    for seed in range(6):
        ps = _run("min-length", seed)
        assert all(len(s.query) > 5 for s in ps.samples) and [s.sample_id for s in ps.samples] == ["p1"]


def test_unknown_rule_is_an_error():
    with pytest.raises(ValidationError, match="transfer_chunk_rule"):
        _run("nonsense", 0)
