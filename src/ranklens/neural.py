"""Shared helpers for neural rankers and embedders: weights hashes, precision, devices.

Kept free of top-level torch imports (``import ranklens.rankers`` must stay light).
"""

from __future__ import annotations

import contextlib
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from ._hashing import sha256_file
from .errors import ValidationError

__all__ = ["PRECISIONS", "autocast", "check_precision", "cpu_has_bf16", "model_revision"]

PRECISIONS = ("fp32", "fp16", "bf16")
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt")


def check_precision(owner: str, precision: str) -> None:
    """Raise unless ``precision`` is one of :data:`PRECISIONS`."""
    if precision not in PRECISIONS:
        raise ValidationError(f"{owner}: precision must be one of {PRECISIONS}, got {precision!r}")


@lru_cache(maxsize=64)
def _dir_revision(path: str, stamp: tuple[tuple[str, int, int], ...]) -> str:
    import hashlib

    h = hashlib.sha256()
    for rel, _, _ in stamp:
        h.update(rel.encode())
        h.update(bytes.fromhex(sha256_file(os.path.join(path, rel))))
    return "sha256:" + h.hexdigest()


_CONFIG_SUFFIXES = (".json", ".txt", ".model", ".yaml", ".yml", ".cfg", ".ini")  # configs, tokenizer, vocab


def model_revision(name_or_path: str) -> str:
    """Identity of a model: sha256 over its weight files **and every configuration file** in a local
    directory (``*.json`` anywhere below it -- ``config.json``, ``modules.json``,
    ``1_Pooling/config.json``, ``sentence_bert_config.json``, tokenizer files --, vocabularies
    ``*.txt``, sentencepiece ``*.model``, ``*.yaml``), hidden folders (``.cache``, ``.git``) left out;
    cached per path, size and mtime, so a re-saved model or a changed pooling gets a new revision.
    ``hub:<name>`` for a hub name (the revision then depends on the local HF cache)."""
    p = Path(name_or_path)
    if p.is_dir():
        files = sorted(
            (str(f.relative_to(p)), f.stat().st_size, f.stat().st_mtime_ns)
            for f in p.rglob("*")
            if f.is_file() and f.suffix in (*_WEIGHT_SUFFIXES, *_CONFIG_SUFFIXES)
            and not any(part.startswith(".") for part in f.relative_to(p).parts)
        )
        return _dir_revision(str(p.resolve()), tuple(files))
    if p.is_file():
        return "sha256:" + sha256_file(p)
    return f"hub:{name_or_path}"


def cpu_has_bf16() -> bool | None:
    """Whether this CPU has bf16 matrix instructions (AVX512-BF16 or AMX tiles), as PyTorch's own
    CPU-capability checks see them; ``None`` when this PyTorch cannot say (the checks are private
    functions of ``torch.cpu``: read defensively)."""
    import torch

    checks = [getattr(torch.cpu, name, None) for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")]
    if not all(callable(c) for c in checks):
        return None
    try:
        return any(bool(c()) for c in checks)  # type: ignore[misc]
    except Exception:  # noqa: BLE001 - a capability probe that fails says nothing either way
        return None


def autocast(precision: str, device: str) -> Any:
    """Context manager running a forward pass at ``precision`` on ``device``.

    ``bf16`` uses ``torch.autocast(device, dtype=torch.bfloat16)`` (CPU or CUDA); ``fp16`` is
    CUDA only (CPU fp16 matmuls are slow and inaccurate); ``fp32`` is a no-op.
    """
    import torch

    dev = device.split(":")[0]
    if precision == "fp32":
        return contextlib.nullcontext()
    if precision == "fp16":
        if dev != "cuda":
            raise ValidationError("precision='fp16' needs a CUDA device; on CPU use precision='bf16'")
        return torch.autocast("cuda", dtype=torch.float16)
    if precision == "bf16":
        if dev not in ("cuda",) and cpu_has_bf16() is False:
            import warnings

            from .errors import RanklensWarning

            warnings.warn(RanklensWarning(
                "precision='bf16' on a CPU without bf16 instructions (AVX512-BF16 or AMX, as PyTorch detects "
                "them): PyTorch emulates bf16 here, which is slower than fp32; use precision='fp32', or "
                "backend='onnx-int8' for a faster CPU path"), stacklevel=2)
        return torch.autocast(dev if dev in ("cpu", "cuda") else "cpu", dtype=torch.bfloat16)
    raise ValidationError(f"precision must be one of {PRECISIONS}, got {precision!r}")
