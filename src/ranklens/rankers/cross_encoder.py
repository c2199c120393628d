"""Cross-encoder ranker: a sequence-classification model over (query, text) pairs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._lazy import require
from ..backends import AGREEMENT_SAMPLE, backend_fingerprint, check_backend
from ..neural import autocast, check_precision, model_revision
from ..errors import ValidationError
from .base import BaseRanker

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
        backend: ``"torch"`` (default), ``"onnx"`` (ONNX Runtime, fp32, CPU) or ``"onnx-int8"``
            (int8 dynamic quantisation): :mod:`ranklens.backends`. A backend other than fp32
            PyTorch measures its agreement with fp32 on its first batch and warns with it.
    """

    model: str
    max_length: int = 512
    positive_label: int = 1
    precision: str = "fp32"
    device: str | None = None
    batch_size: int = 32
    backend: str = "torch"

    def __post_init__(self) -> None:
        check_precision(type(self).__name__, self.precision)
        check_backend(type(self).__name__, self.backend, self.precision, self.device)

    @property
    def backend_agreement(self) -> Any:
        """The :class:`ranklens.backends.Agreement` with fp32 PyTorch measured on the first batch
        (``None`` before it, and for fp32 PyTorch itself): a value kept per fingerprint by
        :func:`ranklens.backends.agreement_once`, not state of this object."""
        from ..backends import measured_agreement

        return measured_agreement(self.fingerprint)

    @property
    def fingerprint(self) -> str:
        """Class, parameters (``backend`` only when not the default ``"torch"``: an fp32 PyTorch
        model keeps its earlier fingerprint), weights revision and precision."""
        return backend_fingerprint(self, {"revision": model_revision(self.model),
                                            "precision": self.precision})

    def _load(self) -> Any:
        tr = require("transformers", feature=type(self).__name__)
        from .._models import resolve_device

        device = "cpu" if self.backend != "torch" else resolve_device(self.device)
        tok = tr.AutoTokenizer.from_pretrained(self.model)
        model = tr.AutoModelForSequenceClassification.from_pretrained(self.model).to(device).eval()
        n = int(model.config.num_labels)
        if n > 1 and not 0 <= self.positive_label < n:
            raise ValidationError(
                f"CrossEncoderRanker: positive_label={self.positive_label} but {self.model} has {n} labels"
            )
        if self.backend == "torch":
            return tok, model, device, None
        from ..backends import ensure_onnx, onnx_session

        example = dict(tok(["a query", "another query"], ["a text to trace the graph with", "a text"],
                           padding=True, return_tensors="pt"))
        path = ensure_onnx("seqcls", model_revision(self.model), self.backend, _logits_graph(model, list(example)),
                           example, "logits")
        return tok, model, device, onnx_session(path)

    def _logits(self, queries: list[str], texts: list[str], precision: str, onnx: bool) -> npt.NDArray[np.float64]:
        import torch

        tok, model, device, session = self._model()
        enc = tok(queries, texts, padding=True, truncation=True, max_length=self.max_length,
                  return_tensors="pt")
        if onnx:
            from ..backends import run_session

            logits = torch.from_numpy(run_session(session, dict(enc)))
        else:
            enc = {k: v.to(device) for k, v in enc.items()}
            with torch.inference_mode(), autocast(precision, device):
                logits = model(**enc).logits.float()
        col = 0 if logits.shape[1] == 1 else self.positive_label
        return logits[:, col].cpu().numpy().astype(np.float64)

    def _score_batch(self, queries: list[str], texts: list[str]) -> npt.NDArray[np.float64]:
        onnx = self._model()[3] is not None
        out = self._logits(queries, texts, self.precision, onnx)
        if (onnx or self.precision != "fp32") and len(queries) >= 2:
            from ..backends import agreement_once

            what = f"{self.backend} backend" if onnx else f"precision={self.precision!r}"
            agreement_once(self.fingerprint, f"CrossEncoderRanker({what})",
                           lambda: self.agreement_with_fp32(queries, texts, out))
        return out

    def agreement_with_fp32(self, queries: list[str], texts: list[str], out: npt.NDArray[np.float64]) -> Any:
        """The :class:`ranklens.backends.Agreement` of ``out`` (this component's scores of the
        pairs) with fp32 PyTorch on up to AGREEMENT_SAMPLE of them, grouped by query: a value."""
        from ..backends import agreement

        n = min(len(queries), AGREEMENT_SAMPLE)
        return agreement(self._logits(queries[:n], texts[:n], "fp32", False), out[:n], groups=queries[:n])


def _logits_graph(model: Any, names: list[str]) -> Any:
    """The classifier's logits as an ``nn.Module`` of positional tensors, for ``torch.onnx.export``."""
    import torch

    class Graph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *tensors: Any) -> Any:
            return self.model(**dict(zip(names, tensors))).logits

    return Graph().eval()
