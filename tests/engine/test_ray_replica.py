"""The Ray actor's body (:class:`ranklens.engine.ray._Replica`) without Ray: fast, default run."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ranklens.embedders.base import FunctionEmbedder
from ranklens.engine import ScoringEngine, encode_texts
from ranklens.engine.ray import _Replica

ENCODED: list[str] = []


def _vectors(texts):
    ENCODED.extend(texts)
    return np.array([[len(t), t.count("a") + 1.0] for t in texts], np.float32)


@dataclass
class _EncodingRanker:
    """A bi-encoder-like ranker: encodes queries and texts through the engine, dot product."""

    embedder: FunctionEmbedder
    batch_size: int = 4

    @property
    def fingerprint(self) -> str:
        return "encoding-ranker/" + self.embedder.fingerprint

    def score(self, queries, texts):
        uniq = list(dict.fromkeys([*queries, *texts]))
        vecs = encode_texts(self.embedder, uniq)
        pos = {s: i for i, s in enumerate(uniq)}
        return np.einsum("ij,ij->i", vecs[[pos[q] for q in queries]], vecs[[pos[t] for t in texts]])


def test_an_actor_encodes_a_query_once_across_batches_and_scores_as_the_local_engine():
    """Batches hold pairs of many queries (the engine sorts pairs by length): an actor keeps its
    in-memory engine across the batches of a run, so a query is encoded once per actor and run,
    as locally once per run -- not once per batch (the cause of most of Ray's extra work on a bi-encoder)."""
    ranker = _EncodingRanker(FunctionEmbedder(fn=_vectors, name_="counting"))
    queries = ["qa", "qbb", "qa", "qbb", "qa", "qbb", "qa", "qbb"]
    texts = [f"text {'a' * i}" for i in range(8)]
    replica = _Replica(threads=1, keep=2)
    replica.models["k"] = ranker
    ENCODED.clear()
    out = np.concatenate([replica.apply("k", [None], "score", (queries[s:s + 4], texts[s:s + 4]), "run1")
                          for s in (0, 4)])
    assert sorted(ENCODED) == sorted({*queries, *texts})  # each query and text encoded once
    ENCODED.clear()
    replica.apply("k", [None], "score", (queries[:4], texts[:4]), "run2")  # a new run: a fresh engine
    assert sorted(ENCODED) == sorted({*queries[:4], *texts[:4]})
    ENCODED.clear()
    local = ScoringEngine(cache=False, show_progress=False).score(ranker, queries, texts)
    np.testing.assert_array_equal(out, local)
    assert replica.engine.cache.max_vector_bytes == 64 << 20  # the actor's memory stays bounded
