from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass

import numpy as np
import pytest

from ranklens.engine import MemoryCache, ScoringEngine, SQLiteCache, score_pairs
from ranklens.errors import ValidationError
from ranklens.rankers.base import BaseRanker, FunctionRanker
from ranklens.testing import HashEmbedder, OverlapRanker


@dataclass(kw_only=True)
class CountingRanker(BaseRanker):
    """Score = len(text) - len(query); records every batch it is given."""

    batch_size: int = 3

    def __post_init__(self) -> None:
        self.calls: list[list[tuple[str, str]]] = []

    def _score_batch(self, queries, texts):
        self.calls.append(list(zip(queries, texts)))
        return np.array([len(t) - len(q) for q, t in zip(queries, texts)], dtype=float)


def test_scores_align_with_input_and_duplicates_are_scored_once(tmp_path):
    r = CountingRanker()
    e = ScoringEngine(cache=tmp_path / "c")
    qs = ["a", "bb", "a", "a", "ccc"]
    ts = ["xxxx", "y", "xxxx", "zz", "y"]
    out = e.score(r, qs, ts)
    np.testing.assert_array_equal(out, [3, -1, 3, 1, -2])
    scored = [p for batch in r.calls for p in batch]
    assert sorted(scored) == sorted(set(zip(qs, ts)))
    assert e.stats.pairs_requested == 5 and e.stats.pairs_distinct == 4 and e.stats.pairs_scored == 4


def test_batches_are_length_sorted_and_sized(tmp_path):
    r = CountingRanker(batch_size=2)
    texts = ["x" * n for n in (9, 1, 5, 3, 7)]
    ScoringEngine(cache=False).score(r, ["q"] * 5, texts)
    lengths = [len(t) for batch in r.calls for _, t in batch]
    assert lengths == sorted(lengths)
    assert [len(b) for b in r.calls] == [2, 2, 1]


def test_persistent_cache_is_reused_across_engines(tmp_path):
    r1 = CountingRanker()
    ScoringEngine(cache=tmp_path).score(r1, ["q1", "q2"], ["t1", "t22"])
    r2 = CountingRanker()
    e2 = ScoringEngine(cache=tmp_path)
    out = e2.score(r2, ["q2", "q1", "q3"], ["t22", "t1", "t"])
    np.testing.assert_array_equal(out, [1, 0, -1])
    assert r2.calls == [[("q3", "t")]]
    assert e2.stats.pairs_cached == 2


def test_fingerprint_separates_models(tmp_path):
    e = ScoringEngine(cache=tmp_path)
    a = e.score(OverlapRanker(length_weight=0.0), ["cat"], ["cat cat dog"])
    b = e.score(OverlapRanker(length_weight=1.0), ["cat"], ["cat cat dog"])
    assert a[0] == 2.0 and b[0] == pytest.approx(-1.0)


def test_non_finite_scores_are_rejected_with_the_pair(tmp_path):
    bad = FunctionRanker(fn=lambda q, t: float("nan") if t == "boom" else 1.0, pairwise=True, name_="bad")
    with pytest.raises(ValidationError, match="non-finite score.*boom"):
        ScoringEngine(cache=False).score(bad, ["q", "q"], ["ok", "boom"])


def test_wrong_shape_from_ranker_is_an_error():
    bad = FunctionRanker(fn=lambda qs, ts: np.zeros(len(qs) + 1), name_="shape")
    with pytest.raises(ValidationError, match="shape"):
        ScoringEngine(cache=False).score(bad, ["q"], ["t"])


def test_misaligned_inputs_and_missing_fingerprint():
    with pytest.raises(ValidationError, match="same length"):
        ScoringEngine(cache=False).score(OverlapRanker(), ["q"], ["a", "b"])

    class NoFp:
        def score(self, q, t):
            return np.zeros(len(q))

    with pytest.raises(ValidationError, match="fingerprint"):
        ScoringEngine(cache=False).score(NoFp(), ["q"], ["t"])


def test_encode_dedupes_caches_and_aligns(tmp_path):
    emb = HashEmbedder(dim=16)
    e = ScoringEngine(cache=tmp_path)
    texts = ["red apple", "green pear", "red apple"]
    v = e.encode(emb, texts)
    assert v.shape == (3, 16) and v.dtype == np.float32
    np.testing.assert_array_equal(v[0], v[2])
    np.testing.assert_allclose(v, emb.encode(texts))
    assert e.stats.texts_encoded == 2
    e2 = ScoringEngine(cache=tmp_path)
    np.testing.assert_array_equal(e2.encode(emb, texts), v)
    assert e2.stats.texts_encoded == 0


def test_memory_cache_and_default_engine_env(monkeypatch):
    from ranklens.engine import default_engine, set_default_engine

    monkeypatch.setenv("RANKLENS_NO_CACHE", "1")
    set_default_engine(None)
    assert isinstance(default_engine().cache, MemoryCache)
    out = score_pairs(OverlapRanker(length_weight=0), ["a b"], ["a a b"])
    assert out[0] == 3.0


def test_cache_info_and_clear(tmp_path):
    c = SQLiteCache(tmp_path)
    e = ScoringEngine(cache=c)
    r = OverlapRanker()
    e.score(r, ["a", "b"], ["a", "b"])
    info = c.info()
    assert info["scores"] == {r.fingerprint: 2} and info["bytes"] > 0
    assert c.clear() == 2
    assert c.info()["scores"] == {}



def _pairs(n: int, salt: str = ""):
    from ranklens.engine.cache import digest

    return [(digest(f"q{i % 7}"), digest(f"text {i}{salt}")) for i in range(n)]


def test_cache_stores_each_fingerprint_text_once(tmp_path):
    import sqlite3

    fp = "ranklens-test-fingerprint-" + "x" * 40
    c = SQLiteCache(tmp_path)
    c.put_scores(fp, [(q, t, float(i)) for i, (q, t) in enumerate(_pairs(2000))])
    c.close()
    conn = sqlite3.connect(c.path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    # once in the fingerprints table and once in its UNIQUE index, not once per entry
    assert c.path.read_bytes().count(fp.encode()) <= 2
    got = SQLiteCache(tmp_path).get_scores(fp, _pairs(2000))
    assert [got[k] for k in _pairs(2000)] == [float(i) for i in range(2000)]


def test_cache_written_before_fingerprints_were_interned_is_moved_on_open(tmp_path):
    import sqlite3

    from ranklens.engine.cache import _pair_key

    path = tmp_path / "cache.sqlite"
    conn = sqlite3.connect(path)  # the schema of ranklens before this change
    conn.execute("CREATE TABLE scores (fp TEXT NOT NULL, k BLOB NOT NULL, score REAL NOT NULL, "
                 "PRIMARY KEY (fp, k)) WITHOUT ROWID")
    old = {fp: {k: float(len(fp) * 1000 + i) for i, k in enumerate(_pairs(50, fp))} for fp in ("A@1", "Bee@2")}
    conn.executemany("INSERT INTO scores VALUES (?,?,?)",
                     [(fp, _pair_key(*k), v) for fp, kv in old.items() for k, v in kv.items()])
    conn.commit()
    conn.close()
    c = SQLiteCache(path)
    for fp, kv in old.items():
        assert c.get_scores(fp, list(kv)) == kv
    assert c.info()["scores"] == {"A@1": 50, "Bee@2": 50}
    tables = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "scores" not in tables and {"fingerprints", "pair_scores"} <= tables


def test_cleared_fingerprint_ids_are_not_reused(tmp_path):
    """A process that looked a fingerprint's id up before another cleared it must not write
    under an id the next model gets: ids only grow."""
    import sqlite3

    c = SQLiteCache(tmp_path)
    c.put_scores("model-a", [(q, t, 1.0) for q, t in _pairs(10)])
    ids = lambda: dict(sqlite3.connect(c.path).execute("SELECT fp, id FROM fingerprints").fetchall())  # noqa: E731
    a = ids()["model-a"]
    assert c.clear("model-a") == 10
    c.put_scores("model-b", [(q, t, 2.0) for q, t in _pairs(10)])
    assert ids()["model-b"] > a
    assert c.get_scores("model-a", _pairs(10)) == {}
    assert set(c.get_scores("model-b", _pairs(10)).values()) == {2.0}
    assert c.clear() == 10 and c.info()["scores"] == {}
    c.put_scores("model-c", [(q, t, 3.0) for q, t in _pairs(3)])
    assert ids()["model-c"] > ids().get("model-b", a)


_WORKER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from ranklens.engine import ScoringEngine
    from ranklens.testing import SlowHashRanker as Slow

    cache, delay, n, offset = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    qs = [f"q{(i + offset) % 7}" for i in range(n)]
    ts = [f"text number {(i + offset) * 13 % n}" for i in range(n)]
    e = ScoringEngine(cache=cache)
    out = e.score(Slow(delay=delay), qs, ts)
    print("DONE", e.stats.pairs_scored, flush=True)
    np.save(sys.argv[5], out)
    """
)


def _worker(tmp_path, cache, delay, n, offset, out):
    script = tmp_path / "worker.py"
    script.write_text(_WORKER)
    env = dict(os.environ, PYTHONHASHSEED="0")
    return subprocess.Popen(
        [sys.executable, str(script), str(cache), str(delay), str(n), str(offset), str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )


def test_killed_run_resumes_with_identical_scores(tmp_path):
    cache = tmp_path / "cache"
    p = _worker(tmp_path, cache, 0.3, 60, 0, tmp_path / "a.npy")
    deadline = time.time() + 60
    while time.time() < deadline:  # kill once a few batches are committed (12 batches x 0.3 s)
        time.sleep(0.1)
        if (cache / "cache.sqlite").exists():
            try:
                if sum(SQLiteCache(cache).info()["scores"].values()) >= 10:
                    break
            except Exception:  # the file may be mid-creation
                pass
    p.send_signal(signal.SIGKILL)
    p.wait()
    done_before = sum(SQLiteCache(cache).info()["scores"].values())
    assert 0 < done_before < 60, done_before
    p2 = _worker(tmp_path, cache, 0.0, 60, 0, tmp_path / "b.npy")
    out, err = p2.communicate(timeout=120)
    assert p2.returncode == 0, err
    assert f"DONE {60 - done_before}" in out
    ref = _worker(tmp_path, tmp_path / "fresh", 0.0, 60, 0, tmp_path / "c.npy")
    ref.communicate(timeout=120)
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), np.load(tmp_path / "c.npy"))


def test_two_processes_share_one_cache(tmp_path):
    cache = tmp_path / "shared"
    procs = [_worker(tmp_path, cache, 0.01, 200, off, tmp_path / f"p{off}.npy") for off in (0, 3)]
    for p in procs:
        _, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
    ref = _worker(tmp_path, tmp_path / "fresh", 0.0, 200, 3, tmp_path / "ref.npy")
    ref.communicate(timeout=120)
    np.testing.assert_array_equal(np.load(tmp_path / "p3.npy"), np.load(tmp_path / "ref.npy"))
    import sqlite3

    conn = sqlite3.connect(cache / "cache.sqlite")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_models_that_call_the_engine_use_their_callers_engine(tmp_path, monkeypatch):
    """A bi-encoder ranker encodes through the engine that is scoring it (its cache, its
    stats), never through the process-wide default."""
    import ranklens.engine as eng
    from ranklens.rankers import BiEncoderRanker

    default = ScoringEngine(cache=False, show_progress=False)
    monkeypatch.setattr(eng, "_DEFAULT", default)
    mine = ScoringEngine(cache=tmp_path / "mine", show_progress=False)
    ranker = BiEncoderRanker()
    object.__setattr__(ranker, "_emb", HashEmbedder(dim=16))  # no model download in unit tests
    out = mine.score(ranker, ["q one", "q two"], ["text a", "text b"])
    assert out.shape == (2,)
    assert mine.stats.texts_encoded == 4 and default.stats.texts_encoded == 0
    # outside any engine call the default is used, as before
    score_pairs(ranker, ["q three"], ["text c"])
    assert default.stats.texts_encoded == 2


# ----------------------------------------------------------------- fingerprints cover the code
def _scores_from_module(tmp_path, body: str, spec_suffix: str = "") -> tuple[np.ndarray, str, int]:
    """Score through the CLI-style spec in a fresh process, with one on-disk cache for all calls."""
    mod = tmp_path / "edited_scorer.py"
    mod.write_text(body)
    code = textwrap.dedent(f"""
        import sys, json
        sys.path.insert(0, {str(tmp_path)!r})
        from ranklens.engine import ScoringEngine
        from ranklens.specs import build_model
        r = build_model("callable:edited_scorer:score{spec_suffix}", "ranker")
        e = ScoringEngine(cache={str(tmp_path / "cache")!r}, show_progress=False)
        out = e.score(r, ["q", "q"], ["ab", "abcd"])
        print(json.dumps([list(map(float, out)), r.fingerprint, e.stats.pairs_cached]))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    scores, fp, cached = __import__("json").loads(proc.stdout.strip().splitlines()[-1])
    return np.asarray(scores), fp, cached


def test_editing_a_callable_body_between_runs_gives_new_scores(tmp_path):
    pytest.importorskip("ranklens.specs")
    first, fp1, cached1 = _scores_from_module(tmp_path, "def score(qs, ts):\n    return [len(t) for t in ts]\n")
    again, fp2, cached2 = _scores_from_module(tmp_path, "def score(qs, ts):\n    return [len(t) for t in ts]\n")
    flipped, fp3, cached3 = _scores_from_module(tmp_path, "def score(qs, ts):\n    return [-len(t) for t in ts]\n")
    np.testing.assert_array_equal(first, [2, 4])
    assert (fp2, cached2) == (fp1, 2) and again.tolist() == first.tolist()  # same code: from the cache
    assert fp3 != fp1 and cached3 == 0
    np.testing.assert_array_equal(flipped, [-2, -4])  # not the stale cached [2, 4]


def test_callable_version_override_keeps_the_cache_across_edits(tmp_path):
    pytest.importorskip("ranklens.specs")
    a, fp1, _ = _scores_from_module(tmp_path, "def score(qs, ts):\n    return [len(t) for t in ts]\n", "@v1")
    b, fp2, cached = _scores_from_module(tmp_path, "def score(qs, ts):\n    return [len(t) for t in ts]  # tidy\n",
                                         "@v1")
    assert fp1 == fp2 and cached == 2  # the user vouches the output did not change
    _, fp3, cached3 = _scores_from_module(tmp_path, "def score(qs, ts):\n    return [0 for t in ts]\n", "@v2")
    assert fp3 != fp1 and cached3 == 0


def test_callable_fingerprint_sees_constants_closures_and_defaults():
    from ranklens.rankers.callables import callable_fingerprint

    def make(k):
        def f(qs, ts):
            return [k * len(t) for t in ts]
        return f

    def g(qs, ts, scale=1.0):
        return [scale]

    def h(qs, ts, scale=2.0):
        return [scale]

    assert callable_fingerprint(make(1))[0] == callable_fingerprint(make(1))[0]
    assert callable_fingerprint(make(1))[0] != callable_fingerprint(make(2))[0]  # closure value
    assert callable_fingerprint(g)[0] != callable_fingerprint(h)[0]  # defaults (and constants)
    digest, why = callable_fingerprint(len)
    assert digest is None and "no Python code" in why


def test_uncodeable_callable_warns_and_is_not_reused_across_processes():
    from ranklens.errors import RanklensWarning
    from ranklens.rankers.callables import load_callable

    with pytest.warns(RanklensWarning, match="@VERSION"):
        fn = load_callable("builtins:len")
    assert "process-" in fn.__qualname__


def test_pyterrier_fingerprint_follows_parameters_and_version():
    from ranklens.rankers.pyterrier import PyTerrierRanker

    class T:
        def __init__(self, k):
            self.k = k

        def transform(self, df):
            return df.assign(score=float(self.k))

    fps = {PyTerrierRanker(transformer=T(1)).fingerprint, PyTerrierRanker(transformer=T(2)).fingerprint,
           PyTerrierRanker(transformer=T(1), version="2").fingerprint}
    assert len(fps) == 3
    assert PyTerrierRanker(transformer=T(1)).fingerprint == PyTerrierRanker(transformer=T(1)).fingerprint


@pytest.mark.parametrize("bad", [np.nan, np.inf], ids=["nan", "inf"])
def test_embedder_returning_non_finite_vectors_is_refused_and_not_cached(bad):
    class Bad:
        fingerprint = "BadEmbedder@1"

        def encode(self, texts):
            out = np.ones((len(texts), 3), dtype=np.float32)
            out[-1, 1] = bad
            return out

    cache = MemoryCache()
    with pytest.raises(ValidationError, match="non-finite vector"):
        ScoringEngine(cache=cache).encode(Bad(), ["a", "b"])
    assert cache.get_vectors("BadEmbedder@1", [b"x"]) == {} and not cache._vecs


def test_embedder_returning_wrong_shape_is_refused():
    class Flat:
        fingerprint = "Flat@1"

        def encode(self, texts):
            return np.ones(len(texts), dtype=np.float32)

    with pytest.raises(ValidationError, match=r"expected \(2, dim\)"):
        ScoringEngine(cache=False).encode(Flat(), ["a", "b"])
