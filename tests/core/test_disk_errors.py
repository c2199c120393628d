"""A write that fails for want of room -- a full disk (ENOSPC) or a file-size limit (EFBIG,
``ulimit -f``) -- is an ``OutputError`` naming the path and what the errno means, leaves no
partial file, and under the caches is called "disk full", never "corrupt"."""

from __future__ import annotations

import errno
import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranklens.errors import CacheError, OutputError
from ranklens.results import Result, make_provenance

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n"
RUN = "1 Q0 d1 1 2.0 s\n1 Q0 d2 2 1.0 s\n2 Q0 d3 1 1.0 s\n"


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def _limited(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def _ranklens(argv: list[str], cwd: Path, limit: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-m", "ranklens", *argv], cwd=cwd, capture_output=True, text=True,
                          preexec_fn=_limited(limit), env=env, timeout=300)


@pytest.fixture
def inputs(tmp_path) -> Path:
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.run").write_text(RUN)
    return tmp_path


# (argv, what the message names, file-size limit in bytes: below what the command writes)
CLI_CASES = [
    (["evaluate", "q.txt", "r.run", "--out", "res"], "res", 1500),
    (["evaluate", "q.txt", "r.run", "--per-document", "perdoc.tsv"], "perdoc.tsv", 20),
    (["evaluate", "q.txt", "r.run", "--per-document", "perdoc.tsv.gz"], "perdoc.tsv.gz", 20),
    (["report", "clean", "-o", "report.html"], "report.html", 4000),
    (["report", "clean", "-o", "report.md"], "report.md", 50),
    (["report", "clean", "-o", "report.tex"], "report.tex", 50),
]


@pytest.mark.parametrize(("argv", "target", "limit"), CLI_CASES, ids=[" ".join(c[0][:2] + c[0][-1:]) for c in CLI_CASES])
def test_a_file_size_limit_is_a_located_error_and_leaves_nothing(inputs, argv, target, limit):
    Result(kind="asl-evaluate", summary={}, table=pd.DataFrame({"model": ["a"], "AP": [0.5]}),
           provenance=make_provenance()).save(inputs / "clean")
    before = _files(inputs)
    p = _ranklens(argv, inputs, limit)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    line = p.stderr.strip().splitlines()[-1]
    assert line.startswith(f"ranklens: error: {target}: cannot write") and "EFBIG" in line, line
    assert "file-size limit" in line and "ulimit -f" in line, line
    assert _files(inputs) == before  # no partial file, no temp file left


def test_a_full_disk_while_saving_a_result_keeps_the_old_one(tmp_path, monkeypatch):
    import ranklens.results as results

    old = Result(kind="k", summary={"v": 1}, table=pd.DataFrame({"a": [1]}), provenance=make_provenance())
    target = old.save(tmp_path / "res")
    real = results._write_table

    def full(frame, path):
        real(frame, path)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(results, "_write_table", full)
    new = Result(kind="k", summary={"v": 2}, table=pd.DataFrame({"a": [2]}), provenance=make_provenance())
    with pytest.raises(OutputError) as info:
        new.save(target)
    msg = str(info.value)
    assert msg.startswith(f"{target}: ") and "disk is full" in msg and "ENOSPC" in msg, msg
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]  # the temp directory was removed
    assert Result.load(target).summary == {"v": 1}


def test_a_full_disk_in_an_atomic_write_names_the_file(tmp_path, monkeypatch):
    from ranklens.files import write_text_atomic

    (tmp_path / "out.html").write_text("old")

    def full(self, *a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(OutputError, match=r"out.html: cannot write the report file: the disk is full \(ENOSPC"):
        write_text_atomic(tmp_path / "out.html", "new", what="report file")
    monkeypatch.undo()
    assert _files(tmp_path) == ["out.html"] and (tmp_path / "out.html").read_text() == "old"


def test_other_os_errors_keep_their_type(tmp_path):
    from ranklens.files import atomic_output

    with pytest.raises(FileNotFoundError):  # not a disk problem: not dressed up as one
        with atomic_output(tmp_path / "x.txt"):
            open(tmp_path / "missing" / "input.txt")
    assert _files(tmp_path) == []


def test_a_full_score_cache_is_reported_as_disk_full_not_corrupt(tmp_path):
    from ranklens.engine.cache import SQLiteCache

    cache = SQLiteCache(tmp_path / "cache")
    cache.put_scores("fp", [(b"q" * 32, b"t" * 32, 1.0)])
    cache._conn().execute("PRAGMA max_page_count=8")  # SQLite answers SQLITE_FULL, as on a full disk
    rng = np.random.default_rng(0)
    with pytest.raises(CacheError) as info:
        cache.put_scores("fp", [(rng.bytes(32), rng.bytes(32), 1.0) for _ in range(5000)])
    msg = str(info.value)
    assert "disk is full" in msg and "corrupt" not in msg and "cache clear" not in msg, msg
    assert "do not clear it" in msg and str(cache.path) in msg
    cache._conn().execute("PRAGMA max_page_count=1000000")
    assert cache.get_scores("fp", [(b"q" * 32, b"t" * 32)]) == {(b"q" * 32, b"t" * 32): 1.0}  # intact


def test_a_file_size_limit_under_the_score_cache_is_not_called_corrupt(tmp_path):
    p = _ranklens(["--cache-dir", str(tmp_path / "cache"), "cache", "info"], tmp_path, 0)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert "cannot be written" in p.stderr and "corrupt" not in p.stderr and "cache clear" not in p.stderr


def test_a_full_disk_under_the_vector_store_is_not_called_corrupt(tmp_path, monkeypatch):
    from ranklens.engine.vectors import VectorStore

    store = VectorStore(tmp_path / "vectors")
    store.put("fp", [b"a" * 32], np.ones((1, 4), np.float32))

    def full(*a):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "pwrite", full)
    with pytest.raises(CacheError) as info:
        store.put("fp", [b"b" * 32], np.ones((1, 4), np.float32))
    msg = str(info.value)
    assert "disk is full" in msg and "corrupt" not in msg and "do not clear it" in msg, msg
    monkeypatch.undo()
    assert store.missing("fp", [b"a" * 32, b"b" * 32]) == [b"b" * 32]  # the failed batch was rolled back


def test_a_full_disk_under_the_results_index_is_an_output_error(tmp_path, monkeypatch):
    from ranklens.store import ResultsStore

    d = Result(kind="k", summary={"v": 1.0}, table=pd.DataFrame({"a": [1]}), provenance=make_provenance()
               ).save(tmp_path / "res")
    store = ResultsStore(tmp_path)
    real = ResultsStore._open

    def small(self):
        conn = real(self)
        conn.execute("PRAGMA max_page_count=" + str(conn.execute("PRAGMA page_count").fetchone()[0]))
        return conn

    monkeypatch.setattr(ResultsStore, "_open", small)
    with pytest.raises(OutputError) as info:
        store.add(d, model="m" * 200_000)
    msg = str(info.value)
    assert "index.sqlite" in msg and "disk is full" in msg and "results reindex" in msg, msg


def test_sqlite_disk_problems_are_told_apart(tmp_path):
    from ranklens.files import sqlite_disk_problem

    conn = sqlite3.connect(tmp_path / "x.sqlite")
    conn.execute("CREATE TABLE t (x BLOB)")
    conn.execute("PRAGMA max_page_count=2")
    with pytest.raises(sqlite3.OperationalError) as info:
        conn.execute("INSERT INTO t VALUES (?)", [b"x" * 100_000])
    assert "disk is full" in sqlite_disk_problem(info.value)
    assert sqlite_disk_problem(sqlite3.OperationalError("database is locked")) is None
    assert sqlite_disk_problem(sqlite3.DatabaseError("file is not a database")) is None


def test_standard_output_over_a_file_size_limit_is_one_error_line(inputs):
    with open(inputs / "stdout.txt", "w") as out:
        p = subprocess.run([sys.executable, "-m", "ranklens", "evaluate", "q.txt", "r.run"], cwd=inputs, stdout=out,
                           stderr=subprocess.PIPE, text=True, preexec_fn=_limited(50), timeout=300)
    assert p.returncode == 1 and "Traceback" not in p.stderr and "Exception ignored" not in p.stderr, p.stderr
    assert p.stderr.strip() == ("ranklens: error: standard output: cannot write: the file-size limit was reached "
                                "(EFBIG: file too large; see `ulimit -f`); raise the limit or write elsewhere")
