"""The Ranker protocol and helpers for writing rankers.

A ranker scores aligned (query, text) pairs; higher = more relevant. Rankers hold parameters only
(their init fields are their identity) and load models lazily on the first call. Every analysis
calls rankers through :mod:`ranklens.engine`, never directly, so scores are deduplicated,
batched, cached and shown with progress.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from .._hashing import remember_fingerprint, sha256_json
from ..errors import ValidationError

__all__ = ["BaseComponent", "BaseRanker", "FunctionRanker", "Ranker", "check_pairs", "component_fingerprint", "named_fingerprint"]


@runtime_checkable
class Ranker(Protocol):
    """Anything that scores (query, text) pairs.

    ``score(queries, texts)`` returns one float per pair (``len(queries) == len(texts)``) and
    never mutates its inputs. ``fingerprint`` is a stable string that changes whenever the
    scores could change (class, parameters, model revision or weights hash); it is the cache key.
    An optional ``batch_size`` attribute tells the engine how many pairs to send per call.
    """

    @property
    def fingerprint(self) -> str: ...

    def score(self, queries: Sequence[str], texts: Sequence[str]) -> npt.NDArray[np.float64]: ...


def check_pairs(queries: Sequence[str], texts: Sequence[str]) -> None:
    """Raise :class:`ValidationError` unless ``queries`` and ``texts`` are aligned string lists."""
    if len(queries) != len(texts):
        raise ValidationError(
            f"queries and texts must have the same length, got {len(queries)} and {len(texts)}"
        )
    for name, seq in (("queries", queries), ("texts", texts)):
        for i, s in enumerate(seq):
            if not isinstance(s, str):
                raise ValidationError(f"{name}[{i}] must be str, got {type(s).__name__}: {s!r:.80}")


def _params(obj: Any) -> dict[str, Any]:
    if dataclasses.is_dataclass(obj):
        return {
            f.name: getattr(obj, f.name)
            for f in dataclasses.fields(obj)
            if f.init and f.compare and not f.name.startswith("_")
        }
    return {}


def named_fingerprint(name: str, payload: Any) -> str:
    """``name@<sha256 prefix of payload>``, remembered (so provenance can show what it covers).
    The one way every component builds its fingerprint."""
    fp = f"{name}@{sha256_json(payload)[:16]}"
    remember_fingerprint(fp, payload)
    return fp


def component_fingerprint(obj: Any, extra: dict[str, Any] | None = None) -> str:
    """``ClassName@<sha256 prefix>`` over the class path, the init parameters and ``extra``."""
    cls = type(obj)
    payload = {"class": f"{cls.__module__}.{cls.__qualname__}", "params": _params(obj)}
    if extra:
        payload["extra"] = extra
    return named_fingerprint(cls.__name__, payload)


@dataclass(kw_only=True)
class BaseComponent:
    """What rankers and embedders share: parameters as dataclass fields, lazy model loading,
    a fingerprint over class, parameters and model revision.

    Subclasses that load a model implement :meth:`_load` (called once, on first use, never in
    ``__init__``) and :meth:`_revision` (a weights hash or model revision that enters the
    fingerprint).
    """

    batch_size: int = 32
    _loaded: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        """Short display name (the class name by default)."""
        return type(self).__name__

    @property
    def fingerprint(self) -> str:
        """Stable identity for caching: class, parameters and model revision."""
        return component_fingerprint(self, {"revision": self._revision()})

    def _revision(self) -> str | None:
        return None

    def _load(self) -> Any:
        return True

    def _model(self) -> Any:
        if self._loaded is None:
            from .._models import explaining_load_errors

            with explaining_load_errors(self):  # spec, path tried and offline hint; no traceback
                self._loaded = self._load()
        return self._loaded


@dataclass(kw_only=True)
class BaseRanker(BaseComponent):
    """Optional base class of rankers: implement :meth:`_score_batch` (see :class:`BaseComponent`)."""

    def score(self, queries: Sequence[str], texts: Sequence[str]) -> npt.NDArray[np.float64]:
        """Score aligned pairs (one float64 per pair)."""
        check_pairs(queries, texts)
        if len(queries) == 0:
            return np.zeros(0, dtype=np.float64)
        out = np.asarray(self._score_batch(list(queries), list(texts)), dtype=np.float64)
        if out.shape != (len(queries),):
            raise ValidationError(
                f"{type(self).__name__}._score_batch returned shape {out.shape}, "
                f"expected ({len(queries)},)"
            )
        return out

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        raise NotImplementedError


@dataclass(kw_only=True)
class FunctionRanker(BaseRanker):
    """Wrap any callable ``fn(queries, texts) -> scores`` (or ``fn(query, text) -> float`` with
    ``pairwise=True``) as a ranker. ``name`` enters the fingerprint: give each function its own
    (default: the function's module and qualified name)."""

    fn: Callable[..., Any]
    pairwise: bool = False
    name_: str | None = None
    version: str = "1"

    @property
    def name(self) -> str:
        return self.name_ or getattr(self.fn, "__qualname__", type(self).__name__)

    @property
    def fingerprint(self) -> str:
        fn_id = f"{getattr(self.fn, '__module__', '?')}.{getattr(self.fn, '__qualname__', repr(self.fn))}"
        payload = {"fn": fn_id, "name": self.name_, "pairwise": self.pairwise, "version": self.version}
        return named_fingerprint("FunctionRanker", payload)

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        if self.pairwise:
            return np.array([float(self.fn(q, t)) for q, t in zip(queries, texts)], dtype=np.float64)
        try:
            out = np.asarray(self.fn(queries, texts), dtype=np.float64)
        except (AttributeError, TypeError, ValueError) as exc:
            raise ValidationError(_BATCH_SIGNATURE.format(name=self.name, why=f"{type(exc).__name__}: {exc}")) from exc
        if out.shape != (len(queries),):
            raise ValidationError(_BATCH_SIGNATURE.format(name=self.name, why=f"it returned shape {out.shape} for "
                                                          f"{len(queries)} pairs"))
        return out


_BATCH_SIGNATURE = ("callable ranker {name!r} must take (queries: list[str], texts: list[str]) and return one score "
                    "per pair ({why}); for a function fn(query: str, text: str) -> float use the spec "
                    "'callable-pair:<module>:<func>' (FunctionRanker(pairwise=True))")
