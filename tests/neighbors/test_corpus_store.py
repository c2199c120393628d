from __future__ import annotations

import json

import numpy as np
import pytest

from ranklens._hashing import sha256_texts
from ranklens.embedders.base import FunctionEmbedder
from ranklens.engine import ScoringEngine
from ranklens.errors import ValidationError
from ranklens.neighbors import EmbeddingStore, build_corpus
from ranklens.testing import HashEmbedder


def test_build_corpus_splits_dedupes_and_keeps_ids():
    docs = {"d1": "Cats purr. Dogs bark!", "d2": "Dogs bark! Birds sing?", "d3": "  "}
    c = build_corpus(docs)
    assert c.texts == ("Cats purr.", "Dogs bark!", "Birds sing?")
    assert c.ids == ("d1#0", "d1#1", "d2#1")
    assert (c.n_input, c.n_duplicates) == (4, 1)
    assert c.index_of_text(" Birds sing? ") == 2
    whole = build_corpus([("a", "x y. z"), ("b", "x y. z")], split=False)
    assert whole.ids == ("a",) and whole.n_duplicates == 1


def test_with_texts_adds_only_new_texts():
    c = build_corpus({"d": "One. Two."})
    c2 = c.with_texts(["Two.", "Three."], id_prefix="n")
    assert c2.texts == ("One.", "Two.", "Three.") and c2.ids[-1] == "n#1"
    assert c.texts == ("One.", "Two.")  # input unchanged
    assert c.hash != c2.hash


def test_build_corpus_errors():
    with pytest.raises(ValidationError):
        build_corpus({"d": ""})
    with pytest.raises(ValidationError):
        build_corpus([("d", 3)])


def test_store_matches_engine_and_reuses(tmp_path):
    texts = [f"text number {i} about {i % 3}" for i in range(23)]
    emb = HashEmbedder(dim=16)
    eng = ScoringEngine(cache=False)
    store = EmbeddingStore(tmp_path, chunk_size=5)
    v = store.get(emb, texts, engine=eng)
    assert isinstance(v, np.memmap)
    np.testing.assert_array_equal(np.asarray(v), emb.encode(texts))
    eng2 = ScoringEngine(cache=False)
    v2 = store.get(emb, texts, engine=eng2)
    assert eng2.stats.texts_encoded == 0
    np.testing.assert_array_equal(np.asarray(v2), np.asarray(v))


def test_store_resumes_after_interruption(tmp_path):
    texts = [f"sentence {i}" for i in range(12)]
    calls = {"n": 0}

    def fn(batch):
        calls["n"] += len(batch)
        if calls["n"] > 8 and calls.get("fail", True):
            raise RuntimeError("killed")
        return np.array([[len(t), t.count("1")] for t in batch], np.float32)

    emb = FunctionEmbedder(fn=fn, name_="counting")
    store = EmbeddingStore(tmp_path, chunk_size=4)
    with pytest.raises(RuntimeError):
        store.get(emb, texts, engine=ScoringEngine(cache=False))
    npy, meta = store.paths(emb.fingerprint, sha256_texts(texts))
    assert json.loads(meta.read_text())["done"] == 8
    calls["fail"] = False
    eng = ScoringEngine(cache=False)
    v = store.get(emb, texts, engine=eng)
    assert eng.stats.texts_encoded == 4  # only the missing chunk
    np.testing.assert_array_equal(np.asarray(v)[:, 0], [len(t) for t in texts])
