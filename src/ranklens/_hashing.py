"""Stable SHA-256 digests of texts, files and frames for cache keys and provenance."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd


def sha256_text(text: str) -> str:
    """Hex SHA-256 of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_texts(texts: Iterable[str]) -> str:
    """One digest for a sequence of texts (order matters; length-prefixed, so no ambiguity)."""
    h = hashlib.sha256()
    for t in texts:
        b = t.encode("utf-8")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


def sha256_file(path: str | Path, *, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes; ``"stream"`` for ``-`` and anything that is not a regular file
    (a pipe or FIFO can be read once only: hashing it would take its bytes from the reader)."""
    import os
    import stat

    if str(path) == "-" or not stat.S_ISREG(os.stat(path).st_mode):
        return "stream"
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def sha256_json(obj: Any) -> str:
    """Digest of a JSON-serialisable object with sorted keys."""
    return sha256_text(json.dumps(obj, sort_keys=True, default=str, separators=(",", ":")))


def sha256_frame(frame: pd.DataFrame, columns: list[str] | None = None) -> str:
    """Order-independent digest of a DataFrame's rows over ``columns`` (all by default)."""
    cols = list(columns) if columns is not None else list(frame.columns)
    if frame.empty:
        return sha256_json({"columns": cols, "rows": 0})
    # np.sort copies: under pandas 3 copy-on-write the hashed array is read-only
    hashed = np.sort(pd.util.hash_pandas_object(frame[cols].astype(str), index=False).to_numpy())
    h = hashlib.sha256(json.dumps(cols).encode())
    h.update(hashed.tobytes())
    return h.hexdigest()


#: fingerprint -> the readable class and parameters it hashes (model path, precision, device,
#: k1, b ...), so provenance can show them next to each component's fingerprint.
FINGERPRINT_PARAMS: dict[str, Any] = {}


def remember_fingerprint(fp: str, payload: Any) -> None:
    """Record the readable payload behind fingerprint ``fp`` (JSON-safe: odd values as str)."""
    if fp not in FINGERPRINT_PARAMS:
        FINGERPRINT_PARAMS[fp] = json.loads(json.dumps(payload, sort_keys=True, default=str))


#: component spec -> why no fingerprint could be made from its code (a ``callable:`` without
#: ``@VERSION`` whose code cannot be hashed); shown with the results that use it.
FINGERPRINT_WARNINGS: dict[str, str] = {}
