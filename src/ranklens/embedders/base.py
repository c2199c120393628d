"""The Embedder protocol: ``encode(texts) -> float32 (n, d)`` with a stable ``fingerprint``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from .._hashing import sha256_json
from ..errors import ValidationError
from ..rankers.base import component_fingerprint

__all__ = ["BaseEmbedder", "Embedder", "FunctionEmbedder"]


@runtime_checkable
class Embedder(Protocol):
    """Anything that maps texts to float32 vectors of one dimension (``(n, d)``)."""

    @property
    def fingerprint(self) -> str: ...

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


@dataclass(kw_only=True)
class BaseEmbedder:
    """Optional base class: parameters as fields, lazy model loading, fingerprint."""

    batch_size: int = 32
    _loaded: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        return type(self).__name__

    @property
    def fingerprint(self) -> str:
        return component_fingerprint(self, {"revision": self._revision()})

    def _revision(self) -> str | None:
        return None

    def _load(self) -> Any:
        return True

    def _model(self) -> Any:
        if self._loaded is None:
            self._loaded = self._load()
        return self._loaded

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise ValidationError(f"texts[{i}] must be str, got {type(t).__name__}")
        if len(texts) == 0:
            return np.zeros((0, self.dimension()), dtype=np.float32)
        out = np.asarray(self._encode_batch(list(texts)), dtype=np.float32)
        if out.ndim != 2 or out.shape[0] != len(texts):
            raise ValidationError(
                f"{type(self).__name__} returned shape {out.shape}, expected ({len(texts)}, d)"
            )
        return out

    def dimension(self) -> int:
        """Vector dimension (encodes one text if the subclass does not know it up front)."""
        return int(self._encode_batch(["x"]).shape[1])

    def _encode_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        raise NotImplementedError


@dataclass(kw_only=True)
class FunctionEmbedder(BaseEmbedder):
    """Wrap any callable ``fn(texts) -> (n, d)`` array as an embedder."""

    fn: Callable[[list[str]], Any]
    name_: str | None = None
    version: str = "1"

    @property
    def name(self) -> str:
        return self.name_ or getattr(self.fn, "__qualname__", "function")

    @property
    def fingerprint(self) -> str:
        fn_id = f"{getattr(self.fn, '__module__', '?')}.{getattr(self.fn, '__qualname__', repr(self.fn))}"
        return f"FunctionEmbedder@{sha256_json({'fn': fn_id, 'name': self.name_, 'version': self.version})[:16]}"

    def _encode_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        return np.asarray(self.fn(texts), dtype=np.float32)
