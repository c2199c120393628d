"""Per-model δ (ABNIRML §3.3): the score difference below which a ranker is said to tie.

Calibration re-ranks a dataset's top results with the model and takes, per query, the
differences between adjacent scores among the top ``k`` (default 10); δ is the median of all
those differences (``mode="calibrate"``) or another percentile (``mode="percentile"``). δ may
also be given explicitly. The first stage is BM25 (:class:`ranklens.rankers.BM25Ranker` defaults, via
:func:`ranklens.rankers.retrieval.retrieve`) over the collection, top ``depth`` documents per
query.

All model calls go through :mod:`ranklens.engine`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ValidationError

__all__ = [
    "DeltaInfo",
    "DeltaSpec",
    "calibrate_delta",
    "calibration_diffs",
    "collection_fingerprint",
    "parse_delta",
]


@dataclass(frozen=True)
class DeltaSpec:
    """How δ is chosen.

    Attributes:
        mode: ``"calibrate"`` (median of calibration diffs), ``"percentile"`` (``percentile``-th
            percentile of them) or ``"explicit"`` (``value``).
        value: δ for ``explicit``.
        percentile: for ``percentile`` (0-100).
        k: top-k of the re-ranking whose adjacent differences are used.
        depth: first-stage depth re-ranked per query.
        max_queries: calibration queries (sub-sampled with ``seed``); ``None`` = all.
        seed: sub-sampling seed.
    """

    mode: str = "calibrate"
    value: float | None = None
    percentile: float = 50.0
    k: int = 10
    depth: int = 20
    max_queries: int | None = 50
    seed: int = 0

    def __post_init__(self) -> None:
        if self.mode not in ("calibrate", "percentile", "explicit"):
            raise ValidationError(f"delta mode must be calibrate, percentile or explicit, got {self.mode!r}")
        if self.mode == "explicit" and (self.value is None or self.value < 0):
            raise ValidationError(f"explicit delta must be a number >= 0, got {self.value!r}")
        if not 0 <= self.percentile <= 100:
            raise ValidationError(f"delta percentile must be in [0, 100], got {self.percentile}")

    def describe(self) -> str:
        if self.mode == "explicit":
            return f"explicit {self.value}"
        p = 50.0 if self.mode == "calibrate" else self.percentile
        return f"p{p:g} of adjacent top-{self.k} diffs (BM25 top-{self.depth}, {self.max_queries} queries)"


def parse_delta(text: str | float | DeltaSpec | None) -> DeltaSpec:
    """``"calibrate"`` | ``"p25"`` / ``"percentile:25"`` | ``"0.1"`` | a number -> spec."""
    if isinstance(text, DeltaSpec):
        return text
    if text is None:
        return DeltaSpec()
    if isinstance(text, (int, float)):
        return DeltaSpec(mode="explicit", value=float(text))
    t = str(text).strip().lower()
    if t in ("calibrate", "median", "auto"):
        return DeltaSpec()
    m = re.fullmatch(r"(?:p|percentile:?)(\d+(?:\.\d*)?)", t)
    if m:
        return DeltaSpec(mode="percentile", percentile=float(m.group(1)))
    try:
        return DeltaSpec(mode="explicit", value=float(t))
    except ValueError:
        raise ValidationError(
            f"cannot read delta {text!r}: use 'calibrate', a percentile like 'p25', or a number"
        ) from None


@dataclass(frozen=True)
class DeltaInfo:
    """The δ of one model and how it was obtained."""

    delta: float
    spec: DeltaSpec
    diffs: npt.NDArray[np.float64]

    def as_dict(self) -> dict[str, Any]:
        return {"delta": float(self.delta), "mode": self.spec.mode, "percentile": self.spec.percentile,
                "k": self.spec.k, "depth": self.spec.depth, "max_queries": self.spec.max_queries,
                "n_diffs": int(len(self.diffs)), "describe": self.spec.describe()}


def collection_fingerprint(collection: Any) -> dict[str, str] | None:
    """Name and content hash of the collection δ is calibrated on (``None`` without one).

    The hash covers what calibration reads: every document (id and text) and every query (id and
    text), each sorted by id, so the same collection loaded twice has the same hash and a
    collection with one edited document does not.
    """
    if collection is None:
        return None
    from .._hashing import sha256_texts

    def texts():
        docs = collection.docs
        for did in sorted(docs):
            yield did
            yield docs[did]
        yield "\x00queries"
        for qid, text in sorted(collection.queries_dict().items()):
            yield qid
            yield text

    return {"name": str(getattr(collection, "name", "")), "sha256": sha256_texts(texts())}


def _bm25_topk(collection: Any, qids: list[str], depth: int) -> dict[str, list[str]]:
    """First stage: BM25 (:class:`~ranklens.rankers.BM25Ranker` defaults) top ``depth``."""
    from ..rankers import BM25Ranker
    from ..rankers.retrieval import retrieve

    qdf = collection.queries[collection.queries["query_id"].astype(str).isin(set(qids))]
    run = retrieve(BM25Ranker(), qdf, collection.docs, k=depth)
    run = run[run["score"] > 0]
    out = {q: [] for q in qids}
    for q, d in zip(run["query_id"].astype(str), run["doc_id"].astype(str)):
        out[q].append(d)
    return out


def calibration_diffs(
    ranker: Any, collection: Any, *, spec: DeltaSpec | None = None, engine: Any = None,
) -> npt.NDArray[np.float64]:
    """Adjacent score differences among each query's top ``k`` after re-ranking the BM25
    top ``depth`` with ``ranker`` (all queries pooled)."""
    from ..engine import score_pairs

    spec = spec or DeltaSpec()
    qids = sorted(collection.queries_dict())
    if spec.max_queries is not None and len(qids) > spec.max_queries:
        rng = np.random.default_rng(spec.seed)
        qids = sorted(qids[i] for i in rng.choice(len(qids), spec.max_queries, replace=False))
    top = _bm25_topk(collection, qids, spec.depth)
    queries = collection.queries_dict()
    qs, ts, owner = [], [], []
    for qid in qids:
        for d in top[qid]:
            qs.append(queries[qid])
            ts.append(collection.docs[d])
            owner.append(qid)
    scores = score_pairs(ranker, qs, ts, engine=engine)
    diffs: list[float] = []
    owner_arr = np.array(owner, dtype=object)
    for qid in qids:
        s = np.sort(scores[owner_arr == qid])[::-1][: spec.k]
        if len(s) > 1:
            diffs.extend((s[:-1] - s[1:]).tolist())
    return np.asarray(diffs, dtype=np.float64)


def calibrate_delta(
    ranker: Any, collection: Any = None, *, spec: DeltaSpec | str | float | None = None,
    engine: Any = None,
) -> DeltaInfo:
    """δ of ``ranker`` per ``spec`` (explicit δ needs no collection).

    Raises:
        ValidationError: when calibration is requested without a collection or yields no
            differences.
    """
    spec = parse_delta(spec)
    if spec.mode == "explicit":
        return DeltaInfo(float(spec.value or 0.0), spec, np.zeros(0))
    if collection is None:
        raise ValidationError("delta calibration needs a collection (--collection, or --delta NUMBER)")
    diffs = calibration_diffs(ranker, collection, spec=spec, engine=engine)
    if len(diffs) == 0:
        raise ValidationError(f"delta calibration on {collection.name!r} produced no score differences "
                              "(too few retrieved documents); give --delta NUMBER")
    p = 50.0 if spec.mode == "calibrate" else spec.percentile
    return DeltaInfo(float(np.percentile(diffs, p)), spec, diffs)
