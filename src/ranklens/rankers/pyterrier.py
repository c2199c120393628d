"""A PyTerrier re-ranking transformer as a ranker (optional ``[pyterrier]`` extra)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._hashing import FINGERPRINT_WARNINGS, remember_fingerprint, sha256_json
from ..errors import RanklensWarning, ValidationError
from .base import BaseRanker

__all__ = ["PyTerrierRanker", "pairs_to_frame", "transformer_params"]

_SIMPLE = (str, int, float, bool, type(None))


def _param_value(value: Any, depth: int) -> Any:
    if isinstance(value, _SIMPLE):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, _SIMPLE) for v in value):
        return list(value)
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, _SIMPLE) for k, v in value.items()):
        return dict(sorted(value.items()))
    if depth < 3 and hasattr(value, "transform"):  # a nested transformer (pipelines)
        return transformer_params(value, depth + 1)
    if depth < 3 and isinstance(value, (list, tuple)) and all(hasattr(v, "transform") for v in value):
        return [transformer_params(v, depth + 1) for v in value]
    return None


def transformer_params(transformer: Any, depth: int = 0) -> dict[str, Any]:
    """The class and the simple parameters (str/number/bool, lists and dicts of them, nested
    transformers) of a PyTerrier-style transformer: what its fingerprint hashes."""
    cls = type(transformer)
    state = getattr(transformer, "__dict__", {}) or {}
    params = {}
    for key, value in sorted(state.items()):
        if key.startswith("_"):
            continue
        v = _param_value(value, depth)
        if v is not None or value is None:
            params[key] = v
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "params": params}


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
    testable without Java.

    Fingerprint: the transformer's class and parameters (:func:`transformer_params`: its simple
    attributes, nested transformers included), ``name_`` and the user's ``version``. Weights
    loaded behind a parameter that does not change (a fixed path retrained in place) are not
    seen: bump ``version`` when the model changes. A transformer with no readable parameter and
    no ``name_`` gets a warning (and ``fingerprint_warning``), as two such transformers of one
    class would share cached scores.
    """

    transformer: Any
    name_: str | None = None
    version: str = "1"
    batch_size: int = 64

    def __post_init__(self) -> None:
        info = transformer_params(self.transformer)
        self.fingerprint_warning: str | None = None
        if not info["params"] and self.name_ is None:
            self.fingerprint_warning = (
                f"PyTerrierRanker: {info['class']} exposes no parameters to fingerprint; cached scores are "
                f"keyed by its class and version={self.version!r} only -- pass name_=... and bump version "
                f"whenever the model changes")
            FINGERPRINT_WARNINGS.setdefault(info["class"], self.fingerprint_warning)
            warnings.warn(self.fingerprint_warning, RanklensWarning, stacklevel=3)

    @property
    def fingerprint(self) -> str:
        payload = {"transformer": transformer_params(self.transformer), "name": self.name_,
                   "version": self.version}
        fp = f"PyTerrierRanker@{sha256_json(payload)[:16]}"
        remember_fingerprint(fp, payload)
        return fp

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
