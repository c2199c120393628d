"""A PyTerrier re-ranking transformer as a ranker (optional ``[pyterrier]`` extra)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._hashing import sha256_json
from ..errors import ValidationError
from .base import BaseRanker

__all__ = ["PyTerrierRanker", "pairs_to_frame"]


def pairs_to_frame(queries: list[str], texts: list[str]) -> Any:
    """The PyTerrier re-ranking input: one row per pair, columns ``qid``, ``query``, ``docno``,
    ``text``. Each distinct query gets one ``qid`` (``q0``, ``q1``, ...) and each pair its own
    ``docno`` (``d<position>``), so results can be aligned back whatever order they come in."""
    import pandas as pd

    qids: dict[str, str] = {}
    for q in queries:
        qids.setdefault(q, f"q{len(qids)}")
    return pd.DataFrame({
        "qid": [qids[q] for q in queries],
        "query": list(queries),
        "docno": [f"d{i}" for i in range(len(texts))],
        "text": list(texts),
    })


@dataclass(kw_only=True)
class PyTerrierRanker(BaseRanker):
    """Score pairs with any object having PyTerrier's ``transform(df) -> df`` (a re-ranker that
    reads ``query`` and ``text`` and writes ``score``).

    PyTerrier itself is not imported here: any object with that method works, so the adapter is
    testable without Java. ``name`` and ``version`` enter the fingerprint (a transformer has no
    stable identity of its own; default: its ``repr``) — change them when the model changes.
    """

    transformer: Any
    name_: str | None = None
    version: str = "1"
    batch_size: int = 64

    @property
    def fingerprint(self) -> str:
        ident = self.name_ or repr(self.transformer)
        return f"PyTerrierRanker@{sha256_json({'t': ident, 'v': self.version})[:16]}"

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        if not hasattr(self.transformer, "transform"):
            raise ValidationError(f"PyTerrierRanker: {type(self.transformer).__name__} has no .transform(df)")
        frame = pairs_to_frame(queries, texts)
        out = self.transformer.transform(frame.copy())
        missing = {"docno", "score"} - set(getattr(out, "columns", []))
        if missing:
            raise ValidationError(f"PyTerrierRanker: transformer output lacks column(s) {sorted(missing)}")
        by_doc = dict(zip(out["docno"].astype(str), out["score"].astype(float)))
        absent = [d for d in frame["docno"] if d not in by_doc]
        if absent:
            raise ValidationError(f"PyTerrierRanker: transformer dropped {len(absent)} of {len(frame)} pairs "
                                  "(a re-ranker must return a score for every input row)")
        return np.array([by_doc[d] for d in frame["docno"]], dtype=np.float64)
