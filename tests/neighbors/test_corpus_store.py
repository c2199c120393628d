from __future__ import annotations


import numpy as np
import pytest

from ranklens.engine import ScoringEngine
from ranklens.errors import ValidationError
from ranklens.neighbors import build_corpus
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


def test_corpus_vectors_memmap_equals_engine_and_resumes_from_its_cache(tmp_path):
    from ranklens.neighbors.search import corpus_vectors

    texts = [f"text number {i}" for i in range(23)]
    emb = HashEmbedder(dim=8)
    eng = ScoringEngine(cache=tmp_path / "cache")
    ref = np.stack([emb.encode([t])[0] for t in texts])  # reference: one text at a time
    small = corpus_vectors(emb, texts, engine=eng, chunk_size=5)
    mapped = corpus_vectors(emb, texts, engine=eng, chunk_size=5, mmap_bytes=0, work_dir=tmp_path)
    assert isinstance(mapped, np.memmap) and not isinstance(small, np.memmap)
    np.testing.assert_array_equal(small, ref)
    np.testing.assert_array_equal(mapped, ref)
    # the engine's cache is the only cache: a second engine on the same file encodes nothing
    eng2 = ScoringEngine(cache=tmp_path / "cache")
    np.testing.assert_array_equal(corpus_vectors(emb, texts, engine=eng2, chunk_size=7), ref)
    assert eng2.stats.texts_encoded == 0


def test_ledes_are_first_kept_sentences():
    docs = [("a", "One here. Two here."), ("b", "One here. Three here."), ("c", "Four here.")]
    c = build_corpus(docs)
    # reference: per document the corpus index of its first sentence's text
    expected = []
    for _, text in docs:
        first = text.split(". ")[0].rstrip(".") + "."
        i = c.texts.index(first)
        if i not in expected:
            expected.append(i)
    assert list(c.ledes) == expected
