"""Per-model δ (ABNIRML §3.3): the score difference below which a ranker is said to tie.

Calibration re-ranks candidate documents with the model and takes, per query, the differences
between adjacent scores among the top ``k`` (default 10); δ is the median of all those
differences (``mode="calibrate"``) or another percentile (``mode="percentile"``). δ may also be
given explicitly.

* **the paper's procedure** (``run=`` a TREC run file): "re-ranking the official set from TREC
  DL 2019": every candidate of the run (whose text the calibration collection holds) is
  re-ranked; the share of candidates without text is reported as a warning.
* **a bare collection** (no run): the first stage is BM25 (:class:`ranklens.rankers.BM25Ranker`
  defaults) over the collection, top ``depth`` documents per query, then re-ranked.

:attr:`DeltaInfo.describe` says which was used.

All model calls go through :mod:`ranklens.engine`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
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
    "is_calibration_run",
    "delta_specs",
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
        max_queries: calibration queries (sub-sampled with ``seed``); ``None`` = all (the paper).
        seed: sub-sampling seed.
        run: a TREC run whose candidates are re-ranked (the paper's procedure) instead of BM25.
    """

    mode: str = "calibrate"
    value: float | None = None
    percentile: float = 50.0
    k: int = 10
    depth: int = 20
    max_queries: int | None = None
    seed: int = 0
    run: str | None = None

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
        first = f"re-ranked run {self.run}" if self.run else f"re-ranked BM25 top-{self.depth}"
        queries = "all queries" if self.max_queries is None else f"{self.max_queries} queries"
        return f"p{p:g} of adjacent top-{self.k} diffs ({first}, {queries})"


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
    collection: str = ""
    warnings: tuple[str, ...] = ()

    @property
    def describe(self) -> str:
        where = f" on {self.collection}" if self.collection and self.spec.mode != "explicit" else ""
        return self.spec.describe() + where

    def as_dict(self) -> dict[str, Any]:
        return {"delta": float(self.delta), "mode": self.spec.mode, "percentile": self.spec.percentile,
                "k": self.spec.k, "depth": self.spec.depth, "max_queries": self.spec.max_queries,
                "run": self.spec.run or "", "calibration_collection": self.collection,
                "n_diffs": int(len(self.diffs)), "describe": self.describe}


def delta_specs(items: Sequence[str], labels: Sequence[str], **calibration: Any) -> dict[str, DeltaSpec]:
    """``delta`` parameter values -> ``{label: DeltaSpec}`` for every model label.

    ``VALUE`` (at most one: ``calibrate``, ``pNN`` or a number) applies to every model without a
    ``LABEL=VALUE`` of its own; without any, δ is calibrated. Calibrated specs get the
    ``calibration`` settings (``max_queries``, ``depth``, ``seed``, ``run``).
    """
    from dataclasses import replace

    default: str | None = None
    per: dict[str, str] = {}
    for it in items:
        label, sep, value = str(it).partition("=")
        if not sep:
            if default is not None:
                raise ValidationError(f"delta given twice for every model ({default!r} and {it!r}); "
                                      "use LABEL=VALUE for one model")
            default = str(it)
            continue
        label, value = label.strip(), value.strip()
        if label not in labels:
            raise ValidationError(f"delta {it!r}: no model is named {label!r} (models: {', '.join(labels)})")
        if label in per:
            raise ValidationError(f"delta for {label!r} given twice ({per[label]!r}, {value!r})")
        per[label] = value
    out = {}
    for label in labels:
        spec = parse_delta(per.get(label, default if default is not None else "calibrate"))
        out[label] = spec if spec.mode == "explicit" else replace(spec, **calibration)
    return out


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


def _run_candidates(collection: Any, qids: list[str], run_path: str) -> tuple[dict[str, list[str]], str | None]:
    """The run's candidates per query that the collection has text for, and a warning when
    some are missing."""
    from ..io import read_run

    run = read_run(run_path)
    run = run[run["query_id"].astype(str).isin(set(qids))]
    out: dict[str, list[str]] = {q: [] for q in qids}
    total = missing = 0
    for q, d in zip(run["query_id"].astype(str), run["doc_id"].astype(str)):
        total += 1
        if d in collection.docs:
            out[q].append(d)
        else:
            missing += 1
    if total == 0:
        raise ValidationError(f"calibration run {run_path}: no candidates for the queries of {collection.name!r}")
    why = (f"calibration run {run_path}: {missing} of {total} candidates have no text in {collection.name!r} "
           "and were left out" if missing else None)
    return out, why


def _calibration_queries(collection: Any, spec: DeltaSpec) -> list[str]:
    qids = sorted(collection.queries_dict())
    if spec.max_queries is not None and len(qids) > spec.max_queries:
        rng = np.random.default_rng(spec.seed)
        qids = sorted(qids[i] for i in rng.choice(len(qids), spec.max_queries, replace=False))
    return qids


def is_calibration_run(calibrate_on: str) -> bool:
    """Whether ``calibrate_on`` names a TREC run (an existing file; anything else is a collection
    spec): the one rule the driver and ``Params.check`` share."""
    from pathlib import Path

    return bool(calibrate_on) and Path(calibrate_on).is_file()


def calibration_diffs(
    ranker: Any, collection: Any, *, spec: DeltaSpec | None = None, engine: Any = None,
) -> npt.NDArray[np.float64]:
    """Adjacent score differences among each query's top ``k`` after re-ranking the candidates
    (the run's, or BM25's top ``depth``) with ``ranker`` (all queries pooled)."""
    return _calibration(ranker, collection, spec or DeltaSpec(), engine)[0]


def _calibration(ranker: Any, collection: Any, spec: DeltaSpec, engine: Any) -> tuple[np.ndarray, tuple[str, ...]]:
    from ..engine import score_pairs

    qids = _calibration_queries(collection, spec)
    warn: tuple[str, ...] = ()
    if spec.run:
        top, why = _run_candidates(collection, qids, spec.run)
        warn = (why,) if why else ()
    else:
        top = _bm25_topk(collection, qids, spec.depth)
    queries = collection.queries_dict()
    qs, ts, owner = [], [], []
    for qid in qids:
        for d in top.get(qid, []):
            qs.append(queries[qid])
            ts.append(collection.docs[d])
            owner.append(qid)
    scores = score_pairs(ranker, qs, ts, engine=engine) if qs else np.zeros(0)
    diffs: list[float] = []
    owner_arr = np.array(owner, dtype=object)
    for qid in qids:
        s = np.sort(scores[owner_arr == qid])[::-1][: spec.k]
        if len(s) > 1:
            diffs.extend((s[:-1] - s[1:]).tolist())
    return np.asarray(diffs, dtype=np.float64), warn


def _why_no_diffs(collection: Any, spec: DeltaSpec) -> str:
    """Why calibration found no two candidates of one query to compare."""
    if spec.run:
        return "too few of the run's candidates per query"
    top = _bm25_topk(collection, _calibration_queries(collection, spec), spec.depth)
    if not any(top.values()):
        return ("the first-stage BM25 scores are constant: every calibration candidate scored 0, i.e. no query "
                "term has idf > 0 in the collection (each is unknown or in too many documents)")
    return "too few retrieved documents: at most one candidate with a BM25 score > 0 per query"


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
        raise ValidationError("delta calibration needs a collection (--collection or --calibrate-on, "
                              "or --delta NUMBER)")
    diffs, warn = _calibration(ranker, collection, spec, engine)
    if len(diffs) == 0:
        raise ValidationError(f"delta calibration on {collection.name!r} produced no score differences "
                              f"({_why_no_diffs(collection, spec)}); give --delta NUMBER")
    if not diffs.any():
        warn = (*warn, f"delta calibration on {getattr(collection, 'name', '')!r}: all {len(diffs)} score "
                "differences are 0: the model's scores are constant over the calibration ranking")
    p = 50.0 if spec.mode == "calibrate" else spec.percentile
    return DeltaInfo(float(np.percentile(diffs, p)), spec, diffs, str(getattr(collection, "name", "")), warn)
