"""Embeddings stored once: memory-mapped float32 shards, located by a small SQLite index.

The engine's on-disk cache (:class:`~ranklens.engine.cache.SQLiteCache`) keeps every embedding
here, under ``<cache dir>/vectors/``:

``index.sqlite``
    ``models(id, fp, dim)``: one row per embedder fingerprint;
    ``shards(model, shard, rows)``: the committed rows of each shard file;
    ``vecs(model, key, loc)``: text hash -> location, ``key`` = the first 16 bytes of the text's
    SHA-256 (:func:`ranklens.engine.cache.digest`), ``loc = shard << 32 | row``
    (``WITHOUT ROWID``: about 40 bytes per vector, against 1,536 for a 384-d float32 vector).
``<model id>/<shard>.f32``
    raw little-endian float32 rows, C order, no header: ``rows x dim``, at most
    ``shard_bytes`` (256 MiB) per file. Vectors are stored exactly as the embedder returned
    them (not normalised, bit-for-bit).

API (what the engine and a distributed dispatcher need; every method is safe to call from
several threads and processes):

* ``put(fp, hashes, vectors)``: store the ``(n, d)`` float32 rows under 32-byte text hashes;
  hashes already stored (or repeated in the call) are skipped.
* ``get(fp, hashes) -> {hash: vector}``: the stored ones (copies, read from the memory maps).
* ``missing(fp, hashes)``: the hashes not stored yet.
* ``view(fp, hashes, unit=False) -> StoredVectors``: a read-only ``(n, d)`` matrix over the
  shards in the order of ``hashes`` (every one must be stored), read block by block; with
  ``unit=True`` each row comes back L2-normalised (zero rows stay zero).
* ``shards(fp) -> [(path, rows, dim)]``: the shard files of one fingerprint.
* ``info()``, ``clear(fp=None)``, ``remove_files()``.

Writes: one ``BEGIN IMMEDIATE`` transaction per ``put`` serialises writers across processes;
inside it the rows are written at the shard's committed end (``os.pwrite``) and then the index
rows and the new row count are committed. A writer killed before its commit leaves bytes past
the committed end, which the next writer overwrites: the index never points at unwritten rows
(a power loss can still lose the file pages of the last commits; ``ranklens cache clear``
empties the store).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import CacheError, ValidationError

__all__ = ["StoredVectors", "VectorStore"]

_KEY = 16  # bytes of the SHA-256 text digest used as the index key
_CHUNK = 900  # host parameters per IN (...) query (SQLite's old limit is 999)
SHARD_BYTES = 256 << 20


@dataclass(frozen=True, eq=False)
class StoredVectors:
    """A read-only ``(n, d)`` float32 matrix whose rows live in memory-mapped shard files.

    Slicing (``v[a:b]``), integer-array indexing (``v[[3, 1]]``) and ``np.asarray(v)`` gather the
    rows into a new array; nothing else is held in memory. ``unit=True``: rows L2-normalised as
    they are read (zero rows stay zero), so cosine similarity is an inner product.
    """

    paths: tuple[Path, ...]
    dim: int
    shard: npt.NDArray[np.int32]
    row: npt.NDArray[np.int64]
    unit: bool = False

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.row.shape[0]), self.dim)

    ndim = 2
    dtype = np.dtype(np.float32)

    def __len__(self) -> int:
        return int(self.row.shape[0])

    def _maps(self) -> list[np.memmap | None]:
        maps: list[np.memmap | None] = []
        for path in self.paths:
            size = path.stat().st_size // (4 * self.dim)
            maps.append(np.memmap(path, dtype=np.float32, mode="r", shape=(size, self.dim)) if size else None)
        return maps

    def gather(self, positions: Any) -> npt.NDArray[np.float32]:
        """Rows ``positions`` (a slice or integer array) as a new float32 array."""
        sh, rw = self.shard[positions], self.row[positions]
        out = np.empty((len(rw), self.dim), np.float32)
        maps = self._maps()
        for s in np.unique(sh):
            sel = np.flatnonzero(sh == s)
            m = maps[int(s)]
            rows = rw[sel]
            if np.all(np.diff(rows) == 1):  # one contiguous run: a slice of the map
                out[sel] = m[int(rows[0]) : int(rows[-1]) + 1]
            else:
                out[sel] = m[rows]
        if self.unit:  # the same operations as ranklens.search.rows.l2_normalize: the same bits
            n = np.linalg.norm(out, axis=1, keepdims=True)
            np.divide(out, n, out=out, where=n > 0)
        return out

    def __getitem__(self, idx: Any) -> npt.NDArray[np.float32]:
        if isinstance(idx, (int, np.integer)):
            return self.gather(np.array([idx]))[0]
        if isinstance(idx, slice):
            return self.gather(idx)
        idx = np.asarray(idx)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        return self.gather(idx.astype(np.int64))

    def __array__(self, dtype: Any = None, copy: Any = None) -> npt.NDArray[Any]:
        out = self.gather(slice(None))
        return out if dtype is None else out.astype(dtype, copy=False)

    def normalized(self) -> StoredVectors:
        """The same rows, L2-normalised as they are read."""
        return StoredVectors(self.paths, self.dim, self.shard, self.row, unit=True)


class VectorStore:
    """Shard files + SQLite index under ``root`` (module docstring)."""

    def __init__(self, root: str | os.PathLike[str], *, timeout: float = 120.0,
                 shard_bytes: int = SHARD_BYTES) -> None:
        self.root = Path(root)
        self.timeout = timeout
        self.shard_bytes = int(shard_bytes)
        self._local = threading.local()

    @property
    def index_path(self) -> Path:
        return self.root / "index.sqlite"

    def __repr__(self) -> str:
        return f"VectorStore({str(self.root)!r})"

    # ------------------------------------------------------------------ connection
    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                self.root.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise CacheError(f"{self.root}: cannot create the vector store ({exc.strerror}); set --cache-dir "
                                 f"(env RANKLENS_CACHE_DIR) to a writable directory, or use --no-cache") from None
            conn = sqlite3.connect(self.index_path, timeout=self.timeout, isolation_level=None)
            try:
                conn.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("CREATE TABLE IF NOT EXISTS models (id INTEGER PRIMARY KEY, fp TEXT UNIQUE NOT NULL, "
                             "dim INTEGER NOT NULL)")
                conn.execute("CREATE TABLE IF NOT EXISTS shards (model INTEGER NOT NULL, shard INTEGER NOT NULL, "
                             "rows INTEGER NOT NULL, PRIMARY KEY (model, shard)) WITHOUT ROWID")
                conn.execute("CREATE TABLE IF NOT EXISTS vecs (model INTEGER NOT NULL, key BLOB NOT NULL, "
                             "loc INTEGER NOT NULL, PRIMARY KEY (model, key)) WITHOUT ROWID")
            except BaseException:
                conn.close()
                raise
            self._local.conn = conn
        return conn

    def _guard(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except (sqlite3.Error, OSError) as exc:
            from ..files import disk_problem, sqlite_disk_problem

            problem = sqlite_disk_problem(exc) or disk_problem(exc)
            if problem is not None:  # a full disk is not a corrupt store: clearing it would not help
                raise CacheError(f"{self.root}: the vector store cannot be written: {problem}; the store is intact "
                                 f"(do not clear it); or set --cache-dir (env RANKLENS_CACHE_DIR) to "
                                 f"another disk, or run with --no-cache") from None
            if not isinstance(exc, sqlite3.Error):
                raise
            msg = str(exc)
            fix = ("another process holds it too long; wait, or use --cache-dir for a separate cache"
                   if "locked" in msg or "busy" in msg else
                   "it is corrupt or unwritable; run `ranklens cache clear` (or delete the directory) and re-run")
            raise CacheError(f"{self.index_path}: vector store error ({msg}); {fix}") from None

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _model(self, conn: sqlite3.Connection, fp: str, dim: int | None = None) -> tuple[int, int] | None:
        row = conn.execute("SELECT id, dim FROM models WHERE fp=?", [fp]).fetchone()
        if row is None and dim is not None:
            cur = conn.execute("INSERT INTO models (fp, dim) VALUES (?, ?)", [fp, int(dim)])
            return int(cur.lastrowid), int(dim)  # type: ignore[arg-type]
        return (int(row[0]), int(row[1])) if row else None

    def _shard_path(self, model: int, shard: int) -> Path:
        return self.root / str(model) / f"{shard:06d}.f32"

    # ------------------------------------------------------------------ lookups
    def _locs(self, conn: sqlite3.Connection, model: int, keys: Sequence[bytes]) -> dict[bytes, int]:
        out: dict[bytes, int] = {}
        for i in range(0, len(keys), _CHUNK):
            chunk = keys[i : i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for k, loc in conn.execute(f"SELECT key, loc FROM vecs WHERE model=? AND key IN ({marks})",
                                       [model, *chunk]):
                out[bytes(k)] = int(loc)
        return out

    def missing(self, fp: str, hashes: Sequence[bytes]) -> list[bytes]:
        """The hashes (32-byte digests) with no stored vector under ``fp``."""
        return self._guard(self._missing, fp, hashes)

    def _missing(self, fp: str, hashes: Sequence[bytes]) -> list[bytes]:
        conn = self._conn()
        m = self._model(conn, fp)
        if m is None:
            return list(hashes)
        have = self._locs(conn, m[0], [h[:_KEY] for h in hashes])
        return [h for h in hashes if h[:_KEY] not in have]

    def view(self, fp: str, hashes: Sequence[bytes], *, unit: bool = False) -> StoredVectors:
        """A :class:`StoredVectors` over the stored vectors of ``hashes``, in their order."""
        return self._guard(self._view, fp, hashes, unit)

    def _view(self, fp: str, hashes: Sequence[bytes], unit: bool) -> StoredVectors:
        conn = self._conn()
        m = self._model(conn, fp)
        if m is None:
            raise ValidationError(f"vector store {self.root}: nothing stored for {fp}")
        keys = [h[:_KEY] for h in hashes]
        locs = self._locs(conn, m[0], list(dict.fromkeys(keys)))
        try:
            loc = np.fromiter((locs[k] for k in keys), dtype=np.int64, count=len(keys))
        except KeyError:
            raise ValidationError(f"vector store {self.root}: {sum(k not in locs for k in keys)} of "
                                  f"{len(keys)} vectors of {fp} are not stored") from None
        n_shards = int(loc.max() >> 32) + 1 if len(loc) else 0
        paths = tuple(self._shard_path(m[0], s) for s in range(n_shards))
        return StoredVectors(paths, m[1], (loc >> 32).astype(np.int32), loc & 0xFFFFFFFF, unit)

    def get(self, fp: str, hashes: Sequence[bytes]) -> dict[bytes, npt.NDArray[np.float32]]:
        """``{hash: vector}`` for the stored ones among ``hashes``."""
        return self._guard(self._get, fp, hashes)

    def _get(self, fp: str, hashes: Sequence[bytes]) -> dict[bytes, npt.NDArray[np.float32]]:
        conn = self._conn()
        m = self._model(conn, fp)
        if m is None or not hashes:
            return {}
        by_key = {h[:_KEY]: h for h in hashes}
        locs = self._locs(conn, m[0], list(by_key))
        if not locs:
            return {}
        keys = list(locs)
        loc = np.fromiter((locs[k] for k in keys), dtype=np.int64, count=len(keys))
        n_shards = int(loc.max() >> 32) + 1
        view = StoredVectors(tuple(self._shard_path(m[0], s) for s in range(n_shards)), m[1],
                             (loc >> 32).astype(np.int32), loc & 0xFFFFFFFF)
        rows = view.gather(slice(None))
        return {by_key[k]: rows[i] for i, k in enumerate(keys)}

    # ------------------------------------------------------------------ writes
    def put(self, fp: str, hashes: Sequence[bytes], vectors: npt.ArrayLike) -> int:
        """Store ``vectors[i]`` under ``hashes[i]``; returns the number of rows written."""
        arr = np.ascontiguousarray(vectors, dtype=np.float32)
        if arr.ndim != 2 or arr.shape[0] != len(hashes):
            raise ValidationError(f"put: {len(hashes)} hashes and vectors of shape {arr.shape}")
        if not len(hashes):
            return 0
        return self._guard(self._put, fp, list(hashes), arr)

    def _put(self, fp: str, hashes: list[bytes], arr: np.ndarray) -> int:
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            n = self._put_locked(conn, fp, hashes, arr)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # SQLite rolls back by itself on SQLITE_FULL: keep that error
                conn.execute("ROLLBACK")
            raise
        return n

    def _put_locked(self, conn: sqlite3.Connection, fp: str, hashes: list[bytes], arr: np.ndarray) -> int:
        model, dim = self._model(conn, fp, arr.shape[1])  # type: ignore[misc]
        if dim != arr.shape[1]:
            raise ValidationError(f"embedder {fp} returned {arr.shape[1]}-d vectors; the store holds {dim}-d "
                                  f"ones for it (clear them with `ranklens cache clear --fingerprint {fp}`)")
        keys = [h[:_KEY] for h in hashes]
        have = self._locs(conn, model, list(dict.fromkeys(keys)))
        take = []
        for i, k in enumerate(keys):  # new keys only, each once
            if k not in have:
                have[k] = -1
                take.append(i)
        if not take:
            return 0
        per_shard = max(1, self.shard_bytes // (4 * dim))
        row = conn.execute("SELECT shard, rows FROM shards WHERE model=? ORDER BY shard DESC LIMIT 1",
                           [model]).fetchone()
        shard, used = (int(row[0]), int(row[1])) if row else (0, 0)
        entries, done = [], 0
        while done < len(take):
            if used >= per_shard:
                shard, used = shard + 1, 0
            part = take[done : done + per_shard - used]
            path = self._shard_path(model, shard)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                os.pwrite(fd, arr[part].tobytes(), used * 4 * dim)
            finally:
                os.close(fd)
            entries += [(model, keys[i], (shard << 32) | (used + j)) for j, i in enumerate(part)]
            used += len(part)
            done += len(part)
            conn.execute("INSERT OR REPLACE INTO shards VALUES (?, ?, ?)", [model, shard, used])
        conn.executemany("INSERT INTO vecs VALUES (?, ?, ?)", entries)
        return len(entries)

    # ------------------------------------------------------------------ maintenance
    def shards(self, fp: str) -> list[tuple[Path, int, int]]:
        """``(path, committed rows, dim)`` of each shard file of ``fp``."""
        def run() -> list[tuple[Path, int, int]]:
            conn = self._conn()
            m = self._model(conn, fp)
            if m is None:
                return []
            rows = conn.execute("SELECT shard, rows FROM shards WHERE model=? ORDER BY shard", [m[0]]).fetchall()
            return [(self._shard_path(m[0], int(s)), int(r), m[1]) for s, r in rows]
        return self._guard(run)

    def info(self) -> dict[str, Any]:
        """Vectors per fingerprint and bytes on disk (shards and index)."""
        def run() -> dict[str, Any]:
            conn = self._conn()
            counts = dict(conn.execute("SELECT m.fp, COUNT(*) FROM vecs v JOIN models m ON m.id = v.model "
                                       "GROUP BY m.fp").fetchall())
            size = sum(f.stat().st_size for f in self.root.rglob("*") if f.is_file())
            return {"path": str(self.root), "bytes": size, "vectors": counts}
        return self._guard(run)

    def clear(self, fp: str | None = None) -> int:
        """Delete every vector (or those of ``fp``) and their shard files; returns vectors deleted."""
        def run() -> int:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                ids = [r[0] for r in (conn.execute("SELECT id FROM models") if fp is None else
                                      conn.execute("SELECT id FROM models WHERE fp=?", [fp]))]
                n = 0
                for i in ids:
                    n += conn.execute("DELETE FROM vecs WHERE model=?", [i]).rowcount
                    conn.execute("DELETE FROM shards WHERE model=?", [i])
                    conn.execute("DELETE FROM models WHERE id=?", [i])
                    shutil.rmtree(self.root / str(i), ignore_errors=True)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("VACUUM")
            return n
        return self._guard(run)

    def remove_files(self) -> list[Path]:
        """Delete the whole store directory (the fix for a corrupt index)."""
        self.close()
        if self.root.is_dir():
            shutil.rmtree(self.root)
            return [self.root]
        return []
