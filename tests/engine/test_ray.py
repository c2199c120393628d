"""RayDispatcher on a local Ray with 2 CPUs: the same scores, vectors and analysis results as the
local dispatcher; a killed actor's batch is retried elsewhere (nothing lost, nothing written
twice); a killed driver resumes from the cache. Slow (Ray starts in ~5 s): run with --slow."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import dataclass

import numpy as np
import pytest

from ranklens.engine import LocalDispatcher, MemoryCache, ScoringEngine, SQLiteCache
from ranklens.errors import ValidationError
from ranklens.rankers.base import BaseRanker
from ranklens.testing import HashEmbedder, OverlapRanker, SlowHashRanker

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster():
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray.get_runtime_context().gcs_address
    if started:
        ray.shutdown()


@pytest.fixture
def dispatcher(cluster):
    from ranklens.engine.ray import RayDispatcher

    d = RayDispatcher(actors=2)
    yield d
    d.close()


def _sha_score(q: str, t: str) -> float:
    """Deterministic in every process (Python's hash() is salted per process)."""
    return int.from_bytes(hashlib.sha256(f"{q}|{t}".encode()).digest()[:4], "big") / 1e6


class CountingCache(MemoryCache):
    """Records every key the engine writes: a key written twice is a double write."""

    def __init__(self) -> None:
        super().__init__()
        self.puts: list[bytes] = []

    def put_scores(self, fp, items):
        items = list(items)
        self.puts.extend(qh + th for qh, th, _ in items)
        super().put_scores(fp, items)


def _pairs(n: int) -> tuple[list[str], list[str]]:
    qs = [f"query {i % 7} about t{i % 5}" for i in range(n)]
    ts = [f"t{i % 5} text {i * 13 % 41} " + "word " * (i % 9) for i in range(n)]
    return qs, ts


def test_scores_and_vectors_equal_the_local_dispatcher(dispatcher):
    qs, ts = _pairs(150)  # with duplicate pairs, several batches, both actors
    local = ScoringEngine(cache=False, show_progress=False)
    remote = ScoringEngine(cache=False, dispatcher=dispatcher, show_progress=False)
    for ranker in (OverlapRanker(batch_size=7), SlowHashRanker(batch_size=4)):
        np.testing.assert_array_equal(remote.score(ranker, qs, ts), local.score(ranker, qs, ts))
    emb = HashEmbedder(dim=24)
    np.testing.assert_array_equal(remote.encode(emb, ts, desc="x"), local.encode(emb, ts))
    assert remote.stats.pairs_scored == local.stats.pairs_scored and remote.stats.batches == local.stats.batches
    assert len(set(dispatcher.actor_pids())) == 2 and os.getpid() not in dispatcher.actor_pids()


def test_model_errors_reach_the_driver_unwrapped(dispatcher):
    remote = ScoringEngine(cache=False, dispatcher=dispatcher, show_progress=False)

    @dataclass(kw_only=True)
    class Bad(BaseRanker):
        def _score_batch(self, queries, texts):
            raise ValidationError("bad model on purpose")

    with pytest.raises(ValidationError, match="bad model on purpose"):
        remote.score(Bad(), ["q"], ["t"])

    @dataclass(kw_only=True)
    class NaN(BaseRanker):
        def _score_batch(self, queries, texts):
            return np.full(len(queries), np.nan)

    with pytest.raises(ValidationError, match="non-finite score"):  # the driver's check, as locally
        remote.score(NaN(), ["q"], ["t"])


def test_a_killed_actor_loses_no_batch_and_writes_none_twice(dispatcher):
    qs, ts = _pairs(120)
    cache = CountingCache()
    engine = ScoringEngine(cache=cache, dispatcher=dispatcher, show_progress=False)
    victim = dispatcher.actor_pids()[0]

    def kill_soon():
        time.sleep(1.5)  # 30 batches x 0.25 s over 2 actors: well inside the run
        os.kill(victim, signal.SIGKILL)

    killer = threading.Thread(target=kill_soon)
    killer.start()
    out = engine.score(SlowHashRanker(batch_size=4, delay=0.25), qs, ts)
    killer.join()
    expected = np.array([_sha_score(q, t) for q, t in zip(qs, ts)])
    np.testing.assert_array_equal(out, expected)
    assert dispatcher.retried >= 1  # the victim's batch ran again, elsewhere
    assert victim not in dispatcher.actor_pids()
    distinct = len(set(zip(qs, ts)))
    assert len(cache.puts) == distinct and len(set(cache.puts)) == distinct


_DRIVER = textwrap.dedent(
    """
    import sys
    import numpy as np
    import ray
    from ranklens.engine import ScoringEngine
    from ranklens.engine.ray import RayDispatcher
    from ranklens.testing import SlowHashRanker as Slow

    address, cache, delay, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    ray.init(address=address, include_dashboard=False, log_to_driver=False)
    qs = [f"q{i % 7}" for i in range(60)]
    ts = [f"text number {i * 13 % 60}" for i in range(60)]
    e = ScoringEngine(cache=cache, dispatcher=RayDispatcher(actors=2), show_progress=False)
    scores = e.score(Slow(delay=delay), qs, ts)
    print("DONE", e.stats.pairs_scored, flush=True)
    np.save(out, scores)
    """
)


def _driver(tmp_path, address, cache, delay, out):
    script = tmp_path / "driver.py"
    script.write_text(_DRIVER)
    return subprocess.Popen([sys.executable, str(script), address, str(cache), str(delay), str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_killed_driver_resumes_from_the_cache(tmp_path, cluster):
    cache = tmp_path / "cache"
    p = _driver(tmp_path, cluster, cache, 0.4, tmp_path / "a.npy")
    deadline = time.time() + 90
    while time.time() < deadline:  # kill once some batches are committed (12 batches x 0.4 s / 2)
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
    p2 = _driver(tmp_path, cluster, cache, 0.0, tmp_path / "b.npy")
    out, err = p2.communicate(timeout=120)
    assert p2.returncode == 0, err
    assert f"DONE {60 - done_before}" in out  # only the missing pairs were scored
    qs = [f"q{i % 7}" for i in range(60)]
    ts = [f"text number {i * 13 % 60}" for i in range(60)]
    expected = [int.from_bytes(hashlib.sha256((q + "|" + t).encode()).digest()[:4], "big") / 1e6
                for q, t in zip(qs, ts)]
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), expected)


def test_the_same_analysis_through_both_dispatchers(dispatcher):
    from ranklens.datasets.demo import load_demo
    from ranklens.drive import run_analysis

    coll = load_demo()
    models = {"tfidf": {"spec": "tfidf", "params": {}}}
    params = {"max_sentences": 300, "n_queries": 5, "k": 3, "n_samples": 1}
    results = []
    for d in (LocalDispatcher(), dispatcher):
        engine = ScoringEngine(cache=False, dispatcher=d, show_progress=False)
        results.append(run_analysis("neighbors", coll, models, params, engine=engine, seed=1))
        assert engine.stats.texts_encoded > 0  # the analysis went through this engine
    a, b = results
    assert [r.kind for r in a] == [r.kind for r in b]
    for ra, rb in zip(a, b):
        assert ra.summary == rb.summary and ra.warnings == rb.warnings
        assert ra.table.equals(rb.table)
        assert set(ra.tables) == set(rb.tables) and all(ra.tables[k].equals(rb.tables[k]) for k in ra.tables)


def _outputs(root):
    """Every table (decompressed) and every result summary of an experiment's results."""
    import gzip
    import json

    out = {}
    for f in sorted(root.rglob("*")):
        rel = str(f.relative_to(root))
        if ".work" in rel or not f.is_file():
            continue
        if f.name.endswith(".tsv.gz"):
            out[rel] = gzip.decompress(f.read_bytes())
        elif f.name == "result.json":
            data = json.loads(f.read_text())
            out[rel] = (data.get("summary"), data.get("warnings"))
    return out


def test_every_analysis_of_an_experiment_gives_identical_results_on_ray(tmp_path, cluster, monkeypatch):
    """The small experiment (every analysis, BM25 + TF-IDF on the demo) with and without an
    ``[engine] type = "ray"`` table: the same tables and summaries, and the Ray run's batches did
    go through the RayDispatcher."""
    from ranklens.engine import set_default_engine
    from ranklens.engine.ray import RayDispatcher
    from ranklens.experiment import load_experiment, run_experiment
    from tests.conftest import SMALL_EXPERIMENT

    batches: list[int] = []
    original = RayDispatcher.run

    def counting(self, call, bs):
        batches.append(len(bs))
        return original(self, call, bs)

    monkeypatch.setattr(RayDispatcher, "run", counting)
    roots = []
    for name, table in (("local", ""), ("ray", '\n[engine]\ntype = "ray"\nactors = 2\n')):
        monkeypatch.setenv("RANKLENS_CACHE_DIR", str(tmp_path / f"cache-{name}"))  # no shared cache hits
        set_default_engine(None)
        f = tmp_path / name / "exp.toml"
        f.parent.mkdir()
        f.write_text(SMALL_EXPERIMENT + table)
        exp = load_experiment(f)
        assert exp.engine == ({"type": "ray", "actors": 2} if table else None)
        run_experiment(exp, report=False, show_progress=False)
        roots.append(f.parent / "res")
    assert sum(batches) > 0  # the Ray run computed its batches on the actors
    local, remote = (_outputs(r) for r in roots)
    assert len(local) > 20 and local.keys() == remote.keys()
    for key in local:
        assert local[key] == remote[key], key


def test_embeddings_from_ray_are_stored_by_the_driver_and_reused(tmp_path, dispatcher):
    """Encoding through Ray writes the driver's on-disk vector store as batches arrive; a later
    local run finds every vector there (nothing encoded again) and they equal local encoding."""
    texts = [f"text {i} " + "word " * (i % 11) for i in range(300)]
    emb = HashEmbedder(dim=32)
    remote = ScoringEngine(cache=tmp_path / "c", dispatcher=dispatcher, show_progress=False)
    got = remote.encode(emb, texts)
    again = ScoringEngine(cache=tmp_path / "c", show_progress=False)
    stored = again.encode(emb, texts)
    assert again.stats.texts_cached == len(texts) and again.stats.texts_encoded == 0
    fresh = ScoringEngine(cache=False, show_progress=False).encode(emb, texts)
    np.testing.assert_array_equal(got, fresh)
    np.testing.assert_array_equal(stored, fresh)


def test_any_callable_runs_on_the_actors_once_per_batch(dispatcher):
    """A plain callable (not the engine's BatchCall) is shipped once per run; each batch is
    computed once, in an actor process, and every batch comes back."""
    data = list(range(1000))

    def call(positions):
        return os.getpid(), [data[j] * 2 for j in positions]

    batches = [(b, list(range(s, min(s + 37, 1000)))) for b, s in enumerate(range(0, 1000, 37))]
    got = dict(dispatcher.run(call, batches))
    assert sorted(got) == [b for b, _ in batches]
    assert {pid for pid, _ in got.values()} <= set(dispatcher.actor_pids())
    for b, positions in batches:
        assert got[b][1] == [2 * j for j in positions]


def test_back_pressure_bounds_the_batches_in_flight(dispatcher, monkeypatch):
    """Never more than actors x in_flight batches queued on the cluster, however many batches."""
    seen: list[int] = []
    real_wait = ray.wait

    def spy(refs, **kw):
        seen.append(len(refs))
        return real_wait(refs, **kw)

    monkeypatch.setattr(ray, "wait", spy)
    qs, ts = _pairs(400)
    remote = ScoringEngine(cache=False, dispatcher=dispatcher, show_progress=False)
    remote.score(OverlapRanker(batch_size=5), qs, ts)
    assert len(seen) >= 40 and max(seen) == 2 * dispatcher.in_flight


def test_cli_engine_option_runs_an_analysis_on_ray(tmp_path, cluster, monkeypatch):
    """``ranklens --engine ray neighbors ...`` gives the results of the local run, and its
    batches went through the RayDispatcher."""
    import gzip

    from ranklens.cli import main
    from ranklens.engine.ray import RayDispatcher

    calls: list[int] = []
    original = RayDispatcher.run
    monkeypatch.setattr(RayDispatcher, "run", lambda self, call, bs: (calls.append(len(bs)), original(self, call, bs))[1])
    args = ["neighbors", "--collection", "demo", "--model", "tfidf", "--n-queries", "5", "--n-samples", "1",
            "--k", "3", "--max-sentences", "300", "--no-plots"]
    assert main(["-q", "--no-cache", *args, "--out", str(tmp_path / "local")]) == 0
    assert main(["-q", "--no-cache", "--engine", "ray", *args, "--out", str(tmp_path / "ray")]) == 0
    assert sum(calls) > 0
    tables = sorted(p.relative_to(tmp_path / "local") for p in (tmp_path / "local").rglob("*.tsv.gz"))
    assert tables
    for rel in tables:
        assert gzip.decompress((tmp_path / "local" / rel).read_bytes()) == \
            gzip.decompress((tmp_path / "ray" / rel).read_bytes()), rel


def test_more_actors_than_the_cluster_can_place_is_refused_by_name(cluster):
    from ranklens.engine.ray import RayDispatcher

    d = RayDispatcher(actors=3, start_timeout=5)  # 3 one-CPU actors on a 2-CPU cluster
    with pytest.raises(ValidationError, match=r"only [0-2] of 3 Ray actors .* started in 5 s"):
        ScoringEngine(cache=False, dispatcher=d, show_progress=False).score(OverlapRanker(), ["q"], ["t"])
    d.close()


def test_components_ship_without_loaded_weights():
    from ranklens.engine.ray import _shippable
    from ranklens.rankers import BiEncoderRanker

    ranker = BiEncoderRanker()
    emb = HashEmbedder(dim=8)
    object.__setattr__(emb, "_loaded", "pretend weights")
    object.__setattr__(ranker, "_emb", emb)
    shipped = _shippable(ranker)
    assert shipped._emb._loaded is None and shipped._emb.dim == 8 and shipped.fingerprint == ranker.fingerprint
    assert emb._loaded == "pretend weights" and ranker._emb is emb  # the driver's copy is untouched
    plain = OverlapRanker()
    assert _shippable(plain) is plain  # nothing loaded: shipped as is


def test_cli_starts_and_stops_its_own_local_ray(tmp_path):
    """``RANKLENS_ENGINE=ray`` in a fresh process: the dispatcher starts a local Ray (workers at
    nice 0), runs the analysis on it and shuts it down; the tables equal a local run's."""
    import gzip

    args = ["-q", "--no-cache", "neighbors", "--collection", "demo", "--model", "tfidf", "--n-queries", "5",
            "--n-samples", "1", "--k", "3", "--max-sentences", "300", "--no-plots"]
    code = ("import os, sys, ray; from ranklens.cli import main; rc = main(sys.argv[1:]); "
            "print('RAY_LEFT_RUNNING', ray.is_initialized()); sys.exit(rc)")
    runs = {}
    for name, engine in (("local", "local"), ("ray", "ray")):
        env = dict(os.environ, RANKLENS_ENGINE=engine)
        proc = subprocess.run([sys.executable, "-c", code, *args, "--out", str(tmp_path / name)],
                              capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "RAY_LEFT_RUNNING False" in proc.stdout
        runs[name] = {p.relative_to(tmp_path / name): gzip.decompress(p.read_bytes())
                      for p in (tmp_path / name).rglob("*.tsv.gz")}
    assert runs["local"] and runs["local"] == runs["ray"]
