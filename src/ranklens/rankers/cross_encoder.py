"""Cross-encoder ranker: a sequence-classification model over (query, text) pairs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._lazy import require
from ..neural import autocast, check_precision, model_revision
from ..errors import ValidationError
from .base import BaseRanker, component_fingerprint

__all__ = ["CrossEncoderRanker"]


@dataclass(kw_only=True)
class CrossEncoderRanker(BaseRanker):
    """Score = the relevance logit of a cross-encoder.

    Loads any directory or hub name with ``transformers.AutoModelForSequenceClassification``
    (sentence-transformers ``CrossEncoder`` checkpoints are such directories). With one output
    label the score is that logit (as ``CrossEncoder.predict`` without activation); with two or
    more it is the logit of ``positive_label`` (default 1, the "relevant" class of binary
    classifiers).

    Args:
        model: hub name or local directory.
        max_length: truncate the pair (longest part first) to this many tokens.
        positive_label: output index used when the model has >= 2 labels.
        precision: ``"fp32"``, ``"bf16"`` or ``"fp16"`` (CUDA only). device: ``None`` = auto.
    """

    model: str
    max_length: int = 512
    positive_label: int = 1
    precision: str = "fp32"
    device: str | None = None
    batch_size: int = 32

    def __post_init__(self) -> None:
        check_precision(type(self).__name__, self.precision)

    @property
    def fingerprint(self) -> str:
        return component_fingerprint(self, {"revision": model_revision(self.model),
                                            "precision": self.precision})

    def _load(self) -> Any:
        tr = require("transformers", feature=type(self).__name__)
        from .._models import resolve_device

        device = resolve_device(self.device)
        tok = tr.AutoTokenizer.from_pretrained(self.model)
        model = tr.AutoModelForSequenceClassification.from_pretrained(self.model).to(device).eval()
        n = int(model.config.num_labels)
        if n > 1 and not 0 <= self.positive_label < n:
            raise ValidationError(
                f"CrossEncoderRanker: positive_label={self.positive_label} but {self.model} has {n} labels"
            )
        return tok, model, device

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        import torch

        tok, model, device = self._model()
        enc = tok(queries, texts, padding=True, truncation=True, max_length=self.max_length,
                  return_tensors="pt")
        enc = {k: v.to(device) for k, v in enc.items()}
        with torch.inference_mode(), autocast(self.precision, device):
            logits = model(**enc).logits.float()
        col = 0 if logits.shape[1] == 1 else self.positive_label
        return logits[:, col].cpu().numpy().astype(np.float64)
