"""Persistent caches for scores and embeddings.

SQLite in WAL mode: readers never block the writer, and two processes sharing one cache file
serialise their writes through SQLite's lock (``busy_timeout``) instead of corrupting it. Each
batch is committed on its own, so a killed run keeps every batch it finished.

Keys: ``(fingerprint, sha256(query), sha256(text))`` for scores, stored as raw 32-byte digests.

Embeddings are not in this file: they are stored once, as raw float32 rows in memory-mapped shard
files with a small SQLite index (:class:`~ranklens.engine.vectors.VectorStore`, in
``<cache dir>/<file stem>-vectors/``). Without an on-disk cache (:class:`MemoryCache`) vectors are
kept in memory only up to a small budget, so a ``--no-cache`` run streams: what the caller does
not keep is freed.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from ..errors import CacheError
from ..files import disk_problem, sqlite_disk_problem
from .vectors import VectorStore

__all__ = ["MemoryCache", "ScoreCache", "SQLiteCache", "VectorStore", "default_cache_dir", "digest"]

_CHUNK = 400  # SQLite host-parameter limit is 999 in old builds; 2 params per key


def digest(text: str) -> bytes:
    """32-byte SHA-256 of a UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).digest()


def _pair_key(qh: bytes, th: bytes) -> bytes:
    # one 32-byte key per (query, text) pair keeps lookups a single-column IN on the primary key
    return hashlib.sha256(qh + th).digest()


def default_cache_dir() -> Path:
    """``$RANKLENS_CACHE_DIR``, else ``$XDG_CACHE_HOME/ranklens``, else ``~/.cache/ranklens``."""
    env = os.environ.get("RANKLENS_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "ranklens"


class ScoreCache(Protocol):
    """What the engine needs from a cache."""

    def get_scores(self, fp: str, keys: Sequence[tuple[bytes, bytes]]) -> dict[tuple[bytes, bytes], float]: ...
    def put_scores(self, fp: str, items: Iterable[tuple[bytes, bytes, float]]) -> None: ...
    def get_vectors(self, fp: str, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]: ...
    def put_vectors(self, fp: str, items: Iterable[tuple[bytes, np.ndarray]]) -> None: ...


class MemoryCache:
    """In-process dict cache (used for ``--no-cache`` runs and in tests).

    Vectors are kept only while their total size stays under ``max_vector_bytes`` (64 MiB):
    small runs still encode a text once, and a large ``--no-cache`` run holds no vector beyond
    the budget (the caller owns what it keeps).
    """

    def __init__(self, max_vector_bytes: int = 64 << 20) -> None:
        self._scores: dict[tuple[str, bytes, bytes], float] = {}
        self._vecs: dict[tuple[str, bytes], np.ndarray] = {}
        self.max_vector_bytes = int(max_vector_bytes)
        self._vec_bytes = 0

    def get_scores(self, fp, keys):
        out = {}
        for k in keys:
            v = self._scores.get((fp, k[0], k[1]))
            if v is not None:
                out[k] = v
        return out

    def put_scores(self, fp, items):
        for qh, th, s in items:
            self._scores[(fp, qh, th)] = float(s)

    def get_vectors(self, fp, keys):
        return {k: self._vecs[(fp, k)] for k in keys if (fp, k) in self._vecs}

    def put_vectors(self, fp, items):
        for th, v in items:
            a = np.asarray(v, dtype=np.float32)
            if self._vec_bytes + a.nbytes > self.max_vector_bytes:
                return  # over the budget: stream, keep nothing more
            if (fp, th) not in self._vecs:
                self._vec_bytes += a.nbytes
            self._vecs[(fp, th)] = a.copy()


class SQLiteCache:
    """On-disk cache in one SQLite file (``scores.sqlite`` under the cache dir)."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, timeout: float = 120.0) -> None:
        p = Path(path) if path is not None else default_cache_dir() / "cache.sqlite"
        if p.suffix == "" or p.is_dir():
            p = p / "cache.sqlite"
        self.path = p
        self.timeout = timeout
        self._local = threading.local()
        self.vector_store = VectorStore(p.with_name(p.stem + "-vectors"), timeout=timeout)

    def _error(self, exc: BaseException) -> CacheError:
        msg = str(exc)
        problem = sqlite_disk_problem(exc) or disk_problem(exc)
        if problem is not None:  # a full disk is not a corrupt cache: clearing it would not help
            return CacheError(f"{self.path}: the score cache cannot be written: {problem}; the cache is intact "
                              f"(do not clear it); or set --cache-dir (env RANKLENS_CACHE_DIR) to another "
                              f"disk, or run with --no-cache")
        if "locked" in msg or "busy" in msg:
            fix = "another process holds it too long; wait, or use --cache-dir for a separate cache"
        elif "readonly" in msg or "permission" in msg.lower() or "unable to open" in msg:
            fix = ("it is not writable; fix its permissions, choose another --cache-dir "
                   "(env RANKLENS_CACHE_DIR) or run with --no-cache")
        else:
            fix = "it is corrupt; run `ranklens cache clear` (or delete the file) and re-run"
        return CacheError(f"{self.path}: score cache error ({msg}); {fix}")

    # one connection per thread (sqlite3 connections are not shareable across threads)
    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._guard(self._open)  # two processes creating the WAL file at once: retried
            self._local.conn = conn
        return conn

    def _open(self) -> sqlite3.Connection:
        for parent in (self.path.parent, *self.path.parent.parents):
            if parent.exists() and not parent.is_dir():
                raise CacheError(f"{self.path}: cannot create the score cache: {parent} is a file; set "
                                 f"--cache-dir (env RANKLENS_CACHE_DIR) to a directory, or use --no-cache")
            if parent.exists():
                break
        if self.path.is_dir():
            raise CacheError(f"{self.path}: the score cache path is a directory; remove it or choose "
                             f"another --cache-dir")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CacheError(f"{self.path.parent}: cannot create the cache directory ({exc.strerror}); set "
                             f"--cache-dir (env RANKLENS_CACHE_DIR) to a writable directory, or use --no-cache"
                             ) from None
        conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        try:
            conn.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            _schema(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _get_scores(self, fp, keys):
        conn = self._conn()
        out: dict[tuple[bytes, bytes], float] = {}
        fid = _fingerprint_id(conn, fp)
        if fid is None:
            return out
        by_pair = {_pair_key(qh, th): (qh, th) for qh, th in keys}
        pks = list(by_pair)
        for i in range(0, len(pks), _CHUNK * 2):
            chunk = pks[i : i + _CHUNK * 2]
            marks = ",".join("?" * len(chunk))
            for k, s in conn.execute(
                f"SELECT k, score FROM pair_scores WHERE fid=? AND k IN ({marks})", [fid, *chunk]
            ):
                out[by_pair[bytes(k)]] = float(s)
        return out

    def _put_scores(self, fp, items):
        rows = [(_pair_key(qh, th), float(s)) for qh, th, s in items]
        if not rows:
            return
        conn = self._conn()
        with _transaction(conn):
            # looked up inside the write transaction: another process's clear cannot remove the
            # fingerprint between the lookup and the insert (ids are never reused: AUTOINCREMENT)
            conn.execute("INSERT OR IGNORE INTO fingerprints (fp) VALUES (?)", [fp])
            fid = _fingerprint_id(conn, fp)
            conn.executemany("INSERT OR REPLACE INTO pair_scores VALUES (?,?,?)", [(fid, k, v) for k, v in rows])

    def _info(self) -> dict[str, object]:
        """Size on disk and row counts per fingerprint."""
        conn = self._conn()
        size = sum(
            f.stat().st_size
            for f in self.path.parent.glob(self.path.name + "*")
            if f.is_file()
        )
        scores = dict(conn.execute("SELECT f.fp, COUNT(*) FROM pair_scores s JOIN fingerprints f ON f.id = s.fid "
                                   "GROUP BY f.fp").fetchall())
        vec = self.vector_store.info()
        return {"path": str(self.path), "bytes": size + vec["bytes"], "scores": scores, "vectors": vec["vectors"],
                "vector_store": vec["path"]}

    def get_scores(self, fp, keys):
        return self._guard(self._get_scores, fp, keys)

    def put_scores(self, fp, items):
        return self._guard(self._put_scores, fp, items)

    def get_vectors(self, fp, keys):
        return self.vector_store.get(fp, list(keys))

    def put_vectors(self, fp, items):
        items = list(items)
        if items:
            self.vector_store.put(fp, [th for th, _ in items], np.stack([np.asarray(v, np.float32) for _, v in items]))

    def info(self) -> dict[str, object]:
        """Size on disk and row counts per fingerprint."""
        return self._guard(self._info)

    def _guard(self, fn, *args):
        # SQLite answers "database is locked" without calling its busy handler in a few cases
        # (a reader meeting another process's WAL recovery or checkpoint), so a busy or locked
        # database is retried with backoff until ``timeout``; reads and idempotent INSERT OR
        # REPLACE transactions (rolled back on error) are safe to repeat.
        deadline = time.monotonic() + self.timeout
        wait = 0.01
        while True:
            try:
                return fn(*args)
            except sqlite3.OperationalError as exc:
                msg = str(exc)
                if ("locked" not in msg and "busy" not in msg) or time.monotonic() + wait > deadline:
                    raise self._error(exc) from None
                time.sleep(wait)
                wait = min(wait * 2, 0.5)
            except sqlite3.Error as exc:
                raise self._error(exc) from None
            except OSError as exc:
                if disk_problem(exc) is None:
                    raise
                raise self._error(exc) from None

    def remove_files(self) -> list[Path]:
        """Delete the cache file and its WAL/SHM companions (the fix for a corrupt cache)."""
        self.close()
        removed = self.vector_store.remove_files()
        for f in (self.path, self.path.with_name(self.path.name + "-wal"),
                  self.path.with_name(self.path.name + "-shm")):
            if f.is_file():
                f.unlink()
                removed.append(f)
        return removed

    def clear(self, fingerprint: str | None = None) -> int:
        """Delete all entries (or those of one fingerprint); returns rows deleted."""
        return self._guard(self._clear, fingerprint)

    def _clear(self, fingerprint: str | None = None) -> int:
        """Delete all entries (or those of one fingerprint); returns rows deleted."""
        conn = self._conn()
        with _transaction(conn):
            if fingerprint is None:
                n = conn.execute("DELETE FROM pair_scores").rowcount
                conn.execute("DELETE FROM fingerprints")
                conn.execute("DROP TABLE IF EXISTS vectors")  # vectors kept in SQLite by ranklens <= 0.x
            else:
                fid = _fingerprint_id(conn, fingerprint)
                n = 0 if fid is None else conn.execute("DELETE FROM pair_scores WHERE fid=?", [fid]).rowcount
                conn.execute("DELETE FROM fingerprints WHERE fp=?", [fingerprint])
        conn.execute("VACUUM")
        return n + self.vector_store.clear(fingerprint)


def _schema(conn: sqlite3.Connection) -> None:
    """Create the tables, and move a cache written before fingerprints were interned.

    Each fingerprint text is stored once (``fingerprints``) and scores refer to its integer id:
    a fingerprint of ~30-100 characters in every row was a third or more of each entry's bytes.
    Ids are never reused (``AUTOINCREMENT``), so a process holding an id across another's
    ``clear`` can only write rows nobody reads, never scores under another model's id."""
    conn.execute("CREATE TABLE IF NOT EXISTS fingerprints (id INTEGER PRIMARY KEY AUTOINCREMENT, "
                 "fp TEXT UNIQUE NOT NULL)")
    conn.execute("CREATE TABLE IF NOT EXISTS pair_scores (fid INTEGER NOT NULL, k BLOB NOT NULL, "
                 "score REAL NOT NULL, PRIMARY KEY (fid, k)) WITHOUT ROWID")
    legacy = "SELECT 1 FROM sqlite_master WHERE type='table' AND name='scores'"
    if conn.execute(legacy).fetchone() is None:
        return
    with _transaction(conn):
        if conn.execute(legacy).fetchone() is not None:  # not moved by another process meanwhile
            conn.execute("INSERT OR IGNORE INTO fingerprints (fp) SELECT DISTINCT fp FROM scores")
            conn.execute("INSERT OR REPLACE INTO pair_scores SELECT f.id, s.k, s.score FROM scores s "
                         "JOIN fingerprints f ON f.fp = s.fp")
            conn.execute("DROP TABLE scores")
            moved = True
        else:
            moved = False
    if moved:
        conn.execute("VACUUM")  # give the old table's pages back


def _fingerprint_id(conn: sqlite3.Connection, fp: str) -> int | None:
    row = conn.execute("SELECT id FROM fingerprints WHERE fp=?", [fp]).fetchone()
    return None if row is None else int(row[0])


class _transaction:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.conn.execute("COMMIT")
        elif self.conn.in_transaction:  # SQLite has already rolled back after SQLITE_FULL: a second
            self.conn.execute("ROLLBACK")  # ROLLBACK would hide that error behind "no transaction is active"
