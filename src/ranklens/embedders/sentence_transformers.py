"""sentence-transformers bi-encoder as an :class:`~ranklens.embedders.base.Embedder`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .._lazy import require
from ..backends import AGREEMENT_SAMPLE, backend_fingerprint, check_backend
from ..neural import autocast, check_precision, model_revision
from .base import BaseEmbedder

__all__ = ["SentenceTransformerEmbedder"]


@dataclass
class _Onnx:
    """A model run by ONNX Runtime: the PyTorch model (its tokenizer, the fp32 reference of the
    agreement check) and the session over its exported graph."""

    st: Any
    session: Any


def _features(m: Any, texts: list[str]) -> dict[str, Any]:
    """The tokenizer features (tensors only) the model's first module makes of ``texts``."""
    import torch

    prep = getattr(m, "preprocess", None) or m.tokenize  # sentence-transformers >= 6 / older
    return {k: v for k, v in prep(texts).items() if isinstance(v, torch.Tensor)}


def _graph(m: Any, names: list[str]) -> Any:
    """The whole module pipeline of ``m`` (transformer, pooling, dense, normalise) as one
    ``nn.Module`` of positional tensors, for ``torch.onnx.export``."""
    import torch

    class Graph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.st = m

        def forward(self, *tensors: Any) -> Any:
            return self.st(dict(zip(names, tensors)))["sentence_embedding"]

    return Graph().eval()


@dataclass(kw_only=True)
class SentenceTransformerEmbedder(BaseEmbedder):
    """Any sentence-transformers model (hub name or local directory) as an embedder.

    Args:
        model: name or path; ``None``/``"minilm"`` = the offline all-MiniLM-L6-v2 package.
        device: ``None`` = CUDA when present, else CPU (:func:`ranklens._models.resolve_device`).
        precision: ``"fp32"``, ``"bf16"`` (``torch.autocast`` on CPU or CUDA; about 2.8x faster
            for MiniLM on AVX512-BF16 CPUs, cosine to fp32 >= 0.9999; slower than fp32 on a CPU
            without bf16 instructions, warned: :func:`ranklens.neural.cpu_has_bf16`) or ``"fp16"`` (CUDA only).
        backend: ``"torch"`` (default), ``"onnx"`` (ONNX Runtime, fp32, CPU) or ``"onnx-int8"``
            (int8 dynamic quantisation): :mod:`ranklens.backends`. A backend other than fp32
            PyTorch measures its agreement with fp32 on its first batch and warns with it.
        normalize: L2-normalise the vectors (cosine = dot).
        batch_size: texts per forward pass.
        max_seq_length: truncate inputs to this many word pieces (``None``: the model's own).

    The fingerprint holds the parameters (``backend`` only when not the default ``"torch"``, so an
    fp32 PyTorch model keeps its earlier fingerprint), the sha256 of the weights and configuration
    files and the precision.
    """

    model: str | None = None
    device: str | None = None
    precision: str = "fp32"
    backend: str = "torch"
    normalize: bool = True
    batch_size: int = 32
    max_seq_length: int | None = None

    def __post_init__(self) -> None:
        check_precision(type(self).__name__, self.precision)
        check_backend(type(self).__name__, self.backend, self.precision, self.device)

    def _path(self) -> str:
        from .._models import resolve_model

        return resolve_model(self.model)

    def _revision(self) -> str | None:
        return model_revision(self._path())

    @property
    def fingerprint(self) -> str:
        return backend_fingerprint(self, {"revision": self._revision(), "precision": self.precision})

    @property
    def device_(self) -> str:
        """The device actually used (resolved lazily; the ONNX backends run on the CPU)."""
        from .._models import resolve_device

        return "cpu" if self.backend != "torch" else resolve_device(self.device)

    @property
    def backend_agreement(self) -> Any:
        """The :class:`ranklens.backends.Agreement` with fp32 PyTorch measured on the first batch
        (``None`` before it, and for fp32 PyTorch itself): a value kept per fingerprint by
        :func:`ranklens.backends.agreement_once`, not state of this object."""
        from ..backends import measured_agreement

        return measured_agreement(self.fingerprint)

    def _load(self) -> Any:
        st = require("sentence_transformers", feature=type(self).__name__)
        m = st.SentenceTransformer(self._path(), device=self.device_)
        if self.max_seq_length is not None:
            m.max_seq_length = int(self.max_seq_length)
        m.eval()
        if self.backend == "torch":
            return m
        from ..backends import ensure_onnx, onnx_session

        example = _features(m, ["an example sentence to trace the graph with", "a short one"])
        path = ensure_onnx("st", self._revision(), self.backend, _graph(m, list(example)), example,
                           "sentence_embedding")
        return _Onnx(m, onnx_session(path))

    def dimension(self) -> int:
        m = self._model()
        m = m.st if isinstance(m, _Onnx) else m
        get = getattr(m, "get_embedding_dimension", None) or m.get_sentence_embedding_dimension
        return int(get())

    def _torch_encode(self, m: Any, texts: list[str], precision: str) -> npt.NDArray[np.float32]:
        import torch

        with torch.inference_mode(), autocast(precision, str(m.device)):
            out = m.encode(texts, batch_size=self.batch_size, normalize_embeddings=self.normalize,
                           convert_to_tensor=True, show_progress_bar=False)
        return out.float().cpu().numpy().astype(np.float32, copy=False)

    def _onnx_encode(self, h: _Onnx, texts: list[str]) -> npt.NDArray[np.float32]:
        from ..backends import run_session

        order = np.argsort([-len(t) for t in texts], kind="stable")  # similar lengths per batch: less padding
        parts: list[npt.NDArray[np.float32]] = []
        for i in range(0, len(texts), self.batch_size):
            parts.append(run_session(h.session, _features(h.st, [texts[j] for j in order[i:i + self.batch_size]])))
        out = np.empty((len(texts), parts[0].shape[1]), dtype=np.float32)
        out[order] = np.concatenate(parts)
        if self.normalize:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out

    def _encode_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        m = self._model()
        onnx = isinstance(m, _Onnx)
        out = self._onnx_encode(m, texts) if onnx else self._torch_encode(m, texts, self.precision)
        if (onnx or self.precision != "fp32") and len(texts) >= 2:
            from ..backends import agreement_once

            what = f"{self.backend} backend" if onnx else f"precision={self.precision!r}"
            agreement_once(self.fingerprint, f"SentenceTransformerEmbedder({what})",
                           lambda: self.agreement_with_fp32(m.st if onnx else m, texts, out))
        return out

    def agreement_with_fp32(self, m: Any, texts: list[str], out: npt.NDArray[np.float32]) -> Any:
        """The :class:`ranklens.backends.Agreement` of ``out`` (this component's vectors of
        ``texts``) with fp32 PyTorch (model ``m``) on up to AGREEMENT_SAMPLE of them: a value."""
        from ..backends import embedding_agreement

        n = min(len(texts), AGREEMENT_SAMPLE)
        return embedding_agreement(self._torch_encode(m, texts[:n], "fp32"), out[:n])
