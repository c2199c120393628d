"""Hugging Face encoder (``AutoModel``) with CLS / mean / last-token pooling as an embedder."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._lazy import require
from ..errors import ValidationError
from ..rankers.base import component_fingerprint
from ..neural import autocast, check_precision, model_revision
from .base import BaseEmbedder

__all__ = ["HFPoolingEmbedder", "POOLINGS"]

POOLINGS = ("cls", "mean", "last")


@dataclass(kw_only=True)
class HFPoolingEmbedder(BaseEmbedder):
    """Pool the last hidden states of any ``transformers`` encoder.

    Args:
        model: hub name or local directory (``None``: the offline MiniLM directory).
        pooling: ``"cls"`` (first token), ``"mean"`` (average over non-padding tokens: with the
            MiniLM directory this reproduces sentence-transformers' own output) or ``"last"``
            (the last non-padding token, for decoder-style embedders; works with left or right
            padding).
        normalize: L2-normalise the output.
        max_length: truncate inputs to this many tokens.
        precision: ``"fp32"``, ``"bf16"`` (autocast) or ``"fp16"`` (CUDA only).
        device: ``None`` = CUDA when present, else CPU.
    """

    model: str | None = None
    pooling: str = "mean"
    normalize: bool = True
    max_length: int = 256
    precision: str = "fp32"
    device: str | None = None
    batch_size: int = 32

    def __post_init__(self) -> None:
        if self.pooling not in POOLINGS:
            raise ValidationError(f"HFPoolingEmbedder: pooling must be one of {POOLINGS}, got {self.pooling!r}")
        check_precision(type(self).__name__, self.precision)

    def _path(self) -> str:
        from .._models import resolve_model

        return resolve_model(self.model)

    @property
    def fingerprint(self) -> str:
        return component_fingerprint(self, {"revision": model_revision(self._path()),
                                            "precision": self.precision})

    def _load(self) -> Any:
        tr = require("transformers", feature=type(self).__name__)
        from .._models import resolve_device

        device = resolve_device(self.device)
        tok = tr.AutoTokenizer.from_pretrained(self._path())
        model = tr.AutoModel.from_pretrained(self._path()).to(device).eval()
        return tok, model, device

    def dimension(self) -> int:
        _, model, _ = self._model()
        return int(model.config.hidden_size)

    def _encode_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        import torch

        tok, model, device = self._model()
        enc = tok(texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
        enc = {k: v.to(device) for k, v in enc.items()}
        with torch.inference_mode(), autocast(self.precision, device):
            hidden = model(**enc).last_hidden_state.float()
        mask = enc["attention_mask"].to(hidden.dtype)
        if self.pooling == "cls":
            pooled = hidden[:, 0]
        elif self.pooling == "mean":
            summed = (hidden * mask.unsqueeze(-1)).sum(dim=1)
            pooled = summed / mask.sum(dim=1, keepdim=True).clamp(min=1e-9)
        else:  # last non-padding token: highest position with mask 1 (left or right padding)
            positions = torch.arange(mask.shape[1], device=mask.device).expand_as(mask)
            last = (positions * enc["attention_mask"]).argmax(dim=1)
            pooled = hidden[torch.arange(hidden.shape[0], device=hidden.device), last]
        if self.normalize:
            pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
        return pooled.cpu().numpy().astype(np.float32)
