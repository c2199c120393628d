"""On-disk, memory-mapped embedding store: one ``.npy`` per (embedder fingerprint, corpus).

Vectors are computed through :mod:`ranklens.engine` (so the engine's SQLite cache, batching and
progress apply) in chunks of ``chunk_size`` texts; after each chunk the vectors are flushed to a
``.npy`` memmap and a small JSON progress file records how many rows are done, so a killed run
resumes where it stopped. Every analysis and every pair of embedders then reads the same
memory-mapped array instead of re-encoding or holding copies in memory.

Layout under ``<cache dir>/n2o-store/``: ``<fingerprint>-<corpus hash[:16]>.npy`` and
``....json`` (``{"n": rows, "dim": d, "done": rows finished, "fingerprint": ..., "corpus": ...}``).
Two processes filling the same entry at once are not coordinated (both write the same values).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._hashing import sha256_texts
from ..engine import ScoringEngine, default_cache_dir, encode_texts
from ..errors import ValidationError

__all__ = ["EmbeddingStore"]


class EmbeddingStore:
    """Memory-mapped embeddings per (embedder, corpus), filled through the engine.

    Args:
        directory: where the ``.npy`` files live (default ``<cache dir>/n2o-store``).
        chunk_size: texts encoded (and flushed) per step.
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None, *, chunk_size: int = 4096) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir() / "n2o-store"
        if chunk_size < 1:
            raise ValidationError(f"chunk_size must be >= 1, got {chunk_size}")
        self.chunk_size = chunk_size

    def __repr__(self) -> str:
        return f"EmbeddingStore({str(self.directory)!r})"

    def paths(self, fingerprint: str, corpus_hash: str) -> tuple[Path, Path]:
        """(``.npy``, ``.json``) paths of one entry."""
        safe = re.sub(r"[^A-Za-z0-9_.@-]", "_", fingerprint)
        stem = f"{safe}-{corpus_hash[:16]}"
        return self.directory / f"{stem}.npy", self.directory / f"{stem}.json"

    def get(
        self,
        embedder: Any,
        texts: Sequence[str],
        *,
        engine: ScoringEngine | None = None,
        corpus_hash: str | None = None,
        desc: str | None = None,
    ) -> np.memmap:
        """Embeddings of ``texts`` (read-only memmap ``(n, d)`` float32), computing missing rows."""
        fp = embedder.fingerprint
        h = corpus_hash or sha256_texts(texts)
        npy, meta_path = self.paths(fp, h)
        n = len(texts)
        meta: dict[str, Any] = {}
        if meta_path.is_file():
            try:
                meta = json.loads(meta_path.read_text())
            except json.JSONDecodeError:
                meta = {}
        if meta.get("n") == n and meta.get("done") == n and npy.is_file():
            return np.load(npy, mmap_mode="r")
        self.directory.mkdir(parents=True, exist_ok=True)
        done = int(meta.get("done", 0)) if meta.get("n") == n and npy.is_file() else 0
        arr: np.memmap | None = np.load(npy, mmap_mode="r+") if done else None
        label = desc or getattr(embedder, "name", fp)
        for start in range(done, n, self.chunk_size):
            chunk = list(texts[start : start + self.chunk_size])
            vecs = encode_texts(embedder, chunk, engine=engine, desc=f"{label} [{start}/{n}]")
            if arr is None:
                arr = np.lib.format.open_memmap(npy, mode="w+", dtype=np.float32, shape=(n, vecs.shape[1]))
            if vecs.shape[1] != arr.shape[1]:
                raise ValidationError(
                    f"embedder {fp} changed dimension ({arr.shape[1]} -> {vecs.shape[1]}); "
                    f"delete {npy} and re-run"
                )
            arr[start : start + len(chunk)] = vecs
            arr.flush()
            tmp = meta_path.with_suffix(".json.tmp")
            tmp.write_text(json.dumps({"n": n, "dim": int(arr.shape[1]), "done": start + len(chunk),
                                       "fingerprint": fp, "corpus": h}))
            os.replace(tmp, meta_path)
        if arr is None:  # n == 0
            raise ValidationError("cannot store embeddings of an empty corpus")
        del arr
        return np.load(npy, mmap_mode="r")
