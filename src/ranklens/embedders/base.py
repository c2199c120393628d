"""The Embedder protocol: ``encode(texts) -> float32 (n, d)`` with a stable ``fingerprint``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ..errors import ValidationError
from ..rankers.base import BaseComponent, named_fingerprint

__all__ = ["BaseEmbedder", "Embedder", "FunctionEmbedder"]


@runtime_checkable
class Embedder(Protocol):
    """Anything that maps texts to float32 vectors of one dimension (``(n, d)``)."""

    @property
    def fingerprint(self) -> str: ...

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


@dataclass(kw_only=True)
class BaseEmbedder(BaseComponent):
    """Optional base class of embedders: implement :meth:`_encode_batch` and :meth:`dimension`
    (lazy loading and fingerprint: :class:`~ranklens.rankers.base.BaseComponent`)."""

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
        return named_fingerprint("FunctionEmbedder", {'fn': fn_id, 'name': self.name_, 'version': self.version})

    def _encode_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        return np.asarray(self.fn(texts), dtype=np.float32)
