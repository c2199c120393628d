"""Rows of vectors as the searches see them: unit-length rows (:class:`UnitRows`, normalised
once), L2 normalisation, zero rows, sparse detection and the dense/sparse block product.

Cosine at inner-product speed: normalise once, not per block. :class:`UnitRows` marks rows that
are already L2-normalised (and :class:`~ranklens.engine.vectors.StoredVectors` with
``unit=True`` normalises rows as it reads them); for those, ``metric="cosine"`` normalises the
queries only and each corpus block goes straight into the product. Zero vectors stay zero and
have similarity 0 to everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ValidationError

__all__ = ["UnitRows", "block_similarities", "is_sparse", "is_unit", "l2_normalize", "unit_rows", "zero_rows"]


@dataclass(frozen=True, eq=False)
class UnitRows:
    """Dense rows already L2-normalised (zero rows stay zero): cosine similarity is their inner
    product, so searches skip the per-block normalisation. Slicing and ``np.asarray`` give the
    underlying array (views, no copy); build one with :func:`unit_rows`."""

    data: Any  # float32 ndarray or np.memmap, rows of unit length or zero
    unit = True
    ndim = 2
    dtype = np.dtype(np.float32)

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.data.shape)  # type: ignore[return-value]

    def __len__(self) -> int:
        return int(self.data.shape[0])

    def __getitem__(self, idx: Any) -> np.ndarray:
        return np.asarray(self.data[idx])

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = np.asarray(self.data)
        return a if dtype is None else a.astype(dtype, copy=False)


def is_unit(x: Any) -> bool:
    """Whether ``x`` is known to hold unit-length (or zero) rows (:class:`UnitRows`, a unit view)."""
    return bool(getattr(x, "unit", False))


def unit_rows(x: Any) -> Any:
    """``x`` with L2-normalised rows, normalised once: a CSR matrix for sparse input, a unit view
    of stored vectors, else :class:`UnitRows` over a normalised float32 copy (``x`` unchanged)."""
    if is_unit(x):
        return x
    if is_sparse(x):
        return l2_normalize(x)
    if hasattr(x, "normalized"):
        return x.normalized()
    return UnitRows(l2_normalize(x))


def is_sparse(x: Any) -> bool:
    """True for a ``scipy.sparse`` matrix (without importing scipy when it is not one)."""
    return hasattr(x, "tocsr") and hasattr(x, "nnz")


def l2_normalize(x: Any) -> Any:
    """Row-wise L2-normalised float32 copy; zero rows stay zero (CSR for sparse input)."""
    if is_sparse(x):
        a = x.tocsr().astype(np.float32, copy=True)
        n = np.sqrt(np.asarray(a.multiply(a).sum(axis=1), dtype=np.float64).ravel())
        scale = np.divide(1.0, n, out=np.zeros_like(n), where=n > 0).astype(np.float32)
        a.data *= np.repeat(scale, np.diff(a.indptr))
        return a
    a = np.array(x, dtype=np.float32, copy=True)
    if a.ndim != 2:
        raise ValidationError(f"expected a 2-D array of vectors, got shape {a.shape}")
    n = np.linalg.norm(a, axis=1, keepdims=True)
    np.divide(a, n, out=a, where=n > 0)
    return a


def zero_rows(x: Any) -> npt.NDArray[np.bool_]:
    """Boolean mask of the rows of a 2-D array that are entirely zero (no direction, no neighbours)."""
    if is_sparse(x):
        a = x.tocsr()
        return np.asarray(np.abs(a).sum(axis=1)).ravel() == 0
    a = np.asarray(x)
    return ~np.any(a != 0, axis=1)



def block_similarities(q: Any, block: Any) -> np.ndarray:
    """Dense float32 ``q @ block.T`` for dense or sparse (CSR) rows."""
    if is_sparse(q) or is_sparse(block):
        out = q @ block.T
        out = out.toarray() if is_sparse(out) else np.asarray(out)
        return np.ascontiguousarray(out, dtype=np.float32)
    return q @ block.T

