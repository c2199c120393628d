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
    from ranklens.engine.vectors import StoredVectors
    from ranklens.neighbors.search import corpus_vectors

    texts = [f"text number {i}" for i in range(23)]
    emb = HashEmbedder(dim=8)
    eng = ScoringEngine(cache=tmp_path / "cache")
    ref = np.stack([emb.encode([t])[0] for t in texts])  # reference: one text at a time
    small = corpus_vectors(emb, texts, engine=eng, chunk_size=5)
    mapped = corpus_vectors(emb, texts, engine=eng, chunk_size=5, mmap_bytes=0, work_dir=tmp_path)
    # beyond mmap_bytes with an on-disk cache: a view on the cache's shards, no working copy
    assert isinstance(mapped, StoredVectors) and isinstance(small, np.ndarray)
    assert not list(tmp_path.glob("n2o-*"))
    np.testing.assert_array_equal(small, ref)
    np.testing.assert_array_equal(np.asarray(mapped), ref)
    # without an on-disk cache: a memory-mapped working file (the only copy)
    nocache = corpus_vectors(emb, texts, engine=ScoringEngine(cache=False), chunk_size=5, mmap_bytes=0,
                             work_dir=tmp_path)
    assert isinstance(nocache, np.memmap)
    np.testing.assert_array_equal(nocache, ref)
    # the engine's cache is the only cache: a second engine on the same file encodes nothing
    eng2 = ScoringEngine(cache=tmp_path / "cache")
    np.testing.assert_array_equal(corpus_vectors(emb, texts, engine=eng2, chunk_size=7), ref)
    assert eng2.stats.texts_encoded == 0


@pytest.mark.parametrize("mmap_bytes", [1 << 30, 0])
@pytest.mark.parametrize("cache", ["disk", "none"])
def test_unit_vectors_are_normalised_once_and_search_as_cosine(tmp_path, mmap_bytes, cache):
    """unit=True: rows L2-normalised (zero rows stay zero) in every storage; exact k-NN on them
    equals brute-force cosine on the raw vectors."""
    from ranklens.search import exact_knn, is_unit
    from ranklens.neighbors.search import corpus_vectors

    texts = [f"doc {i % 17} word{i % 5} w{i % 3}" for i in range(60)] + ["", " "]
    emb = HashEmbedder(dim=12)
    eng = ScoringEngine(cache=tmp_path / "c" if cache == "disk" else False)
    v = corpus_vectors(emb, texts, engine=eng, chunk_size=16, mmap_bytes=mmap_bytes, work_dir=tmp_path,
                       unit=True)
    assert is_unit(v)
    raw = emb.encode(texts).astype(np.float64)
    norm = np.linalg.norm(raw, axis=1, keepdims=True)
    want = np.divide(raw, norm, out=np.zeros_like(raw), where=norm > 0)
    np.testing.assert_allclose(np.asarray(v), want, atol=1e-6)
    q = np.arange(0, 60, 7)
    res = exact_knn(v, np.asarray(v)[q], 5, exclude=[[int(i)] for i in q], block_size=13)
    sims = want[q] @ want.T
    for r, i in enumerate(q):
        sims[r, i] = -np.inf
        ok = np.flatnonzero(np.isfinite(sims[r]))
        order = sorted(ok, key=lambda j: (-round(sims[r, j], 5), j))[:5]
        assert [round(sims[r, j], 5) for j in res.indices[r]] == [round(sims[r, j], 5) for j in order]


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
