"""The vector store: embeddings stored once in memory-mapped shards with a small SQLite index,
checked against a plain dict reference; the engine's cached and streaming paths."""

from __future__ import annotations

import hashlib
import multiprocessing as mp
import sqlite3

import numpy as np
import pytest

from ranklens.engine import MemoryCache, ScoringEngine, SQLiteCache
from ranklens.engine.vectors import VectorStore
from ranklens.errors import ValidationError
from ranklens.testing import HashEmbedder


def _h(i: int) -> bytes:
    return hashlib.sha256(f"text {i}".encode()).digest()


def test_put_get_view_equal_a_dict_reference_across_shards(tmp_path):
    rng = np.random.default_rng(0)
    store = VectorStore(tmp_path / "v", shard_bytes=4 * 3 * 7)  # 7 rows of 3 floats per shard
    ref: dict[bytes, np.ndarray] = {}
    for start, n in ((0, 5), (5, 9), (3, 6), (20, 1)):  # overlapping puts: stored ones skipped
        hs = [_h(i) for i in range(start, start + n)]
        v = rng.standard_normal((n, 3)).astype(np.float32)
        written = store.put("m@1", hs, v)
        assert written == sum(h not in ref for h in hs)
        for h, row in zip(hs, v):
            ref.setdefault(h, row)
    got = store.get("m@1", list(ref) + [_h(99)])
    assert set(got) == set(ref)
    for h, row in ref.items():
        np.testing.assert_array_equal(got[h], row)  # bit-for-bit
    order = [_h(i) for i in (20, 0, 13, 7, 7, 1)]
    view = store.view("m@1", order)
    want = np.stack([ref[h] for h in order])
    assert view.shape == (6, 3) and len(store.shards("m@1")) == 3
    np.testing.assert_array_equal(np.asarray(view), want)
    np.testing.assert_array_equal(view[1:4], want[1:4])
    np.testing.assert_array_equal(view[[5, 0]], want[[5, 0]])
    unit = np.asarray(store.view("m@1", order, unit=True))
    np.testing.assert_allclose(unit, want / np.linalg.norm(want, axis=1, keepdims=True), rtol=1e-6)
    assert store.missing("m@1", [_h(0), _h(99)]) == [_h(99)]
    assert store.get("other@1", [_h(0)]) == {}


def test_duplicate_hashes_in_one_put_are_stored_once(tmp_path):
    store = VectorStore(tmp_path)
    v = np.arange(6, dtype=np.float32).reshape(3, 2)
    assert store.put("m", [_h(1), _h(1), _h(2)], v) == 2
    np.testing.assert_array_equal(store.get("m", [_h(1)])[_h(1)], v[0])


def test_dimension_change_is_refused(tmp_path):
    store = VectorStore(tmp_path)
    store.put("m", [_h(1)], np.ones((1, 4), np.float32))
    with pytest.raises(ValidationError, match="cache clear"):
        store.put("m", [_h(2)], np.ones((1, 5), np.float32))


def test_uncommitted_tail_is_overwritten_not_read(tmp_path):
    """Bytes written past the committed end (a killed writer) are never referenced."""
    store = VectorStore(tmp_path)
    store.put("m", [_h(0)], np.full((1, 2), 1.0, np.float32))
    path = store.shards("m")[0][0]
    with open(path, "ab") as f:
        f.write(np.full(2, 9.0, np.float32).tobytes())  # garbage of a writer that died before COMMIT
    store.put("m", [_h(1)], np.full((1, 2), 2.0, np.float32))
    np.testing.assert_array_equal(store.get("m", [_h(1)])[_h(1)], [2.0, 2.0])
    assert store.shards("m")[0][1] == 2


def test_bytes_per_vector_at_most_1_1x_raw(tmp_path):
    store = VectorStore(tmp_path)
    rng = np.random.default_rng(1)
    n, d = 20_000, 384
    for s in range(0, n, 5000):
        store.put("m", [_h(i) for i in range(s, s + 5000)], rng.standard_normal((5000, d), dtype=np.float32))
    store.close()
    conn = sqlite3.connect(store.index_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    size = sum(f.stat().st_size for f in tmp_path.rglob("*") if f.is_file())
    assert size / (n * d * 4) <= 1.1


def _writer(root: str, start: int) -> None:
    store = VectorStore(root, shard_bytes=4 * 2 * 50)
    for s in range(start, start + 200, 10):
        hs = [_h(i) for i in range(s, s + 10)]
        store.put("m", hs, np.array([[i, -i] for i in range(s, s + 10)], np.float32))


def test_two_processes_writing_one_store(tmp_path):
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), s)) for s in (0, 100)]  # overlapping ranges
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    store = VectorStore(tmp_path)
    got = store.get("m", [_h(i) for i in range(300)])
    assert len(got) == 300
    for i in range(300):
        np.testing.assert_array_equal(got[_h(i)], [i, -i])
    assert sum(r for _, r, _ in store.shards("m")) == 300  # each vector stored once


def test_engine_cache_keeps_vectors_in_the_store_only(tmp_path):
    emb = HashEmbedder(dim=16)
    texts = [f"sentence {i}" for i in range(50)] + ["sentence 3"]
    eng = ScoringEngine(cache=tmp_path / "c", show_progress=False)
    v = eng.encode(emb, texts)
    np.testing.assert_array_equal(v, emb.encode(texts))
    cache = eng.cache
    assert isinstance(cache, SQLiteCache)
    assert cache.info()["vectors"] == {emb.fingerprint: 50}
    tables = {r[0] for r in sqlite3.connect(cache.path).execute("SELECT name FROM sqlite_master")}
    assert "vectors" not in tables  # no vector bytes in the score database
    view = ScoringEngine(cache=tmp_path / "c").encode_stored(emb, texts, unit=True)
    ref = emb.encode(texts)
    norm = np.linalg.norm(ref, axis=1, keepdims=True)
    np.testing.assert_allclose(np.asarray(view), np.divide(ref, norm, out=np.zeros_like(ref), where=norm > 0),
                               rtol=1e-6)
    assert cache.clear(emb.fingerprint) == 50
    assert cache.info()["vectors"] == {}


def test_no_cache_engine_streams_within_a_budget():
    cache = MemoryCache(max_vector_bytes=10 * 4 * 8)
    eng = ScoringEngine(cache=cache, show_progress=False)
    emb = HashEmbedder(dim=8)
    texts = [f"t{i}" for i in range(40)]
    np.testing.assert_array_equal(eng.encode(emb, texts), emb.encode(texts))
    assert len(cache._vecs) == 10 and cache._vec_bytes <= cache.max_vector_bytes
    assert ScoringEngine(cache=False).encode_stored(emb, texts) is None
