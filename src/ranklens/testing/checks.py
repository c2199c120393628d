"""Conformance checks for rankers and embedders (in the spirit of sklearn's ``check_estimator``).

Use them in a plug-in's test suite::

    from ranklens.testing import check_ranker
    def test_my_ranker():
        check_ranker(MyRanker(...))

Each check raises :class:`ConformanceError` (an ``AssertionError``) naming the failed property
and returns the names of the checks that ran.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import RanklensError

__all__ = ["ConformanceError", "check_embedder", "check_ranker"]

DEFAULT_QUERIES = ("cats and felines", "python programming language", "cats and felines", "weather")
DEFAULT_TEXTS = (
    "Cats are small domesticated felines. Cats purr when content.",
    "Python is a programming language. It is popular for data science.",
    "A dog is a loyal companion. Dogs bark at strangers.",
    "",
)


class ConformanceError(RanklensError, AssertionError):
    """A component breaks the Ranker/Embedder contract."""


def _fail(component: Any, what: str) -> ConformanceError:
    return ConformanceError(f"{type(component).__name__}: {what}")


def _fingerprint_checks(component: Any, vary: dict[str, Any] | None) -> list[str]:
    done = []
    fp = component.fingerprint
    if not isinstance(fp, str) or not fp:
        raise _fail(component, f"fingerprint must be a non-empty str, got {fp!r}")
    if component.fingerprint != fp:
        raise _fail(component, "fingerprint changed between two reads")
    done.append("fingerprint_stable")
    if dataclasses.is_dataclass(component):
        changes = vary if vary is not None else _auto_vary(component)
        if changes:
            # compare two fresh copies (fitted state is reset by replace for both)
            same = dataclasses.replace(component)
            other = dataclasses.replace(component, **changes)
            if other.fingerprint == same.fingerprint:
                raise _fail(component, f"fingerprint does not change when {changes} (scores could)")
            if dataclasses.replace(component).fingerprint != same.fingerprint:
                raise _fail(component, "two identical copies have different fingerprints")
            done.append("fingerprint_tracks_parameters")
    return done


def _auto_vary(component: Any) -> dict[str, Any]:
    for f in dataclasses.fields(component):
        if not f.init or not f.compare or f.name.startswith("_") or f.name in ("batch_size", "device"):
            continue
        v = getattr(component, f.name)
        if isinstance(v, bool):
            return {f.name: not v}
        if isinstance(v, float):
            return {f.name: v * 0.5 if v else 0.5}
    return {}


def check_ranker(ranker: Any, *, queries: Sequence[str] = DEFAULT_QUERIES,
                 texts: Sequence[str] = DEFAULT_TEXTS, atol: float = 1e-5,
                 vary: dict[str, Any] | None = None) -> list[str]:
    """Check that ``ranker`` follows the :class:`~ranklens.rankers.Ranker` contract.

    Checks: protocol isinstance; fingerprint stable and (for dataclasses) sensitive to a
    parameter (``vary``, default: the first bool/float field); one finite float64 per pair;
    deterministic; batch-independent (pairs scored one by one match the batch within ``atol``);
    empty input gives an empty array; inputs not mutated; mismatched lengths rejected.
    """
    from ..rankers.base import Ranker

    done: list[str] = []
    if not isinstance(ranker, Ranker):
        raise _fail(ranker, "is not a ranklens.rankers.Ranker (needs .fingerprint and .score)")
    done.append("protocol")
    done += _fingerprint_checks(ranker, vary)
    qs, ts = list(queries), list(texts)
    q0, t0 = copy.deepcopy(qs), copy.deepcopy(ts)
    out = ranker.score(qs, ts)
    if qs != q0 or ts != t0:
        raise _fail(ranker, "score() mutated its inputs")
    done.append("no_input_mutation")
    if not isinstance(out, np.ndarray) or out.dtype != np.float64 or out.shape != (len(qs),):
        raise _fail(ranker, f"score() must return float64 of shape ({len(qs)},), got "
                            f"{getattr(out, 'dtype', type(out))} {getattr(out, 'shape', '')}")
    if not np.all(np.isfinite(out)):
        raise _fail(ranker, f"score() returned non-finite values {out}")
    done.append("shape_dtype_finite")
    again = ranker.score(qs, ts)
    if not np.allclose(out, again, rtol=0, atol=atol):
        raise _fail(ranker, f"score() is not deterministic: {out} vs {again}")
    done.append("deterministic")
    single = np.array([ranker.score([q], [t])[0] for q, t in zip(qs, ts)])
    if not np.allclose(out, single, rtol=1e-4, atol=atol):
        raise _fail(ranker, f"scores depend on the batch: batch {out} vs one by one {single}")
    done.append("batch_independent")
    empty = ranker.score([], [])
    if np.asarray(empty).shape != (0,):
        raise _fail(ranker, f"score([], []) must have shape (0,), got {np.asarray(empty).shape}")
    done.append("empty_input")
    try:
        ranker.score(qs[:1], ts[:2])
    except (ValueError, RanklensError):
        done.append("rejects_misaligned")
    else:
        raise _fail(ranker, "score() accepted queries and texts of different lengths")
    return done


def check_embedder(embedder: Any, *, texts: Sequence[str] = DEFAULT_TEXTS, atol: float = 1e-5,
                   vary: dict[str, Any] | None = None) -> list[str]:
    """Check that ``embedder`` follows the :class:`~ranklens.embedders.Embedder` contract.

    Checks: protocol isinstance; fingerprint stable and parameter-sensitive; float32 ``(n, d)``
    with one ``d`` across calls, finite; deterministic; batch-independent within ``atol``; empty
    input gives ``(0, d)`` (or ``(0, 0)``); inputs not mutated.
    """
    from ..embedders.base import Embedder

    done: list[str] = []
    if not isinstance(embedder, Embedder):
        raise _fail(embedder, "is not a ranklens.embedders.Embedder (needs .fingerprint and .encode)")
    done.append("protocol")
    done += _fingerprint_checks(embedder, vary)
    ts = list(texts)
    t0 = copy.deepcopy(ts)
    out = embedder.encode(ts)
    if ts != t0:
        raise _fail(embedder, "encode() mutated its input")
    done.append("no_input_mutation")
    if not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.ndim != 2 or out.shape[0] != len(ts):
        raise _fail(embedder, f"encode() must return float32 of shape ({len(ts)}, d), got "
                              f"{getattr(out, 'dtype', type(out))} {getattr(out, 'shape', '')}")
    if out.shape[1] < 1 or not np.all(np.isfinite(out)):
        raise _fail(embedder, "encode() returned no dimensions or non-finite values")
    done.append("shape_dtype_finite")
    again = embedder.encode(ts)
    if again.shape != out.shape or not np.allclose(out, again, rtol=0, atol=atol):
        raise _fail(embedder, "encode() is not deterministic")
    done.append("deterministic")
    single = np.vstack([embedder.encode([t]) for t in ts])
    if single.shape != out.shape or not np.allclose(out, single, rtol=1e-4, atol=atol):
        raise _fail(embedder, "embeddings depend on the batch (padding leaks into the output?)")
    done.append("batch_independent")
    empty = np.asarray(embedder.encode([]))
    if empty.ndim != 2 or empty.shape[0] != 0 or empty.shape[1] not in (0, out.shape[1]):
        raise _fail(embedder, f"encode([]) must have shape (0, {out.shape[1]}), got {empty.shape}")
    done.append("empty_input")
    return done
